"""What the two digit demos share (scikit-learn's 8x8 digits on the Tensor engine, and
`micrograd demo mnist`): the minibatch cross-entropy step, predictions without a graph,
the confusion matrix and the picture of misclassified digits."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

import micrograd.tensors as T
from micrograd.autograd import no_grad
from micrograd.demos.common import INSTALL_HINT, batches_forever
from micrograd.tensors import functional as F

__all__ = ["confusion_matrix", "format_confusion", "minibatch_cross_entropy", "predict",
           "save_misclassified"]


def minibatch_cross_entropy(model: Callable[[Any], Any], loader: Iterable[Any]
                            ) -> Callable[[int], Any]:
    """step_loss for common.training_steps: cross-entropy on the loader's next minibatch."""
    batches = batches_forever(loader)

    def step_loss(k: int) -> Any:
        xb, yb = next(batches)
        return F.cross_entropy(model(xb), yb)

    return step_loss


def predict(model: Callable[[Any], Any], X: Any, batch_size: int = 2000) -> Any:
    """The most likely digit for each row of X, without building a graph."""
    out = []
    with no_grad():
        for start in range(0, len(X), batch_size):
            batch = T.tensor(np.asarray(X[start:start + batch_size], dtype=np.float32))
            out.append(model(batch).argmax(dim=1).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.int64)


def confusion_matrix(true: Any, predicted: Any, classes: int = 10) -> Any:
    """counts[t, p]: how many images of digit t were predicted as p."""
    counts = np.zeros((classes, classes), dtype=np.int64)
    np.add.at(counts, (np.asarray(true), np.asarray(predicted)), 1)
    return counts


def format_confusion(counts: Any) -> str:
    """The confusion matrix as text; rows are the true digit, columns the predicted one."""
    width = max(4, len(str(int(counts.max()))) + 1)
    lines = ["confusion matrix (rows: true digit, columns: predicted)",
             "    " + "".join(f"{c:>{width}}" for c in range(len(counts)))]
    for c, row in enumerate(counts):
        lines.append(f"  {c} " + "".join(f"{n:>{width}}" for n in row))
    return "\n".join(lines)


def save_misclassified(images: Any, true: Any, predicted: Any, path: str,
                       what: str = "test digits", limit: int = 40) -> str:
    """A grid of (up to `limit`) misclassified digits titled true->predicted; the path.
    Each image is square (28x28, 8x8), flat or not. Needs matplotlib (ImportError with the
    install hint otherwise)."""
    try:  # the object API, not pyplot: no global backend switch in the caller's session
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(f"the picture of misclassified digits needs matplotlib: "
                          f"{INSTALL_HINT}") from error
    wrong = np.flatnonzero(np.asarray(true) != np.asarray(predicted))
    shown = wrong[:limit]  # a readable page; the title says when there are more
    columns = 10
    rows = max(1, math.ceil(len(shown) / columns))
    fig = Figure(figsize=(columns * 1.1, rows * 1.3 + 0.5))
    axes = fig.subplots(rows, columns, squeeze=False)
    for ax in axes.flat:
        ax.axis("off")
    for ax, i in zip(axes.flat, shown, strict=False):  # fewer mistakes than panels: some stay blank
        image = np.asarray(images[i])
        side = math.isqrt(image.size)
        ax.imshow(image.reshape(side, side), cmap="gray_r", interpolation="nearest")
        ax.set_title(f"{true[i]}→{predicted[i]}", fontsize=9, color="crimson")
    count = (f"{len(shown)}" if len(shown) == len(wrong)
             else f"the first {len(shown)} of {len(wrong)}")
    fig.suptitle(f"misclassified {what} ({count}): true→predicted", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    return path
