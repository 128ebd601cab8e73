"""Where one moons training step's time goes: `python -m benchmarks.profile_step [STEPS]`.

Runs the notebook's training (as W1) and splits each step into phases, CPU time per step
(median over steps; the mean too, since the cyclic gc's full collections hit only some
steps), plus the time Python's cyclic garbage collector spent, per generation. Works with
any micrograd first on PYTHONPATH, so the same tool profiles the engine before and after a
change (the walk is timed by a separate extra walk, so it is not double counted).
As in the notebook, a step's graph stays alive until the next step's loss is built (the
notebook's `total_loss` is reassigned then), so the collector meets two graphs, as W1 does;
"free" is the old graph going at that point.
"""

from __future__ import annotations

import gc
import itertools
import random
import statistics
import sys
import time

import numpy as np
from sklearn.datasets import make_moons

from micrograd import autograd
from micrograd.engine import Value
from micrograd.nn import MLP

clock = time.process_time
PHASES = ("inputs", "forward", "loss", "free", "backward", "update")


def main(steps: int) -> None:
    np.random.seed(1337)
    random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1
    model = MLP(2, [16, 16, 1])
    walker = getattr(autograd, "_nodes_to_run", autograd.topological_order)

    gc_time = {0: 0.0, 1: 0.0, 2: 0.0}
    gc_count = {0: 0, 1: 0, 2: 0}
    started = [0.0]

    def on_gc(phase: str, info: dict) -> None:
        if phase == "start":
            started[0] = clock()
        else:
            gc_time[info["generation"]] += clock() - started[0]
            gc_count[info["generation"]] += 1

    gc.callbacks.append(on_gc)
    times: dict[str, list[float]] = {p: [] for p in PHASES + ("walk (extra)", "total")}
    nodes = 0
    kept: list[Value] = []  # the last step's loss, and through it its graph
    for k in range(steps):
        t = [clock()]
        inputs = [list(map(Value, xrow)) for xrow in X]
        t.append(clock())
        scores = list(map(model, inputs))
        t.append(clock())
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores, strict=True)]
        data_loss = sum(losses) * (1.0 / len(losses))
        reg_loss = 1e-4 * sum(p * p for p in model.parameters())
        total_loss = data_loss + reg_loss
        del inputs, scores, losses, data_loss, reg_loss  # the notebook's loss() returns
        t.append(clock())
        kept.clear()  # frees the last step's graph (reference counting)
        t.append(clock())
        model.zero_grad()
        total_loss.backward()
        t.append(clock())
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        t.append(clock())
        w0 = clock()
        nodes = len(walker(total_loss))
        times["walk (extra)"].append(clock() - w0)
        kept.append(total_loss)
        for name, (a, b) in zip(PHASES, itertools.pairwise(t), strict=True):
            times[name].append(b - a)
        times["total"].append(t[-1] - t[0])
    gc.callbacks.remove(on_gc)

    print(f"micrograd from {autograd.__file__.rsplit('/', 2)[0]}; {steps} steps; "
          f"{nodes} nodes walked by backward per step")
    print(f"{'phase':<22}{'median ms':>10}{'mean ms':>10}")
    for name, values in times.items():
        median_ms, mean_ms = statistics.median(values) * 1e3, statistics.mean(values) * 1e3
        print(f"{name:<22}{median_ms:>10.2f}{mean_ms:>10.2f}")
    for g in (0, 1, 2):
        print(f"gc generation {g}: {gc_count[g] / steps:6.2f} collections/step, "
              f"{gc_time[g] / steps * 1e3:6.2f} ms/step")
    print(f"tracked objects now: {len(gc.get_objects())}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
