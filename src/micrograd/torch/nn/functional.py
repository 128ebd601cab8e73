"""torch.nn.functional: micrograd.tensors.functional, one function per torch name (a name
added to its __all__ appears here without a change); any other name raises the
"not supported by micrograd.torch (yet)" error."""

from __future__ import annotations

from typing import Any

from micrograd.tensors import functional as _fused
from micrograd.tensors import torch_warnings
from micrograd.tensors.functional import *  # noqa: F403 - the facade re-exports the module
from micrograd.tensors.functional import __all__ as _names
from micrograd.tensors.tensor import Tensor
from micrograd.torch import _facade

__all__ = list(_names)  # softmax and log_softmax below replace the star-imported ones:
# torch picks an implicit dim (with its warning) where the engine's take the last


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # type: ignore[no-redef]
            dtype: Any = None) -> Tensor:
    """torch's F.softmax: without dim, torch's implicit choice and its warning."""
    if dim is None:
        dim = torch_warnings.implicit_softmax_dim("softmax", input.ndim)
    return _fused.softmax(input if dtype is None else input.to(dtype), dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,  # type: ignore[no-redef]
                dtype: Any = None) -> Tensor:
    """torch's F.log_softmax: without dim, torch's implicit choice and its warning."""
    if dim is None:
        dim = torch_warnings.implicit_softmax_dim("log_softmax", input.ndim)
    return _fused.log_softmax(input if dtype is None else input.to(dtype), dim)


__getattr__ = _facade.module_getattr(__name__, [])


def __dir__() -> list[str]:
    return sorted(__all__)
