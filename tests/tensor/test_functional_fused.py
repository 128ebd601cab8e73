"""The fused torch.nn.functional ops (one node each, hand-written backward) against
PyTorch 2.13: forward, every input's gradient, float32 and float64; batch_norm's running
statistics too. One table; each row's function runs on (torch.nn.functional, torch) and on
(micrograd.tensors.functional, micrograd.tensors) unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.tensors as T
from micrograd.tensors import functional as F

torch = require_module("torch")
from test_tensor_ops import DTYPES, make_array, twin  # noqa: E402  (needs torch)

TF = torch.nn.functional


def _long(m, values):
    return m.tensor(np.asarray(values), dtype=m.long)


TARGETS = [2, 0, 4, 4, 1, 3]
IGNORED = [2, -100, 4, 4, -100, 3]

# name: (input shapes, fn(F, m, *tensors))
FUSED = {
    "layer_norm": ([(4, 6), (6,), (6,)], lambda f, m, x, w, b: f.layer_norm(x, (6,), w, b)),
    "layer_norm 3-d, no affine": ([(2, 3, 5)], lambda f, m, x: f.layer_norm(x, [5])),
    "layer_norm over 2 dims": ([(2, 3, 5), (3, 5), (3, 5)],
                               lambda f, m, x, w, b: f.layer_norm(x, (3, 5), w, b, 1e-3)),
    "layer_norm, weight only": ([(3, 4, 6), (6,)], lambda f, m, x, w: f.layer_norm(x, (6,), w)),
    "layer_norm of a constant input": ([(6,), (6,)], lambda f, m, w, b: f.layer_norm(
        m.linspace(-2, 3, 24, dtype=w.dtype).reshape(4, 6), (6,), w, b)),
    "batch_norm train 2-d": ([(8, 4), (4,), (4,)], lambda f, m, x, w, b: f.batch_norm(
        x, m.zeros(4, dtype=x.dtype), m.ones(4, dtype=x.dtype), w, b, training=True)),
    "batch_norm train 3-d": ([(5, 3, 4), (3,), (3,)], lambda f, m, x, w, b: f.batch_norm(
        x, m.zeros(3, dtype=x.dtype), m.ones(3, dtype=x.dtype), w, b, True, 0.2, 1e-4)),
    "batch_norm train, no stats": ([(6, 3)], lambda f, m, x: f.batch_norm(
        x, None, None, training=True)),
    "batch_norm eval": ([(6, 3), (3,), (3,)], lambda f, m, x, w, b: f.batch_norm(
        x, m.linspace(-1, 1, 3, dtype=x.dtype), m.linspace(0.5, 2, 3, dtype=x.dtype), w, b,
        training=False)),
    "gelu": ([(3, 7)], lambda f, m, x: f.gelu(x)),
    "gelu tanh": ([(3, 7)], lambda f, m, x: f.gelu(x, approximate="tanh")),
    "embedding": ([(9, 4)], lambda f, m, w: f.embedding(_long(m, [[1, 8, 1], [0, 1, 1]]), w)),
    "embedding padding_idx": ([(9, 4)], lambda f, m, w: f.embedding(
        _long(m, [3, 3, 0, 5]), w, padding_idx=3)),
    "embedding large table": ([(700, 8)], lambda f, m, w: f.embedding(
        _long(m, np.random.default_rng(1).integers(0, 700, (40, 5))), w)),
    "embedding huge table": ([(5000, 2)], lambda f, m, w: f.embedding(
        _long(m, np.random.default_rng(2).integers(0, 5000, (30,))), w)),
    "cross_entropy": ([(6, 5)], lambda f, m, x: f.cross_entropy(x, _long(m, TARGETS))),
    "cross_entropy ignore_index": ([(6, 5)], lambda f, m, x: f.cross_entropy(
        x, _long(m, IGNORED))),
    "cross_entropy ignore_index=4, sum": ([(6, 5)], lambda f, m, x: f.cross_entropy(
        x, _long(m, TARGETS), ignore_index=4, reduction="sum")),
    "cross_entropy label_smoothing": ([(6, 5)], lambda f, m, x: f.cross_entropy(
        x, _long(m, TARGETS), label_smoothing=0.1)),
    "cross_entropy smoothing + ignore, none": ([(6, 5)], lambda f, m, x: f.cross_entropy(
        x, _long(m, IGNORED), label_smoothing=0.25, reduction="none")),
    "cross_entropy 1-d smoothing": ([(5,)], lambda f, m, x: f.cross_entropy(
        x, _long(m, 3), label_smoothing=0.2)),
    "nll_loss ignore_index": ([(6, 5)], lambda f, m, x: f.nll_loss(
        f.log_softmax(x, dim=1), _long(m, IGNORED))),
    "nll_loss none": ([(6, 5)], lambda f, m, x: f.nll_loss(x, _long(m, TARGETS),
                                                          reduction="none")),
    "mse_loss": ([(4, 3), (4, 3)], lambda f, m, x, y: f.mse_loss(x, y)),
    "l1_loss": ([(4, 3), (4, 3)], lambda f, m, x, y: f.l1_loss(x, y)),
    "l1_loss sum": ([(4, 3), (4, 3)], lambda f, m, x, y: f.l1_loss(x, y, reduction="sum")),
    "binary_cross_entropy": ([(4, 3)], lambda f, m, x: f.binary_cross_entropy(
        m.sigmoid(x), (x.detach() > 0.3).to(x.dtype))),
    "binary_cross_entropy weight, none": ([(4, 3)], lambda f, m, x: f.binary_cross_entropy(
        m.sigmoid(x), (x.detach() > 0).to(x.dtype), weight=m.ones(3, dtype=x.dtype) * 2,
        reduction="none")),
    "bce_with_logits": ([(4, 3), (4, 3)], lambda f, m, x, t: f.binary_cross_entropy_with_logits(
        x * 10, m.sigmoid(t))),
    "bce_with_logits sum": ([(4, 3)], lambda f, m, x: f.binary_cross_entropy_with_logits(
        x, (x.detach() > 0).to(x.dtype), reduction="sum")),
    "softmax": ([(4, 3)], lambda f, m, x: f.softmax(x, dim=0)),
    "linear": ([(4, 3), (5, 3), (5,)], lambda f, m, x, w, b: f.linear(x, w, b)),
    "relu/tanh/sigmoid": ([(4, 3)], lambda f, m, x: f.relu(x) + m.tanh(x) + m.sigmoid(x)),
    "pad": ([(2, 3, 4)], lambda f, m, x: f.pad(x, (1, 2, 0, 1), value=0.5)),
    "one_hot as floats": ([(4, 3)], lambda f, m, x: x @ f.one_hot(_long(m, [0, 2, 1]), 4).to(
        x.dtype)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(FUSED))
def test_fused_op_matches_torch(name, dtype):
    shapes, fn = FUSED[name]
    rng = np.random.default_rng(len(name))
    arrays = [make_array(rng, s, dtype) for s in shapes]
    twin(arrays, lambda *t: fn(TF, torch, *t), lambda *t: fn(F, T, *t), dtype)


@pytest.mark.parametrize("shape", [(8, 4), (5, 4, 3)])
def test_batch_norm_updates_running_statistics_like_torch(shape):
    x = np.random.default_rng(0).standard_normal(shape)
    stats = {}
    for name, f, m in (("torch", TF, torch), ("ours", F, T)):
        mean, var = m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64)
        for _ in range(3):
            f.batch_norm(m.tensor(x), mean, var, training=True, momentum=0.3)
        stats[name] = (mean.numpy().copy(), var.numpy().copy())
    for ours, theirs in zip(stats["ours"], stats["torch"], strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_fused_ops_are_single_nodes():
    x = T.randn(4, 6, requires_grad=True)
    w, b = T.ones(6, requires_grad=True), T.zeros(6, requires_grad=True)
    assert F.layer_norm(x, (6,), w, b).inputs == (x, w, b)
    assert F.batch_norm(x, None, None, training=True).inputs == (x,)
    assert x.std(0).inputs == (x,) and x.var().inputs == (x,)


def test_fused_ops_check_their_arguments():
    with pytest.raises(ValueError, match="normalized shape"):
        F.layer_norm(T.ones(2, 3), (4,))
    with pytest.raises(ValueError, match="more than 1 value per channel"):
        F.batch_norm(T.ones(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="approximate"):
        F.gelu(T.ones(2), approximate="fast")
    with pytest.raises(IndexError, match="out of range"):
        F.embedding(T.tensor([5]), T.ones(3, 2))
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(T.ones(2, 3), T.tensor([0, 3]))
    with pytest.raises(ValueError, match="between 0 and 1"):
        F.binary_cross_entropy(T.tensor([1.5]), T.tensor([1.0]))


def test_one_hot_matches_torch():
    idx = [[0, 3], [2, 2]]
    np.testing.assert_array_equal(F.one_hot(T.tensor(idx)).numpy(),
                                  TF.one_hot(torch.tensor(idx)).numpy())
    assert F.one_hot(T.tensor([1]), 5).dtype == np.int64
