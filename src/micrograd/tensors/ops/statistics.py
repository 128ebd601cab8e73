"""More reductions, torch's names: var/std (one node each), prod, cumsum/cumprod, norm,
logsumexp, amax/amin, all/any, sort/argsort/topk, histc, bincount.

Also installs torch's numpy-style spellings on every reduction: `keepdims=` for `keepdim=`
and `axis=` for `dim=`.
"""

from __future__ import annotations

import functools
import math
from collections import namedtuple
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from micrograd._validate import check_positive_int
from micrograd.tensors.function import Tensor, leaf, method, unary
from micrograd.tensors.ops import elementwise, pointwise, reduce
from micrograd.tensors.ops.reduce import axes_of, keep_reduced_axes, spread
from micrograd.tensors.printing import return_type

Dim = int | Sequence[int] | None
SortResult = namedtuple("SortResult", ["values", "indices"])  # torch.sort / torch.topk
_SORTED, _TOP = (return_type(name, SortResult, __name__) for name in ("sort", "topk"))


def _count(shape: tuple, axes: tuple | None) -> int:
    # math.prod: np.prod of a short list costs ~3 us, a tenth of a small var()
    return math.prod(shape) if axes is None else math.prod(shape[a] for a in axes)


def _correction(unbiased: bool | None, correction: float | None) -> float:
    """Bessel's correction: torch's default is the unbiased estimator (divide by n - 1)."""
    if unbiased is not None and correction is not None:
        raise TypeError("var/std take unbiased= or correction=, not both")
    if correction is not None:
        return float(correction)
    return 0.0 if unbiased is False else 1.0


def _dim_and_unbiased(dim: Any, unbiased: bool | None) -> tuple[Any, bool | None]:
    """torch.std(x, True) means unbiased=True, not dim=True."""
    if isinstance(dim, bool):
        return None, dim
    return dim, unbiased


def _deviations(x: Tensor, dim: Dim, unbiased: bool | None, correction: float | None
                ) -> tuple[np.ndarray, np.ndarray, tuple | None, float]:
    data = x._array
    if data.dtype.kind != "f":
        raise TypeError(f"var/std need a floating-point tensor, got {data.dtype}")
    dim, unbiased = _dim_and_unbiased(dim, unbiased)
    axes = axes_of(dim, data.ndim)
    n = _count(data.shape, axes)
    with np.errstate(all="ignore"):
        # add.reduce / n is what ndarray.mean computes, without its Python-level wrapper
        d = data - np.add.reduce(data, axis=axes, keepdims=True) / n
        divisor = max(n - _correction(unbiased, correction), 0)
        var = np.add.reduce(d * d, axis=axes, keepdims=True) / divisor
    return d, np.asarray(var, dtype=data.dtype), axes, divisor


def _reduced(kept: np.ndarray, axes: tuple | None, keepdim: bool) -> np.ndarray:
    """A result computed with keepdims=True, shaped as the caller asked."""
    if keepdim:
        return kept
    return np.asarray(kept.reshape(()) if axes is None else np.squeeze(kept, axes))


@method()
def var(x: Tensor, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False,
        *, correction: float | None = None) -> Tensor:
    """The variance over `dim` (all by default), unbiased (n - 1) unless unbiased=False or
    correction= says otherwise; one node: dx = g * 2 (x - mean) / (n - correction)."""
    d, v, axes, divisor = _deviations(x, dim, unbiased, correction)
    out = _reduced(v, axes, keepdim)
    scale = 2.0 / divisor if divisor else float("inf")

    def vjp(g: np.ndarray) -> np.ndarray:
        g = g.reshape(v.shape) if axes is None else keep_reduced_axes(g, axes, keepdim)
        return g * d * scale

    return unary(x, out, "var", vjp)


@method()
def std(x: Tensor, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False,
        *, correction: float | None = None) -> Tensor:
    """The standard deviation (sqrt of var, unbiased by default); one node:
    dx = g * (x - mean) / ((n - correction) std)."""
    d, v, axes, divisor = _deviations(x, dim, unbiased, correction)
    s = np.sqrt(v)
    out = _reduced(s, axes, keepdim)

    def vjp(g: np.ndarray) -> np.ndarray:
        g = g.reshape(s.shape) if axes is None else keep_reduced_axes(g, axes, keepdim)
        with np.errstate(all="ignore"):
            return (g / (divisor * s)) * d

    return unary(x, out, "std", vjp)


