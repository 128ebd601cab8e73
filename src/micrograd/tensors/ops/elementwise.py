"""Elementwise ops: arithmetic operators, math functions, comparisons, in-place updates.

The arithmetic operators' forward and local derivatives are the op registry's
(micrograd/ops/binary.py); this module adds Tensor's dtype rules around them. The
operators' reflected twins (2 * t), the comparisons and the in-place variants are generated
from one table each rather than written out.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np

from micrograd.autograd import modes
from micrograd.ops import BINARY, binary_rule
from micrograd.ops.arrays import ARRAYS
from micrograd.tensors import compat, dtypes
from micrograd.tensors.function import (
    Tensor,
    attach,
    binary,
    in_place,
    leaf,
    method,
    operand,
    raw,
    unary,
)
from micrograd.tensors.ops.registered import with_dtype_rule
from micrograd.tensors.tensor import ArrayLike
from micrograd.tensors.versions import changed_in_memory

_power = binary_rule("pow", ARRAYS).forward
true_divide = with_dtype_rule("truediv", binary_rule("truediv", ARRAYS).forward)
true_divide.__doc__ = ("x / y. Integers divide to a float of the default dtype, as in PyTorch "
                       "(numpy: float64).")


def raise_to_power(x: Any, y: Any) -> np.ndarray:
    """x ** y; bool ** bool tensor is refused as in PyTorch (numpy would give int8), and a
    bool tensor ** a Python bool stays bool."""
    with np.errstate(all="ignore"):
        out = _power(x, y)
    if out.dtype == np.int8 and getattr(x, "dtype", None) != np.int8 \
            and getattr(y, "dtype", None) != np.int8:  # only bools make int8 from non-int8
        if isinstance(y, np.ndarray):
            raise TypeError("** with a bool tensor as the exponent is not supported, as in "
                            "PyTorch; convert it first, e.g. t.long()")
        out = out.astype(bool)
    return out


def _arithmetic(name: str, forward: Callable | None = None) -> tuple:
    """A row of ARITHMETIC from registry entry `name`: its symbol and operator methods, its
    forward on arrays (or `forward`: the rule's wrapped in Tensor's dtype rule) and VJPs."""
    entry, rule = BINARY[name], binary_rule(name, ARRAYS)
    return (entry.symbol, *entry.operators, forward or rule.forward, rule.vjp_x, rule.vjp_y)


# op symbol, Tensor's operator names, forward, d/da, d/db (None: the derivative is 1): the
# registry's (micrograd/ops/binary.py); `binary` broadcasts, promotes and sums back
ARITHMETIC = (
    _arithmetic("add"),
    _arithmetic("sub"),
    _arithmetic("mul"),
    _arithmetic("truediv", true_divide),
    _arithmetic("pow", raise_to_power),
)


def _operator_pair(op: str, forward: Callable, da: Callable | None,
                   db: Callable | None) -> tuple[Callable, Callable]:
    """Tensor's method for an arithmetic operator and its reflected twin (`t * 2` and
    `2 * t`): both make the same `binary` node, with the operands in written order."""

    def method(self: Tensor, other: ArrayLike) -> Tensor:
        if type(other) is not Tensor:
            other = operand(other, op)
            if other is NotImplemented:
                return NotImplemented
        return binary(self, other, op, forward, da, db)

    def reflected(self: Tensor, other: ArrayLike) -> Tensor:
        kind = type(other)
        if kind is float or kind is int:  # `lr * p.grad`, `1 - y`: no operand() call
            return binary(other, self, op, forward, da, db)
        a = operand(other, op)
        if a is NotImplemented:
            return NotImplemented
        return binary(a, self, op, forward, da, db)

    return method, reflected


_OPERATORS: dict[str, Callable[[Tensor, Any], Tensor]] = {}  # __add__ -> its method
for _op, _name, _rname, _forward, _da, _db in ARITHMETIC:
    _method, _reflected = _operator_pair(_op, _forward, _da, _db)
    attach(_name, _method)
    attach(_rname, _reflected)
    _OPERATORS[_name] = _method

add, sub, mul, div, pow = (_OPERATORS[row[1]] for row in ARITHMETIC)  # functional forms


@method("__pos__")
def pos(x: Tensor) -> Tensor:
    return x


# --- math functions: exp, log, tanh, relu, ... are the op registry's (micrograd/ops/), --
# made Tensor methods by tensors/ops/registered.py and tensors/install.py

@method()
def clamp(x: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """x limited to [min, max];  d/dx = 1 inside (bounds included, as PyTorch), else 0."""
    if min is None and max is None:
        raise ValueError("clamp needs min or max (or both)")
    if isinstance(min, Tensor) or isinstance(max, Tensor):  # bounds per element, broadcast
        lower = x if min is None else x.maximum(min)
        return lower if max is None else lower.minimum(max)
    data = x._array
    inside = np.ones(data.shape, dtype=bool)
    if min is not None:
        inside &= data >= min
    if max is not None:
        inside &= data <= max
    return unary(x, np.clip(data, min, max), "clamp", lambda g: g * inside)


# --- dtype conversions: the gradient is converted back ---------------------------------

@method()
def clone(x: Tensor) -> Tensor:
    """A copy of the data; gradients flow back to this tensor."""
    return unary(x, x._array.copy(), "clone", None)


@method()
def to(x: Tensor, *args: Any, dtype: Any = None, device: Any = None,
       non_blocking: bool = False, copy: bool = False) -> Tensor:
    """This tensor converted to a dtype (gradients are converted back), as torch's
    to(dtype), to(device), to(device, dtype) or to(other_tensor). The only device is
    "cpu", which changes nothing; "cuda" and the like raise a RuntimeError.
    non_blocking is accepted and changes nothing (there is no device to copy to);
    copy=True returns a new tensor even when nothing needs converting."""
    args = tuple(a._array.dtype if isinstance(a, Tensor) else a for a in args)
    target = compat.to_arguments(args, dtype, device)
    if target is None or target == x._array.dtype:
        return unary(x, x._array.copy(), "to", None) if copy else x
    if target.kind != "f":
        return leaf(x._array.astype(target))  # integer results are not differentiable
    return unary(x, x._array.astype(target), "to", None)


@method("float")
def to_float32(x: Tensor) -> Tensor:
    """x converted to float32, as torch's float()."""
    return to(x, dtypes.float32)


