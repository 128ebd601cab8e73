"""W4: a chain of n scalar ops, built and then back-propagated (and freed).

Run as `python -m benchmarks.chain [--gc-off] [--gc-stats] N [N ...]`. The chain cycles
through `x * 0.9999`, `x + 0.001` and `x.relu()` (ops micrograd 0.1.0 has too), so each op's
output is the next op's input: the deepest graph possible, n nodes long (plus one constant
leaf per binary op). x stays near 1 and the gradient 0.9999**(n/3) stays a normal float.
micrograd 0.1.0 builds its topological order recursively and stops with RecursionError past
~1,000 ops; that is recorded as the error, not hidden. Prints one JSON object: per n, seconds
to build, to run backward, to free the graph (and the CPU seconds of the first two, which
other processes on a shared machine disturb less), the gradient d(x_n)/d(x_0), and how many
collections Python's cyclic garbage collector ran during the build, per generation (read
from gc.get_stats(), which costs nothing while timing).

--gc-off runs with the cyclic collector disabled: a diagnostic showing how much of the build
is the collector re-crawling the growing live graph (the graph itself has no cycles, so
nothing is left unfreed).
--gc-stats also times the collector during the build (through gc.callbacks: two clock reads
per collection) and counts the objects it tracks once the chain is built. It is how the W4
notes in docs/benchmarks.md were measured; the suite does not pass it.
"""

import gc
import sys
import time

from benchmarks.common import emit, engine_origin
from micrograd.engine import Value


def build_chain(x0: Value, n: int) -> Value:
    """x_n from x_0 through n ops."""
    x = x0
    for i in range(n):
        r = i % 3
        if r == 0:
            x = x * 0.9999
        elif r == 1:
            x = x + 0.001
        else:
            x = x.relu()
    return x


class CollectorClock:
    """Seconds the cyclic gc spends in young (generation 0 and 1) and full collections."""

    def __init__(self) -> None:
        self.seconds = {"young": 0.0, "full": 0.0}
        self._started = 0.0

    def __call__(self, phase: str, info: dict) -> None:  # the gc.callbacks protocol
        if phase == "start":
            self._started = time.perf_counter()
        else:
            kind = "full" if info["generation"] == 2 else "young"
            self.seconds[kind] += time.perf_counter() - self._started


def collections_so_far() -> list:
    """How many collections the cyclic gc has run in this process, per generation."""
    return [generation["collections"] for generation in gc.get_stats()]


def run(n: int, gc_stats: bool = False) -> dict:
    gc.collect()  # start from a clean heap (also when the collector is otherwise off)
    x0 = Value(0.5)
    clock = CollectorClock()
    if gc_stats:
        gc.callbacks.append(clock)
    collections_before = collections_so_far()
    wall, cpu = time.perf_counter(), time.process_time()
    out = build_chain(x0, n)
    build, cpu_build = time.perf_counter() - wall, time.process_time() - cpu
    collections = [now - before
                   for now, before in zip(collections_so_far(), collections_before, strict=True)]
    if gc_stats:
        gc.callbacks.remove(clock)
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        out.backward()
    except RecursionError:
        return {"n": n, "error": "RecursionError", "build": build}
    backward, cpu_backward = time.perf_counter() - wall, time.process_time() - cpu
    result = {"n": n, "build": build, "backward": backward, "grad": x0.grad,
              "cpu_build": cpu_build, "cpu_backward": cpu_backward,
              "collections_in_build": collections}
    if gc_stats:
        result["gc_seconds_in_build"] = clock.seconds
        result["tracked_objects"] = len(gc.get_objects())  # slow: kept out of every timing
    wall = time.perf_counter()
    del out
    result["free"] = time.perf_counter() - wall
    return result


if __name__ == "__main__":
    args = sys.argv[1:]
    gc_off = "--gc-off" in args
    gc_stats = "--gc-stats" in args
    args = [a for a in args if a not in ("--gc-off", "--gc-stats")]
    if gc_off:
        gc.disable()
    emit({"engine": engine_origin(), "gc": not gc_off,
          "runs": [run(int(a), gc_stats) for a in args]})
