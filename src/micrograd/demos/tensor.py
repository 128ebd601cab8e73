"""Demos on the Tensor engine: `micrograd demo digits` and `micrograd demo moons --engine tensor`.

Registered in micrograd.demos.DEMOS with the scalar demos; loaded only when run (numpy).

digits: scikit-learn's bundled 8x8 handwritten digits (1,797 images, no download), an MLP
64-128-10 trained with minibatches and Adam; prints a confusion matrix and saves a picture
of the misclassified test digits.

moons: the micrograd notebook's problem (100 points, MLP 2-16-16-1, hinge loss + L2, SGD
with a decaying learning rate, full batch), started from the same weights as the scalar
demo via `from_scalar_mlp`, so both engines print the same losses.
"""

from __future__ import annotations

import os
import random
import sys
import time
from typing import Any

import numpy as np

import micrograd.tensors as T
from micrograd._validate import is_positive_int
from micrograd.autograd import no_grad
from micrograd.demos.common import (
    INSTALL_HINT,
    StepCallback,
    TrainingRun,
    blas_threads,
    check_steps,
    format_step,
    moons_plots,
    record,
    training_steps,
)
from micrograd.demos.digits import (
    confusion_matrix,
    format_confusion,
    minibatch_cross_entropy,
    predict,
    save_misclassified,
)
from micrograd.optim import SGD, Adam, LinearDecay
from micrograd.tensors.data import DataLoader, TensorDataset
from micrograd.tensors.nn import Linear, ReLU, Sequential, from_scalar_mlp

DIGITS_SEED, MOONS_SEED = 0, 1337
DIGITS_STEPS, MOONS_STEPS = 3000, 100


def run_demo(name: str, out: str = "out", steps: int | None = None,
             seed: int | None = None) -> int:
    """Train demo `name` ("digits" or "moons") on the Tensor engine; return an exit code."""
    if name not in ("digits", "moons"):
        print(f"micrograd demo {name}: the Tensor engine runs 'digits' and 'moons'; "
              f"use --engine scalar for {name!r}", file=sys.stderr)
        return 2
    if steps is not None and not is_positive_int(steps):
        print(f"micrograd demo {name}: --steps must be positive, got {steps}", file=sys.stderr)
        return 2
    try:
        import sklearn  # noqa: F401
    except ImportError:
        print(f"micrograd demo {name} needs scikit-learn: {INSTALL_HINT}", file=sys.stderr)
        return 3
    os.makedirs(out, exist_ok=True)
    if name == "digits":
        train_digits(out=out, steps=steps or DIGITS_STEPS,
                     seed=DIGITS_SEED if seed is None else seed)
    else:
        _run_moons(out=out, steps=steps or MOONS_STEPS, seed=MOONS_SEED if seed is None else seed)
    return 0


# --- digits ----------------------------------------------------------------------------

def train_digits(out: str | None = "out", steps: int = DIGITS_STEPS, seed: int = DIGITS_SEED,
                 batch_size: int = 32, lr: float = 1e-3, verbose: bool = True) -> float:
    """Train the digits MLP; print the confusion matrix; return the held-out accuracy."""
    with blas_threads(1):
        return _train_digits(out, steps, seed, batch_size, lr, verbose)


def _train_digits(out: str | None, steps: int, seed: int, batch_size: int, lr: float,
                  verbose: bool) -> float:
    from sklearn.datasets import load_digits
    from sklearn.model_selection import train_test_split

    digits = load_digits()
    X = (digits.data / 16.0).astype(np.float32)  # pixels 0..16 -> 0..1
    y = digits.target.astype(np.int64)
    X_train, X_test, y_train, y_test, _, img_test = train_test_split(
        X, y, digits.images, test_size=0.2, random_state=seed, stratify=y)

    rng = np.random.default_rng(seed)
    model = Sequential(Linear(64, 128, dtype=np.float32, rng=rng), ReLU(),
                       Linear(128, 10, dtype=np.float32, rng=rng))
    optimizer = Adam(model.parameters(), lr)
    loader = DataLoader(TensorDataset(X_train, y_train), batch_size=batch_size,
                        shuffle=True, seed=seed)

    start = time.perf_counter()
    progress = _progress(steps, "digits", verbose)
    for k, loss in training_steps(optimizer, steps, minibatch_cross_entropy(model, loader)):
        if (k + 1) % 50 == 0 or k + 1 == steps:
            progress.set_postfix(loss=f"{loss.item():.4f}")
        progress.update(1)
    progress.close()
    seconds = time.perf_counter() - start

    predicted = predict(model, X_test)
    accuracy = float((predicted == y_test).mean())
    if verbose:
        print(f"digits: MLP 64-128-10, {steps} Adam steps of batch {batch_size} "
              f"in {seconds:.1f} s; test accuracy {accuracy * 100:.2f}% "
              f"({int((predicted == y_test).sum())}/{len(y_test)})")
        print(format_confusion(confusion_matrix(y_test, predicted)))
    if out is not None:
        try:
            path = save_misclassified(img_test, y_test, predicted,
                                      os.path.join(out, "digits_misclassified.png"))
        except ImportError as error:
            print(f"(no picture: {error})")
        else:
            if verbose:
                print(f"wrote {path}")
    return accuracy


