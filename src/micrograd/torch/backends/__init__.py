"""torch.backends: the switches scripts set for GPU kernels (TF32, cuDNN autotuning).

micrograd computes in numpy on the CPU, so there is nothing for them to switch; they are
kept as plain attributes with torch's CPU-build defaults, so that a script can set and read
them (`torch.backends.cuda.matmul.allow_tf32 = True`) as it does under torch.
"""

from __future__ import annotations

from micrograd.torch import _facade
from micrograd.torch.backends import cpu, cuda, cudnn, mps

__all__ = ["cpu", "cuda", "cudnn", "mps"]

__getattr__ = _facade.module_getattr(__name__, [])
