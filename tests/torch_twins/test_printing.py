"""Printed text of tensors equals torch's, character for character: a table of tensors
(shapes, dtypes, values incl. inf/nan/huge/tiny/negative zero, 0-d, empty, >1000 elements)
and of graph nodes (grad_fn names), each built from the same numpy data under torch and
micrograd.torch, printed by both, compared as text."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

SHAPES = [(), (1,), (2,), (5,), (7,), (30,), (2, 3), (4, 1), (1, 4), (3, 4, 2), (2, 1, 3, 2),
          (1001,), (40, 50), (3, 400), (11, 11, 11), (2, 3, 200), (0,), (0, 3), (2, 0, 4)]


def _values(kind: str, shape: tuple, rng: np.random.Generator) -> np.ndarray:
    n = int(np.prod(shape))
    base = rng.normal(size=n)
    if kind == "normal":
        out = base
    elif kind == "large":
        out = base * 1e9
    elif kind == "small":
        out = base * 1e-6
    elif kind == "wide":
        out = base * 10.0 ** rng.integers(-3, 4, size=n)
    elif kind == "whole":
        out = np.round(base * 50)
    elif kind == "huge_whole":
        out = np.round(base * 1e10)
    elif kind == "special":
        specials = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, 1.5, -2.25])
        out = np.where(rng.random(n) < 0.5, specials[rng.integers(0, 7, size=n)], base)
    elif kind == "zeros":
        out = np.zeros(n) * -1.0  # negative zeros
    elif kind == "tenths":
        out = np.arange(n) / 10.0
    else:
        raise ValueError(kind)
    return out.reshape(shape)


FLOAT_KINDS = ["normal", "large", "small", "wide", "whole", "huge_whole", "special", "zeros",
               "tenths"]


def _same_text(make) -> None:
    ours, theirs = make(mt), make(torch)
    assert repr(ours) == repr(theirs), f"\n--- torch\n{theirs!r}\n--- ours\n{ours!r}"
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("kind", FLOAT_KINDS)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_float_tensors_print_as_torch(shape, kind, dtype):
    data = _values(kind, shape, np.random.default_rng(zlib.crc32(repr((shape, kind)).encode())))
    if dtype == "float16":  # torch rounds float64 -> float16 through float32 (twice)
        data = data.astype(np.float32)
    with np.errstate(over="ignore"):
        _same_text(lambda lib: lib.tensor(data, dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "int16", "bool"])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_integer_and_bool_tensors_print_as_torch(shape, dtype):
    rng = np.random.default_rng(len(shape) * 7 + int(np.prod(shape)))
    data = rng.integers(-120 if dtype not in ("uint8", "bool") else 0, 120, size=shape)
    if dtype == "int64":
        data = data * 10**12
    _same_text(lambda lib: lib.tensor(data.astype(np.dtype(dtype)), dtype=getattr(lib, dtype)))


@pytest.mark.parametrize("text", [
    "torch.tensor(98.6)", "torch.tensor(3)", "torch.tensor(True)", "torch.tensor(-0.0)",
    "torch.tensor(float('nan'))", "torch.tensor(float('-inf'))", "torch.tensor(1e-20)",
    "torch.tensor(123456789.0)", "torch.tensor([0.1, 0.2]) * 3", "torch.zeros(3)",
    "torch.ones(2, 2, dtype=torch.float64)", "torch.arange(10)", "torch.arange(0, 1, 0.1)",
    "torch.linspace(-3, 3, 13)", "torch.eye(3)", "torch.full((2, 3), 7)",
    "torch.tensor([], dtype=torch.int64)", "torch.zeros(0, dtype=torch.float64)",
    "torch.tensor([1.0, 2.0], requires_grad=True)", "torch.arange(1200).view(3, 400)",
    "torch.arange(5000.0)", "torch.tensor([[1e-5, 1.0], [2.0, 1e5]])",
])
def test_everyday_tensors_print_as_torch(text):
    _same_text(lambda lib: eval(text, {"torch": lib}))


OPTIONS = [dict(precision=2), dict(precision=8), dict(sci_mode=True), dict(sci_mode=False),
           dict(threshold=5), dict(edgeitems=1, threshold=10), dict(edgeitems=0, threshold=3),
           dict(linewidth=40), dict(linewidth=200), dict(profile="short"),
           dict(profile="full"), dict(precision=1, sci_mode=False, linewidth=30)]


@pytest.mark.parametrize("options", OPTIONS, ids=str)
@pytest.mark.parametrize("shape", [(), (7,), (30,), (6, 7), (3, 4, 5), (1500,)], ids=str)
def test_set_printoptions_as_torch(options, shape):
    data = _values("wide", shape, np.random.default_rng(3))
    try:
        torch.set_printoptions(**options)
        mt.set_printoptions(**options)
        _same_text(lambda lib: lib.tensor(data, dtype=lib.float32))
        _same_text(lambda lib: lib.tensor(np.round(data * 100), dtype=lib.int64))
        assert mt.get_printoptions() == torch._tensor_str.get_printoptions()
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)
        mt.set_printoptions(profile="default", sci_mode=None)


# Graph nodes: the grad_fn names torch prints, for the ops lecture scripts use.
NODES = """a + b; a - b; a * b; a / b; a + 1; a * 2; a ** 2; a.pow(3); -a; a @ m; a.sum();
a.sum(0); a.sum(1, keepdim=True); a.mean(); a.mean(1); a.exp(); a.log(); a.tanh(); a.relu();
a.sigmoid(); a.abs(); a.sqrt(); a.sin(); a.cos(); a.max(); a.max(1).values; a.min();
a.amax(1); a.T; a.transpose(0, 1); a.permute(1, 0); a.view(-1); a.view(3, 2); a.reshape(6);
a.flatten(); a.unsqueeze(0); a.unsqueeze(1); a.unsqueeze(0).squeeze(); a[0]; a[:, 1];
a[0, 1]; a[1:]; a[torch.tensor([1, 0, 1])]; m[y.view(2, 1, 1)]; a.softmax(1);
a.log_softmax(1); torch.softmax(a, dim=1); F.softmax(a, dim=1);
F.log_softmax(a, dim=1); F.cross_entropy(a, y); F.cross_entropy(a, y, reduction='sum');
F.nll_loss(F.log_softmax(a, 1), y); F.mse_loss(a, b); F.relu(a); F.gelu(a); F.tanh(a);
F.linear(a, w); F.linear(a, w, bias); F.linear(a3, w, bias); F.linear(a3, w);
torch.cat([a, b]); torch.cat([a, b], 1); torch.stack([a, b]); a.clamp(-1, 1);
torch.where(a > 0, a, b); a.masked_fill(a > 0, 0.0); a.var(); a.std(); a.var(0); a.norm();
a.cumsum(0); a.prod(); a.logsumexp(1); a.expand(2, 2, 3); a.repeat(2, 1); a.tril();
a.triu(); a.clone(); a.double(); a.maximum(b); a.minimum(b); a.square(); a.exp2();
a.log1p(); a.reciprocal(); a.rsqrt(); a.gather(1, y.view(2, 1)); a.roll(1); a.flip(0);
a3 @ m3; torch.matmul(a, m); a @ m @ m2; a[0] @ a[1]; a @ a[0]; a.tanh().sum();
F.layer_norm(a, (3,)); F.batch_norm(a, None, None, training=True); F.pad(a, (1, 1));
(a * 2).sum() / 2; ((a @ m).tanh() ** 2).mean()""".replace("\n", " ").split(";")


def _graph_inputs(lib):
    rng = np.random.default_rng(0)
    def make(*shape):
        return lib.tensor(rng.normal(size=shape), dtype=lib.float32, requires_grad=True)
    return dict(torch=lib, F=lib.nn.functional, a=make(2, 3), b=make(2, 3), m=make(3, 4),
                m2=make(4, 2), w=make(5, 3), bias=make(5), a3=make(2, 2, 3), m3=make(2, 3, 2),
                y=lib.tensor([0, 2]))


@pytest.mark.parametrize("text", [t.strip() for t in NODES], ids=str)
def test_grad_fn_names_as_torch(text):
    ours = eval(text, _graph_inputs(mt))
    theirs = eval(text, _graph_inputs(torch))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    # the numbers agree to float32 rounding; the text around them must be torch's
    assert repr(ours).split("grad_fn=")[1] == repr(theirs).split("grad_fn=")[1]


@pytest.mark.xfail(strict=True, reason="known gap: our 'index' node does not record whether "
                   "an index tensor or a slice made a same-rank result (torch: IndexBackward0 "
                   "vs SliceBackward0); we print SliceBackward0 for both")
def test_grad_fn_of_an_index_tensor_that_keeps_the_rank():
    test_grad_fn_names_as_torch("a[:, y]")


def test_parameter_prints_as_torch():
    _same_text(lambda lib: lib.nn.Parameter(lib.tensor([[1.0, -2.5], [0.125, 3.0]])))
    _same_text(lambda lib: lib.nn.Parameter(lib.zeros(3), requires_grad=False))
    assert mt.tensor([1.0]).grad_fn is None


@pytest.mark.parametrize("text", [
    "a.max(1)", "a.min(dim=0)", "a.max(1, keepdim=True)", "torch.topk(a, 2)", "a.sort(1)",
    "a.sort(0, descending=True)", "a.type()", "a.long().type()", "a.double().type()",
    "(a > 0).type()", "a.type(torch.float64)", "a.type('torch.LongTensor')",
])
def test_results_of_max_sort_and_type_print_as_torch(text):
    data = np.random.default_rng(5).normal(size=(3, 4))
    _same_text(lambda lib: eval(text, {"torch": lib, "a": lib.tensor(data, dtype=lib.float32)}))
