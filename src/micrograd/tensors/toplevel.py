"""The torch-level functions: `torch.sin(x)`, `torch.max(x, 1)`, `torch.matmul(input=a,
other=b)`, ... generated from the Tensor methods, plus torch's dtype aliases
(`torch.float`, `torch.long`, ...).

Each generated function takes the tensor as its first argument (or as `input=`) and calls
the method of the same name, so the function and the method cannot drift apart.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from micrograd.ops import BINARY, OPS
from micrograd.tensors import factories
from micrograd.tensors.compat import on_cpu
from micrograd.tensors.ops import layout, linalg, pointwise, selection, shape
from micrograd.tensors.tensor import Tensor, leaf

# Tensor methods that torch also offers as torch.NAME(input, ...).
METHOD_FUNCTIONS = (
    # elementwise math (besides the op registry's: see REGISTRY_FUNCTIONS)
    "round", "clamp", "clip", "masked_fill",
    "isnan", "isinf", "isfinite", "isclose", "allclose", "equal",
    "logical_not", "logical_and", "logical_or", "logical_xor",
    # reductions
    "sum", "mean", "std", "var", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
    "cumsum", "cumprod", "logsumexp", "softmax", "log_softmax", "norm", "all", "any",
    "count_nonzero", "sort", "argsort", "topk", "histc", "histogram", "bincount", "numel",
    # products
    "matmul", "mm", "bmm", "dot", "inner", "outer",
    # shapes and selection
    "reshape", "flatten", "squeeze", "unsqueeze", "transpose", "permute", "movedim",
    "swapaxes", "broadcast_to", "tile", "flip", "roll", "tril", "triu", "diag", "split",
    "chunk", "unbind", "gather", "scatter_add", "index_select", "take_along_dim", "nonzero",
    "multinomial", "clone", "detach", "t",
    # what real scripts reach for beyond the lectures
    "scatter", "index_add", "index_copy", "index_fill", "masked_select", "take", "narrow",
    "select", "diagonal", "unflatten", "fliplr", "flipud", "rot90", "repeat_interleave",
    "tensor_split", "hsplit", "vsplit", "diff", "addmm", "baddbmm", "mv", "kron", "cross",
    "lerp", "addcmul", "addcdiv",
    "clamp_min", "clamp_max", "clamp_", "clamp_min_", "clamp_max_", "frac", "nan_to_num",
    "heaviside", "median", "kthvalue", "aminmax", "lt", "gt", "le", "ge", "eq", "ne",
    "zero_", "fill_", "unique", "add", "sub", "subtract", "mul", "multiply", "div", "divide",
    "true_divide", "floor_divide", "ravel", "moveaxis", "swapdims", "trace", "logaddexp",
    "logit", "positive", "negative", "sgn", "nansum", "nanmean", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "cummax", "cummin",
)


def _input(value: Any, name: str) -> Tensor:
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (builtins.float, builtins.int, np.ndarray, list, tuple, np.generic)):
        return factories.tensor(cast(Any, value))  # torch.tensor's dtype inference for Python data
    raise TypeError(f"torch.{name}: expected a tensor as input, got {type(value).__name__}")


def function_of(name: str) -> Callable[..., Any]:
    """torch.NAME(input, *args, **kwargs) as input.NAME(*args, **kwargs); `other=` (as
    in torch.matmul(input=a, other=b)) is passed as the first argument."""

    def function(*args: Any, **kwargs: Any) -> Any:
        if kwargs.pop("out", None) is not None:
            raise TypeError(f"torch.{name}: out= is not supported; assign the result")
        if "input" in kwargs:
            args = (kwargs.pop("input"), *args)
        if not args:
            raise TypeError(f"torch.{name} needs a tensor as its first argument")
        if "other" in kwargs:
            args = (args[0], kwargs.pop("other"), *args[1:])
        return getattr(_input(args[0], name), name)(*args[1:], **kwargs)

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"torch.{name}(input, ...): the same as input.{name}(...)."
    return function


# torch.exp, torch.relu, ..., torch.maximum, torch.atan2: every op registry entry with a
# torch.NAME spelling (+ - * / ** by name, torch.add(alpha=) ..., are METHOD_FUNCTIONS)
REGISTRY_FUNCTIONS = (
    *(entry.torch.function for entry in OPS.values() if entry.torch.function),
    *(name for entry in BINARY.values() if not entry.operators
      for name in (entry.torch.function, *entry.aliases)))

FUNCTIONS: dict[str, Callable[..., Any]] = {
    name: function_of(name) for name in (*REGISTRY_FUNCTIONS, *METHOD_FUNCTIONS)}
FUNCTIONS.update(
    where=pointwise.where, pow=pointwise.pow, einsum=linalg.einsum,
    cat=shape.cat, concat=shape.cat, concatenate=shape.cat, stack=shape.stack,
    cdist=linalg.cdist, meshgrid=layout.meshgrid, tril_indices=layout.tril_indices,
    triu_indices=layout.triu_indices, searchsorted=selection.searchsorted,
    bucketize=selection.bucketize, vstack=layout.vstack, row_stack=layout.vstack,
    hstack=layout.hstack, dstack=layout.dstack, column_stack=layout.column_stack,
    atleast_1d=layout.atleast_1d, atleast_2d=layout.atleast_2d, atleast_3d=layout.atleast_3d,
    argwhere=lambda input: input.nonzero(),
)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing `array`'s memory, as torch.from_numpy."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy array, got {type(array).__name__}")
    return leaf(array)


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """`data` itself if it is a tensor of that dtype, else a new tensor (on the CPU: another
    device is refused)."""
    on_cpu(device)
    if isinstance(data, Tensor) and (dtype is None or data._array.dtype == np.dtype(dtype)):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == np.dtype(dtype)):
        return from_numpy(data)
    return Tensor(data._array if isinstance(data, Tensor) else data, dtype=dtype)


FUNCTIONS.update(is_tensor=is_tensor, from_numpy=from_numpy, as_tensor=as_tensor)

# torch's dtype names; each is a numpy dtype, so t.dtype == torch.float works.
DTYPES = {
    "float": np.dtype(np.float32), "float32": np.dtype(np.float32),
    "double": np.dtype(np.float64), "float64": np.dtype(np.float64),
    "half": np.dtype(np.float16), "float16": np.dtype(np.float16),
    "long": np.dtype(np.int64), "int64": np.dtype(np.int64),
    "int": np.dtype(np.int32), "int32": np.dtype(np.int32),
    "short": np.dtype(np.int16), "int16": np.dtype(np.int16),
    "int8": np.dtype(np.int8), "uint8": np.dtype(np.uint8),
    "bool": np.dtype(np.bool_),
}
