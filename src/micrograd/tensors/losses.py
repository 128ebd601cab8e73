"""Loss functions, as torch.nn.functional: each one graph node with a closed-form gradient.

cross_entropy and nll_loss (weight=, ignore_index=, label_smoothing=, class dim 1 of
(N, C, d1, ...) input, class-probability targets), mse_loss, l1_loss, binary_cross_entropy
and binary_cross_entropy_with_logits (weight=, pos_weight=). A training step ends in one
of these, so fusing saves several nodes (and temporaries) per step. They are THE
implementation of these torch names: `torch.nn.functional` and `nn.*Loss` call them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd._validate import check_reduction, check_weight_size, legacy_reduction
from micrograd.ops.arrays import ARRAYS
from micrograd.tensors import torch_warnings
from micrograd.tensors.dtypes import promote
from micrograd.tensors.function import Tensor, accumulate, node, shared_ones
from micrograd.tensors.size import Size


def _reduce(losses: np.ndarray, reduction: str) -> tuple[np.ndarray, float | None]:
    """The reduced loss and the factor each element's gradient gets (None: per element)."""
    check_reduction(reduction)
    if reduction == "mean":  # sum * (1/n): ndarray.mean() costs several µs of Python
        scale = 1.0 / losses.size if losses.size else np.nan
        return np.asarray(losses.sum() * scale), scale
    if reduction == "sum":
        return np.asarray(losses.sum()), 1.0
    return losses, None


def _weighted_reduce(losses: np.ndarray, w: np.ndarray | None, dtype: np.dtype, reduction: str
                     ) -> tuple[np.ndarray, Any]:
    """The per-element losses times the optional weight w, reduced; and a function that
    turns the result's gradient g into each element's upstream factor (the reduction's
    scale times w)."""
    if w is not None:
        losses = losses * w
    loss, scale = _reduce(losses.astype(dtype), reduction)

    def upstream(g: np.ndarray) -> Any:
        return (g if scale is None else g * scale) * (1 if w is None else w)

    return loss, upstream


def _row_max(X: np.ndarray) -> np.ndarray:
    """The max over the last axis, kept as a size-1 axis.

    numpy reduces a short last axis (10 classes) row by row, ~40 ns a row; the transposed
    copy reduces whole rows of the copy at once: 11 instead of 80 us for 1,797 x 10."""
    if X.ndim == 2 and X.shape[-1] <= 32:
        return np.ascontiguousarray(X.T).max(axis=0)[:, None]
    return X.max(axis=-1, keepdims=True)


def cross_entropy(input: Tensor, target: Any, weight: Any = None, size_average: Any = None,
                  ignore_index: int = -100, reduce: Any = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """-log softmax(input)[target] over the class dimension (dim 1, or 0 for 1-d input);
    one node with d/dinput = softmax(input) - onehot(target).

    As torch: input (C,), (N, C) or (N, C, d1, ...); target class indices, or class
    probabilities of input's shape; weight[c] scales class c (the mean divides by the
    weight of the targets kept); targets equal to `ignore_index` add nothing;
    label_smoothing=e mixes the target with the uniform distribution, (1 - e) onehot + e/C.
    """
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    X = input._array
    if X.ndim == 0:
        raise ValueError("cross_entropy expects logits of shape (C,), (N, C) or "
                         "(N, C, d1, ...), got a 0-d tensor")
    t = _target_array(target)
    if t.dtype.kind == "f" and t.shape == X.shape:
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing)
    rows, t_rows = _class_rows(X, t, ignore_index, "cross_entropy")
    w = _class_weight(weight, X)
    ignored = t_rows == ignore_index
    if X.ndim <= 2 and w is None and label_smoothing == 0.0 and not np.logical_or.reduce(
            ignored, axis=None):  # (ignored.any() without its Python wrapper)
        return _cross_entropy(input, t, reduction)  # the common case, fastest
    return _class_loss(input, rows, t_rows, ~ignored, w, reduction, label_smoothing,
                       from_logits=True)


def _log_softmax_rows(X: np.ndarray) -> np.ndarray:
    z = X - _row_max(X) if X.size else X  # shifted: exp cannot overflow
    # the row sums as a product with a ones vector: BLAS beats sum() over a short last axis
    return z - np.log(np.exp(z) @ shared_ones((X.shape[-1], 1), X.dtype))


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


def _target_array(target: Any) -> np.ndarray:
    return target._array if isinstance(target, Tensor) else np.asarray(target)


