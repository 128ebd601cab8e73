"""The registry: every elementwise op once -- its math for floats and arrays alike, its
formula texts, its torch spellings, the checker's probe points and its dtype rule.

An entry's rule is a function of the math namespace `m` (floats for Value, numpy for
Tensor) returning `Rule(forward, vjp)`; `vjp(g, x, out)` is the gradient for the input
given the output's gradient `g`. To add an op, add an entry here (see
docs/architecture.md, "Adding an op"); Value, the lecture's Value, Tensor, the torch
facade, the trace, the expression parser and the checker pick it up.

`+`, `*` and `**` are written by hand in engine.py, in the lecture's rhythm, with their
table entries beside them (`engine.OPS`); the fused ops are listed in `FUSED`.
"""

from __future__ import annotations

import functools
import math
import struct
from typing import Any

from micrograd.ops.registry import Fused, Op, Rule, Torch, table

_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _same(name: str, module: str = "", functional: str = "", inplace_arg: bool = False
          ) -> Torch:
    """torch.NAME, x.NAME(), x.NAME_() (and optionally nn.MODULE, F.NAME)."""
    return Torch(function=name, method=name, inplace=name + "_", module=module,
                 functional=functional, inplace_arg=inplace_arg)


def _activation(name: str, module: str, function: bool = False, inplace_arg: bool = True
                ) -> Torch:
    """An activation spelled F.NAME and nn.MODULE (and torch.NAME if `function`)."""
    return Torch(function=name if function else "", module=module, functional=name,
                 inplace_arg=inplace_arg)


# --- the lecture's and micrograd 0.1.0's ops: Value has them too -----------------------

def _relu(m: Any) -> Rule:
    return Rule(m.relu, lambda g, x, out: g * (out > 0))


def _tanh(m: Any) -> Rule:
    return Rule(m.tanh, lambda g, x, out: g * (1 - out * out))


def _sigmoid(m: Any) -> Rule:
    return Rule(m.sigmoid, lambda g, x, out: g * (out * (1 - out)))


def _exp(m: Any) -> Rule:
    return Rule(m.exp, lambda g, x, out: g * out)


def _log(m: Any) -> Rule:
    return Rule(m.log, lambda g, x, out: m.divide(g, x))


def _sqrt(m: Any) -> Rule:
    return Rule(m.sqrt, lambda g, x, out: m.divide(g, 2.0 * out))


def _sin(m: Any) -> Rule:
    return Rule(m.sin, lambda g, x, out: g * m.cos(x))


def _cos(m: Any) -> Rule:
    return Rule(m.cos, lambda g, x, out: -g * m.sin(x))


def _abs(m: Any) -> Rule:
    return Rule(m.abs, lambda g, x, out: g * m.sign(x))


def _softplus(m: Any, beta: float = 1.0, threshold: float = 20.0) -> Rule:
    """log(1 + e^(beta x)) / beta, and x itself past beta x > threshold (torch's). Written
    as max(bx, 0) + log1p(e^-|bx|), which never overflows; d/dx = sigmoid(beta x)."""
    def forward(x: Any) -> Any:
        bx = beta * x
        return m.where(bx > threshold, x, _stable_softplus(m, bx) / beta)

    def vjp(g: Any, x: Any, out: Any) -> Any:
        bx = beta * x
        return g * m.where(bx > threshold, 1.0, m.sigmoid(bx))

    return Rule(forward, vjp)


# --- torch's other elementwise math: Tensor only ----------------------------------------

def _neg(m: Any) -> Rule:
    return Rule(lambda x: -x, lambda g, x, out: -g)


def _tan(m: Any) -> Rule:
    return Rule(m.tan, lambda g, x, out: g * (1 + out * out))


def _log10(m: Any) -> Rule:
    return Rule(m.log10, lambda g, x, out: g / (x * _LN10))


def _log2(m: Any) -> Rule:
    return Rule(m.log2, lambda g, x, out: g / (x * _LN2))


def _log1p(m: Any) -> Rule:
    return Rule(m.log1p, lambda g, x, out: g / (1 + x))


def _expm1(m: Any) -> Rule:
    return Rule(m.expm1, lambda g, x, out: g * (out + 1))


def _exp2(m: Any) -> Rule:
    return Rule(m.exp2, lambda g, x, out: g * out * _LN2)


