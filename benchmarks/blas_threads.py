"""numpy's BLAS on this machine: the single-thread sgemm peak, products of growing size on
one thread and on all of them (interleaved), and what switching the thread count costs.

    python -m benchmarks.blas_threads [--json] [--quick]

The peak is what W7-W10's achieved FLOP/s are compared with; the per-size table is where
micrograd's thread policy (micrograd.tensors.threads) takes its threshold from, and the
last two numbers are what the policy itself costs: a switch through the setter it calls,
and its size check on every product. `others_cores` is how many cores other processes
used meanwhile (as the policy reads it): above ~0.25 the two-thread column measures their
time slices, not OpenBLAS.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from benchmarks.common import emit, median

# (m, k, n) of float32 products: from a tiny regression's to a full-size GPT's (512x64x256:
# the GPT lecture's feed-forward at W7's size, just over the policy's threshold)
SIZES = [(32, 4, 16), (64, 64, 64), (128, 128, 128), (256, 64, 256), (512, 64, 256),
         (256, 256, 256), (512, 384, 512), (1024, 384, 1536), (2048, 2048, 2048)]


def _controllers() -> list:
    from threadpoolctl import ThreadpoolController

    return [c for c in ThreadpoolController().lib_controllers if c.user_api == "blas"]


def _set(controllers: list, n: int) -> None:
    for c in controllers:
        c.set_num_threads(n)


def _time(a: np.ndarray, b: np.ndarray, seconds: float) -> float:
    """Median seconds of a @ b over repeats adding up to about `seconds`."""
    out = np.empty((a.shape[0], b.shape[1]), a.dtype)
    np.matmul(a, b, out=out)
    t0 = time.perf_counter()
    np.matmul(a, b, out=out)
    once = max(time.perf_counter() - t0, 1e-7)
    number = max(1, min(200, int(0.01 / once)))  # calls per sample: about 10 ms
    samples = []
    for _ in range(max(3, int(seconds / (once * number + 1e-9)))):
        t0 = time.perf_counter()
        for _ in range(number):
            np.matmul(a, b, out=out)
        samples.append((time.perf_counter() - t0) / number)
        if len(samples) >= 30:
            break
    return median(samples)


def measure(quick: bool = False) -> dict:
    """The peak, the per-size table and the switching cost, as a JSON-ready dict."""
    from micrograd.tensors.threads import _Load

    load = _Load()
    load.others(time.monotonic())
    controllers = _controllers()
    default = max((c.num_threads for c in controllers), default=1)
    rng = np.random.default_rng(0)
    budget = 0.05 if quick else 0.4

    _set(controllers, 1)
    big = rng.standard_normal((2048, 2048)).astype(np.float32)
    best = min(_time(big, big, budget) for _ in range(1 if quick else 3))
    peak = 2 * 2048**3 / best

    rows = []
    for m, k, n in SIZES[:4] if quick else SIZES:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        times: dict[int, list[float]] = {1: [], default: []}
        for _ in range(1 if quick else 3):  # interleaved, so load changes hit both alike
            for threads in times:
                _set(controllers, threads)
                times[threads].append(_time(a, b, budget / 3))
        rows.append({"m": m, "k": k, "n": n, "flops": 2 * m * k * n,
                     "one_thread_s": median(times[1]), "default_s": median(times[default])})

    switches = 2000 if quick else 20000
    t0 = time.perf_counter()
    for i in range(switches):
        _set(controllers, 1 + (i & 1) * (default - 1))
    switch_s = (time.perf_counter() - t0) / switches
    raw_switch_s, check_s = _policy_costs(switches, default)
    _set(controllers, default)
    others = load.others(time.monotonic())
    return {"default_threads": default, "sgemm_peak_flops": peak, "sizes": rows,
            "others_cores": None if others is None else round(others, 3),
            "switch_s": switch_s, "raw_switch_s": raw_switch_s, "policy_check_s": check_s,
            "cores": os.cpu_count(),
            "load": list(os.getloadavg()) if hasattr(os, "getloadavg") else None}


def _policy_costs(switches: int, default: int) -> tuple[float | None, float]:
    """What micrograd's thread policy adds: one switch through the setter it calls
    (OpenBLAS's own; None without one), and its size check on a small product
    (micrograd.tensors.threads.matmul against np.matmul, 32x4x16). CPU time of this
    thread (time.thread_time): on a shared machine wall time mostly measures the others."""
    from micrograd.tensors import threads

    setters = threads._blas_setters()
    raw_switch_s = None
    if setters:
        t0 = time.thread_time()
        for i in range(switches):
            n = 1 + (i & 1) * (default - 1)
            for set_, _ in setters:
                set_(n)
        raw_switch_s = (time.thread_time() - t0) / switches
    a = np.ones((32, 4), np.float32)
    b = np.ones((4, 16), np.float32)
    threads.matmul(a, b)  # starts the policy (BLAS on one thread from here)

    def per_call(f: object) -> float:
        samples = []
        for _ in range(5):
            t0 = time.thread_time()
            for _ in range(5000):
                f(a, b)  # type: ignore[operator]
            samples.append((time.thread_time() - t0) / 5000)
        return median(samples)

    check_s = median([per_call(threads.matmul) - per_call(np.matmul) for _ in range(3)])
    return raw_switch_s, max(check_s, 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="one JSON object (the suite's)")
    parser.add_argument("--quick", action="store_true", help="a few sizes, short timings")
    args = parser.parse_args()
    result = measure(args.quick)
    if args.json:
        emit(result)
        return
    raw = result["raw_switch_s"]
    print(f"single-thread sgemm peak: {result['sgemm_peak_flops'] / 1e9:.1f} GFLOP/s; "
          f"switching threads: {result['switch_s'] * 1e6:.2f} µs through threadpoolctl, "
          f"{'-' if raw is None else f'{raw * 1e6:.2f}'} µs through the policy's setter; "
          f"the policy's size check: {result['policy_check_s'] * 1e6:.2f} µs a product; "
          f"load {result['load']}; other processes used {result['others_cores']} cores")
    print(f"{'m x k x n':>18} {'1 thread':>12} {str(result['default_threads']) + ' threads':>12}"
          f" {'ratio':>7}")
    for r in result["sizes"]:
        print(f"{r['m']:>6}x{r['k']:>5}x{r['n']:>5} {r['one_thread_s'] * 1e6:>10.1f}µs "
              f"{r['default_s'] * 1e6:>10.1f}µs {r['default_s'] / r['one_thread_s']:>7.2f}")


if __name__ == "__main__":
    main()
