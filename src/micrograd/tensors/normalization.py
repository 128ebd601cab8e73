"""layer_norm and batch_norm as single graph nodes with hand-written backward passes.

Composed of ops, normalising takes ~10 nodes (mean, subtract, square, mean, add eps, sqrt,
divide, scale, shift) and as many temporaries each way; as one node it is one forward pass
over the data and one closed-form backward:

    xhat = (x - mean) / sqrt(var + eps),   out = xhat * weight + bias
    dx = rstd * (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)),  dxhat = g * weight

with the means over the normalised axes (the batch statistics depend on every x, which
is where the last two terms come from). In evaluation mode batch_norm uses its running
statistics, constants, so dx = g * weight * rstd.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from micrograd.tensors import parallel
from micrograd.tensors.function import Tensor, accumulate, node


def _stats_backward(g: np.ndarray, xhat: np.ndarray, rstd: np.ndarray, w: np.ndarray | None,
                    axes: tuple, n: int, weight: Tensor | None = None,
                    bias: Tensor | None = None, batch_axes: tuple = ()) -> np.ndarray:
    """d loss / dx when mean and var were computed from x over `axes` (n elements each);
    also sends dweight and dbias (sums over `batch_axes`) when weight/bias are given.
    Two arrays of x's size, worked on in place (a layer norm's backward was six)."""
    dxhat = g * w if w is not None else g.copy()  # ours: becomes dx in place
    g_xhat = g * xhat
    _affine_backward(g, xhat, weight, bias, batch_axes, g_xhat)
    if w is not None:
        g_xhat *= w  # dxhat * xhat
    mean_dxhat_xhat = g_xhat.sum(axis=axes, keepdims=True)
    mean_dxhat_xhat /= n
    mean_dxhat = dxhat.sum(axis=axes, keepdims=True)
    mean_dxhat /= n
    np.multiply(xhat, mean_dxhat_xhat, out=g_xhat)
    dxhat -= mean_dxhat
    dxhat -= g_xhat
    dxhat *= rstd
    return dxhat


def _affine_backward(g: np.ndarray, xhat: np.ndarray, weight: Tensor | None,
                     bias: Tensor | None, axes: tuple, g_xhat: np.ndarray | None = None
                     ) -> None:
    """Send dweight = sum of g * xhat (g_xhat, if computed) and dbias = sum of g over the
    non-feature axes."""
    if weight is not None and weight._requires_grad:
        product = g * xhat if g_xhat is None else g_xhat
        accumulate(weight, product.sum(axis=axes).reshape(weight._array.shape))
    if bias is not None and bias._requires_grad:
        accumulate(bias, g.sum(axis=axes).reshape(bias._array.shape))


def _inputs(x: Tensor, weight: Tensor | None, bias: Tensor | None) -> tuple[Tensor, ...]:
    return tuple(t for t in (x, weight, bias) if t is not None)


def layer_norm(input: Tensor, normalized_shape: int | Sequence[int],
               weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last len(normalized_shape) dimensions, then scale and shift:
    torch.nn.functional.layer_norm, as one node. Works row by row (a row: the normalised
    elements of one position), by chunks of rows on parallel.py's threads."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    X = input._array
    if X.shape[X.ndim - len(shape):] != shape:
        raise ValueError(f"layer_norm: input of shape {X.shape} does not end in the "
                         f"normalized shape {shape}")
    n = math.prod(shape)
    X2 = X.reshape(math.prod(X.shape[:X.ndim - len(shape)]), n)  # a view unless strided
    w = None if weight is None else weight._array.reshape(n)
    b = None if bias is None else bias._array.reshape(n)
    dtype = X.dtype if X.dtype.kind == "f" else np.dtype(np.float64)
    out = np.empty(X2.shape, dtype)
    mean = np.empty((X2.shape[0], 1), dtype)
    rstd = np.empty((X2.shape[0], 1), dtype)

    def normalise_rows(rows: slice) -> None:
        x, o = X2[rows], out[rows]
        m = x.mean(axis=1, keepdims=True)
        xhat = x - m  # centred now, normalised in place below
        np.square(xhat, out=o)  # a scratch buffer first, then the output
        r = 1 / np.sqrt(o.mean(axis=1, keepdims=True) + eps)
        xhat *= r
        if w is None:
            np.copyto(o, xhat)
        else:
            np.multiply(xhat, w, out=o)
        if b is not None:
            o += b
        mean[rows], rstd[rows] = m, r

    parallel.over_rows(normalise_rows, X2, passes=6)
    # backward recomputes xhat from x (kept by the graph), as torch: two arrays of x's
    # size fewer to keep

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        g2 = np.broadcast_to(g, X.shape).reshape(X2.shape)
        want_w = weight is not None and weight._requires_grad
        want_x = input._requires_grad
        # g * xhat for every row when dweight is wanted (summed over rows below, in one
        # serial pass: a sum of chunk sums would round differently)
        g_xhat = np.empty(out.shape, np.result_type(g2, out)) if want_w else None
        dx = np.empty(out.shape, np.result_type(g2, out)) if want_x else None

        def backward_rows(rows: slice) -> None:
            xhat = X2[rows] - mean[rows]  # the forward's numbers exactly
            xhat *= rstd[rows]
            gr = g2[rows]
            gx = np.multiply(gr, xhat, out=None if g_xhat is None else g_xhat[rows])
            if dx is None:
                return
            d = dx[rows]  # dxhat = g * w, then dx in place
            if w is None:
                np.copyto(d, gr)
            else:
                np.multiply(gr, w, out=d)
            dxhat_xhat = gx if w is None else gx * w
            mean_dxhat_xhat = dxhat_xhat.sum(axis=1, keepdims=True)
            mean_dxhat_xhat /= n
            mean_dxhat = d.sum(axis=1, keepdims=True)
            mean_dxhat /= n
            xhat *= mean_dxhat_xhat
            d -= mean_dxhat
            d -= xhat
            d *= rstd[rows]

        if want_w or want_x:
            parallel.over_rows(backward_rows, X2, passes=10 if want_x else 3)
        if want_w:
            assert weight is not None and g_xhat is not None
            accumulate(weight, g_xhat.sum(axis=0).reshape(weight._array.shape))
        if bias is not None and bias._requires_grad:
            accumulate(bias, g2.sum(axis=0).reshape(bias._array.shape))
        if dx is not None:
            accumulate(input, dx.reshape(X.shape))

    return node(out.reshape(X.shape), _inputs(input, weight, bias), "layer_norm", backward)


def _channel_shape(X: np.ndarray) -> tuple:
    """The shape that broadcasts per-channel values over (N, C) or (N, C, L) input."""
    return (1, X.shape[1]) + (1,) * (X.ndim - 2)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float | None = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) over the batch (and length) dimensions, then scale
    and shift: torch.nn.functional.batch_norm for (N, C) or (N, C, L) input, as one node.

    Training uses the batch's statistics and updates the running ones in place, as torch:
    running = (1 - momentum) running + momentum batch (the variance unbiased there).
    Evaluation (training=False) uses the running statistics."""
    X = input._array
    if X.ndim not in (2, 3):
        raise ValueError(f"batch_norm expects input of shape (N, C) or (N, C, L), got {X.shape}")
    axes = (0,) if X.ndim == 2 else (0, 2)
    n = X.shape[0] * (1 if X.ndim == 2 else X.shape[2])
    shape = _channel_shape(X)
    use_batch = training or running_mean is None or running_var is None
    if use_batch:
        if n <= 1:
            raise ValueError("Expected more than 1 value per channel when training, got "
                             f"input size {X.shape} (torch's words)")
        mean = X.mean(axis=axes, keepdims=True)
        centred = X - mean
        var = (centred * centred).mean(axis=axes, keepdims=True)
        if training:
            _update_running(running_mean, running_var, mean, var, n, momentum)
    else:
        assert running_mean is not None and running_var is not None
        centred = X - running_mean._array.reshape(shape)
        var = running_var._array.reshape(shape)
    rstd = 1 / np.sqrt(var + eps)
    xhat = centred * rstd
    w = None if weight is None else weight._array.reshape(shape)
    out = xhat if w is None else xhat * w
    if bias is not None:
        out = out + bias._array.reshape(shape)
    elif out is xhat:
        out = xhat.copy()

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        if input._requires_grad:
            if use_batch:
                accumulate(input, _stats_backward(g, xhat, rstd, w, axes, n))
            else:
                accumulate(input, g * (rstd if w is None else w * rstd))
        _affine_backward(g, xhat, weight, bias, axes)

    return node(out, _inputs(input, weight, bias), "batch_norm", backward)


def _update_running(running_mean: Tensor | None, running_var: Tensor | None,
                    mean: np.ndarray, var: np.ndarray, n: int, momentum: float | None) -> None:
    if momentum is None:  # BatchNorm1d(momentum=None) passes 1 / num_batches_tracked
        raise TypeError("batch_norm(): argument 'momentum' must be float, not NoneType "
                        "(torch's words; nn.BatchNorm1d(momentum=None) gives the cumulative "
                        "average)")
    # buffers, not graph nodes: their arrays are updated in place, as torch's are -- and,
    # as torch's batch_norm kernel does, without a version bump (the backward step keeps
    # the statistics it used, so no graph can see the change)
    if running_mean is not None:
        rm = running_mean._array
        rm *= 1 - momentum
        rm += (momentum * mean.reshape(rm.shape)).astype(rm.dtype)
    if running_var is not None:
        rv = running_var._array
        rv *= 1 - momentum
        rv += (momentum * var.reshape(rv.shape) * (n / (n - 1))).astype(rv.dtype)