@method("double")
def to_float64(x: Tensor) -> Tensor:
    """x converted to float64, as torch's double()."""
    return to(x, dtypes.float64)


@method("long")
def to_int64(x: Tensor) -> Tensor:
    """x converted to int64 (no gradient), as torch's long()."""
    return to(x, dtypes.int64)


# --- comparisons and logic: plain boolean tensors, no gradient -------------------------

def _comparison(compare: Callable[[Any, Any], Any]) -> Callable[[Tensor, Any], Tensor]:
    def method(self: Tensor, other: Any) -> Tensor:
        return leaf(compare(self._array, raw(other)))

    method.__doc__ = _COMPARISON_DOCS[compare]
    return method


_COMPARISON_DOCS = {operator.eq: "x == other elementwise, as a bool tensor (no gradient).",
                    operator.ne: "x != other elementwise, as a bool tensor (no gradient).",
                    operator.lt: "x < other elementwise, as a bool tensor (no gradient).",
                    operator.le: "x <= other elementwise, as a bool tensor (no gradient).",
                    operator.gt: "x > other elementwise, as a bool tensor (no gradient).",
                    operator.ge: "x >= other elementwise, as a bool tensor (no gradient)."}


COMPARISONS = {"__eq__": operator.eq, "__ne__": operator.ne, "__lt__": operator.lt,
               "__le__": operator.le, "__gt__": operator.gt, "__ge__": operator.ge}
for _name, _compare in COMPARISONS.items():
    attach(_name, _comparison(_compare))
    attach(_name.strip("_"), _comparison(_compare))  # t.eq(u), t.lt(u), ...


@method("__invert__")
def invert(x: Tensor) -> Tensor:
    """~t: logical not of a bool tensor, bitwise not of an integer one (no gradient)."""
    if x._array.dtype.kind not in "biu":
        raise TypeError(f"~ needs a bool or integer tensor, got {x._array.dtype}")
    return leaf(~x._array)


@method()
def logical_not(x: Tensor) -> Tensor:
    """True where the element is zero (or False), as a bool tensor."""
    return leaf(np.logical_not(x._array))


# --- in-place updates -------------------------------------------------------------------
# As torch's: `p -= lr * p.grad` under no_grad() changes p's memory (without them Python
# would rebind p to a new tensor and the parameter would silently never change); on a
# tensor in a graph (`dlogits -= 1`, `counts += x`) autograd records the change; on a
# parameter outside no_grad() they raise torch's error. See function.in_place.

