"""How many threads numpy's BLAS gets for each matrix product: one, unless a product is
big and the machine has a free core for each further thread right now.

Why: OpenBLAS starts with one thread per core. For the small products of a learning-size
network its worker threads cost more than they save, and on a machine whose cores other
jobs use they wait for a core: measured on the 2-core machine of docs/benchmarks.md, a
256x64x256 float32 product took 0.9 ms on one thread and 72 ms on two while other jobs
ran; scripts ran 2-2.6x faster with OPENBLAS_NUM_THREADS=1. OpenBLAS splits a product
evenly and its threads wait for each other in a busy loop (on x86-64 a loop of `nop`s that
never yields the core), so a thread whose core another process holds stalls the whole
product for the rest of the scheduler's time slice (~7 ms measured for a 1.3 ms product).

The policy, taken the first time a tensor op multiplies matrices:

- BLAS is set to one thread, which every product below MIN_FLOPS (per BLAS call: one
  matrix of a stacked product) and every other numpy call then uses;
- a product of at least MIN_FLOPS runs on one thread per core that other processes leave
  free, up to `max_threads` (the BLAS default, or what set_num_threads asked for). At most
  every LOAD_INTERVAL seconds a big product reads how long the machine's cores were busy
  (Linux's /proc/stat) and takes off this process's own CPU time (all its threads, BLAS's
  spinning workers included): the rest is other jobs. A core counts as free while other
  jobs use less than TAKEN of it; on 2 cores, two threads while they use under a quarter
  of a core, else one. The thread count goes back to one after each such product.
  Where the load can't be read (not Linux), a big product gets `max_threads`, as numpy
  would give it.

Why not time the products and keep the faster setting (what this module did before): a
two-thread product that met a passing job ran 5-30x slower, which flipped its size class
to one thread for up to 512 products; and every retry of two threads on a busy machine
cost a time slice. The load is read without running anything.

Off when the user chose: OPENBLAS_NUM_THREADS, OMP_NUM_THREADS or MKL_NUM_THREADS in the
environment, or MICROGRAD_BLAS_THREADS=fixed; then BLAS keeps its own setting. Without
threadpoolctl (the `tensor` extra installs it) there is nothing to control: off too.
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from micrograd.tensors import allocator

# Below this, one thread always. Measured on the 2-core machine when other jobs used under
# 0.15 of a core, two threads over one: 128x64x128 (2.1e6 flops) 0.91x, 1797x128x10 (4.6e6)
# 0.70-0.80x, 768x128x65 (1.3e7) 0.56x, 512x64x256 (1.7e7) 0.60x, 768x128x512 (1e8) 0.51x.
# Not lower: a product that meets another job's time slice on two threads loses ~4 ms, so
# a small product's few µs of gain are worth it only on a machine that is idle almost all
# the time (at 1e7, a gain of ~60 µs, one such loss in 70 products undoes it). And not
# 1e7, although those products gain alone: in the whole quiet suite run of 12:55 UTC the
# GPT lecture's small step (W7, its products 1.3e7-1.7e7) ran ~580 of them on two threads
# a process and took 24.2 ms a step against 20.6 ms on one thread (5 processes each).
MIN_FLOPS = 2.0e7
# seconds between two looks at the machine's load: /proc/stat counts in 10 ms ticks, so a
# look over 0.25 s is within 0.04 of a core
LOAD_INTERVAL = 0.25
TAKEN = 0.25  # a core is taken once other jobs use this share of it
_USER_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _busy_seconds() -> float | None:
    """CPU seconds all the machine's cores have been busy since boot (Linux's /proc/stat:
    user, nice, system, irq, softirq and steal time); None where it can't be read."""
    try:
        with open("/proc/stat", "rb") as stat:
            fields = stat.readline().split()
        ticks = [int(v) for v in fields[1:9]]
    except (OSError, ValueError):
        return None
    if fields[:1] != [b"cpu"] or len(ticks) < 8:
        return None
    return (sum(ticks) - ticks[3] - ticks[4]) / _TICKS_PER_SECOND  # less idle and iowait


_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Load:
    """How many cores other processes kept busy since the last look."""

    def __init__(self, busy: Callable[[], float | None] = _busy_seconds,
                 ours: Callable[[], float] = time.process_time) -> None:
        self._busy, self._ours = busy, ours
        self._last: tuple[float, float, float] | None = None
        self.readable = True  # False once a look found no load to read

    def others(self, now: float) -> float | None:
        """Cores other processes used between the last look and `now` (monotonic
        seconds); None at the first look, or where the machine's load can't be read."""
        busy = self._busy()
        if busy is None:
            self.readable = False
            return None
        ours = self._ours()
        last, self._last = self._last, (now, busy, ours)
        if last is None or now <= last[0]:
            return None
        return max(0.0, (busy - last[1] - (ours - last[2])) / (now - last[0]))


