"""Loss functions, as torch.nn.functional: each one graph node with a closed-form gradient.

cross_entropy (with ignore_index, label_smoothing and reduction=), nll_loss, mse_loss,
l1_loss, binary_cross_entropy and binary_cross_entropy_with_logits. A training step ends
in one of these, so fusing saves several nodes (and temporaries) per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.ops.arrays import ARRAYS
from micrograd.tensors.dtypes import promote
from micrograd.tensors.function import Tensor, accumulate, node


def _reduce(losses: np.ndarray, reduction: str) -> tuple[np.ndarray, float | None]:
    """The reduced loss and the factor each element's gradient gets (None: per element)."""
    if reduction == "mean":  # sum * (1/n): ndarray.mean() costs several µs of Python
        scale = 1.0 / losses.size if losses.size else np.nan
        return np.asarray(losses.sum() * scale), scale
    if reduction == "sum":
        return np.asarray(losses.sum()), 1.0
    if reduction == "none":
        return losses, None
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def _class_targets(target: Any, logits: np.ndarray, ignore_index: int | None = None
                   ) -> np.ndarray:
    t = target._array if isinstance(target, Tensor) else np.asarray(target)
    if t.dtype.kind not in "iu":
        raise TypeError(
            f"target must hold integer class indices (int64), got dtype {t.dtype}; "
            "e.g. tensor([0, 2, 1])"
        )
    expected = logits.shape[:-1]
    if t.shape != expected:
        raise ValueError(
            f"target of shape {t.shape} does not match logits of shape {logits.shape} "
            f"(expected target shape {expected})"
        )
    checked = t if ignore_index is None else t[t != ignore_index]
    if checked.size:
        low, high = checked.min(), checked.max()
        if low < 0 or high >= logits.shape[-1]:
            bad = low if low < 0 else high
            raise IndexError(f"target {bad} is out of bounds for {logits.shape[-1]} classes")
    return t


def _row_max(X: np.ndarray) -> np.ndarray:
    """The max over the last axis, kept as a size-1 axis.

    numpy reduces a short last axis (10 classes) row by row, ~40 ns a row; the transposed
    copy reduces whole rows of the copy at once: 11 instead of 80 us for 1,797 x 10."""
    if X.ndim == 2 and X.shape[-1] <= 32:
        return np.ascontiguousarray(X.T).max(axis=0)[:, None]
    return X.max(axis=-1, keepdims=True)


def _check_reduction(reduction: str) -> None:
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


