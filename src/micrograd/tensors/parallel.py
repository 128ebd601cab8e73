"""numpy work on big arrays split over threads: each thread runs the same kernel on its own
chunk of rows, one chunk on the calling thread.

Why: numpy runs an elementwise loop or a reduction on one core; torch runs its kernels on
every core it may use. numpy releases the GIL inside its loops, so plain threads get real
parallelism for kernels made of numpy calls on big arrays.

Results are bit-identical to one call on the whole array, because a chunk is cut only
along an axis the kernel works on element by element (rows, when a kernel reduces along
its last axes), and a flat chunk starts at a multiple of `_ALIGN` elements, so numpy's
vector loops see the same lanes and the same tail as in the unsplit call.

Below `MIN_WORK`, inside a worker thread, or when one thread is all there is
(`threads.threads_now()`: 1 under `torch.set_num_threads(1)` or OPENBLAS_NUM_THREADS=1,
and fewer than max while other processes keep the cores busy, as for a big matrix
product), the kernel runs in the caller alone. On a 2-core machine whose other core other
jobs use, a worker waits for a core and each numpy call's GIL hand-back waits with it:
measured there, W9's GELU took 5.7 ms split against 2.35 serial. An exception in any
chunk is raised in the caller, after every chunk has finished.

The same pool serves `matmul_stack`, which splits a stack of matrix products each too
small for more than one BLAS thread (attention's heads).
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from micrograd.tensors import threads

# Work below this many element-passes (elements x numpy passes over them) runs in the
# caller. Handing a chunk to a worker and waiting for it costs 15 µs on an idle core of the
# 2-core machine of docs/benchmarks.md and 60-90 µs while other jobs run; one float32 pass
# costs ~0.3-1 ns an element, so 2**20 element-passes (0.3-1 ms) leave the hand-off a few %.
MIN_WORK = 1 << 20
# element-passes per slice a thread takes at a time (see _Job)
TASK_WORK = 1 << 19
# chunk starts in a flat array: a multiple of every SIMD width numpy uses (64 bytes of
# float64 and more), so each element lands in the same vector lane as unsplit
_ALIGN = 64
# elements per kernel call in a flat chunk: a few float32 temporaries of this size stay in
# a core's L2 cache (1 MiB here), where a pass over the whole array would stream through
# memory; not smaller, since each numpy call in a worker takes the GIL twice
BLOCK = 1 << 16

_pool: ThreadPoolExecutor | None = None
_pool_workers = 0
_pool_lock = threading.Lock()
_in_worker = threading.local()


def thread_count(work: int) -> int:
    """How many threads `work` element-passes may use (1: run it in the caller)."""
    if work < MIN_WORK or getattr(_in_worker, "active", False):
        return 1
    return max(1, min(threads.threads_now(), work // (MIN_WORK // 2)))


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool, _pool_workers
    with _pool_lock:
        if _pool is None or _pool_workers < workers:
            if _pool is not None:
                _pool.shutdown(wait=False)
            _pool = ThreadPoolExecutor(workers, thread_name_prefix="micrograd-parallel")
            _pool_workers = workers
        return _pool


def _forget_pool_after_fork() -> None:
    """A forked child has none of the parent's worker threads: start its own pool."""
    global _pool, _pool_workers, _pool_lock
    _pool, _pool_workers, _pool_lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool_after_fork)