def _rsqrt(m: Any) -> Rule:  # d/dx x^-1/2 = -x^-3/2 / 2
    return Rule(lambda x: m.divide(1.0, m.sqrt(x)), lambda g, x, out: -0.5 * g * out * out * out)


def _erf(m: Any) -> Rule:  # d/dx erf x = 2/sqrt(pi) e^(-x^2)
    return Rule(m.erf, lambda g, x, out: g * _TWO_OVER_SQRT_PI * m.exp(-x * x))


def _asin(m: Any) -> Rule:
    return Rule(m.asin, lambda g, x, out: g / m.sqrt(1 - x * x))


def _acos(m: Any) -> Rule:
    return Rule(m.acos, lambda g, x, out: -g / m.sqrt(1 - x * x))


def _atan(m: Any) -> Rule:
    return Rule(m.atan, lambda g, x, out: g / (1 + x * x))


def _sinh(m: Any) -> Rule:
    return Rule(m.sinh, lambda g, x, out: g * m.cosh(x))


def _cosh(m: Any) -> Rule:
    return Rule(m.cosh, lambda g, x, out: g * m.sinh(x))


def _reciprocal(m: Any) -> Rule:
    return Rule(lambda x: m.divide(1.0, x), lambda g, x, out: -g * out * out)


def _square(m: Any) -> Rule:  # torch computes x**2 as x * x
    return Rule(lambda x: x * x, lambda g, x, out: g * (2 * x))


def _frac(m: Any) -> Rule:  # a jump at each integer, slope 1 between (torch's gradient: g)
    return Rule(lambda x: x - m.trunc(x), lambda g, x, out: g)


# --- torch's other activations (nn.LeakyReLU, F.silu, ...): Tensor only -----------------
# torch's SELU constants (Klambauer et al. 2017, as torch.nn.SELU documents them)
_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _leaky_relu(m: Any, negative_slope: float = 0.01) -> Rule:  # slope at 0: negative_slope
    return Rule(lambda x: m.where(x > 0, x, x * negative_slope),
                lambda g, x, out: g * m.where(x > 0, 1.0, negative_slope))


def _elu(m: Any, alpha: float = 1.0) -> Rule:  # alpha (e^x - 1) below 0: d/dx = out + alpha
    return Rule(lambda x: m.where(x > 0, x, alpha * m.expm1(x)),
                lambda g, x, out: g * m.where(x > 0, 1.0, out + alpha))


def _selu(m: Any) -> Rule:
    return Rule(lambda x: _SELU_SCALE * m.where(x > 0, x, _SELU_ALPHA * m.expm1(x)),
                lambda g, x, out: g * _SELU_SCALE * m.where(x > 0, 1.0, _SELU_ALPHA * m.exp(x)))


def _celu(m: Any, alpha: float = 1.0) -> Rule:  # alpha (e^(x/alpha) - 1) below 0
    return Rule(lambda x: m.where(x > 0, x, alpha * m.expm1(x / alpha)),
                lambda g, x, out: g * m.where(x > 0, 1.0, m.exp(x / alpha)))


def _silu(m: Any) -> Rule:  # x s(x);  d/dx = s (1 + x (1 - s))
    def vjp(g: Any, x: Any, out: Any) -> Any:
        s = m.sigmoid(x)
        return g * (s * (1 + x * (1 - s)))

    return Rule(lambda x: x * m.sigmoid(x), vjp)


def _stable_softplus(m: Any, x: Any) -> Any:
    return m.maximum(x, 0.0) + m.log1p(m.exp(-m.abs(x)))


def _mish(m: Any) -> Rule:  # x tanh(softplus x);  d/dx = t + x s(x) (1 - t^2)
    def vjp(g: Any, x: Any, out: Any) -> Any:
        t = m.tanh(_stable_softplus(m, x))
        return g * (t + x * m.sigmoid(x) * (1 - t * t))

    return Rule(lambda x: x * m.tanh(_stable_softplus(m, x)), vjp)


def _softsign(m: Any) -> Rule:
    return Rule(lambda x: x / (1 + m.abs(x)),
                lambda g, x, out: g / ((1 + m.abs(x)) * (1 + m.abs(x))))


# torch's hardsigmoid backward multiplies by 1/6 rounded to float32, in float64 too
_SIXTH_FLOAT32 = struct.unpack("f", struct.pack("f", 1 / 6))[0]


