"""Training demos on the scalar engine: `micrograd demo {tiny,xor,moons}`.

    tiny   the lecture's network: MLP(3, [4, 4, 1]) of tanh neurons on 4 samples, squared error,
           lr 0.1, 20 steps
    xor    the textbook's: MLP(2, [4, 1]) of tanh neurons on XOR, squared error, lr 0.1
    moons  micrograd's demo notebook, step for step: MLP(2, [16, 16, 1]) ReLU on 100 moons,
           hinge loss + 1e-4 * L2, SGD with lr = 1.0 - 0.9*k/100, 100 full-batch steps,
           seed 1337 -- it prints the notebook's numbers (step 99 loss 0.010978370135492717)

Each `train_*` function, on either engine, is `train_x(steps, seed, on_step=None) ->
TrainingRun` (losses, accuracies, model) and can be used from Python; `run_demo` adds the
progress bar, the printout and, for moons, the PNGs. `DEMOS` is the one registry: every
demo with its defaults and the engines it runs on. The Tensor engine's demos (digits, and
moons with `--engine tensor`) live in demos/tensor.py, loaded only when asked for (numpy).
"""

from __future__ import annotations

import importlib
import random
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from micrograd import datasets, losses
from micrograd.autograd import no_grad
from micrograd.demos.common import (
    INSTALL_HINT,
    StepCallback,
    TrainingRun,
    check_steps,
    format_step,
    moons_plots,
    record,
    training_steps,
)
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.optim import SGD, LinearDecay

__all__ = [
    "DEMOS",
    "SUMMARIES",
    "Demo",
    "TrainingRun",
    "format_step",
    "model_scores",
    "run_demo",
    "train_moons",
    "train_tiny",
    "train_xor",
]


def _single(out: Value | list[Value]) -> Value:
    """A one-output model's result (MLP unwraps a single output, as micrograd 0.1.0 does)."""
    if isinstance(out, list):
        raise ValueError(f"the demo expects a model with 1 output, got {len(out)} outputs")
    return out


def _accuracy(scores: Sequence[Value | list[Value]], labels: Sequence[float]) -> float:
    """Share of samples whose score has the label's sign (the notebook's (y > 0) == (s > 0))."""
    hits = [(yi > 0) == (_single(s).data > 0) for yi, s in zip(labels, scores, strict=True)]
    return sum(hits) / len(hits)


def train_tiny(
    steps: int = 20, seed: int = 42, lr: float = 0.1, on_step: StepCallback = None
) -> TrainingRun:
    """The lecture's loop: 4 samples, MLP(3, [4, 4, 1]) all tanh, sum of squared errors, SGD."""
    check_steps(steps)
    xs, ys = datasets.tiny()
    model = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=random.Random(seed))
    opt = SGD(model.parameters(), lr=lr)
    run = TrainingRun("tiny", model, X=xs, y=ys)
    def step_loss(k: int) -> tuple[Any, list[Any]]:
        ypred = [model(x) for x in xs]
        return losses.mse(ypred, ys, reduction="sum"), ypred  # the lecture's sum((yout - ygt)**2)

    for k, (loss, ypred) in training_steps(opt, steps, step_loss):
        record(run, k, loss.data, _accuracy(ypred, ys), on_step)
    return run


def train_xor(
    steps: int = 300, seed: int = 42, lr: float = 0.1, on_step: StepCallback = None
) -> TrainingRun:
    """The textbook's XOR: MLP(2, [4, 1]) all tanh from random.Random(seed), squared error, SGD."""
    check_steps(steps)
    X, Y = datasets.xor()
    model = MLP(2, [4, 1], activation="tanh", output_activation="tanh", rng=random.Random(seed))
    opt = SGD(model.parameters(), lr=lr)
    run = TrainingRun("xor", model, X=X, y=Y)
    def step_loss(k: int) -> tuple[Any, list[Any]]:
        ypred = [model(x) for x in X]
        return losses.mse(ypred, Y, reduction="sum"), ypred

    for k, (loss, ypred) in training_steps(opt, steps, step_loss):
        record(run, k, loss.data, _accuracy(ypred, Y), on_step)
    return run


