"""Creating tensors, PyTorch names: tensor, zeros, ones, full, empty, eye, arange, linspace,
logspace, the *_like forms, and the random factories.

The random factories (rand, randn, randint, randperm, multinomial, normal, bernoulli) draw
from `micrograd.tensors.random`: torch 2.13's CPU streams, bit for bit, from the global
generator (`manual_seed`) or the `generator=` given.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

import numpy as np

from micrograd.tensors import dtypes, ranges, torch_warnings
from micrograd.tensors import random as streams
from micrograd.tensors.compat import on_cpu
from micrograd.tensors.ops.shape import shape_arg
from micrograd.tensors.random import Generator
from micrograd.tensors.tensor import ArrayLike, Tensor
from micrograd.tensors.unsupported import unsupported_argument


class TorchConstant:
    """torch.strided, torch.contiguous_format, ...: a named constant, printed as torch's."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"


strided = TorchConstant("strided")  # torch.layout: dense, the only layout here
contiguous_format = TorchConstant("contiguous_format")  # torch.memory_format
preserve_format = TorchConstant("preserve_format")
channels_last = TorchConstant("channels_last")

# torch's memory keywords of the factories, and the values that describe what every tensor
# here is anyway (dense, in ordinary CPU memory, in C order)
_MEMORY_DEFAULTS = {"layout": (None, strided), "pin_memory": (None, False),
                    "memory_format": (None, contiguous_format, preserve_format)}
_PIN_MEMORY = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
               "allocator is available on this system.")  # torch's words on a CPU-only build

_Factory = TypeVar("_Factory", bound=Callable[..., Tensor])


def _torch_keywords(*accepted: str) -> Callable[[_Factory], _Factory]:
    """Let a factory take the memory keywords torch's takes (`accepted`, among layout=,
    pin_memory= and memory_format=): their defaults are accepted, pin_memory=True fails as
    on torch's CPU build, any other value is refused as a torch argument micrograd cannot
    honour. Any other keyword, misspelt or not torch's, gets Python's "unexpected keyword
    argument", as from torch."""

    def decorate(factory: _Factory) -> _Factory:
        @functools.wraps(factory)
        def with_torch_keywords(*args: Any, **kwargs: Any) -> Tensor:
            for keyword in accepted:
                value = kwargs.pop(keyword, None)
                if any(value is default for default in _MEMORY_DEFAULTS[keyword]):
                    continue
                if keyword == "pin_memory" and value is True:
                    raise RuntimeError(_PIN_MEMORY)
                raise unsupported_argument(f"torch.{factory.__name__}", f"{keyword}={value!r}")
            return factory(*args, **kwargs)

        return cast(_Factory, with_torch_keywords)

    return decorate


_factory_keywords = _torch_keywords("layout", "pin_memory")  # torch.zeros, torch.rand, ...
_like_keywords = _torch_keywords("layout", "pin_memory", "memory_format")  # torch.empty, *_like


def _size(shape: tuple, size: Any) -> tuple:
    if size is not None:
        if shape:
            raise TypeError("give the shape either as arguments or as size=, not both")
        return tuple(size) if isinstance(size, (tuple, list)) else (size,)
    return shape_arg(shape)


def _float_dtype(dtype: Any) -> np.dtype:
    return dtypes.default.dtype if dtype is None else np.dtype(dtype)


def _made(data: np.ndarray, requires_grad: bool, device: Any) -> Tensor:
    on_cpu(device)
    return Tensor(data, requires_grad=requires_grad)


@_torch_keywords("pin_memory")
def tensor(data: ArrayLike, requires_grad: bool = False, dtype: Any = None,
           device: Any = None) -> Tensor:
    """A new tensor holding a copy of `data`. As torch.tensor infers it: Python floats
    become the default dtype, ints int64, bools bool (torch.Tensor(data), the class, makes
    them all the default float dtype)."""
    on_cpu(device)
    if isinstance(data, Tensor):
        torch_warnings.warn(torch_warnings.COPY_CONSTRUCT)
    elif not isinstance(data, (np.ndarray, np.generic)):  # Python data: infer as torch does
        data = np.asarray(data, dtype=dtype)  # (an array: Tensor(3) would be a 3-vector)
        if dtype is None and data.dtype.kind == "f":
            dtype = dtypes.default.dtype
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


