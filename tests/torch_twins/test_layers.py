"""Layers, losses and nn.init against torch: forward values and gradients, float64."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch import nn
from micrograd.torch.nn import functional as F

torch = require_module("torch")


RNG = np.random.default_rng(11)


def copy_weights(ours, theirs):
    """Give both the same random parameters and buffers (by torch's names)."""
    state = {k: RNG.normal(size=tuple(v.shape)) for k, v in theirs.state_dict().items()
             if v.dtype.is_floating_point}
    theirs.load_state_dict({k: torch.tensor(v) for k, v in state.items()}, strict=False)
    ours.load_state_dict(state, strict=False)


def check_layer(make, x, *, train=True, atol=1e-12):
    """Forward, input gradient and parameter gradients of make(mt) and make(torch) agree."""
    ours, theirs = make(mt), make(torch).double()
    ours.double()
    copy_weights(ours, theirs)
    ours.train(train)
    theirs.train(train)
    xo = mt.tensor(x, requires_grad=x.dtype.kind == "f")
    xt = torch.tensor(x, requires_grad=x.dtype.kind == "f")
    yo, yt = ours(xo), theirs(xt)
    np.testing.assert_allclose(yo.data, yt.detach().numpy(), rtol=1e-10, atol=atol)
    seed = RNG.normal(size=yt.shape)
    (yo * mt.tensor(seed)).sum().backward()
    (yt * torch.tensor(seed)).sum().backward()
    if x.dtype.kind == "f":
        np.testing.assert_allclose(xo.grad, xt.grad.numpy(), rtol=1e-9, atol=atol)
    for (name, p), q in zip(ours.named_parameters(), theirs.parameters(), strict=True):
        np.testing.assert_allclose(p.grad, q.grad.numpy(), rtol=1e-9, atol=atol, err_msg=name)
    for (name, b), c in zip(ours.named_buffers(), theirs.buffers(), strict=True):
        np.testing.assert_allclose(b.data, c.numpy(), rtol=1e-12, err_msg=name)
    return ours, theirs


@pytest.mark.parametrize("make, shape", [
    (lambda lib: lib.nn.Linear(5, 3), (4, 5)),
    (lambda lib: lib.nn.Linear(5, 3, bias=False), (2, 6, 5)),
    (lambda lib: lib.nn.LayerNorm(6), (4, 6)),
    (lambda lib: lib.nn.LayerNorm([3, 4]), (2, 3, 4)),
    (lambda lib: lib.nn.BatchNorm1d(5), (8, 5)),
    (lambda lib: lib.nn.BatchNorm1d(3), (4, 3, 6)),
    (lambda lib: lib.nn.BatchNorm1d(4, affine=False, momentum=None), (6, 4)),
    (lambda lib: lib.nn.GELU(), (3, 7)),
    (lambda lib: lib.nn.GELU(approximate="tanh"), (3, 7)),
    (lambda lib: lib.nn.Softmax(dim=1), (3, 7)),
    (lambda lib: lib.nn.LogSoftmax(dim=-1), (3, 7)),
    (lambda lib: lib.nn.Flatten(), (2, 3, 4)),
    (lambda lib: lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 8),
                                   lib.nn.Sigmoid(), lib.nn.Dropout(0.3), lib.nn.Tanh()), (5, 4)),
], ids=["linear", "linear-3d-nobias", "layernorm", "layernorm-2dims", "batchnorm-2d",
        "batchnorm-3d", "batchnorm-cumulative", "gelu", "gelu-tanh", "softmax", "logsoftmax",
        "flatten", "sequential-eval-dropout"])
def test_layer_forward_and_gradients_match_torch(make, shape):
    train = "dropout" not in repr(make(torch)).lower()
    check_layer(make, RNG.normal(size=shape), train=train)