def _class_rows(X: np.ndarray, t: np.ndarray, ignore_index: int, op: str
                ) -> tuple[np.ndarray, np.ndarray]:
    """X with its class dimension (dim 1, or 0 for 1-d input) moved last and the rest
    flattened, (R, C); and the R targets, checked as torch checks them."""
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: target must hold integer class indices (int64), got dtype "
                        f"{t.dtype}; e.g. tensor([0, 2, 1])")
    expected = () if X.ndim == 1 else (X.shape[0], *X.shape[2:])
    if t.shape != expected:
        if X.ndim == 2 and t.ndim == 1:
            raise ValueError(f"Expected input batch_size ({X.shape[0]}) to match target "
                             f"batch_size ({t.shape[0]}): logits of shape {X.shape}, target "
                             f"of shape {t.shape}")
        raise ValueError(f"{op}: expected target size {list(expected)}, got {list(t.shape)} "
                         f"(for input of shape {list(X.shape)}, classes in dim "
                         f"{0 if X.ndim == 1 else 1})")
    classes = X.shape[0] if X.ndim == 1 else X.shape[1]
    t_rows = t.reshape(-1)
    # (minimum.reduce: ndarray.min without its Python wrapper; a tiny batch's loss pays it)
    if t_rows.size and (np.minimum.reduce(t_rows) < 0 or np.maximum.reduce(t_rows) >= classes):
        checked = t_rows[t_rows != ignore_index]  # out of range, or ignore_index: which?
        low, high = (checked.min(), checked.max()) if checked.size else (0, 0)
        if low < 0 or high >= classes:
            raise IndexError(f"Target {low if low < 0 else high} is out of bounds: there are "
                             f"{classes} classes, 0 to {classes - 1}")
    return _to_rows(X), t_rows


def _to_rows(A: np.ndarray) -> np.ndarray:
    """A (C,), (N, C) or (N, C, d1, ...) array as rows (R, C): the class dimension last."""
    if A.ndim <= 2:
        return A.reshape(1, -1) if A.ndim == 1 else A
    return np.moveaxis(A, 1, -1).reshape(-1, A.shape[1])


