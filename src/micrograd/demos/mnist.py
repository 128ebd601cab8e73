"""`micrograd demo mnist`: the textbook's P1 ending -- MNIST on the Tensor engine.

An MLP 784-128-10 (Linear, ReLU, Linear), cross-entropy, Adam (lr 1e-3), minibatches of
128 reshuffled every epoch, 8 epochs, one BLAS thread (worker threads only spin for
matrices this small). Prints the test accuracy and a confusion matrix and
writes a picture of misclassified test digits to --out.

The data: the four standard idx files from `--data DIR` (gzip-compressed or not), or
downloaded once into the data cache with their SHA-256 checked (micrograd.datasets.mnist).
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from micrograd import datasets
from micrograd._validate import check_positive_int
from micrograd.demos import common
from micrograd.demos.common import ProgressBar, training_steps
from micrograd.demos.digits import (
    confusion_matrix,
    format_confusion,
    minibatch_cross_entropy,
    predict,
    save_misclassified,
)
from micrograd.optim import Adam
from micrograd.tensors.data import DataLoader, TensorDataset
from micrograd.tensors.nn import Linear, ReLU, Sequential

__all__ = ["MnistRun", "confusion_matrix", "format_confusion", "predict", "run_demo",
           "save_misclassified", "train_mnist"]

SEED, EPOCHS, BATCH_SIZE, LEARNING_RATE, HIDDEN = 0, 8, 128, 1e-3, 128

# Called after every step with (step, total steps, loss).
StepCallback = Callable[[int, int, float], None]


@dataclass
class MnistRun:
    """What training produced: the model, test accuracy (0..1), predictions, time taken."""

    model: Sequential
    steps: int
    seconds: float
    accuracy: float
    predicted: Any  # the predicted digit of each test image
    y_test: Any
    X_test: Any
    losses: list[float]


def train_mnist(data: tuple[Any, Any, Any, Any] | None = None, data_dir: str | None = None,
                steps: int | None = None, epochs: int = EPOCHS, batch_size: int = BATCH_SIZE,
                lr: float = LEARNING_RATE, hidden: int = HIDDEN, seed: int = SEED,
                on_step: StepCallback | None = None, blas_threads: int | None = 1) -> MnistRun:
    """Train the MLP on `data` (X_train, y_train, X_test, y_test as datasets.mnist returns),
    else on datasets.mnist(data_dir). `steps` (minibatches) overrides `epochs`.
    blas_threads: numpy's BLAS threads while training (None: leave them; needs threadpoolctl)."""
    X_train, y_train, X_test, y_test = datasets.mnist(data_dir) if data is None else data
    n_pixels = X_train.shape[1]
    per_epoch = math.ceil(len(X_train) / batch_size)
    total = epochs * per_epoch if steps is None else steps
    check_positive_int("steps", total)
    rng = np.random.default_rng(seed)
    model = Sequential(Linear(n_pixels, hidden, dtype=np.float32, rng=rng), ReLU(),
                       Linear(hidden, 10, dtype=np.float32, rng=rng))
    loader = DataLoader(TensorDataset(X_train.astype(np.float32), y_train),
                        batch_size=batch_size, shuffle=True, seed=seed)
    with common.blas_threads(blas_threads):
        return _train(model, Adam(model.parameters(), lr), loader, total, X_test, y_test,
                      on_step)


def _train(model: Sequential, optimizer: Adam, loader: DataLoader, total: int, X_test: Any,
           y_test: Any, on_step: StepCallback | None) -> MnistRun:
    losses: list[float] = []
    start = time.perf_counter()
    for k, loss in training_steps(optimizer, total, minibatch_cross_entropy(model, loader)):
        losses.append(loss.item())
        if on_step is not None:
            on_step(k + 1, total, losses[-1])
    seconds = time.perf_counter() - start
    predicted = predict(model, X_test)
    accuracy = float((predicted == y_test).mean()) if len(y_test) else math.nan
    return MnistRun(model, total, seconds, accuracy, predicted, y_test, X_test, losses)


def run_demo(out: str = "out", steps: int | None = None, seed: int | None = None,
             data_dir: str | None = None) -> int:
    """`micrograd demo mnist`: train, print accuracy and confusion matrix, write the picture
    of misclassified digits into `out`; return an exit code."""
    seed = SEED if seed is None else seed
    if steps is not None:
        check_positive_int("--steps", steps)
    where = f"--data {data_dir}" if data_dir else f"the data cache ({datasets.cache_dir()})"
    print(f"mnist: reading the idx files from {where}", flush=True)
    data = datasets.mnist(data_dir)
    n_train = len(data[0])
    total = EPOCHS * math.ceil(n_train / BATCH_SIZE) if steps is None else steps
    print(f"mnist: MLP 784-{HIDDEN}-10 ReLU, cross-entropy, Adam lr {LEARNING_RATE:g}, "
          f"{total} steps of batch {BATCH_SIZE} ({total * BATCH_SIZE / n_train:.1f} epochs of "
          f"{n_train} images), seed {seed}", flush=True)
    bar = ProgressBar("mnist", total)
    try:
        run = train_mnist(data, steps=total, seed=seed,
                          on_step=lambda step, _total, loss: bar(step, loss))
    finally:
        bar.close()
    right = int((run.predicted == run.y_test).sum())
    print(f"mnist: trained in {run.seconds:.1f} s; final minibatch loss {run.losses[-1]:.4f}; "
          f"test accuracy {run.accuracy * 100:.2f}% ({right}/{len(run.y_test)})")
    print(format_confusion(confusion_matrix(run.y_test, run.predicted)))
    os.makedirs(out, exist_ok=True)
    try:
        path = save_misclassified(run.X_test, run.y_test, run.predicted,
                                  os.path.join(out, "mnist_misclassified.png"),
                                  "MNIST test digits")
    except ImportError as error:
        print(f"(no picture: {error})")
    else:
        print(f"wrote {path}")
    return 0
