"""torch.cuda: there is no GPU here, so scripts take their CPU branch."""

from __future__ import annotations

from typing import Any

from micrograd.torch import _facade

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "synchronize"]


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


__getattr__ = _facade.module_getattr(__name__, [])
