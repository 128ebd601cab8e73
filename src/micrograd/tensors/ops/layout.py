"""More shape ops, torch's names: expand/broadcast_to, repeat/tile, flip, roll, tril/triu,
diag, split/chunk/unbind, view_as/reshape_as/expand_as, contiguous, movedim; narrow/select/
diagonal/unflatten, fliplr/flipud/rot90, repeat_interleave, tensor_split/hsplit/vsplit, diff.

Each is a rearrangement of elements, so its gradient is the same rearrangement undone
(with copies summed: an expanded or repeated element was used once per copy).
"""

from __future__ import annotations

import itertools
import math
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np

from micrograd.autograd import modes
from micrograd.tensors.function import Tensor, accumulate, in_place, leaf, method, node, unary
from micrograd.tensors.ops import index
from micrograd.tensors.ops.shape import cat, reshape, shape_arg, transpose


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
    """x broadcast to `shape`, as torch.broadcast_to (expand with a shape)."""
    return expand(x, tuple(shape))


@method("expand_as")
def expand_as(x: Tensor, other: Tensor) -> Tensor:
    """x expanded (broadcast) to other's shape."""
    return expand(x, other.shape)


@method("view_as")
def view_as(x: Tensor, other: Tensor) -> Tensor:
    """x reshaped to other's shape (x.view(other.shape))."""
    return reshape(x, other.shape)


@method("reshape_as")
def reshape_as(x: Tensor, other: Tensor) -> Tensor:
    """x reshaped to other's shape (x.reshape(other.shape))."""
    return reshape(x, other.shape)


@method("contiguous")
def contiguous(x: Tensor, memory_format: Any = None) -> Tensor:
    """This tensor if its data is in C order (as torch), else a C-ordered copy."""
    if x._array.flags.c_contiguous:
        return x
    return unary(x, np.ascontiguousarray(x._array), "contiguous", None)


@method("is_contiguous")
def is_contiguous(x: Tensor, memory_format: Any = None) -> bool:
    """Whether the data is in C (row-major) order."""
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
    """x with the order of elements reversed along `dims`, as torch.flip (a copy)."""
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
    keys, start = [], 0
    for size in sizes:
        keys.append((*lead, slice(start, start + size)))
        start += size
    if not (x._requires_grad and modes.grad_enabled) or len(keys) == 1:
        return tuple(index.getitem(x, key) for key in keys)
    return _split_pieces(x, keys)


def _split_pieces(x: Tensor, keys: list[tuple]) -> tuple[Tensor, ...]:
    """The pieces of split, as views, whose backward steps fill one gradient array for x.

    Each piece sent x a zero array of x's size with its slice filled, and x summed them
    (nanoGPT's q, k, v = c_attn(x).split(...): three such arrays and two sums a layer).
    Here the first piece to run sends x one zero-filled array and each later piece adds
    its slice into that same array, as long as x's gradient is still that array and
    nothing else holds it (the reference count says so); otherwise it sends its own."""
    shared: dict[str, np.ndarray] = {}

    def piece(key: tuple) -> Tensor:
        def backward(out: Tensor) -> None:
            g = out._grad_array
            if g is None:
                return
            parent = out._prev[0]
            full = shared.get("grad")
            # 4 references: shared, parent._grad_array, full, getrefcount's argument
            if (full is not None and parent._grad_array is full and g.dtype == full.dtype
                    and sys.getrefcount(full) == 4):
                full[key] += g
                return
            full = np.zeros(parent._array.shape, dtype=parent._array.dtype)
            full[key] = g
            shared["grad"] = full
            accumulate(parent, full)

        return node(x._array[key], (x,), "split", backward)

    return tuple(piece(key) for key in keys)


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
    """x with dims `source` moved to `destination`, the others keeping their order;
    `moveaxis` is an alias."""
    return unary(x, np.moveaxis(x._array, source, destination), "movedim",
                 lambda g: np.moveaxis(g, destination, source))


