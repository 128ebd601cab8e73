"""torch.cuda: there is no GPU here, so scripts take their CPU branch."""

from __future__ import annotations

from typing import Any

from micrograd.torch import _facade, amp

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize",
           "is_bf16_supported", "empty_cache", "set_device", "amp"]


def is_available() -> bool:
    """False: micrograd computes with numpy, on the CPU."""
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Nothing to seed without a GPU (torch accepts this call on CPU-only machines too)."""


manual_seed_all = manual_seed


def synchronize(device: Any = None) -> None:
    """Nothing to wait for."""


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: there is no GPU to support it."""
    return False


def empty_cache() -> None:
    """No GPU memory to release."""


def set_device(device: Any) -> None:
    """There is no GPU to select: a clear error, as torch gives on a machine without one."""
    raise RuntimeError(f"torch.cuda.set_device({device!r}): micrograd.torch has no CUDA "
                       "device (torch.cuda.is_available() is False); run on 'cpu'")


__getattr__ = _facade.module_getattr(__name__, [])
