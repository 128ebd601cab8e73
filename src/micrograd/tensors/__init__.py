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
)

__all__ = [
    "Tensor",
    "tensor",
    "zeros",
    "ones",
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
