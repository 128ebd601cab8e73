"""More elementwise math, torch's names: tan, log10, log2, log1p, expm1, rsqrt, erf, ...,
maximum/minimum, where, masked_fill, the is* tests, and integer powers as multiplications.

Each entry is the forward array function and its local derivative, on the public kernel.
Functions that make floats from integers (torch.sin(int tensor)) return the default dtype,
as torch does; numpy would return float64.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from micrograd.tensors.function import (
    Tensor,
    apply,
    binary,
    leaf,
    method,
    node,
    operand,
    unary,
)
from micrograd.tensors.ops import elementwise
from micrograd.tensors.ops.selection import in_place_of

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


# tan, log10, log2, log1p, expm1, exp2, rsqrt, erf, asin, acos, atan, sinh, cosh,
# reciprocal, square, sign, floor, ceil and trunc are the op registry's (micrograd/ops/).


@method("round")
def round(x: Tensor, decimals: int = 0) -> Tensor:
    """Round half to even (as torch and numpy); `decimals` digits after the point."""
    data = x._array
    out = np.round(data, decimals) if data.dtype.kind == "f" else data.copy()
    return unary(x, np.asarray(out), "round", lambda g: np.zeros_like(g))


method("clip")(elementwise.clamp)  # torch's alias


# --- powers: the exponents torch computes by multiplication ------------------------------

def _fast_power(data: np.ndarray, exponent: float) -> np.ndarray | None:
    """data ** exponent as torch's CPU kernel computes it for the exponents it special-cases
    (x*x, x*x*x, 1/x, 1/(x*x), 1/sqrt(x)), or None for others. np.power is ~40x slower than x*x*x
    for x**3 on 2,000 floats and rounds differently from torch in the last bit."""
    if exponent == 2:
        return data * data
    if exponent == 3:
        return data * data * data
    if exponent == 1:
        return data.copy()
    if exponent == 0:
        return np.ones_like(data)
    with np.errstate(all="ignore"):
        if exponent == -1:
            return 1 / data
        if exponent == -2:
            return 1 / (data * data)
        if exponent == -0.5:
            return 1 / np.sqrt(data)
    return None


def _power_gradient(g: np.ndarray, data: np.ndarray, exponent: float) -> np.ndarray:
    """torch's pow backward, g * (e * x^(e-1)), with x^(e-1) by multiplication too."""
    if exponent == 0:
        return np.zeros_like(g)
    if exponent == 2:  # x^1 is x itself: no copy of it (torch's x.pow(1) has x's values);
        return g * (data + data)  # x + x is 2x exactly, without numpy's Python-int operand
    lower = _fast_power(data, exponent - 1)
    if lower is None:
        with np.errstate(all="ignore"):
            lower = np.power(data, exponent - 1)
    return g * (exponent * lower)


def _power_vjp(g: np.ndarray, x: np.ndarray, exponent: float, out: np.ndarray) -> np.ndarray:
    return _power_gradient(g, x, exponent)


_generic_pow = elementwise.pow  # the binary op of elementwise.ARITHMETIC


def power(x: Tensor, exponent: Any) -> Tensor:
    """x ** exponent. A float tensor to a number torch special-cases (2, 3, -1, -2, -0.5)
    is computed by multiplication, with torch's values; anything else is np.power."""
    if (type(exponent) is int or type(exponent) is float) and x._array.dtype.kind == "f":
        out = _fast_power(x._array, exponent)
        if out is not None:
            if not x._requires_grad:  # (x ** 2 of data: no backward step to make)
                return node(out, (x,), "**", None, False)
            # binary(): the trace finds the exponent as the operand
            return binary(x, exponent, "**", lambda _x, _y: out, _power_vjp, None)
    if type(x) is not Tensor:
        x = Tensor(x)
    return _generic_pow(x, exponent)


method("__pow__", "pow")(power)
method("pow_")(in_place_of("pow_", power))


def pow(input: Any, exponent: Any) -> Tensor:
    """torch.pow(input, exponent): either may be a number."""
    if isinstance(input, Tensor):
        return power(input, exponent)
    base = operand(input, "**")
    if base is NotImplemented:
        raise TypeError(f"pow: expected a tensor or a number, got {type(input).__name__}")
    if not isinstance(exponent, Tensor):
        exponent = Tensor(exponent)
    return exponent.__rpow__(base)


# maximum and minimum are the op registry's two-input entries (micrograd/ops/binary.py)


def _condition(condition: Any) -> np.ndarray:
    cond = condition._array if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise TypeError(f"where/masked_fill expect a bool condition, got dtype {cond.dtype}; "
                        "e.g. x > 0")
    return cond


