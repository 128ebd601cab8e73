"""torch.utils: only torch.utils.data is provided."""

from __future__ import annotations

from micrograd.torch import _facade
from micrograd.torch.utils import data

__all__ = ["data"]

__getattr__ = _facade.module_getattr(__name__, [])
