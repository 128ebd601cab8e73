"""The per-op cost of tiny tensors, op by op, on micrograd.torch or PyTorch (issue 19's
item 3: what a tiny-tensor step such as W10 pays per op, per update, per backward).

    python -m benchmarks.tiny_ops                  micrograd, then PyTorch (one thread)
    python -m benchmarks.tiny_ops --engine torch   one engine only

Each line is the median over 7 blocks of CPU time of this thread (`time.thread_time`:
time-sharing on a busy machine disturbs it much less than wall time), per call. For a
before/after comparison run both trees alternately in one session and compare medians.
Not part of the suite's report: a profiling aid, not a workload.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from types import ModuleType

import numpy as np

BLOCKS = 7


def per_call(function: Callable[[], object], calls: int) -> float:
    """Median seconds of CPU time per call of `function` over BLOCKS blocks of `calls`."""
    blocks = []
    for _ in range(BLOCKS):
        t0 = time.thread_time()
        for _ in range(calls):
            function()
        blocks.append((time.thread_time() - t0) / calls)
    return statistics.median(blocks)


def cases(torch: ModuleType) -> dict[str, tuple[Callable[[], object], int]]:
    """name -> (one call, calls per block)."""
    x = torch.from_numpy(np.linspace(-1, 1, 16, dtype=np.float32))
    w = torch.from_numpy(np.ones(16, dtype=np.float32)).requires_grad_()
    params = [torch.tensor(np.float32(0.5), requires_grad=True) for _ in range(4)]
    for p in params:
        p.grad = torch.tensor(np.float32(0.25))
    lr = 1e-6

    def update_data() -> None:  # the polynomial tutorial's step, through .data
        with torch.no_grad():
            for p in params:
                p.data -= lr * p.grad

    def update_in_place() -> None:  # ... and as the tutorial writes it
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad

    def empty_block() -> None:
        with torch.no_grad():
            pass

    def backward_one_node() -> None:  # the fixed cost of a backward() call
        (params[0] * 2.0).backward()

    return {
        "x * x, 16 floats": (lambda: x * x, 20000),
        "w * x, 16 floats, w requires grad": (lambda: w * x, 20000),
        "x + 1.0, 16 floats": (lambda: x + 1.0, 20000),
        "lr * p.grad, 0-d": (lambda: lr * params[0].grad, 20000),
        "with no_grad(): pass": (empty_block, 20000),
        "no_grad(): p.data -= lr * p.grad, 4 params": (update_data, 3000),
        "no_grad(): p -= lr * p.grad, 4 params": (update_in_place, 3000),
        "(p * 2.0).backward(), 0-d": (backward_one_node, 5000),
    }


def run(engine: str) -> None:
    if engine == "torch":
        import torch

        torch.set_num_threads(1)
    else:
        import micrograd.torch as torch  # type: ignore[no-redef]
    for name, (function, calls) in cases(torch).items():
        print(f"{engine:9s} {name:45s} {per_call(function, calls) * 1e6:8.2f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("micrograd", "torch"), action="append")
    for engine in parser.parse_args().engine or ("micrograd", "torch"):
        run(engine)


if __name__ == "__main__":
    main()
