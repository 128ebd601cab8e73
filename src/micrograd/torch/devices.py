"""torch.set_default_device / get_default_device: the CPU is the only device here."""

from __future__ import annotations

from typing import Any

from micrograd.tensors import compat
from micrograd.tensors import device as _device

__all__ = ["set_default_device", "get_default_device"]


def set_default_device(device: Any) -> None:
    """Accept "cpu" (or None, torch's "back to the CPU"); any other device is the same
    clear error as `.to("cuda")`."""
    if device is not None:
        compat.check_device(device)


def get_default_device() -> Any:
    """device(type='cpu')."""
    return _device("cpu")
