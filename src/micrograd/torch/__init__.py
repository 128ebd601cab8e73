"""micrograd.torch: PyTorch's API over micrograd's Tensor engine, laid out like torch.

    import micrograd.torch as torch           # or run an unmodified script:
    from micrograd.torch import nn            #   micrograd run script.py
                                              #   python -m micrograd.torch script.py

Names are looked up in micrograd.tensors (so ops, dtypes and helpers such as from_numpy
added there appear here, defined once), after the few names defined here. A torch name
micrograd lacks raises UnsupportedTorchName (an AttributeError) naming it and pointing at
the supported-names page, docs/torch.md.
Importing this package does not alias `torch`: only the runner (`micrograd run`,
`python -m micrograd.torch`, `%load_ext micrograd.torch`) does.
"""

from __future__ import annotations

import types
from typing import Any

import micrograd.tensors as _tensors
from micrograd.autograd import enable_grad, is_grad_enabled, no_grad
from micrograd.tensors import Tensor, as_tensor, from_numpy, is_tensor
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
from micrograd.torch.legacy import LEGACY_TYPES as _LEGACY_TYPES
from micrograd.torch.serialization import load, save

__all__ = ["Tensor", "nn", "optim", "utils", "autograd", "cuda", "save", "load", "no_grad",
           "enable_grad", "is_grad_enabled", "set_grad_enabled", "from_numpy", "as_tensor",
           "is_tensor", "is_floating_point", "Size", "inference_mode",
           "load_ipython_extension", "supported_names", "accelerator", "amp", "autocast",
           "backends", "distributed", "set_default_device", "get_default_device",
           *_LEGACY_TYPES]  # torch.FloatTensor, torch.LongTensor, ... (legacy.py)


def is_floating_point(input: Tensor) -> bool:
    return input.dtype.kind == "f"


inference_mode = no_grad  # no graph is recorded: for micrograd that is all inference mode does


def _from_tensors(name: str) -> Any:
    value = getattr(_tensors, name)
    if isinstance(value, types.ModuleType):  # tensors.nn, tensors.data: not torch's layout
        raise LookupError(name)
    return value


def _dtype(name: str) -> Any:
    """torch.float32, torch.long, ...: the dtype objects (printed as torch's) of dtypes.py."""
    try:
        return _dtypes.torch_dtype(name)
    except KeyError:
        raise LookupError(name) from None


def get_default_dtype() -> _dtypes.DType:
    return _dtypes.dtype_of(_tensors.get_default_dtype())


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


__getattr__ = _facade.module_getattr(__name__, [_dtype, _LEGACY_TYPES.__getitem__, _from_tensors])


def __dir__() -> list[str]:
    from_tensors = [n for n in getattr(_tensors, "__all__", []) if not n.startswith("_")]
    return sorted(set(__all__) | set(from_tensors) | set(_tensors.DTYPES)
                  | set(_tensors.FUNCTIONS))
