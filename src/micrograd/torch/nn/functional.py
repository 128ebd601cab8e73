"""torch.nn.functional: micrograd.tensors.functional, plus the functions composed of
Tensor ops in micrograd.tensors.nn.functional (which win where both have a name: they take
torch's full argument lists, and call the fused ops for the common case). Functions added
to either module later are found by __getattr__ without a change here."""

from __future__ import annotations

from typing import Any

import micrograd.tensors.functional as _fused
import micrograd.tensors.nn.functional as _composed
from micrograd.tensors.functional import (
    linear,
    linear_relu,
    log_softmax,
    softmax,
)
from micrograd.tensors.nn.functional import (
    batch_norm,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    dropout,
    embedding,
    gelu,
    l1_loss,
    layer_norm,
    mse_loss,
    nll_loss,
)
from micrograd.tensors.ops.registered import FUNCTIONAL as _REGISTERED
from micrograd.torch import _facade

__all__ = [
    "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "cross_entropy",
    "dropout", "embedding", "gelu", "l1_loss", "layer_norm", "linear", "linear_relu",
    "log_softmax", "mse_loss", "nll_loss", "softmax",
]
__all__ += list(_REGISTERED)  # relu, tanh, sigmoid, ...: the op registry's (found by _find)


def _public_functions() -> set[str]:
    fused = {n for n in dir(_fused) if not n.startswith("_") and callable(getattr(_fused, n))
             and getattr(getattr(_fused, n), "__module__", "") == _fused.__name__}
    return fused | set(_composed.__all__) | set(_REGISTERED)


def _find(name: str) -> Any:
    if name in _REGISTERED:
        return _REGISTERED[name]
    if name in _composed.__all__:
        return getattr(_composed, name)
    value = getattr(_fused, name)
    if getattr(value, "__module__", "") != _fused.__name__ or name.startswith("_"):
        raise LookupError(name)  # numpy, Tensor and helpers imported there are not F.*
    return value


__getattr__ = _facade.module_getattr(__name__, [_find])


def __dir__() -> list[str]:
    return sorted(_public_functions() | set(__all__))
