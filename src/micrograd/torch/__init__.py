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
from micrograd.torch import _facade, autograd, cuda, nn, optim, utils
from micrograd.torch.autograd import set_grad_enabled
from micrograd.torch.serialization import load, save

__all__ = ["Tensor", "nn", "optim", "utils", "autograd", "cuda", "save", "load", "no_grad",
           "enable_grad", "is_grad_enabled", "set_grad_enabled", "from_numpy", "as_tensor",
           "is_tensor", "is_floating_point", "Size", "inference_mode",
           "load_ipython_extension", "supported_names"]

Size = tuple  # torch.Size is a tuple of ints; shapes here are plain tuples


def is_floating_point(input: Tensor) -> bool:
    return input.dtype.kind == "f"


inference_mode = no_grad  # no graph is recorded: for micrograd that is all inference mode does

def _from_tensors(name: str) -> Any:
    value = getattr(_tensors, name)
    if isinstance(value, types.ModuleType):  # tensors.nn, tensors.data: not torch's layout
        raise LookupError(name)
    return value


def supported_names() -> dict[str, list[str]]:
    """The torch names micrograd.torch provides, by module, found from the code (for the
    docs page: `python -m micrograd.torch --list-names`)."""
    from micrograd.torch._names import supported_names as names

    return names()


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext micrograd.torch`: `import torch` in this kernel gives micrograd.torch."""
    from micrograd.torch.runner import install

    install()


def unload_ipython_extension(ipython: Any) -> None:
    from micrograd.torch.runner import uninstall

    uninstall()


__getattr__ = _facade.module_getattr(__name__, [_from_tensors])


def __dir__() -> list[str]:
    from_tensors = [n for n in getattr(_tensors, "__all__", []) if not n.startswith("_")]
    return sorted(set(__all__) | set(from_tensors) | set(_tensors.DTYPES)
                  | set(_tensors.FUNCTIONS))
