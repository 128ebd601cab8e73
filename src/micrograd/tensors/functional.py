"""Functions on tensors, as torch.nn.functional (which re-exports this module): activations,
a fused linear layer, losses (fused: `losses.py`; composed: `composed_losses.py`),
normalisation (`normalization.py`), dropout, embedding, one_hot, pad. One function per
torch name.

`linear`, `gelu`, `embedding`, `layer_norm`, `batch_norm` and the losses are single graph
nodes with closed-form gradients. The lecture
says any function with a forward pass and a local derivative can be one op; these two are
where a training step spends its time, so fusing them saves several nodes per step.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from micrograd.tensors import parallel, torch_warnings
from micrograd.tensors import random as streams
from micrograd.tensors.attention import scaled_dot_product_attention
from micrograd.tensors.composed_losses import (
    cosine_embedding_loss,
    gaussian_nll_loss,
    hinge_embedding_loss,
    huber_loss,
    kl_div,
    margin_ranking_loss,
    multilabel_soft_margin_loss,
    poisson_nll_loss,
    smooth_l1_loss,
    soft_margin_loss,
    triplet_margin_loss,
)
from micrograd.tensors.dtypes import check_same_dtype
from micrograd.tensors.function import Tensor, accumulate, node, shared_ones, unary
from micrograd.tensors.losses import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    l1_loss,
    mse_loss,
    nll_loss,
)
from micrograd.tensors.normalization import batch_norm, layer_norm
from micrograd.tensors.ops import reduce, selection
from micrograd.tensors.ops.registered import FUNCTIONAL
from micrograd.tensors.ops.shape import cat, stack
from micrograd.tensors.threads import matmul

__all__ = [
    "linear",
    "linear_relu",
    "softmax",
    "log_softmax",
    "cross_entropy",
    "nll_loss",
    "mse_loss",
    "l1_loss",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "smooth_l1_loss",
    "huber_loss",
    "kl_div",
    "poisson_nll_loss",
    "gaussian_nll_loss",
    "margin_ranking_loss",
    "hinge_embedding_loss",
    "soft_margin_loss",
    "multilabel_soft_margin_loss",
    "cosine_embedding_loss",
    "triplet_margin_loss",
    "gelu",
    "dropout",
    "embedding",
    "one_hot",
    "pad",
    "layer_norm",
    "batch_norm",
    "scaled_dot_product_attention",
    "cat",
    "stack",
]
__all__ += list(FUNCTIONAL)  # relu, tanh, sigmoid, ...: the registry's (set below)


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
    if X.ndim > 2:
        # one BLAS call over the flattened batch dims: numpy's stacked matmul makes one call
        # per leading index (a GPT head's (16, 32, 64) input: 16 calls), ~15-20% slower
        out = matmul(X.reshape(-1, X.shape[-1]), W.T).reshape(*X.shape[:-1], W.shape[0])
    else:
        out = matmul(X, W.T)
    if bias is not None:
        out += bias._array  # the product is a fresh array: adding in place saves a copy
    return out


def _linear_backward(g: np.ndarray, x: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """Send dx = g W, dW = g^T x, db = sum of g over the batch (g: d loss / d(x W^T + b))."""
    X, W = x._array, weight._array
    g2 = g if g.ndim == 2 else g.reshape(-1, W.shape[0])  # batch dims flattened: one BLAS call
    if x._requires_grad:
        accumulate(x, matmul(g2, W) if g.ndim == 2 else matmul(g2, W).reshape(X.shape))
    if weight._requires_grad:
        accumulate(weight, matmul(g2.T, X if X.ndim == 2 else X.reshape(-1, W.shape[1])))
    if bias is not None and bias._requires_grad:
        # the batch sum as a product with a ones vector: BLAS is ~3x faster than sum()
        accumulate(bias, shared_ones((g2.shape[0],), g2.dtype) @ g2)


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
_MAX_CACHED_ZEROS = 4 * 1024 * 1024  # bytes


def _zeros_shaped(a: np.ndarray) -> np.ndarray:
    """A read-only array of zeros shaped like `a`, kept for reuse (up to 4 MiB; a 0-d
    zero, broadcast, for bigger `a`).

    np.maximum(a, 0) runs numpy's slow scalar loop (~87 us on 1,797 x 128 float32);
    np.maximum(a, zeros) runs the vectorized one (~30 us)."""
    if a.nbytes > _MAX_CACHED_ZEROS:  # a full-size GPT's 100 MB: not kept for a few ms
        return np.zeros((), a.dtype)
    key = (a.shape, a.dtype)
    zeros = _zero_arrays.get(key)
    if zeros is None:
        if len(_zero_arrays) >= 8:  # a few shapes are in use at a time; forget old ones
            _zero_arrays.clear()
        zeros = _zero_arrays[key] = np.zeros(a.shape, a.dtype)
        zeros.flags.writeable = False
    return zeros


def _relu_in_place(out: np.ndarray) -> None:
    np.maximum(out, _zeros_shaped(out), out=out)  # -0.0 becomes 0.0, nan stays nan


def _times_positive(result: np.ndarray, g: np.ndarray, out: np.ndarray) -> None:
    np.multiply(g, out > 0, out=result)  # 1 where x > 0 (0 at 0)


def linear_relu(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """relu(x @ W^T + b) as one node (Sequential's Linear followed by ReLU);
    with g' = g * (out > 0): dx = g' W,  dW = g'^T x,  db = sum of g' over the batch.

    The same numbers as linear() then relu(), with one array and one pass less each way.
    """
    x = _check_linear(x, weight, "linear_relu")
    out = _affine(x._array, weight._array, bias)
    parallel.elementwise(_relu_in_place, out, passes=1)

    def grad_fn(result: Tensor) -> None:
        g = result._grad_array
        if g is not None:
            g_kept = np.empty(out.shape, np.result_type(g, out))
            parallel.elementwise(_times_positive, g_kept, np.broadcast_to(g, out.shape), out,
                                 passes=3)
            _linear_backward(g_kept, x, weight, bias)

    inputs, record = _record(x, weight, bias)
    return node(out, inputs, "linear_relu", grad_fn, record)


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> Tensor:
    """e^x_i / sum_j e^x_j along dim (shifted by the max, so it never overflows). Without
    dim, torch's implicit choice (0 for 0-, 1- and 3-d input, else 1) and its warning."""
    if dim is None:
        dim = torch_warnings.implicit_softmax_dim("softmax", input.ndim)
    return reduce.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> Tensor:
    """x_i - log sum_j e^x_j along dim (stable); without dim, as softmax."""
    if dim is None:
        dim = torch_warnings.implicit_softmax_dim("log_softmax", input.ndim)
    return reduce.log_softmax(input if dtype is None else input.to(dtype), dim)


# --- activations -------------------------------------------------------------------------

_SQRT_2_OVER_PI = math.sqrt(2 / math.pi)
_INV_SQRT_2 = 1 / math.sqrt(2)
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)