def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    """torch.where(condition, input, other): input where condition holds, else other
    (numbers allowed); d/dinput = g where the condition holds, d/dother = g elsewhere.
    torch.where(condition) alone gives the indices of the true elements, per dimension."""
    cond = _condition(condition)
    if input is None and other is None:
        return tuple(leaf(i) for i in np.nonzero(cond))
    if input is None or other is None:
        raise TypeError("where(condition, input, other) needs both input and other")

    def select(x: Any, y: Any) -> np.ndarray:
        return np.where(cond, x, y)

    def to_input(g: Any, x: Any, y: Any, out: Any) -> Any:
        return np.where(cond, g, 0)

    def to_other(g: Any, x: Any, y: Any, out: Any) -> Any:
        return np.where(cond, 0, g)

    a = input if isinstance(input, Tensor) else operand(input, "where")
    b = other if isinstance(other, Tensor) else operand(other, "where")
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        a = Tensor(a)
    out = binary(a, b, "where", select, to_input, to_other)
    if out._array.shape != np.broadcast_shapes(out._array.shape, cond.shape):
        # the condition broadcasts the result further: recompute on the full shape
        full = np.broadcast_shapes(out._array.shape, cond.shape)
        return where(cond, _expanded(a, full), _expanded(b, full))
    return out


def _expanded(v: Any, shape: tuple) -> Any:
    if isinstance(v, Tensor):
        return apply("expand", np.broadcast_to(v._array, shape), (v,), (None,))
    return v


@method("where")
def where_method(x: Tensor, condition: Any, other: Any) -> Tensor:
    """x.where(condition, other), as torch's method."""
    return where(condition, x, other)


@method("masked_fill")
def masked_fill(x: Tensor, mask: Any, value: Any) -> Tensor:
    """x with `value` where `mask` is True;  the gradient is 0 there, g elsewhere."""
    cond = _condition(mask)
    data = x._array
    fill = value._array if isinstance(value, Tensor) else value
    if np.ndim(fill) != 0:
        raise ValueError("masked_fill only supports a 0-dimensional value tensor or a number, "
                         f"got shape {np.shape(fill)}")
    try:  # the mask and x broadcast together, both ways, as in torch (a bigger mask: a
        # bigger result, whose gradient unary() sums back to x's shape)
        out = np.where(cond, np.asarray(fill).astype(data.dtype), data)
    except ValueError as error:
        raise ValueError(f"masked_fill: mask of shape {cond.shape} cannot be broadcast with "
                         f"the tensor's shape {data.shape}") from error
    return unary(x, out, "masked_fill", lambda g: np.where(cond, 0, g))


# --- tests of values: bool tensors, no gradient -------------------------------------------

isnan = method("isnan")(lambda x: leaf(np.isnan(x._array)))
isinf = method("isinf")(lambda x: leaf(np.isinf(x._array)))
isfinite = method("isfinite")(lambda x: leaf(np.isfinite(x._array)))
isneginf = method("isneginf")(lambda x: leaf(np.isneginf(x._array)))
isposinf = method("isposinf")(lambda x: leaf(np.isposinf(x._array)))
logical_and = method("logical_and")(lambda x, y: leaf(np.logical_and(x._array, _data(y))))
logical_or = method("logical_or")(lambda x, y: leaf(np.logical_or(x._array, _data(y))))
logical_xor = method("logical_xor")(lambda x, y: leaf(np.logical_xor(x._array, _data(y))))
isnan.__doc__ = "True where x is nan, as a bool tensor (no gradient)."
isinf.__doc__ = "True where x is inf or -inf, as a bool tensor (no gradient)."
isfinite.__doc__ = "True where x is neither nan nor +-inf, as a bool tensor (no gradient)."
isneginf.__doc__ = "True where x is -inf, as a bool tensor (no gradient)."
isposinf.__doc__ = "True where x is +inf, as a bool tensor (no gradient)."
logical_and.__doc__ = "x and y elementwise (nonzero is True), as a bool tensor (no gradient)."
logical_or.__doc__ = "x or y elementwise (nonzero is True), as a bool tensor (no gradient)."
logical_xor.__doc__ = "x xor y elementwise (nonzero is True), as a bool tensor (no gradient)."


def _data(x: Any) -> Any:
    return x._array if isinstance(x, Tensor) else x


@method("isclose")
def isclose(x: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> Tensor:
    """|x - other| <= atol + rtol |other|, elementwise (torch's defaults)."""
    return leaf(np.isclose(x._array, _data(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


@method("allclose")
def allclose(x: Tensor, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """True if isclose holds everywhere (shapes must broadcast)."""
    return bool(np.allclose(x._array, _data(other), rtol=rtol, atol=atol, equal_nan=equal_nan))


@method("equal")
def equal(x: Tensor, other: Any) -> bool:
    """True if both have the same shape and the same elements, as torch.equal."""
    y = np.asarray(_data(other))
    return x._array.shape == y.shape and bool(np.array_equal(x._array, y))
