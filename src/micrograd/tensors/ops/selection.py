"""Picking elements by index tensors: gather, scatter(_add), index_select/add/copy/fill,
take(_along_dim), masked_select,
nonzero; and `scatter_rows`, the fast exact backward of a table lookup (`C[X]`,
embeddings).

A picked element's gradient goes back to where it was picked from; an element picked twice
gets both gradients (the `+=` rule).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from micrograd.tensors.function import Tensor, apply, in_place, leaf, method, unary

_ONE_HOT_LIMIT = 1 << 17  # rows x lookups up to which the one-hot product is the fastest


def scatter_rows(g: np.ndarray, rows: np.ndarray, count: int) -> np.ndarray:
    """The sum of g's rows per target row: out[r] = sum of g[i] with rows[i] == r, for a
    table of `count` rows. g has shape rows.shape + row_shape.

    np.add.at is exact but slow (~590 µs for 512 lookups of 64 floats into 65 rows). For
    small tables a one-hot matrix product does it in ~40 µs, and a bincount over the flat
    positions in ~240 µs when the table is not much larger than the lookups; both give the
    same sums up to rounding (the order of the additions differs)."""
    flat_rows = rows.reshape(-1)
    n = flat_rows.size
    row_shape = g.shape[rows.ndim:]
    width = math.prod(row_shape)  # (np.prod of a short tuple: ~3 us, a third of a lookup's)
    g2 = g.reshape(n, width)
    # the product costs count multiply-adds per summed value where np.add.at costs one
    # slow scattered add (~20 ns): it wins up to several hundred rows
    if g2.dtype.kind == "f" and count <= 512 and count * n <= _ONE_HOT_LIMIT:
        one_hot = np.zeros((count, n), dtype=g2.dtype)
        one_hot[flat_rows, np.arange(n)] = 1
        return (one_hot @ g2).reshape((count, *row_shape))
    if g2.dtype.kind == "f" and count <= 4 * n:
        positions = (flat_rows[:, None] * width + np.arange(width)).reshape(-1)
        sums = np.bincount(positions, weights=g2.reshape(-1), minlength=count * width)
        return sums.astype(g2.dtype).reshape((count, *row_shape))
    full = np.zeros((count, width), dtype=g2.dtype)
    np.add.at(full, flat_rows, g2)
    return full.reshape((count, *row_shape))


def _index_array(index: Any, op: str) -> np.ndarray:
    idx = index._array if isinstance(index, Tensor) else np.asarray(index)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"{op}: the index must be an integer (int64) tensor, got {idx.dtype}")
    return idx


def _positions(idx: np.ndarray, dim: int) -> tuple:
    """The full index tuple that picks idx[...] along `dim` and the same place elsewhere."""
    grids: list[np.ndarray] = list(np.indices(idx.shape, sparse=True))
    grids[dim] = idx
    return tuple(grids)


@method("gather")
def gather(x: Tensor, dim: int, index: Any) -> Tensor:
    """out[i][j] = x[index[i][j]][j] for dim 0 (and so on): torch.gather. index may be
    smaller than x in the other dimensions; the gradient is scattered back, repeated
    indices adding up."""
    data = x._array
    idx = _index_array(index, "gather")
    if idx.ndim != data.ndim:
        raise ValueError(f"gather: index has {idx.ndim} dimensions, the tensor {data.ndim}; "
                         "they must have the same number")
    axis = dim % max(data.ndim, 1)
    for d, (n, m) in enumerate(zip(idx.shape, data.shape, strict=True)):
        if d != axis and n > m:
            raise ValueError(f"gather: index shape {idx.shape} exceeds the tensor's shape "
                             f"{data.shape} in dimension {d}")
    if idx.size and (idx.min() < -data.shape[axis] or idx.max() >= data.shape[axis]):
        raise IndexError(f"gather: index out of range for dimension {axis} of size "
                         f"{data.shape[axis]}")
    where = _positions(idx, axis)
    out = data[where]

    def vjp(g: np.ndarray) -> np.ndarray:
        full = np.zeros(data.shape, dtype=g.dtype)
        np.add.at(full, where, g)
        return full

    return unary(x, out, "gather", vjp)


method("take_along_dim")(lambda x, indices, dim: gather(x, dim, indices)).__doc__ = (
    "The values of x at `indices` along `dim`, as torch.take_along_dim (gather with dim first).")


@method("scatter_add")
def scatter_add(x: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """A copy of x with src's elements added at index along `dim` (torch.scatter_add);
    d/dx = g, d/dsrc = g gathered at the same places."""
    data = x._array
    idx = _index_array(index, "scatter_add")
    source = src if isinstance(src, Tensor) else Tensor(np.asarray(src, dtype=data.dtype))
    axis = dim % max(data.ndim, 1)
    where = _positions(idx, axis)
    picked = tuple(slice(0, n) for n in idx.shape)
    out = data.copy()
    np.add.at(out, where, source._array[picked])

    def to_source(g: np.ndarray) -> np.ndarray:
        full = np.zeros(source._array.shape, dtype=g.dtype)
        full[picked] = g[where]
        return full

    return apply("scatter_add", out, (x, source), (None, to_source))


@method("index_select")
def index_select(x: Tensor, dim: int, index: Any) -> Tensor:
    """The slices at the 1-d `index` along `dim`; the gradient adds up repeated indices."""
    data = x._array
    idx = _index_array(index, "index_select").reshape(-1)
    axis = dim % max(data.ndim, 1)
    out = np.take(data, idx, axis=axis)

    def vjp(g: np.ndarray) -> np.ndarray:
        moved = np.moveaxis(g, axis, 0)
        summed = scatter_rows(moved, idx % max(data.shape[axis], 1), data.shape[axis])
        return np.moveaxis(summed, 0, axis)

    return unary(x, out, "index_select", vjp)


@method("nonzero")
def nonzero(x: Tensor, as_tuple: bool = False) -> Any:
    """The indices of the nonzero elements: a (count, ndim) int64 tensor, or one 1-d tensor
    per dimension with as_tuple=True."""
    if as_tuple:
        return tuple(leaf(i.astype(np.int64)) for i in np.nonzero(x._array))
    return leaf(np.argwhere(x._array).astype(np.int64))


def _axis(data: np.ndarray, dim: int, op: str) -> int:
    ndim = max(data.ndim, 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of "
                         f"[{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _source(src: Any, data: np.ndarray) -> Tensor:
    return src if isinstance(src, Tensor) else Tensor(np.asarray(src, dtype=data.dtype))


def _zero_at(where: Any) -> Any:
    """The VJP of an op that overwrites x at `where`: g, with 0 there."""
    def vjp(g: np.ndarray) -> np.ndarray:
        g = g.copy()
        g[where] = 0
        return g

    return vjp


def _scatter_places(x: Tensor, dim: int, index: Any, op: str) -> tuple[np.ndarray, tuple]:
    """The index array and the full index tuple of a scatter into x along dim, checked as
    torch checks them (same number of dimensions, indices in range)."""
    data = x._array
    idx = _index_array(index, op)
    axis = _axis(data, dim, op)
    if idx.ndim != data.ndim:
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions "
                           f"as self tensor")
    if idx.size and (idx.min() < 0 or idx.max() >= data.shape[axis]):
        bad = int(idx.max() if idx.max() >= data.shape[axis] else idx.min())
        raise RuntimeError(f"{op}(): index {bad} is out of bounds for dimension {axis} "
                           f"with size {data.shape[axis]}")
    return idx, _positions(idx, axis)


@method("scatter")
def scatter(x: Tensor, dim: int, index: Any, src: Any = None, value: Any = None,
            reduce: str | None = None) -> Tensor:
    """A copy of x with src's elements (or the number `value`) written at index along
    `dim` (torch.scatter); d/dx = g except where written, d/dsrc = g gathered there."""
    if reduce is not None:
        if reduce != "add":
            raise NotImplementedError(f"scatter: reduce={reduce!r} is not supported by "
                                      "micrograd.torch (yet), see docs/torch.md")
        return scatter_add(x, dim, index, src)
    if src is None:
        src, value = value, None
    if src is None or value is not None:
        raise TypeError("scatter() needs exactly one of src (a tensor) or value (a number)")
    idx, where = _scatter_places(x, dim, index, "scatter")
    out = x._array.copy()
    if not isinstance(src, Tensor):
        out[where] = src
        return unary(x, out, "scatter", _zero_at(where))
    picked = tuple(slice(0, n) for n in idx.shape)
    out[where] = src._array[picked]

    def to_source(g: np.ndarray) -> np.ndarray:
        full = np.zeros(src._array.shape, dtype=g.dtype)
        full[picked] = g[where]
        return full

    return apply("scatter", out, (x, src), (_zero_at(where), to_source))


def _slices(x: Tensor, dim: int, index: Any, op: str) -> tuple[int, np.ndarray]:
    """The axis and the 1-d index of an index_* op."""
    axis = _axis(x._array, dim, op)
    idx = _index_array(index, op)
    if idx.ndim > 1:
        raise IndexError(f"{op}_(): Index is supposed to be a vector")
    idx = idx.reshape(-1)
    n = x._array.shape[axis] if x._array.ndim else 1
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"{op}_(): index out of range for dimension {axis} of size {n}")
    return axis, idx % max(n, 1)


def _source_slices(src: Tensor, x: Tensor, axis: int, idx: np.ndarray, op: str) -> None:
    if src._array.ndim != x._array.ndim or src._array.shape[axis] != idx.size:
        raise IndexError(f"{op}_(): Number of indices ({idx.size}) should be equal to "
                         f"source.size(dim) and source should have the same number of "
                         f"dimensions as self (source shape {tuple(src._array.shape)})")


@method("index_add")
def index_add(x: Tensor, dim: int, index: Any, source: Any, *, alpha: float = 1) -> Tensor:
    """A copy of x with alpha * source's slices added at the 1-d `index` along `dim`
    (torch.index_add); d/dx = g, d/dsource = alpha * g's slices at index."""
    axis, idx = _slices(x, dim, index, "index_add")
    src = _source(source, x._array)
    _source_slices(src, x, axis, idx, "index_add")
    out = x._array.copy()
    np.add.at(np.moveaxis(out, axis, 0), idx, np.moveaxis(src._array, axis, 0) * alpha)
    return apply("index_add", out, (x, src),
                 (None, lambda g: np.take(g, idx, axis=axis) * alpha))


