"""torch.backends.cuda: the matmul precision switches (no effect without a GPU)."""

from __future__ import annotations

from micrograd.torch import _facade

__all__ = ["matmul", "is_built"]


class _MatmulFlags:
    """`torch.backends.cuda.matmul`: settable flags, torch's defaults."""

    def __init__(self) -> None:
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    def __repr__(self) -> str:
        return "<torch.backends.cuda.matmul flags (no effect: micrograd runs on the CPU)>"


matmul = _MatmulFlags()


def is_built() -> bool:
    """False: micrograd has no CUDA build."""
    return False


__getattr__ = _facade.module_getattr(__name__, [])
