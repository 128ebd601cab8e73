"""torch.utils.data (micrograd.tensors.data)."""

from __future__ import annotations

import micrograd.tensors.data as _data
from micrograd.tensors.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)
from micrograd.torch import _facade

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "DataLoader",
           "default_collate"]

__getattr__ = _facade.module_getattr(__name__, [_facade.from_module(_data, __all__)])
