"""micrograd.torch: PyTorch's API over micrograd's Tensor engine, laid out like torch.

    import micrograd.torch as torch           # or run an unmodified script:
    from micrograd.torch import nn            #   micrograd run script.py
                                              #   python -m micrograd.torch script.py

Names are looked up, in order, in micrograd.tensors (so ops added there appear here), then
as the function form of a Tensor method (`torch.exp(x)` is `x.exp()`), then in the few
helpers defined here. A torch name micrograd lacks raises UnsupportedTorchName (an
AttributeError) naming it and pointing at the supported-names page, docs/torch.md.
Importing this package does not alias `torch`: only the runner (`micrograd run`,
`python -m micrograd.torch`, `%load_ext micrograd.torch`) does.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import numpy as np

import micrograd.tensors as _tensors
from micrograd.autograd import enable_grad, is_grad_enabled, no_grad
from micrograd.tensors import Tensor
from micrograd.tensors import dtypes as _dtypes
from micrograd.tensors.size import Size
from micrograd.torch import (
    _facade,
    accelerator,
    amp,
    autograd,
    backends,
    cuda,
    distributed,
    nn,
    optim,
    utils,
)
from micrograd.torch.amp import autocast
from micrograd.torch.autograd import set_grad_enabled
from micrograd.torch.devices import get_default_device, set_default_device
from micrograd.torch.serialization import load, save

__all__ = ["Tensor", "nn", "optim", "utils", "autograd", "cuda", "save", "load", "no_grad",
           "enable_grad", "is_grad_enabled", "set_grad_enabled", "from_numpy", "as_tensor",
           "is_tensor", "is_floating_point", "Size", "inference_mode",
           "load_ipython_extension", "supported_names", "accelerator", "amp", "autocast",
           "backends", "distributed", "set_default_device", "get_default_device"]


def from_numpy(array: np.ndarray) -> Tensor:
    """A tensor sharing memory with a numpy array (changes show in both), as torch's."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    t = _tensors.tensor(0.0)
    t.data = array
    return t


def as_tensor(data: Any, dtype: Any = None, device: Any = None) -> Tensor:
    """`data` itself if it is already a tensor of that dtype, else a new tensor."""
    if isinstance(data, Tensor) and (dtype is None or np.dtype(dtype) == data.dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or np.dtype(dtype) == data.dtype):
        return from_numpy(data)
    return _tensors.tensor(data, dtype=dtype, device=device)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.dtype.kind == "f"


inference_mode = no_grad  # no graph is recorded: for micrograd that is all inference mode does

# dtype names: torch's aliases of the numpy dtypes the engine computes with
_DTYPES = {
    "float16": "float16", "half": "float16", "float32": "float32", "float": "float32",
    "float64": "float64", "double": "float64", "int8": "int8", "int16": "int16",
    "short": "int16", "int32": "int32", "int": "int32", "int64": "int64", "long": "int64",
    "uint8": "uint8", "bool": "bool", "bfloat16": "bfloat16", "cfloat": "complex64",
    "cdouble": "complex128", "complex64": "complex64", "complex128": "complex128",
}

# torch functions that are the function form of a Tensor method of the same name
# (torch.exp(x) is x.exp()); each is offered as soon as Tensor has the method.
_METHOD_FUNCTIONS = frozenset("""
abs acos all allclose any argmax argmin argsort asin atan bmm ceil chunk clamp clip clone
cos cosh cumprod cumsum detach diag dot equal exp expm1 flatten flip floor gather isfinite
isinf isnan log log10 log1p log2 log_softmax logical_not logsumexp masked_fill matmul max
maximum mean median min minimum mm multinomial nonzero norm numel outer permute pow prod
relu reshape roll round rsqrt sigmoid sign sin sinh softmax sort split sqrt square squeeze
std sum t tan tanh topk transpose tril triu unsqueeze var
""".split())


def _from_tensors(name: str) -> Any:
    value = getattr(_tensors, name)
    if isinstance(value, types.ModuleType):  # tensors.nn, tensors.data: not torch's layout
        raise LookupError(name)
    return value


def _dtype(name: str) -> Any:
    if name not in _DTYPES:
        raise LookupError(name)
    return _dtypes.torch_dtype(name)  # torch.float32 etc.: dtype objects printed as torch's


def get_default_dtype() -> _dtypes.DType:
    return _dtypes.dtype_of(_tensors.get_default_dtype())


def _method_function(name: str) -> Callable[..., Any]:
    if name not in _METHOD_FUNCTIONS or not hasattr(Tensor, name):
        raise LookupError(name)
    method = name if name != "matmul" or hasattr(Tensor, "matmul") else "__matmul__"

    @functools.wraps(getattr(Tensor, method))
    def function(input: Any, *args: Any, **kwargs: Any) -> Any:
        if not isinstance(input, Tensor):
            raise TypeError(f"torch.{name}(): argument 'input' must be a Tensor, got "
                            f"{type(input).__name__}")
        return getattr(input, method)(*args, **kwargs)

    function.__name__ = function.__qualname__ = name
    return function


def supported_names() -> dict[str, list[str]]:
    """The torch names micrograd.torch provides, by module, found from the code (for the
    docs page: `python -m micrograd.torch --list-names`)."""
    from micrograd.torch._names import supported_names as names

    return names()


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext micrograd.torch`: `import torch` in this kernel gives micrograd.torch, and
    `check_ninja()` (makemore part 4's checker) can report on the cells run from now on."""
    from micrograd.check.ninja_notebook import start_recording
    from micrograd.torch.runner import install

    install()
    start_recording(ipython)


def unload_ipython_extension(ipython: Any) -> None:
    from micrograd.check.ninja_notebook import stop_recording
    from micrograd.torch.runner import uninstall

    uninstall()
    stop_recording(ipython)


__getattr__ = _facade.module_getattr(__name__, [_dtype, _from_tensors, _method_function])


def __dir__() -> list[str]:
    from_tensors = [n for n in getattr(_tensors, "__all__", []) if not n.startswith("_")]
    methods = [n for n in _METHOD_FUNCTIONS if hasattr(Tensor, n)]
    return sorted(set(__all__) | set(from_tensors) | set(_DTYPES) | set(methods))