method("swapaxes", "swapdims")(lambda x, a, b: transpose(x, a, b)).__doc__ = (
    "x with dims a and b swapped: an alias of transpose (`swapdims` too).")


@method("t")
def t(x: Tensor) -> Tensor:
    """The transpose of a matrix (a 0-d or 1-d tensor is returned as is), as torch's t()."""
    if x._array.ndim > 2:
        raise ValueError(f"t() expects a tensor of at most 2 dimensions, got shape {x.shape}; "
                         "use transpose(dim0, dim1)")
    return x if x._array.ndim < 2 else transpose(x, 0, 1)


def _axis(x: Tensor, dim: int, op: str) -> int:
    ndim = max(x._array.ndim, 1)
    if not -ndim <= dim < ndim:
        raise IndexError(f"{op}: Dimension out of range (expected to be in range of "
                         f"[{-ndim}, {ndim - 1}], but got {dim})")
    return dim % ndim


def _along(x: Tensor, axis: int, part: int | slice) -> Tensor:
    """x[..., part, ...] with `part` at `axis`: a view whose gradient goes back to x."""
    return index.getitem(x, (*(slice(None),) * axis, part))


@method("narrow")
def narrow(x: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The `length` elements from `start` along `dim` (torch.narrow)."""
    axis = _axis(x, dim, "narrow")
    n = x._array.shape[axis]
    start = int(start) + n if start < 0 else int(start)
    if not 0 <= start <= n or length < 0 or start + length > n:
        raise RuntimeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension "
                           f"size ({n}).")
    return _along(x, axis, slice(start, start + length))


@method("select")
def select(x: Tensor, dim: int, index: int) -> Tensor:
    """The slice at `index` along `dim`, that dimension removed (x.select(1, i) is x[:, i])."""
    axis = _axis(x, dim, "select")
    n = x._array.shape[axis]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{tuple(x._array.shape)} at dimension {axis}")
    return _along(x, axis, int(index))


@method("diagonal")
def diagonal(x: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes, as a last dimension (torch.diagonal)."""
    a, b = _axis(x, dim1, "diagonal"), _axis(x, dim2, "diagonal")
    if a == b:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    moved = np.moveaxis(x._array, (a, b), (-2, -1))
    rows, cols = moved.shape[-2:]
    count = max(0, min(rows, cols - offset) if offset >= 0 else min(rows + offset, cols))
    i = np.arange(count) + max(-offset, 0)
    j = np.arange(count) + max(offset, 0)

    def vjp(g: np.ndarray) -> np.ndarray:
        full = np.zeros(moved.shape, dtype=g.dtype)
        full[..., i, j] = g
        return np.moveaxis(full, (-2, -1), (a, b))

    return unary(x, moved[..., i, j], "diagonal", vjp)


@method("unflatten")
def unflatten(x: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Dimension `dim` split into `sizes` (one of them may be -1)."""
    axis = _axis(x, dim, "unflatten")
    shape = x._array.shape
    sizes = tuple(int(s) for s in sizes)
    known = math.prod(s for s in sizes if s != -1)  # (np.prod of a list: ~3 us)
    if sizes.count(-1) > 1 or (-1 not in sizes and known != shape[axis]) or (
            -1 in sizes and (known == 0 or shape[axis] % known)):
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[axis]}) in the input tensor")
    return reshape(x, (*shape[:axis], *sizes, *shape[axis + 1:]))


@method("fliplr")
def fliplr(x: Tensor) -> Tensor:
    """x reversed along dim 1 (left/right), for tensors of 2 or more dims."""
    if x._array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(x, 1)


@method("flipud")
def flipud(x: Tensor) -> Tensor:
    """x reversed along dim 0 (up/down), for tensors of 1 or more dims."""
    if x._array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(x, 0)


@method("rot90")
def rot90(x: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotated by 90 degrees k times in the plane `dims`, from the first toward the second."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if x._array.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {x._array.ndim}")
    if dims[0] % x._array.ndim == dims[1] % x._array.ndim:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} "
                           f"and dim1 = {dims[1]}")
    out = np.rot90(x._array, k, dims).copy()
    return unary(x, out, "rot90", lambda g: np.rot90(g, -k, dims))


@method("repeat_interleave")
def repeat_interleave(x: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (or slice along `dim`) repeated `repeats` times in place; over the
    flattened tensor when dim is None. torch.repeat_interleave(counts) alone repeats
    0, 1, 2, ... counts[i] times."""
    if repeats is None:
        counts = x._array
        if counts.ndim > 1 or counts.dtype.kind not in "iu":
            raise RuntimeError("repeat_interleave: repeats must be a 1-d integer tensor")
        return Tensor(np.repeat(np.arange(counts.size), counts))
    counts = repeats._array if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        raise RuntimeError("repeat_interleave: repeats must be an int or a 1-d integer tensor")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if dim is None:
        x, axis = reshape(x, -1), 0
    else:
        axis = _axis(x, dim, "repeat_interleave")
    n = x._array.shape[axis] if x._array.ndim else 1
    if counts.size not in (1, n):
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.size} and input.size({axis}) = {n}")
    picks = np.repeat(np.arange(n), counts.reshape(-1) if counts.size == n else int(counts))
    if output_size is not None and output_size != picks.size:
        raise RuntimeError(f"repeat_interleave: output_size {output_size} is not the "
                           f"output's size {picks.size}")
    return x.index_select(axis, Tensor(picks))


@method("tensor_split")
def tensor_split(x: Tensor, indices_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces along `dim`: `sections` nearly equal ones (the first n % sections one longer),
    or cut before each of the listed indices."""
    axis = _axis(x, dim, "tensor_split")
    n = x._array.shape[axis]
    cuts = indices_or_sections
    if isinstance(cuts, Tensor):
        cuts = cuts._array.tolist()
    if isinstance(cuts, (int, np.integer)):
        sections = int(cuts)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size, extra = divmod(n, sections)
        bounds = np.cumsum([0] + [size + (i < extra) for i in range(sections)])
    else:
        bounds = np.asarray([0, *[min(max(int(c) + n if c < 0 else int(c), 0), n)
                                  for c in cuts], n])
    return tuple(_along(x, axis, slice(int(lo), max(int(lo), int(hi))))
                 for lo, hi in itertools.pairwise(bounds))


def _even_split(x: Tensor, sections: Any, dim: int, op: str) -> tuple[Tensor, ...]:
    if isinstance(sections, (int, np.integer)) and x._array.shape[dim] % sections:
        raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {x._array.shape[dim]} is not divisible by "
                           f"the split_size {sections}!")
    return tensor_split(x, sections, dim)


@method("hsplit")
def hsplit(x: Tensor, sections: Any) -> tuple[Tensor, ...]:
    """x split along dim 1 (dim 0 if 1-d) into equal `sections` or at the given indices."""
    if x._array.ndim < 1:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got "
                           "a tensor with 0 dimensions!")
    return _even_split(x, sections, 1 if x._array.ndim > 1 else 0, "hsplit")


@method("vsplit")
def vsplit(x: Tensor, sections: Any) -> tuple[Tensor, ...]:
    """x split along dim 0 into equal `sections` or at the given indices (x at least 2-d)."""
    if x._array.ndim < 2:
        raise RuntimeError(f"torch.vsplit requires a tensor with at least 2 dimension, but "
                           f"got a tensor with {x._array.ndim} dimensions!")
    return _even_split(x, sections, 0, "vsplit")


@method("diff")
def diff(x: Tensor, n: int = 1, dim: int = -1, prepend: Any = None, append: Any = None
         ) -> Tensor:
    """The n-th forward difference along `dim`, after prepend/append are joined on."""
    axis = _axis(x, dim, "diff")
    parts = [p for p in (prepend, x, append) if p is not None]
    if len(parts) > 1:
        x = cat([p if isinstance(p, Tensor) else Tensor(p) for p in parts], axis)
    for _ in range(n):
        length = x._array.shape[axis]
        x = _along(x, axis, slice(1, None)) - _along(x, axis, slice(0, max(length - 1, 0)))
    return x


def _triangle_in_place(lower: bool) -> Any:
    def update(x: Tensor, diagonal: int = 0) -> Tensor:
        def write(array: np.ndarray) -> None:
            array[...] = _triangle(leaf(array), diagonal, lower)._array

        return in_place(x, "tril_" if lower else "triu_", write,
                        lambda old: _triangle(old, diagonal, lower))

    update.__doc__ = (f"In place, zero the elements {'above' if lower else 'below'} the "
                      f"`diagonal`-th diagonal, as torch's {'tril_' if lower else 'triu_'}.")
    return update


method("tril_")(_triangle_in_place(True))
method("triu_")(_triangle_in_place(False))


def _triangle_indices(rows: int, cols: int, offset: int, lower: bool) -> Tensor:
    mask = _triangle_mask((rows, cols), offset, lower)
    return Tensor(np.stack(np.nonzero(mask)).astype(np.int64))


def tril_indices(row: int, col: int, offset: int = 0, **_: Any) -> Tensor:
    """The (2, N) row and column indices of a row x col matrix's lower triangle."""
    return _triangle_indices(row, col, offset, True)


def triu_indices(row: int, col: int, offset: int = 0, **_: Any) -> Tensor:
    """The (2, N) row and column indices of a row x col matrix's upper triangle."""
    return _triangle_indices(row, col, offset, False)


def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple[Tensor, ...]:
    """Each 1-d tensor expanded along its own dimension of the grid; "xy" swaps the first
    two dimensions, as numpy.meshgrid."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise ValueError(f"torch.meshgrid: indexing must be one of 'xy' or 'ij', but "
                         f"received: {indexing}")
    for t in tensors:
        if t._array.ndim > 1:
            raise RuntimeError("torch.meshgrid: Expected 0D or 1D tensor in the tensor list")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    sizes = [int(tensors[i]._array.size) for i in order]
    grids = []
    for k, t in enumerate(tensors):
        position = order.index(k)
        shape = [1] * len(tensors)
        shape[position] = -1
        grids.append(reshape(t, shape).expand(*sizes))
    return tuple(grids)


# --- joins and aliases written with the ops above (their gradients are the ops') --------

method("ravel")(lambda x: reshape(x, -1)).__doc__ = "x flattened to 1-d: x.reshape(-1)."
method("moveaxis")(movedim)


def atleast_1d(x: Tensor) -> Tensor:
    return reshape(x, 1) if x._array.ndim == 0 else x


def atleast_2d(x: Tensor) -> Tensor:
    return reshape(x, 1, -1) if x._array.ndim < 2 else x


def atleast_3d(x: Tensor) -> Tensor:
    """torch's rule: (n,) -> (1, n, 1) and (m, n) -> (m, n, 1)."""
    if x._array.ndim == 0:
        return reshape(x, 1, 1, 1)
    if x._array.ndim == 1:
        return reshape(x, 1, -1, 1)
    return reshape(x, *x._array.shape, 1) if x._array.ndim == 2 else x


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    """Rows stacked: 1-d tensors become rows, then joined along dim 0."""
    return cat([atleast_2d(t) for t in tensors], 0)


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along dim 1 (dim 0 for 1-d tensors)."""
    parts = [atleast_1d(t) for t in tensors]
    return cat(parts, 0 if parts and parts[0]._array.ndim == 1 else 1)


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    """Joined along dim 2 after atleast_3d."""
    return cat([atleast_3d(t) for t in tensors], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    """1-d (and 0-d) tensors as columns, joined along dim 1 with the 2-d ones."""
    return cat([reshape(t, -1, 1) if t._array.ndim < 2 else t for t in tensors], 1)


@method("trace")
def trace(x: Tensor) -> Tensor:
    """The sum of a matrix's diagonal."""
    if x._array.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x._array.ndim}")
    return diagonal(x).sum()
