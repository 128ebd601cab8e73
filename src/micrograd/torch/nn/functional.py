"""torch.nn.functional: micrograd.tensors.functional, one function per torch name (a name
added to its __all__ appears here without a change); any other name raises the
"not supported by micrograd.torch (yet)" error."""

from __future__ import annotations

from micrograd.tensors.functional import *  # noqa: F403 - the facade re-exports the module
from micrograd.tensors.functional import __all__ as _names
from micrograd.torch import _facade

__all__ = list(_names)

__getattr__ = _facade.module_getattr(__name__, [])


def __dir__() -> list[str]:
    return sorted(__all__)