@method("index_copy")
def index_copy(x: Tensor, dim: int, index: Any, source: Any) -> Tensor:
    """A copy of x with source's slices written at the 1-d `index` along `dim`."""
    axis, idx = _slices(x, dim, index, "index_copy")
    src = _source(source, x._array)
    _source_slices(src, x, axis, idx, "index_copy")
    out = x._array.copy()
    np.moveaxis(out, axis, 0)[idx] = np.moveaxis(src._array, axis, 0)
    where = (slice(None),) * axis + (idx,)
    return apply("index_copy", out, (x, src),
                 (_zero_at(where), lambda g: np.take(g, idx, axis=axis)))


@method("index_fill")
def index_fill(x: Tensor, dim: int, index: Any, value: Any) -> Tensor:
    """A copy of x with the slices at `index` along `dim` set to the number `value`."""
    axis, idx = _slices(x, dim, index, "index_fill")
    out = x._array.copy()
    where = (slice(None),) * axis + (idx,)
    out[where] = value._array if isinstance(value, Tensor) else value
    return unary(x, out, "index_fill", _zero_at(where))


@method("masked_select")
def masked_select(x: Tensor, mask: Any) -> Tensor:
    """The elements of x where the bool `mask` (broadcast with x) is True, as a 1-d tensor."""
    m = mask._array if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {m.dtype}")
    shape = np.broadcast_shapes(x._array.shape, m.shape)
    full_mask = np.broadcast_to(m, shape)
    out = np.broadcast_to(x._array, shape)[full_mask]

    def vjp(g: np.ndarray) -> np.ndarray:
        full = np.zeros(shape, dtype=g.dtype)
        full[full_mask] = g
        return full  # the kernel sums it back to x's shape

    return unary(x, out, "masked_select", vjp)


