"""torch.cuda.amp: the older spelling of torch.amp with device "cuda" (deprecated in torch,
which warns; so does this)."""

from __future__ import annotations

import warnings
from typing import Any

from micrograd.torch import _facade, amp

__all__ = ["autocast", "GradScaler"]


def _deprecated(name: str) -> None:
    warnings.warn(f"`torch.cuda.amp.{name}(args...)` is deprecated. Please use "
                  f"`torch.amp.{name}('cuda', args...)` instead.", FutureWarning,
                  stacklevel=3)


class autocast(amp.autocast):
    """`torch.cuda.amp.autocast()`: without a GPU, a block that changes nothing."""

    def __init__(self, enabled: bool = True, dtype: Any = None, cache_enabled: bool = True):
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(amp.GradScaler):
    """`torch.cuda.amp.GradScaler()`: without a GPU, disabled (torch warns the same)."""

    def __init__(self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True):
        _deprecated("GradScaler")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor,
                         growth_interval, enabled)


__getattr__ = _facade.module_getattr(__name__, [])
