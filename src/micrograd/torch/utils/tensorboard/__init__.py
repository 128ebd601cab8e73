"""torch.utils.tensorboard: SummaryWriter, writing real event files through the
`tensorboard` package when it is installed (it is not a micrograd dependency)."""

from __future__ import annotations

from micrograd.torch import _facade
from micrograd.torch.utils.tensorboard.writer import SummaryWriter

__all__ = ["SummaryWriter"]

__getattr__ = _facade.module_getattr(__name__, [])
