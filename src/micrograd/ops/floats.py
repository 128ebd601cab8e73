"""The float namespace the registry's rules compute with for `Value`: standard library only.

Every function follows IEEE float64 as PyTorch does (inf and nan, never OverflowError or
ValueError), through `micrograd._floats`. A rule written against this namespace and against
`micrograd.ops.arrays` (numpy) is the same text.
"""

from __future__ import annotations

import math
import operator
from typing import Any

from micrograd import _floats

nan = math.nan


def _guarded(f: Any) -> Any:
    def g(x: float) -> float:
        return _floats.domain(f, x)

    g.__name__ = f.__name__
    return g


class FloatMath:
    """Math on Python floats. Methods are static: `m.exp(x)` is a plain function call."""

    exp = staticmethod(_floats.exp)
    log = staticmethod(_floats.log)
    tanh = staticmethod(math.tanh)
    sigmoid = staticmethod(_floats.sigmoid)
    divide = staticmethod(_floats.divide)
    power = staticmethod(_floats.power)
    sqrt = staticmethod(_guarded(math.sqrt))
    sin = staticmethod(_guarded(math.sin))
    cos = staticmethod(_guarded(math.cos))
    tan = staticmethod(_guarded(math.tan))
    asin = staticmethod(_guarded(math.asin))
    acos = staticmethod(_guarded(math.acos))
    atan = staticmethod(math.atan)
    sinh = staticmethod(_guarded(math.sinh))
    cosh = staticmethod(_guarded(math.cosh))
    erf = staticmethod(math.erf)
    exp2 = staticmethod(lambda x: _floats.power(2.0, x))
    log10 = staticmethod(lambda x: math.log10(x) if x > 0 else _floats.log(x))
    log2 = staticmethod(lambda x: math.log2(x) if x > 0 else _floats.log(x))
    log1p = staticmethod(_guarded(math.log1p))
    expm1 = staticmethod(_guarded(math.expm1))
    floor = staticmethod(lambda x: float(math.floor(x)) if math.isfinite(x) else x)
    ceil = staticmethod(lambda x: float(math.ceil(x)) if math.isfinite(x) else x)
    trunc = staticmethod(lambda x: float(math.trunc(x)) if math.isfinite(x) else x)
    abs = staticmethod(abs)
    add = staticmethod(operator.add)
    subtract = staticmethod(operator.sub)
    multiply = staticmethod(operator.mul)
    atan2 = staticmethod(math.atan2)
    hypot = staticmethod(math.hypot)

    @staticmethod
    def maximum(x: float, y: float) -> float:
        return x if x > y or x != x else y  # nan wins, as torch.maximum

    @staticmethod
    def minimum(x: float, y: float) -> float:
        return x if x < y or x != x else y

    @staticmethod
    def fmod(x: float, y: float) -> float:  # the sign of x (C's fmod); nan at y == 0
        try:
            return math.fmod(x, y)
        except ValueError:
            return nan

    @staticmethod
    def floor_divide(x: float, y: float) -> float:  # floor(x / y), exactly (Python's //)
        try:
            return x // y
        except ZeroDivisionError:
            return _floats.divide(x, y)

    @staticmethod
    def remainder(x: float, y: float) -> float:  # the sign of y (Python's %); nan at y == 0
        try:
            return x % y
        except ZeroDivisionError:
            return nan

    @staticmethod
    def clip(x: float, low: float, high: float) -> float:
        return low if x < low else high if x > high else x

    @staticmethod
    def relu(x: float) -> float:
        return 0.0 if x < 0 else x  # relu(-0.0) is 0.0, as torch

    @staticmethod
    def sign(x: float) -> float:
        return float((x > 0) - (x < 0))  # 0 at nan: abs's gradient there, as torch's

    @staticmethod
    def where(condition: Any, a: float, b: float) -> float:
        return a if condition else b

    @staticmethod
    def zeros_like(g: float) -> float:
        return 0.0


class LectureMath(FloatMath):
    """The lecture's numbers: tanh as (e^2x - 1) / (e^2x + 1) (see micrograd.lecture)."""

    tanh = staticmethod(_floats.tanh_lecture)  # type: ignore[assignment]  # same signature


FLOATS = FloatMath()
LECTURE = LectureMath()
