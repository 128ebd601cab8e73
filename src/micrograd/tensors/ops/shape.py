"""Shape ops: the gradient is reshaped, moved or sliced back the same way.

Also cat and stack, which join tensors: each input gets its slice of the gradient.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from micrograd.tensors import torch_warnings
from micrograd.tensors.dtypes import common_dtype
from micrograd.tensors.function import Tensor, accumulate, attach, method, node, unary


def shape_arg(shape: tuple) -> tuple:
    """Accept both f(2, 3) and f((2, 3)), as PyTorch does."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


@method("reshape", "view")
def reshape(x: Tensor, *shape: int | Sequence[int]) -> Tensor:
    """The same elements in a new shape;  the gradient is reshaped back."""
    data = x._array
    return unary(x, data.reshape(shape_arg(shape)), "reshape", lambda g: g.reshape(data.shape))


@method()
def flatten(x: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """x with dims start_dim..end_dim merged into one (a 0-d tensor becomes 1-d)."""
    shape = x._array.shape
    if not shape:
        return reshape(x, 1)
    start, end = start_dim % len(shape), end_dim % len(shape)
    merged = math.prod(shape[start:end + 1])  # (np.prod of a tuple: ~3 us)
    return reshape(x, shape[:start] + (merged,) + shape[end + 1:])


@method()
def unsqueeze(x: Tensor, dim: int) -> Tensor:
    """x with a new dim of size 1 inserted at `dim`."""
    return reshape(x, np.expand_dims(x._array, dim).shape)


@method()
def squeeze(x: Tensor, dim: int | None = None) -> Tensor:
    """x with its size-1 dims removed (only `dim`, if given and of size 1)."""
    data = x._array
    if dim is not None and data.shape[dim] != 1:
        return x
    return reshape(x, np.squeeze(data, axis=dim).shape)


@method()
def transpose(x: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (torch.transpose, not numpy's)."""
    return unary(x, np.swapaxes(x._array, dim0, dim1), "transpose",
                 lambda g: np.swapaxes(g, dim0, dim1))


@method()
def permute(x: Tensor, *dims: int | Sequence[int]) -> Tensor:
    """x with its dims reordered as `dims`, as torch.permute."""
    order = shape_arg(dims)
    inverse = tuple(np.argsort(order))
    return unary(x, np.transpose(x._array, order), "permute", lambda g: np.transpose(g, inverse))


def reverse_dims(x: Tensor) -> Tensor:
    """All dimensions reversed (a matrix transposed): the property t.T."""
    if x._array.ndim != 2:
        torch_warnings.check_reverse_dims(x._array.ndim)  # deprecated in torch, as it says
    return unary(x, x._array.T, "T", lambda g: g.T)


attach("T", property(reverse_dims))  # installed like every op


def _as_tensors(tensors: Sequence[Any], op: str) -> tuple[Tensor, ...]:
    joined = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)
    if not joined:
        raise ValueError(f"{op}() needs at least one tensor")
    return joined


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension; each gets its slice of the gradient."""
    inputs = _as_tensors(tensors, "cat")
    arrays = common_dtype([t._array for t in inputs])
    try:
        out = np.concatenate(arrays, axis=dim)
    except (ValueError, np.exceptions.AxisError) as error:
        raise ValueError(
            f"cat: cannot join shapes {', '.join(str(a.shape) for a in arrays)} along "
            f"dim {dim}: all other dimensions must match ({error})"
        ) from error
    axis = dim % out.ndim
    bounds = np.cumsum([0] + [a.shape[axis] for a in arrays])

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        for t, start, stop in zip(inputs, bounds[:-1], bounds[1:], strict=True):
            if t._requires_grad:
                accumulate(t, g[(slice(None),) * axis + (slice(start, stop),)])

    return node(out, inputs, "cat", backward)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dimension; each gets its slice of the gradient."""
    inputs = _as_tensors(tensors, "stack")
    arrays = common_dtype([t._array for t in inputs])
    try:
        out = np.stack(arrays, axis=dim)
    except ValueError as error:
        raise ValueError(
            f"stack: shapes {', '.join(str(a.shape) for a in arrays)} must all be equal"
        ) from error
    axis = dim % out.ndim

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        for i, t in enumerate(inputs):
            if t._requires_grad:
                accumulate(t, np.take(g, i, axis=axis))

    return node(out, inputs, "stack", backward)
