"""The fix each diagnosis advises is the right one, not merely present.

An audit reversed the advice of a diagnosis (`+=` -> `=`) and no test failed: the
explanations were only checked to exist. Here the advice is checked against what the bug is:
accumulation advice must add (`+=`) and never assign a gradient, and the fixes that are code
are run (our own catalogue text, never a learner's) and compared with an independent oracle.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, getcontext

import numpy as np
import pytest

from micrograd.check.diagnoses import explain

ASSIGNED_GRAD = re.compile(r"\.grad\s*=(?!=)")  # `x.grad = ...`, not `+=` and not `==`

# diagnosis -> (a pattern its fix must contain, a pattern it must not contain)
ADVICE = {
    "grad-overwritten": (r"\.grad \+=", ASSIGNED_GRAD.pattern),
    "grad-assigned": (r"\.grad \+=", ASSIGNED_GRAD.pattern),
    "exp-grad-assigned": (r"\.grad \+= out\.data \* out\.grad", ASSIGNED_GRAD.pattern),
    "tensor-grad-overwritten": (r"\.grad \+=", ASSIGNED_GRAD.pattern),
    "matmul-grad-not-transposed": (r"out\.grad @ other\.data\.T", r"@ other\.data(?!\.T)"),
    "missing-radd": (r"__radd__ = __add__", r"__radd__ = __mul__"),
    "missing-rmul": (r"__rmul__ = __mul__", r"__rmul__ = __add__"),
    "backward-stored-none": (r"_backward = _backward(?!\()", r"_backward = _backward\(\)"),
    "mutable-default-children": (r"_children=\(\)", r"_children=\[\]"),
    "eq-without-hash": (r"__hash__ = object\.__hash__", r"__hash__ = None"),
    "no-seed-gradient": (r"self\.grad = 1\.0", r"self\.grad = 0"),
    "stale-intermediate-grads": (r"if v\._prev: v\.grad = 0\.0",
                                 r"for v in topo:\s*\n\s*v\.grad = 0"),
    "tanh-overflow": (r"math\.tanh", r"math\.exp\(2"),
    "recursion-limit": (r"stack", r"build_topo\(child\)"),
}


@pytest.mark.parametrize("diagnosis", sorted(ADVICE))
def test_the_fix_says_the_right_thing(diagnosis):
    must, must_not = ADVICE[diagnosis]
    fix = explain(diagnosis).fix
    assert re.search(must, fix), f"{diagnosis}: the fix lost {must!r}:\n{fix}"
    assert not re.search(must_not, fix), f"{diagnosis}: the fix advises {must_not!r}:\n{fix}"


def _code_of(fix: str) -> str:
    """The fix's leading block of code (its trailing comments dropped), up to the first line
    of prose after it."""
    lines = []
    for line in fix.splitlines():
        if lines and not line.startswith((" ", "def ", "s ", "t ")):
            break
        lines.append(line.split("#")[0].rstrip())
    return "\n".join(lines)


def test_the_unbroadcast_fix_sums_gradients_back_to_the_input_shape():
    namespace: dict = {}
    exec(_code_of(explain("missing-unbroadcast").fix), namespace)  # our catalogue's text
    unbroadcast = namespace["unbroadcast"]
    g = np.arange(24.0).reshape(2, 3, 4)
    # oracle: d(sum(x + b))/db by broadcasting rules -- the sum over the broadcast axes
    assert np.array_equal(unbroadcast(g, (4,)), g.sum(axis=(0, 1)))
    assert np.array_equal(unbroadcast(g, (3, 1)), g.sum(axis=(0, 2))[:, None])
    assert np.array_equal(unbroadcast(g, (2, 3, 4)), g)


@pytest.mark.parametrize("x", [-800.0, -30.0, -1e-3, 0.0, 2.5, 800.0])
def test_the_sigmoid_fix_is_finite_and_right_at_every_x(x):
    fix = _code_of(explain("sigmoid-overflow").fix)
    namespace = {"math": math, "x": x}
    exec(fix, namespace)  # our catalogue's text
    getcontext().prec = 60  # oracle: 1 / (1 + e^-x) in 60-digit decimals, then rounded
    expected = float(1 / (1 + (-Decimal(x)).exp()))
    assert namespace["s"] == pytest.approx(expected, rel=1e-14, abs=1e-300)