def train_moons(steps: int = 100, seed: int = 1337, on_step: StepCallback = None) -> TrainingRun:
    """micrograd's demo notebook, with the same operations in the same order.

    Seeds: random.Random(seed) draws the weights as random.seed(seed) does, and
    moons(seed=seed) is make_moons after np.random.seed(seed); so the default seed 1337
    reproduces the notebook's losses and accuracies.
    """
    check_steps(steps)
    X, y = datasets.moons(n_samples=100, noise=0.1, seed=seed, signed=True)
    model = MLP(2, [16, 16, 1], rng=random.Random(seed))
    opt = SGD(model.parameters(), lr=1.0)
    schedule = LinearDecay(opt, decay=0.9, steps=steps)  # lr = 1.0 - 0.9*k/steps
    run = TrainingRun("moons", model, X=X, y=y, predict=lambda points: model_scores(model, points))
    labels = [float(v) for v in y]
    def step_loss(k: int) -> tuple[Any, list[Any]]:
        inputs = [list(map(Value, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        data_loss = losses.hinge_loss(scores, labels)  # sum(relu(1 + -y*s)) * (1.0/n)
        reg_loss = losses.l2_penalty(model.parameters(), alpha=1e-4)
        return data_loss + reg_loss, scores

    for k, (total_loss, scores) in training_steps(opt, steps, step_loss, schedule):
        record(run, k, total_loss.data, _accuracy(scores, labels), on_step)
    return run


def model_scores(model: MLP, points: Any) -> list[float]:
    """The model's score for each 2-D point, without building a graph."""
    with no_grad():
        return [_single(model([float(a), float(b)])).data for a, b in points]


# --- the command-line demo ----------------------------------------------------------------

class Demo(NamedTuple):
    """A registry entry: how to train it, its defaults, and the engines it runs on."""

    train: Any  # train(steps, seed, on_step) -> TrainingRun; None: see demos/tensor.py
    defaults: dict
    engines: tuple = ("scalar",)
    needs: tuple = (("tqdm", "tqdm"),)  # optional packages: (import name, what to install)


_PLOTTING = (("tqdm", "tqdm"), ("numpy", "numpy"), ("sklearn.datasets", "scikit-learn"),
             ("matplotlib.figure", "matplotlib"))
DEMOS: dict[str, Demo] = {
    "tiny": Demo(train_tiny, {"steps": 20, "seed": 42}),
    "xor": Demo(train_xor, {"steps": 300, "seed": 42}),
    "moons": Demo(train_moons, {"steps": 100, "seed": 1337}, ("scalar", "tensor"), _PLOTTING),
    "digits": Demo(None, {"steps": 3000, "seed": 0}, ("tensor",), _PLOTTING),
    # steps None: 8 epochs (micrograd.demos.mnist); its data comes from --data or the cache
    "mnist": Demo(None, {"steps": None, "seed": 0}, ("tensor",), (("numpy", "numpy"),)),
    # on micrograd.torch (micrograd.demos.names / .gpt); text from --data or the cache
    "names": Demo(None, {"steps": 5000, "seed": 2147483647}, ("tensor",), (("numpy", "numpy"),)),
    "gpt": Demo(None, {"steps": 500, "seed": 1337}, ("tensor",), (("numpy", "numpy"),)),
}
"""Every demo by name: how it trains, its default steps and seed, its engines and needs."""
# one line per demo, for `micrograd demo --help` and the docs (tests/docs checks they agree)
SUMMARIES: dict[str, str] = {
    "tiny": "the lecture's network: MLP(3, [4, 4, 1]) tanh on 4 samples, 20 steps",
    "xor": "the textbook's XOR: MLP(2, [4, 1]) tanh, loss below 0.01 in 300 steps",
    "moons": "micrograd's demo notebook step for step (prints its numbers; 2 PNGs)",
    "digits": "Tensor engine: scikit-learn's 8x8 digits, MLP 64-128-10, Adam (no download)",
    "mnist": "Tensor engine: MNIST, MLP 784-128-10, Adam, 8 epochs (downloads 11.6 MB once)",
    "names": "makemore part 3 on micrograd.torch: character MLP with BatchNorm on 32,033 names",
    "gpt": "the GPT lecture on micrograd.torch: a character transformer on tiny Shakespeare",
}
"""One line per demo: what it trains (shown by `micrograd demo --help`)."""


def run_demo(
    name: str,
    out: str = "out",
    steps: int | None = None,
    seed: int | None = None,
    engine: str | None = None,
    data: str | None = None,
) -> int:
    """Train demo `name`, print progress and results, write plots to `out`; return an exit code.
    `data`: the folder of a demo's data files (mnist) or its text file (names, gpt), instead
    of the download cache."""
    if engine not in (None, "scalar", "tensor"):
        raise ValueError(f"engine must be 'scalar' or 'tensor', got {engine!r}")
    if name not in DEMOS:
        raise ValueError(f"unknown demo {name!r}; choose one of {sorted(DEMOS)}")
    demo = DEMOS[name]
    if engine == "tensor" or demo.engines == ("tensor",):
        if engine == "scalar":
            print(f"micrograd demo {name}: runs on the Tensor engine only (drop --engine scalar)",
                  file=sys.stderr)
            return 2
        if name == "mnist":
            return _run_mnist(out=out, steps=steps, seed=seed, data=data)
        if name in ("names", "gpt"):
            return _run_text_demo(name, out=out, steps=steps, seed=seed, data=data)
        return _run_tensor_demo(name, out=out, steps=steps, seed=seed)
    missing = [label for module, label in demo.needs if not _importable(module)]
    if missing:
        print(f"micrograd demo {name} needs {', '.join(missing)}: {INSTALL_HINT}", file=sys.stderr)
        return 3

    steps = demo.defaults["steps"] if steps is None else steps
    seed = demo.defaults["seed"] if seed is None else seed
    check_steps(steps)
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
        run = demo.train(steps=steps, seed=seed, on_step=on_step)
    finally:
        bar.close()
    print(f"final  loss {run.losses[-1]:.6f}  accuracy {run.accuracies[-1] * 100:.1f}%")
    if name == "moons":
        for path in moons_plots(run, out):
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


def _run_tensor_demo(name: str, out: str, steps: int | None, seed: int | None) -> int:
    try:
        tensor_demos = importlib.import_module("micrograd.demos.tensor")
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("micrograd"):
            print(f"micrograd demo {name}: the Tensor engine's demos ({error.name}) are not "
                  f"available in this version", file=sys.stderr)
            return 1
        print(f"micrograd demo {name} needs {error.name}: {INSTALL_HINT}", file=sys.stderr)
        return 3
    return tensor_demos.run_demo(name, out=out, steps=steps, seed=seed)


def _run_mnist(out: str, steps: int | None, seed: int | None, data: str | None) -> int:
    try:
        from micrograd.demos.mnist import run_demo as run_mnist
    except ModuleNotFoundError as error:  # numpy: the Tensor engine's one requirement
        print(f"micrograd demo mnist needs {error.name}: {INSTALL_HINT}", file=sys.stderr)
        return 3
    return run_mnist(out=out, steps=steps, seed=seed, data_dir=data)


def _run_text_demo(name: str, out: str, steps: int | None, seed: int | None,
                   data: str | None) -> int:
    try:
        demo = importlib.import_module(f"micrograd.demos.{name}")
    except ModuleNotFoundError as error:  # numpy: the Tensor engine's one requirement
        print(f"micrograd demo {name} needs {error.name}: {INSTALL_HINT}", file=sys.stderr)
        return 3
    # a failed download is an OSError that says what to do: the command line reports it
    return int(demo.run_demo(out=out, steps=steps, seed=seed, data=data))


def _importable(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True
