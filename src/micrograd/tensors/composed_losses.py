"""The other torch.nn.functional losses a beginner meets, each composed of Tensor ops.

smooth_l1_loss, huber_loss, kl_div, poisson_nll_loss, gaussian_nll_loss (regression and
distributions); margin_ranking_loss, hinge_embedding_loss, soft_margin_loss,
multilabel_soft_margin_loss, cosine_embedding_loss, triplet_margin_loss (margins).

Each is written once, with torch's formula, arguments and errors, out of Tensor ops, so its
gradient (to every input, targets included) follows from theirs. They are rarer than the
fused losses in `losses.py`, which end most training steps and so are single nodes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from micrograd._validate import check_reduction, check_weight_size, legacy_reduction
from micrograd.tensors import torch_warnings
from micrograd.tensors.function import Tensor

__all__ = [
    "smooth_l1_loss", "huber_loss", "kl_div", "poisson_nll_loss", "gaussian_nll_loss",
    "margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
    "multilabel_soft_margin_loss", "cosine_embedding_loss", "triplet_margin_loss",
]


def _tensor(x: Any, like: Tensor) -> Tensor:
    """x itself if a Tensor, else a constant of like's dtype."""
    return x if isinstance(x, Tensor) else Tensor(np.asarray(x, dtype=like._array.dtype))


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if check_reduction(reduction) == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def _same_shape(op: str, a: Tensor, b: Tensor) -> None:
    if tuple(a.shape) != tuple(b.shape):
        raise ValueError(f"{op}: input shape {list(a.shape)} and target shape "
                         f"{list(b.shape)} must be equal")


def _softplus(z: Tensor) -> Tensor:
    """log(1 + e^z), the registry's op without torch's threshold (its gradient is sigmoid(z)
    everywhere: composed of abs and relu, it was 0 at z = 0 instead of 1/2)."""
    return z.softplus(1.0, math.inf)


def _where_target(condition: np.ndarray, values: Tensor) -> Tensor:
    """values where condition holds, else 0 (condition: a constant mask)."""
    return values * Tensor(condition.astype(values._array.dtype))


# --- regression and distributions ----------------------------------------------------------

def smooth_l1_loss(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
                   reduction: str = "mean", beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta (d = input - target);
    beta = 0 is l1_loss."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise ValueError(f"smooth_l1_loss does not support negative values for beta, got "
                         f"{beta}")
    target = _tensor(target, input)
    torch_warnings.target_size("smooth_l1_loss", input.shape, target.shape)
    d = input - target
    if beta == 0:
        return _reduce(d.abs(), reduction)
    small = np.abs(d._array) < beta
    losses = _where_target(small, 0.5 * d * d / beta) + _where_target(~small,
                                                                      d.abs() - 0.5 * beta)
    return _reduce(losses, reduction)


def huber_loss(input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0,
               weight: Any = None) -> Tensor:
    """0.5 d^2 where |d| <= delta, else delta (|d| - 0.5 delta) (d = input - target):
    smooth_l1_loss(beta=delta) times delta. weight= (input's shape) scales each element;
    unlike mse_loss's, torch's mean then divides by the element count."""
    if not delta > 0:
        raise ValueError(f"huber_loss does not support non-positive values for delta, got "
                         f"{delta}")
    target = _tensor(target, input)
    torch_warnings.target_size("huber_loss", input.shape, target.shape)
    d = input - target
    small = np.abs(d._array) <= delta
    losses = _where_target(small, 0.5 * d * d) + _where_target(~small,
                                                               delta * (d.abs() - 0.5 * delta))
    if weight is not None:
        weight = _tensor(weight, input)
        check_weight_size(weight.shape, input.shape)
        losses = losses * weight
    return _reduce(losses, reduction)


