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
from micrograd.tensors import ops  # installs the ops on Tensor: t + u, t.exp(), ...
from micrograd.tensors.compat import (
    cuda,
    device,
    get_num_threads,
    keep_freed_memory,
    set_num_threads,
)
from micrograd.tensors.dtypes import (
    float32,
    float64,
    get_default_dtype,
    int64,
    set_default_dtype,
)
from micrograd.tensors.factories import (
    arange,
    manual_seed,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from micrograd.tensors.ops.shape import cat, stack
from micrograd.tensors.tensor import Tensor

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
    "keep_freed_memory",
    "float32",
    "float64",
    "int64",
    "no_grad",
    "enable_grad",
    "detect_anomaly",
    "ops",
]

# The rest of the package loads on first use (PEP 562): `micrograd.tensors.nn.Linear`
# works after `import micrograd`, without paying for the demos' imports up front.
_SUBMODULES = frozenset({"nn", "functional", "data", "gradcheck"})  # demos: micrograd.demos


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"micrograd.tensors.{name}")
    raise AttributeError(f"module 'micrograd.tensors' has no attribute {name!r}")
