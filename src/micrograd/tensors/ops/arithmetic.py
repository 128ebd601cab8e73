"""Elementwise math of two or three inputs that scripts use: + - * / by name (x.add(y,
alpha=), torch.div(rounding_mode=)), lerp, addcmul/addcdiv (the optimizers' updates),
clamp_min/clamp_max, nan_to_num, heaviside; each with its in-place form where torch has one.

They are compositions of ops, whose gradient is the composition's. fmod, remainder, atan2
and hypot are op registry entries (micrograd/ops/binary.py), made Tensor methods by
tensors/install.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.tensors.function import Tensor, define_binary, leaf, method, raw, unary
from micrograd.tensors.ops.selection import in_place_of


@method("heaviside")
def heaviside(x: Tensor, values: Any) -> Tensor:
    """0 where x < 0, 1 where x > 0, `values` where x == 0; a step, so no gradient."""
    data, other = x._array, raw(values)
    return leaf(np.heaviside(data, other).astype(np.result_type(data, other)))


@method("lerp")
def lerp(x: Tensor, end: Any, weight: Any) -> Tensor:
    """x + weight * (end - x): the point `weight` of the way from x to end."""
    return x + weight * (end - x)


@method("addcmul")
def addcmul(x: Tensor, tensor1: Any, tensor2: Any, *, value: float = 1) -> Tensor:
    """x + value * tensor1 * tensor2 (Adam's running averages are written with it)."""
    return x + value * (tensor1 * tensor2)


@method("addcdiv")
def addcdiv(x: Tensor, tensor1: Any, tensor2: Any, *, value: float = 1) -> Tensor:
    """x + value * tensor1 / tensor2 (Adam's step is written with it)."""
    return x + value * (tensor1 / tensor2)


@method("clamp_min")
def clamp_min(x: Tensor, min: Any) -> Tensor:
    """max(x, min) elementwise: x.clamp(min=min)."""
    return x.clamp(min=min)


@method("clamp_max")
def clamp_max(x: Tensor, max: Any) -> Tensor:
    """min(x, max) elementwise: x.clamp(max=max)."""
    return x.clamp(max=max)


@method("nan_to_num")
def nan_to_num(x: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> Tensor:
    """nan, inf and -inf replaced by `nan`, `posinf` and `neginf` (default: the dtype's
    largest and smallest finite numbers); d/dx = 1 where x was finite, else 0."""
    data = x._array
    if data.dtype.kind not in "fc":
        return unary(x, data.copy(), "nan_to_num", None)
    out = np.nan_to_num(data, nan=nan, posinf=posinf, neginf=neginf)
    finite = np.isfinite(data)
    return unary(x, out, "nan_to_num", lambda g: np.where(finite, g, 0))


# --- torch's named forms of + - * / (x.add(y, alpha=2), torch.div(a, b, rounding_mode=)) --

@method("add")
def add(x: Tensor, other: Any, *, alpha: float = 1) -> Tensor:
    """x + alpha * other."""
    return x + (other if alpha == 1 else other * alpha)


@method("sub", "subtract")
def sub(x: Tensor, other: Any, *, alpha: float = 1) -> Tensor:
    """x - alpha * other."""
    return x - (other if alpha == 1 else other * alpha)


@method("mul", "multiply")
def mul(x: Tensor, other: Any) -> Tensor:
    """x * other, elementwise with broadcasting; `multiply` is an alias."""
    return x * other


def _rounded(rounding: str) -> Any:
    """a / b rounded toward 0 ('trunc') or down ('floor'); integers stay integers."""
    def forward(a: Any, b: Any) -> Any:
        if np.result_type(a, b).kind in "iu":
            q = np.floor_divide(a, b)
            if rounding == "trunc":  # floor_divide rounds down: one less when signs differ
                q = q + ((np.remainder(a, b) != 0) & ((np.sign(a) * np.sign(b)) < 0))
            return q
        with np.errstate(divide="ignore", invalid="ignore"):
            return (np.trunc if rounding == "trunc" else np.floor)(np.true_divide(a, b))

    return forward


def _zero(g: Any, x: Any, y: Any, out: Any) -> Any:  # a step function: no slope anywhere
    return np.zeros_like(g)


_ROUNDED = {mode: define_binary(f"div_{mode}", _rounded(mode), _zero, _zero)
            for mode in ("trunc", "floor")}


@method("div", "divide", "true_divide")
def div(x: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """x / other; rounding_mode 'trunc' or 'floor' rounds the quotient (no gradient)."""
    if rounding_mode is None:
        return x / other
    if rounding_mode not in _ROUNDED:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                         f"but found '{rounding_mode}'")
    return _ROUNDED[rounding_mode](x, other)


@method("floor_divide")
def floor_divide(x: Tensor, other: Any) -> Tensor:
    """floor(x / other), as torch.floor_divide (div with rounding_mode='floor')."""
    return div(x, other, rounding_mode="floor")


@method("logaddexp")
def logaddexp(x: Tensor, other: Any) -> Tensor:
    """log(e^x + e^other) without overflow: the larger one plus log1p of e^-(difference)."""
    big = x.maximum(other).detach()
    return big + ((x - big).exp() + (other - big).exp()).log()


@method("logit")
def logit(x: Tensor, eps: float | None = None) -> Tensor:
    """log(p / (1 - p)), p clamped to [eps, 1 - eps] when eps is given."""
    p = x if eps is None else x.clamp(eps, 1 - eps)
    return (p / (1 - p)).log()


method("positive")(lambda x: x).__doc__ = "+x: x itself, as torch.positive."
method("negative")(lambda x: -x).__doc__ = "-x, as torch.negative (an alias of neg)."
method("sgn")(lambda x: x.sign()).__doc__ = "The sign of x (-1, 0 or 1), as torch.sgn (real)."


@method("nansum")
def nansum(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The sum with nan counted as 0."""
    return x.masked_fill(x.isnan(), 0).sum(dim=dim, keepdim=keepdim)


@method("nanmean")
def nanmean(x: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The mean of the elements that are not nan."""
    count = (~x.isnan()).sum(dim=dim, keepdim=keepdim)
    return nansum(x, dim, keepdim) / count


# --- bitwise and logical operators on integer and bool tensors: masks combined ----------

def _bitwise(name: str, combine: Any, symbol: str) -> Any:
    """x & y, x | y, x ^ y (and bitwise_and/...): bools combine logically, integers bit by
    bit; float operands are refused, as torch refuses them. No gradient."""
    def op(x: Tensor, other: Any) -> Tensor:
        a, b = x._array, raw(other)
        kinds = a.dtype.kind + getattr(b, "dtype", a.dtype).kind
        if isinstance(b, float) or "f" in kinds or "c" in kinds:
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'Float\'')
        return leaf(np.asarray(combine(a, b)))

    op.__name__ = op.__qualname__ = name
    op.__doc__ = (f"x {symbol} other elementwise ({name}): bit by bit for integers, "
                  f"logically for bools; no gradient.")
    return op


for _name, _combine, _symbol, _operators in (
        ("bitwise_and", np.bitwise_and, "&", ("__and__", "__rand__")),
        ("bitwise_or", np.bitwise_or, "|", ("__or__", "__ror__")),
        ("bitwise_xor", np.bitwise_xor, "^", ("__xor__", "__rxor__"))):
    method(_name, *_operators)(_bitwise(_name, _combine, _symbol))


@method("bitwise_not")
def bitwise_not(x: Tensor) -> Tensor:
    """~x: bitwise not of an integer tensor, logical not of a bool one (no gradient)."""
    if x._array.dtype.kind in "fc":
        raise NotImplementedError("\"bitwise_not_cpu\" not implemented for 'Float'")
    return leaf(np.invert(x._array))


for _name, _function in (("lerp_", lerp), ("addcmul_", addcmul),
                         ("addcdiv_", addcdiv), ("clamp_min_", clamp_min),
                         ("clamp_max_", clamp_max), ("nan_to_num_", nan_to_num)):
    method(_name)(in_place_of(_name, _function))

__all__ = ["heaviside", "lerp", "addcmul", "addcdiv", "clamp_min", "clamp_max", "nan_to_num",
           "add", "sub", "mul", "div", "floor_divide"]
