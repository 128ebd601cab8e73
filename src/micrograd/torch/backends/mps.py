"""torch.backends.mps: Apple's GPU backend, never available here."""

from __future__ import annotations

from micrograd.torch import _facade

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: micrograd runs on the CPU."""
    return False


def is_built() -> bool:
    return False


__getattr__ = _facade.module_getattr(__name__, [])