def test_batchnorm_running_statistics_and_eval_follow_torch():
    ours, theirs = check_layer(lambda lib: lib.nn.BatchNorm1d(4), RNG.normal(size=(10, 4)))
    for _ in range(3):
        x = RNG.normal(size=(10, 4)) * 2 + 1
        ours(mt.tensor(x))
        theirs(torch.tensor(x))
    np.testing.assert_allclose(ours.running_var.data, theirs.running_var.numpy(), rtol=1e-12)
    assert ours.num_batches_tracked.item() == theirs.num_batches_tracked.item() == 4
    ours.eval()
    theirs.eval()
    x = RNG.normal(size=(3, 4))
    np.testing.assert_allclose(ours(mt.tensor(x)).data, theirs(torch.tensor(x)).detach().numpy(),
                               rtol=1e-12)
    with pytest.raises(ValueError, match="Expected more than 1 value per channel"):
        ours.train()(mt.tensor(np.ones((1, 4))))


def test_embedding_lookup_and_gradient_match_torch():
    idx = np.array([[1, 3, 3], [0, 9, 1]])
    check_layer(lambda lib: lib.nn.Embedding(10, 4), idx)
    with pytest.raises(IndexError, match="out of range"):
        nn.Embedding(3, 2)(mt.tensor(np.array([3])))


def test_dropout_keeps_the_expected_fraction_scaled_and_is_identity_in_eval():
    layer = nn.Dropout(0.25)
    x = mt.ones(200_000)
    y = layer(x).numpy()
    kept = y != 0
    assert abs(kept.mean() - 0.75) < 0.01  # 0.75 +- 5 standard deviations (0.002)
    np.testing.assert_allclose(y[kept], 1 / 0.75)
    assert layer.eval()(x) is x


LOSSES = [
    ("MSELoss", {}, "regression"), ("MSELoss", {"reduction": "sum"}, "regression"),
    ("L1Loss", {}, "regression"), ("L1Loss", {"reduction": "none"}, "regression"),
    ("CrossEntropyLoss", {}, "classes"),
    ("CrossEntropyLoss", {"ignore_index": 2}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.2}, "classes"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1, "ignore_index": 0, "reduction": "sum"},
     "classes"),
    ("CrossEntropyLoss", {"weight": "class-weights"}, "classes"),
    ("CrossEntropyLoss", {"reduction": "none"}, "classes-3d"),
    ("NLLLoss", {}, "log-probs"),
    ("NLLLoss", {"ignore_index": 1, "reduction": "none"}, "log-probs"),
    ("BCELoss", {}, "probabilities"), ("BCEWithLogitsLoss", {}, "binary"),
    ("BCEWithLogitsLoss", {"pos_weight": "pos-weight", "reduction": "sum"}, "binary"),
]


@pytest.mark.parametrize("name, options, kind", LOSSES,
                         ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(LOSSES)])