def _erf(x: np.ndarray) -> np.ndarray:
    """erf elementwise: scipy's vectorised one if installed, else the C library's."""
    try:
        from scipy.special import erf
    except ImportError:  # pragma: no cover - depends on the environment
        return Tensor(x).erf()._array
    return np.asarray(erf(x), dtype=x.dtype)


# erfc(z) = t exp(-z^2 + P(t)), t = 1 / (1 + z/2), z >= 0: fractional error below 1.2e-7
# for every z (Numerical Recipes' Chebyshev fit, `erfcc`); coefficients from t^0 up
_ERFC_FIT = (-1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806, 0.27886807,
             -1.13520398, 1.48851587, -0.82215223, 0.17087277)


def _normal_cdf32(x: np.ndarray, cdf: np.ndarray) -> None:
    """cdf = Phi(x) = erfc(-x/sqrt 2) / 2 for float32 x, in float32 numpy passes.

    scipy's erf works in float64 one element at a time (~15 ns an element); this is a few
    vectorised passes (~2x faster on nanoGPT's GELU inputs). Measured against the exact
    value: relative error under 5e-6 for |x| < 5 and ~2e-5 in the far tails (float32
    rounding of x^2 in the exponent), as close as torch's float32 GELU, and relative to
    its tiny size for x << 0, where 1 + erf(x) loses every digit."""
    f32 = np.float32
    z = np.abs(x)
    z *= f32(_INV_SQRT_2)
    t = z * f32(0.5)
    t += f32(1)
    np.reciprocal(t, out=t)
    poly = t * f32(_ERFC_FIT[-1])
    for c in reversed(_ERFC_FIT[1:-1]):
        poly += f32(c)
        poly *= t
    poly += f32(_ERFC_FIT[0])
    z *= z
    poly -= z
    np.exp(poly, out=poly)
    poly *= t
    poly *= f32(0.5)  # erfc(|x|/sqrt 2) / 2 = Phi(-|x|)
    # Phi(x) = Phi(-|x|) + [x > 0] (1 - 2 Phi(-|x|)): arithmetic, not np.where, whose
    # per-element branch on random signs mispredicts (1.45 of 2.7 ms on W9's GELU input)
    np.multiply(poly, f32(-2), out=cdf)
    cdf += f32(1)
    cdf *= x > 0
    cdf += poly