def _hardsigmoid(m: Any) -> Rule:  # x/6 + 1/2 on (-3, 3), 0 and 1 outside
    return Rule(lambda x: m.where(x <= -3, 0.0, m.where(x >= 3, 1.0, x / 6 + 0.5)),
                lambda g, x, out: g * m.where(x > -3, m.where(x < 3, _SIXTH_FLOAT32, 0.0), 0.0))


def _hardswish(m: Any) -> Rule:  # x (x + 3) / 6 on (-3, 3), 0 below, x above
    return Rule(lambda x: m.where(x <= -3, 0.0, m.where(x >= 3, x, x * (x + 3) / 6)),
                lambda g, x, out: g * m.where(x < -3, 0.0, m.where(x <= 3, x / 3 + 0.5, 1.0)))


def _logsigmoid(m: Any) -> Rule:  # -softplus(-x);  d/dx = 1 - s(x) = s(-x)
    return Rule(lambda x: -_stable_softplus(m, -x), lambda g, x, out: g * m.sigmoid(-x))


def _hardtanh(m: Any, min_val: float = -1.0, max_val: float = 1.0) -> Rule:
    """x clipped to [min_val, max_val]; d/dx = 1 strictly inside (0 at the bounds, torch's)."""
    return Rule(lambda x: m.clip(x, min_val, max_val),
                lambda g, x, out: g * m.where(x > min_val, m.where(x < max_val, 1.0, 0.0), 0.0))


def _relu6(m: Any) -> Rule:
    return _hardtanh(m, 0.0, 6.0)


def _tanhshrink(m: Any) -> Rule:
    return Rule(lambda x: x - m.tanh(x), lambda g, x, out: g * m.tanh(x) * m.tanh(x))


def _softshrink(m: Any, lambd: float = 0.5) -> Rule:  # moved toward 0 by lambd, 0 within
    return Rule(lambda x: m.where(x > lambd, x - lambd, m.where(x < -lambd, x + lambd, 0.0)),
                lambda g, x, out: g * m.where(m.abs(x) > lambd, 1.0, 0.0))


def _hardshrink(m: Any, lambd: float = 0.5) -> Rule:  # 0 within lambd of 0
    return Rule(lambda x: m.where(m.abs(x) > lambd, x, 0.0),
                lambda g, x, out: g * m.where(m.abs(x) > lambd, 1.0, 0.0))


def _no_gradient(forward: str) -> Any:
    """A piecewise-constant function: its derivative is 0 wherever it exists (torch's)."""
    def rule(m: Any) -> Rule:
        return Rule(getattr(m, forward), lambda g, x, out: m.zeros_like(g))

    return rule


