"""PyTorch compatibility shims: devices (the CPU only), torch.cuda, BLAS threads, malloc.

micrograd computes with numpy on the CPU. These stand-ins let a ported script's
`device = "cuda" if torch.cuda.is_available() else "cpu"` and `.to(device)` run, and say
clearly why any other device is refused.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from micrograd._validate import check_positive_int
from micrograd.tensors import threads
from micrograd.tensors.dtypes import as_dtype

# Device names PyTorch knows besides the CPU: recognised only to say clearly they are not here.
_OTHER_DEVICES = ("cuda", "mps", "xpu", "xla", "meta", "hip", "ipu", "hpu", "mtia", "vulkan",
                  "privateuseone")


def is_device(target: Any) -> bool:
    """True for "cpu", "cuda:0", ... (a dtype otherwise); objects with a .type, as
    torch.device, count as devices too."""
    if isinstance(target, str):
        return target.split(":")[0] in ("cpu",) + _OTHER_DEVICES
    return isinstance(getattr(target, "type", None), str)


def check_device(target: Any) -> None:
    """Accept the CPU; for any other device raise a RuntimeError that says why."""
    name = target if isinstance(target, str) else getattr(target, "type", target)
    if not isinstance(name, str) or name.split(":")[0] != "cpu":
        raise RuntimeError(
            f"micrograd runs on the CPU only (it computes with numpy), so device {name!r} "
            "is not available; drop the .to(device)/.cuda() call or use 'cpu'"
        )


def on_cpu(device: Any) -> None:
    """A factory's device= argument: None or "cpu"; anything else raises (check_device)."""
    if device is not None:
        check_device(device)


def to_arguments(args: tuple, dtype: Any, device: Any) -> np.dtype | None:
    """The dtype asked for by to(dtype) / to(device) / to(device, dtype) (None: none);
    checks that the device is the CPU. Shared by Tensor.to and Module.to."""
    if device is not None:
        check_device(device)
    for arg in args:
        if is_device(arg):
            check_device(arg)
        elif dtype is None:
            dtype = arg
        else:
            raise TypeError(f"to() takes one dtype, got {dtype!r} and {arg!r}")
    return None if dtype is None else as_dtype(dtype)


def device(name: str = "cpu") -> str:
    """torch.device's stand-in: "cpu" is the only device; others raise a RuntimeError."""
    check_device(name)
    return "cpu"


class _NoCuda:
    """torch.cuda's stand-in for `device = "cuda" if torch.cuda.is_available() else "cpu"`."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0


cuda = _NoCuda()


def set_num_threads(n: int) -> None:
    """The most threads numpy's BLAS may use for one big matrix product, as
    torch.set_num_threads; small products always run on one (see tensors/threads.py).

    On a busy or small machine one thread is often much faster for the small matrices
    of a learning-size network: BLAS worker threads spin waiting for cores they don't get.
    """
    check_positive_int("set_num_threads: the number of threads", n)
    threads.set_max_threads(n)


def get_num_threads() -> int:
    """The most threads numpy's BLAS may use for one product (see set_num_threads)."""
    return threads.max_threads()


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to reuse freed memory for big arrays instead of returning it to
    the kernel at once; True if the setting was made. Process-wide: call it yourself.

    Why: a training step allocates and frees the same large temporaries every step (a
    1,797x128 float32 activation is 0.9 MB). With glibc's defaults, blocks that big are
    mmap'ed or trimmed from the heap on free, so the next step touches fresh pages: on the
    digits benchmark ~300-650 page faults per step, ~1 ms of a 1.4 ms step in a VM (PyTorch,
    for comparison: ~10). Keeping up to 64 MiB of freed memory makes them reusable.
    Skipped off glibc, when the user tuned malloc already (MALLOC_*_ or GLIBC_TUNABLES),
    or when MICROGRAD_SYSTEM_MALLOC=1.
    """
    if not sys.platform.startswith("linux") or os.environ.get("MICROGRAD_SYSTEM_MALLOC") == "1":
        return False
    if "GLIBC_TUNABLES" in os.environ or any(
            k.startswith("MALLOC_") and k.endswith("_") for k in os.environ):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        if not hasattr(libc, "gnu_get_libc_version"):  # mallopt's codes below are glibc's
            return False
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    mib = 1 << 20
    # mmap only blocks over 32 MiB (glibc's maximum), keep up to 64 MiB free at the heap top
    return bool(mallopt(m_mmap_threshold, 32 * mib)) and bool(mallopt(m_trim_threshold, 64 * mib))
