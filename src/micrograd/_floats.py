"""IEEE-style float helpers: where Python raises, C and PyTorch return inf or nan.

`2.0 ** 5000` raises OverflowError and `1 / 0.0` raises ZeroDivisionError in Python, while
float64 arithmetic in C, numpy and PyTorch gives inf. The scalar engine follows PyTorch, so
its ops call these helpers instead of the bare operators. They live here, out of the way of
a learner reading engine.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable

inf, nan = math.inf, math.nan


def _is_odd_integer(k: float) -> bool:
    return float(k).is_integer() and int(k) % 2 == 1


def power(x: float, k: float) -> float:
    """x ** k with C semantics: 0 ** -1 = inf, (-8) ** 0.5 = nan, 10 ** 1000 = inf."""
    try:
        result = x ** k
    except ZeroDivisionError:  # 0 ** negative
        return math.copysign(inf, x) if _is_odd_integer(k) else inf
    except OverflowError:  # too large -- or, for a negative x, complex: nan as in C
        if x < 0 and not float(k).is_integer():
            return nan
        return -inf if x < 0 and _is_odd_integer(k) else inf
    return nan if isinstance(result, complex) else result


def divide(a: float, b: float) -> float:
    """a / b with IEEE semantics: 1 / 0 = inf, 0 / 0 = nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return nan
        return math.copysign(inf, a) * math.copysign(1.0, b)


def exp(x: float) -> float:
    """e ** x; inf instead of OverflowError."""
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def log(x: float) -> float:
    """Natural log: log(0) = -inf, log(negative or nan) = nan."""
    if x > 0:
        return math.log(x)
    return -inf if x == 0 else nan


def domain(f: Callable[[float], float], x: float) -> float:
    """f(x), or nan where math raises a domain error (sin(inf), sqrt(-1))."""
    try:
        return f(x)
    except ValueError:
        return nan


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x), in two forms so that exp never overflows (stable at +-1000, as torch)."""
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = exp(x)
    return e / (1.0 + e)


def tanh_lecture(x: float) -> float:
    """The lecture's tanh, (e^2x - 1) / (e^2x + 1), guarded where e^2x overflows.

    The C library's tanh is not correctly rounded; the lecture's formula is what its
    numbers (the neuron's 0.7071067811865476) come from. Past 2x = 709 e^2x overflows,
    where the formula has long reached its limit 1.0.
    """
    if x > 354.0:
        return 1.0
    e = math.exp(2 * x)
    return (e - 1) / (e + 1)
