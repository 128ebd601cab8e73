"""torch.utils.data.dataset: the dataset classes."""

from __future__ import annotations

from micrograd.tensors.data import Dataset, Subset, TensorDataset, random_split
from micrograd.torch import _facade

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split"]

__getattr__ = _facade.module_getattr(__name__, [])
