"""P1: the Tensor engine -- the same autograd as `Value`, one numpy array per node.

The graph walker (topological order, backward loop, `+=` accumulation, no_grad, anomaly
mode) is `micrograd.autograd`, shared word for word with the scalar engine; this package
only adds ops whose local derivatives work on whole arrays at once.
"""

from __future__ import annotations

try:
    import numpy  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "micrograd's Tensor engine needs numpy: pip install 'micrograd[tensor]'"
    ) from error

from micrograd.autograd import detect_anomaly, enable_grad, no_grad
from micrograd.tensors.engine import (
    Tensor,
    arange,
    cat,
    cuda,
    device,
    float32,
    float64,
    get_default_dtype,
    get_num_threads,
    int64,
    manual_seed,
    ones,
    rand,
    randn,
    set_default_dtype,
    set_num_threads,
    stack,
    tensor,
    zeros,
    zeros_like,
    ones_like,
)

__all__ = [
    "Tensor",
    "tensor",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "device",
    "cuda",
    "arange",
    "rand",
    "randn",
    "cat",
    "stack",
    "manual_seed",
    "set_default_dtype",
    "get_default_dtype",
    "set_num_threads",
    "get_num_threads",
    "float32",
    "float64",
    "int64",
    "no_grad",
    "enable_grad",
    "detect_anomaly",
]

# The rest of the package loads on first use (PEP 562): `micrograd.tensors.nn.Linear`
# works after `import micrograd`, without paying for the demos' imports up front.
_SUBMODULES = frozenset({"nn", "functional", "data", "gradcheck"})  # demos: micrograd.demos


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"micrograd.tensors.{name}")
    raise AttributeError(f"module 'micrograd.tensors' has no attribute {name!r}")
