"""The numpy namespace the registry's rules compute with for `Tensor`.

The same names as `micrograd.ops.floats.FloatMath`, elementwise on arrays. Imported by the
Tensor engine only, so `import micrograd` still needs nothing beyond the standard library.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def _sigmoid(x: Any) -> Any:
    """1 / (1 + e^-x) without overflow: exp(-|x|) never overflows (as torch.sigmoid)."""
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _erf(x: Any) -> Any:
    """erf elementwise (numpy has none): the C library's, one element at a time."""
    x = np.asarray(x)
    return np.asarray(np.frompyfunc(math.erf, 1, 1)(x), dtype=x.dtype)


def _relu(x: Any) -> Any:
    out = x * (x > 0)  # as fast as np.maximum, and an integer tensor stays integer
    out += 0           # turns the -0.0 of negative inputs into 0.0
    return out


def _clip(x: Any, low: float, high: float) -> Any:
    """x limited to [low, high]; an integer array stays integer (torch's hardtanh)."""
    out = np.clip(x, low, high)
    return out.astype(x.dtype) if x.dtype.kind in "iu" else out


def _keep_integers(f: Any) -> Any:
    """floor/ceil/trunc: an integer array is returned as it is (numpy would make floats)."""
    def g(x: Any) -> Any:
        return x if x.dtype.kind in "biu" else f(x)

    return g


class ArrayMath:
    """Math on numpy arrays; the methods are numpy's ufuncs where numpy has the function."""

    exp = staticmethod(np.exp)
    log = staticmethod(np.log)
    tanh = staticmethod(np.tanh)
    sigmoid = staticmethod(_sigmoid)
    divide = staticmethod(np.divide)
    power = staticmethod(np.power)
    sqrt = staticmethod(np.sqrt)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    tan = staticmethod(np.tan)
    asin = staticmethod(np.arcsin)
    acos = staticmethod(np.arccos)
    atan = staticmethod(np.arctan)
    sinh = staticmethod(np.sinh)
    cosh = staticmethod(np.cosh)
    erf = staticmethod(_erf)
    exp2 = staticmethod(np.exp2)
    log10 = staticmethod(np.log10)
    log2 = staticmethod(np.log2)
    log1p = staticmethod(np.log1p)
    expm1 = staticmethod(np.expm1)
    floor = staticmethod(_keep_integers(np.floor))
    ceil = staticmethod(_keep_integers(np.ceil))
    trunc = staticmethod(_keep_integers(np.trunc))
    abs = staticmethod(np.abs)
    maximum = staticmethod(np.maximum)
    minimum = staticmethod(np.minimum)
    add = staticmethod(np.add)
    subtract = staticmethod(np.subtract)
    multiply = staticmethod(np.multiply)
    atan2 = staticmethod(np.arctan2)
    hypot = staticmethod(np.hypot)
    fmod = staticmethod(np.fmod)
    floor_divide = staticmethod(np.floor_divide)
    remainder = staticmethod(np.mod)  # the sign of y, as Python's % and torch.remainder
    clip = staticmethod(_clip)
    relu = staticmethod(_relu)
    sign = staticmethod(np.sign)
    where = staticmethod(np.where)
    zeros_like = staticmethod(np.zeros_like)


ARRAYS = ArrayMath()
