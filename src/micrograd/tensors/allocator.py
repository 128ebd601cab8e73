"""Keep freed array memory in the process for the next training step (glibc only).

Why: a training step allocates and frees the same large arrays every step (activations,
their gradients, the backward's temporaries). glibc's malloc hands memory of more than
128 KiB (a threshold it raises up to 32 MiB as such blocks are freed) straight back to
the operating system, and trims the top of its heap once 128 KiB (twice the threshold)
is free there; the next step then page-faults all of it in again. Measured on nanoGPT's
char model (W9 of docs/benchmarks.md): ~4,100 page faults and ~9 ms of kernel time a step,
about 12% of the step (PyTorch's step: ~1,800 and ~5 ms).

So the first time a tensor op multiplies matrices (where micrograd.tensors.threads starts
its policy), micrograd asks glibc (`mallopt`) to serve every block from its heap (no
separate mappings, which would go back to the system when freed) and to keep up to
TRIM_THRESHOLD of free memory at the heap's top. Peak memory does not grow (a freed block
is reused, not added: measured on the GPT lecture's model); what changes is that up to
TRIM_THRESHOLD stays with the process after a step instead of going back to the system.
A size cap on heap blocks alone (glibc allows 32 MiB at most) was not enough: at the
lecture's published size the 100 MB arrays of the feed-forward layers still page-faulted
in every step (~2 s of kernel time a 20 s step).

Off when the user chose: any of glibc's MALLOC_*_ tuning variables in the environment, or
MICROGRAD_MALLOC=default; and off where the C library is not glibc.
"""

from __future__ import annotations

import ctypes
import os

TRIM_THRESHOLD = 1024 * 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_MAX = -1, -4  # glibc's malloc.h
_USER_SETTINGS = ("MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
                  "MALLOC_MMAP_MAX_", "MALLOC_ARENA_MAX")

_done = False


def keep_freed_memory() -> bool:
    """Set glibc's heap thresholds as described above, once; whether they were set."""
    global _done
    if _done:
        return False
    _done = True
    if os.environ.get("MICROGRAD_MALLOC") == "default" or any(
            name in os.environ for name in _USER_SETTINGS):
        return False
    try:
        glibc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.39"; an error or None elsewhere
    except (AttributeError, ValueError, OSError):
        glibc = None
    if not glibc:
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    # mallopt returns 1 on success. Without mappings glibc still maps a block when its heap
    # cannot grow (its own fallback), so a huge array is never refused for this.
    return bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) and mallopt(_M_MMAP_MAX, 0))
