"""torch.nn.utils: gradient clipping and parameter/vector helpers."""

from __future__ import annotations

from micrograd.torch import _facade
from micrograd.torch.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_

__all__ = ["clip_grad_norm_", "clip_grad_value_"]

__getattr__ = _facade.module_getattr(__name__, [])
