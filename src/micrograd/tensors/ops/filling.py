"""Filling a tensor in place (fill_, copy_, the random fills normal_, uniform_, ... from
torch's streams) and making new tensors like one (new_zeros, new_tensor, type_as, ...).

In-place fills go through function.in_place, as every in-place op: under no_grad() (torch's
initialisation code, `w.normal_(0, 0.02)`) or off the graph they write the tensor's own
array; on a tensor in a graph autograd records them; on a parameter outside no_grad() they
raise torch's leaf error. Each bumps the tensor's version.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from micrograd.tensors import random as streams
from micrograd.tensors.function import Tensor, apply, in_place, leaf, method, unary
from micrograd.tensors.ops import elementwise
from micrograd.tensors.ops.shape import shape_arg


def _writable(x: Tensor, op: str) -> None:
    if not x._array.flags.writeable:  # an expand()ed view: torch refuses to write it too
        raise RuntimeError(f"{op}: this tensor's data is a read-only view (from expand or "
                           "broadcast_to); call .clone() first")


def _no_gradient(g: np.ndarray) -> np.ndarray:
    return np.zeros_like(g)


def _refill(x: Tensor, op: str, draw: Callable[[np.ndarray], Any]) -> Tensor:
    """x's elements replaced by `draw(array)` (which fills `array`), through the in-place
    machinery: under no_grad() or off the graph the fill writes x's memory; on a tensor in
    a graph it is recorded (the old values get no gradient); on a parameter outside
    no_grad() it raises torch's leaf error. Either way x's version goes up by one."""
    _writable(x, op)

    def filled(old: Tensor) -> Tensor:
        data = np.empty_like(old._array)
        draw(data)
        return unary(old, data, op.rstrip("()"), _no_gradient)

    return in_place(x, op, draw, filled)


@method("fill_")
def fill_(x: Tensor, value: Any) -> Tensor:
    """Every element set to `value`, in place; a 0-d tensor value that requires grad gets
    the sum of the gradient, as in torch."""
    _writable(x, "fill_()")
    number = value.item() if isinstance(value, Tensor) else value

    def write(array: np.ndarray) -> None:
        array[...] = number

    def filled(old: Tensor) -> Tensor:
        data = np.full_like(old._array, number)
        if isinstance(value, Tensor):
            return apply("fill_", data, (old, value), (_no_gradient, lambda g: g.sum()))
        return unary(old, data, "fill_", _no_gradient)

    return in_place(x, "fill_()", write, filled, (value,))


@method("copy_")
def copy_(x: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """src's elements (broadcast to this shape, converted to this dtype) copied in; a source
    tensor that requires grad gets the gradient (summed over broadcasting), as in torch."""
    _writable(x, "copy_()")
    source = src._array if isinstance(src, Tensor) else np.asarray(src)
    try:
        spread = np.broadcast_to(source, x._array.shape)
    except ValueError as error:
        raise ValueError(f"copy_: source of shape {source.shape} cannot be broadcast to "
                         f"{x._array.shape}") from error

    def write(array: np.ndarray) -> None:
        array[...] = spread

    def copied(old: Tensor) -> Tensor:
        data = spread.astype(old._array.dtype)  # a fresh array (astype copies)
        if isinstance(src, Tensor):
            return apply("copy_", data, (old, src), (_no_gradient, None))
        return unary(old, data, "copy_", _no_gradient)

    return in_place(x, "copy_()", write, copied, (src,))


@method("detach_")
def detach_(x: Tensor) -> Tensor:
    """Make this tensor a leaf that records no graph, in place."""
    x._prev = ()
    x._grad_fn = None
    x._requires_grad = False
    return x


@method("normal_")
def normal_(x: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: streams.Generator | None = None) -> Tensor:
    """Fill with normal samples, in place: torch's numbers for the same seed."""
    return _refill(x, "normal_()", lambda array: streams.normal_(array, mean, std, generator))


@method("uniform_")
def uniform_(x: Tensor, a: float = 0.0, b: float = 1.0,
             generator: streams.Generator | None = None, **bounds: float) -> Tensor:
    """Fill with uniform samples in [a, b), in place (torch also names them from=/to=)."""
    a = bounds.pop("from", a)
    b = bounds.pop("to", b)
    if bounds:
        raise TypeError(f"uniform_ got unexpected arguments {sorted(bounds)}")
    return _refill(x, "uniform_()", lambda array: streams.uniform_(array, a, b, generator))


@method("bernoulli_")
def bernoulli_(x: Tensor, p: Any = 0.5, generator: streams.Generator | None = None) -> Tensor:
    """Fill with 1 (probability p, a number or a tensor of probabilities) or 0, in place."""
    probs = p._array if isinstance(p, Tensor) else p
    return _refill(x, "bernoulli_()",
                   lambda array: streams.bernoulli_(array, probs, generator))


@method("exponential_")
def exponential_(x: Tensor, lambd: float = 1.0,
                 generator: streams.Generator | None = None) -> Tensor:
    """Fill with exponential samples of rate `lambd`, in place."""
    return _refill(x, "exponential_()",
                   lambda array: streams.exponential_(array, lambd, generator))


