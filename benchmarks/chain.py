"""W4: a chain of n scalar ops, built and then back-propagated (and freed).

Run as `python -m benchmarks.chain [--gc-off] N [N ...]`. The chain cycles through `x * 0.9999`,
`x + 0.001` and `x.relu()` (ops micrograd 0.1.0 has too), so each op's output is the next
op's input: the deepest graph possible, n nodes long (plus one constant leaf per binary op).
x stays near 1 and the gradient 0.9999**(n/3) stays a normal float. micrograd 0.1.0 builds its
topological order recursively and stops with RecursionError past ~1,000 ops; that is
recorded as the error, not hidden. Prints one JSON object: per n, seconds to build, to run
backward, to free the graph, and the gradient d(x_n)/d(x_0).

--gc-off runs with Python's cyclic garbage collector disabled: a diagnostic showing how
much of the build is the collector re-crawling the growing live graph (the graph itself
has no cycles, so nothing is left unfreed).
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


def run(n: int) -> dict:
    gc.collect()  # start from a clean heap (also when the collector is otherwise off)
    x0 = Value(0.5)
    t0 = time.perf_counter()
    out = build_chain(x0, n)
    t1 = time.perf_counter()
    try:
        out.backward()
    except RecursionError:
        return {"n": n, "error": "RecursionError", "build": t1 - t0}
    t2 = time.perf_counter()
    grad = x0.grad
    del out
    t3 = time.perf_counter()
    return {"n": n, "build": t1 - t0, "backward": t2 - t1, "free": t3 - t2, "grad": grad}


if __name__ == "__main__":
    args = sys.argv[1:]
    gc_off = "--gc-off" in args
    if gc_off:
        args.remove("--gc-off")
        gc.disable()
    emit({"engine": engine_origin(), "gc": not gc_off, "runs": [run(int(a)) for a in args]})
