"""Helpers shared by the workload scripts and the driver: timing, JSON out, paths."""

from __future__ import annotations

import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent  # the repository
SRC = ROOT / "src"  # our micrograd

# OpenBLAS tuning variables this machine may set; they can slow numpy down. The suite unsets
# both together for its benchmark subprocesses only (never for tests or CI) and records it.
BLAS_ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")


def median(xs: list[float]) -> float:
    """The median of a non-empty list."""
    return statistics.median(xs)


def time_steps(step: Callable[[int], object], n: int) -> list[float]:
    """Seconds taken by each of `n` calls step(0), step(1), ...."""
    seconds = []
    for k in range(n):
        t0 = time.perf_counter()
        step(k)
        seconds.append(time.perf_counter() - t0)
    return seconds


def emit(result: dict) -> None:
    """A workload script's only output: one JSON object on stdout."""
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")


def engine_origin() -> str:
    """Where the `micrograd` that this process imported lives (to prove which engine ran)."""
    import micrograd

    return str(Path(micrograd.__file__).resolve().parent)


def multi_threaded_work() -> int | None:
    """How many matrix products and array kernels micrograd has run on more than one thread
    in this process so far (None for an engine without the counters). 0 means its thread
    policy ran exactly the code that OPENBLAS_NUM_THREADS=1 runs."""
    try:
        from micrograd.tensors import parallel, threads
    except ImportError:
        return None
    products = getattr(threads, "multi_threaded_products", None)
    kernels = getattr(parallel, "split_calls", None)
    return None if products is None or kernels is None else products() + kernels()


def same_code_note(counts: list[int | None]) -> str:
    """The policy row's note: whether the default runs (one count each) used a second
    thread at all."""
    known = [c for c in counts if c is not None]
    if not known:
        return ""
    if max(known) == 0:
        return (" (the default ran every product and kernel on one thread: the same code as "
                "OPENBLAS_NUM_THREADS=1, so this ratio is the noise between two runs of it)")
    return f" (the default ran {median([float(c) for c in known]):,.0f} products and " \
           "kernels on more than one thread, median a process)"


def peak_rss_kib() -> int:
    """Peak resident set size of this process so far, in KiB.

    Linux's VmHWM (the high-water mark of this process's own memory map). getrusage's
    ru_maxrss is the fallback elsewhere; on Linux it is not used because it carries over
    the RSS of the parent at fork time, so a child of a big driver would look big.
    """
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return ru_maxrss_kib()


def reset_peak_rss() -> bool:
    """Start this process's peak RSS afresh from its current RSS (Linux: "5" written to
    /proc/self/clear_refs), so that the next peak_rss_kib() is the peak of what runs from
    here on. False where that cannot be done (the peak then covers the whole process)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def ru_maxrss_kib() -> int:
    """getrusage(RUSAGE_SELF).ru_maxrss, in KiB on Linux."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def current_rss_kib() -> int:
    """Resident set size now, in KiB (from /proc; 0 where that does not exist)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return 0