def test_losses_and_their_gradients_match_torch(name, options, kind):
    x = RNG.normal(size=(6, 4))
    if kind == "regression":
        target = RNG.normal(size=(6, 4))
    elif kind in ("classes", "log-probs"):
        target = np.array([0, 2, 3, 2, 1, 0])
    elif kind == "classes-3d":
        x, target = RNG.normal(size=(3, 4, 5)), RNG.integers(0, 4, size=(3, 5))
    elif kind == "probabilities":
        x, target = 1 / (1 + np.exp(-x)), RNG.uniform(size=(6, 4))
    else:
        target = (RNG.uniform(size=(6, 4)) > 0.5).astype(np.float64)
    if kind == "log-probs":
        x = x - np.log(np.exp(x).sum(axis=1, keepdims=True))
    extra = {"class-weights": RNG.uniform(0.5, 2, size=4),
             "pos-weight": RNG.uniform(0.5, 2, size=4)}
    ours_options = {k: mt.tensor(extra[v]) if isinstance(v, str) and v in extra else v
                    for k, v in options.items()}
    torch_options = {k: torch.tensor(extra[v]) if isinstance(v, str) and v in extra else v
                     for k, v in options.items()}
    xo, xt = mt.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lo = getattr(nn, name)(**ours_options)(xo, mt.tensor(target))
    lt = getattr(torch.nn, name)(**torch_options)(xt, torch.tensor(target))
    np.testing.assert_allclose(lo.data, lt.detach().numpy(), rtol=1e-12, atol=1e-14)
    seed = RNG.normal(size=lt.shape)
    (lo * mt.tensor(seed)).sum().backward()
    (lt * torch.tensor(seed)).sum().backward()
    np.testing.assert_allclose(xo.grad, xt.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_default_initialisation_has_torchs_distributions():
    # Linear: kaiming_uniform_(a=sqrt 5) = U(+-1/sqrt(in)); bias U(+-1/sqrt(in))
    mt.manual_seed(0)  # the max of 300 draws misses the top 1% with probability 0.99**300
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    # the largest of n draws from U(-b, b) is below 0.95 b with probability 0.95**n:
    # ~2e-7 for the 300 biases (0.99 failed 1 run in 20), far less for the weights
    for p in (layer.weight.numpy(), layer.bias.numpy()):
        assert np.abs(p).max() <= bound and np.abs(p).max() > 0.95 * bound
    assert abs(layer.weight.numpy().std() - bound / math.sqrt(3)) < 0.01 * bound
    table = nn.Embedding(1000, 100).weight.numpy()  # N(0, 1)
    assert abs(table.mean()) < 0.02 and abs(table.std() - 1) < 0.02
    norm = nn.LayerNorm(5)
    assert (norm.weight.numpy() == 1).all() and (norm.bias.numpy() == 0).all()
    assert nn.Embedding(4, 3, padding_idx=1).weight.numpy()[1].tolist() == [0, 0, 0]


@pytest.mark.parametrize("name, kwargs, std", [
    ("kaiming_uniform_", {}, math.sqrt(2 / 200)),  # gain sqrt(2/(1+0)) for a=0
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, math.sqrt(2 / 300)),
    ("xavier_uniform_", {"gain": 2.0}, 2 * math.sqrt(2 / 500)),
    ("xavier_normal_", {}, math.sqrt(2 / 500)),
    ("normal_", {"mean": 0.0, "std": 0.3}, 0.3),
    ("uniform_", {"a": -1.0, "b": 1.0}, 1 / math.sqrt(3)),
])
def test_init_functions_draw_with_torchs_spread(name, kwargs, std):
    w = mt.zeros(300, 200)
    assert getattr(nn.init, name)(w, **kwargs) is w
    assert abs(w.numpy().std() - std) < 0.02 * std
    twin = getattr(torch.nn.init, name)(torch.zeros(300, 200, dtype=torch.float64), **kwargs)
    assert abs(twin.std().item() - std) < 0.02 * std  # the oracle's spread is the same
    if "uniform" in name:
        assert np.abs(w.numpy()).max() <= math.sqrt(3) * std * (1 + 1e-12)


def test_constant_zeros_ones_and_gain():
    w = mt.zeros(2, 3)
    nn.init.constant_(w, 0.5)
    assert (w.numpy() == 0.5).all()
    assert (nn.init.ones_(w).numpy() == 1).all() and (nn.init.zeros_(w).numpy() == 0).all()
    for nonlinearity in ("linear", "sigmoid", "tanh", "relu", "selu"):
        assert nn.init.calculate_gain(nonlinearity) == torch.nn.init.calculate_gain(nonlinearity)
    leaky = nn.init.calculate_gain("leaky_relu", 0.2)
    assert leaky == torch.nn.init.calculate_gain("leaky_relu", 0.2)
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        nn.init.kaiming_uniform_(mt.zeros(3))


def test_functional_forms_match_torch():
    x = RNG.normal(size=(4, 6))
    w, b = RNG.uniform(0.5, 1.5, size=6), RNG.normal(size=6)
    ours = F.layer_norm(mt.tensor(x), (6,), mt.tensor(w), mt.tensor(b))
    theirs = torch.nn.functional.layer_norm(torch.tensor(x), (6,), torch.tensor(w), torch.tensor(b))
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-12)
    np.testing.assert_allclose(F.gelu(mt.tensor(x)).data,
                               torch.nn.functional.gelu(torch.tensor(x)).numpy(), rtol=1e-12)
    np.testing.assert_array_equal(F.dropout(mt.tensor(x), 0.5, training=False).numpy(), x)