def _moved(data: np.ndarray, axis: int) -> np.ndarray:
    return np.moveaxis(data, axis, -1)


def _others_product(data: np.ndarray) -> np.ndarray:
    """For each element along the last axis, the product of all the others (exclusive
    prefix times exclusive suffix: exact with zeros, where out / x would divide by 0)."""
    ones = np.ones(data.shape[:-1] + (1,), dtype=data.dtype)
    before = np.cumprod(np.concatenate([ones, data[..., :-1]], axis=-1), axis=-1)
    after = np.flip(np.cumprod(np.concatenate([ones, np.flip(data, -1)[..., :-1]], axis=-1),
                               axis=-1), -1)
    return before * after


@method()
def prod(x: Tensor, dim: int | None = None, keepdim: bool = False, dtype: Any = None) -> Tensor:
    """The product over `dim` (all by default);  dx_i = g * prod of the other elements."""
    data = x._array if dtype is None else x._array.astype(dtype)
    if dim is None:
        out = np.asarray(data.prod())
        flat = data.reshape(1, -1)
        return unary(x, out, "prod",
                     lambda g: (g * _others_product(flat)).reshape(data.shape))
    axis = dim % max(data.ndim, 1)
    out = np.asarray(data.prod(axis=axis, keepdims=keepdim))

    def vjp(g: np.ndarray) -> np.ndarray:
        others = np.moveaxis(_others_product(_moved(data, axis)), -1, axis)
        return keep_reduced_axes(g, (axis,), keepdim) * others

    return unary(x, out, "prod", vjp)