@_factory_keywords
def zeros(*shape: int | Sequence[int], size: Any = None, dtype: Any = None,
          requires_grad: bool = False, device: Any = None) -> Tensor:
    return _made(np.zeros(_size(shape, size), dtype=_float_dtype(dtype)), requires_grad, device)


@_factory_keywords
def ones(*shape: int | Sequence[int], size: Any = None, dtype: Any = None,
         requires_grad: bool = False, device: Any = None) -> Tensor:
    return _made(np.ones(_size(shape, size), dtype=_float_dtype(dtype)), requires_grad, device)


@_like_keywords
def empty(*shape: int | Sequence[int], size: Any = None, dtype: Any = None,
          requires_grad: bool = False, device: Any = None) -> Tensor:
    """A new tensor (zero-filled here: uninitialised memory would make runs differ)."""
    return zeros(*shape, size=size, dtype=dtype, requires_grad=requires_grad, device=device)


def _fill_dtype(fill_value: Any) -> np.dtype:
    """torch.full's dtype from the value: bool, int64, or the default float."""
    if isinstance(fill_value, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(fill_value, (int, np.integer)):
        return dtypes.int64
    return dtypes.default.dtype


@_factory_keywords
def full(size: Sequence[int] | int, fill_value: Any, dtype: Any = None,
         requires_grad: bool = False, device: Any = None) -> Tensor:
    """A tensor of `size` filled with `fill_value` (an int gives int64, a float the
    default dtype, as torch.full)."""
    shape = tuple(size) if isinstance(size, (tuple, list)) else (size,)
    value = fill_value.item() if isinstance(fill_value, Tensor) else fill_value
    resolved = _fill_dtype(value) if dtype is None else np.dtype(dtype)
    return _made(np.full(shape, value, dtype=resolved), requires_grad, device)


@_factory_keywords
def eye(n: int, m: int | None = None, dtype: Any = None, requires_grad: bool = False,
        device: Any = None) -> Tensor:
    """The n x m identity matrix (m = n by default)."""
    return _made(np.eye(n, m, dtype=_float_dtype(dtype)), requires_grad, device)


def _like(t: Tensor, dtype: Any) -> np.dtype:
    return t._array.dtype if dtype is None else np.dtype(dtype)


@_like_keywords
def zeros_like(t: Tensor, dtype: Any = None, requires_grad: bool = False,
               device: Any = None) -> Tensor:
    return _made(np.zeros(t.shape, dtype=_like(t, dtype)), requires_grad, device)


@_like_keywords
def ones_like(t: Tensor, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Tensor:
    return _made(np.ones(t.shape, dtype=_like(t, dtype)), requires_grad, device)


@_like_keywords
def empty_like(t: Tensor, dtype: Any = None, requires_grad: bool = False,
               device: Any = None) -> Tensor:
    return zeros_like(t, dtype, requires_grad, device)


@_like_keywords
def full_like(t: Tensor, fill_value: Any, dtype: Any = None, requires_grad: bool = False,
              device: Any = None) -> Tensor:
    return _made(np.full(t.shape, fill_value, dtype=_like(t, dtype)), requires_grad, device)


def _number(x: Any) -> Any:
    return x.item() if isinstance(x, Tensor) else x


@_factory_keywords
def arange(start: float, end: float | None = None, step: float = 1, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """start, start + step, ... below end (arange(n): 0 .. n-1); integers give int64, any
    float gives the default dtype, as torch.arange; float values are torch's bit for bit
    (see micrograd.tensors.ranges)."""
    on_cpu(device)
    if end is None:
        start, end = 0, start
    start, end, step = _number(start), _number(end), _number(step)
    floating = any(isinstance(x, (float, np.floating)) for x in (start, end, step))
    resolved = np.dtype(dtype) if dtype is not None else (
        dtypes.default.dtype if floating else dtypes.int64)
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if not all(math.isfinite(x) for x in (start, end, step)):
        raise RuntimeError(f"arange: unsupported range: {start} -> {end} (step {step}); "
                           "start, end and step must be finite")
    if (step > 0 and end < start) or (step < 0 and end > start):
        raise RuntimeError(f"arange: upper bound and lower bound inconsistent with step sign "
                           f"(start {start}, end {end}, step {step})")
    if resolved in (dtypes.float32, dtypes.float64):
        size = math.ceil((float(end) - float(start)) / float(step))
        data = ranges.arange(float(start), float(step), size, resolved)
    else:
        data = np.arange(start, end, step).astype(resolved)
    return Tensor(data, requires_grad=requires_grad)


def _range_steps(steps: Any, name: str) -> int:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"{name}: steps must be a non-negative integer, got {steps!r}")
    return int(steps)


def _linspace_array(start: float, end: float, steps: int, dtype: np.dtype) -> np.ndarray:
    """torch's CPU linspace (micrograd.tensors.ranges); integer dtypes go through float64."""
    steps = _range_steps(steps, "linspace")
    start, end = _number(start), _number(end)
    if steps <= 1:
        return np.full(steps, start, dtype=dtype)
    if dtype in (dtypes.float32, dtypes.float64):
        return ranges.linspace(start, end, steps, dtype)
    # integers: the step in float64, each value truncated, as ATen's integral linspace
    step = (float(end) - float(start)) / (steps - 1)
    i = np.arange(steps)
    values = np.where(i < steps // 2, float(start) + step * i, float(end) - step * (steps - 1 - i))
    return values.astype(dtype)


@_factory_keywords
def linspace(start: float, end: float, steps: int, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    """`steps` evenly spaced values from start to end, both included; torch's values bit for
    bit."""
    return _made(_linspace_array(start, end, steps, _float_dtype(dtype)), requires_grad, device)


@_factory_keywords
def logspace(start: float, end: float, steps: int, base: float = 10.0, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    """base ** linspace(start, end, steps); torch's values bit for bit in float32 and
    float64."""
    resolved = _float_dtype(dtype)
    steps = _range_steps(steps, "logspace")
    start, end = _number(start), _number(end)
    if steps <= 1:  # torch: pow(base, start) in float64
        values = np.full(steps, ranges.c_pow(float(base), float(start)))
        return _made(values.astype(resolved), requires_grad, device)
    if resolved not in (dtypes.float32, dtypes.float64):
        exponents = _linspace_array(start, end, steps, dtypes.float64)
        return _made(np.power(float(base), exponents).astype(resolved), requires_grad, device)
    return _made(ranges.logspace(start, end, steps, float(base), resolved), requires_grad,
                 device)


# --- random factories: torch's streams ---------------------------------------------------

@_factory_keywords
def rand(*shape: int | Sequence[int], size: Any = None, generator: Generator | None = None,
         dtype: Any = None, requires_grad: bool = False, device: Any = None) -> Tensor:
    """Uniform samples in [0, 1): torch.rand's numbers for the same seed."""
    data = streams.rand(_size(shape, size), _float_dtype(dtype), generator)
    return _made(data, requires_grad, device)


@_factory_keywords
def randn(*shape: int | Sequence[int], size: Any = None, generator: Generator | None = None,
          dtype: Any = None, requires_grad: bool = False, device: Any = None) -> Tensor:
    """Standard normal samples: torch.randn's numbers for the same seed."""
    data = streams.randn(_size(shape, size), _float_dtype(dtype), generator)
    return _made(data, requires_grad, device)


@_like_keywords
def rand_like(t: Tensor, generator: Generator | None = None, dtype: Any = None,
              requires_grad: bool = False, device: Any = None) -> Tensor:
    return rand(t.shape, generator=generator, dtype=_like(t, dtype),
                requires_grad=requires_grad, device=device)


@_like_keywords
def randn_like(t: Tensor, generator: Generator | None = None, dtype: Any = None,
               requires_grad: bool = False, device: Any = None) -> Tensor:
    return randn(t.shape, generator=generator, dtype=_like(t, dtype),
                 requires_grad=requires_grad, device=device)


@_factory_keywords
def randint(*args: Any, size: Any = None, generator: Generator | None = None,
            dtype: Any = None, requires_grad: bool = False, device: Any = None,
            low: int | None = None, high: int | None = None) -> Tensor:
    """Integers in [low, high): randint(high, size) or randint(low, high, size), as torch."""
    numbers = list(args)
    if numbers and isinstance(numbers[-1], (tuple, list)):
        size = numbers.pop()
    if low is not None:
        numbers.insert(0, low)
    if high is not None:
        numbers.append(high)
    if size is None or len(numbers) not in (1, 2):
        raise TypeError("randint takes (high, size) or (low, high, size), e.g. "
                        "randint(0, 10, (3,)); size must be a tuple")
    lo, hi = (0, numbers[0]) if len(numbers) == 1 else numbers
    resolved = dtypes.int64 if dtype is None else np.dtype(dtype)
    data = streams.randint(lo, hi, tuple(size), resolved, generator)
    return _made(data, requires_grad, device)


@_factory_keywords
def randperm(n: int, generator: Generator | None = None, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> Tensor:
    """A random permutation of 0 .. n-1: torch.randperm's for the same seed."""
    data = streams.randperm(n, dtypes.int64 if dtype is None else dtype, generator)
    return _made(data, requires_grad, device)


def _probabilities(input: Any) -> np.ndarray:
    return input._array if isinstance(input, Tensor) else np.asarray(input)


def multinomial(input: Any, num_samples: int, replacement: bool = False,
                generator: Generator | None = None) -> Tensor:
    """Indices drawn by the weights in each row of `input` (1-d or 2-d), as
    torch.multinomial: the same indices for the same seed."""
    return Tensor(streams.multinomial(_probabilities(input), num_samples, replacement,
                                      generator))


def bernoulli(input: Any, p: float | None = None, generator: Generator | None = None
              ) -> Tensor:
    """1 with the probability in each element of `input` (or `p` everywhere), else 0."""
    probs = _probabilities(input)
    if p is None:
        return Tensor(streams.bernoulli(probs, generator))
    return Tensor(streams.bernoulli_(np.empty_like(probs), p, generator))


def normal(mean: Any = 0.0, std: Any = 1.0, size: Sequence[int] | None = None,
           generator: Generator | None = None, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """Normal samples, as torch.normal: numbers mean and std with a size, or tensors of
    means and/or stds (one sample per element). The same numbers as torch's."""
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_is_tensor and not std_is_tensor:
        if size is None:
            raise TypeError("normal(mean, std, size): with numbers for mean and std, give size")
        out = np.empty(tuple(size), dtype=_float_dtype(dtype))
        return _made(streams.normal_(out, float(mean), float(std), generator),
                     requires_grad, device)
    if size is not None:
        raise TypeError("normal: size is only for numbers mean and std")
    means = mean._array if mean_is_tensor else None
    stds = std._array if std_is_tensor else None
    if stds is not None and np.any(stds < 0):
        raise ValueError("normal expects all elements of std >= 0.0")
    shape = np.broadcast_shapes(*(a.shape for a in (means, stds) if a is not None))
    reference = means if means is not None else stds
    assert reference is not None  # one of mean and std is a tensor here
    kind = reference.dtype
    out = np.empty(shape, dtype=kind)
    if stds is None:  # torch: normal_(0, std) then add the means
        streams.normal_(out, 0.0, float(std), generator)
        return _made(out + means, requires_grad, device)
    streams.normal_(out, 0.0, 1.0, generator)  # torch: standard normals * std + mean
    return _made(out * stds + (means if means is not None else kind.type(mean)),
                 requires_grad, device)


seed, initial_seed, manual_seed = streams.seed, streams.initial_seed, streams.manual_seed
default_generator = streams.default_generator


def get_rng_state() -> Tensor:
    """The global generator's state: torch's 5056 bytes, as a uint8 tensor."""
    return Tensor(streams.get_rng_state())


def set_rng_state(state: Any) -> None:
    """Restore the global generator from get_rng_state() (ours or torch's, as numpy)."""
    streams.set_rng_state(state._array if isinstance(state, Tensor) else np.asarray(state))
