"""The warnings torch gives for code that runs but is probably not what the learner meant,
in torch's words, pointed at the learner's own line (the first frame outside micrograd),
as torch's point at the script's line.

torch appends "(Triggered internally at <its C++ source>)" to the ones raised in C++; that
location is not ours to quote, so those messages end before it.
"""

from __future__ import annotations

import os
import sys
import warnings

import numpy as np

from micrograd.tensors.size import Size

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # .../micrograd

COPY_CONSTRUCT = (
    "To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
    "or sourceTensor.detach().clone().requires_grad_(True), rather than "
    "torch.tensor(sourceTensor).")
T_OF_ZERO_D = ("Tensor.T is deprecated on 0-D tensors. This function is the identity in these "
               "cases.")
T_OF_MANY_DIMS = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
    "deprecated and it will throw an error in a future release. Consider `x.mT` to transpose "
    "batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the "
    "dimensions of a tensor.")
NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information.")


def target_size(op: str, input_shape: tuple, target_shape: tuple) -> None:
    """mse_loss, l1_loss, smooth_l1_loss, huber_loss: a target of another shape broadcasts
    against the input (torch warns, then computes), unless the shapes can't broadcast."""
    if tuple(input_shape) == tuple(target_shape):
        return
    warn(f"Using a target size ({Size(target_shape)}) that is different to the input size "
         f"({Size(input_shape)}). This will likely lead to incorrect results due to "
         "broadcasting. Please ensure they have the same size.")
    try:
        np.broadcast_shapes(tuple(input_shape), tuple(target_shape))
    except ValueError:
        raise ValueError(f"{op}: input shape {tuple(input_shape)} and target shape "
                         f"{tuple(target_shape)} cannot be broadcast together (each trailing "
                         "dimension must be equal or 1)") from None


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """warnings.warn, attributed to the first caller outside the micrograd package."""
    frame = sys._getframe(0)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back  # type: ignore[assignment]
        level += 1
    warnings.warn(message, category, stacklevel=level)


def implicit_softmax_dim(name: str, ndim: int) -> int:
    """softmax/log_softmax called without dim: torch warns and picks dim 0 for 0-, 1- and
    3-d input, else 1 (not the last dimension)."""
    warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
         "include dim=X as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def check_reverse_dims(ndim: int) -> None:
    """x.T on anything but a matrix."""
    if ndim == 0:
        warn(T_OF_ZERO_D)
    elif ndim > 2:
        warn(T_OF_MANY_DIMS)
