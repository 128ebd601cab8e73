"""The registry's two-input ops: + - * / ** and torch's other elementwise math of two
tensors (maximum, minimum, atan2, hypot, fmod, remainder), each written once.

A rule is a function of the math namespace `m` (floats for Value, numpy for Tensor)
returning `BinaryRule(forward, vjp_x, vjp_y)`: one VJP per input, `vjp(g, x, y, out)`,
given the output's gradient `g`; None when the derivative is 1 (g passes through). The
engines read them: `Value`'s `+ * **` backward steps (engine.py), Tensor's operators and
named functions (tensors/ops/elementwise.py, arithmetic.py, pointwise.py), which broadcast,
promote dtypes and sum gradients back over broadcast dimensions themselves.
"""

from __future__ import annotations

import functools
from typing import Any

from micrograd.ops.registry import BinaryOp, BinaryRule, Torch, table


def _same(name: str, inplace: bool = True) -> Torch:
    """torch.NAME(x, y), x.NAME(y) and (if `inplace`) x.NAME_(y)."""
    return Torch(function=name, method=name, inplace=name + "_" if inplace else "")


# --- the lecture's arithmetic ------------------------------------------------------------

def _add(m: Any) -> BinaryRule:  # d(x+y)/dx = d(x+y)/dy = 1: + routes the gradient
    return BinaryRule(m.add, None, None)


def _sub(m: Any) -> BinaryRule:
    return BinaryRule(m.subtract, None, lambda g, x, y, out: -g)


def _mul(m: Any) -> BinaryRule:  # d(xy)/dx = y, d(xy)/dy = x: multiplication swaps
    return BinaryRule(m.multiply, lambda g, x, y, out: g * y, lambda g, x, y, out: g * x)


def _truediv(m: Any) -> BinaryRule:  # d(x/y)/dx = 1/y, d(x/y)/dy = -x/y^2 = -(x/y)/y
    # d/dy as torch's, -g ((x/y)/y), from the output; out / -y is -(out/y) exactly and
    # takes the sign on the smaller operand (y needs a gradient, so it is not unsigned)
    return BinaryRule(m.divide, lambda g, x, y, out: m.divide(g, y),
                      lambda g, x, y, out: g * m.divide(out, -y))


def _pow(m: Any) -> BinaryRule:
    def vjp_x(g: Any, x: Any, y: Any, out: Any) -> Any:  # y x^(y-1); 0 at y == 0 (torch's)
        return g * m.where(y == 0, 0, y * m.power(x, y - 1))

    def vjp_y(g: Any, x: Any, y: Any, out: Any) -> Any:  # x^y ln x; 0 at x == 0, y >= 0
        return g * m.where((x == 0) & (y >= 0), 0, out * m.log(x))

    return BinaryRule(m.power, vjp_x, vjp_y)


# --- torch's other elementwise math of two tensors: Tensor only --------------------------

def _maximum(m: Any) -> BinaryRule:  # the larger input gets g; a tie splits it (torch's)
    return BinaryRule(m.maximum, lambda g, x, y, out: g * ((x > y) + 0.5 * (x == y)),
                      lambda g, x, y, out: g * ((y > x) + 0.5 * (y == x)))


def _minimum(m: Any) -> BinaryRule:
    return BinaryRule(m.minimum, lambda g, x, y, out: g * ((x < y) + 0.5 * (x == y)),
                      lambda g, x, y, out: g * ((y < x) + 0.5 * (y == x)))


def _atan2(m: Any) -> BinaryRule:  # the angle of the point (y, x): d/dx = y/r^2, d/dy = -x/r^2
    def reciprocal(x: Any, y: Any) -> Any:  # 1/r^2, taken as 0 where r^2 is 0 (torch's)
        r2 = x * x + y * y
        return m.where(r2 == 0, 0, m.divide(1, r2))

    return BinaryRule(m.atan2, lambda g, x, y, out: g * y * reciprocal(x, y),
                      lambda g, x, y, out: g * -x * reciprocal(x, y))


def _hypot(m: Any) -> BinaryRule:  # r = sqrt(x^2 + y^2): d/dx = x/r, d/dy = y/r
    return BinaryRule(m.hypot, lambda g, x, y, out: m.divide(g * x, out),
                      lambda g, x, y, out: m.divide(g * y, out))


def _fmod(m: Any) -> BinaryRule:  # x - trunc(x/y) y: d/dx = 1, d/dy = -trunc(x/y)
    return BinaryRule(m.fmod, None, lambda g, x, y, out: -g * m.trunc(m.divide(x, y)))


def _remainder(m: Any) -> BinaryRule:  # x - floor(x/y) y: d/dx = 1, d/dy = -floor(x/y)
    # floor(x/y) as floor division computes it, exactly (torch's div_floor): -5e-324 / 2
    # rounds to -0.0, whose floor is 0, where the true floor is -1
    return BinaryRule(m.remainder, None, lambda g, x, y, out: -g * m.floor_divide(x, y))


_POSITIVE = (0.3, 3.0)

