"""torch.backends.cudnn: cuDNN's switches, kept as attributes (there is no cuDNN here)."""

from __future__ import annotations

from micrograd.torch import _facade

__all__ = ["enabled", "benchmark", "deterministic", "allow_tf32", "is_available", "version"]

# torch's defaults; scripts assign them, nothing reads them
enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: no cuDNN without a GPU."""
    return False


def version() -> None:
    """None, as torch returns without cuDNN."""
    return None


__getattr__ = _facade.module_getattr(__name__, [])