def _gelu_forward(out: np.ndarray, cdf: np.ndarray, x: np.ndarray) -> None:
    """cdf = Phi(x), out = x Phi(x), for one chunk."""
    if x.dtype == np.float32:
        _normal_cdf32(x, cdf)
    else:
        cdf[...] = 0.5 * (1 + _erf(x * x.dtype.type(_INV_SQRT_2)))
    np.multiply(x, cdf, out=out)


def _gelu_backward(dx: np.ndarray, g: np.ndarray, x: np.ndarray, cdf: np.ndarray) -> None:
    """dx = g (Phi(x) + x phi(x)), for one chunk, in dx's buffer only."""
    np.multiply(x, x, out=dx)
    dx *= x.dtype.type(-0.5)
    np.exp(dx, out=dx)
    dx *= x
    dx *= x.dtype.type(_INV_SQRT_2PI)
    dx += cdf
    dx *= g


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x Phi(x) (Phi: the standard normal CDF), or its tanh approximation with
    approximate="tanh", as one node;  d/dx = Phi(x) + x phi(x) (or the tanh form's).
    The exact form runs on parallel.py's threads, chunk by chunk."""
    X = input._array
    if approximate == "none":
        if X.dtype.kind != "f":
            X = X.astype(np.float64)  # torch refuses integer GELU; numpy's answer as before
        out, cdf = np.empty_like(X), np.empty_like(X)
        parallel.elementwise(_gelu_forward, out, cdf, X, passes=20)

        def vjp(g: np.ndarray) -> np.ndarray:
            dx = np.empty_like(X)
            parallel.elementwise(_gelu_backward, dx, np.broadcast_to(g, X.shape), X, cdf,
                                 passes=7)
            return dx

    elif approximate == "tanh":
        k = X.dtype.type(_SQRT_2_OVER_PI)
        inner = k * (X + X.dtype.type(0.044715) * X * X * X)
        th = np.tanh(inner)
        out = 0.5 * X * (1 + th)

        def vjp(g: np.ndarray) -> np.ndarray:
            d_inner = k * (1 + X.dtype.type(3 * 0.044715) * X * X)
            return g * (0.5 * (1 + th) + 0.5 * X * (1 - th * th) * d_inner)

    else:
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return unary(input, out.astype(input._array.dtype, copy=False), "gelu", vjp)


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p), in training;
    the mask is torch's for the same seed (micrograd.tensors.random.dropout_mask)."""
    if not 0 <= p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    X = input._array
    kept, scale = streams.dropout_keep(X.shape, p, X.dtype if X.dtype.kind == "f"
                                       else np.float32)
    out = np.empty(X.shape, scale.dtype)

    def keep(result: np.ndarray, x: np.ndarray, kept_part: np.ndarray) -> None:
        np.multiply(x, kept_part, out=result, dtype=result.dtype)
        result *= scale

    parallel.elementwise(keep, out, X, kept, passes=2)

    def vjp(g: np.ndarray) -> np.ndarray:
        dx = np.empty(X.shape, np.result_type(g, scale))
        parallel.elementwise(keep, dx, np.broadcast_to(g, X.shape), kept, passes=2)
        return dx

    return unary(input, out, "dropout", vjp)


