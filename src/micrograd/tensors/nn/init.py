"""nn.init: fill a tensor in place with the distributions torch's layers start from.

Every random number drawn by the nn package comes from `_random_fill`, the one place that
decides which random stream is used (a later change makes it torch's own stream, so that a
seeded script starts from the same weights on both).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import micrograd.tensors as _tensors
from micrograd.tensors import Tensor

__all__ = [
    "calculate_gain", "uniform_", "normal_", "constant_", "ones_", "zeros_", "eye_",
    "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
]


def _random_fill(array: np.ndarray, kind: str, a: float, b: float,
                 generator: Any = None) -> np.ndarray:
    """Fill `array` in place: kind "uniform" draws U(a, b), "normal" draws N(mean=a, std=b),
    "permutation" a random order of 0 .. len(array) - 1 (a 1-d integer array; a, b unused).

    generator: None (the stream micrograd.manual_seed sets) or a numpy Generator."""
    if kind not in ("uniform", "normal", "permutation"):
        raise ValueError(f"kind must be 'uniform', 'normal' or 'permutation', got {kind!r}")
    shape = array.shape
    if kind == "permutation":
        if isinstance(generator, np.random.Generator):
            array[...] = generator.permutation(len(array))
        else:  # the order that sorts uniform draws from the default stream
            array[...] = np.argsort(_random_fill(np.empty(len(array)), "uniform", 0.0, 1.0,
                                                 generator), kind="stable")
        return array
    if generator is None:
        draw = (_tensors.rand(*shape, dtype=np.float64) if kind == "uniform"
                else _tensors.randn(*shape, dtype=np.float64))._array
    elif isinstance(generator, np.random.Generator):
        draw = generator.random(shape) if kind == "uniform" else generator.standard_normal(shape)
    else:
        raise TypeError(f"generator must be None or a numpy Generator, got "
                        f"{type(generator).__name__}")
    if kind == "uniform":
        array[...] = a + (b - a) * draw
    else:
        array[...] = a + b * draw
    return array


def _array(tensor: Any, name: str) -> np.ndarray:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"nn.init.{name} expects a Tensor, got {type(tensor).__name__}")
    return tensor._array


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
