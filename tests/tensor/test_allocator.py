"""micrograd.tensors.allocator: after the first tensor matrix product, glibc keeps freed
array memory for the next step instead of handing it back and faulting it in again. The
oracle is the kernel's count of page faults (getrusage) in a fresh interpreter."""

from __future__ import annotations

import json
import os

import pytest
from conftest import SRC, run_python

if not (hasattr(os, "confstr") and (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc")):
    pytest.skip("the setting is glibc's", allow_module_level=True)
if any(name.startswith("MALLOC_") for name in os.environ) or "MICROGRAD_MALLOC" in os.environ:
    pytest.skip("malloc is tuned in this environment already", allow_module_level=True)

# a training step's pattern: 40 arrays of 1 MiB (under numpy's 4 MiB huge-page size, so a
# fault is a 4 KiB page) allocated, written and freed together, ten times; page faults of
# the last nine rounds (the first one maps the memory in either way)
STEPS = """
import json, resource, numpy as np, micrograd
a = micrograd.tensor(np.ones((4, 4), np.float32))
(a @ a).sum()  # the first product: where micrograd sets glibc's thresholds
faults = []
for step in range(10):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.full(1 << 18, step, np.float32) for _ in range(40)]
    del arrays
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
print(json.dumps(sum(faults[1:])))
"""



def _faults(**env: str) -> int:
    return int(json.loads(run_python(STEPS, SRC, env)))


def test_freed_array_memory_is_reused_without_page_faults():
    default = _faults(MICROGRAD_MALLOC="default")
    ours = _faults()
    # glibc's default returns 40 MiB to the system each round: 9 x 40 MiB / 4 KiB ~ 92,000
    # faults; kept, the rounds reuse it
    assert default > 20_000, default
    assert ours < default / 20, (ours, default)
