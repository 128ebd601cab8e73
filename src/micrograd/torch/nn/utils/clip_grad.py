"""torch.nn.utils.clip_grad: scale or clamp gradients in place before optimizer.step().

clip_grad_norm_ follows torch's CPU path step by step (one norm per gradient, the norm of
those norms, coefficient max_norm / (total + 1e-6) clamped at 1, one multiply per
gradient), so the clipped gradients are torch's to float32 rounding of the norms.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from micrograd.tensors import Tensor, parallel
from micrograd.tensors.function import leaf

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _gradients(parameters: Tensor | Iterable[Tensor]) -> list[np.ndarray]:
    listed = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    for p in listed:
        if not isinstance(p, Tensor):
            raise TypeError("clip_grad expects tensors (model.parameters()), got "
                            f"{type(p).__name__}")
    return [p._grad_array for p in listed if p._grad_array is not None]


def _vector_norm(array: np.ndarray, norm_type: float) -> np.ndarray:
    """torch.linalg.vector_norm(array, norm_type) in the array's dtype (summed in float64)."""
    values = np.abs(array.astype(np.float64, copy=False)).ravel()
    if norm_type == np.inf:
        norm = values.max(initial=0.0)
    elif norm_type == -np.inf:
        norm = values.min(initial=np.inf)
    elif norm_type == 0:
        norm = float(np.count_nonzero(values))
    else:
        norm = (values ** norm_type).sum() ** (1.0 / norm_type)
    return np.asarray(norm, dtype=array.dtype)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale all gradients together so that their joint `norm_type`-norm is at most
    `max_norm`; return the norm they had before (a 0-d tensor)."""
    grads = _gradients(parameters)
    norm_type = float(norm_type)
    if not grads:
        return leaf(np.asarray(0.0, dtype=np.float32))
    each: list[np.ndarray] = [np.empty(0)] * len(grads)
    elements = sum(g.size for g in grads)

    def norms_of(part: slice) -> None:  # one gradient at a time, on parallel.py's threads
        for i in range(part.start, part.stop):
            each[i] = _vector_norm(grads[i], norm_type)

    parallel.run(norms_of, len(grads), elements * 4)
    norms = np.stack(each)
    total = _vector_norm(norms, norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
    one, epsilon = total.dtype.type(1.0), total.dtype.type(1e-6)
    coefficient = np.minimum(np.asarray(max_norm, dtype=total.dtype) / (total + epsilon), one)

    def scale(part: slice) -> None:
        for g in grads[part]:
            np.multiply(g, coefficient.astype(g.dtype), out=g)

    parallel.run(scale, len(grads), elements)
    return leaf(total)


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element into [-clip_value, clip_value], in place."""
    clip_value = float(clip_value)
    for g in _gradients(parameters):
        np.clip(g, -clip_value, clip_value, out=g)
