"""torch.utils: torch.utils.data and torch.utils.tensorboard."""

from __future__ import annotations

from micrograd.torch import _facade
from micrograd.torch.utils import data, tensorboard

__all__ = ["data", "tensorboard"]

__getattr__ = _facade.module_getattr(__name__, [])
