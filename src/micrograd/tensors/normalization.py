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

from collections.abc import Sequence

import numpy as np

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
    torch.nn.functional.layer_norm, as one node."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    X = input._array
    if X.shape[X.ndim - len(shape):] != shape:
        raise ValueError(f"layer_norm: input of shape {X.shape} does not end in the "
                         f"normalized shape {shape}")
    axes = tuple(range(X.ndim - len(shape), X.ndim))
    n = int(np.prod(shape))
    mean = X.mean(axis=axes, keepdims=True)
    xhat = X - mean  # centred now, normalised in place below
    out = np.square(xhat)  # a scratch buffer first, then the output
    var = out.mean(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    xhat *= rstd
    w = None if weight is None else weight._array
    if w is None:
        np.copyto(out, xhat)
    else:
        np.multiply(xhat, w, out=out)
    if bias is not None:
        out += bias._array
    del xhat  # backward recomputes it from x (kept by the graph), as torch: two passes
    batch_axes = tuple(range(X.ndim - len(shape)))  # instead of an array of x's size

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        xhat = X - mean  # the forward's numbers exactly
        xhat *= rstd
        if input._requires_grad:
            accumulate(input, _stats_backward(g, xhat, rstd, w, axes, n, weight, bias,
                                              batch_axes))
        else:
            _affine_backward(g, xhat, weight, bias, batch_axes)

    return node(out, _inputs(input, weight, bias), "layer_norm", backward)


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

