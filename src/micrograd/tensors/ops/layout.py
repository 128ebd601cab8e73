"""More shape ops, torch's names: expand/broadcast_to, repeat/tile, flip, roll, tril/triu,
diag, split/chunk/unbind, view_as/reshape_as/expand_as, contiguous, movedim.

Each is a rearrangement of elements, so its gradient is the same rearrangement undone
(with copies summed: an expanded or repeated element was used once per copy).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from micrograd.tensors.function import Tensor, method, unary
from micrograd.tensors.ops import index
from micrograd.tensors.ops.shape import reshape, shape_arg, transpose


@method("expand")
def expand(x: Tensor, *sizes: int | Sequence[int]) -> Tensor:
    """x broadcast to `sizes` (-1 keeps a dimension); the gradient sums over the copies."""
    shape = shape_arg(sizes)
    data = x._array
    lead = len(shape) - data.ndim
    if lead < 0:
        raise ValueError(f"expand: the number of sizes ({len(shape)}) must be at least the "
                         f"tensor's number of dimensions ({data.ndim})")
    target = tuple(data.shape[i - lead] if n == -1 and i >= lead else n
                   for i, n in enumerate(shape))
    try:
        out = np.broadcast_to(data, target)
    except ValueError as error:
        raise ValueError(f"expand: shape {data.shape} cannot be expanded to {tuple(shape)} "
                         "(only dimensions of size 1 can grow)") from error
    return unary(x, out, "expand", None)  # the kernel sums g back to x's shape


@method("broadcast_to")
def broadcast_to(x: Tensor, shape: Sequence[int]) -> Tensor:
    return expand(x, tuple(shape))


@method("expand_as")
def expand_as(x: Tensor, other: Tensor) -> Tensor:
    return expand(x, other.shape)


@method("view_as")
def view_as(x: Tensor, other: Tensor) -> Tensor:
    return reshape(x, other.shape)


@method("reshape_as")
def reshape_as(x: Tensor, other: Tensor) -> Tensor:
    return reshape(x, other.shape)


@method("contiguous")
def contiguous(x: Tensor, memory_format: Any = None) -> Tensor:
    """This tensor if its data is in C order (as torch), else a C-ordered copy."""
    if x._array.flags.c_contiguous:
        return x
    return unary(x, np.ascontiguousarray(x._array), "contiguous", None)


@method("is_contiguous")
def is_contiguous(x: Tensor, memory_format: Any = None) -> bool:
    return bool(x._array.flags.c_contiguous)


@method("repeat")
def repeat(x: Tensor, *sizes: int | Sequence[int]) -> Tensor:
    """x tiled sizes[i] times along each dimension (torch's repeat, numpy's tile);
    the gradient sums the copies of each element."""
    reps = shape_arg(sizes)
    data = x._array
    if len(reps) < data.ndim:
        raise ValueError(f"repeat: the number of repeats ({len(reps)}) must be at least the "
                         f"tensor's number of dimensions ({data.ndim})")
    base = data.reshape((1,) * (len(reps) - data.ndim) + data.shape)
    out = np.tile(base, reps)

    def vjp(g: np.ndarray) -> np.ndarray:
        # (r0, n0, r1, n1, ...): each axis split into its repeats and its original size
        split: list[int] = []
        for r, n in zip(map(int, reps), map(int, base.shape), strict=True):
            split += [r, n]
        summed = g.reshape(split).sum(axis=tuple(range(0, 2 * len(reps), 2)))
        return summed.reshape(data.shape)

    return unary(x, out, "repeat", vjp)


@method("tile")
def tile(x: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """torch.tile: repeat, with missing leading repeats taken as 1."""
    reps = shape_arg(dims)
    return repeat(x, (1,) * (x._array.ndim - len(reps)) + tuple(reps))


def _dims(dims: Sequence[int] | int) -> tuple[int, ...]:
    return (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)


@method("flip")
def flip(x: Tensor, *dims: int | Sequence[int]) -> Tensor:
    axes = shape_arg(dims)
    return unary(x, np.flip(x._array, axes).copy(), "flip", lambda g: np.flip(g, axes))


@method("roll")
def roll(x: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
         ) -> Tensor:
    """Elements shifted cyclically (over the flattened tensor when dims is None)."""
    if dims is None:
        data = x._array
        out = np.roll(data.reshape(-1), shifts).reshape(data.shape)
        return unary(x, out, "roll",
                     lambda g: np.roll(g.reshape(-1), -np.asarray(shifts)).reshape(data.shape))
    axes, steps = _dims(dims), _dims(shifts)
    back = tuple(-s for s in steps)
    return unary(x, np.roll(x._array, steps, axes), "roll", lambda g: np.roll(g, back, axes))


def _triangle_mask(shape: tuple, diagonal: int, lower: bool) -> np.ndarray:
    rows, cols = shape[-2:]
    mask = np.tri(rows, cols, diagonal if lower else diagonal - 1, dtype=bool)
    return mask if lower else ~mask


@method("tril")
def tril(x: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle (j <= i + diagonal) of the last two dimensions, zeros above."""
    return _triangle(x, diagonal, True)