def _from_rows(d: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The inverse of _class_rows for a gradient (R, C)."""
    if len(shape) <= 2:
        return d.reshape(shape)
    return np.moveaxis(d.reshape(shape[0], *shape[2:], shape[1]), -1, 1)


def _class_weight(weight: Any, X: np.ndarray) -> np.ndarray | None:
    if weight is None:
        return None
    w = weight._array if isinstance(weight, Tensor) else np.asarray(weight)
    classes = X.shape[0] if X.ndim == 1 else X.shape[1]
    if w.shape != (classes,):
        raise ValueError(f"weight tensor should be defined either for all {classes} classes "
                         f"or no classes but got weight tensor of shape: {list(w.shape)}")
    return w.astype(X.dtype, copy=False)


def _per_row_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    return () if len(shape) == 1 else (shape[0], *shape[2:])


def _class_loss(input: Tensor, rows: np.ndarray, t: np.ndarray, keep: np.ndarray,
                w: np.ndarray | None, reduction: str, smoothing: float, from_logits: bool
                ) -> Tensor:
    """The general class-index loss, rows (R, C) of logits (from_logits) or log-probabilities:
    per row, keep * ((1 - e) w[t] (-logp[t]) + e/C sum_c w_c (-logp[c])); the mean divides by
    sum(keep * w[t]). d/dlogp is minus those coefficients; through log_softmax,
    d/dlogits = d/dlogp - softmax * sum_c d/dlogp."""
    X, dtype = input._array, input._array.dtype
    logp = _log_softmax_rows(rows) if from_logits else rows
    classes, index = rows.shape[-1], np.arange(rows.shape[0])
    safe = np.where(keep, t, 0)
    target_weight = keep.astype(dtype) if w is None else np.where(keep, w[safe], 0).astype(dtype)
    coefficient = np.zeros(rows.shape, dtype=dtype)  # -d(per row loss)/d logp
    coefficient[index, safe] = (1 - smoothing) * target_weight
    if smoothing:
        coefficient += (smoothing / classes) * keep[:, None] * (1 if w is None else w)
    per_row = -(coefficient * logp).sum(axis=-1).astype(dtype)
    if reduction == "none":
        loss, scale = per_row.reshape(_per_row_shape(X.shape)), None
    elif reduction == "sum":
        loss, scale = np.asarray(per_row.sum()), 1.0
    else:
        total = target_weight.sum()
        with np.errstate(all="ignore"):  # every target ignored: nan, as in torch
            loss = np.asarray(per_row.sum() / total)
        scale = 1.0 / total if total else np.nan

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        d = -coefficient * (np.reshape(g, (-1, 1)) if scale is None else g * scale)
        if from_logits:
            d -= np.exp(logp) * d.sum(axis=-1, keepdims=True)
        accumulate(input, _from_rows(d.astype(dtype, copy=False), X.shape))

    name = "cross_entropy" if from_logits else "nll_loss"
    return node(np.asarray(loss, dtype=dtype), (input,), name, grad_fn, input._requires_grad)


def _cross_entropy_probabilities(input: Tensor, target: Any, weight: Any, reduction: str,
                                 smoothing: float) -> Tensor:
    """Class probabilities as target (input's shape): per row -sum_c w_c p_c logp_c with
    p = (1 - e) target + e/C; the mean divides by the number of rows, as torch."""
    X, dtype = input._array, input._array.dtype
    target_t = target if isinstance(target, Tensor) else None
    P = _target_array(target)
    classes = X.shape[0] if X.ndim == 1 else X.shape[1]
    w = _class_weight(weight, X)
    p_rows = _to_rows(P).astype(dtype)
    logp = _log_softmax_rows(_to_rows(X))
    weighted = (1 - smoothing) * p_rows + smoothing / classes
    if w is not None:
        weighted = weighted * w
    per_row = -(weighted * logp).sum(axis=-1).astype(dtype)
    loss, scale = _reduce(per_row, reduction)
    if reduction == "none":
        loss = loss.reshape(_per_row_shape(X.shape))
    needs_target = target_t is not None and target_t._requires_grad

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        upstream = np.reshape(g, (-1, 1)) if scale is None else g * scale
        if input._requires_grad:
            d = -weighted * upstream
            d -= np.exp(logp) * d.sum(axis=-1, keepdims=True)
            accumulate(input, _from_rows(d.astype(dtype, copy=False), X.shape))
        if needs_target:
            assert target_t is not None
            d_p = -(1 - smoothing) * logp * (1 if w is None else w) * upstream
            accumulate(target_t, _from_rows(d_p.astype(dtype, copy=False), X.shape))

    inputs = (input, target_t) if needs_target and target_t is not None else (input,)
    return node(np.asarray(loss, dtype=dtype), inputs, "cross_entropy", grad_fn)


def nll_loss(input: Tensor, target: Any, weight: Any = None, size_average: Any = None,
             ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> Tensor:
    """-input[target] (times weight[target]) for log-probabilities (after log_softmax), over
    the class dimension (dim 1, or 0 for 1-d input); targets equal to ignore_index add
    nothing, and the mean divides by the weight of the targets kept. One node:
    d/dinput = -weight[target] at the targets."""
    reduction = check_reduction(legacy_reduction(size_average, reduce, reduction))
    X = input._array
    if X.ndim == 0:
        raise ValueError("nll_loss expects input of shape (C,), (N, C) or (N, C, d1, ...), "
                         "got a 0-d tensor")
    rows, t_rows = _class_rows(X, _target_array(target), ignore_index, "nll_loss")
    return _class_loss(input, rows, t_rows, t_rows != ignore_index, _class_weight(weight, X),
                       reduction, 0.0, from_logits=False)


# torch's errors for a target of another shape; the other pairwise losses warn and
# broadcast (torch_warnings.target_size)
_SHAPE_ERRORS = {
    "binary_cross_entropy": "Using a target size ({target}) that is different to the input "
                            "size ({input}) is deprecated. Please ensure they have the same "
                            "size.",
    "binary_cross_entropy_with_logits": "Target size ({target}) must be the same as input "
                                        "size ({input})",
}


def _pair(input: Tensor, target: Any, op: str) -> tuple[Tensor, np.ndarray, np.ndarray]:
    """target as a Tensor, and both arrays, promoted; of one shape where torch requires it,
    else broadcast against each other with torch's warning."""
    if not isinstance(target, Tensor):
        target = Tensor(np.asarray(target, dtype=input._array.dtype))
    X, Y = input._array, target._array
    if X.shape != Y.shape and op in _SHAPE_ERRORS:
        raise ValueError(_SHAPE_ERRORS[op].format(target=Size(Y.shape), input=Size(X.shape)))
    torch_warnings.target_size(op, X.shape, Y.shape)
    if X.dtype != Y.dtype:  # PyTorch's promotion: an int64 target keeps a float32 loss
        X, Y = promote(X, Y, op)
    return target, X, Y


def _weighted(unweighted: Any, input: Tensor, target: Any, weight: Any, reduction: str
              ) -> Tensor:
    """torch's weight= of mse_loss and l1_loss: weight (input's shape) times each element's
    loss; the mean divides by the sum of the weights."""
    weight = weight if isinstance(weight, Tensor) else Tensor(
        np.asarray(weight, dtype=input._array.dtype))
    check_weight_size(weight.shape, input.shape)
    losses = unweighted(input, target, reduction="none") * weight
    if check_reduction(reduction) == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / weight.sum()


def mse_loss(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
             reduction: str = "mean", weight: Any = None) -> Tensor:
    """mean((input - target)^2);  d/dinput = 2 (input - target) / N  (target likewise, negated).
    With weight=: sum(weight (input - target)^2) / sum(weight), as torch."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted(mse_loss, input, target, weight, reduction)
    target, X, Y = _pair(input, target, "mse_loss")
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


def l1_loss(input: Tensor, target: Any, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: Any = None) -> Tensor:
    """mean |input - target|;  d/dinput = sign(input - target) / N. With weight=:
    sum(weight |input - target|) / sum(weight), as torch."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted(l1_loss, input, target, weight, reduction)
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


def _optional_weight(weight: Any, dtype: np.dtype) -> np.ndarray | None:
    if weight is None:
        return None
    return (weight._array if isinstance(weight, Tensor) else np.asarray(weight)).astype(
        dtype, copy=False)


def binary_cross_entropy(input: Tensor, target: Any, weight: Any = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> Tensor:
    """-w (t log p + (1 - t) log(1 - p)) for probabilities p = input, each log clamped at
    -100 as torch does;  d/dp = w (p - t) / max(p (1 - p), 1e-12),
    d/dt = w (log(1 - p) - log p)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target, P, Y = _pair(input, target, "binary_cross_entropy")
    if P.size and (P.min() < 0 or P.max() > 1):
        raise ValueError("binary_cross_entropy: all elements of input should be between 0 "
                         "and 1 (probabilities; for logits use binary_cross_entropy_with_logits)")
    w = _optional_weight(weight, P.dtype)
    with np.errstate(divide="ignore"):
        log_p = np.maximum(np.log(P), -100)
        log_q = np.maximum(np.log1p(-P), -100)
    losses = -(Y * log_p + (1 - Y) * log_q)
    loss, upstream_of = _weighted_reduce(losses, w, P.dtype, reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        upstream = upstream_of(g)
        if input._requires_grad:
            accumulate(input, (P - Y) / np.maximum(P * (1 - P), 1e-12) * upstream)
        if target._requires_grad:
            accumulate(target, (log_q - log_p) * upstream)

    return node(loss, (input, target), "binary_cross_entropy", grad_fn)


def binary_cross_entropy_with_logits(input: Tensor, target: Any, weight: Any = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean", pos_weight: Any = None
                                     ) -> Tensor:
    """binary_cross_entropy(sigmoid(x), t) computed stably from the logits x, with
    l = 1 + (pos_weight - 1) t weighing the positive term (pos_weight broadcasts over the
    last dimension, the classes): (1 - t) x + l softplus(-x), softplus(-x) =
    log(1 + e^-|x|) + max(-x, 0);  d/dx = (1 - t) - l sigmoid(-x) (= sigmoid(x) - t without
    pos_weight), d/dt = -x + (pos_weight - 1) softplus(-x)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    target, X, Y = _pair(input, target, "binary_cross_entropy_with_logits")
    w = _optional_weight(weight, X.dtype)
    pw = _optional_weight(pos_weight, X.dtype)
    softplus_neg = np.log1p(np.exp(-np.abs(X))) + np.maximum(-X, 0)
    if pw is None:
        losses = (1 - Y) * X + softplus_neg
    else:
        losses = (1 - Y) * X + (1 + (pw - 1) * Y) * softplus_neg
    loss, upstream_of = _weighted_reduce(losses, w, X.dtype, reduction)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        upstream = upstream_of(g)
        if input._requires_grad:
            if pw is None:
                d = ARRAYS.sigmoid(X) - Y
            else:
                d = (1 - Y) - (1 + (pw - 1) * Y) * ARRAYS.sigmoid(-X)
            accumulate(input, d * upstream)
        if target._requires_grad:
            d_t = -X if pw is None else -X + (pw - 1) * softplus_neg
            accumulate(target, d_t * upstream)

    return node(loss, (input, target), "binary_cross_entropy_with_logits", grad_fn)
