"""torch.accelerator: the device-agnostic accelerator API. There is none here, so scripts
that write `torch.accelerator.current_accelerator().type if torch.accelerator.is_available()
else "cpu"` take the CPU."""

from __future__ import annotations

from typing import Any, NoReturn

from micrograd.torch import _facade

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "set_device_index", "synchronize"]


def is_available() -> bool:
    """False: micrograd computes with numpy on the CPU."""
    return False


def current_accelerator(check_available: bool = False) -> None:
    """None: no accelerator (torch returns None too when it has none)."""
    return None


def device_count() -> int:
    return 0


def current_device_index() -> NoReturn:
    raise RuntimeError("torch.accelerator.current_device_index(): micrograd.torch has no "
                       "accelerator (torch.accelerator.is_available() is False)")


def set_device_index(device: Any) -> NoReturn:
    raise RuntimeError(f"torch.accelerator.set_device_index({device!r}): micrograd.torch has "
                       "no accelerator; use the CPU")


def synchronize(device: Any = None) -> None:
    """Nothing to wait for."""


__getattr__ = _facade.module_getattr(__name__, [])
