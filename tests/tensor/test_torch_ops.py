"""The torch ops PyTorch scripts use, each twinned against PyTorch 2.13: forward, backward
(where torch has a gradient), float32 and float64.

One table: each row is a function of the module (`torch` or `micrograd.tensors`) and the
input tensors, so the very same text runs on both; the twin helper of test_tensor_ops
compares outputs, dtypes and every input's gradient for a random output gradient.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.tensors as T

torch = require_module("torch")
from test_tensor_ops import DTYPES, make_array, twin  # noqa: E402  (needs torch)

A, B, V, W = (3, 4), (4, 5), (6,), (2, 3, 4)  # shapes used below
POS = (0.5, 2.0)  # a range of positive inputs (log, sqrt, pow, ...)
UNIT = (-0.9, 0.9)  # inside (-1, 1) (asin, acos)


def _long(m, values):
    return m.tensor(values, dtype=m.long)


# name: (input shapes, (low, high), fn(m, *tensors)); a shape entry can be (shape, low, high)
OPS = {
    # elementwise math, as functions of the module
    **{f"torch.{n}": ([A], (-2, 2), lambda m, x, n=n: getattr(m, n)(x))
       for n in ("sin", "cos", "tanh", "exp", "abs", "sigmoid", "relu", "neg", "square",
                 "exp2", "erf", "atan", "sinh", "cosh", "expm1")},
    **{f"torch.{n}": ([A], POS, lambda m, x, n=n: getattr(m, n)(x))
       for n in ("log", "log10", "log2", "log1p", "sqrt", "rsqrt", "reciprocal")},
    "torch.tan": ([A], (-1.2, 1.2), lambda m, x: m.tan(x)),
    "torch.asin": ([A], UNIT, lambda m, x: m.asin(x)),
    "torch.acos": ([A], UNIT, lambda m, x: m.acos(x)),
    **{f"torch.{n}": ([A], (-3, 3), lambda m, x, n=n: getattr(m, n)(x))
       for n in ("sign", "floor", "ceil", "round", "trunc")},
    "round(decimals=1)": ([A], (-3, 3), lambda m, x: m.round(x, decimals=1)),
    "clamp": ([A], (-2, 2), lambda m, x: m.clamp(x, -0.5, 0.7)),
    "clip": ([A], (-2, 2), lambda m, x: x.clip(min=-0.5)),
    # powers: the multiplication fast path and the general one
    **{f"x ** {e}": ([A], POS, lambda m, x, e=e: x ** e)
       for e in (2, 3, 1, 0, -1, -2, 0.5, -0.5, 2.5, 4)},
    "x.pow(3)": ([A], (-2, 2), lambda m, x: x.pow(3)),
    "torch.pow(x, 2)": ([A], (-2, 2), lambda m, x: m.pow(x, 2)),
    "torch.pow(x, y)": ([A, A], POS, lambda m, x, y: m.pow(x, y)),
    "torch.pow(2, x)": ([A], POS, lambda m, x: m.pow(2.0, x)),
    # two inputs, broadcasting
    "maximum": ([A, (1, 4)], (-2, 2), lambda m, x, y: m.maximum(x, y)),
    "minimum": ([A, (3, 1)], (-2, 2), lambda m, x, y: m.minimum(x, y)),
    "torch.max(a, b)": ([A, A], (-2, 2), lambda m, x, y: m.max(x, y)),
    "where": ([A, (1, 4)], (-2, 2), lambda m, x, y: m.where(x > 0, x, y)),
    "where with a number": ([A], (-2, 2), lambda m, x: m.where(x > 0, x, 0.0)),
    "where, condition broadcasts": ([(1, 4), (3, 1)], (-2, 2),
                                    lambda m, x, y: m.where(m.ones(2, 3, 4) > 0, x, y)),
    "masked_fill": ([A], (-2, 2), lambda m, x: x.masked_fill(x.detach() > 0.5, -1.0)),
    "masked_fill broadcast mask": ([W], (-2, 2),
                                   lambda m, x: x.masked_fill(m.ones(3, 4).tril() == 0,
                                                              float("-inf")).softmax(-1)),
    # reductions
    **{f"{n}()": ([A], (-2, 2), lambda m, x, n=n: getattr(m, n)(x))
       for n in ("sum", "mean", "std", "var", "prod", "amax", "norm")},
    "std(dim=1)": ([A], (-2, 2), lambda m, x: x.std(dim=1)),
    "std(0, keepdim)": ([W], (-2, 2), lambda m, x: x.std(0, keepdim=True)),
    "std(unbiased=False)": ([A], (-2, 2), lambda m, x: x.std(unbiased=False)),
    "std(True)": ([A], (-2, 2), lambda m, x: m.std(x, True)),
    "var(dim=(0, 2), correction=0)": ([W], (-2, 2), lambda m, x: x.var(dim=(0, 2),
                                                                        correction=0)),
    "var(1, keepdims=True)": ([A], (-2, 2), lambda m, x: x.var(1, keepdims=True)),
    "sum(axis=0, keepdims)": ([A], (-2, 2), lambda m, x: x.sum(axis=0, keepdims=True)),
    "mean(dim, keepdims)": ([W], (-2, 2), lambda m, x: m.mean(x, 1, keepdims=True)),
    "prod(1)": ([A], (-2, 2), lambda m, x: x.prod(1)),
    "prod with a zero": ([V], (-2, 2), lambda m, x: (x * m.tensor([1.0, 0, 1, 1, 1, 1],
                                                                  dtype=x.dtype)).prod()),
    "cumsum": ([A], (-2, 2), lambda m, x: m.cumsum(x, 1)),
    "cumsum(0)": ([W], (-2, 2), lambda m, x: x.cumsum(dim=0)),
    "cumprod": ([A], (-2, 2), lambda m, x: m.cumprod(x, 1)),
    "cumprod with a zero": ([V], (-2, 2), lambda m, x: (x * m.tensor(
        [1.0, 1, 0, 1, 1, 1], dtype=x.dtype)).cumprod(0)),
    "logsumexp": ([A], (-2, 2), lambda m, x: m.logsumexp(x, 1)),
    "amax(dim)": ([W], (-2, 2), lambda m, x: x.amax(dim=(0, 2))),
    "amin keepdim": ([W], (-2, 2), lambda m, x: x.amin(1, keepdim=True)),
    "norm(dim=1)": ([A], (-2, 2), lambda m, x: x.norm(dim=1)),
    "norm(p=1)": ([A], (-2, 2), lambda m, x: x.norm(p=1)),
    "norm(p=3, dim=0)": ([A], (-2, 2), lambda m, x: m.norm(x, p=3, dim=0)),
    "max(dim).values": ([A], (-2, 2), lambda m, x: m.max(x, 1).values),
    "min(dim, keepdims).values": ([A], (-2, 2), lambda m, x: x.min(dim=0, keepdims=True)[0]),
    "argmax": ([A], (-2, 2), lambda m, x: m.argmax(x, dim=1)),
    "argmin": ([A], (-2, 2), lambda m, x: m.argmin(x)),
    "softmax": ([A], (-2, 2), lambda m, x: m.softmax(x, dim=1)),
    "log_softmax": ([A], (-2, 2), lambda m, x: m.log_softmax(x, 0)),
    "sort": ([A], (-2, 2), lambda m, x: m.sort(x, 1).values),
    "sort descending": ([A], (-2, 2), lambda m, x: x.sort(dim=0, descending=True)[0]),
    "sort indices": ([A], (-2, 2), lambda m, x: m.sort(x, descending=True).indices),
    "argsort": ([A], (-2, 2), lambda m, x: m.argsort(x, dim=0)),
    "topk": ([A], (-2, 2), lambda m, x: m.topk(x, 2).values),
    "topk smallest dim 0": ([A], (-2, 2), lambda m, x: x.topk(2, dim=0, largest=False)[0]),
    "topk indices": ([A], (-2, 2), lambda m, x: x.topk(3).indices),
    "all": ([A], (-2, 2), lambda m, x: m.all(x > -1.5)),
    "any(dim)": ([A], (-2, 2), lambda m, x: (x > 1).any(1)),
    "isnan": ([A], (-2, 2), lambda m, x: m.isnan(m.log(x))),
    "isinf": ([A], (-2, 2), lambda m, x: m.isinf(1 / m.floor(x))),
    "isfinite": ([A], (-2, 2), lambda m, x: m.isfinite(m.log(x))),
    "isclose": ([A], (-2, 2), lambda m, x: m.isclose(x, m.round(x, decimals=1), atol=0.03)),
    "histc": ([(50,)], (-2, 2), lambda m, x: m.histc(x, bins=7)),
    "histc range": ([(50,)], (-2, 2), lambda m, x: x.histc(5, min=-1, max=1)),
    # products
    "matmul(input=, other=)": ([A, B], (-2, 2), lambda m, x, y: m.matmul(input=x, other=y)),
    "mm": ([A, B], (-2, 2), lambda m, x, y: m.mm(x, y)),
    "bmm": ([(2, 3, 4), (2, 4, 5)], (-2, 2), lambda m, x, y: m.bmm(x, y)),
    "outer": ([V, (4,)], (-2, 2), lambda m, x, y: m.outer(x, y)),
    "dot": ([V, V], (-2, 2), lambda m, x, y: m.dot(x, y)),
    "einsum ij,jk->ik": ([A, B], (-2, 2), lambda m, x, y: m.einsum("ij,jk->ik", x, y)),
    "einsum bij,bjk->bik": ([(2, 3, 4), (2, 4, 5)], (-2, 2),
                            lambda m, x, y: m.einsum("bij,bjk->bik", x, y)),
    "einsum bhtd,bhsd->bhts": ([(2, 2, 3, 4), (2, 2, 5, 4)], (-2, 2),
                               lambda m, x, y: m.einsum("bhtd,bhsd->bhts", x, y)),
    "einsum i,j->ij": ([V, (4,)], (-2, 2), lambda m, x, y: m.einsum("i,j->ij", x, y)),
    "einsum ij->j": ([A], (-2, 2), lambda m, x: m.einsum("ij->j", x)),
    "einsum ij,ij->": ([A, A], (-2, 2), lambda m, x, y: m.einsum("ij,ij->", x, y)),
    "einsum implicit ij,kj": ([A, (5, 4)], (-2, 2), lambda m, x, y: m.einsum("ij,kj", x, y)),
    "einsum ik,jl->ij (sums a letter only one operand has)":
        ([A, B], (-2, 2), lambda m, x, y: m.einsum("ik,jl->ij", x, y)),
    # shapes
    "flatten": ([W], (-2, 2), lambda m, x: m.flatten(x, 1)),
    "reshape": ([W], (-2, 2), lambda m, x: m.reshape(x, (4, -1))),
    "squeeze/unsqueeze": ([A], (-2, 2), lambda m, x: m.squeeze(m.unsqueeze(x, 0), 0)),
    "transpose": ([W], (-2, 2), lambda m, x: m.transpose(x, 0, 2)),
    "permute": ([W], (-2, 2), lambda m, x: m.permute(x, (1, 2, 0))),
    "movedim": ([W], (-2, 2), lambda m, x: m.movedim(x, 0, 2)),
    "expand": ([(3, 1)], (-2, 2), lambda m, x: x.expand(2, 3, 4)),
    "expand(-1, n)": ([(3, 1)], (-2, 2), lambda m, x: x.expand(-1, 5)),
    "expand_as": ([(1, 4)], (-2, 2), lambda m, x: x.expand_as(m.zeros(3, 4, dtype=x.dtype))),
    "broadcast_to": ([(4,)], (-2, 2), lambda m, x: m.broadcast_to(x, (3, 4))),
    "view_as": ([A], (-2, 2), lambda m, x: x.view_as(m.zeros(2, 6))),
    "repeat": ([A], (-2, 2), lambda m, x: x.repeat(2, 1, 3)),
    "tile": ([A], (-2, 2), lambda m, x: m.tile(x, (2,))),
    "flip": ([W], (-2, 2), lambda m, x: m.flip(x, (0, 2))),
    "roll": ([A], (-2, 2), lambda m, x: m.roll(x, 1, 1)),
    "roll flat": ([A], (-2, 2), lambda m, x: m.roll(x, 5)),
    "roll two dims": ([W], (-2, 2), lambda m, x: x.roll((1, -2), (0, 2))),
    "tril": ([A], (-2, 2), lambda m, x: m.tril(x)),
    "triu(1)": ([W], (-2, 2), lambda m, x: m.triu(x, 1)),
    "tril(-1)": ([A], (-2, 2), lambda m, x: x.tril(-1)),
    "diag of a vector": ([V], (-2, 2), lambda m, x: m.diag(x, 1)),
    "diag of a matrix": ([A], (-2, 2), lambda m, x: m.diag(x, -1)),
    "split": ([(5, 3)], (-2, 2), lambda m, x: m.split(x, 2)[2]),
    "split sizes": ([(5, 3)], (-2, 2), lambda m, x: x.split([1, 4], dim=0)[1] * 2),
    "chunk": ([(3, 5)], (-2, 2), lambda m, x: m.cat(m.chunk(x, 2, dim=1)[::-1], dim=1)),
    # nanoGPT's q, k, v = c_attn(x).split(...): all pieces used, their gradients meet
    "split, every piece of a non-leaf": ([(3, 6)], (-2, 2), lambda m, x: m.cat(
        [p * (i + 2) for i, p in enumerate((x * 1).split(2, dim=1))], dim=0)),
    "split of a leaf used elsewhere too": ([(3, 6)], (-2, 2), lambda m, x: m.cat(
        [p.exp() for p in x.split([1, 3, 2], dim=1)], dim=1) * x),
    "split, a piece used twice": ([(4, 3)], (-2, 2), lambda m, x: (lambda a, b: m.cat(
        [a, b, a * b], dim=0))(*(x + 0).split(2))),
    "unbind": ([A], (-2, 2), lambda m, x: m.unbind(x, 1)[2]),
    "contiguous": ([A], (-2, 2), lambda m, x: x.t().contiguous() * 1),
    # selection
    "gather": ([A], (-2, 2), lambda m, x: m.gather(x, 1, _long(m, [[0, 0], [3, 1], [2, 2]]))),
    "gather dim 0": ([A], (-2, 2), lambda m, x: x.gather(0, _long(m, [[2, 0, 1, 1]]))),
    "take_along_dim": ([A], (-2, 2),
                       lambda m, x: m.take_along_dim(x, _long(m, [[1], [0], [3]]), dim=1)),
    "scatter_add": ([A, (3, 2)], (-2, 2), lambda m, x, s: x.scatter_add(
        1, _long(m, [[0, 0], [3, 1], [2, 2]]), s)),
    "index_select": ([A], (-2, 2), lambda m, x: m.index_select(x, 1, _long(m, [3, 0, 3]))),
    "index_select rows": ([(7, 3)], (-2, 2), lambda m, x: x.index_select(0, _long(
        m, [1, 6, 1, 1, 0]))),
    "embedding lookup C[X]": ([(27, 10)], (-2, 2), lambda m, C: C[_long(
        m, np.random.default_rng(0).integers(0, 27, (32, 3)))]),
    "nonzero": ([A], (-2, 2), lambda m, x: m.nonzero(x > 0)),
    "bincount": ([A], (-2, 2), lambda m, x: m.bincount(_long(m, [1, 3, 3, 0, 7]))),
    "bincount weights": ([(5,)], (-2, 2), lambda m, w: m.bincount(_long(m, [1, 3, 3, 0, 7]),
                                                                  weights=w.detach())),
}


def _inputs(rng, shapes, low_high, dtype):
    arrays = []
    for spec in shapes:
        low, high = low_high
        arrays.append(make_array(rng, spec, dtype, low, high))
    return arrays


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(OPS))
def test_op_matches_torch(name, dtype):
    shapes, low_high, fn = OPS[name]
    arrays = _inputs(np.random.default_rng(len(name)), shapes, low_high, dtype)
    twin(arrays, lambda *t: fn(torch, *t), lambda *t: fn(T, *t), dtype)


def test_split_gradients_accumulate_over_two_backward_passes_as_torch():
    x = np.linspace(-1, 1, 12).reshape(2, 6)
    grads = []
    for m in (torch, T):
        t = m.tensor(x, requires_grad=True)
        q, k, v = t.split(2, dim=1)
        out = (q * 2 + k * 3 + v * 5).sum() + (t * t).sum()
        out.backward(retain_graph=True)
        first = t.grad.numpy().copy()
        out.backward()
        grads.append((first, t.grad.numpy().copy()))
    for theirs, ours in zip(grads[0], grads[1], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_tuple_results_are_named_as_torch():
    x = T.tensor([[3.0, 1.0, 2.0]])
    assert x.max(1).values.tolist() == [3.0] and x.max(dim=1).indices.tolist() == [0]
    assert T.sort(x).indices.tolist() == [[1, 2, 0]]
    values, indices = x.topk(2)
    assert values.tolist() == [[3.0, 2.0]] and indices.tolist() == [[0, 2]]


def test_comparisons_return_python_bools_as_torch():
    x, y = np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9])
    for m in (torch, T):
        assert m.allclose(m.tensor(x), m.tensor(y)) is True
        assert m.equal(m.tensor(x), m.tensor(y)) is False
        assert m.equal(m.tensor(x), m.tensor(x)) is True
        assert m.tensor(x).allclose(m.tensor(x + 1)) is False


FACTORIES = {
    "linspace": lambda m: m.linspace(-1, 2, 7),
    "linspace float64": lambda m: m.linspace(0, 1, 10, dtype=m.float64),
    "linspace 1 step": lambda m: m.linspace(3, 5, 1),
    "logspace": lambda m: m.logspace(-2, 2, 5),
    "logspace base 2": lambda m: m.logspace(0, 4, 5, base=2, dtype=m.double),
    "full int": lambda m: m.full((2, 3), 7),
    "full float": lambda m: m.full((2,), 1.5, dtype=m.float64),
    "full bool": lambda m: m.full((2,), True),
    "zeros(size=)": lambda m: m.zeros(size=(2, 3), dtype=m.float64),
    "ones long": lambda m: m.ones(2, 3, dtype=m.long),
    "empty shape": lambda m: m.empty(2, 3).zero_(),
    "eye": lambda m: m.eye(3),
    "eye n m": lambda m: m.eye(2, 4, dtype=m.double),
    "arange float": lambda m: m.arange(0, 1, 0.25),
    "zeros_like": lambda m: m.zeros_like(m.ones(2, dtype=m.float64)),
    "ones_like dtype": lambda m: m.ones_like(m.ones(2), dtype=m.long),
    "full_like": lambda m: m.full_like(m.ones(2, 2), 3.5),
    "new_zeros": lambda m: m.ones(2, dtype=m.float64).new_zeros(3, 2),
    "new_ones": lambda m: m.ones(2, dtype=m.long).new_ones((2,)),
    "new_full": lambda m: m.ones(2).new_full((2, 2), 4.0),
    "new_tensor": lambda m: m.ones(2, dtype=m.float64).new_tensor([1, 2, 3]),
    "type_as": lambda m: m.arange(3).type_as(m.ones(1, dtype=m.float64)),
    "float()": lambda m: m.arange(3).float(),
    "int()": lambda m: m.arange(3.0).int(),
    "bool()": lambda m: m.arange(3).bool(),
    "fill_": lambda m: m.zeros(2, 2).fill_(2.5),
    "copy_ broadcast": lambda m: m.zeros(2, 3).copy_(m.arange(3)),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factory_matches_torch(name):
    previous = T.get_default_dtype()
    T.set_default_dtype(T.float32)  # torch's default, for the comparison
    try:
        ours, theirs = FACTORIES[name](T), FACTORIES[name](torch)
    finally:
        T.set_default_dtype(previous)
    assert ours.dtype == np.dtype(str(theirs.dtype).replace("torch.", "")), name
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=0)


def test_sizes_and_dtype_aliases():
    x = T.zeros(3, 4, dtype=T.float)
    assert x.numel() == x.nelement() == T.numel(x) == 12
    assert x.element_size() == 4 and x.double().element_size() == 8
    assert x.dtype == T.float32 and T.long == T.int64 and T.double == T.float64
    assert T.bool == np.bool_ and T.int == np.int32 and T.float16 == T.half
    assert x.is_contiguous() and not x.T.is_contiguous() and x.T.contiguous().is_contiguous()
    y = (T.ones(2, requires_grad=True) * 2).detach_()
    assert y.is_leaf and not y.requires_grad


def test_functional_forms_reject_out_and_name_the_function():
    with pytest.raises(TypeError, match=r"torch\.sin: out="):
        T.sin(T.ones(2), out=T.ones(2))
    with pytest.raises(TypeError, match=r"torch\.exp: expected a tensor"):
        T.exp("x")


def test_bad_arguments_say_what_is_expected():
    with pytest.raises(ValueError, match="expand"):
        T.ones(2, 3).expand(4, 3)
    with pytest.raises(ValueError, match="split"):
        T.ones(5).split([1, 2])
    with pytest.raises(TypeError, match="bool condition"):
        T.where(T.ones(2), T.ones(2), T.zeros(2))
    with pytest.raises(ValueError, match="mm expects matrix"):
        T.mm(T.ones(2), T.ones(2, 2))
    with pytest.raises(ValueError, match="repeated letter"):
        T.einsum("ii->i", T.ones(2, 2))
    with pytest.raises(ValueError, match="topk"):
        T.ones(3).topk(4)
    with pytest.raises(TypeError, match="integer"):
        T.ones(3, 2).gather(0, T.ones(1, 2))


def test_integer_power_is_a_product_with_torchs_values():
    x = np.random.default_rng(5).uniform(0.5, 2, 2000).astype(np.float32)
    for e in (2, 3, -1, -2, -0.5):
        ours = (T.tensor(x) ** e).numpy()
        theirs = (torch.from_numpy(x) ** e).numpy()
        np.testing.assert_array_equal(ours, theirs, err_msg=f"x ** {e}")
