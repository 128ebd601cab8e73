"""torch.optim (micrograd.optim): SGD, Adam, AdamW, RMSprop, Adagrad and lr_scheduler."""

from __future__ import annotations

import micrograd.optim as _optim
from micrograd.optim import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop
from micrograd.torch import _facade
from micrograd.torch.optim import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]

__getattr__ = _facade.module_getattr(__name__, [_facade.from_module(_optim, __all__)])
