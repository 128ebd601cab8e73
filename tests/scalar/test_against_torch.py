"""Every op of Value, forward and backward, twinned with PyTorch float64 and central differences.

One catalogue of ops and one twin helper: each op is written once as a lambda that works on
both a `Value` and a `torch.Tensor` (they share operator syntax and method names), so the
very same expression is evaluated by both engines.
"""

from __future__ import annotations

import math

import pytest
from conftest import (
    assert_matches_central_difference,
    assert_twin,
    require_module,
)

from micrograd.engine import Value

torch = require_module("torch")  # test-only dependency (the `test` extra)

# name -> expression; each works on Values and on tensors alike
UNARY_OPS = {
    "neg": lambda a: -a,
    "add_number": lambda a: a + 3.5,
    "radd": lambda a: 2 + a,
    "sub_number": lambda a: a - 3.5,
    "rsub": lambda a: 2 - a,
    "mul_number": lambda a: a * -1.5,
    "rmul": lambda a: 2 * a,
    "div_number": lambda a: a / 4.0,
    "rtruediv": lambda a: 1 / a,
    "rpow": lambda a: 2 ** a,
    "pow_int": lambda a: a ** 3,
    "pow_negative_int": lambda a: a ** -2,
    "pow_half": lambda a: a ** 0.5,
    "pow_zero": lambda a: a ** 0,
    "exp": lambda a: a.exp(),
    "log": lambda a: a.log(),
    "tanh": lambda a: a.tanh(),
    "relu": lambda a: a.relu(),
    "sigmoid": lambda a: a.sigmoid(),
    "sin": lambda a: a.sin(),
    "cos": lambda a: a.cos(),
    "sqrt": lambda a: a.sqrt(),
    "abs": lambda a: abs(a),
    "abs_method": lambda a: a.abs(),
}
BINARY_OPS = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "truediv": lambda a, b: a / b,
    "pow_value": lambda a, b: a ** b,
}

# Smooth points, inside each op's domain and away from kinks: there central differences
# are a valid oracle too.
SMOOTH = (-2.5, -0.7, 0.4, 1.3, 3.0)
POSITIVE = (0.3, 1.0, 2.5, 7.0)
SMOOTH_POINTS = dict.fromkeys(UNARY_OPS, SMOOTH)
for name in ("log", "sqrt", "pow_half"):
    SMOOTH_POINTS[name] = POSITIVE
SMOOTH_PAIRS = [(-2.5, 1.5), (0.4, -3.0), (1.3, 0.25), (3.0, 2.0), (-0.7, -0.6)]
POW_PAIRS = [(0.5, 2.0), (1.7, -1.3), (3.0, 0.5), (2.0, 3.0)]  # base > 0 for d/dy = x**y log x

# Edge points: zeros, negatives, huge, tiny, infinities, nan. Only PyTorch is the oracle.
EDGE = (0.0, -0.0, -1.0, -8.0, 1.0, 1e-300, 20.0, -20.0, 1000.0, -1000.0, 1e308, -1e308,
        math.inf, -math.inf, math.nan)
EDGE_PAIRS = [(0.0, 0.0), (0.0, -1.0), (0.0, 2.0), (-8.0, 0.5), (-2.0, 3.0), (-2.0, 0.0),
              (1.0, 0.0), (5.0, 0.0), (1e308, 10.0), (-1e308, 3.0), (10.0, 1000.0),
              (0.5, -2000.0), (math.inf, -1.0), (math.nan, 1.0), (0.0, math.inf)]


# Where PyTorch itself departs from IEEE pow/derivative conventions, with the reason; these
# points are left out of the edge comparison (not silently: they are listed here).
KNOWN_TORCH_QUIRKS = {
    # torch computes x ** 0.5 as sqrt(x) and its derivative via rsqrt, so the sign of zero
    # and of infinity follow sqrt, while we follow C's pow(): pow(-inf, 0.5) = +inf and
    # 0.5 * pow(-0.0, -0.5) = +inf (torch: nan and -inf).
    ("pow_half", -0.0), ("pow_half", -math.inf),
    # relu(nan) is nan in both; torch lets the gradient through (threshold_backward tests
    # `x <= 0`), we send 0 (we test `x > 0`). Neither is more meaningful for a nan input.
    ("relu", math.nan),
}


def _is_quirk(name, x):
    return any(n == name and (x == q or (x != x and q != q)) and
               math.copysign(1, x) == math.copysign(1, q) for n, q in KNOWN_TORCH_QUIRKS)


UNARY_SMOOTH_CASES = [(name, x) for name in UNARY_OPS for x in SMOOTH_POINTS[name]]
BINARY_SMOOTH_CASES = [(name, pair) for name in BINARY_OPS
                       for pair in (POW_PAIRS if name == "pow_value" else SMOOTH_PAIRS)]


@pytest.mark.parametrize("name,x", UNARY_SMOOTH_CASES)
def test_unary_op_matches_torch_at_smooth_points(name, x):
    assert_twin(UNARY_OPS[name], [x])


@pytest.mark.parametrize("name,x", UNARY_SMOOTH_CASES)
def test_unary_op_gradient_matches_central_difference(name, x):
    assert_matches_central_difference(UNARY_OPS[name], [x])


@pytest.mark.parametrize("name,xs", BINARY_SMOOTH_CASES)
def test_binary_op_matches_torch_at_smooth_points(name, xs):
    assert_twin(BINARY_OPS[name], list(xs))


@pytest.mark.parametrize("name,xs", BINARY_SMOOTH_CASES)
def test_binary_op_gradient_matches_central_difference(name, xs):
    assert_matches_central_difference(BINARY_OPS[name], list(xs))


UNARY_EDGE_CASES = [(name, x) for name in UNARY_OPS for x in EDGE if not _is_quirk(name, x)]


@pytest.mark.parametrize("name,x", UNARY_EDGE_CASES, ids=repr)
def test_unary_op_matches_torch_at_edge_points(name, x):
    assert_twin(UNARY_OPS[name], [x])


@pytest.mark.parametrize("xs", EDGE_PAIRS, ids=repr)
@pytest.mark.parametrize("name", BINARY_OPS)
def test_binary_op_matches_torch_at_edge_points(name, xs):
    assert_twin(BINARY_OPS[name], list(xs))


def test_value_exponent_receives_gradient_for_base_and_exponent():
    # d(x**y)/dx = y x**(y-1) = 12, d(x**y)/dy = x**y ln x = 8 ln 2 at x=2, y=3
    x, y = Value(2.0), Value(3.0)
    (x ** y).backward()
    assert x.grad == pytest.approx(12.0, rel=1e-15)
    assert y.grad == pytest.approx(8 * math.log(2), rel=1e-15)


def test_a_node_used_by_several_ops_matches_torch():
    def expr(a, b):
        return (a * b + a.exp() / b - (a - b) ** 2).tanh() * a.sigmoid() + (a * a).sqrt()

    assert_twin(expr, [0.8, -1.7])
    assert_matches_central_difference(expr, [0.8, -1.7])
