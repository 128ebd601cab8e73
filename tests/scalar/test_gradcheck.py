"""gradcheck: the textbook's examples pass, and a wrong derivative is reported by argument."""

from __future__ import annotations

import math

import pytest

from micrograd.engine import Value, define_op
from micrograd.gradcheck import GradcheckError, gradcheck, numerical_grad


@pytest.mark.parametrize(
    "f, args",
    [
        (lambda a, b: a * b, [2.0, -3.0]),
        (lambda a: a.tanh(), [-1.2]),
        (lambda a, b: a / b + (a * b).exp(), [1.2, 0.7]),
    ],
    ids=["mul", "tanh", "div-exp"],
)
def test_textbooks_three_examples_pass(f, args):
    assert gradcheck(f, [Value(x) for x in args]) is True


@pytest.mark.parametrize(
    "f, x",
    [
        (lambda a: a + 2.5, 0.3),
        (lambda a: 3.0 - a, 0.3),
        (lambda a: a * a * a, -0.8),
        (lambda a: a / 1.7, 0.9),
        (lambda a: a**3.5, 1.3),
        (lambda a: a.exp(), 0.4),
        (lambda a: a.log(), 2.2),
        (lambda a: a.tanh(), 0.5),
        (lambda a: a.relu() * a, 0.6),
        (lambda a: a.sigmoid(), -0.7),
        (lambda a: (a.sin() + a.cos()) * a.sqrt(), 1.1),
        (lambda a: abs(a) ** 2, -1.5),
    ],
)
def test_every_op_passes(f, x):
    assert gradcheck(f, [Value(x)])


def test_numerical_grad_is_a_central_difference():
    # d/da (a*b) = b and d/db = a; a central difference is exact for a bilinear function
    args = [Value(2.0), Value(-3.0)]
    assert numerical_grad(lambda a, b: a * b, args, 0) == pytest.approx(-3.0, abs=1e-10)
    assert numerical_grad(lambda a, b: a * b, args, 1) == pytest.approx(2.0, abs=1e-10)
    # and for tanh it is 1 - tanh^2 to about h^2
    expected = 1 - math.tanh(-1.2) ** 2
    assert numerical_grad(lambda a: a.tanh(), [Value(-1.2)], 0) == pytest.approx(expected, abs=1e-9)


def test_numerical_grad_leaves_the_arguments_alone():
    args = [Value(1.5)]
    numerical_grad(lambda a: a * a, args, 0)
    assert args[0].data == 1.5 and args[0].grad == 0.0


def test_wrong_derivative_is_reported_with_argument_analytic_numeric_and_error():
    # f(x, y) = x^2 y, but the second partial is wrong: it should be x^2, it says x^2 + 1
    wrong = define_op("wrong_x2y", lambda x, y: x * x * y, lambda x, y: (2 * x * y, x * x + 1))
    with pytest.raises(GradcheckError) as caught:
        gradcheck(wrong, [Value(1.5), Value(-2.0)])
    error = caught.value
    assert isinstance(error, AssertionError)
    message = str(error)
    assert "gradcheck failed for wrong_x2y(1.5, -2.0)" in message
    assert "1 of 2 gradients disagree" in message
    assert "argument 1 (data=-2.0): analytic 3.25, numeric 2.25" in message
    assert "argument 0" not in message
    [(index, analytic, numeric, err)] = error.mismatches
    assert index == 1 and analytic == 3.25
    assert numeric == pytest.approx(2.25, abs=1e-9) and err == pytest.approx(1.0, abs=1e-9)


def test_nan_gradient_is_a_failure_not_a_pass():
    nan_grad = define_op("nan_grad", lambda x: 2 * x, lambda x: math.nan)
    with pytest.raises(GradcheckError, match="analytic nan"):
        gradcheck(nan_grad, [Value(1.0)])


def test_tolerance_is_absolute_as_in_the_textbook_with_optional_rtol():
    slightly_off = define_op("slightly_off", lambda x: 1000 * x, lambda x: 1000.001)
    with pytest.raises(GradcheckError):
        gradcheck(slightly_off, [Value(1.0)])  # |1000.001 - 1000| = 1e-3 > 1e-5
    assert gradcheck(slightly_off, [Value(1.0)], rtol=1e-5)  # within 1e-5 relative


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: gradcheck(lambda a: a, [2.0]), TypeError, "argument 0 must be a Value, got float"),
        (lambda: gradcheck(lambda a: a, Value(2.0)), TypeError, "args must be a list of Values"),
        (lambda: gradcheck(lambda a: 3.0, [Value(2.0)]), TypeError, "f must return a Value"),
        (lambda: gradcheck(lambda a: a, [Value(math.inf)]), ValueError, "must be finite"),
        (lambda: numerical_grad(lambda a: a, [Value(1.0)], 1), IndexError, "out of range"),
    ],
)
def test_bad_input_is_explained(call, error, message):
    with pytest.raises(error, match=message):
        call()
