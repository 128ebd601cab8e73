"""Creating tensors, PyTorch names: tensor, zeros, ones, arange, ..., and rand/randn.

The random factories draw from numpy's generator, reseeded by manual_seed (streams are not
PyTorch's).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from micrograd.tensors import dtypes
from micrograd.tensors import random as streams
from micrograd.tensors.compat import on_cpu
from micrograd.tensors.ops.shape import shape_arg
from micrograd.tensors.tensor import ArrayLike, Tensor


class _RandomState:
    generator = np.random.default_rng()


_random = _RandomState()


def manual_seed(seed: int) -> np.random.Generator:
    """Reseed the generator behind randn/rand, and torch's stream that the layers'
    initial weights are drawn from (micrograd.tensors.random)."""
    streams.manual_seed(seed)
    _random.generator = np.random.default_rng(seed)
    return _random.generator


def default_generator() -> np.random.Generator:
    """The generator that randn/rand and nn.Linear draw from (see manual_seed)."""
    return _random.generator


def tensor(data: ArrayLike, requires_grad: bool = False, dtype: Any = None,
           device: Any = None) -> Tensor:
    """A new tensor holding a copy of `data` (Python floats become the default dtype)."""
    on_cpu(device)
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def zeros(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> Tensor:
    on_cpu(device)
    return Tensor(np.zeros(shape_arg(shape), dtype=dtype or dtypes.default.dtype),
                  requires_grad)


def ones(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> Tensor:
    on_cpu(device)
    return Tensor(np.ones(shape_arg(shape), dtype=dtype or dtypes.default.dtype), requires_grad)


def zeros_like(t: Tensor, requires_grad: bool = False, dtype: Any = None,
               device: Any = None) -> Tensor:
    on_cpu(device)
    return Tensor(np.zeros_like(t.data, dtype=dtype), requires_grad)


def ones_like(t: Tensor, requires_grad: bool = False, dtype: Any = None,
              device: Any = None) -> Tensor:
    on_cpu(device)
    return Tensor(np.ones_like(t.data, dtype=dtype), requires_grad)


def arange(start: float, end: float | None = None, step: float = 1, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """start, start + step, ... below end (arange(n): 0 .. n-1); integers give int64, any
    float gives the default dtype, as torch.arange."""
    on_cpu(device)
    data = np.arange(start, end, step) if end is not None else np.arange(start)
    if dtype is None and data.dtype.kind == "f":
        dtype = dtypes.default.dtype
    return Tensor(data if dtype is None else data.astype(dtype), requires_grad)


def randn(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> Tensor:
    """Standard normal samples from the generator set by manual_seed."""
    on_cpu(device)
    data = _random.generator.standard_normal(shape_arg(shape))
    return Tensor(data.astype(dtype or dtypes.default.dtype), requires_grad)


def rand(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> Tensor:
    """Uniform samples in [0, 1) from the generator set by manual_seed."""
    on_cpu(device)
    data = _random.generator.random(shape_arg(shape))
    return Tensor(data.astype(dtype or dtypes.default.dtype), requires_grad)