# --- moons -----------------------------------------------------------------------------

def train_moons(steps: int = MOONS_STEPS, seed: int = MOONS_SEED,
                on_step: StepCallback = None) -> TrainingRun:
    """The micrograd notebook's moons training on the Tensor engine: the scalar demo's
    contract (`micrograd.demos.train_moons`) and its numbers, from the same weights."""
    from sklearn.datasets import make_moons

    from micrograd.nn import MLP

    check_steps(steps)
    np.random.seed(seed)  # the notebook seeds numpy's global state before make_moons
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1  # labels -1 / +1 for the hinge loss
    random.seed(seed)  # and Python's, which the scalar MLP draws its weights from
    model = from_scalar_mlp(MLP(2, [16, 16, 1]))
    params = model.parameters()
    optimizer = SGD(params, lr=1.0)
    schedule = LinearDecay(optimizer, decay=0.9, steps=steps)  # the scalar demo's 1 - 0.9 k/steps
    inputs, labels = T.tensor(X), T.tensor(y.astype(np.float64))

    def predict(points: np.ndarray) -> np.ndarray:
        with no_grad():
            return model(T.tensor(points)).numpy().ravel()

    run = TrainingRun("moons", model, X=X, y=y, predict=predict)
    def step_loss(k: int) -> tuple[Any, Any]:
        scores = model(inputs).reshape(-1)
        data_loss = (1 - labels * scores).relu().mean()  # hinge (max-margin) loss
        reg_loss = 1e-4 * sum((p * p).sum() for p in params)  # L2, alpha = 1e-4
        return data_loss + reg_loss, scores

    for k, (total, scores) in training_steps(optimizer, steps, step_loss, schedule):
        accuracy = float(((scores.numpy() > 0) == (y > 0)).mean())
        record(run, k, total.item(), accuracy, on_step)
    return run


def _run_moons(out: str | None, steps: int, seed: int, verbose: bool = True) -> TrainingRun:
    """train_moons, printing what the scalar `micrograd demo moons` prints (a header, every
    tenth step, the final line) and writing the same two pictures."""
    every, width = max(1, steps // 10), len(str(steps - 1))
    if verbose:
        print(f"moons: micrograd's demo on the Tensor engine: the scalar MLP(2, [16, 16, 1]) "
              f"ReLU copied into Linear layers, hinge + 1e-4 L2, lr 1.0 - 0.9*k/{steps}, "
              f"full batch, {steps} steps, seed {seed}", flush=True)

    def on_step(k: int, loss: float, accuracy: float) -> None:
        if verbose and (k % every == 0 or k == steps - 1):
            print(format_step(k, loss, accuracy, width))

    run = train_moons(steps=steps, seed=seed, on_step=on_step)
    if verbose:
        print(f"final  loss {run.losses[-1]:.6f}  accuracy {run.accuracies[-1] * 100:.1f}%")
    if out is not None:
        try:
            paths = moons_plots(run, out, stem="moons_tensor", engine_note=" on the Tensor engine")
        except ImportError as error:
            print(f"(no picture: {error})")
            paths = []
        for path in paths:
            if verbose:
                print(f"wrote {path}")
    return run


# --- helpers ---------------------------------------------------------------------------

class _NoProgress:
    def update(self, n: int) -> None:
        pass

    def set_postfix(self, **kwargs) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, label: str, verbose: bool):
    if not verbose:
        return _NoProgress()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoProgress()
    return tqdm(total=total, desc=label, unit="step", leave=False)