BINARY = table(
    BinaryOp("add", _add, "+", "{0} + {1}", ("{out.grad}", "{out.grad}"),
             "x + y;  d/dx = d/dy = 1", _same("add"), ("__add__", "__radd__"), scalar=True,
             probe_at=(1.7, -0.6)),
    BinaryOp("mul", _mul, "*", "{0} * {1}", ("{1.data} * {out.grad}", "{0.data} * {out.grad}"),
             "x y;  d/dx = y, d/dy = x", _same("mul"), ("__mul__", "__rmul__"), scalar=True,
             probe_at=(1.7, -0.6)),
    BinaryOp("sub", _sub, "-", "{0} - {1}", ("{out.grad}", "-{out.grad}"),
             "x - y;  d/dx = 1, d/dy = -1", _same("sub"), ("__sub__", "__rsub__")),
    BinaryOp("truediv", _truediv, "/", "{0} / {1}",
             ("{out.grad} / {1.data}", "-{0.data} / {1.data}**2 * {out.grad}"),
             "x / y;  d/dx = 1/y, d/dy = -x/y^2", _same("div"),
             ("__truediv__", "__rtruediv__"), dtype="float", domain=((-3.0, 3.0), _POSITIVE)),
    BinaryOp("pow", _pow, "**", "{0} ** {1}",
             ("{1.data} * {0.data}**({1.data} - 1) * {out.grad}",
              "{out.data} * log({0.data}) * {out.grad}"),
             "x^y;  d/dx = y x^(y-1), d/dy = x^y ln x", _same("pow"), ("__pow__", "__rpow__"),
             scalar=True, constant=("**k", "{0}**{k}", "{k} * {0.data}**({k} - 1) * {out.grad}"),
             domain=(_POSITIVE, (-2.0, 3.0))),
    BinaryOp("maximum", _maximum, "", "maximum({0}, {1})",
             ("(({0.data} > {1.data}) + ({0.data} == {1.data}) / 2) * {out.grad}",
              "(({1.data} > {0.data}) + ({0.data} == {1.data}) / 2) * {out.grad}"),
             "the larger of x and y (nan wins);  d/dx = 1 where x wins, 1/2 at a tie",
             _same("maximum", inplace=False), smooth=False),
    BinaryOp("minimum", _minimum, "", "minimum({0}, {1})",
             ("(({0.data} < {1.data}) + ({0.data} == {1.data}) / 2) * {out.grad}",
              "(({1.data} < {0.data}) + ({0.data} == {1.data}) / 2) * {out.grad}"),
             "the smaller of x and y (nan wins);  d/dx = 1 where x wins, 1/2 at a tie",
             _same("minimum", inplace=False), smooth=False),
    BinaryOp("atan2", _atan2, "", "atan2({0}, {1})",
             ("{1.data} / ({0.data}**2 + {1.data}**2) * {out.grad}",
              "-{0.data} / ({0.data}**2 + {1.data}**2) * {out.grad}"),
             "the angle in [-pi, pi] of the point whose coordinates are (y, x), torch's "
             "atan2(input, other);  d/dx = y/(x^2+y^2), d/dy = -x/(x^2+y^2)",
             _same("atan2"), dtype="float", aliases=("arctan2",),
             domain=(_POSITIVE, (-3.0, 3.0))),  # off the origin and the jump at x = 0, y < 0
    BinaryOp("hypot", _hypot, "", "hypot({0}, {1})",
             ("{0.data} / {out.data} * {out.grad}", "{1.data} / {out.data} * {out.grad}"),
             "sqrt(x^2 + y^2) without overflow;  d/dx = x/r, d/dy = y/r", _same("hypot"),
             dtype="float only", domain=(_POSITIVE, (-3.0, 3.0))),  # off the origin
    BinaryOp("fmod", _fmod, "", "fmod({0}, {1})",
             ("{out.grad}", "-trunc({0.data} / {1.data}) * {out.grad}"),
             "x - trunc(x/y) y, the sign of x (C's fmod);  d/dx = 1, d/dy = -trunc(x/y)",
             _same("fmod"), domain=((-3.0, 3.0), _POSITIVE), smooth=False),
    BinaryOp("remainder", _remainder, "", "remainder({0}, {1})",
             ("{out.grad}", "-floor({0.data} / {1.data}) * {out.grad}"),
             "x - floor(x/y) y, the sign of y (Python's %);  d/dx = 1, d/dy = -floor(x/y)",
             _same("remainder"), domain=((-3.0, 3.0), _POSITIVE), smooth=False),
)
"""Every two-input op of the registry by name."""


@functools.lru_cache(maxsize=64)
def binary_rule(name: str, math: Any) -> BinaryRule:
    """Two-input op `name`'s rule on namespace `math`, made once and kept."""
    return BINARY[name].rule(math)


def scalar_binary_ops() -> list[BinaryOp]:
    """The two-input entries Value makes nodes of (+ * **), in table order."""
    return [entry for entry in BINARY.values() if entry.scalar]
