"""Small datasets for the demos and for experiments.

    tiny()      the lecture's 4 samples of 3 numbers, targets +1/-1        (plain lists)
    xor()       the 4 XOR points, labels +1/-1 as the textbook             (plain lists)
    moons()     scikit-learn's make_moons: the micrograd demo's data       (numpy arrays)
    circles()   scikit-learn's make_circles                                (numpy arrays)
    spiral()    k interleaved spiral arms, a classic multi-class toy set   (numpy arrays)
    digits()    scikit-learn's bundled 8x8 digits, pixels scaled to [0, 1] (numpy arrays)

The first two need only the standard library. The others need numpy, and digits needs
scikit-learn (`pip install 'micrograd[demo]'`); without them they raise an ImportError
saying so. moons and circles are scikit-learn's points exactly for the same seed --
moons(100, noise=0.1, seed=1337) is what the micrograd notebook gets after
np.random.seed(1337) -- made by scikit-learn where it is installed, else by the same
recipe here with numpy alone (the same random draws in the same order).
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["tiny", "xor", "moons", "circles", "spiral", "digits"]

INSTALL_HINT = "pip install 'micrograd[demo]'"


def tiny() -> tuple[list[list[float]], list[float]]:
    """The lecture's dataset: four inputs of three numbers and their desired outputs."""
    xs = [
        [2.0, 3.0, -1.0],
        [3.0, -1.0, 0.5],
        [0.5, 1.0, 1.0],
        [1.0, 1.0, -1.0],
    ]
    ys = [1.0, -1.0, -1.0, 1.0]
    return xs, ys


def xor() -> tuple[list[list[float]], list[float]]:
    """XOR with +1/-1 labels (a tanh output can reach +-1; it never reaches 0/1 targets well)."""
    X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
    Y = [-1.0, 1.0, 1.0, -1.0]
    return X, Y


def moons(
    n_samples: int = 100, noise: float | None = None, seed: int | None = None, signed: bool = False
) -> tuple[Any, Any]:
    """Two interleaving half circles: X (n, 2) float64, y in {0, 1} ({-1, +1} if signed).

    The same points as sklearn.datasets.make_moons(n_samples, noise=noise, random_state=seed);
    seed=None draws from numpy's global random state, as the micrograd notebook does.
    """
    _check_count("n_samples", n_samples)
    try:
        from sklearn.datasets import make_moons
    except ImportError:
        X, y = _two_arcs(n_samples, noise, seed, _moon_arcs)
    else:
        X, y = make_moons(n_samples=n_samples, noise=noise, random_state=seed)
    return X, (y * 2 - 1 if signed else y)


def circles(
    n_samples: int = 100,
    noise: float | None = None,
    factor: float = 0.8,
    seed: int | None = None,
    signed: bool = False,
) -> tuple[Any, Any]:
    """A small circle inside a large one: sklearn.datasets.make_circles' points exactly."""
    _check_count("n_samples", n_samples)
    if not 0 <= factor < 1:
        raise ValueError(f"factor (inner radius / outer radius) must be in [0, 1), got {factor!r}")
    try:
        from sklearn.datasets import make_circles
    except ImportError:
        X, y = _two_arcs(n_samples, noise, seed, lambda np, n_out, n_in:
                         _circle_arcs(np, n_out, n_in, factor))
    else:
        X, y = make_circles(n_samples=n_samples, noise=noise, factor=factor, random_state=seed)
    return X, (y * 2 - 1 if signed else y)


def _two_arcs(n_samples: int, noise: float | None, seed: int | None, arcs: Any) -> tuple:
    """scikit-learn's recipe for moons and circles, with numpy only: class 0 on one arc
    (n // 2 points), class 1 on the other, rows shuffled by the legacy RandomState, then
    Gaussian noise -- the same generator calls in the same order, so the same points."""
    np = _require("numpy", "moons/circles")
    rng = np.random if seed is None else np.random.RandomState(seed)  # None: global state
    n_out = n_samples // 2
    n_in = n_samples - n_out
    (x_out, y_out), (x_in, y_in) = arcs(np, n_out, n_in)
    X = np.column_stack([np.concatenate([x_out, x_in]), np.concatenate([y_out, y_in])])
    labels = np.concatenate([np.zeros(n_out, dtype=np.intp), np.ones(n_in, dtype=np.intp)])
    order = np.arange(n_samples)
    rng.shuffle(order)
    X, labels = X[order], labels[order]
    if noise is not None:
        X += rng.normal(scale=noise, size=X.shape)
    return X, labels


def _moon_arcs(np: Any, n_out: int, n_in: int) -> tuple:
    """The upper half of the unit circle, and a lower half shifted right by 1, down by 0.5."""
    top, bottom = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    return (np.cos(top), np.sin(top)), (1 - np.cos(bottom), 1 - np.sin(bottom) - 0.5)


def _circle_arcs(np: Any, n_out: int, n_in: int, factor: float) -> tuple:
    """The unit circle and a circle of radius `factor`, points evenly spaced on each."""
    outer = np.linspace(0, 2 * np.pi, n_out, endpoint=False)
    inner = np.linspace(0, 2 * np.pi, n_in, endpoint=False)
    return (np.cos(outer), np.sin(outer)), (np.cos(inner) * factor, np.sin(inner) * factor)


def spiral(
    n_per_class: int = 100, n_classes: int = 3, noise: float = 0.2, seed: int | None = None
) -> tuple[Any, Any]:
    """n_classes spiral arms of n_per_class points each: X (n, 2), y in 0..n_classes-1.

    Arm k: radius r from 0 to 1, angle from 4k to 4(k+1) radians plus Gaussian noise,
    point (r sin angle, r cos angle).
    """
    _check_count("n_per_class", n_per_class)
    _check_count("n_classes", n_classes)
    np = _require("numpy", "spiral")
    rng = np.random.default_rng(seed)
    radius = np.linspace(0.0, 1.0, n_per_class)
    X = np.empty((n_per_class * n_classes, 2))
    y = np.empty(n_per_class * n_classes, dtype=np.int64)
    for k in range(n_classes):
        rows = slice(k * n_per_class, (k + 1) * n_per_class)
        angle = np.linspace(4.0 * k, 4.0 * (k + 1), n_per_class)
        angle = angle + rng.normal(scale=noise, size=n_per_class)
        X[rows, 0] = radius * np.sin(angle)
        X[rows, 1] = radius * np.cos(angle)
        y[rows] = k
    return X, y


def digits() -> tuple[Any, Any]:
    """scikit-learn's 1,797 8x8 digits (bundled, no download): X (1797, 64) in [0, 1], y 0..9."""
    load_digits = _require("sklearn.datasets", "digits").load_digits
    X, y = load_digits(return_X_y=True)
    return X / 16.0, y


def _require(module: str, dataset: str) -> Any:
    """Import an optional package, or raise ImportError saying what to install."""
    try:
        return importlib.import_module(module)
    except ImportError as error:
        package = "scikit-learn" if module.startswith("sklearn") else module
        raise ImportError(
            f"the {dataset} dataset needs {package} ({error.name} is not installed): "
            f"{INSTALL_HINT}"
        ) from error


def _check_count(name: str, n: Any) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{name} must be a positive int, got {n!r}")