# random_() without bounds: a word modulo the dtype's range, as torch's CPU kernel
# (uniform_int_distribution): 64-bit words for int64 and float64, 32-bit otherwise; floats
# cover the integers their mantissa holds exactly, [0, 2**digits].
_FULL_RANGE = {"bool": (32, 2), "uint8": (32, 1 << 8), "int8": (32, 1 << 7),
               "int16": (32, 1 << 15), "int32": (32, 1 << 31), "int64": (64, 1 << 63),
               "float16": (32, (1 << 11) + 1), "float32": (32, (1 << 24) + 1),
               "float64": (64, (1 << 53) + 1)}


@method("random_")
def random_(x: Tensor, low: int = 0, high: int | None = None,
            generator: streams.Generator | None = None, **bounds: int) -> Tensor:
    """Fill with integers in [low, high) (random_(high) is [0, high)), in place, as torch's
    random_(from, to); random_() alone draws from [0, the dtype's largest exact integer]."""
    low = bounds.pop("from", low)
    high = bounds.pop("to", high)
    if bounds:
        raise TypeError(f"random_ got unexpected arguments {sorted(bounds)}")
    if high is None and low == 0:
        return _refill(x, "random_()", lambda array: _full_range(array, generator))
    if high is None:
        low, high = 0, low
    top = high

    def draw(array: np.ndarray) -> None:
        array[...] = streams.randint(low, top, array.shape, array.dtype, generator)

    return _refill(x, "random_()", draw)


def _full_range(array: np.ndarray, generator: streams.Generator | None) -> None:
    if array.dtype.name not in _FULL_RANGE:
        raise TypeError(f"random_() fills {sorted(_FULL_RANGE)} tensors, got {array.dtype}")
    bits, span = _FULL_RANGE[array.dtype.name]
    gen = streams.default_generator if generator is None else generator
    words = gen.random64(array.size) if bits == 64 else gen.random32(array.size)
    array[...] = (words % np.uint64(span)).reshape(array.shape).astype(array.dtype)


@method("multinomial")
def multinomial(x: Tensor, num_samples: int, replacement: bool = False,
                generator: streams.Generator | None = None) -> Tensor:
    """Indices drawn by the weights in each row: torch.multinomial's for the same seed."""
    return Tensor(streams.multinomial(x._array, num_samples, replacement, generator))


@method("bernoulli")
def bernoulli(x: Tensor, p: float | None = None,
              generator: streams.Generator | None = None) -> Tensor:
    """1 with the probability in each element (or p everywhere), else 0."""
    if p is None:
        return Tensor(streams.bernoulli(x._array, generator))
    return Tensor(streams.bernoulli_(np.empty_like(x._array), p, generator))


# --- new tensors like this one ---------------------------------------------------------

def _new(x: Tensor, data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor(data, requires_grad=requires_grad)


@method("new_zeros")
def new_zeros(x: Tensor, *size: int | Sequence[int], dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """Zeros of `size`, in this tensor's dtype unless dtype= is given."""
    return _new(x, np.zeros(shape_arg(size), dtype=dtype or x._array.dtype), requires_grad)


@method("new_ones")
def new_ones(x: Tensor, *size: int | Sequence[int], dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    """Ones of `size`, in this tensor's dtype unless dtype= is given."""
    return _new(x, np.ones(shape_arg(size), dtype=dtype or x._array.dtype), requires_grad)


@method("new_empty")
def new_empty(x: Tensor, *size: int | Sequence[int], dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """A tensor of `size` in this tensor's dtype unless dtype= is given (filled with zeros here)."""
    return new_zeros(x, *size, dtype=dtype, requires_grad=requires_grad)


@method("new_full")
def new_full(x: Tensor, size: Sequence[int], fill_value: Any, dtype: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    """`fill_value` everywhere in `size`, in this tensor's dtype unless dtype= is given."""
    return _new(x, np.full(tuple(size), fill_value, dtype=dtype or x._array.dtype),
                requires_grad)


@method("new_tensor")
def new_tensor(x: Tensor, data: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """A copy of `data` as a tensor, in this tensor's dtype unless dtype= is given."""
    source = data._array if isinstance(data, Tensor) else data
    return _new(x, np.array(source, dtype=dtype or x._array.dtype), requires_grad)


@method("type_as")
def type_as(x: Tensor, other: Tensor) -> Tensor:
    """This tensor in other's dtype (itself if it has it already)."""
    return elementwise.to(x, other._array.dtype)


@method("int")
def to_int32(x: Tensor) -> Tensor:
    """x converted to int32 (no gradient), as torch's int()."""
    return leaf(x._array.astype(np.int32))


@method("bool")
def to_bool(x: Tensor) -> Tensor:
    """x converted to bool (nonzero is True; no gradient), as torch's bool()."""
    return leaf(x._array.astype(bool))


@method("half")
def to_float16(x: Tensor) -> Tensor:
    """x converted to float16, as torch's half()."""
    return unary(x, x._array.astype(np.float16), "to", None)
