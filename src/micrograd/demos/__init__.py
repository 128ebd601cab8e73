"""Training demos on the scalar engine: `micrograd demo {tiny,xor,moons}`.

    tiny   the lecture's network: MLP(3, [4, 4, 1]) of tanh neurons on 4 samples, squared error,
           lr 0.1, 20 steps
    xor    the textbook's: MLP(2, [4, 1]) of tanh neurons on XOR, squared error, lr 0.1
    moons  micrograd's demo notebook, step for step: MLP(2, [16, 16, 1]) ReLU on 100 moons,
           hinge loss + 1e-4 * L2, SGD with lr = 1.0 - 0.9*k/100, 100 full-batch steps,
           seed 1337 -- it prints the notebook's numbers (step 99 loss 0.010978370135492717)

Each `train_*` function returns a TrainingRun (losses, accuracies, model) and can be used
from Python; `run_demo` adds the progress bar, the printout and, for moons, the PNGs.
`--engine tensor` and the digits demo are handed to the Tensor engine's demos.
"""

from __future__ import annotations

import importlib
import os
import random
import sys
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from micrograd import datasets, losses
from micrograd.autograd import no_grad
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.optim import SGD, LinearDecay

__all__ = ["TrainingRun", "train_tiny", "train_xor", "train_moons", "model_scores", "run_demo"]

INSTALL_HINT = "pip install 'micrograd[demo]'"

# Called after every step with (step, loss, accuracy); the CLI uses it for the progress bar.
StepCallback = Optional[Callable[[int, float, float], None]]


@dataclass
class TrainingRun:
    """What a demo's training produced: one loss and one accuracy (0..1) per step, and the model."""

    name: str
    model: MLP
    losses: list[float] = field(default_factory=list)
    accuracies: list[float] = field(default_factory=list)
    X: Any = None
    y: Any = None


def _accuracy(scores: list[Value], labels: list[float]) -> float:
    """Share of samples whose score has the label's sign (the notebook's (y > 0) == (s > 0))."""
    hits = [(yi > 0) == (s.data > 0) for yi, s in zip(labels, scores)]
    return sum(hits) / len(hits)


def _check_steps(steps: int) -> None:
    if not isinstance(steps, int) or isinstance(steps, bool) or steps < 1:
        raise ValueError(f"steps must be a positive integer, got {steps!r}")


def train_tiny(
    steps: int = 20, seed: int = 42, lr: float = 0.1, on_step: StepCallback = None
) -> TrainingRun:
    """The lecture's loop: 4 samples, MLP(3, [4, 4, 1]) all tanh, sum of squared errors, SGD."""
    _check_steps(steps)
    xs, ys = datasets.tiny()
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=random.Random(seed))
    opt = SGD(model.parameters(), lr=lr)
    run = TrainingRun("tiny", model, X=xs, y=ys)
    for k in range(steps):
        ypred = [model(x) for x in xs]
        loss = losses.mse(ypred, ys, reduction="sum")  # the lecture's sum((yout - ygt)**2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        _record(run, k, loss.data, _accuracy(ypred, ys), on_step)
    return run


def train_xor(
    steps: int = 300, seed: int = 42, lr: float = 0.1, on_step: StepCallback = None
) -> TrainingRun:
    """The textbook's XOR: MLP(2, [4, 1]) all tanh from random.Random(seed), squared error, SGD."""
    _check_steps(steps)
    X, Y = datasets.xor()
    model = MLP(2, [4, 1], activation="tanh", output_activation="tanh", rng=random.Random(seed))
    opt = SGD(model.parameters(), lr=lr)
    run = TrainingRun("xor", model, X=X, y=Y)
    for k in range(steps):
        ypred = [model(x) for x in X]
        loss = losses.mse(ypred, Y, reduction="sum")
        opt.zero_grad()
        loss.backward()
        opt.step()
        _record(run, k, loss.data, _accuracy(ypred, Y), on_step)
    return run


def train_moons(steps: int = 100, seed: int = 1337, on_step: StepCallback = None) -> TrainingRun:
    """micrograd's demo notebook, with the same operations in the same order.

    Seeds: random.Random(seed) draws the weights as random.seed(seed) does, and
    moons(seed=seed) is make_moons after np.random.seed(seed); so the default seed 1337
    reproduces the notebook's losses and accuracies.
    """
    _check_steps(steps)
    X, y = datasets.moons(n_samples=100, noise=0.1, seed=seed, signed=True)
    model = MLP(2, [16, 16, 1], rng=random.Random(seed))
    opt = SGD(model.parameters(), lr=1.0)
    schedule = LinearDecay(opt, decay=0.9, steps=steps)  # lr = 1.0 - 0.9*k/steps
    run = TrainingRun("moons", model, X=X, y=y)
    labels = [float(v) for v in y]
    for k in range(steps):
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        data_loss = losses.hinge_loss(scores, labels)  # sum(relu(1 + -y*s)) * (1.0/n)
        reg_loss = losses.l2_penalty(model.parameters(), alpha=1e-4)
        total_loss = data_loss + reg_loss
        opt.zero_grad()
        total_loss.backward()
        opt.step()
        schedule.step()
        _record(run, k, total_loss.data, _accuracy(scores, labels), on_step)
    return run


def _record(run: TrainingRun, k: int, loss: float, accuracy: float, on_step: StepCallback) -> None:
    run.losses.append(loss)
    run.accuracies.append(accuracy)
    if on_step is not None:
        on_step(k, loss, accuracy)


