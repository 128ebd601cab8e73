"""The public op kernel (micrograd.tensors.function): ops written on it match PyTorch.

Each test defines a new op the way a contributor would -- a forward on arrays and one
vector-Jacobian product per input -- and twins it against the torch function that computes
the same thing, forward and backward, through the shared twin helper. Broadcast inputs check
that the kernel sums each VJP back to its input's shape without the op doing it.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.tensors as mt
from micrograd.tensors import function as kernel

torch = require_module("torch")
from test_tensor_ops import DTYPES, make_array, twin  # noqa: E402  (needs torch first)


def _softplus_vjp(g, x, out):
    return g / (1 + np.exp(-x))  # d/dx log(1 + e^x) = sigmoid(x)


softplus = kernel.define_unary("softplus", lambda x: np.logaddexp(0, x), _softplus_vjp)


@pytest.mark.parametrize("dtype", DTYPES)
def test_define_unary_op_matches_torch_softplus(dtype):
    x = make_array(np.random.default_rng(0), (3, 4), dtype, low=-5, high=5)
    twin([x], torch.nn.functional.softplus, softplus, dtype)


hypot = kernel.define_binary(
    "hypot", np.hypot, lambda g, x, y, out: g * x / out, lambda g, x, y, out: g * y / out)


@pytest.mark.parametrize("dtype", DTYPES)
def test_define_binary_op_unbroadcasts_each_gradient_as_torch(dtype):
    rng = np.random.default_rng(1)
    x, y = make_array(rng, (3, 1), dtype, 0.5, 2), make_array(rng, (4,), dtype, 0.5, 2)
    twin([x, y], torch.hypot, hypot, dtype)


def test_define_binary_op_takes_a_python_number_as_torch():
    x = make_array(np.random.default_rng(2), (5,), np.float32, 0.5, 2)
    twin([x], lambda t: torch.hypot(t, torch.tensor(3.0)), lambda t: hypot(t, 3.0), np.float32)


def fused_multiply_add(a, b, c):
    """a * b + c as one node written with apply: one VJP per input, no unbroadcasting."""
    A, B = a.numpy(), b.numpy()
    vjps = (lambda g: g * B, lambda g: g * A, None)
    return kernel.apply("fma", A * B + c.numpy(), (a, b, c), vjps)


@pytest.mark.parametrize("dtype", DTYPES)
def test_apply_with_three_broadcast_inputs_matches_torch(dtype):
    rng = np.random.default_rng(3)
    a, b, c = (make_array(rng, s, dtype) for s in ((3, 1), (1, 4), (4,)))
    twin([a, b, c], lambda a, b, c: a * b + c, fused_multiply_add, dtype)


def test_pass_through_vjps_give_each_leaf_its_own_gradient_array():
    x, y = mt.tensor([1.0, 2.0], requires_grad=True), mt.tensor([3.0, 4.0], requires_grad=True)
    out = kernel.apply("add", x.numpy() + y.numpy(), (x, y), (None, None))
    out.backward(np.array([5.0, 6.0]))
    np.testing.assert_array_equal(x.grad, [5.0, 6.0])  # d(x+y)/dx = 1, times the seed
    x.grad[0] = 100.0  # editing one leaf's gradient must not change the other's
    np.testing.assert_array_equal(y.grad, [5.0, 6.0])


def test_apply_records_nothing_under_no_grad_or_without_grad_inputs():
    x = mt.tensor([1.0, 2.0], requires_grad=True)
    with mt.no_grad():
        assert kernel.unary(x, x.numpy() * 2, "twice", lambda g: 2 * g).requires_grad is False
    constant = mt.tensor([1.0, 2.0])
    out = kernel.apply("twice", constant.numpy() * 2, (constant,), (lambda g: 2 * g,))
    assert out.requires_grad is False and out.is_leaf


def test_apply_refuses_a_vjp_count_that_differs_from_the_inputs():
    x = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="1 inputs need 1 VJPs, got 2"):
        kernel.apply("bad", x.numpy(), (x,), (None, None))


def test_unbroadcast_sums_added_and_stretched_axes():
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(kernel.unbroadcast(g, (3, 1)),
                                  g.sum(axis=0).sum(axis=1, keepdims=True))
    np.testing.assert_array_equal(kernel.unbroadcast(g, (4,)), g.sum(axis=(0, 1)))


def test_method_installs_an_op_on_tensor():
    try:
        kernel.method("softplus_for_test")(softplus)
        t = mt.tensor([0.0], requires_grad=True)
        out = t.softplus_for_test()
        out.backward()
        assert out.item() == pytest.approx(np.log(2.0))  # log(1 + e^0)
        assert t.grad[0] == pytest.approx(0.5)  # sigmoid(0)
    finally:
        delattr(mt.Tensor, "softplus_for_test")


def test_comparisons_and_in_place_updates_are_generated_for_every_operator():
    t = mt.tensor([1.0, 2.0, 3.0])
    for symbol, op in [("==", "__eq__"), ("!=", "__ne__"), ("<", "__lt__"), ("<=", "__le__"),
                       (">", "__gt__"), (">=", "__ge__")]:
        expected = getattr(torch.tensor([1.0, 2.0, 3.0]), op)(2.0).numpy()
        np.testing.assert_array_equal(getattr(t, op)(2.0).data, expected, err_msg=symbol)
    p = mt.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="in-place"):
        p *= 2.0
    with mt.no_grad():
        p += 1.0
        p /= 2.0
    np.testing.assert_array_equal(p.data, [1.0, 1.5])



def test_ops_are_attached_by_install_and_a_later_method_at_once():
    from micrograd.tensors import function

    # every op the op modules defined went on the class in install()'s one step
    assert function._pending == [] and function._assembled
    assert "__matmul__" in vars(mt.Tensor) and isinstance(vars(mt.Tensor)["T"], property)

    @function.method("twice_for_this_test")
    def twice(t):
        return t * 2

    try:
        x = function.leaf(np.array([1.5, -2.0]))
        assert x.twice_for_this_test().tolist() == [3.0, -4.0]
    finally:
        delattr(mt.Tensor, "twice_for_this_test")