OPS = table(
    Op("exp", _exp, "exp({0})", "{out.data} * {out.grad}", "e^x;  d/dx = e^x", _same("exp"),
       quiet=True, probe_at=0.7, edge_points=(-800.0, 700.0), scalar=True, probe_required=True),
    Op("log", _log, "log({0})", "{out.grad} / {0.data}", "ln x;  d/dx = 1/x", _same("log"),
       quiet=True, probe_at=1.7, edge_points=(1e-9, 1e-300), edge_probe="log-small",
       domain=(0.1, 3.0), scalar=True, probe_required=True),
    Op("tanh", _tanh, "tanh({0})", "(1 - {out.data}**2) * {out.grad}",
       "tanh x;  d/dx = 1 - tanh(x)^2", _same("tanh", "Tanh", "tanh"), probe_at=0.6,
       edge_points=(30.0, -30.0, 360.0, -360.0, 800.0, -800.0), scalar=True, probe_required=True),
    Op("relu", _relu, "relu({0})", "({out.data} > 0) * {out.grad}",
       "max(0, x);  d/dx = 1 where x > 0, else 0 (also at 0, as PyTorch)",
       _same("relu", "ReLU", "relu", inplace_arg=True), dtype="keep", scalar_name="ReLU",
       probe_at=0.8, scalar=True, probe_required=True),
    Op("sigmoid", _sigmoid, "sigmoid({0})", "{out.data} * (1 - {out.data}) * {out.grad}",
       "1 / (1 + e^-x);  d/dx = s(1 - s)", _same("sigmoid", "Sigmoid", "sigmoid"),
       probe_at=-0.4, edge_points=(40.0, -40.0, 800.0, -800.0), scalar=True, probe_required=True),
    Op("sin", _sin, "sin({0})", "cos({0.data}) * {out.grad}", "sin x;  d/dx = cos x",
       _same("sin"), scalar=True),
    Op("cos", _cos, "cos({0})", "-sin({0.data}) * {out.grad}", "cos x;  d/dx = -sin x",
       _same("cos"), scalar=True),
    Op("sqrt", _sqrt, "sqrt({0})", "{out.grad} / (2 * {out.data})",
       "sqrt x;  d/dx = 1 / (2 sqrt x)", _same("sqrt"), quiet=True, domain=(0.1, 3.0),
       scalar=True),
    Op("abs", _abs, "abs({0})", "sign({0.data}) * {out.grad}",
       "|x|;  d/dx = sign(x) (0 at 0, as PyTorch)", _same("abs"), dtype="keep",
       operators=("__abs__",), scalar=True),
    Op("softplus", _softplus, "softplus({0})", "sigmoid({0.data}) * {out.grad}",
       "log(1 + e^x), smooth relu (torch's beta and threshold);  d/dx = sigmoid(x)",
       Torch(module="Softplus", functional="softplus"),
       params=(("beta", 1.0), ("threshold", 20.0)), dtype="float only", probe_at=0.3,
       edge_points=(800.0, -800.0), scalar=True),
    Op("neg", _neg, "-{0}", "-{out.grad}", "-x;  d/dx = -1",
       Torch("neg", "neg", "neg_"), dtype="keep", operators=("__neg__",)),
    Op("tan", _tan, "tan({0})", "(1 + {out.data}**2) * {out.grad}",
       "tan x;  d/dx = 1 + tan(x)^2", _same("tan"), quiet=True, domain=(-1.2, 1.2)),
    Op("log10", _log10, "log10({0})", "{out.grad} / ({0.data} * ln 10)",
       "log10 x;  d/dx = 1 / (x ln 10)", _same("log10"), quiet=True, domain=(0.1, 3.0)),
    Op("log2", _log2, "log2({0})", "{out.grad} / ({0.data} * ln 2)",
       "log2 x;  d/dx = 1 / (x ln 2)", _same("log2"), quiet=True, domain=(0.1, 3.0)),
    Op("log1p", _log1p, "log1p({0})", "{out.grad} / (1 + {0.data})",
       "ln(1 + x);  d/dx = 1 / (1 + x)", _same("log1p"), quiet=True, domain=(-0.9, 3.0)),
    Op("expm1", _expm1, "expm1({0})", "({out.data} + 1) * {out.grad}",
       "e^x - 1;  d/dx = e^x", _same("expm1"), quiet=True),
    Op("exp2", _exp2, "exp2({0})", "{out.data} * ln 2 * {out.grad}",
       "2^x;  d/dx = 2^x ln 2", _same("exp2"), quiet=True),
    Op("rsqrt", _rsqrt, "rsqrt({0})", "-{out.data}**3 / 2 * {out.grad}",
       "1 / sqrt x;  d/dx = -x^(-3/2) / 2", _same("rsqrt"), quiet=True, domain=(0.1, 3.0)),
    Op("erf", _erf, "erf({0})", "2/sqrt(pi) * exp(-{0.data}**2) * {out.grad}",
       "erf x;  d/dx = 2/sqrt(pi) e^(-x^2)", _same("erf"), quiet=True),
    Op("asin", _asin, "asin({0})", "{out.grad} / sqrt(1 - {0.data}**2)",
       "arcsin x;  d/dx = 1 / sqrt(1 - x^2)", _same("asin"), quiet=True, domain=(-0.9, 0.9)),
    Op("acos", _acos, "acos({0})", "-{out.grad} / sqrt(1 - {0.data}**2)",
       "arccos x;  d/dx = -1 / sqrt(1 - x^2)", _same("acos"), quiet=True, domain=(-0.9, 0.9)),
    Op("atan", _atan, "atan({0})", "{out.grad} / (1 + {0.data}**2)",
       "arctan x;  d/dx = 1 / (1 + x^2)", _same("atan"), quiet=True),
    Op("sinh", _sinh, "sinh({0})", "cosh({0.data}) * {out.grad}", "sinh x;  d/dx = cosh x",
       _same("sinh"), quiet=True),
    Op("cosh", _cosh, "cosh({0})", "sinh({0.data}) * {out.grad}", "cosh x;  d/dx = sinh x",
       _same("cosh"), quiet=True),
    Op("reciprocal", _reciprocal, "1 / {0}", "-{out.data}**2 * {out.grad}",
       "1/x;  d/dx = -1/x^2", _same("reciprocal"), quiet=True, domain=(0.2, 3.0)),
    Op("square", _square, "{0}**2", "2 * {0.data} * {out.grad}", "x^2;  d/dx = 2x",
       _same("square"), dtype="keep"),
    Op("sign", _no_gradient("sign"), "sign({0})", "0", "-1, 0 or 1;  d/dx = 0",
       _same("sign"), dtype="keep", smooth=False),
    Op("floor", _no_gradient("floor"), "floor({0})", "0", "largest integer <= x;  d/dx = 0",
       _same("floor"), dtype="keep", smooth=False),
    Op("ceil", _no_gradient("ceil"), "ceil({0})", "0", "smallest integer >= x;  d/dx = 0",
       _same("ceil"), dtype="keep", smooth=False),
    Op("trunc", _no_gradient("trunc"), "trunc({0})", "0", "x rounded toward 0;  d/dx = 0",
       _same("trunc"), dtype="keep", smooth=False),
    Op("frac", _frac, "frac({0})", "{out.grad}", "x - trunc(x), the fractional part;  d/dx = 1",
       _same("frac"), dtype="float only", smooth=False),
    Op("leaky_relu", _leaky_relu, "leaky_relu({0})",
       "(1 if {0.data} > 0 else 0.01) * {out.grad}",
       "x above 0, 0.01 x below;  d/dx = 1 or negative_slope",
       _activation("leaky_relu", "LeakyReLU"), params=(("negative_slope", 0.01),),
       dtype="float only", smooth=False),
    Op("elu", _elu, "elu({0})", "(1 if {0.data} > 0 else {out.data} + 1) * {out.grad}",
       "x above 0, alpha (e^x - 1) below;  d/dx = 1 or out + alpha",
       _activation("elu", "ELU"), params=(("alpha", 1.0),), dtype="float only", quiet=True,
       smooth=False),
    Op("selu", _selu, "selu({0})", "1.0507 * (1 if {0.data} > 0 else 1.6733 e^{0.data}) * "
       "{out.grad}", "scale * elu(x, alpha) with torch's SELU constants",
       _activation("selu", "SELU", function=True), dtype="float only", quiet=True,
       smooth=False),
    Op("celu", _celu, "celu({0})", "(1 if {0.data} > 0 else e^{0.data}) * {out.grad}",
       "x above 0, alpha (e^(x/alpha) - 1) below;  d/dx = 1 or e^(x/alpha)",
       _activation("celu", "CELU", function=True), params=(("alpha", 1.0),),
       dtype="float only", quiet=True, smooth=False),
    Op("silu", _silu, "silu({0})", "s(1 + {0.data}(1 - s)) * {out.grad}, s = sigmoid({0.data})",
       "x sigmoid(x) (swish);  d/dx = s (1 + x (1 - s))", _activation("silu", "SiLU"),
       dtype="float only"),
    Op("mish", _mish, "mish({0})", "(t + {0.data} sigmoid({0.data})(1 - t^2)) * {out.grad}, "
       "t = tanh(softplus({0.data}))", "x tanh(softplus x);  d/dx = t + x s(x) (1 - t^2)",
       _activation("mish", "Mish"), dtype="float only", quiet=True),
    Op("softsign", _softsign, "softsign({0})", "{out.grad} / (1 + |{0.data}|)**2",
       "x / (1 + |x|);  d/dx = 1 / (1 + |x|)^2",
       _activation("softsign", "Softsign", inplace_arg=False), smooth=False),
    Op("hardsigmoid", _hardsigmoid, "hardsigmoid({0})",
       "(1/6 if -3 < {0.data} < 3 else 0) * {out.grad}",
       "x/6 + 1/2 clipped to [0, 1];  d/dx = 1/6 inside", _activation("hardsigmoid",
                                                                        "Hardsigmoid"),
       dtype="float only", domain=(-4.0, 4.0), smooth=False),
    Op("hardswish", _hardswish, "hardswish({0})",
       "(0 if {0.data} < -3 else {0.data}/3 + 1/2 if {0.data} <= 3 else 1) * {out.grad}",
       "x hardsigmoid(x);  d/dx = x/3 + 1/2 inside", _activation("hardswish", "Hardswish"),
       dtype="float only", domain=(-4.0, 4.0), smooth=False),
    Op("hardtanh", _hardtanh, "hardtanh({0})", "(1 if -1 < {0.data} < 1 else 0) * {out.grad}",
       "x clipped to [min_val, max_val];  d/dx = 1 inside", _activation("hardtanh", "Hardtanh"),
       params=(("min_val", -1.0), ("max_val", 1.0)), dtype="keep", smooth=False),
    Op("relu6", _relu6, "relu6({0})", "(1 if 0 < {0.data} < 6 else 0) * {out.grad}",
       "x clipped to [0, 6];  d/dx = 1 inside", _activation("relu6", "ReLU6"), dtype="keep",
       domain=(-2.0, 8.0), smooth=False),
    Op("logsigmoid", _logsigmoid, "logsigmoid({0})", "sigmoid(-{0.data}) * {out.grad}",
       "log(sigmoid x) = -softplus(-x);  d/dx = sigmoid(-x)",
       _activation("logsigmoid", "LogSigmoid", inplace_arg=False), dtype="float only",
       quiet=True, edge_points=(800.0, -800.0)),
    Op("tanhshrink", _tanhshrink, "tanhshrink({0})", "tanh({0.data})**2 * {out.grad}",
       "x - tanh x;  d/dx = tanh(x)^2", _activation("tanhshrink", "Tanhshrink",
                                                     inplace_arg=False)),
    Op("softshrink", _softshrink, "softshrink({0})",
       "(1 if |{0.data}| > 0.5 else 0) * {out.grad}",
       "x moved toward 0 by lambd, 0 within it;  d/dx = 1 outside",
       _activation("softshrink", "Softshrink", inplace_arg=False), params=(("lambd", 0.5),),
       dtype="float only", smooth=False),
    Op("hardshrink", _hardshrink, "hardshrink({0})",
       "(1 if |{0.data}| > 0.5 else 0) * {out.grad}", "x, 0 within lambd of 0;  d/dx = 1 outside",
       Torch("hardshrink", "hardshrink", module="Hardshrink", functional="hardshrink"),
       params=(("lambd", 0.5),), dtype="float only", smooth=False),
)
"""Every registry op by name, in install order."""

