"""torch.nn.functional functions that micrograd.tensors.functional does not have yet.

Each is composed of existing Tensor ops, so its gradient is right by construction; the
ones marked `# TODO kernel:` are candidates for one fused op (faster, one graph node);
gelu, layer_norm and batch_norm hand over to the fused ops of tensors.functional.
`micrograd.torch.nn.functional` re-exports these with the rest of tensors.functional.

(These live here, not in micrograd/torch/, so that the layers can use them without the
tensors package importing the torch facade above it.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

import micrograd.tensors as _tensors
from micrograd.tensors import Tensor
from micrograd.tensors import functional as _F
from micrograd.tensors import random as streams
from micrograd.tensors.nn.init import _random_fill

__all__ = [
    "gelu", "layer_norm", "batch_norm", "dropout", "embedding", "l1_loss", "mse_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss",
]


def _constant(array: np.ndarray) -> Tensor:
    """A tensor around `array` that records no graph (shared, not copied)."""
    t = _tensors.tensor(0.0)
    t._array = array
    return t


def _as_tensor(x: Any, like: Tensor) -> Tensor:
    return x if isinstance(x, Tensor) else _constant(np.asarray(x, dtype=like._array.dtype))


def _reduce(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return losses.mean()
    if reduction == "sum":
        return losses.sum()
    if reduction == "none":
        return losses
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x Phi(x), or torch's tanh approximation: the fused op of tensors.functional."""
    return _F.gelu(input, approximate)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias over the last len(normalized_shape) dims:
    the fused op of tensors.normalization (one node)."""
    return _F.layer_norm(input, normalized_shape, weight, bias, eps)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float | None = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) of (N, C) or (N, C, L) input. training: by the batch's
    mean and biased variance, and update the running statistics in place (running_var with
    the unbiased variance, as torch); otherwise by the running statistics. One fused node
    (tensors.normalization), except momentum=None (a cumulative average), composed here."""
    if momentum is not None:
        return _F.batch_norm(input, running_mean, running_var, weight, bias, training,
                             momentum, eps)
    if input.ndim not in (2, 3):
        raise ValueError(f"batch_norm expects (N, C) or (N, C, L) input, got shape "
                         f"{tuple(input.shape)}")
    dims = (0,) if input.ndim == 2 else (0, 2)
    shape = (1, -1) if input.ndim == 2 else (1, -1, 1)
    if training:
        count = input.numel() // input.shape[1]
        if count <= 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {tuple(input.shape)}")
        mean = input.mean(dim=dims, keepdim=True)
        centered = input - mean
        var = (centered * centered).mean(dim=dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            m = 0.1 if momentum is None else momentum
            batch_mean = mean._array.reshape(-1)
            unbiased = var._array.reshape(-1) * (count / (count - 1))
            running_mean._array[...] = (1 - m) * running_mean._array + m * batch_mean
            running_var._array[...] = (1 - m) * running_var._array + m * unbiased
    else:
        if running_mean is None or running_var is None:
            raise ValueError("batch_norm in eval mode needs running_mean and running_var")
        mean = _constant(running_mean._array.reshape(shape))
        centered = input - mean
        var = _constant(running_var._array.reshape(shape))
    out = centered / (var + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False,
            generator: Any = None) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only)."""
    if isinstance(p, bool) or not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    dtype = input._array.dtype if input._array.dtype.kind == "f" else np.dtype(np.float32)
    if isinstance(generator, np.random.Generator):  # numpy's numbers, not torch's
        draw = _random_fill(np.empty(input.shape), "uniform", 0.0, 1.0, generator)
        keep = (draw >= p).astype(dtype) / np.asarray(1.0 - p, dtype=dtype)
    else:  # torch's mask: Bernoulli(1 - p) from torch's stream, scaled by 1 / (1 - p)
        keep = streams.dropout_mask(input.shape, p, dtype, generator)
    return input * _constant(keep)


def embedding(input: Any, weight: Tensor, padding_idx: int | None = None) -> Tensor:
    """weight[input]: the rows of the table for integer indices of any shape."""
    index = input._array if isinstance(input, Tensor) else np.asarray(input)
    if index.dtype.kind not in "iu":
        raise TypeError(f"embedding indices must be integers (int64), got dtype {index.dtype}")
    if index.size and (index.min() < -weight.shape[0] or index.max() >= weight.shape[0]):
        raise IndexError(f"embedding index out of range for a table of {weight.shape[0]} rows")
    return weight[_constant(index)]


def l1_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """mean |input - target|."""
    target = _as_tensor(target, input)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"l1_loss: input shape {tuple(input.shape)} and target shape "
                         f"{tuple(target.shape)} must be equal")
    return _reduce((input - target).abs(), reduction)


def mse_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    return _F.mse_loss(input, target, reduction=reduction)


def binary_cross_entropy(input: Tensor, target: Any, weight: Tensor | None = None,
                         reduction: str = "mean") -> Tensor:
    """-(y log x + (1 - y) log(1 - x)), each log clamped at -100 as torch does."""
    target = _as_tensor(target, input)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"binary_cross_entropy: target shape {tuple(target.shape)} must "
                         f"equal input shape {tuple(input.shape)}")
    x = input._array
    if x.size and (x.min() < 0 or x.max() > 1):
        raise ValueError("binary_cross_entropy: all input values must be between 0 and 1 "
                         "(apply sigmoid first, or use binary_cross_entropy_with_logits)")
    losses = -(target * input.log().clamp(min=-100)
               + (1.0 - target) * (1.0 - input).log().clamp(min=-100))
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Any, weight: Tensor | None = None,
                                     reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """binary_cross_entropy(sigmoid(input), target), computed stably:
    (1 - y) x + l (log(1 + e^-|x|) + max(-x, 0)), l = 1 + (pos_weight - 1) y."""
    target = _as_tensor(target, input)
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"binary_cross_entropy_with_logits: target shape "
                         f"{tuple(target.shape)} must equal input shape {tuple(input.shape)}")
    # TODO kernel: log1p for the softplus term
    softplus_neg = ((-input.abs()).exp() + 1.0).log() + (-input).relu()  # log(1 + e^-x)
    if pos_weight is not None:
        log_weight = (pos_weight - 1.0) * target + 1.0
        losses = (1.0 - target) * input + log_weight * softplus_neg
    else:
        losses = (1.0 - target) * input + softplus_neg
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, reduction)


def _move_class_dim_last(input: Tensor) -> Tensor:
    """(N, C, d1, ...) -> (N * d1 * ..., C): torch's class dimension is dim 1."""
    if input.ndim <= 2:
        return input
    dims = (0, *range(2, input.ndim), 1)
    return input.permute(*dims).reshape(-1, input.shape[1])