def bounds(length: int, parts: int, align: int = 1) -> list[slice]:
    """`parts` consecutive slices covering range(length), near-equal, each start a multiple
    of `align` (fewer slices when length is too short for `parts`)."""
    step = -(-length // max(parts, 1))
    step = max(-(-step // align) * align, 1)
    return [slice(start, min(start + step, length)) for start in range(0, length, step)]


class _Job:
    """Slices of one call's work, taken one at a time by whichever thread is free.

    The caller takes slices too and waits only for slices a worker has already started:
    on a machine whose other core is busy, a worker that never got a core takes nothing,
    and the call costs what the serial one does plus the hand-off."""

    __slots__ = ("claims", "error", "finished", "left", "lock", "parts", "work")

    def __init__(self, work: Callable[[slice], None], parts: list[slice]) -> None:
        self.work, self.parts = work, parts
        self.claims = itertools.count()  # next() on it is atomic under the GIL
        self.lock = threading.Lock()
        self.left = len(parts)
        self.finished = threading.Event()
        self.error: BaseException | None = None

    def take_slices(self) -> None:
        was_worker = getattr(_in_worker, "active", False)
        _in_worker.active = True  # a kernel that calls run() again runs serially
        try:
            while (i := next(self.claims)) < len(self.parts):
                try:
                    self.work(self.parts[i])
                except BaseException as exc:  # raised in the caller, once all are done
                    self.error = self.error or exc
                with self.lock:
                    self.left -= 1
                    if self.left == 0:
                        self.finished.set()
        finally:
            _in_worker.active = was_worker


def run(work: Callable[[slice], None], length: int, cost: int, align: int = 1,
        block: int | None = None) -> None:
    """Call work(s) for slices s covering range(length) (an axis the work treats element
    by element), in parallel when `cost` (element-passes) is big enough and other
    processes leave a core free; with `block`, in slices of at most `block` (so a kernel's
    temporaries stay in cache)."""
    n = thread_count(cost)
    chunk_work = work if block is None else _in_blocks(work, block)
    if n == 1 or length < 2:
        chunk_work(slice(0, length))
        return
    # a few slices per thread, so a thread that got its core late takes fewer
    parts = bounds(length, min(4 * n, max(n, cost // TASK_WORK)), align)
    if len(parts) == 1:
        chunk_work(parts[0])
        return
    _run_split(chunk_work, parts, n)


_splits = 0  # calls split over threads in this process, for measurements


def split_calls() -> int:
    """How many calls this process has split over more than one thread (0: every kernel
    ran exactly as under OPENBLAS_NUM_THREADS=1)."""
    return _splits


def _run_split(chunk_work: Callable[[slice], None], parts: list[slice], n: int) -> None:
    global _splits
    _splits += 1
    job = _Job(chunk_work, parts)
    pool = _executor(n - 1)
    for _ in range(min(n, len(parts)) - 1):
        pool.submit(job.take_slices)
    job.take_slices()
    job.finished.wait()
    if job.error is not None:
        raise job.error


def _in_blocks(work: Callable[[slice], None], block: int) -> Callable[[slice], None]:
    def blocked(part: slice) -> None:
        for start in range(part.start, part.stop, block):
            work(slice(start, min(start + block, part.stop)))

    return blocked


def _row_align(row_elements: int) -> int:
    """Rows per chunk start so that a chunk of a C-contiguous array starts at a multiple
    of _ALIGN elements."""
    return _ALIGN // math.gcd(_ALIGN, max(row_elements, 1))


def elementwise(kernel: Callable[..., None], *arrays: np.ndarray, passes: int) -> None:
    """kernel(*chunks) over matching chunks of `arrays` (the first sets the shape; an
    array that broadcasts to it is passed whole or by rows); the kernel, which makes
    about `passes` numpy passes over its chunk, writes its outputs' chunks in place.
    Flat chunks of at most BLOCK elements when every array is C-contiguous and of one
    shape, else chunks of rows."""
    first = arrays[0]
    cost = first.size * passes
    if first.size <= BLOCK and thread_count(cost) == 1:
        kernel(*arrays)
        return
    if _all_flat(arrays):
        flats = [a.reshape(-1) for a in arrays]

        def flat_work(part: slice) -> None:
            kernel(*(a[part] for a in flats))

        run(flat_work, first.size, cost, _ALIGN, BLOCK)
        return
    if first.ndim == 0 or thread_count(cost) == 1:
        kernel(*arrays)
        return
    rows = first.shape[0]

    def row_work(part: slice) -> None:
        kernel(*(a[part] if a.ndim == first.ndim and a.shape[0] == rows else a
                 for a in arrays))

    run(row_work, rows, cost, _row_align(first.size // max(rows, 1)))


def _all_flat(arrays: tuple[np.ndarray, ...]) -> bool:
    shape = arrays[0].shape
    return all(a.shape == shape and a.flags.c_contiguous for a in arrays)


def over_rows(work: Callable[[slice], None], a: np.ndarray, passes: int) -> None:
    """work(s) for chunks s of a's first axis (the work treats rows independently: it may
    reduce along the other axes), in parallel when a.size * passes is big enough and a is
    C-contiguous: numpy reduces in memory order, so a chunk of another layout could sum
    a row in another order than the whole array does."""
    rows = a.shape[0] if a.ndim else 1
    if not a.flags.c_contiguous:
        work(slice(0, rows))
        return
    run(work, rows, a.size * passes, _row_align(a.size // max(rows, 1)))


# multiply-adds from which a stack of small matrix products is split over threads.
# Measured on the 2-core machine (float32, one BLAS thread a call, split vs unsplit): W9's
# attention stacks, 48 products of 64x32x64 (6.3 million), 117-134 µs became 169-261;
# 48 of 128x128x32 (25 million) 475-547 became 367-540; 64 of 256x256x64 (W8's heads,
# 268 million) 8.8-9.4 ms became 5.1-5.9
MIN_STACK_MADDS = 1 << 24


def matmul_stack(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b (numpy's rules) where a stack of products each too small for more than one
    BLAS thread is split along its first axis over threads, each chunk an np.matmul on
    one BLAS thread: each matrix gets the same BLAS call as in the unsplit product, so the
    result is bit-identical. Other products go to threads.matmul (BLAS threads by size)."""
    if a.ndim < 3 or a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2]:
        return threads.matmul(a, b)
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = a.shape[0]
    madds = a.size * n  # every matrix's m*k*n
    if (madds < MIN_STACK_MADDS or batch < 2 or b.shape[-2] != k
            or 2 * m * k * n >= threads.MIN_FLOPS  # one product is big: BLAS splits it
            or getattr(_in_worker, "active", False)):
        return threads.matmul(a, b)
    count = min(threads.threads_now(), batch)
    if count == 1:
        return threads.matmul(a, b)
    out = np.empty((*a.shape[:-1], n), dtype=np.result_type(a, b))

    def chunk(part: slice) -> None:
        np.matmul(a[part], b[part], out=out[part])

    _run_split(chunk, bounds(batch, min(batch, 4 * count)), count)
    return out