@method()
def cumsum(x: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """Running sums along `dim`;  dx_i = sum of g_j for j >= i (a reversed cumsum)."""
    data = x._array if dtype is None else x._array.astype(dtype)
    if data.dtype.kind in "bi" and data.dtype.itemsize < 8:
        data = data.astype(np.int64)  # torch sums small integers and bools into int64
    if data.ndim == 0:
        return unary(x, data.copy(), "cumsum", None)
    out = np.cumsum(data, axis=dim)
    return unary(x, out, "cumsum",
                 lambda g: np.flip(np.cumsum(np.flip(g, dim), axis=dim), dim))


@method()
def cumprod(x: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """Running products along `dim`;  dx_i = sum over j >= i of g_j * out_j / x_i, computed
    without dividing (so zeros are exact)."""
    data = x._array if dtype is None else x._array.astype(dtype)
    if data.ndim == 0:
        return unary(x, data.copy(), "cumprod", None)
    axis = dim % data.ndim
    out = np.cumprod(data, axis=axis)

    def vjp(g: np.ndarray) -> np.ndarray:
        xs, gs = _moved(data, axis), _moved(g, axis)
        n = xs.shape[-1]
        grad = np.empty_like(xs)
        for i in range(n):  # d out_j / d x_i = prod_{k <= j, k != i} x_k for j >= i
            rest = xs[..., i:].copy()
            rest[..., 0] = 1
            prefix = np.prod(xs[..., :i], axis=-1, keepdims=True)
            grad[..., i] = (gs[..., i:] * prefix * np.cumprod(rest, axis=-1)).sum(axis=-1)
        return np.moveaxis(grad, -1, axis)

    return unary(x, out, "cumprod", vjp)


@method()
def logsumexp(x: Tensor, dim: Dim, keepdim: bool = False) -> Tensor:
    """log sum e^x over `dim`, shifted by the max;  dx = g * softmax(x)."""
    data = x._array
    axes = axes_of(dim, data.ndim)
    top = data.max(axis=axes, keepdims=True, initial=-np.inf)
    top = np.where(np.isfinite(top), top, 0)
    with np.errstate(all="ignore"):
        total = np.log(np.exp(data - top).sum(axis=axes, keepdims=True)) + top
    out = _reduced(total, axes, keepdim)
    return unary(x, out, "logsumexp",
                 lambda g: keep_reduced_axes(g, axes, keepdim) * np.exp(data - total))


def _extreme_over(x: Tensor, dim: Dim, keepdim: bool, kind: str) -> Tensor:
    """amax/amin: values only, over one or several dims; ties share the gradient evenly."""
    data = x._array
    axes = axes_of(dim, data.ndim)
    pick = np.max if kind == "amax" else np.min
    kept = pick(data, axis=axes, keepdims=True)
    out = _reduced(kept, axes, keepdim)

    def vjp(g: np.ndarray) -> np.ndarray:
        ties = data == kept
        g = g.reshape(kept.shape) if axes is None else keep_reduced_axes(g, axes, keepdim)
        return g * ties / ties.sum(axis=axes, keepdims=True)

    return unary(x, out, kind, vjp)


@method()
def amax(x: Tensor, dim: Dim = (), keepdim: bool = False) -> Tensor:
    """The largest value over `dim` (all dims by default), as torch.amax; ties share the
    gradient."""
    return _extreme_over(x, dim, keepdim, "amax")


@method()
def amin(x: Tensor, dim: Dim = (), keepdim: bool = False) -> Tensor:
    """The smallest value over `dim` (all dims by default), as torch.amin; ties share the
    gradient."""
    return _extreme_over(x, dim, keepdim, "amin")


@method()
def norm(x: Tensor, p: Any = "fro", dim: Dim = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:
    """The p-norm over `dim` (all by default; p=2 or "fro": Euclidean). p = 2 is one node,
    dx = g x / norm (0 where the norm is 0, as torch); other p are composed of ops."""
    if dtype is not None:
        x = elementwise.to(x, dtype)
    data = x._array
    axes = axes_of(dim, data.ndim)
    if p in ("fro", 2, 2.0):
        total = np.sqrt((data * data).sum(axis=axes, keepdims=True))
        out = _reduced(total, axes, keepdim)

        def vjp(g: np.ndarray) -> np.ndarray:
            g = g.reshape(total.shape) if axes is None else keep_reduced_axes(g, axes, keepdim)
            with np.errstate(all="ignore"):
                return np.where(total == 0, 0, g * data / total)

        return unary(x, out, "norm", vjp)
    magnitude = x.abs()
    if p in (np.inf, float("inf")):
        return amax(magnitude, dim if dim is not None else (), keepdim)
    if p in (-np.inf, float("-inf")):
        return amin(magnitude, dim if dim is not None else (), keepdim)
    if p in (1, 1.0):
        return reduce.sum(magnitude, dim, keepdim)
    if isinstance(p, (int, float)) and p > 0:
        total = reduce.sum(pointwise.power(magnitude, float(p)), dim, keepdim)
        return pointwise.power(total, 1.0 / p)
    raise ValueError(f"norm: p must be 'fro', inf, -inf or a positive number, got {p!r}")


# --- logic reductions: bool tensors, no gradient --------------------------------------------

@method("all")
def all(x: Tensor, dim: Dim = None, keepdim: bool = False) -> Tensor:
    """True where every element over `dim` (all by default) is nonzero, as torch.all."""
    axes = axes_of(dim, x._array.ndim)
    return leaf(np.asarray(np.all(x._array, axis=axes, keepdims=keepdim)))


@method("any")
def any(x: Tensor, dim: Dim = None, keepdim: bool = False) -> Tensor:
    """True where some element over `dim` (all by default) is nonzero, as torch.any."""
    axes = axes_of(dim, x._array.ndim)
    return leaf(np.asarray(np.any(x._array, axis=axes, keepdims=keepdim)))


@method("count_nonzero")
def count_nonzero(x: Tensor, dim: Dim = None) -> Tensor:
    """The number of nonzero elements over `dim` (all by default), as int64."""
    axes = axes_of(dim, x._array.ndim)
    return leaf(np.asarray(np.count_nonzero(x._array, axis=axes), dtype=np.int64))


# --- sorting: values carry the gradient back to where they came from ----------------------

def _take(x: Tensor, indices: np.ndarray, axis: int, op: str) -> Tensor:
    """x's elements at `indices` along `axis` (each index once per row: no accumulation
    needed);  the gradient goes back to the same places."""
    data = x._array
    values = np.take_along_axis(data, indices, axis=axis)

    def vjp(g: np.ndarray) -> np.ndarray:
        full = np.zeros(data.shape, dtype=g.dtype)
        np.put_along_axis(full, indices, g, axis=axis)
        return full

    return unary(x, values, op, vjp)


def _order(data: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """A stable order along `axis`; descending keeps equal elements in their order, as
    torch's stable sort does."""
    if not descending:
        return np.argsort(data, axis=axis, kind="stable")
    flipped = np.flip(data, axis)
    n = data.shape[axis]
    reverse = np.argsort(flipped, axis=axis, kind="stable")
    return np.flip(n - 1 - reverse, axis)


@method()
def sort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
         ) -> SortResult:
    """(values, indices) sorted along `dim`, as torch.sort (ties in their original order)."""
    if x._array.ndim == 0:
        return _SORTED(unary(x, x._array.copy(), "sort", None), leaf(np.zeros((), np.int64)))
    axis = dim % x._array.ndim
    indices = _order(x._array, axis, descending)
    return _SORTED(_take(x, indices, axis, "sort"), leaf(indices.astype(np.int64)))


@method()
def argsort(x: Tensor, dim: int = -1, descending: bool = False, stable: bool = False
            ) -> Tensor:
    """The indices that sort x along `dim` (ascending unless descending=True), as int64."""
    if x._array.ndim == 0:
        return leaf(np.zeros((), np.int64))
    return leaf(_order(x._array, dim % x._array.ndim, descending).astype(np.int64))


@method()
def topk(x: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
         ) -> SortResult:
    """The k largest (or smallest) elements along `dim` and their indices, largest first."""
    data = x._array
    axis = dim % max(data.ndim, 1)
    n = data.shape[axis] if data.ndim else 1
    if not 0 <= k <= n:
        raise ValueError(f"topk: k ({k}) must be between 0 and the size of dim {dim} ({n})")
    order = _order(data, axis, descending=largest) if data.ndim else np.zeros((), np.int64)
    indices = np.take(order, np.arange(k), axis=axis) if data.ndim else order
    return _TOP(_take(x, indices, axis, "topk"), leaf(indices.astype(np.int64)))


@method()
def kthvalue(x: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> SortResult:
    """The k-th smallest element along `dim` (k from 1) and its index."""
    data = x._array
    axis = dim % max(data.ndim, 1)
    n = data.shape[axis] if data.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {axis}")
    if data.ndim == 0:
        return SortResult(unary(x, data.copy(), "kthvalue", None), leaf(np.zeros((), np.int64)))
    picked = np.take(_order(data, axis, False), [k - 1], axis=axis)
    values, indices = _take(x, picked, axis, "kthvalue"), picked.astype(np.int64)
    if not keepdim:
        values, indices = values.squeeze(axis), indices.squeeze(axis)
    return SortResult(values, leaf(indices))


@method()
def median(x: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median ((n - 1) // 2-th smallest) of all elements, or (values, indices)
    along `dim`, as torch.median."""
    if dim is None:
        flat = x.reshape(-1)
        return kthvalue(flat, (flat._array.size - 1) // 2 + 1, 0).values
    n = x._array.shape[dim] if x._array.ndim else 1
    return kthvalue(x, (n - 1) // 2 + 1, dim, keepdim)


@method()
def unique(x: Tensor, sorted: bool = True, return_inverse: bool = False,
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct elements (or slices along `dim`), sorted, as torch.unique; with
    return_inverse where each element went, with return_counts how often each occurs.
    No gradient (torch has none either)."""
    data = x._array
    axis = None if dim is None else dim % max(data.ndim, 1)
    values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True,
                                        axis=axis)
    shape = data.shape if axis is None else (data.shape[axis],)
    results = [leaf(values)]
    if return_inverse:
        results.append(leaf(inverse.reshape(shape).astype(np.int64)))
    if return_counts:
        results.append(leaf(counts.astype(np.int64)))
    return results[0] if len(results) == 1 else tuple(results)


def _running_extreme(x: Tensor, dim: int, larger: bool, op: str) -> SortResult:
    """(values, indices) of the running max (or min) along `dim`; an equal later element
    takes over, as torch's. The gradient goes to the element each value came from."""
    data = x._array
    axis = dim % max(data.ndim, 1)
    moved = np.moveaxis(data, axis, 0) if data.ndim else data.reshape(1)
    picked = np.zeros(moved.shape, np.int64)
    best = moved[0]
    for i in range(1, moved.shape[0]):
        better = moved[i] >= best if larger else moved[i] <= best
        best = np.where(better, moved[i], best)
        picked[i] = np.where(better, i, picked[i - 1])
    grids: list[Any] = list(np.indices(picked.shape, sparse=True))
    grids[0] = picked
    where = tuple(grids)

    def vjp(g: np.ndarray) -> np.ndarray:
        full = np.zeros(moved.shape, dtype=g.dtype)
        np.add.at(full, where, np.moveaxis(g, axis, 0) if data.ndim else g.reshape(1))
        return np.moveaxis(full, 0, axis) if data.ndim else full.reshape(())

    values = moved[where]
    indices = picked
    if data.ndim:
        values, indices = np.moveaxis(values, 0, axis), np.moveaxis(picked, 0, axis)
    else:
        values, indices = values.reshape(()), picked.reshape(())
    return SortResult(unary(x, np.ascontiguousarray(values), op, vjp),
                      leaf(np.ascontiguousarray(indices)))


@method()
def cummax(x: Tensor, dim: int) -> SortResult:
    """The running maximum along `dim` and where each came from."""
    return _running_extreme(x, dim, True, "cummax")


@method()
def cummin(x: Tensor, dim: int) -> SortResult:
    """The running minimum along `dim` and where each came from."""
    return _running_extreme(x, dim, False, "cummin")


MinMax = namedtuple("MinMax", ["min", "max"])  # torch.aminmax


@method()
def aminmax(x: Tensor, *, dim: int | None = None, keepdim: bool = False) -> MinMax:
    """(amin, amax) over all elements or along `dim`."""
    axes: Any = () if dim is None else dim
    return MinMax(amin(x, axes, keepdim), amax(x, axes, keepdim))


# --- counting ---------------------------------------------------------------------------

@method()
def histc(x: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """A histogram of `bins` equal bins over [min, max] (min == max: the data's range);
    elements outside are ignored, max itself falls in the last bin. No gradient."""
    data = x._array
    if data.dtype.kind != "f":
        raise TypeError(f"histc needs a floating-point tensor, got {data.dtype}")
    low, high = float(min), float(max)
    if low == high and data.size:
        low, high = float(data.min()), float(data.max())
    if low == high:
        low, high = low - 1, high + 1
    if low > high:
        raise ValueError(f"histc: max ({max}) must be larger than min ({min})")
    flat = data.reshape(-1)
    inside = flat[(flat >= low) & (flat <= high)]
    position = ((inside - data.dtype.type(low)) * bins
                / (data.dtype.type(high) - data.dtype.type(low))).astype(np.int64)
    position = np.minimum(position, bins - 1)
    return leaf(np.bincount(position, minlength=bins).astype(data.dtype))


HistogramResult = namedtuple("HistogramResult", ["hist", "bin_edges"])  # torch.histogram


@method()
def histogram(x: Tensor, bins: int = 100, *, range: Sequence[float] | None = None,
              weight: Any = None, density: bool = False) -> HistogramResult:
    """(hist, bin_edges) of `bins` equal bins over `range` (default: the data's min..max,
    widened by 0.5 each side when they are equal); the last bin includes its right edge.
    density=True divides by the total and the bin width. No gradient."""
    data = x._array
    if data.dtype.kind != "f":
        raise TypeError(f"histogram needs a floating-point tensor, got {data.dtype}")
    bins = check_positive_int("histogram: bins", bins)
    flat = data.reshape(-1)
    if range is not None:
        low, high = float(range[0]), float(range[1])
    elif flat.size:
        low, high = float(flat.min()), float(flat.max())
    else:
        low, high = 0.0, 0.0
    if low > high:
        raise ValueError(f"histogram: range min ({low}) must not exceed max ({high})")
    if low == high:
        low, high = low - 0.5, high + 0.5
    # torch.linspace's edges to within a last-bit rounding (torch's vectorised linspace
    # kernel rounds some float32 edges differently); both ends exact
    edges = np.linspace(low, high, int(bins) + 1).astype(data.dtype)
    inside = (flat >= edges[0]) & (flat <= edges[-1])
    # the bin by the edges themselves, so an element on an edge falls where torch puts it
    position = np.searchsorted(edges, flat[inside], side="right") - 1
    position = np.minimum(position, int(bins) - 1)
    w = None
    if weight is not None:
        w = (weight._array if isinstance(weight, Tensor) else np.asarray(weight)).reshape(-1)
        if w.shape != flat.shape:
            raise ValueError(f"histogram: weight must have the input's shape {data.shape}")
        w = w[inside]
    hist = np.bincount(position, weights=w, minlength=int(bins)).astype(data.dtype)
    if density:
        total = hist.sum()
        hist = hist / (total * np.diff(edges)) if total else hist
    return HistogramResult(leaf(hist.astype(data.dtype)), leaf(edges))


@method()
def bincount(x: Tensor, weights: Any = None, minlength: int = 0) -> Tensor:
    """How often each value 0, 1, ... occurs in a 1-d non-negative integer tensor (or the
    sum of `weights` there). No gradient."""
    data = x._array
    if data.ndim != 1 or data.dtype.kind not in "iu" or (data.size and data.min() < 0):
        raise ValueError("bincount needs a 1-d tensor of non-negative integers, got "
                         f"shape {data.shape} and dtype {data.dtype}")
    if weights is None:
        return leaf(np.bincount(data, minlength=minlength).astype(np.int64))
    w = weights._array if isinstance(weights, Tensor) else np.asarray(weights)
    dtype = w.dtype if w.dtype.kind == "f" else np.dtype(np.float64)
    return leaf(np.bincount(data, weights=w, minlength=minlength).astype(dtype))


# --- sizes ------------------------------------------------------------------------------

@method("nelement")
def nelement(x: Tensor) -> int:
    """The number of elements (torch's older name for numel)."""
    return int(x._array.size)


@method("element_size")
def element_size(x: Tensor) -> int:
    """Bytes per element."""
    return int(x._array.itemsize)


# --- numpy-style keyword spellings, as torch accepts them ---------------------------------

def accept_numpy_keywords(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` that also takes keepdims= for keepdim= and axis= for dim=, as torch does."""

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        if kwargs:
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
        return function(*args, **kwargs)

    return call


# the methods that take keepdims= and axis= too: tensors/install.py wraps them, once, after
# every op is attached (this module defines only some of them)
REDUCTIONS = ("sum", "mean", "max", "min", "argmax", "argmin", "var", "std", "prod", "norm",
              "logsumexp", "amax", "amin", "all", "any", "softmax", "log_softmax", "cumsum",
              "cumprod", "sort", "argsort", "topk", "count_nonzero")


def _or_elementwise(reduction: Callable[..., Any], elementwise: str) -> Callable[..., Any]:
    """max/min that also take a tensor as the second argument: torch.max(a, b) is
    torch.maximum(a, b)."""

    @functools.wraps(reduction)
    def call(x: Tensor, *args: Any, **kwargs: Any) -> Any:
        other = args[0] if args else kwargs.get("other")
        if isinstance(other, Tensor):
            return getattr(x, elementwise)(other)
        return reduction(x, *args, **kwargs)

    return call


method("max")(_or_elementwise(accept_numpy_keywords(reduce.max), "maximum"))
method("min")(_or_elementwise(accept_numpy_keywords(reduce.min), "minimum"))

__all__ = ["spread", "SortResult", "HistogramResult", *REDUCTIONS, "histc", "histogram",
           "bincount", "nelement",
           "element_size"]
