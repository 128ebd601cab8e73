"""Filling a tensor in place (fill_, copy_, the random fills normal_, uniform_, ... from
torch's streams) and making new tensors like one (new_zeros, new_tensor, type_as, ...).

In-place fills are for data outside the graph or parameters under no_grad(), as in torch's
initialisation code (`w.normal_(0, 0.02)`); they write into the tensor's own array.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from micrograd.tensors import random as streams
from micrograd.tensors.function import Tensor, check_in_place, leaf, method, unary
from micrograd.tensors.ops import elementwise
from micrograd.tensors.ops.shape import shape_arg


def _writable(x: Tensor, op: str) -> np.ndarray:
    check_in_place(x, op)
    data = x.data
    if not data.flags.writeable:  # an expand()ed view: torch refuses to write it too
        raise RuntimeError(f"{op}: this tensor's data is a read-only view (from expand or "
                           "broadcast_to); call .clone() first")
    return data


@method("fill_")
def fill_(x: Tensor, value: Any) -> Tensor:
    """Every element set to `value`, in place."""
    _writable(x, "fill_()")[...] = value.item() if isinstance(value, Tensor) else value
    return x


@method("copy_")
def copy_(x: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
    """src's elements (broadcast to this shape, converted to this dtype) copied in."""
    data = _writable(x, "copy_()")
    source = src.data if isinstance(src, Tensor) else np.asarray(src)
    try:
        data[...] = np.broadcast_to(source, data.shape)
    except ValueError as error:
        raise ValueError(f"copy_: source of shape {source.shape} cannot be broadcast to "
                         f"{data.shape}") from error
    return x


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
    streams.normal_(_writable(x, "normal_()"), mean, std, generator)
    return x


@method("uniform_")
def uniform_(x: Tensor, a: float = 0.0, b: float = 1.0,
             generator: streams.Generator | None = None, **bounds: float) -> Tensor:
    """Fill with uniform samples in [a, b), in place (torch also names them from=/to=)."""
    a = bounds.pop("from", a)
    b = bounds.pop("to", b)
    if bounds:
        raise TypeError(f"uniform_ got unexpected arguments {sorted(bounds)}")
    streams.uniform_(_writable(x, "uniform_()"), a, b, generator)
    return x


@method("bernoulli_")
def bernoulli_(x: Tensor, p: Any = 0.5, generator: streams.Generator | None = None) -> Tensor:
    """Fill with 1 (probability p, a number or a tensor of probabilities) or 0, in place."""
    probs = p.data if isinstance(p, Tensor) else p
    streams.bernoulli_(_writable(x, "bernoulli_()"), probs, generator)
    return x


@method("exponential_")
def exponential_(x: Tensor, lambd: float = 1.0,
                 generator: streams.Generator | None = None) -> Tensor:
    """Fill with exponential samples of rate `lambd`, in place."""
    streams.exponential_(_writable(x, "exponential_()"), lambd, generator)
    return x


@method("random_")
def random_(x: Tensor, low: int = 0, high: int | None = None,
            generator: streams.Generator | None = None, **bounds: int) -> Tensor:
    """Fill with integers in [low, high) (random_(high) is [0, high)), in place, as torch's
    random_(from, to). torch's form without bounds is not supported."""
    low = bounds.pop("from", low)
    high = bounds.pop("to", high)
    if bounds:
        raise TypeError(f"random_ got unexpected arguments {sorted(bounds)}")
    if high is None:
        if low == 0:
            raise TypeError("random_() needs an upper bound here: random_(to) or "
                            "random_(from, to)")
        low, high = 0, low
    data = _writable(x, "random_()")
    data[...] = streams.randint(low, high, data.shape, data.dtype, generator)
    return x


@method("multinomial")
def multinomial(x: Tensor, num_samples: int, replacement: bool = False,
                generator: streams.Generator | None = None) -> Tensor:
    """Indices drawn by the weights in each row: torch.multinomial's for the same seed."""
    return Tensor(streams.multinomial(x.data, num_samples, replacement, generator))


@method("bernoulli")
def bernoulli(x: Tensor, p: float | None = None,
              generator: streams.Generator | None = None) -> Tensor:
    """1 with the probability in each element (or p everywhere), else 0."""
    if p is None:
        return Tensor(streams.bernoulli(x.data, generator))
    return Tensor(streams.bernoulli_(np.empty_like(x.data), p, generator))


# --- new tensors like this one ---------------------------------------------------------

def _new(x: Tensor, data: np.ndarray, requires_grad: bool) -> Tensor:
    return Tensor(data, requires_grad=requires_grad)


@method("new_zeros")
def new_zeros(x: Tensor, *size: int | Sequence[int], dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    """Zeros of `size`, in this tensor's dtype unless dtype= is given."""
    return _new(x, np.zeros(shape_arg(size), dtype=dtype or x.data.dtype), requires_grad)


@method("new_ones")
def new_ones(x: Tensor, *size: int | Sequence[int], dtype: Any = None, device: Any = None,
             requires_grad: bool = False) -> Tensor:
    return _new(x, np.ones(shape_arg(size), dtype=dtype or x.data.dtype), requires_grad)


@method("new_empty")
def new_empty(x: Tensor, *size: int | Sequence[int], dtype: Any = None, device: Any = None,
              requires_grad: bool = False) -> Tensor:
    return new_zeros(x, *size, dtype=dtype, requires_grad=requires_grad)


@method("new_full")
def new_full(x: Tensor, size: Sequence[int], fill_value: Any, dtype: Any = None,
             device: Any = None, requires_grad: bool = False) -> Tensor:
    return _new(x, np.full(tuple(size), fill_value, dtype=dtype or x.data.dtype),
                requires_grad)


@method("new_tensor")
def new_tensor(x: Tensor, data: Any, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> Tensor:
    """A copy of `data` as a tensor, in this tensor's dtype unless dtype= is given."""
    source = data.data if isinstance(data, Tensor) else data
    return _new(x, np.array(source, dtype=dtype or x.data.dtype), requires_grad)


@method("type_as")
def type_as(x: Tensor, other: Tensor) -> Tensor:
    """This tensor in other's dtype (itself if it has it already)."""
    return elementwise.to(x, other.data.dtype)


@method("int")
def to_int32(x: Tensor) -> Tensor:
    return leaf(x.data.astype(np.int32))


@method("bool")
def to_bool(x: Tensor) -> Tensor:
    return leaf(x.data.astype(bool))


@method("half")
def to_float16(x: Tensor) -> Tensor:
    return unary(x, x.data.astype(np.float16), "to", None)