def _update(symbol: str, name: str, array_update: Callable[[Any, Any], Any],
            op: Callable[[Any, Any], Tensor]) -> Callable[..., Tensor]:
    def update(self: Tensor, other: ArrayLike) -> Tensor:
        value = other._array if type(other) is Tensor else other
        if not (self._requires_grad or (type(other) is Tensor and other._requires_grad)
                ) or not modes.grad_enabled:  # the mode last: inside no_grad() a read is slower
            # the optimizer step's path (`p.data -= lr * p.grad`): in_place's first branch,
            # inlined, with no closures to make
            array = self._array
            shape = array.shape
            if ((shape == () or shape == (1,)) and type(value) is np.ndarray
                    and value.shape == shape and value.dtype is array.dtype
                    and array.dtype.kind == "f"):
                # a one-number parameter (W10-poly's four): numpy's in-place op on a
                # one-element array costs ~1.5 us, the same IEEE operation on its scalars
                # ~0.3 us
                at = 0 if shape else ()
                try:
                    array[at] = array_update(array[at], value[at])
                except ValueError:  # a read-only array: numpy's own in-place error
                    array_update(array, value)
            else:
                array_update(array, value)
            changed_in_memory(self)
            return self
        return in_place(self, symbol, lambda array: array_update(array, value),
                        lambda old: op(old, other), (other,))

    update.__name__ = update.__qualname__ = name
    update.__doc__ = f"self {symbol} other, in place (recorded by autograd, as torch's)."
    return update


IN_PLACE = {"__iadd__": ("+=", operator.iadd, add), "__isub__": ("-=", operator.isub, sub),
            "__imul__": ("*=", operator.imul, mul),
            "__itruediv__": ("/=", operator.itruediv, div)}
for _name, (_symbol, _update_array, _out_of_place) in IN_PLACE.items():
    attach(_name, _update(_symbol, _name, _update_array, _out_of_place))
for _name, _operator in (("mul_", "__imul__"), ("div_", "__itruediv__")):
    attach(_name, _update(f"{_name}()", _name, *IN_PLACE[_operator][1:]))


def _scaled(other: Any, alpha: float) -> Any:
    return other if alpha == 1 else other * alpha


@method()
def add_(x: Tensor, other: ArrayLike, alpha: float = 1) -> Tensor:
    """x += alpha * other, in place (recorded by autograd, as torch's)."""
    other = _scaled(other, alpha)
    value = raw(other)
    return in_place(x, "add_()", lambda array: operator.iadd(array, value),
                    lambda old: add(old, other), (other,))


@method()
def sub_(x: Tensor, other: ArrayLike, alpha: float = 1) -> Tensor:
    """x -= alpha * other, in place (recorded by autograd, as torch's)."""
    other = _scaled(other, alpha)
    value = raw(other)
    return in_place(x, "sub_()", lambda array: operator.isub(array, value),
                    lambda old: sub(old, other), (other,))


@method()
def zero_(x: Tensor) -> Tensor:
    """Fill with zeros in place; recorded on a tensor in a graph (its gradient stops)."""

    def zeros(old: Tensor) -> Tensor:
        return unary(old, np.zeros_like(old._array), "zero_", lambda g: np.zeros_like(g))

    return in_place(x, "zero_()", lambda array: array.fill(0), zeros)


@method()
def clamp_(x: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """x limited to [min, max] in place (recorded by autograd, as torch's)."""
    if min is None and max is None:
        raise ValueError("clamp_ needs min or max (or both)")
    return in_place(x, "clamp_()", lambda array: np.clip(array, min, max, out=array),
                    lambda old: clamp(old, min, max))


@method()
def masked_fill_(x: Tensor, mask: ArrayLike, value: float) -> Tensor:
    """value where mask is True, in place; the gradient is 0 there (as torch's)."""
    where = raw(mask)
    if getattr(where, "dtype", None) != np.bool_:
        raise TypeError(f"masked_fill_ needs a bool mask (e.g. t == 0), got "
                        f"{getattr(where, 'dtype', type(where).__name__)}")
    fill = raw(value)

    def write(array: np.ndarray) -> None:
        np.copyto(array, fill, where=np.broadcast_to(where, array.shape))

    def filled(old: Tensor) -> Tensor:
        data = np.where(where, np.asarray(fill, dtype=old._array.dtype), old._array)
        return unary(old, data, "masked_fill_", lambda g: np.where(where, 0, g))

    return in_place(x, "masked_fill_()", write, filled)
