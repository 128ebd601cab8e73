"""PNG plots for the training demos: a loss curve and a 2-D decision boundary.

Needs matplotlib and numpy (`pip install 'micrograd[demo]'`). Figures are drawn with
matplotlib's object API on the Agg canvas, never pyplot: no window, no global state, works
on a machine without a display.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["save_loss_curve", "save_decision_boundary"]

INSTALL_HINT = "pip install 'micrograd[demo]'"


def _matplotlib_figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError as error:
        raise ImportError(
            f"plots need matplotlib ({error.name} is missing): {INSTALL_HINT}"
        ) from error
    return Figure(figsize=(width, height), dpi=100, layout="constrained")


def _numpy() -> Any:
    try:
        import numpy
    except ImportError as error:
        raise ImportError(f"plots need numpy: {INSTALL_HINT}") from error
    return numpy


def _prepare(path: str | os.PathLike) -> str:
    path = os.fspath(path)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    return path


def save_loss_curve(
    losses: Sequence[float],
    path: str | os.PathLike,
    accuracies: Sequence[float] | None = None,
    title: str = "training loss",
) -> str:
    """Plot loss per step (log scale), and accuracy on a second axis if given; return the path."""
    if len(losses) == 0:
        raise ValueError("save_loss_curve needs at least one loss value")
    if accuracies is not None and len(accuracies) != len(losses):
        raise ValueError(f"got {len(losses)} losses but {len(accuracies)} accuracies")
    fig = _matplotlib_figure(6.4, 4.0)
    ax = fig.add_subplot()
    steps = range(len(losses))
    ax.plot(steps, losses, color="tab:blue", label="loss")
    if all(x > 0 for x in losses):
        ax.set_yscale("log")  # training losses shrink by orders of magnitude
    ax.set_xlabel("step")
    ax.set_ylabel("loss", color="tab:blue")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if accuracies is not None:
        acc_ax = ax.twinx()
        acc_ax.plot(steps, [100 * a for a in accuracies], color="tab:orange", label="accuracy")
        acc_ax.set_ylabel("accuracy (%)", color="tab:orange")
        acc_ax.set_ylim(0, 105)
    path = _prepare(path)
    fig.savefig(path, format="png")
    return path


def save_decision_boundary(
    predict: Callable[[Any], Any],
    X: Any,
    y: Any,
    path: str | os.PathLike,
    step: float = 0.05,
    title: str = "decision boundary",
) -> str:
    """Colour the plane by the sign of predict(points) and scatter the data (X: n x 2, y labels).

    `predict` maps an (m, 2) array of points to m scores; score > 0 is the positive class,
    as in the micrograd notebook (which uses a coarser step of 0.25).
    """
    np = _numpy()
    X = np.asarray(X, dtype=float)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[1] != 2:
        raise ValueError(f"decision boundary needs 2-D points, X of shape (n, 2); got {X.shape}")
    if len(y) != len(X):
        raise ValueError(f"got {len(X)} points but {len(y)} labels")
    x_min, x_max = X[:, 0].min() - 1, X[:, 0].max() + 1
    y_min, y_max = X[:, 1].min() - 1, X[:, 1].max() + 1
    xx, yy = np.meshgrid(np.arange(x_min, x_max, step), np.arange(y_min, y_max, step))
    grid = np.c_[xx.ravel(), yy.ravel()]
    scores = np.asarray(predict(grid), dtype=float).reshape(xx.shape)
    fig = _matplotlib_figure(6.0, 5.0)
    ax = fig.add_subplot()
    ax.contourf(xx, yy, scores > 0, cmap="Spectral", alpha=0.8)
    if scores.min() < 0 < scores.max():  # draw the boundary line only if there is one
        ax.contour(xx, yy, scores, levels=[0.0], colors="k", linewidths=1)
    ax.scatter(X[:, 0], X[:, 1], c=y > 0, s=40, cmap="Spectral", edgecolors="k", linewidths=0.5)
    ax.set_xlim(xx.min(), xx.max())
    ax.set_ylim(yy.min(), yy.max())
    ax.set_title(title)
    path = _prepare(path)
    fig.savefig(path, format="png")
    return path