# The fused ops: one hand-written kernel each (forward and backward in one node).
FUSED = (
    Fused("softmax", "micrograd.tensors.functional:softmax",
          Torch("softmax", "softmax", module="Softmax", functional="softmax"),
          "e^x / sum e^x along dim"),
    Fused("log_softmax", "micrograd.tensors.functional:log_softmax",
          Torch("log_softmax", "log_softmax", module="LogSoftmax", functional="log_softmax"),
          "x - logsumexp(x) along dim"),
    Fused("cross_entropy", "micrograd.tensors.losses:cross_entropy",
          Torch(module="CrossEntropyLoss", functional="cross_entropy"),
          "-log softmax(x)[target], averaged"),
    Fused("layer_norm", "micrograd.tensors.normalization:layer_norm",
          Torch("layer_norm", module="LayerNorm", functional="layer_norm"),
          "(x - mean) / sqrt(var + eps) * weight + bias over the last dims"),
    Fused("batch_norm", "micrograd.tensors.normalization:batch_norm",
          Torch("batch_norm", module="BatchNorm1d", functional="batch_norm"),
          "(x - batch mean) / sqrt(batch var + eps) * weight + bias"),
    Fused("linear", "micrograd.tensors.functional:linear",
          Torch(module="Linear", functional="linear"), "x W^T + b"),
    Fused("gelu", "micrograd.tensors.functional:gelu",
          Torch(module="GELU", functional="gelu"), "x Phi(x)"),
)


@functools.lru_cache(maxsize=256)
def rule_at(name: str, math: Any, params: tuple[float, ...] = ()) -> Rule:
    """Op `name`'s rule on namespace `math` at these parameters (default: its own), made
    once and kept: the engines call it per op only when a call gives parameters."""
    entry = OPS[name]
    values = entry.defaults()
    values.update(zip(values, params, strict=False))
    return entry.rule(math, **values)


def scalar_ops() -> list[Op]:
    """The entries Value has as methods, in install order."""
    return [entry for entry in OPS.values() if entry.scalar]


def probed_ops() -> list[Op]:
    """The entries the checker probes (they have a probe point), in install order."""
    return [entry for entry in OPS.values() if entry.probe_at is not None]
