"""torch.nn: Module, Parameter, layers, containers and losses (micrograd.tensors.nn)."""

from __future__ import annotations

import micrograd.tensors.nn as _nn
from micrograd.tensors.nn import *  # noqa: F403 - the facade re-exports the package's API
from micrograd.tensors.nn import __all__ as _names
from micrograd.torch import _facade
from micrograd.torch.nn import functional, init, parallel, utils

__all__ = [n for n in _names if n not in ("from_scalar_mlp", "IncompatibleKeys",
                                          "StateDictError")] + ["functional", "init",
                                                                  "parallel", "utils"]

__getattr__ = _facade.module_getattr(__name__, [_facade.from_module(_nn)])