def cross_entropy(input: Tensor, target: Any, weight: Any = None, ignore_index: int = -100,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> Tensor:
    """-log softmax(input)[target], for logits (N, C) or (C,) and integer targets; one node
    with d/dinput = softmax(input) - onehot(target).

    As torch: targets equal to `ignore_index` add nothing (and the mean is over the others);
    label_smoothing=e mixes the target with the uniform distribution, (1 - e) onehot + e/C.
    """
    if isinstance(weight, str):  # the old signature cross_entropy(input, target, reduction)
        weight, reduction = None, weight
    if weight is not None:
        raise NotImplementedError("cross_entropy: class weights (weight=) are not supported")
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    X = input._array
    if X.ndim not in (1, 2):
        raise ValueError(f"cross_entropy expects logits of shape (N, C) or (C,), got {X.shape}")
    t = _class_targets(target, X, ignore_index)
    ignored = t == ignore_index
    if label_smoothing == 0.0 and not ignored.any():
        return _cross_entropy(input, t, reduction)
    return _cross_entropy_general(input, t, ignored, reduction, label_smoothing)


def _log_softmax_rows(X: np.ndarray) -> np.ndarray:
    z = X - _row_max(X) if X.size else X  # shifted: exp cannot overflow
    # the row sums as a product with a ones vector: BLAS beats sum() over a short last axis
    return z - np.log(np.exp(z) @ np.ones((X.shape[-1], 1), dtype=X.dtype))


def _cross_entropy(input: Tensor, t: np.ndarray, reduction: str) -> Tensor:
    """The common case: every target counts, no smoothing."""
    X = input._array
    logp = _log_softmax_rows(X)
    # each row's target entry, as positions in the flat array (cheaper than [rows, t])
    picked = t if X.ndim == 1 else np.arange(0, X.size, max(X.shape[-1], 1)) + t
    nll = -logp.reshape(-1)[picked]
    loss, scale = _reduce(nll, reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = np.exp(logp)  # softmax, a fresh array: safe to edit in place
        d.reshape(-1)[picked] -= 1
        if scale is None:
            d *= g[..., None]
        else:
            d *= g * scale
        accumulate(input, d)

    return node(loss, (input,), "cross_entropy", grad_fn, input._requires_grad)


def _cross_entropy_general(input: Tensor, t: np.ndarray, ignored: np.ndarray,
                           reduction: str, smoothing: float) -> Tensor:
    """With ignored targets and/or label smoothing: per row,
    loss = (1 - e) (-logp[target]) + e mean_c(-logp[c]), and 0 for an ignored row;
    d/dinput = softmax - ((1 - e) onehot + e / C), 0 for an ignored row."""
    X = input._array
    squeeze = X.ndim == 1
    X2 = X.reshape(1, -1) if squeeze else X
    t2, keep = t.reshape(-1), ~ignored.reshape(-1)
    classes = X2.shape[-1]
    logp = _log_softmax_rows(X2)
    rows = np.arange(X2.shape[0])
    safe = np.where(keep, t2, 0)
    nll = -logp[rows, safe]
    per_row = (1 - smoothing) * nll
    if smoothing:
        per_row = per_row - smoothing * logp.mean(axis=-1)
    per_row = np.where(keep, per_row, 0).astype(X.dtype)
    count = int(keep.sum())
    if reduction == "none":
        loss, scale = (per_row[0] if squeeze else per_row), None
    elif reduction == "sum":
        loss, scale = np.asarray(per_row.sum()), 1.0
    else:
        with np.errstate(all="ignore"):  # every target ignored: nan, as in torch
            loss = np.asarray(per_row.sum() / X.dtype.type(count))
        scale = 1.0 / count if count else np.nan
    loss = np.asarray(loss, dtype=X.dtype)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = np.exp(logp)
        d[rows, safe] -= 1 - smoothing
        if smoothing:
            d -= smoothing / classes
        d *= keep[:, None]
        if scale is None:
            d *= np.reshape(g, (-1, 1))
        else:
            d *= g * scale
        accumulate(input, d.reshape(X.shape))

    return node(loss, (input,), "cross_entropy", grad_fn, input._requires_grad)


def nll_loss(input: Tensor, target: Any, weight: Any = None, ignore_index: int = -100,
             reduction: str = "mean") -> Tensor:
    """-input[target], averaged over the targets not equal to ignore_index: the loss for
    log-probabilities (after log_softmax); one node, d/dinput = -1/count at the targets."""
    if isinstance(weight, str):  # the old signature nll_loss(input, target, reduction)
        weight, reduction = None, weight
    if weight is not None:
        raise NotImplementedError("nll_loss: class weights (weight=) are not supported")
    _check_reduction(reduction)
    X = input._array
    if X.ndim not in (1, 2):
        raise ValueError(f"nll_loss expects input of shape (N, C) or (C,), got {X.shape}")
    t = _class_targets(target, X, ignore_index)
    X2 = X.reshape(1, -1) if X.ndim == 1 else X
    keep = (t != ignore_index).reshape(-1)
    rows, safe = np.arange(X2.shape[0]), np.where(keep, t.reshape(-1), 0)
    per_row = np.where(keep, -X2[rows, safe], 0).astype(X.dtype)
    count = int(keep.sum())
    if reduction == "none":
        loss, scale = (per_row[0] if X.ndim == 1 else per_row), None
    elif reduction == "sum":
        loss, scale = per_row.sum(), 1.0
    else:
        with np.errstate(all="ignore"):
            loss = per_row.sum() / X.dtype.type(count)
        scale = 1.0 / count if count else np.nan

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = np.zeros(X2.shape, dtype=X.dtype)
        weights = -keep.astype(X.dtype) * (np.reshape(g, -1) if scale is None else g * scale)
        d[rows, safe] = weights
        accumulate(input, d.reshape(X.shape))

    return node(np.asarray(loss, dtype=X.dtype), (input,), "nll_loss", grad_fn,
                input._requires_grad)


def mse_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """mean((input - target)^2);  d/dinput = 2 (input - target) / N  (target likewise, negated)."""
    if not isinstance(target, Tensor):
        target = Tensor(np.asarray(target, dtype=input._array.dtype))
    X, Y = input._array, target._array
    if X.shape != Y.shape:
        raise ValueError(
            f"mse_loss: input shape {X.shape} and target shape {Y.shape} must be equal"
        )
    if X.dtype != Y.dtype:  # PyTorch's promotion: an int64 target keeps a float32 loss
        X, Y = promote(X, Y, "mse_loss")
    diff = X - Y
    loss, scale = _reduce(diff * diff, reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = 2 * diff * (g if scale is None else g * scale)
        if input._requires_grad:
            accumulate(input, d)
        if target._requires_grad:
            accumulate(target, -d)

    return node(loss, (input, target), "mse_loss", grad_fn)


def _pair(input: Tensor, target: Any, op: str) -> tuple[Tensor, np.ndarray, np.ndarray]:
    if not isinstance(target, Tensor):
        target = Tensor(np.asarray(target, dtype=input._array.dtype))
    X, Y = input._array, target._array
    if X.shape != Y.shape:
        raise ValueError(f"{op}: input shape {X.shape} and target shape {Y.shape} must be "
                         "equal")
    if X.dtype != Y.dtype:
        X, Y = promote(X, Y, op)
    return target, X, Y


def l1_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """mean |input - target|;  d/dinput = sign(input - target) / N."""
    target, X, Y = _pair(input, target, "l1_loss")
    diff = X - Y
    loss, scale = _reduce(np.abs(diff), reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = np.sign(diff) * (g if scale is None else g * scale)
        if input._requires_grad:
            accumulate(input, d)
        if target._requires_grad:
            accumulate(target, -d)

    return node(loss, (input, target), "l1_loss", grad_fn)


def binary_cross_entropy(input: Tensor, target: Any, weight: Any = None,
                         reduction: str = "mean") -> Tensor:
    """-(t log p + (1 - t) log(1 - p)) for probabilities p = input, each log clamped at
    -100 as torch does;  d/dp = (p - t) / max(p (1 - p), 1e-12)."""
    target, P, Y = _pair(input, target, "binary_cross_entropy")
    if P.size and (P.min() < 0 or P.max() > 1):
        raise ValueError("binary_cross_entropy: all elements of input should be between 0 "
                         "and 1 (probabilities; for logits use binary_cross_entropy_with_logits)")
    w = None if weight is None else (weight._array if isinstance(weight, Tensor)
                                     else np.asarray(weight, dtype=P.dtype))
    with np.errstate(divide="ignore"):
        log_p = np.maximum(np.log(P), -100)
        log_q = np.maximum(np.log1p(-P), -100)
    losses = -(Y * log_p + (1 - Y) * log_q)
    if w is not None:
        losses = losses * w
    loss, scale = _reduce(losses.astype(P.dtype), reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None or not input._requires_grad:
            return
        d = (P - Y) / np.maximum(P * (1 - P), 1e-12)
        if w is not None:
            d = d * w
        accumulate(input, d * (g if scale is None else g * scale))

    return node(loss, (input,), "binary_cross_entropy", grad_fn, input._requires_grad)


def binary_cross_entropy_with_logits(input: Tensor, target: Any, weight: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None
                                     ) -> Tensor:
    """binary_cross_entropy(sigmoid(x), t) computed stably from the logits x:
    max(x, 0) - x t + log(1 + e^-|x|);  d/dx = sigmoid(x) - t."""
    if pos_weight is not None:
        raise NotImplementedError("binary_cross_entropy_with_logits: pos_weight is not "
                                  "supported")
    target, X, Y = _pair(input, target, "binary_cross_entropy_with_logits")
    w = None if weight is None else (weight._array if isinstance(weight, Tensor)
                                     else np.asarray(weight, dtype=X.dtype))
    losses = np.maximum(X, 0) - X * Y + np.log1p(np.exp(-np.abs(X)))
    if w is not None:
        losses = losses * w
    loss, scale = _reduce(losses.astype(X.dtype), reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = ARRAYS.sigmoid(X) - Y
        if w is not None:
            d = d * w
        d = d * (g if scale is None else g * scale)
        if input._requires_grad:
            accumulate(input, d)
        if target._requires_grad:  # d/dt = -x
            accumulate(target, -X * (g if scale is None else g * scale)
                       * (1 if w is None else w))

    return node(loss, (input, target), "binary_cross_entropy_with_logits", grad_fn)
