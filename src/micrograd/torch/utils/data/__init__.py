"""torch.utils.data (micrograd.tensors.data and .sampler), with torch's submodule paths:
`torch.utils.data.dataset`, `.dataloader` and `.sampler`."""

from __future__ import annotations

import micrograd.tensors.data as _data
import micrograd.tensors.sampler as _sampler
from micrograd.tensors.data import (
    DataLoader,
    Dataset,
    Subset,
    TensorDataset,
    default_collate,
    random_split,
)
from micrograd.tensors.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
)
from micrograd.torch import _facade
from micrograd.torch.utils.data import dataloader, dataset, sampler

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "DataLoader",
           "default_collate", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "BatchSampler", "dataset", "dataloader", "sampler"]

__getattr__ = _facade.module_getattr(__name__, [_facade.from_module(_data, __all__),
                                                _facade.from_module(_sampler, __all__)])
