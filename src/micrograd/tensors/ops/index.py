"""Indexing: t[index] reads a part, whose gradient is scattered back into a zero array."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from micrograd.tensors.function import Tensor, apply, in_place, method, raw, unary
from micrograd.tensors.ops.selection import scatter_rows


def index_arg(index: Any) -> Any:
    """An index with tensors replaced by their arrays and lists by int arrays."""
    if isinstance(index, Tensor):
        return index._array
    if isinstance(index, list):
        return np.asarray(index)
    if isinstance(index, tuple):
        return tuple(index_arg(i) for i in index)
    return index


def is_advanced(index: Any) -> bool:
    """True if the index holds an array (numpy's advanced indexing: elements may repeat)."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, np.ndarray) for p in parts)


@method("__getitem__")
def getitem(x: Tensor, index: Any) -> Tensor:
    """x[index] with ints, slices, None, ... and integer/bool arrays; the gradient is
    scattered back, and repeated indices accumulate (np.add.at)."""
    index = index_arg(index)
    data = x._array
    out = data[index]  # numpy raises IndexError out of range, as torch does
    if type(out) is not np.ndarray:
        out = np.asarray(out)

    def scatter(g: np.ndarray) -> np.ndarray:
        if type(index) is np.ndarray and index.dtype.kind in "iu" and data.ndim:
            # C[X]: rows of a table, summed per row faster than np.add.at (same sums)
            return scatter_rows(g, index % data.shape[0], data.shape[0])
        full = np.zeros(data.shape, dtype=g.dtype)
        if is_advanced(index):
            np.add.at(full, index, g)  # x[[0, 0]]: both copies send their gradient
        else:
            full[index] = g
        return full

    return unary(x, out, "index", scatter)


@method("__setitem__")
def setitem(x: Tensor, index: Any, value: Any) -> None:
    """x[index] = value, in place. On a tensor in a graph autograd records it, as torch's
    index_put_: the gradient of the old values is 0 at index, and `value` gets the
    gradient at index (summed back over broadcasting); so `t[i] -= 1` works there too."""
    index = index_arg(index)
    new = raw(value)

    def write(array: np.ndarray) -> None:
        array[index] = new

    def put(old: Tensor) -> Tensor:
        data = old._array.copy()
        data[index] = new

        def old_gradient(g: np.ndarray) -> np.ndarray:
            g = g.copy()
            g[index] = 0
            return g

        if isinstance(value, Tensor):
            return apply("index_put", data, (old, value),
                         (old_gradient, lambda g: g[index]))
        return unary(old, data, "index_put", old_gradient)

    in_place(x, "item assignment", write, put, (value,))


@method("__iter__")
def iterate(x: Tensor) -> Iterator[Tensor]:
    if x._array.ndim == 0:
        raise TypeError("iteration over a 0-d tensor")
    return (getitem(x, i) for i in range(len(x._array)))