def kl_div(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> Tensor:
    """KL(target || exp(input)) per element, for log-probabilities `input`:
    target (log target - input), 0 where target = 0; with log_target=True the target is
    given as log-probabilities too: e^target (target - input). reduction="batchmean"
    divides the sum by the batch size (the true KL divergence); "mean" by the element count,
    as torch (which warns that it is not the KL divergence)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input)
    if log_target:
        losses = target.exp() * (target - input)
    else:
        positive = target._array > 0
        # log of 1 where the target is 0: the term is 0 there, and so is its gradient
        safe = target * Tensor(positive.astype(target._array.dtype)) + Tensor(
            (~positive).astype(target._array.dtype))
        losses = target * (safe.log() - input)
    if reduction == "batchmean":
        return losses.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(losses, reduction)


def poisson_nll_loss(input: Tensor, target: Any, log_input: bool = True, full: bool = False,
                     size_average: Any = None, eps: float = 1e-8, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of target ~ Poisson(rate): e^input - target input when
    input is the log-rate (log_input=True), else input - target log(input + eps); full=True
    adds Stirling's term target log target - target + 0.5 log(2 pi target) where target > 1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input)
    rate_term = input.exp() if log_input else input
    losses = rate_term - target * (input if log_input else (input + eps).log())
    if full:
        big = target._array > 1
        safe = _where_target(big, target) + Tensor((~big).astype(target._array.dtype))
        stirling = target * safe.log() - target + 0.5 * (2 * math.pi * safe).log()
        losses = losses + _where_target(big, stirling)
    return _reduce(losses, reduction)


def gaussian_nll_loss(input: Tensor, target: Any, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> Tensor:
    """The negative log-likelihood of target ~ Normal(input, var):
    0.5 (log var + (input - target)^2 / var) (+ 0.5 log 2 pi with full=True). var has
    input's shape, or it with the last dimension 1 or left out (one variance for it); it is
    clamped at eps for the loss, the gradient passing through unchanged as in torch."""
    target = _tensor(target, input)
    var = _tensor(var, input)
    shape, var_shape = tuple(input.shape), tuple(var.shape)
    if var_shape != shape:
        if shape[:-1] == var_shape:
            var = var.unsqueeze(-1)
        elif not (shape[:-1] == var_shape[:-1] and var_shape[-1:] == (1,)):
            raise ValueError(f"var is of incorrect size: expected {list(shape)}, that with "
                             f"its last dimension 1 or left out, got {list(var_shape)}")
    if (var._array < 0).any():
        raise ValueError("var has negative entry/entries")
    held = var._array
    var = var + Tensor(np.maximum(held, eps).astype(held.dtype) - held)  # clamp, gradient 1
    losses = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        losses = losses + 0.5 * math.log(2 * math.pi)
    return _reduce(losses, reduction)


# --- margins -------------------------------------------------------------------------------

def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Any, margin: float = 0.0,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, -target (input1 - input2) + margin): target 1 says input1 should rank
    higher, -1 that input2 should."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input1)
    return _reduce((-target * (input1 - input2) + margin).relu(), reduction)


def hinge_embedding_loss(input: Tensor, target: Any, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """input (a distance) where target = 1; max(0, margin - input) where target = -1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input)
    t = target._array
    return _reduce(_where_target(t != -1, input) + _where_target(t != 1, (margin - input).relu()),
                   reduction)


def soft_margin_loss(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + e^(-target input)) for targets 1 or -1: logistic loss."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input)
    if target._requires_grad:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    _same_shape("soft_margin_loss", input, target)
    return _reduce(_softplus(-target * input), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Any, weight: Any = None,
                                size_average: Any = None, reduce: Any = None,
                                reduction: str = "mean") -> Tensor:
    """Per row, the mean over the C labels (last dimension) of
    -(target log sigmoid(input) + (1 - target) log sigmoid(-input)), each label scaled by
    weight[c]: one binary cross-entropy per label."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input)
    _same_shape("multilabel_soft_margin_loss", input, target)
    # log sigmoid(x) = -softplus(-x)
    losses = target * _softplus(-input) + (1 - target) * _softplus(input)
    if weight is not None:
        losses = losses * _tensor(weight, input)
    return _reduce(losses.sum(dim=-1) / input.shape[-1], reduction)


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Any, margin: float = 0.0,
                          size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> Tensor:
    """1 - cos(input1, input2) where target = 1; max(0, cos - margin) where target = -1;
    the cosine over the last dimension of (N, D) or (D,) inputs, each squared norm
    + 1e-12 as torch."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = _tensor(target, input1)
    if input1.ndim not in (1, 2) or tuple(input1.shape) != tuple(input2.shape):
        raise ValueError(f"cosine_embedding_loss expects two inputs of one shape, (N, D) or "
                         f"(D,), got {list(input1.shape)} and {list(input2.shape)}")
    if tuple(target.shape) != tuple(input1.shape[:-1]):
        raise ValueError(f"cosine_embedding_loss: target of shape {list(target.shape)} must "
                         f"have one ±1 per pair, shape {list(input1.shape[:-1])}")
    dot = (input1 * input2).sum(dim=-1)
    square1 = (input1 * input1).sum(dim=-1) + 1e-12
    square2 = (input2 * input2).sum(dim=-1) + 1e-12
    cos = dot / (square1 * square2).sqrt()
    t = target._array
    return _reduce(_where_target(t == 1, 1 - cos) + _where_target(t == -1, (cos - margin).relu()),
                   reduction)


def _pairwise_distance(a: Tensor, b: Tensor, p: float, eps: float) -> Tensor:
    """||a - b + eps||_p over the last dimension, as torch.pairwise_distance."""
    d = a - b + eps
    if p == 2:
        return (d * d).sum(dim=-1).sqrt()
    return (d.abs() ** p).sum(dim=-1) ** (1 / p)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0,
                        p: float = 2, eps: float = 1e-6, swap: bool = False,
                        size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> Tensor:
    """max(0, d(anchor, positive) - d(anchor, negative) + margin), d the p-norm distance
    over the last dimension; swap=True uses min(d(a, n), d(p, n)) as the negative distance."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if not p > 0:
        raise ValueError(f"triplet_margin_loss: p must be positive, got {p}")
    if not tuple(anchor.shape) == tuple(positive.shape) == tuple(negative.shape):
        raise ValueError(f"triplet_margin_loss expects anchor, positive and negative of one "
                         f"shape, got {list(anchor.shape)}, {list(positive.shape)} and "
                         f"{list(negative.shape)}")
    d_pos = _pairwise_distance(anchor, positive, p, eps)
    d_neg = _pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = d_neg.minimum(_pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).relu(), reduction)
