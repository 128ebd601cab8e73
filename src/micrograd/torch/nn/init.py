"""torch.nn.init (micrograd.tensors.nn.init)."""

from __future__ import annotations

import micrograd.tensors.nn.init as _init
from micrograd.tensors.nn.init import *  # noqa: F403 - the facade re-exports the module's API
from micrograd.torch import _facade

__all__ = list(_init.__all__)

__getattr__ = _facade.module_getattr(__name__, [_facade.from_module(_init)])
