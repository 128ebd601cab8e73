"""The in-place fills of ops/filling.py (fill_, copy_, normal_, uniform_, bernoulli_,
exponential_, random_) follow torch's in-place rules: torch's error on a parameter outside
no_grad(), a version bump, recorded by autograd on a tensor in a graph.

Each scenario is written once and run under PyTorch 2.13 and under micrograd (the
harness of test_tensor_semantics.py); values, gradients and errors must agree. Random
fills compare what does not depend on the numbers drawn (their own tests compare those).
"""

from __future__ import annotations

import numpy as np
import pytest
from test_tensor_semantics import Ours, assert_same, outcome

RANDOM_FILLS = {
    "normal_": lambda t: t.normal_(0.0, 1.0),
    "uniform_": lambda t: t.uniform_(-1.0, 1.0),
    "bernoulli_": lambda t: t.bernoulli_(0.5),
    "exponential_": lambda t: t.exponential_(2.0),
    "random_": lambda t: t.random_(0, 5),
}
FILLS = {
    "fill_": lambda t: t.fill_(3.0),
    "copy_": lambda t: t.copy_(t.detach() * 0 + 7.0),
    **RANDOM_FILLS,
}


@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_fill_on_a_parameter_outside_no_grad_raises_torchs_error(name):
    def scenario(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        FILLS[name](w)
        return [w]

    assert_same(scenario, "a leaf Variable that requires grad")


@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_fill_under_no_grad_changes_the_parameter_and_bumps_its_version(name):
    def scenario(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        view = w.detach()  # shares w's memory (and version counter), as in torch
        with lib.no_grad():
            FILLS[name](w)
        changed = w.detach() if name in ("fill_", "copy_") else w.detach() * 0
        return [changed, view - w.detach(),
                np.array([float(w._version), float(w.requires_grad), float(w.is_leaf)])]

    assert_same(scenario)


@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_fill_after_an_op_saved_the_tensor_makes_backward_raise_as_torch(name):
    def scenario(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = a * 1.0
        c = (b * b).sum()  # mul saved b
        with lib.no_grad():
            FILLS[name](b)
        c.backward()
        return [a.grad]

    assert_same(scenario, "modified by an inplace operation")


@pytest.mark.parametrize("name", sorted(FILLS))
def test_a_fill_on_a_tensor_in_a_graph_is_recorded_and_stops_the_old_gradient(name):
    """d/dx of sum(x * z) + sum(y) where y = x*2 is then refilled: the refilled y sends
    nothing back to x (fills ignore old values), the product still does."""

    def scenario(lib):
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        z = lib.tensor([0.5, 0.25, 2.0])
        y = x * 2
        FILLS[name](y)
        ((x * z).sum() + y.sum()).backward()
        return [x.grad, np.array([float(y.requires_grad), float(y.is_leaf)])]

    assert_same(scenario)


def test_fill_with_a_0d_tensor_that_requires_grad_sends_it_the_summed_gradient():
    def scenario(lib):
        v = lib.tensor(2.5, requires_grad=True)
        y = lib.tensor([0.0, 0.0, 0.0])
        y.fill_(v)
        (y * lib.tensor([1.0, 2.0, 4.0])).sum().backward()
        return [y, v.grad]

    assert_same(scenario)


def test_copy_from_a_tensor_that_requires_grad_sends_it_the_gradient_summed_back():
    def scenario(lib):
        src = lib.tensor([1.5, -0.5], requires_grad=True)
        dst = lib.tensor([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
        dst.copy_(src)  # broadcast over the 3 rows
        (dst * dst).sum().backward()
        return [dst, src.grad]

    assert_same(scenario)


def test_fills_on_a_read_only_expanded_view_refuse_with_a_hint():
    ours = outcome(lambda lib: [lib.tensor([1.0]).expand(3).fill_(0.0)], Ours)
    assert ours[0] == "RuntimeError" and "clone()" in ours[1]


def test_the_harness_fails_when_torch_and_micrograd_disagree():
    """The comparisons above can fail: a fill that differs between the two libraries, in
    value or in raising, is caught."""
    def differing_value(lib):
        w = lib.tensor([1.0, 2.0])
        return [w.fill_(3.0 if lib is Ours else 4.0)]

    def raising_in_one(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=lib is Ours)
        return [w.fill_(3.0)]

    with pytest.raises(AssertionError):
        assert_same(differing_value)
    with pytest.raises(AssertionError, match="micrograd raised"):
        assert_same(raising_in_one, "a leaf Variable that requires grad")
