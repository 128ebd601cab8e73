"""Every torch.nn.functional loss, each argument torch has, against PyTorch 2.13 (float64):
the forward value and the gradient to every input that requires one (targets, variances and
second inputs too), called as F.x and as its nn.XLoss module."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch import nn
from micrograd.torch.nn import functional as F

torch = require_module("torch")

RNG = np.random.default_rng(17)


def normal(*shape):
    return RNG.normal(size=shape)


def signs(*shape):
    return np.where(RNG.uniform(size=shape) > 0.5, 1.0, -1.0)


def classes(high, *shape):
    return RNG.integers(0, high, size=shape)


def log_probs(x, dim=1):
    return x - np.log(np.exp(x).sum(axis=dim, keepdims=True))


X64 = normal(6, 4)
# name: (inputs as (array, requires_grad), call(F, m, *tensors)); m is torch or micrograd.torch
CASES = {
    # the fused losses, each argument
    "cross_entropy weight": ([(X64, True), (classes(4, 6), False), (RNG.uniform(.5, 2, 4), False)],
                             lambda F, m, x, t, w: F.cross_entropy(x, t, weight=w)),
    "cross_entropy weight ignore smoothing": (
        [(X64, True), (np.array([0, -100, 3, 2, 1, 3]), False), (RNG.uniform(.5, 2, 4), False)],
        lambda F, m, x, t, w: F.cross_entropy(x, t, w, label_smoothing=0.3)),
    "cross_entropy weight smoothing none": (
        [(X64, True), (classes(4, 6), False), (RNG.uniform(.5, 2, 4), False)],
        lambda F, m, x, t, w: F.cross_entropy(x, t, w, reduction="none", label_smoothing=0.1)),
    "cross_entropy (N, C, L)": ([(normal(3, 4, 5), True), (classes(4, 3, 5), False)],
                                lambda F, m, x, t: F.cross_entropy(x, t)),
    "cross_entropy (N, C, H, W) none ignore": (
        [(normal(2, 3, 2, 4), True), (np.where(classes(2, 2, 2, 4), classes(3, 2, 2, 4), 7),
                                      False)],
        lambda F, m, x, t: F.cross_entropy(x, t, ignore_index=7, reduction="none")),
    "cross_entropy probabilities": ([(X64, True), (np.exp(log_probs(normal(6, 4))), True)],
                                    lambda F, m, x, p: F.cross_entropy(x, p)),
    "cross_entropy probabilities weight smoothing sum": (
        [(normal(2, 3, 5), True), (np.exp(log_probs(normal(2, 3, 5))), True),
         (RNG.uniform(.5, 2, 3), False)],
        lambda F, m, x, p, w: F.cross_entropy(x, p, w, reduction="sum", label_smoothing=0.2)),
    "nll_loss weight": ([(log_probs(X64), True), (classes(4, 6), False),
                         (RNG.uniform(.5, 2, 4), False)],
                        lambda F, m, x, t, w: F.nll_loss(x, t, weight=w)),
    "nll_loss (N, C, L) weight ignore sum": (
        [(log_probs(normal(3, 4, 5)), True), (np.where(classes(3, 3, 5), classes(4, 3, 5), 0),
                                              False), (RNG.uniform(.5, 2, 4), False)],
        lambda F, m, x, t, w: F.nll_loss(x, t, w, ignore_index=0, reduction="sum")),
    "nll_loss 1-d": ([(log_probs(normal(5), 0), True), (np.array(3), False)],
                     lambda F, m, x, t: F.nll_loss(x, t)),
    "bce target grad, weight": ([(RNG.uniform(.05, .95, (6, 4)), True),
                                 (RNG.uniform(size=(6, 4)), True), (RNG.uniform(.5, 2, 4), False)],
                                lambda F, m, p, t, w: F.binary_cross_entropy(p, t, w)),
    "bce_with_logits pos_weight": ([(X64 * 3, True), (RNG.uniform(size=(6, 4)), True),
                                    (RNG.uniform(.5, 3, 4), False)],
                                   lambda F, m, x, t, pw: F.binary_cross_entropy_with_logits(
                                       x, t, pos_weight=pw)),
    "bce_with_logits weight pos_weight none": (
        [(X64 * 3, True), (RNG.uniform(size=(6, 4)), True), (RNG.uniform(.5, 2, (6, 4)), False),
         (RNG.uniform(.5, 3, 4), False)],
        lambda F, m, x, t, w, pw: F.binary_cross_entropy_with_logits(x, t, w, reduction="none",
                                                                     pos_weight=pw)),
    # the beginner losses of issue 18
    "smooth_l1_loss": ([(X64, True), (normal(6, 4), True)],
                       lambda F, m, x, y: F.smooth_l1_loss(x, y)),
    "smooth_l1_loss beta sum": ([(X64, True), (normal(6, 4), True)],
                                lambda F, m, x, y: F.smooth_l1_loss(x, y, reduction="sum",
                                                                    beta=0.5)),
    "smooth_l1_loss beta 0 none": ([(X64, True), (normal(6, 4), True)],
                                   lambda F, m, x, y: F.smooth_l1_loss(x, y, reduction="none",
                                                                       beta=0.0)),
    "huber_loss": ([(X64, True), (normal(6, 4), True)], lambda F, m, x, y: F.huber_loss(x, y)),
    "huber_loss weight": ([(X64, True), (normal(6, 4), True), (RNG.uniform(.5, 2, (6, 4)), True)],
                          lambda F, m, x, y, w: F.huber_loss(x, y, delta=0.5, weight=w)),
    "mse_loss weight": ([(X64, True), (normal(6, 4), True), (RNG.uniform(.5, 2, (6, 4)), True)],
                        lambda F, m, x, y, w: F.mse_loss(x, y, weight=w)),
    "l1_loss weight sum": ([(X64, True), (normal(6, 4), True), (RNG.uniform(.5, 2, (6, 4)), True)],
                           lambda F, m, x, y, w: F.l1_loss(x, y, reduction="sum", weight=w)),
    "huber_loss delta none": ([(X64, True), (normal(6, 4), True)],
                              lambda F, m, x, y: F.huber_loss(x, y, "none", delta=0.7)),
    "kl_div batchmean": ([(log_probs(X64), True), (np.exp(log_probs(normal(6, 4))), True)],
                         lambda F, m, x, t: F.kl_div(x, t, reduction="batchmean")),
    "kl_div zero targets, sum": ([(log_probs(X64), True),
                                  (np.where(X64 > 0.5, 0.0, RNG.uniform(size=(6, 4))), False)],
                                 lambda F, m, x, t: F.kl_div(x, t, reduction="sum")),
    "kl_div log_target none": ([(log_probs(X64), True), (log_probs(normal(6, 4)), True)],
                               lambda F, m, x, t: F.kl_div(x, t, reduction="none",
                                                           log_target=True)),
    "poisson_nll_loss": ([(X64, True), (RNG.poisson(2.0, (6, 4)).astype(float), False)],
                         lambda F, m, x, t: F.poisson_nll_loss(x, t)),
    # (torch's target gradient is nan where the target is 0: not compared)
    "poisson_nll_loss rate full sum": (
        [(RNG.uniform(.1, 3, (6, 4)), True), (RNG.poisson(2.0, (6, 4)).astype(float), False)],
        lambda F, m, x, t: F.poisson_nll_loss(x, t, log_input=False, full=True,
                                              reduction="sum")),
    "gaussian_nll_loss": ([(X64, True), (normal(6, 4), True), (RNG.uniform(.1, 2, (6, 4)), True)],
                          lambda F, m, x, y, v: F.gaussian_nll_loss(x, y, v)),
    "gaussian_nll_loss var (N, 1), full, eps clamps": (
        [(X64, True), (normal(6, 4), True), (np.array([[.5], [1e-9], [2], [1], [1e-3], [3]]),
                                             True)],
        lambda F, m, x, y, v: F.gaussian_nll_loss(x, y, v, full=True, eps=1e-4,
                                                  reduction="none")),
    "gaussian_nll_loss var (N,)": ([(X64, True), (normal(6, 4), False),
                                    (RNG.uniform(.1, 2, 6), True)],
                                   lambda F, m, x, y, v: F.gaussian_nll_loss(x, y, v,
                                                                             reduction="sum")),
    "margin_ranking_loss": ([(normal(8), True), (normal(8), True), (signs(8), False)],
                            lambda F, m, a, b, t: F.margin_ranking_loss(a, b, t)),
    "margin_ranking_loss margin none": ([(normal(8), True), (normal(8), True), (signs(8), False)],
                                        lambda F, m, a, b, t: F.margin_ranking_loss(
                                            a, b, t, margin=0.5, reduction="none")),
    "hinge_embedding_loss": ([(np.abs(X64), True), (signs(6, 4), False)],
                             lambda F, m, x, t: F.hinge_embedding_loss(x, t)),
    "hinge_embedding_loss margin sum": ([(np.abs(X64), True), (signs(6, 4), False)],
                                        lambda F, m, x, t: F.hinge_embedding_loss(
                                            x, t, margin=2.0, reduction="sum")),
    "soft_margin_loss": ([(X64 * 10, True), (signs(6, 4), False)],
                         lambda F, m, x, t: F.soft_margin_loss(x, t)),
    "soft_margin_loss none": ([(X64, True), (signs(6, 4), False)],
                              lambda F, m, x, t: F.soft_margin_loss(x, t, reduction="none")),
    "multilabel_soft_margin_loss": ([(X64 * 10, True), (RNG.integers(0, 2, (6, 4)) * 1.0, False)],
                                    lambda F, m, x, t: F.multilabel_soft_margin_loss(x, t)),
    "multilabel_soft_margin_loss weight none": (
        [(X64, True), (RNG.integers(0, 2, (6, 4)) * 1.0, True), (RNG.uniform(.5, 2, 4), False)],
        lambda F, m, x, t, w: F.multilabel_soft_margin_loss(x, t, w, reduction="none")),
    "cosine_embedding_loss": ([(X64, True), (normal(6, 4), True), (signs(6), False)],
                              lambda F, m, a, b, t: F.cosine_embedding_loss(a, b, t)),
    "cosine_embedding_loss margin none": ([(X64, True), (normal(6, 4), True), (signs(6), False)],
                                          lambda F, m, a, b, t: F.cosine_embedding_loss(
                                              a, b, t, margin=-0.2, reduction="none")),
    "cosine_embedding_loss 1-d": ([(normal(5), True), (normal(5), True), (np.array(-1.0), False)],
                                  lambda F, m, a, b, t: F.cosine_embedding_loss(a, b, t,
                                                                                margin=-1.0)),
    "triplet_margin_loss": ([(X64, True), (normal(6, 4), True), (normal(6, 4), True)],
                           lambda F, m, a, p, n: F.triplet_margin_loss(a, p, n)),
    "triplet_margin_loss p=1 swap margin none": (
        [(X64, True), (normal(6, 4), True), (normal(6, 4), True)],
        lambda F, m, a, p, n: F.triplet_margin_loss(a, p, n, margin=2.0, p=1, swap=True,
                                                    reduction="none")),
    "triplet_margin_loss p=3 eps sum": (
        [(X64, True), (normal(6, 4), True), (normal(6, 4), True)],
        lambda F, m, a, p, n: F.triplet_margin_loss(a, p, n, p=3, eps=1e-3, reduction="sum")),
}


def _run(call, inputs, functional, module):
    tensors = [module.tensor(a, requires_grad=grad) for a, grad in inputs]
    out = call(functional, module, *tensors)
    upstream = np.random.default_rng(5).normal(size=tuple(out.shape))
    out.backward(module.tensor(upstream))
    grads = [None if t.grad is None else np.asarray(t.grad.detach().numpy()) for t in tensors]
    return out.detach().numpy(), grads


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_and_its_gradients_match_torch(name):
    inputs, call = CASES[name]
    theirs, their_grads = _run(call, inputs, torch.nn.functional, torch)
    ours, our_grads = _run(call, inputs, F, mt)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    for i, ((_, grad), mine, want) in enumerate(zip(inputs, our_grads, their_grads,
                                                    strict=True)):
        if not grad:
            continue
        assert mine is not None, f"input {i} got no gradient; torch's is {want}"
        np.testing.assert_allclose(mine, want, rtol=1e-9, atol=1e-12,
                                   err_msg=f"gradient of input {i}")


MODULES = [
    ("SmoothL1Loss", {"beta": 0.5}, 2), ("HuberLoss", {"delta": 0.7, "reduction": "sum"}, 2),
    ("KLDivLoss", {"reduction": "batchmean", "log_target": True}, 2),
    ("PoissonNLLLoss", {"log_input": True, "full": True}, 2),
    ("GaussianNLLLoss", {"full": True, "eps": 1e-3}, 3),
    ("MarginRankingLoss", {"margin": 0.3}, 3), ("HingeEmbeddingLoss", {"margin": 0.5}, 2),
    ("SoftMarginLoss", {"reduction": "none"}, 2),
    ("MultiLabelSoftMarginLoss", {"weight": "weight"}, 2),
    ("CosineEmbeddingLoss", {"margin": 0.1}, 3),
    ("TripletMarginLoss", {"margin": 0.5, "p": 1.5, "swap": True}, 3),
]


def _module_inputs(name):
    x, y = normal(6, 4), normal(6, 4)
    if name in ("MarginRankingLoss",):
        return [x[:, 0], y[:, 0], signs(6)]
    if name == "CosineEmbeddingLoss":
        return [x, y, signs(6)]
    if name in ("HingeEmbeddingLoss", "SoftMarginLoss"):
        return [np.abs(x), signs(6, 4)]
    if name == "MultiLabelSoftMarginLoss":
        return [x, RNG.integers(0, 2, (6, 4)) * 1.0]
    if name == "KLDivLoss":
        return [log_probs(x), log_probs(y)]
    if name == "PoissonNLLLoss":
        return [x, RNG.poisson(3.0, (6, 4)).astype(float)]
    if name == "GaussianNLLLoss":
        return [x, y, RNG.uniform(.1, 2, (6, 4))]
    if name == "TripletMarginLoss":
        return [x, y, normal(6, 4)]
    return [x, y]


@pytest.mark.parametrize("name, options, count", MODULES, ids=[m[0] for m in MODULES])
def test_loss_module_matches_torch(name, options, count):
    arrays = _module_inputs(name)
    assert len(arrays) == count
    weight = RNG.uniform(.5, 2, 4)
    results = []
    for m in (torch, mt):
        kwargs = {k: m.tensor(weight) if v == "weight" else v for k, v in options.items()}
        loss = getattr(m.nn, name)(**kwargs)
        # torch refuses soft_margin_loss's target gradient; Poisson's is nan at target 0
        last = name not in ("SoftMarginLoss", "PoissonNLLLoss")
        tensors = [m.tensor(a, requires_grad=i < len(arrays) - 1 or last)
                   for i, a in enumerate(arrays)]
        out = loss(*tensors)
        out.sum().backward()
        results.append((out.detach().numpy(),
                        [None if t.grad is None else t.grad.numpy() for t in tensors]))
    (theirs, their_grads), (ours, our_grads) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    for mine, want in zip(our_grads, their_grads, strict=True):
        if want is None:  # a ±1 target used only to choose a branch
            assert mine is None or not mine.any()
        else:
            np.testing.assert_allclose(mine, want, rtol=1e-9, atol=1e-12)


# the mistakes torch refuses, refused with torch's words (our text adds what is expected)
ERRORS = [
    (lambda F, m: F.mse_loss(m.ones(2), m.ones(2), reduction="avg"), ValueError,
     "avg is not a valid value for reduction"),
    (lambda F, m: m.nn.L1Loss(reduction="avg")(m.ones(2), m.ones(2)), ValueError,
     "avg is not a valid value for reduction"),
    (lambda F, m: F.cross_entropy(m.ones(4, 3), m.tensor([0, 1, 2, 1]), weight=m.ones(2)),
     None, "weight tensor should be defined either for all 3 classes or no classes but got "
           "weight tensor of shape: [2]"),
    (lambda F, m: F.nll_loss(m.ones(4, 3), m.tensor([0, 1, 2, 1]), weight=m.ones(4)),
     None, "weight tensor should be defined either for all 3 classes"),
    (lambda F, m: F.cross_entropy(m.ones(4, 3), m.tensor([0, 1, 2, 1]), label_smoothing=1.5),
     None, "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
    (lambda F, m: F.cross_entropy(m.ones(4, 3), m.tensor([0, 1, 3, 1])), IndexError,
     "Target 3 is out of bounds"),
    (lambda F, m: F.cross_entropy(m.ones(4, 3), m.tensor([0, 1, 2])), ValueError,
     "Expected input batch_size (4) to match target batch_size (3)"),
    (lambda F, m: F.huber_loss(m.ones(2), m.ones(2), delta=0.0), None,
     "huber_loss does not support non-positive values for delta"),
    (lambda F, m: F.smooth_l1_loss(m.ones(2), m.ones(2), beta=-1.0), None,
     "smooth_l1_loss does not support negative values for beta"),
    (lambda F, m: F.soft_margin_loss(m.ones(2), m.ones(2, requires_grad=True)), RuntimeError,
     "The function 'soft_margin_loss' is not differentiable with respect to argument "
     "'target'"),
    (lambda F, m: F.gaussian_nll_loss(m.ones(4, 3), m.ones(4, 3), -m.ones(4, 3)), ValueError,
     "var has negative entry/entries"),
    (lambda F, m: F.gaussian_nll_loss(m.ones(4, 3), m.ones(4, 3), m.ones(4, 2)), ValueError,
     "var is of incorrect size"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_loss_errors_say_what_torch_says(index):
    call, kind, text = ERRORS[index]
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional, torch)
    assert text in str(theirs.value)
    with pytest.raises(kind or Exception) as ours:
        call(F, mt)
    assert text in str(ours.value)


def test_one_implementation_per_torch_name():
    import micrograd.tensors.functional as tensor_functional
    import micrograd.tensors.nn as tensor_nn

    for name in F.__all__:
        assert getattr(F, name) is getattr(tensor_functional, name)
    assert tensor_nn.functional is tensor_functional
    assert not any(n.endswith("nn.functional") for n in __import__("sys").modules
                   if n.startswith("micrograd.tensors"))


LOSS_NAMES = sorted(n for n in F.__all__ if n.endswith("_loss") or n in ("cross_entropy",
                                                                         "kl_div"))
LOSS_MODULES = sorted(n for n in nn.__all__ if n.endswith("Loss"))


@pytest.mark.parametrize("name", LOSS_NAMES)
def test_loss_function_takes_torchs_arguments_in_torchs_order(name):
    import inspect

    ours = list(inspect.signature(getattr(F, name)).parameters)
    assert ours == list(inspect.signature(getattr(torch.nn.functional, name)).parameters)


@pytest.mark.parametrize("name", LOSS_MODULES)
def test_loss_module_takes_torchs_arguments_in_torchs_order(name):
    import inspect

    theirs, ours = getattr(torch.nn, name), getattr(nn, name)
    assert list(inspect.signature(ours).parameters) == list(
        inspect.signature(theirs).parameters)
    assert list(inspect.signature(ours.forward).parameters) == list(
        inspect.signature(theirs.forward).parameters)


def test_legacy_size_average_and_reduce_mean_what_they_mean_in_torch():
    x, y = normal(3, 2), normal(3, 2)
    for flags in ({"size_average": False}, {"reduce": False}, {"size_average": True}):
        with pytest.warns(UserWarning, match="size_average and reduce"):
            ours = F.mse_loss(mt.tensor(x), mt.tensor(y), **flags)
        with pytest.warns(UserWarning):
            theirs = torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(y), **flags)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
