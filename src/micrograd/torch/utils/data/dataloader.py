"""torch.utils.data.dataloader: DataLoader and its default collation."""

from __future__ import annotations

from micrograd.tensors.data import DataLoader, default_collate
from micrograd.torch import _facade

__all__ = ["DataLoader", "default_collate"]

__getattr__ = _facade.module_getattr(__name__, [])
