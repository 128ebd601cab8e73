"""torch.utils.data.sampler: the orders a DataLoader visits samples in."""

from __future__ import annotations

from micrograd.tensors.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)
from micrograd.torch import _facade

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "BatchSampler"]

__getattr__ = _facade.module_getattr(__name__, [])
