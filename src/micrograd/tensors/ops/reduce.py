"""Reductions: sum, mean, max/min, argmax/argmin, softmax and log-softmax along a dim.

A reduced element's gradient is spread back over every input element that went into it.
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Sequence

import numpy as np

from micrograd.tensors import rowwise
from micrograd.tensors.function import Tensor, leaf, method, quiet, unary
from micrograd.tensors.printing import return_type

MaxMin = namedtuple("MaxMin", ["values", "indices"])  # what torch.max(x, dim) returns
# ... printed as torch's: torch.return_types.max(values=..., indices=...)
_RESULTS = {kind: return_type(kind, MaxMin, __name__) for kind in ("max", "min")}
_log = quiet(np.log)


def axes_of(dim: int | Sequence[int] | None, ndim: int) -> tuple | None:
    """dim (int, sequence or None) as a tuple of non-negative axes (None: all)."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if not dims:  # torch reads dim=() and dim=[] as "every dimension", numpy as "none"
        return None
    if ndim == 0:
        if any(d not in (0, -1) for d in dims):
            raise IndexError(f"dim {dim} is out of range for a 0-d tensor")
        return None
    for d in dims:
        if not -ndim <= d < ndim:
            raise IndexError(f"dim {d} is out of range for a tensor with {ndim} dimensions")
    return tuple(d % ndim for d in dims)


def spread(g: np.ndarray, shape: tuple) -> np.ndarray:
    """g broadcast to `shape`, as a new array (np.broadcast_to costs several µs more)."""
    out = np.empty(shape, dtype=g.dtype)
    out[...] = g
    return out


def keep_reduced_axes(g: np.ndarray, axes: tuple | None, keepdim: bool) -> np.ndarray:
    """A reduced gradient with the reduced axes put back as size 1, ready to broadcast."""
    if keepdim or axes is None:
        return g
    return np.expand_dims(g, axes)


@method()
def sum(x: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """Sum over `dim` (all by default);  every input element gets the output's grad."""
    data = x._array
    if dim is None and not keepdim:  # a loss's .sum(): no axes to work out
        out = np.asarray(np.add.reduce(data, None))
        return unary(x, out, "sum", lambda g: spread(g, data.shape))
    axes = axes_of(dim, data.ndim)
    # np.add.reduce is ndarray.sum without its Python-level wrapper (~0.5 us)
    out = np.asarray(np.add.reduce(data, axis=axes, keepdims=True) if keepdim
                     else np.add.reduce(data, axis=axes))
    return unary(x, out, "sum",
                 lambda g: spread(keep_reduced_axes(g, axes, keepdim), data.shape))


@method()
def mean(x: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> Tensor:
    """Mean over `dim` (all by default);  each input element gets grad / count."""
    data = x._array
    if data.dtype.kind != "f":
        raise TypeError(f"mean() needs a floating-point tensor, got {data.dtype}")
    axes = axes_of(dim, data.ndim)
    count = data.size if axes is None else math.prod(data.shape[a] for a in axes)
    # np.add.reduce is ndarray.sum without its Python-level wrapper (~1.5 us)
    total = (np.add.reduce(data, axis=axes, keepdims=True) if keepdim
             else np.add.reduce(data, axis=axes))
    if count:
        out = np.asarray(np.true_divide(total, count))
    else:
        with np.errstate(invalid="ignore", divide="ignore"):  # the mean of nothing is nan
            out = np.asarray(np.true_divide(total, count))
    return unary(x, out, "mean",
                 lambda g: spread(keep_reduced_axes(g, axes, keepdim) / count, data.shape))


def _extreme(x: Tensor, dim: int | None, keepdim: bool, kind: str) -> Tensor | MaxMin:
    """max/min. Over everything, tied elements share the gradient evenly (as PyTorch);
    along `dim`, the gradient goes to the element whose index is returned."""
    data = x._array
    if data.size == 0:
        raise ValueError(f"{kind}() of an empty tensor of shape {data.shape} is undefined")
    if dim is None:
        value = np.asarray(data.max() if kind == "max" else data.min())

        def share(g: np.ndarray) -> np.ndarray:
            ties = data == value
            return g * ties / int(ties.sum())

        return unary(x, value, kind, share)
    pick = data.argmax if kind == "max" else data.argmin
    index = np.expand_dims(pick(axis=dim), dim)
    values = np.take_along_axis(data, index, axis=dim)

    def route(g: np.ndarray) -> np.ndarray:
        full = np.zeros(data.shape, dtype=g.dtype)
        np.put_along_axis(full, index, g if keepdim else np.expand_dims(g, dim), axis=dim)
        return full

    if not keepdim:  # new names: route() must keep the unsqueezed index
        values, indices = np.squeeze(values, dim), np.squeeze(index, dim)
    else:
        indices = index
    return _RESULTS[kind](unary(x, values, kind, route), leaf(indices))


@method()
def max(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor | MaxMin:
    """The largest element; with `dim`, (values, indices) along it, as torch.max."""
    return _extreme(x, dim, keepdim, "max")


@method()
def min(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor | MaxMin:
    """The smallest element; with `dim`, (values, indices) along it, as torch.min."""
    return _extreme(x, dim, keepdim, "min")


@method()
def argmax(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the largest value along `dim` (of the flattened tensor if dim is None)."""
    return leaf(np.asarray(np.argmax(x._array, axis=dim, keepdims=keepdim)))


@method()
def argmin(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """The index of the smallest value along `dim` (of the flattened tensor if dim is None)."""
    return leaf(np.asarray(np.argmin(x._array, axis=dim, keepdims=keepdim)))


def softmax_array(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=dim, keepdims=True, initial=-np.inf))  # shifted: no overflow
    return e / e.sum(axis=dim, keepdims=True)


def log_softmax_array(x: np.ndarray, dim: int) -> np.ndarray:
    z = x - x.max(axis=dim, keepdims=True, initial=-np.inf)
    return z - _log(np.exp(z).sum(axis=dim, keepdims=True))


@method()
def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """e^x_i / sum_j e^x_j along `dim`;  dx = s * (g - sum(g * s))."""
    if rowwise.worth_splitting(x._array, dim):  # big: by rows on both cores, same numbers
        big = rowwise.softmax_last_axis(x._array)
        return unary(x, big, "softmax", lambda g: rowwise.softmax_last_axis_vjp(g, big))
    s = softmax_array(x._array, dim)
    return unary(x, s, "softmax", lambda g: s * (g - (g * s).sum(axis=dim, keepdims=True)))


@method()
def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """x_i - log sum_j e^x_j along `dim`;  dx = g - softmax(x) * sum(g)."""
    logp = log_softmax_array(x._array, dim)
    return unary(x, logp, "log_softmax",
                 lambda g: g - np.exp(logp) * g.sum(axis=dim, keepdims=True))
