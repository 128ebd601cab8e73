"""torch.nn.parallel: importable; wrapping a model for several devices or processes is a
clear error, since micrograd runs one process on the CPU."""

from __future__ import annotations

from typing import Any

from micrograd.torch import _facade

__all__ = ["DistributedDataParallel", "DataParallel"]


class DistributedDataParallel:
    """Not available: there is no process group (torch.distributed.is_available() is False)."""

    def __init__(self, module: Any, *args: Any, **kwargs: Any):
        raise RuntimeError("torch.nn.parallel.DistributedDataParallel is not supported by "
                           "micrograd.torch: it runs in a single process on the CPU; use "
                           "the model itself")


class DataParallel:
    """Not available: there is one device, the CPU."""

    def __init__(self, module: Any, *args: Any, **kwargs: Any):
        raise RuntimeError("torch.nn.parallel.DataParallel is not supported by "
                           "micrograd.torch: there is one device (the CPU); use the model "
                           "itself")


__getattr__ = _facade.module_getattr(__name__, [])
