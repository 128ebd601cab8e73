"""torch.optim.lr_scheduler (micrograd.optim.lr_scheduler)."""

from __future__ import annotations

import micrograd.optim.lr_scheduler as _schedules
from micrograd.optim.lr_scheduler import (
    CosineAnnealingLR,
    ExponentialLR,
    LambdaLR,
    LRScheduler,
    MultiStepLR,
    OneCycleLR,
    StepLR,
)
from micrograd.torch import _facade

__all__ = ["LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR",
           "CosineAnnealingLR", "OneCycleLR"]

__getattr__ = _facade.module_getattr(__name__, [_facade.from_module(_schedules, __all__)])
