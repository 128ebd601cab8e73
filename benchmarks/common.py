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
