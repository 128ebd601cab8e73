"""torch.backends.cpu: which SIMD level the CPU kernels use."""

from __future__ import annotations

from micrograd.torch import _facade

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """"DEFAULT": micrograd's kernels are numpy's, not torch's vectorised ones."""
    return "DEFAULT"


__getattr__ = _facade.module_getattr(__name__, [])
