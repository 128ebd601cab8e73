"""The W6/W7 section of docs/benchmarks.md: the lecture steps on micrograd.torch and PyTorch."""

from __future__ import annotations

from benchmarks.common import median
from benchmarks.report_format import mib, ms, ratio, table, verdict

CONFIGS = ("micrograd/1", "micrograd/default", "torch/1", "torch/default")
TITLES = {
    "W6": "makemore MLP step (batch 32, embedding 10, hidden 200, hand-written BatchNorm, SGD)",
    "W7": "GPT lecture step (n_embd 64, 4 heads, 4 layers, block 32, batch 16, AdamW)",
}


def _good(runs: list[dict]) -> list[dict]:
    return [r for r in runs if r and "error" not in r and "median_s" in r]


def _why_not(runs: list[dict]) -> str:
    errors = [r["error"] for r in runs if r and "error" in r]
    return f"error: {errors[0]}" if errors else "not run"


def _median_time(runs: list[dict]) -> float | None:
    """Median over processes of each process's median step."""
    good = _good(runs)
    return median([r["median_s"] for r in good]) if good else None


def _peak(runs: list[dict]) -> float | None:
    good = _good(runs)
    return median([r["peak_rss_kib"] for r in good]) if good else None


def _threads(runs: list[dict], fallback: str) -> str:
    return next((str(r["threads"]) for r in _good(runs) if "threads" in r), fallback)


def first_losses(runs: dict[str, list]) -> tuple[list[float], list[float]]:
    """(micrograd's, PyTorch's) losses of the first steps, from each one's first good run."""
    ours: list[float] = next(
        (r["first_losses"] for k in CONFIGS[:2] for r in _good(runs.get(k, []))), [])
    theirs: list[float] = next(
        (r["first_losses"] for k in CONFIGS[2:] for r in _good(runs.get(k, []))), [])
    return ours, theirs


def torch_steps_section(results: dict, targets: dict, summary: list) -> str:
    """W6 and W7: timings, ratios, peak RSS and the first losses, with a verdict per target."""
    workloads = sorted(results)
    any_runs: dict[str, list] = next(iter(results.values()), {})
    ours_n = _threads(any_runs.get("micrograd/default", []), "default")
    torch_n = _threads(any_runs.get("torch/default", []), "default")
    out = ["## W6, W7 — the makemore and GPT lecture steps through `micrograd.torch`", "",
           "The same code (`benchmarks/torch_steps.py`) runs on PyTorch and on "
           "`micrograd.torch`, from the same float32 weights and batches drawn in numpy. "
           "Each engine, thread setting and workload runs in a process of its own; a process "
           "takes 3 warm-up steps, then times each step; the table shows the median over "
           "processes of each process's median step. One thread is "
           "`torch.set_num_threads(1)` on both (for micrograd: numpy's BLAS via threadpoolctl). "
           "The verdict compares each engine at its best.", ""]
    for workload in workloads:
        out.append(f"- **{workload}**: {TITLES.get(workload, workload)}")
    out.append("")
    rows = []
    for workload in workloads:
        runs = results[workload]
        times = {k: _median_time(runs.get(k, [])) for k in CONFIGS}
        cells = [ms(times[k]) if times[k] is not None else _why_not(runs.get(k, []))
                 for k in CONFIGS]
        processes = max((len(_good(runs.get(k, []))) for k in CONFIGS), default=0)

        def share(a: str, b: str, _times: dict = times) -> float | None:
            x, y = _times[a], _times[b]
            return x / y if x and y else None

        our_times = [t for k, t in times.items() if k.startswith("micrograd") and t]
        their_times = [t for k, t in times.items() if k.startswith("torch") and t]
        best = min(our_times) / min(their_times) if our_times and their_times else None
        target = targets[workload]
        result = verdict(best, target, False)
        rows.append([workload, str(processes), *cells, ratio(share("micrograd/1", "torch/1")),
                     ratio(share("micrograd/default", "torch/default")), ratio(best),
                     f"≤ {target:g}×", result])
        summary.append([workload, f"{TITLES.get(workload, workload).split(' (')[0]}: "
                        f"≤ {target:g}× PyTorch's time",
                        f"{ratio(best)} of PyTorch's time" if best is not None else cells[0],
                        result])
    out.append(table(["workload", "processes", "micrograd, 1 thread",
                      f"micrograd, {ours_n} threads", "PyTorch, 1 thread",
                      f"PyTorch, {torch_n} threads", "ours / PyTorch, 1 thread",
                      f"ours / PyTorch, {torch_n} threads", "each at its best", "target",
                      "result"], rows))

    out += ["", "Peak RSS (Linux `VmHWM` of each process, imports included: a user pays for "
                "them), median over the one-thread processes:", ""]
    rows = []
    for workload in workloads:
        runs = results[workload]
        peaks = {k: _peak(runs.get(k, [])) for k in ("micrograd/1", "torch/1")}
        after_import = {k: median([r["rss_after_import_kib"] for r in _good(runs.get(k, []))])
                        if _good(runs.get(k, [])) else None for k in ("micrograd/1", "torch/1")}
        our_peak, their_peak = peaks["micrograd/1"], peaks["torch/1"]
        rss_share = our_peak / their_peak if our_peak and their_peak else None
        result = verdict(rss_share, targets["W67_rss"], False)
        rows.append([workload, mib(after_import["micrograd/1"]), mib(our_peak),
                     mib(after_import["torch/1"]), mib(their_peak), ratio(rss_share), result])
        summary.append([workload, "peak RSS ≤ PyTorch's",
                        f"{ratio(rss_share)} ({mib(our_peak)} vs {mib(their_peak)})", result])
    out.append(table(["workload", "micrograd, after import", "micrograd, peak",
                      "PyTorch, after import", "PyTorch, peak", "ours / PyTorch", "result"],
                     rows))

    rtol = targets["W67_loss_rtol"]
    out += ["", f"Losses of the first steps from the same weights (step 0 must agree to "
                f"{rtol:.0e} relative; later steps drift by float32 rounding):", ""]
    rows = []
    for workload in workloads:
        our_losses, their_losses = first_losses(results[workload])
        if not our_losses or not their_losses:
            rows.append([workload, "0", "—", "—", "—", "n/a"])
            summary.append([workload, f"step-0 loss as PyTorch's (relative ≤ {rtol:.0e})", "—",
                            "n/a"])
            continue
        for step, (a, b) in enumerate(zip(our_losses, their_losses, strict=False)):
            difference = abs(a - b) / abs(b) if b else abs(a - b)
            rows.append([workload, str(step), repr(a), repr(b), f"{difference:.1e}",
                         verdict(difference, rtol, False) if step == 0 else "—"])
            if step == 0:
                summary.append([workload, f"step-0 loss as PyTorch's (relative ≤ {rtol:.0e})",
                                f"{difference:.1e}", verdict(difference, rtol, False)])
    out.append(table(["workload", "step", "micrograd", "PyTorch", "relative difference",
                      "result"], rows))
    return "\n".join(out)
