"""Functions on tensors, as torch.nn.functional: activations, a fused linear layer, losses.

`linear` and `cross_entropy` are single graph nodes with closed-form gradients. The lecture
says any function with a forward pass and a local derivative can be one op; these two are
where a training step spends its time, so fusing them saves several nodes per step.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.tensors.dtypes import check_same_dtype, promote
from micrograd.tensors.function import Tensor, accumulate, node
from micrograd.tensors.ops import elementwise, index, reduce
from micrograd.tensors.ops.shape import cat, stack

__all__ = [
    "linear",
    "linear_relu",
    "relu",
    "tanh",
    "sigmoid",
    "softmax",
    "log_softmax",
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "cat",
    "stack",
]


def _check_linear(x: Any, weight: Tensor, op: str) -> Tensor:
    if type(x) is not Tensor:  # a list of numbers: take the model's dtype
        x = Tensor(x, dtype=None if isinstance(x, np.ndarray) else weight._array.dtype)
    X, W = x._array, weight._array
    check_same_dtype(op, X, W)
    if X.ndim == 0 or X.shape[-1] != W.shape[1]:
        raise ValueError(
            f"{op}: input of shape {X.shape} does not fit weight of shape {W.shape} "
            f"(expected input shape (..., {W.shape[1]}))"
        )
    return x


def _affine(X: np.ndarray, W: np.ndarray, bias: Tensor | None) -> np.ndarray:
    """X @ W^T + b as a fresh array."""
    out = X @ W.T
    if bias is not None:
        out += bias._array  # the product is a fresh array: adding in place saves a copy
    return out


def _linear_backward(g: np.ndarray, x: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """Send dx = g W, dW = g^T x, db = sum of g over the batch (g: d loss / d(x W^T + b))."""
    X, W = x._array, weight._array
    if x._requires_grad:
        accumulate(x, g @ W)
    g2 = g if g.ndim == 2 else g.reshape(-1, W.shape[0])  # batch dims flattened
    if weight._requires_grad:
        accumulate(weight, g2.T @ (X if X.ndim == 2 else X.reshape(-1, W.shape[1])))
    if bias is not None and bias._requires_grad:
        # the batch sum as a product with a ones vector: BLAS is ~3x faster than sum()
        accumulate(bias, np.ones(g2.shape[0], dtype=g2.dtype) @ g2)


def _record(x: Tensor, weight: Tensor, bias: Tensor | None) -> tuple[tuple, bool]:
    inputs = (x, weight) if bias is None else (x, weight, bias)
    return inputs, any(t._requires_grad for t in inputs)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """x @ W^T + b as one node;  dx = g W,  dW = g^T x,  db = sum of g over the batch."""
    x = _check_linear(x, weight, "linear")
    out = _affine(x._array, weight._array, bias)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is not None:
            _linear_backward(g, x, weight, bias)

    inputs, record = _record(x, weight, bias)
    return node(out, inputs, "linear", grad_fn, record)


_zero_arrays: dict[tuple, np.ndarray] = {}


def _zeros_shaped(a: np.ndarray) -> np.ndarray:
    """A read-only array of zeros shaped like `a`, kept for reuse.

    np.maximum(a, 0) runs numpy's slow scalar loop (~87 us on 1,797 x 128 float32);
    np.maximum(a, zeros) runs the vectorized one (~30 us)."""
    key = (a.shape, a.dtype)
    zeros = _zero_arrays.get(key)
    if zeros is None:
        if len(_zero_arrays) >= 8:  # a few shapes are in use at a time; forget old ones
            _zero_arrays.clear()
        zeros = _zero_arrays[key] = np.zeros(a.shape, a.dtype)
        zeros.flags.writeable = False
    return zeros


def linear_relu(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """relu(x @ W^T + b) as one node (Sequential's Linear followed by ReLU);
    with g' = g * (out > 0): dx = g' W,  dW = g'^T x,  db = sum of g' over the batch.

    The same numbers as linear() then relu(), with one array and one pass less each way.
    """
    x = _check_linear(x, weight, "linear_relu")
    out = _affine(x._array, weight._array, bias)
    np.maximum(out, _zeros_shaped(out), out=out)  # -0.0 becomes 0.0, nan stays nan

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is not None:
            _linear_backward(g * (out > 0), x, weight, bias)  # 1 where x > 0 (0 at 0)

    inputs, record = _record(x, weight, bias)
    return node(out, inputs, "linear_relu", grad_fn, record)


def relu(x: Tensor) -> Tensor:
    """max(0, x)."""
    return elementwise.relu(x)


def tanh(x: Tensor) -> Tensor:
    """tanh x."""
    return elementwise.tanh(x)


def sigmoid(x: Tensor) -> Tensor:
    """1 / (1 + e^-x)."""
    return elementwise.sigmoid(x)


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    """e^x_i / sum_j e^x_j along dim (shifted by the max, so it never overflows)."""
    return reduce.softmax(x, dim)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    """x_i - log sum_j e^x_j along dim (stable)."""
    return reduce.log_softmax(x, dim)


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


def _class_targets(target: Any, logits: np.ndarray) -> np.ndarray:
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
    if t.size:
        low, high = t.min(), t.max()
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


def cross_entropy(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """-log softmax(input)[target], for logits (N, C) or (C,) and integer targets;
    one node with d/dinput = softmax(input) - onehot(target)."""
    X = input._array
    if X.ndim not in (1, 2):
        raise ValueError(f"cross_entropy expects logits of shape (N, C) or (C,), got {X.shape}")
    t = _class_targets(target, X)
    z = X - _row_max(X) if X.size else X  # shifted: exp cannot overflow
    # the row sums as a product with a ones vector: BLAS beats sum() over a short last axis
    logp = z - np.log(np.exp(z) @ np.ones((X.shape[-1], 1), dtype=X.dtype))
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


def nll_loss(input: Tensor, target: Any, reduction: str = "mean") -> Tensor:
    """-input[target] averaged: the loss for log-probabilities (after log_softmax)."""
    X = input._array
    if X.ndim not in (1, 2):
        raise ValueError(f"nll_loss expects input of shape (N, C) or (C,), got {X.shape}")
    t = _class_targets(target, X)
    picked = index.getitem(input, t if X.ndim == 1 else (np.arange(X.shape[0]), t))
    if reduction == "mean":
        return -picked.mean()
    if reduction == "sum":
        return -picked.sum()
    if reduction == "none":
        return -picked
    raise ValueError(f"reduction must be 'mean', 'sum' or 'none', got {reduction!r}")


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
