"""The old single-file Tensor engine's names, kept importable: the code now lives in
tensor.py (the class), function.py (the op kernel), ops/ (the ops), dtypes.py,
factories.py and compat.py. New code imports from those modules or `micrograd.tensors`."""

from __future__ import annotations

from micrograd.tensors import ops
from micrograd.tensors.compat import (
    check_device,
    cuda,
    device,
    get_num_threads,
    keep_freed_memory,
    set_num_threads,
    to_arguments,
)
from micrograd.tensors.dtypes import (
    check_same_dtype,
                                      float32,
                                      float64,
    get_default_dtype,
                                      int64,
    promote,
    set_default_dtype,
)
from micrograd.tensors.factories import (
    arange,
    manual_seed,
    numpy_generator,
    ones,
    ones_like,
    rand,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from micrograd.tensors.function import (
    accumulate,
    binary,
    leaf,
    node,
    operand,
    raw,
    unary,
    unbroadcast,
)
from micrograd.tensors.ops.linalg import matmul
from micrograd.tensors.ops.reduce import MaxMin
from micrograd.tensors.ops.shape import cat, stack
from micrograd.tensors.tensor import ArrayLike, Tensor

# The old private names, for code written against the single file.
_leaf, _node, _send, _unbroadcast = leaf, node, accumulate, unbroadcast
_unary, _binary = unary, binary
_promote, _operand, _raw = promote, operand, raw
default_generator = numpy_generator  # what nn.Linear draws from (a numpy Generator)

__all__ = [
    "ArrayLike", "MaxMin", "Tensor", "arange", "cat", "check_device", "check_same_dtype", "cuda",
    "default_generator", "device", "float32", "float64", "get_default_dtype",
    "get_num_threads", "int64", "keep_freed_memory", "manual_seed", "matmul", "ones",
    "ones_like", "ops", "rand", "randn", "set_default_dtype", "set_num_threads", "stack",
    "tensor", "to_arguments", "zeros", "zeros_like",
]