@method("triu")
def triu(x: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle (j >= i + diagonal) of the last two dimensions, zeros below."""
    return _triangle(x, diagonal, False)


def _triangle(x: Tensor, diagonal: int, lower: bool) -> Tensor:
    data = x._array
    if data.ndim < 2:
        raise ValueError(f"{'tril' if lower else 'triu'} needs a tensor of at least 2 "
                         f"dimensions, got shape {data.shape}")
    mask = _triangle_mask(data.shape, diagonal, lower)
    out = np.where(mask, data, data.dtype.type(0))
    return unary(x, out, "tril" if lower else "triu", lambda g: np.where(mask, g, 0))


@method("diag")
def diag(x: Tensor, diagonal: int = 0) -> Tensor:
    """A 1-d tensor as a diagonal matrix, or a matrix's diagonal as a 1-d tensor."""
    data = x._array
    if data.ndim == 1:
        return unary(x, np.diag(data, diagonal), "diag", lambda g: np.diag(g, diagonal).copy())
    if data.ndim == 2:
        def vjp(g: np.ndarray) -> np.ndarray:
            full = np.zeros(data.shape, dtype=g.dtype)
            rows, cols = np.nonzero(np.eye(data.shape[0], data.shape[1], k=diagonal, dtype=bool))
            full[rows, cols] = g
            return full

        return unary(x, np.diag(data, diagonal).copy(), "diag", vjp)
    raise ValueError(f"diag needs a 1-d or 2-d tensor, got shape {data.shape}")


@method("split")
def split(x: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0
          ) -> tuple[Tensor, ...]:
    """Pieces along `dim`: of split_size each (the last may be smaller), or of the listed
    sizes, which must add up to the dimension."""
    n = x._array.shape[dim]
    if isinstance(split_size_or_sections, (int, np.integer)):
        size = int(split_size_or_sections)
        if size <= 0:
            raise ValueError(f"split: split_size must be positive, got {size}")
        sizes = [min(size, n - start) for start in range(0, n, size)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n:
            raise ValueError(f"split: sizes {sizes} add up to {sum(sizes)}, but dim {dim} "
                             f"has {n} elements")
    lead = (slice(None),) * (dim % x._array.ndim)
    pieces, start = [], 0
    for size in sizes:
        pieces.append(index.getitem(x, (*lead, slice(start, start + size))))
        start += size
    return tuple(pieces)


@method("chunk")
def chunk(x: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most `chunks` pieces of equal size (ceil(n / chunks)) along `dim`."""
    if chunks <= 0:
        raise ValueError(f"chunk: chunks must be positive, got {chunks}")
    n = x._array.shape[dim]
    return split(x, max(-(-n // chunks), 1), dim)


@method("unbind")
def unbind(x: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along `dim`, that dimension removed."""
    lead = (slice(None),) * (dim % x._array.ndim)
    return tuple(index.getitem(x, (*lead, i)) for i in range(x._array.shape[dim]))


@method("movedim")
def movedim(x: Tensor, source: int | Sequence[int], destination: int | Sequence[int]
            ) -> Tensor:
    return unary(x, np.moveaxis(x._array, source, destination), "movedim",
                 lambda g: np.moveaxis(g, destination, source))


method("swapaxes", "swapdims")(lambda x, a, b: transpose(x, a, b))


@method("t")
def t(x: Tensor) -> Tensor:
    """The transpose of a matrix (a 0-d or 1-d tensor is returned as is), as torch's t()."""
    if x._array.ndim > 2:
        raise ValueError(f"t() expects a tensor of at most 2 dimensions, got shape {x.shape}; "
                         "use transpose(dim0, dim1)")
    return x if x._array.ndim < 2 else transpose(x, 0, 1)