@method("take")
def take(x: Tensor, index: Any) -> Tensor:
    """x's elements at `index` in x read as a flat (row-major) array; shaped as index."""
    data = x._array
    idx = _index_array(index, "take")
    if idx.size and (idx.min() < -data.size or idx.max() >= data.size):
        bad = int(idx.max() if idx.max() >= data.size else idx.min())
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of "
                         f"{data.size} elements.")
    flat = idx % max(data.size, 1)
    out = data.reshape(-1)[flat]

    def vjp(g: np.ndarray) -> np.ndarray:
        full = np.zeros(data.size, dtype=g.dtype)
        np.add.at(full, flat.reshape(-1), g.reshape(-1))
        return full.reshape(data.shape)

    return unary(x, out, "take", vjp)


def in_place_of(name: str, function: Any) -> Any:
    """x.NAME_(...): function(x, ...) written into x, recorded as torch records it."""
    def update(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        operands = [a for a in (*args, *kwargs.values()) if isinstance(a, Tensor)]

        def write(array: np.ndarray) -> None:
            array[...] = function(x.detach(), *args, **kwargs)._array

        return in_place(x, name, write, lambda old: function(old, *args, **kwargs), operands)

    update.__name__ = update.__qualname__ = name
    update.__doc__ = f"In place: x.{name}(...) writes x.{name[:-1]}(...) into x."
    return update


for _name, _function in (("scatter_", scatter), ("scatter_add_", scatter_add),
                         ("index_add_", index_add), ("index_copy_", index_copy),
                         ("index_fill_", index_fill)):
    method(_name)(in_place_of(_name, _function))


def searchsorted(sorted_sequence: Any, values: Any, *, out_int32: bool = False,
                 right: bool = False, side: str | None = None, sorter: Any = None) -> Tensor:
    """Where each value would be inserted into the sorted last dimension of
    `sorted_sequence` to keep it sorted (the first such place; the last with right=True)."""
    seq = sorted_sequence._array if isinstance(sorted_sequence, Tensor) else np.asarray(
        sorted_sequence)
    vals = values._array if isinstance(values, Tensor) else np.asarray(values)
    if sorter is not None:
        order = sorter._array if isinstance(sorter, Tensor) else np.asarray(sorter)
        seq = np.take_along_axis(seq, order, axis=-1)
    how: Any = side or ("right" if right else "left")
    if seq.ndim <= 1:
        out = np.searchsorted(seq, vals, side=how)
    else:
        if seq.shape[:-1] != vals.shape[:-1]:
            raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension "
                               "or the first N-1 dimensions of boundaries tensor and input "
                               "value tensor must match")
        rows = seq.reshape(-1, seq.shape[-1])
        wanted = vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(r, w, side=how) for r, w in zip(rows, wanted,
                                                                          strict=True)])
        out = out.reshape(vals.shape)
    return leaf(np.asarray(out, dtype=np.int32 if out_int32 else np.int64))


def bucketize(input: Any, boundaries: Any, *, out_int32: bool = False,
              right: bool = False) -> Tensor:
    """The bucket of each element among the 1-d sorted `boundaries` (torch.bucketize: its
    `right` is searchsorted's the other way round)."""
    bounds = boundaries._array if isinstance(boundaries, Tensor) else np.asarray(boundaries)
    if bounds.ndim != 1:
        raise RuntimeError(f"torch.bucketize(): boundaries tensor must be 1 dimension, but "
                           f"got dim({bounds.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)
