"""nn.init: fill a tensor in place with the distributions torch's layers start from.

Every random number drawn by the nn package comes from `_random_fill`, the one place that
decides which random stream is used: torch's own CPU stream (micrograd.tensors.random), from
the global generator that `torch.manual_seed` seeds or from a `generator=` given, so that a
seeded script starts from the same weights, bit for bit, under torch and micrograd.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from micrograd.tensors import Tensor
from micrograd.tensors import random as streams

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
]

_KINDS = ("uniform", "normal", "permutation")


def _random_fill(array: np.ndarray, kind: str, a: float, b: float,
                 generator: Any = None) -> np.ndarray:
    """Fill `array` in place: kind "uniform" draws U(a, b) as `Tensor.uniform_(a, b)`,
    "normal" draws N(mean=a, std=b) as `Tensor.normal_(a, b)`, "permutation" is
    `torch.randperm(len(array))` (a 1-d integer array; a, b unused).

    generator: None (torch's global stream, seeded by `torch.manual_seed`), a
    `micrograd.tensors.random.Generator` (`torch.Generator()`), or a numpy Generator (an
    older micrograd option: numpy's numbers, not torch's).
    """
    if kind not in _KINDS:
        raise ValueError(f"kind must be 'uniform', 'normal' or 'permutation', got {kind!r}")
    if isinstance(generator, np.random.Generator):
        return _numpy_fill(array, kind, a, b, generator)
    generator = streams.resolve_stream(generator)
    if kind == "permutation":
        array[...] = streams.randperm(len(array), np.int64, generator)
    elif array.dtype.kind != "f":  # torch refuses these too; say so before drawing
        raise TypeError(f"{kind}_ fills floating point tensors, got dtype {array.dtype}")
    elif kind == "uniform":
        streams.uniform_(array, a, b, generator)
    else:
        streams.normal_(array, a, b, generator)
    return array


def _numpy_fill(array: np.ndarray, kind: str, a: float, b: float,
                generator: np.random.Generator) -> np.ndarray:
    """The same fills from a numpy Generator (reproducible, but not torch's numbers)."""
    if kind == "permutation":
        array[...] = generator.permutation(len(array))
    elif kind == "uniform":
        array[...] = a + (b - a) * generator.random(array.shape)
    else:
        array[...] = a + b * generator.standard_normal(array.shape)
    return array


def random_int64(generator: Any = None) -> int:
    """`int(torch.empty((), dtype=torch.int64).random_(generator=g))`: one 64-bit word
    modulo 2**63, the seed torch's DataLoader and RandomSampler draw on every epoch."""
    return int(streams.resolve_stream(generator).random64(1)[0]) % (1 << 63)


def _array(tensor: Any, name: str) -> np.ndarray:
    """The tensor's array, to be filled now: its version goes up by one, as torch's."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{name} expects a Tensor, got {type(tensor).__name__}")
    return tensor._array_to_change()


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The gain torch recommends for a nonlinearity (tanh 5/3, relu sqrt 2, ...)."""
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        if isinstance(slope, bool) or not isinstance(slope, (int, float)):
            raise ValueError(f"negative_slope {slope!r} is not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"unsupported nonlinearity {nonlinearity!r}: use one of linear, sigmoid, "
                     "tanh, relu, leaky_relu, selu")


def _fans(array: np.ndarray) -> tuple[int, int]:
    if array.ndim < 2:
        raise ValueError("fan in and fan out can not be computed for a tensor with fewer "
                         f"than 2 dimensions (got shape {array.shape})")
    receptive = int(np.prod(array.shape[2:])) if array.ndim > 2 else 1
    return array.shape[1] * receptive, array.shape[0] * receptive


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    _random_fill(_array(tensor, "uniform_"), "uniform", a, b, generator)
    return tensor


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Any = None) -> Tensor:
    _random_fill(_array(tensor, "normal_"), "normal", mean, std, generator)
    return tensor


def constant_(tensor: Tensor, val: float) -> Tensor:
    _array(tensor, "constant_")[...] = val
    return tensor


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    array = _array(tensor, "eye_")
    if array.ndim != 2:
        raise ValueError(f"eye_ needs a 2-d tensor, got shape {array.shape}")
    array[...] = np.eye(*array.shape)
    return tensor


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """U(-a, a) with a = gain sqrt(6 / (fan_in + fan_out)) (Glorot & Bengio)."""
    array = _array(tensor, "xavier_uniform_")
    fan_in, fan_out = _fans(array)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    _random_fill(array, "uniform", -bound, bound, generator)
    return tensor


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """N(0, std^2) with std = gain sqrt(2 / (fan_in + fan_out))."""
    array = _array(tensor, "xavier_normal_")
    fan_in, fan_out = _fans(array)
    _random_fill(array, "normal", 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)),
                 generator)
    return tensor


def _kaiming_std(array: np.ndarray, a: float, mode: str, nonlinearity: str) -> float:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"mode must be 'fan_in' or 'fan_out', got {mode!r}")
    fan_in, fan_out = _fans(array)
    fan = fan_in if mode == "fan_in" else fan_out
    return calculate_gain(nonlinearity, a) / math.sqrt(fan)


def kaiming_uniform_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """U(-b, b) with b = gain sqrt(3 / fan) (He et al.); a is leaky_relu's slope."""
    array = _array(tensor, "kaiming_uniform_")
    bound = math.sqrt(3.0) * _kaiming_std(array, a, mode, nonlinearity)
    _random_fill(array, "uniform", -bound, bound, generator)
    return tensor


def kaiming_normal_(tensor: Tensor, a: float = 0.0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Any = None) -> Tensor:
    """N(0, std^2) with std = gain / sqrt(fan)."""
    array = _array(tensor, "kaiming_normal_")
    _random_fill(array, "normal", 0.0, _kaiming_std(array, a, mode, nonlinearity), generator)
    return tensor