# --- lookups and encodings -----------------------------------------------------------------

def embedding(input: Any, weight: Tensor, padding_idx: int | None = None) -> Tensor:
    """The rows of `weight` at the integer indices `input` (any shape): weight[input].
    The backward adds each lookup's gradient into its row without np.add.at (see
    selection.scatter_rows); the padding_idx row gets no gradient, as in torch."""
    idx = input._array if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"embedding: indices must be integers (int64), got {idx.dtype}")
    W = weight._array
    count = W.shape[0]
    try:
        out = W[idx]
        negative = idx.size and idx.min() < 0  # numpy would count from the end
    except IndexError:
        negative = True
    if negative:
        raise IndexError(f"embedding: index out of range for a table of {count} rows "
                         f"(got indices from {idx.min()} to {idx.max()})")

    def vjp(g: np.ndarray) -> np.ndarray:
        full = selection.scatter_rows(g, idx, count)
        if padding_idx is not None:
            full[padding_idx] = 0
        return full

    return unary(weight, out, "embedding", vjp)


def one_hot(tensor: Any, num_classes: int = -1) -> Tensor:
    """int64 one-hot rows for integer class indices: shape input.shape + (num_classes,);
    num_classes=-1 takes the largest index + 1."""
    idx = tensor._array if isinstance(tensor, Tensor) else np.asarray(tensor)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"one_hot is only applicable to index tensors (int64), got {idx.dtype}")
    if idx.size and idx.min() < 0:
        raise ValueError("one_hot: class values must be non-negative")
    classes = (int(idx.max()) + 1 if idx.size else 0) if num_classes == -1 else num_classes
    if idx.size and idx.max() >= classes:
        raise ValueError(f"one_hot: class values must be smaller than num_classes ({classes})")
    out = np.zeros(idx.shape + (classes,), dtype=np.int64)
    np.put_along_axis(out, idx[..., None], 1, axis=-1)
    return Tensor(out)


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float = 0.0
        ) -> Tensor:
    """Constant padding: `pad` lists (before, after) pairs from the last dimension
    backwards, as torch.nn.functional.pad; the gradient is the unpadded part."""
    if mode != "constant":
        raise NotImplementedError(f"pad: only mode='constant' is supported, got {mode!r}")
    X = input._array
    if len(pad) % 2 or len(pad) // 2 > X.ndim:
        raise ValueError(f"pad: expected pairs (before, after) for at most {X.ndim} "
                         f"dimensions, got {tuple(pad)}")
    if any(p < 0 for p in pad):
        raise NotImplementedError("pad: negative padding (cropping) is not supported; slice")
    widths = [(0, 0)] * X.ndim
    for i in range(len(pad) // 2):
        widths[X.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    out = np.pad(X, widths, mode="constant", constant_values=value)
    inside = tuple(slice(before, before + n) for (before, _), n in zip(widths, X.shape,
                                                                        strict=True))
    return unary(input, out, "pad", lambda g: g[inside])


# relu, tanh, sigmoid, ...: the op registry's ops with a torch.nn.functional spelling
# (micrograd/ops/table.py), as the Tensor engine computes them (tensors/ops/registered.py)
globals().update(FUNCTIONAL)
