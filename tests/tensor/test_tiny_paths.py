"""The cheap paths taken for tiny tensors and common cases give what the general ones give:
torch 2.13 is the oracle (values, gradients, errors)."""

import numpy as np
import pytest

import micrograd.torch as mtorch

torch = pytest.importorskip("torch")


def _pair(array, requires_grad=False):
    ours = mtorch.from_numpy(array.copy())
    theirs = torch.from_numpy(array.copy())
    ours.requires_grad = theirs.requires_grad = requires_grad
    return ours, theirs


@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (1, 4), (3, 1), (2, 3, 4), (2, 1, 1)])
def test_masked_fill_broadcasts_the_mask_as_torch_does(mask_shape):
    # (2, 3, 4): torch broadcasts x up to a bigger mask too; x's gradient is summed back
    rng = np.random.default_rng(0)
    x, tx = _pair(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    mask = rng.random(mask_shape) < 0.5
    out = x.masked_fill(mtorch.from_numpy(mask), float("-inf"))
    tout = tx.masked_fill(torch.from_numpy(mask), float("-inf"))
    np.testing.assert_array_equal(out.detach().numpy(), tout.detach().numpy())
    assert out.shape == tout.shape
    g = rng.standard_normal(tuple(tout.shape)).astype(np.float32)
    out.backward(mtorch.from_numpy(g))
    tout.backward(torch.from_numpy(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("mask_shape", [(3, 3), (5,), (2, 2, 4)])
def test_masked_fill_refuses_a_mask_that_does_not_fit(mask_shape):
    x = mtorch.zeros(3, 4)
    mask = np.zeros(mask_shape, dtype=bool)
    with pytest.raises(RuntimeError):  # torch's verdict on the same shapes
        torch.zeros(3, 4).masked_fill(torch.from_numpy(mask), 1.0)
    with pytest.raises(ValueError, match="cannot be broadcast with the tensor's"):
        x.masked_fill(mtorch.from_numpy(mask), 1.0)


@pytest.mark.parametrize(("shape", "x_shape"), [
    ((1,), (5,)), ((5,), (5,)), ((2, 1), (5,)),  # 1-d data: (2, 1) makes a (2, 5) result
    ((1, 5), (3, 5)), ((3, 1), (3, 5)), ((1, 1), (3, 5)), ((3, 5), (3, 5)), ((5,), (3, 5)),
    ((1, 1, 5), (2, 3, 5)), ((2, 1, 1), (2, 3, 5)), ((1,), (2, 3, 5))])
def test_parameters_broadcast_against_data_get_torchs_gradients(shape, x_shape):
    # unbroadcast: its 1-d and 2-d paths (stretched rows, columns, both, neither), a leading
    # axis added, and the general path for 3-d
    rng = np.random.default_rng(1)
    x, tx = _pair(rng.standard_normal(x_shape).astype(np.float32))
    p, tp = _pair(rng.standard_normal(shape).astype(np.float32), requires_grad=True)
    loss = (p * x + p).pow(2).sum()
    tloss = (tp * tx + tp).pow(2).sum()
    loss.backward()
    tloss.backward()
    np.testing.assert_allclose(loss.item(), tloss.item(), rtol=1e-6)
    np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-5)


def test_power_of_data_and_sum_backward_match_torch():
    # x ** 2 and x ** 3 of a tensor without grad (no backward step), .sum() without a dim
    rng = np.random.default_rng(2)
    x, tx = _pair(np.linspace(-np.pi, np.pi, 2000, dtype=np.float32))
    w, tw = _pair(rng.standard_normal(1).astype(np.float32), requires_grad=True)
    y = w * x ** 2 + x ** 3
    ty = tw * tx ** 2 + tx ** 3
    assert not (x ** 2).requires_grad
    np.testing.assert_array_equal((x ** 3).numpy(), (tx ** 3).numpy())
    y.pow(2).sum().backward()
    ty.pow(2).sum().backward()
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-5)
    z, tz = _pair(rng.standard_normal((2, 3)).astype(np.float32), requires_grad=True)
    s, ts = z.sum(), tz.sum()
    assert s.shape == ts.shape == ()
    s.backward()
    ts.backward()
    np.testing.assert_array_equal(z.grad.numpy(), tz.grad.numpy())


IN_PLACE = {"-=": ("__isub__", "sub_"), "+=": ("__iadd__", "add_"),
            "*=": ("__imul__", "mul_"), "/=": ("__itruediv__", "div_")}


@pytest.mark.parametrize("shape", [(), (1,)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("symbol", list(IN_PLACE))
def test_one_number_parameter_updates_in_place_as_torch_does(dtype, symbol, shape):
    # `p -= lr * p.grad` on a one-element parameter (W10-poly's) takes a scalar path: the
    # same bits as torch's, values that overflow, underflow or divide by zero included
    ours_name, torch_name = IN_PLACE[symbol]
    with np.errstate(over="ignore"):  # 1e30 is inf in float16
        values = np.array([0.7, 1e-7, -3.0, 6e4, 0.0, 1e-30], dtype=dtype)
        others = np.array([3e-7, 0.3, 1e4, 6e4, 0.0, 1e30], dtype=dtype)
    for value, other in zip(values, others, strict=True):
        p, tp = _pair(np.full(shape, value), requires_grad=True)
        o, to = _pair(np.full(shape, other))
        with mtorch.no_grad(), np.errstate(all="ignore"):
            assert getattr(p, ours_name)(o) is p
        with torch.no_grad():
            getattr(tp, torch_name)(to)
        assert str(p.dtype) == str(tp.dtype) and p.shape == tp.shape == shape
        np.testing.assert_array_equal(p.detach().numpy(), tp.detach().numpy())
        assert p._version == tp._version == 1


def test_one_number_update_of_read_only_memory_raises_and_changes_nothing():
    array = np.ones(1, np.float32)
    array.flags.writeable = False
    p = mtorch.from_numpy(array)
    with pytest.raises(ValueError, match="read-only"):
        p -= mtorch.tensor(0.5)
    assert p.item() == 1.0
