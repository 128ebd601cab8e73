"""softplus, added as one registry entry: every spelling with torch's beta and threshold,
against PyTorch 2.13 (the shared table covers the default parameters)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mtorch
from micrograd import lecture
from micrograd.check import probes
from micrograd.engine import OPS, Value
from micrograd.viz.expr import evaluate_expression
from micrograd.viz.trace import trace

XS = [-30.0, -2.0, -0.3, 0.0, 0.4, 3.0, 9.5, 30.0]
PARAMS = [{}, {"beta": 2.0}, {"beta": 0.5, "threshold": 5.0}, {"threshold": 1.0}]


@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_functional_and_module_match_torch_with_beta_and_threshold(params):
    torch = require_module("torch")
    g = np.linspace(-1.0, 2.0, len(XS))
    ours = mtorch.tensor(XS, dtype=mtorch.float64, requires_grad=True)
    theirs = torch.tensor(XS, dtype=torch.float64, requires_grad=True)
    out = mtorch.nn.functional.softplus(ours, **params)
    ref = torch.nn.functional.softplus(theirs, **params)
    out.backward(mtorch.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)
    module, torch_module = mtorch.nn.Softplus(**params), torch.nn.Softplus(**params)
    np.testing.assert_allclose(module(mtorch.tensor(XS)).numpy(),
                               torch_module(torch.tensor(XS)).numpy(), rtol=1e-6)
    assert repr(module) == repr(torch_module)


@pytest.mark.parametrize("params", PARAMS, ids=str)
def test_value_softplus_matches_torch_with_beta_and_threshold(params):
    torch = require_module("torch")
    for x in XS:
        a = Value(x)
        out = a.softplus(**params)
        out.backward()
        t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
        ref = torch.nn.functional.softplus(t, **params)
        ref.backward()
        assert out.data == pytest.approx(ref.item(), rel=1e-12)
        assert a.grad == pytest.approx(t.grad.item(), rel=1e-12)


def test_softplus_does_not_overflow_where_the_textbook_formula_does():
    assert Value(800.0).softplus().data == 800.0     # log(1 + e^800): e^800 overflows
    assert Value(-800.0).softplus().data == 0.0
    assert mtorch.tensor([800.0]).softplus().item() == 800.0


def test_the_lecture_value_keeps_its_class_and_its_tanh():
    out = lecture.Value(0.5).softplus().tanh()
    s = math.log1p(math.exp(0.5))
    assert type(out) is lecture.Value
    assert out.data == (math.exp(2 * s) - 1) / (math.exp(2 * s) + 1)  # the lecture's tanh


def test_the_trace_and_the_parser_know_softplus():
    a = evaluate_expression("softplus(a) + a.softplus()", {"a": 0.5})
    assert a.data == pytest.approx(2 * math.log1p(math.exp(0.5)))
    assert OPS["softplus"].derivatives == ("sigmoid({0.data}) * {out.grad}",)
    y = Value(0.5).softplus()
    text = trace(y)
    assert "softplus" in text and "sigmoid(0.5" in text


def test_the_checker_probes_softplus_in_a_class_that_has_it():
    ids = [p.id for p in probes.engine_probes(True, lambda op: True)]
    assert {"softplus", "reuse-softplus", "softplus-range"} <= set(ids)
    lecture_only = [p.id for p in probes.engine_probes(True, lambda op: op != "softplus")]
    assert not any("softplus" in i for i in lecture_only)
    assert probes.evaluate("a.softplus()", {"a": 0.3}) == pytest.approx(math.log1p(math.exp(0.3)))
