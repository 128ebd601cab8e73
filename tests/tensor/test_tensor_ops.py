"""Every Tensor op, forward and backward, against PyTorch 2.13 -- through one twin helper.

`twin(arrays, torch_fn, our_fn)` builds PyTorch tensors and ours from the same numpy
arrays, runs both functions, compares the outputs, then backpropagates the same random
output gradient through both and compares every input's gradient and dtype. Shapes come
from Hypothesis: broadcasting pairs, 0-d and size-0 arrays; inputs are sometimes
non-contiguous (a transposed array), and both float32 and float64 are covered.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd
from micrograd.tensors import Tensor, cat, stack
from micrograd.tensors import functional as F

torch = require_module("torch")  # twins of torch: the module skips without it
require_module("hypothesis")
from hypothesis import given, settings  # noqa: E402 (after the check above)
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes  # noqa: E402

torch.set_num_threads(1)
DTYPES = [np.float64, np.float32]
TOLERANCE = {np.float64: dict(rtol=1e-9, atol=1e-11), np.float32: dict(rtol=2e-4, atol=2e-5)}
FEW = settings(max_examples=20, deadline=None)


def make_array(rng, shape, dtype, low=-2.0, high=2.0, transposed=False):
    """Random data of `shape`; transposed=True gives a non-contiguous view with that shape."""
    if transposed and len(shape) >= 2:
        return rng.uniform(low, high, shape[::-1]).astype(dtype).T
    return rng.uniform(low, high, shape).astype(dtype)


def twin(arrays, torch_fn, our_fn, dtype=np.float64, seed=0):
    """Run torch_fn and our_fn on the same inputs; assert equal outputs and gradients."""
    tol = TOLERANCE[dtype]
    theirs = [torch.from_numpy(np.array(a)).requires_grad_(a.dtype.kind == "f") for a in arrays]
    ours = []
    for a in arrays:
        t = Tensor(a, requires_grad=a.dtype.kind == "f")
        t.data = a  # the very array, non-contiguous if it is
        ours.append(t)
    expected, got = torch_fn(*theirs), our_fn(*ours)
    assert got.shape == tuple(expected.shape)
    assert got.dtype == np.dtype(str(expected.dtype).replace("torch.", ""))
    np.testing.assert_allclose(got.data, expected.detach().numpy(), **tol, equal_nan=True)
    if not expected.requires_grad:
        return
    upstream = np.random.default_rng(seed + 1).standard_normal(got.shape).astype(got.dtype)
    expected.backward(torch.from_numpy(upstream.copy()))
    got.backward(upstream)
    for i, (t, o) in enumerate(zip(theirs, ours, strict=True)):
        if not t.requires_grad:
            continue
        want = np.zeros(t.shape, dtype=o.dtype) if t.grad is None else t.grad.numpy()
        have = np.zeros(o.shape, dtype=o.dtype) if o.grad is None else o.grad
        assert have.shape == o.shape, f"gradient of input {i} has the wrong shape"
        assert have.dtype == o.dtype, f"gradient of input {i} changed dtype"
        np.testing.assert_allclose(have, want, **tol, err_msg=f"gradient of input {i}")


# --- elementwise binary ops, with broadcasting ---------------------------------------------

BINARY = {
    "add": (lambda a, b: a + b, 0.0),
    "sub": (lambda a, b: a - b, 0.0),
    "mul": (lambda a, b: a * b, 0.0),
    "div": (lambda a, b: a / b, 0.5),  # denominators kept away from 0
    "pow": (lambda a, b: a ** b, 0.5),  # positive bases
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BINARY))
@FEW
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, min_side=0,
                                            max_side=4),
       transposed=st.booleans(), seed=st.integers(0, 2**16))
def test_binary_op_broadcasts_like_torch(name, dtype, shapes, transposed, seed):
    fn, low = BINARY[name]
    rng = np.random.default_rng(seed)
    a_shape, b_shape = shapes.input_shapes
    a = make_array(rng, a_shape, dtype, transposed=transposed)
    b = make_array(rng, b_shape, dtype, low=low or -2.0, high=2.0 if low == 0 else 1.5)
    if name == "pow":
        a = np.abs(a) + np.asarray(0.5, dtype=dtype)
    twin([a, b], fn, fn, dtype, seed)


WITH_NUMBER = {
    "tensor + 2.5": lambda x: x + 2.5,
    "2.5 + tensor": lambda x: 2.5 + x,
    "tensor - 3": lambda x: x - 3,
    "3 - tensor": lambda x: 3 - x,
    "tensor * -1.5": lambda x: x * -1.5,
    "-1.5 * tensor": lambda x: -1.5 * x,
    "tensor / 4": lambda x: x / 4,
    "4 / tensor": lambda x: 4 / x,
    "tensor ** 3": lambda x: x ** 3,
    "tensor ** 2": lambda x: x ** 2,
    "tensor ** 0.5": lambda x: x ** 0.5,
    "tensor ** -1": lambda x: x ** -1,
    "tensor ** 0": lambda x: x ** 0,
    "2 ** tensor": lambda x: 2 ** x,
    "-tensor": lambda x: -x,
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(WITH_NUMBER))
@FEW
@given(shape=array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
       transposed=st.booleans(), seed=st.integers(0, 2**16))
def test_op_with_a_python_number_keeps_dtype_and_matches_torch(name, dtype, shape, transposed,
                                                               seed):
    x = make_array(np.random.default_rng(seed), shape, dtype, 0.5, 2.0, transposed)
    twin([x], WITH_NUMBER[name], WITH_NUMBER[name], dtype, seed)


def test_numpy_array_operands_work_on_both_sides():
    x = np.array([[1.0, -2.0], [3.0, 0.5]])
    c = np.array([10.0, 20.0])
    for fn in (lambda t: t + c, lambda t: c + t, lambda t: c - t, lambda t: c * t,
               lambda t: c / t, lambda t: t @ c, lambda t: c @ t):
        got = fn(Tensor(x, requires_grad=True))
        assert isinstance(got, Tensor)  # not an object array: numpy stepped aside
        np.testing.assert_allclose(got.data, fn(x), rtol=1e-12)  # numpy's own arithmetic
    y = Tensor(x, requires_grad=True)
    (c * y).sum().backward()
    np.testing.assert_allclose(y.grad, np.broadcast_to(c, x.shape))


# --- elementwise functions ----------------------------------------------------------------

UNARY = {
    "exp": (lambda x: x.exp(), -2.0),
    "log": (lambda x: x.log(), 0.1),
    "tanh": (lambda x: x.tanh(), -3.0),
    "relu": (lambda x: x.relu(), -2.0),
    "sigmoid": (lambda x: x.sigmoid(), -6.0),
    "sqrt": (lambda x: x.sqrt(), 0.1),
    "abs": (lambda x: x.abs(), -2.0),
    "softmax(-1)": (lambda x: x.softmax(-1), -3.0),
    "log_softmax(0)": (lambda x: x.log_softmax(0), -3.0),
    "clone": (lambda x: x.clone(), -2.0),
    "sin": (lambda x: x.sin(), -3.0),
    "cos": (lambda x: x.cos(), -3.0),
    "clamp(-0.5, 1)": (lambda x: x.clamp(-0.5, 1.0), -2.0),
    "clamp(min=0.2)": (lambda x: x.clamp(min=0.2), -2.0),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(UNARY))
@FEW
@given(shape=array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=5),
       transposed=st.booleans(), seed=st.integers(0, 2**16))
def test_elementwise_function_matches_torch(name, dtype, shape, transposed, seed):
    fn, low = UNARY[name]
    if "softmax" in name and len(shape) == 0:
        shape = (3,)
    x = make_array(np.random.default_rng(seed), shape, dtype, low, abs(low) + 1, transposed)
    twin([x], fn, fn, dtype, seed)


def test_functional_forms_match_methods_and_torch():
    x = np.random.default_rng(1).standard_normal((3, 4))
    for ours, theirs in [
        (F.relu, torch.nn.functional.relu), (F.tanh, torch.tanh), (F.sigmoid, torch.sigmoid),
        (lambda t: F.softmax(t, dim=0), lambda t: torch.softmax(t, dim=0)),
        (lambda t: F.log_softmax(t, dim=1), lambda t: torch.log_softmax(t, dim=1)),
    ]:
        twin([x], theirs, ours)


def test_softmax_and_log_softmax_are_stable_for_huge_inputs():
    x = np.array([[1000.0, 0.0, -1000.0], [-1e4, -1e4 + 1, -1e4]])
    twin([x], lambda t: t.softmax(1), lambda t: t.softmax(1))
    twin([x], lambda t: t.log_softmax(1), lambda t: t.log_softmax(1))
    assert np.isfinite(Tensor(x).log_softmax(1).numpy()).all()


def test_sigmoid_is_stable_for_huge_inputs():
    twin([np.array([-1000.0, -40.0, 0.0, 40.0, 1000.0])], torch.sigmoid, lambda t: t.sigmoid())


# --- reductions -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "mean"])
@FEW
@given(shape=array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
       keepdim=st.booleans(), data=st.data())
def test_sum_and_mean_with_dim_and_keepdim(name, dtype, shape, keepdim, data):
    seed = data.draw(st.integers(0, 2**16))
    choices = [None] + list(range(-len(shape), len(shape)))
    dim = data.draw(st.sampled_from(choices))
    if len(shape) >= 2 and data.draw(st.booleans()):
        dim = (0, len(shape) - 1)
    if name == "mean" and 0 in shape:
        return  # the mean of nothing is nan in both; covered by test_mean_of_empty_is_nan
    x = make_array(np.random.default_rng(seed), shape, dtype, transposed=True)
    if dim is None:
        twin([x], lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), dtype, seed)
    else:
        fn = lambda t: getattr(t, name)(dim=dim, keepdim=keepdim)  # noqa: E731
        twin([x], fn, fn, dtype, seed)


def test_mean_of_empty_is_nan_as_in_torch():
    assert np.isnan(Tensor(np.zeros((0, 3))).mean().item())
    twin([np.zeros((0, 3))], lambda t: t.mean(dim=0), lambda t: t.mean(dim=0))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["max", "min"])
@FEW
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4),
       keepdim=st.booleans(), data=st.data())
def test_max_and_min_with_dim_route_the_gradient_to_the_chosen_element(name, dtype, shape,
                                                                      keepdim, data):
    seed = data.draw(st.integers(0, 2**16))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = make_array(np.random.default_rng(seed), shape, dtype, transposed=True)
    twin([x], lambda t: getattr(t, name)(), lambda t: getattr(t, name)(), dtype, seed)
    twin([x], lambda t: getattr(t, name)(dim=dim, keepdim=keepdim).values,
         lambda t: getattr(t, name)(dim=dim, keepdim=keepdim).values, dtype, seed)
    ours = getattr(Tensor(x), name)(dim=dim, keepdim=keepdim).indices
    theirs = getattr(torch.from_numpy(x), name)(dim=dim, keepdim=keepdim).indices
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["max", "min"])
def test_full_max_and_min_share_the_gradient_among_ties_as_torch(name):
    x = np.array([[3.0, 1.0, 3.0], [-1.0, 3.0, -1.0]])
    twin([x], lambda t: getattr(t, name)(), lambda t: getattr(t, name)())


# --- shape ops, indexing, joining -------------------------------------------------------

SHAPE_OPS = {
    "reshape": (lambda t: t.reshape(4, 6), lambda t: t.reshape(4, 6)),
    "reshape(-1)": (lambda t: t.reshape(-1), lambda t: t.reshape(-1)),
    # torch.view refuses non-contiguous inputs; ours is reshape under another name
    "view": (lambda t: t.reshape(2, 12), lambda t: t.view((2, 12))),
    "transpose": (lambda t: t.transpose(0, 2), lambda t: t.transpose(0, 2)),
    "permute": (lambda t: t.permute(2, 0, 1), lambda t: t.permute(2, 0, 1)),
    "T of a matrix": (lambda t: t[0].T, lambda t: t[0].T),
    "flatten": (lambda t: t.flatten(1), lambda t: t.flatten(1)),
    "unsqueeze": (lambda t: t.unsqueeze(1), lambda t: t.unsqueeze(1)),
    "squeeze": (lambda t: t[:, :1].squeeze(1), lambda t: t[:, :1].squeeze(1)),
    "int index": (lambda t: t[1], lambda t: t[1]),
    "negative index": (lambda t: t[-1, 2], lambda t: t[-1, 2]),
    "slices": (lambda t: t[:, 1:3, ::2], lambda t: t[:, 1:3, ::2]),
    "ellipsis and None": (lambda t: t[..., None, 1], lambda t: t[..., None, 1]),
    "repeated int array": (lambda t: t[[0, 0, 1, 0]], lambda t: t[[0, 0, 1, 0]]),
    "int array pairs": (lambda t: t[[0, 1, 1], [2, 2, 0]], lambda t: t[[0, 1, 1], [2, 2, 0]]),
    "int tensor index": (lambda t: t[:, torch.tensor([2, 2, 0])],
                         lambda t: t[:, micrograd.tensor([2, 2, 0])]),
    "bool mask": (lambda t: t[t.detach() > 0], lambda t: t[t.detach() > 0]),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
@pytest.mark.parametrize("transposed", [False, True])
def test_shape_op_and_indexing_match_torch(name, dtype, transposed):
    torch_fn, our_fn = SHAPE_OPS[name]
    x = make_array(np.random.default_rng(3), (2, 3, 4), dtype, transposed=transposed)
    twin([x], torch_fn, our_fn, dtype)


@FEW
@given(shape=array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5), data=st.data())
def test_integer_array_indexing_accumulates_repeated_indices(shape, data):
    index = data.draw(st.lists(st.integers(-shape[0], shape[0] - 1), min_size=0, max_size=8))
    x = make_array(np.random.default_rng(len(index)), shape, np.float64)
    twin([x], lambda t: t[torch.tensor(index, dtype=torch.long)],
         lambda t: t[np.array(index, dtype=np.int64)])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_cat_and_stack_match_torch(dtype, dim):
    rng = np.random.default_rng(4)
    if dim == 0:
        parts = [make_array(rng, (n, 3), dtype) for n in (2, 0, 4)]
    else:
        parts = [make_array(rng, (2, n), dtype, transposed=True) for n in (1, 3, 2)]
    twin(parts, lambda *t: torch.cat(t, dim=dim), lambda *t: cat(t, dim=dim), dtype)
    same = [make_array(rng, (2, 3), dtype) for _ in range(3)]
    twin(same, lambda *t: torch.stack(t, dim=dim), lambda *t: stack(t, dim=dim), dtype)
    twin(same, lambda *t: torch.stack(t, dim=dim), lambda *t: micrograd.stack(t, dim), dtype)


# --- matrix product --------------------------------------------------------------------------

MATMUL_SHAPES = [
    ((3, 4), (4, 5)), ((4,), (4, 5)), ((3, 4), (4,)), ((4,), (4,)), ((2, 3, 4), (4, 5)),
    ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((0, 4), (4, 3)), ((3, 0), (0, 2)),
    ((2, 3, 4), (4,)), ((4,), (2, 4, 3)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", MATMUL_SHAPES, ids=str)
@pytest.mark.parametrize("transposed", [False, True])
def test_matmul_matches_torch(shapes, dtype, transposed):
    rng = np.random.default_rng(5)
    a, b = (make_array(rng, s, dtype, transposed=transposed) for s in shapes)
    twin([a, b], lambda x, y: x @ y, lambda x, y: x @ y, dtype)


# --- fused nn ops ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (1,), (7,), (2, 3), (0,)], ids=str)
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_matches_torch(dtype, batch, with_bias):
    rng = np.random.default_rng(6)
    arrays = [make_array(rng, batch + (4,), dtype), make_array(rng, (3, 4), dtype)]
    if with_bias:
        arrays.append(make_array(rng, (3,), dtype))
    twin(arrays, torch.nn.functional.linear, F.linear, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (1,), (7,), (2, 3), (0,)], ids=str)
@pytest.mark.parametrize("with_bias", [True, False])
def test_linear_relu_matches_torch(dtype, batch, with_bias):
    rng = np.random.default_rng(8)
    arrays = [make_array(rng, batch + (4,), dtype), make_array(rng, (3, 4), dtype)]
    if with_bias:
        arrays.append(make_array(rng, (3,), dtype))
    twin(arrays, lambda *a: torch.relu(torch.nn.functional.linear(*a)), F.linear_relu, dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_relu_with_an_output_too_big_for_the_zeros_cache_matches_torch(dtype):
    # over 4 MiB the relu compares with a broadcast 0-d zero instead of a cached array
    rng = np.random.default_rng(10)
    arrays = [make_array(rng, (3000, 4), dtype), make_array(rng, (400, 4), dtype),
              make_array(rng, (400,), dtype)]
    twin(arrays, lambda *a: torch.relu(torch.nn.functional.linear(*a)), F.linear_relu, dtype)


def test_sequential_fuses_linear_relu_with_the_unfused_numbers():
    from micrograd.tensors import nn

    rng = np.random.default_rng(9)
    model = nn.Sequential(nn.Linear(5, 6, rng=rng, dtype=np.float64), nn.ReLU(),
                          nn.Linear(6, 2, rng=rng, dtype=np.float64))
    x = rng.standard_normal((9, 5))
    x[0] = np.nan  # nan stays nan through the fused relu, as torch.relu
    fused = model(micrograd.tensor(x))
    assert fused._prev[0]._op == "linear_relu"
    by_layer = model[2](model[1](model[0](micrograd.tensor(x))))
    assert by_layer._prev[0]._op == "relu"
    np.testing.assert_array_equal(fused.data, by_layer.data)
    grads = []
    for out in (fused, by_layer):
        model.zero_grad()
        out[1:].sum().backward()
        grads.append([p.grad.numpy().copy() for p in model.parameters()])
    for a, b in zip(*grads, strict=True):
        np.testing.assert_array_equal(a, b)
    hidden = F.linear_relu(micrograd.tensor(x[1:]), model[0].weight, model[0].bias).numpy()
    assert (hidden == 0).any() and not np.signbit(hidden).any()  # +0.0 where x < 0, not -0.0


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("shape", [(5, 4), (4,), (1, 3)], ids=str)
def test_cross_entropy_matches_torch(dtype, reduction, shape):
    rng = np.random.default_rng(7)
    logits = make_array(rng, shape, dtype, -5, 5)
    target = rng.integers(0, shape[-1], shape[:-1])
    twin([logits],
         lambda t: torch.nn.functional.cross_entropy(t, torch.from_numpy(target),
                                                     reduction=reduction),
         lambda t: F.cross_entropy(t, micrograd.tensor(target), reduction=reduction), dtype)


def test_cross_entropy_is_stable_for_huge_logits():
    logits = np.array([[1000.0, -1000.0, 0.0], [0.0, 800.0, -800.0]])
    target = np.array([1, 1])
    twin([logits],
         lambda t: torch.nn.functional.cross_entropy(t, torch.from_numpy(target)),
         lambda t: F.cross_entropy(t, target))


def test_nll_loss_after_log_softmax_matches_torch():
    logits = np.random.default_rng(8).standard_normal((6, 3))
    target = np.array([0, 2, 1, 1, 0, 2])
    twin([logits],
         lambda t: torch.nn.functional.nll_loss(t.log_softmax(1), torch.from_numpy(target)),
         lambda t: F.nll_loss(t.log_softmax(1), target))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_loss_matches_torch_for_both_arguments(dtype, reduction):
    rng = np.random.default_rng(9)
    a, b = make_array(rng, (4, 3), dtype), make_array(rng, (4, 3), dtype, transposed=True)
    twin([a, b], lambda x, y: torch.nn.functional.mse_loss(x, y, reduction=reduction),
         lambda x, y: F.mse_loss(x, y, reduction=reduction), dtype)


def test_a_composite_expression_matches_torch():
    rng = np.random.default_rng(10)
    arrays = [rng.standard_normal((4, 3)), rng.standard_normal((3,)), rng.uniform(1, 2, (4, 1))]

    def fn(x, w, s):
        h = (x * w + s).tanh() @ w.reshape(3, 1) / s
        return (h.exp() + (x ** 2).sum(dim=1, keepdim=True).sqrt()).log().mean()

    twin(arrays, fn, fn)
