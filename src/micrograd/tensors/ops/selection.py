"""Picking elements by index tensors: gather, scatter_add, index_select, take_along_dim,
nonzero; and `scatter_rows`, the fast exact backward of a table lookup (`C[X]`,
embeddings).

A picked element's gradient goes back to where it was picked from; an element picked twice
gets both gradients (the `+=` rule).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.tensors.function import Tensor, apply, leaf, method, unary

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
    width = int(np.prod(row_shape))
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


method("take_along_dim")(lambda x, indices, dim: gather(x, dim, indices))


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
