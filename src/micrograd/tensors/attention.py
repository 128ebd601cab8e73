"""Attention as one graph node: `scaled_dot_product_attention`, as torch.nn.functional's.

    scores = q k^T * scale (+ attn_mask, or -inf where a boolean mask / the causal mask says
    "do not attend"),  P = softmax(scores),  out = dropout(P) v

Composed of ops, one head of the GPT lecture is seven nodes (transpose, matmul, mul,
masked_fill, softmax, dropout, matmul); the five between the matmuls each keep a (B, T, T)
array until the graph goes, and dropout its mask, a sixth. Fused, the node keeps the one
array it needs, P (and the dropout mask, as bools), and writes the scores, the causal
mask, the softmax and the backward's temporaries in place:

    dV = dropout(P)^T g,   dP = (g V^T) * dropout mask,
    dscores = P * (dP - sum_j dP P)   (softmax's VJP),
    dQ = dscores k * scale,   dK = dscores^T q * scale,   d attn_mask = dscores.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from micrograd.tensors import parallel
from micrograd.tensors import random as streams
from micrograd.tensors.dtypes import check_same_dtype
from micrograd.tensors.function import Tensor, accumulate, node

_causal_masks: dict[tuple[int, int], np.ndarray] = {}


def _future(L: int, S: int) -> np.ndarray:
    """True above the diagonal of an (L, S) grid: the keys a causal query may not see
    (torch aligns the mask top-left, as tril(ones(L, S)) == 0). Cached per shape."""
    mask = _causal_masks.get((L, S))
    if mask is None:
        if len(_causal_masks) >= 16:
            _causal_masks.clear()
        mask = _causal_masks[(L, S)] = np.triu(np.ones((L, S), dtype=bool), 1)
        mask.flags.writeable = False
    return mask


def _dropped(P: np.ndarray, kept: np.ndarray, scale: Any) -> np.ndarray:
    """P * dropout mask, from the mask's bools and scale (bit for bit the same)."""
    out = P * kept
    out *= scale
    return out


def _as_tensor(x: Any, name: str) -> Tensor:
    if type(x) is not Tensor:
        raise TypeError(f"scaled_dot_product_attention: {name} must be a Tensor, "
                        f"got {type(x).__name__}")
    return x


def _check_shapes(Q: np.ndarray, K: np.ndarray, V: np.ndarray) -> None:
    if Q.ndim < 2 or K.ndim < 2 or V.ndim < 2:
        raise ValueError("scaled_dot_product_attention expects query, key and value of shape "
                         f"(..., L, E), (..., S, E), (..., S, Ev); got {Q.shape}, {K.shape}, "
                         f"{V.shape}")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"scaled_dot_product_attention: query and key must have the same "
                         f"last dimension (E), got {Q.shape} and {K.shape}")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: key and value must have the same "
                         f"sequence length (S), got {K.shape} and {V.shape}")


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor,
                                 attn_mask: Any = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v, with dropout on the attention weights, as one node.

    attn_mask: a bool tensor (True: attend) or a float tensor added to the scores,
    broadcast to (..., L, S); is_causal: each query sees only keys at or before its
    position (not together with attn_mask, as in torch); scale: 1/sqrt(E) by default.
    """
    q, k, v = (_as_tensor(t, n) for t, n in ((query, "query"), (key, "key"), (value, "value")))
    Q, K, V = q._array, k._array, v._array
    check_same_dtype("scaled_dot_product_attention", Q, K)
    check_same_dtype("scaled_dot_product_attention", Q, V)
    _check_shapes(Q, K, V)
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention: enable_gqa=True (grouped "
                                  "query attention) is not supported")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: give attn_mask or is_causal=True, "
                         "not both (as torch)")
    if not 0 <= dropout_p <= 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    L, S = Q.shape[-2], K.shape[-2]
    factor = Q.dtype.type(1 / math.sqrt(Q.shape[-1]) if scale is None else scale)

    mask_tensor = attn_mask if isinstance(attn_mask, Tensor) else None
    M = None if attn_mask is None else (
        mask_tensor._array if mask_tensor is not None else np.asarray(attn_mask))
    if M is not None and M.dtype != np.bool_:
        check_same_dtype("scaled_dot_product_attention (attn_mask)", Q, M)

    # a fresh (..., L, S) array: work in it
    scores = parallel.matmul_stack(Q, np.swapaxes(K, -1, -2))
    if M is not None:
        scores *= factor
        try:
            if M.dtype == np.bool_:
                np.copyto(scores, -np.inf, where=~M)
            else:
                scores += M
        except ValueError as error:
            raise ValueError(f"scaled_dot_product_attention: attn_mask of shape {M.shape} "
                             f"cannot be broadcast to the scores' shape {scores.shape}"
                             ) from error
    # softmax in place, by chunks of (L, S) grids on parallel.py's threads: P is the one
    # (..., L, S) array the node keeps
    P = scores
    grid_shape = (math.prod(P.shape[:-2]), L, S)  # not -1: L or S may be 0
    grids = P.reshape(grid_shape)
    future = _future(L, S) if is_causal else None

    def softmax_rows(part: slice) -> None:
        chunk = grids[part]
        if M is None:
            chunk *= factor
        if future is not None:
            np.copyto(chunk, -np.inf, where=future)
        chunk -= chunk.max(axis=-1, keepdims=True)
        np.exp(chunk, out=chunk)
        chunk /= chunk.sum(axis=-1, keepdims=True)

    parallel.over_rows(softmax_rows, grids, passes=7)
    kept, keep_scale = None, None
    if dropout_p > 0:  # torch's mask, kept as bools (1 byte an element) and a scale
        kept, keep_scale = streams.dropout_keep(P.shape, dropout_p, P.dtype)
        out = parallel.matmul_stack(_dropped(P, kept, keep_scale), V)
    else:
        out = parallel.matmul_stack(P, V)

    inputs: tuple = (q, k, v) if mask_tensor is None else (q, k, v, mask_tensor)

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        if v._requires_grad:
            Pd = P if kept is None else _dropped(P, kept, keep_scale)
            accumulate(v, parallel.matmul_stack(np.swapaxes(Pd, -1, -2), g))
        if not (q._requires_grad or k._requires_grad
                or (mask_tensor is not None and mask_tensor._requires_grad)):
            return
        # dP, fresh: worked on in place
        dscores = parallel.matmul_stack(g, np.swapaxes(V, -1, -2))
        d_grids = dscores.reshape(grid_shape)
        kept_grids = None if kept is None else kept.reshape(grid_shape)

        def softmax_vjp_rows(part: slice) -> None:
            d, p = d_grids[part], grids[part]
            if kept_grids is not None:
                d *= kept_grids[part]
                d *= keep_scale
            d -= (d * p).sum(axis=-1, keepdims=True)
            d *= p

        parallel.over_rows(softmax_vjp_rows, d_grids, passes=6)
        if mask_tensor is not None and mask_tensor._requires_grad:
            accumulate(mask_tensor, dscores.copy())
        dscores *= factor
        if q._requires_grad:
            accumulate(q, parallel.matmul_stack(dscores, K))
        if k._requires_grad:
            accumulate(k, parallel.matmul_stack(np.swapaxes(dscores, -1, -2), Q))

    return node(out, inputs, "scaled_dot_product_attention", backward)