def nll_loss(input: Tensor, target: Any, weight: Tensor | None = None,
             ignore_index: int = -100, reduction: str = "mean") -> Tensor:
    """-input[n, target[n]] (weighted by weight[target[n]]), ignoring ignore_index; 'mean'
    divides by the total weight of the targets kept, as torch."""
    t = target._array if isinstance(target, Tensor) else np.asarray(target)
    if weight is None and ignore_index == -100 and input.ndim in (1, 2) and not (t == -100).any():
        return _F.nll_loss(input, target, reduction=reduction)
    logp = _move_class_dim_last(input)
    t = t.reshape(-1) if input.ndim > 1 else t.reshape(())
    if t.dtype.kind not in "iu":
        raise TypeError(f"target must hold integer class indices (int64), got dtype {t.dtype}")
    classes = logp.shape[-1]
    keep = t != ignore_index
    bad = t[keep]
    if bad.size and (bad.min() < 0 or bad.max() >= classes):
        raise IndexError(f"target {bad.max() if bad.max() >= classes else bad.min()} is out "
                         f"of bounds for {classes} classes")
    safe = np.where(keep, t, 0)
    if logp.ndim == 1:
        picked = logp[_constant(safe)]
    else:
        picked = logp[_constant(np.arange(len(safe))), _constant(safe)]
    w = np.ones(classes, dtype=input._array.dtype) if weight is None else weight._array
    row_weight = np.where(keep, w[safe], 0).astype(input._array.dtype)
    losses = -picked * _constant(row_weight)
    if reduction == "mean":
        return losses.sum() / _constant(np.asarray(row_weight.sum(), dtype=input._array.dtype))
    if reduction == "none" and input.ndim > 2:
        rest = (input.shape[0], *input.shape[2:])
        return losses.reshape(*rest)
    return _reduce(losses, reduction)


def cross_entropy(input: Tensor, target: Any, weight: Tensor | None = None,
                  ignore_index: int = -100, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """nll_loss(log_softmax(input, dim=1), target); with label_smoothing e the target
    distribution is (1 - e) onehot + e / C, as torch."""
    t = target._array if isinstance(target, Tensor) else np.asarray(target)
    plain = weight is None and label_smoothing == 0.0 and input.ndim in (1, 2)
    if plain and t.dtype.kind in "iu" and not (t == ignore_index).any():
        return _F.cross_entropy(input, target, reduction=reduction)  # one fused node
    if t.dtype.kind == "f":
        raise NotImplementedError("cross_entropy with class probabilities as target is not "
                                  "supported yet: pass integer class indices")
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    logp = input.log_softmax(dim=class_dim)
    nll = nll_loss(logp, target, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return nll
    # the smoothing term: -sum_c w_c logp_c / C per kept row, reduced like the nll term
    flat = _move_class_dim_last(logp)
    classes = flat.shape[-1]
    keep = (t.reshape(-1) if input.ndim > 1 else t.reshape(())) != ignore_index
    w = np.ones(classes, dtype=input._array.dtype) if weight is None else weight._array
    smooth = -(flat * _constant(w.astype(input._array.dtype))).sum(dim=-1) \
        * _constant(np.asarray(keep, dtype=input._array.dtype))
    if reduction == "mean":
        t_flat = np.where(keep, t.reshape(-1) if input.ndim > 1 else t, 0)
        total = (np.where(keep, w[t_flat], 0)).sum()
        smooth_loss = smooth.sum() / _constant(np.asarray(total, dtype=input._array.dtype))
    elif reduction == "none" and input.ndim > 2:
        smooth_loss = smooth.reshape(input.shape[0], *input.shape[2:])
    else:
        smooth_loss = _reduce(smooth, reduction)
    return (1.0 - label_smoothing) * nll + (label_smoothing / classes) * smooth_loss