def model_scores(model: MLP, points: Any) -> list[float]:
    """The model's score for each 2-D point, without building a graph."""
    with no_grad():
        return [model([float(a), float(b)]).data for a, b in points]


# --- the command-line demo ----------------------------------------------------------------

DEMOS = {
    "tiny": (train_tiny, {"steps": 20, "seed": 42}),
    "xor": (train_xor, {"steps": 300, "seed": 42}),
    "moons": (train_moons, {"steps": 100, "seed": 1337}),
}
NEEDS = {  # optional packages per demo: (import name, what to call it)
    "tiny": [("tqdm", "tqdm")],
    "xor": [("tqdm", "tqdm")],
    "moons": [("tqdm", "tqdm"), ("numpy", "numpy"), ("sklearn.datasets", "scikit-learn"),
              ("matplotlib.figure", "matplotlib")],
}


def format_step(k: int, loss: float, accuracy: float, width: int = 3) -> str:
    """One summary line: 'step  99  loss 0.010978  accuracy 100.0%'."""
    return f"step {k:>{width}}  loss {loss:.6f}  accuracy {accuracy * 100:5.1f}%"


def run_demo(
    name: str,
    out: str = "out",
    steps: int | None = None,
    seed: int | None = None,
    engine: str | None = None,
) -> int:
    """Train demo `name`, print progress and results, write plots to `out`; return an exit code."""
    if engine not in (None, "scalar", "tensor"):
        raise ValueError(f"engine must be 'scalar' or 'tensor', got {engine!r}")
    if engine == "tensor" or name == "digits":
        if engine == "scalar":
            print(f"micrograd demo {name}: runs on the Tensor engine only (drop --engine scalar)",
                  file=sys.stderr)
            return 2
        return _run_tensor_demo(name, out=out, steps=steps, seed=seed)
    if name not in DEMOS:
        raise ValueError(f"unknown demo {name!r}; choose one of {sorted(DEMOS) + ['digits']}")
    missing = [label for module, label in NEEDS[name] if not _importable(module)]
    if missing:
        print(f"micrograd demo {name} needs {', '.join(missing)}: {INSTALL_HINT}", file=sys.stderr)
        return 3

    train, defaults = DEMOS[name]
    steps = defaults["steps"] if steps is None else steps
    seed = defaults["seed"] if seed is None else seed
    _check_steps(steps)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError(f"seed must be an integer, got {seed!r}")

    from tqdm import tqdm

    every = max(1, steps // 10)
    width = len(str(steps - 1))
    print(f"{name}: {_describe(name, steps, seed)}", flush=True)
    # The bar goes to stderr and only to a terminal (disable=None); the lines go to stdout.
    bar = tqdm(total=steps, desc=name, unit="step", file=sys.stderr, disable=None, leave=False)

    def on_step(k: int, loss: float, accuracy: float) -> None:
        bar.set_postfix(loss=f"{loss:.4f}", acc=f"{accuracy * 100:.0f}%", refresh=False)
        bar.update(1)
        if k % every == 0 or k == steps - 1:
            tqdm.write(format_step(k, loss, accuracy, width), file=sys.stdout)

    try:
        run = train(steps=steps, seed=seed, on_step=on_step)
    finally:
        bar.close()
    print(f"final  loss {run.losses[-1]:.6f}  accuracy {run.accuracies[-1] * 100:.1f}%")
    if name == "moons":
        for path in _moons_plots(run, out):
            print(f"wrote {path}")
    return 0


def _describe(name: str, steps: int, seed: int) -> str:
    return {
        "tiny": f"the lecture's MLP(3, [4, 4, 1]) tanh on 4 samples, squared error, lr 0.1, "
                f"{steps} steps, seed {seed}",
        "xor": f"the textbook's MLP(2, [4, 1]) tanh on XOR, squared error, lr 0.1, "
               f"{steps} steps, seed {seed}",
        "moons": f"micrograd's demo: MLP(2, [16, 16, 1]) ReLU, hinge + 1e-4 L2, "
                 f"lr 1.0 - 0.9*k/{steps}, {steps} steps, seed {seed}",
    }[name]


def _moons_plots(run: TrainingRun, out: str) -> list[str]:
    from micrograd.viz import plots

    os.makedirs(out, exist_ok=True)
    boundary = plots.save_decision_boundary(
        lambda points: model_scores(run.model, points),
        run.X,
        run.y,
        os.path.join(out, "moons_decision_boundary.png"),
        title=f"moons: accuracy {run.accuracies[-1] * 100:.1f}% after {len(run.losses)} steps",
    )
    curve = plots.save_loss_curve(
        run.losses,
        os.path.join(out, "moons_loss.png"),
        accuracies=run.accuracies,
        title="moons: hinge loss + L2 (log scale) and accuracy",
    )
    return [boundary, curve]


def _run_tensor_demo(name: str, out: str, steps: int | None, seed: int | None) -> int:
    try:
        tensor_demos = importlib.import_module("micrograd.tensors.demos")
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("micrograd"):
            print(f"micrograd demo {name}: the Tensor engine's demos ({error.name}) are not "
                  f"available in this version", file=sys.stderr)
            return 1
        print(f"micrograd demo {name} needs {error.name}: {INSTALL_HINT}", file=sys.stderr)
        return 3
    return tensor_demos.run_demo(name, out=out, steps=steps, seed=seed)


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
