"""How many threads numpy's BLAS gets for each matrix product: one, unless a product is
big and more threads were measured to be faster for products of its size right now.

Why: OpenBLAS starts with one thread per core. For the small products of a learning-size
network its worker threads cost more than they save, and on a machine whose cores other
jobs use they spin waiting for a core: measured on the 2-core machine of
docs/benchmarks.md, a 256x64x256 float32 product took 0.9 ms on one thread and 72 ms on
two while other jobs ran; scripts ran 2-2.6x faster with OPENBLAS_NUM_THREADS=1.

The policy, taken the first time a tensor op multiplies matrices:

- BLAS is set to one thread, which every product below MIN_FLOPS (per BLAS call: one
  matrix of a stacked product) and every other numpy call then uses;
- a product of at least MIN_FLOPS runs on one thread or on `max_threads` (the BLAS
  default, or what set_num_threads asked for), whichever has been faster per flop for
  products of its size class (a power of 2 of flops). The other setting is tried again
  now and then (every 8th product of the class at first, backing off to every 512th while
  it keeps losing), so a machine that gets busy or idle is followed; the thread count goes
  back to one after each such product.

Off when the user chose: OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or MKL_NUM_THREADS in the
environment, or MICROGRAD_BLAS_THREADS=fixed; then BLAS keeps its own setting. Without
threadpoolctl (the `tensor` extra installs it) there is nothing to control: off too.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from micrograd.tensors import allocator

# Below this, one thread always (a 256x256x256 product: 3.4e7). 2e8 until the first quiet
# whole-suite run: there nanoGPT's char model (its products 2.5e7-1e8) took 70 ms a step
# against torch's 37 ms on two threads; at 2e7 the adaptive choice gave it 61 ms (78 on one
# thread) and W3's full batch 1.09 ms (1.34 on one thread).
MIN_FLOPS = 2.0e7
_USER_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
_FIRST_RETRY, _LAST_RETRY = 8, 512


class _SizeClass:
    """Seconds per flop on 1 and on max_threads threads, for products of one size class."""

    __slots__ = ("calls", "per_flop", "retry")

    def __init__(self) -> None:
        self.per_flop: dict[int, float] = {}
        self.calls = 0
        self.retry = _FIRST_RETRY


class _Policy:
    def __init__(self) -> None:
        self.started = False
        self.active = False
        self.max_threads = 1
        self.current = 0
        self._set: Callable[[int], Any] | None = None
        self.classes: dict[int, _SizeClass] = {}
        self.fixed_threads: int | None = None  # max_threads() when inactive, once read

    def start(self) -> None:
        """Find numpy's BLAS and set it to one thread (once; off if the user chose)."""
        self.started = True
        allocator.keep_freed_memory()  # heavy array work starts here too: see allocator
        if os.environ.get("MICROGRAD_BLAS_THREADS") == "fixed" or any(
                os.environ.get(name) for name in _USER_SETTINGS):
            return
        setters = _blas_setters()
        if not setters:
            return
        self._set = setters[0][0] if len(setters) == 1 else (
            lambda n: [set_(n) for set_, _ in setters])
        self.max_threads = max(n for _, n in setters)
        self.active = True
        self.use(1)

    def use(self, n: int) -> None:
        if n != self.current and self._set is not None:
            self._set(n)
            self.current = n

    def choose(self, flops: float) -> tuple[_SizeClass, int]:
        """The size class of a big product and the thread count to run it with."""
        key = int(flops).bit_length()
        size_class = self.classes.get(key)
        if size_class is None:
            size_class = self.classes[key] = _SizeClass()
        size_class.calls += 1
        known = size_class.per_flop
        if len(known) < 2:  # not measured yet: one thread first, then the others
            return size_class, 1 if 1 not in known else self.max_threads
        best = min(known, key=known.__getitem__)
        if size_class.calls % size_class.retry == 0:  # try the other one again
            return size_class, self.max_threads if best == 1 else 1
        return size_class, best

    def record(self, size_class: _SizeClass, threads: int, per_flop: float) -> None:
        known = size_class.per_flop
        before = min(known, key=known.__getitem__) if len(known) == 2 else None
        old = known.get(threads)
        # a running estimate that follows the machine's load within a few products
        known[threads] = per_flop if old is None else 0.5 * old + 0.5 * per_flop
        if before is not None and threads != before:  # a retry of the slower setting
            after = min(known, key=known.__getitem__)
            size_class.retry = (min(size_class.retry * 2, _LAST_RETRY) if after == before
                                else _FIRST_RETRY)


def _blas_setters() -> list[tuple[Callable[[int], Any], int]]:
    """(set_num_threads, current threads) of each BLAS numpy loaded (none without
    threadpoolctl). The raw C setter: threadpoolctl's own wrapper costs ~2.5 µs a call."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:
        return []
    setters = []
    for lib in ThreadpoolController().lib_controllers:
        if lib.user_api != "blas":
            continue
        raw = None
        if lib.internal_api == "openblas" and getattr(lib, "threading_layer", "") != "openmp":
            try:
                raw = lib._get_symbol("openblas_set_num_threads")
            except Exception:  # a threadpoolctl without the helper: use its wrapper
                raw = None
        setters.append((raw if raw is not None else lib.set_num_threads, lib.num_threads))
    return setters


_policy = _Policy()


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.matmul(a, b) on the number of BLAS threads the policy picks for its size."""
    policy = _policy
    if not policy.started:
        policy.start()
    if not policy.active or a.ndim < 2 or b.ndim < 2:
        return np.matmul(a, b)
    flops = 2.0 * a.shape[-2] * a.shape[-1] * b.shape[-1]
    if flops < MIN_FLOPS or policy.max_threads == 1:
        return np.matmul(a, b)
    size_class, threads = policy.choose(flops)
    policy.use(threads)
    t0 = time.perf_counter()
    try:
        out = np.matmul(a, b)
    finally:
        policy.use(1)
    policy.record(size_class, threads, (time.perf_counter() - t0) / flops)
    return out


def set_max_threads(n: int) -> None:
    """The most BLAS threads a big product may get (torch.set_num_threads maps here);
    1 makes every product single-threaded."""
    if not _policy.started:
        _policy.start()
    _policy.max_threads = n
    _policy.classes.clear()  # measured for another thread count
    if not _policy.active:  # the user chose their BLAS threads: set_num_threads overrides
        for set_, _ in _blas_setters():
            set_(n)
        _policy.fixed_threads = None  # read again


def max_threads() -> int:
    """What set_max_threads set, or the BLAS default when the policy started."""
    if not _policy.started:
        _policy.start()
    if _policy.active:
        return _policy.max_threads
    # asked per big elementwise kernel (tensors/parallel.py); threadpool_info costs ~0.6 ms
    if _policy.fixed_threads is None:
        _policy.fixed_threads = _blas_threads_now()
    return _policy.fixed_threads


def _blas_threads_now() -> int:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return 1
    return max((lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"),
               default=1)
