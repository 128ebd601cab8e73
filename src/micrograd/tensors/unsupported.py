"""The one error for a torch feature micrograd does not have (yet): a name, a submodule, a
method or a keyword. Every such error says "... is not supported by micrograd.torch (yet)"
and points at the supported-names page; each is also the built-in exception a script
would catch for that kind of miss (AttributeError for a name, ModuleNotFoundError for a
module, TypeError for a keyword), so `hasattr` and `except ImportError` work as usual.
"""

from __future__ import annotations

SUPPORTED_NAMES_PAGE = "docs/torch.md"
_POINTER = (f"The names it supports are listed in {SUPPORTED_NAMES_PAGE} "
            "(or run: python -m micrograd.torch --list-names)")


class NotSupportedByMicrograd(Exception):
    """Base of the errors below: catch this to catch any of them."""


class UnsupportedTorchName(NotSupportedByMicrograd, AttributeError):
    """A torch attribute or method micrograd.torch does not provide (yet)."""


class UnsupportedTorchModule(NotSupportedByMicrograd, ModuleNotFoundError):
    """A torch submodule micrograd.torch does not provide (yet)."""


class UnsupportedTorchArgument(NotSupportedByMicrograd, TypeError):
    """A keyword (or a value of it) that micrograd.torch does not support (yet)."""


def message(what: str) -> str:
    return f"{what} is not supported by micrograd.torch (yet). {_POINTER}"


def unsupported_name(owner: str, name: str) -> UnsupportedTorchName:
    """`torch.nn.Conv2d`, `Tensor.stride`: the error for a missing attribute or method."""
    owner = owner.replace("micrograd.torch", "torch", 1)
    return UnsupportedTorchName(message(f"{owner}.{name}"), name=name)


def unsupported_module(module: str) -> UnsupportedTorchModule:
    """`import torch.distributions`: the error for a missing submodule."""
    module = module.replace("micrograd.torch", "torch", 1)
    return UnsupportedTorchModule(message(module), name=module)


def unsupported_argument(function: str, argument: str) -> UnsupportedTorchArgument:
    """`backward(create_graph=True)`: the error for a keyword micrograd cannot honour."""
    return UnsupportedTorchArgument(message(f"{function}({argument})"))