class _Policy:
    def __init__(self, load: _Load | None = None) -> None:
        self.started = False
        self.active = False
        self.max_threads = 1
        self.cores = os.cpu_count() or 1  # the cores /proc/stat counts
        self.current = 0
        self._set: Callable[[int], Any] | None = None
        self.load = load or _Load()
        self.big_threads = 1  # what a big product gets now: one until the load was read
        self.next_look = 0.0
        self.spread = 0  # products run on more than one thread, for measurements
        self.fixed_threads: int | None = None  # max_threads() when inactive, once read

    def start(self, now: float) -> None:
        """Find numpy's BLAS and set it to one thread (once; off if the user chose), and
        take the first look at the load, so that a big product long after the first
        product of all (a script's later, bigger phase) is decided at once."""
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
        self.threads_now(now)

    def use(self, n: int) -> None:
        if n != self.current and self._set is not None:
            self._set(n)
            self.current = n

    def big_product(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """a @ b for a product that may be of at least MIN_FLOPS (per matrix of a stack)."""
        if 2 * a.shape[-2] * a.shape[-1] * b.shape[-1] < MIN_FLOPS:
            return np.matmul(a, b)
        threads = self.threads_now(time.monotonic())
        if threads == 1:
            return np.matmul(a, b)
        self.use(threads)
        try:
            out = np.matmul(a, b)
        finally:
            self.use(1)
        self.spread += 1
        return out

    def threads_now(self, now: float) -> int:
        """The threads a big product gets at `now` (monotonic seconds): looks at the load
        when the last look is LOAD_INTERVAL old."""
        if now >= self.next_look:
            self.next_look = now + LOAD_INTERVAL
            others = self.load.others(now)
            if others is not None:
                free = int(self.cores - others + TAKEN)  # a core used > TAKEN is taken
                self.big_threads = max(1, free)
            elif not self.load.readable:  # no load to read: numpy's own choice
                self.big_threads = self.max_threads
        return min(self.big_threads, self.max_threads)


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
_big_mnk = 0.0  # m*k*n from which matmul asks the policy: 0 until the policy started


def _start() -> None:
    """Start the policy once (the first product, or the first question about threads)."""
    if not _policy.started:
        _policy.start(time.monotonic())
        _set_big_mnk()


def _set_big_mnk() -> None:
    global _big_mnk
    on = _policy.active and _policy.max_threads > 1
    _big_mnk = MIN_FLOPS / 2 if on else math.inf


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.matmul(a, b) on the number of BLAS threads the policy picks for its size."""
    # the common case, a small product, in as few steps as Python allows (a.size, unlike
    # a.shape, builds no tuple): it runs on every product of a tiny network, whose
    # np.matmul itself takes ~1 µs. For a stacked `a`, a.size * n bounds one matrix's m*k*n.
    if b.ndim > 1 and a.size * b.shape[-1] >= _big_mnk and a.ndim > 1:
        if not _policy.started:  # the first product of all: start, then look again
            _start()
            return matmul(a, b)
        return _policy.big_product(a, b)
    return np.matmul(a, b)


def set_max_threads(n: int) -> None:
    """The most BLAS threads a big product may get (torch.set_num_threads maps here);
    1 makes every product single-threaded."""
    _start()
    _policy.max_threads = n
    _policy.fixed_threads = None  # read again
    _set_big_mnk()
    if not _policy.active:  # the user chose their BLAS threads: set_num_threads overrides
        for set_, _ in _blas_setters():
            set_(n)


def max_threads() -> int:
    """What set_max_threads set, or the BLAS default when the policy started."""
    _start()
    if _policy.active:
        return _policy.max_threads
    # asked per big elementwise kernel (tensors/parallel.py); threadpool_info costs ~0.6 ms
    if _policy.fixed_threads is None:
        _policy.fixed_threads = _blas_threads_now()
    return _policy.fixed_threads


def threads_now() -> int:
    """The threads a big piece of work should use now: max_threads(), fewer while other
    processes keep the machine's cores busy (what a big product gets; see above)."""
    _start()
    if not _policy.active:
        return max_threads()
    return _policy.threads_now(time.monotonic())


def multi_threaded_products() -> int:
    """How many products the policy has run on more than one thread in this process (0:
    every product ran exactly as under OPENBLAS_NUM_THREADS=1)."""
    return _policy.spread


def _blas_threads_now() -> int:
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return 1
    return max((lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"),
               default=1)
