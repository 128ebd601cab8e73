"""The machine a benchmark ran on: CPU, cores, Python, numpy and its BLAS, PyTorch.

Run as `python -m benchmarks.machine` in the benchmark subprocesses' environment, so the
BLAS it reports (via threadpoolctl) is the one the numpy workloads ran with.
"""

from __future__ import annotations

import os
import platform
import sys

from benchmarks.common import emit


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (or platform.processor() elsewhere)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def numpy_info() -> dict:
    try:
        import numpy
    except ImportError:
        return {"numpy": "not installed"}
    info: dict = {"numpy": numpy.__version__}
    try:
        config = numpy.show_config(mode="dicts")
        blas = config.get("Build Dependencies", {}).get("blas", {})
        info["numpy_blas_build"] = f"{blas.get('name', '?')} {blas.get('version', '')}".strip()
    except Exception as error:  # older numpy: show_config has no mode=
        info["numpy_blas_build"] = f"unknown ({type(error).__name__})"
    try:
        from threadpoolctl import threadpool_info

        info["blas_runtime"] = [
            {k: pool.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
            for pool in threadpool_info()
            if pool.get("user_api") == "blas"
        ]
    except ImportError:
        info["blas_runtime"] = "threadpoolctl not installed"
    return info


def torch_info() -> dict:
    try:
        import torch
    except ImportError:
        return {"torch": "not installed"}
    return {"torch": torch.__version__, "torch_default_threads": torch.get_num_threads()}


if __name__ == "__main__":
    emit(
        {
            "cpu": cpu_model(),
            "cores": os.cpu_count(),
            "python": f"{platform.python_implementation()} {sys.version.split()[0]}",
            "platform": platform.platform(),
            **numpy_info(),
            **torch_info(),
        }
    )
