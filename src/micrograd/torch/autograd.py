"""torch.autograd: grad modes, gradcheck and Function (micrograd.tensors.custom)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from micrograd.autograd import (
    _decorated,
    detect_anomaly,
    enable_grad,
    gradcheck,
    is_grad_enabled,
    no_grad,
    set_grad_mode,
)
from micrograd.tensors.custom import Function
from micrograd.tensors.gradients import grad
from micrograd.torch import _facade
from micrograd.torch.legacy import Variable

__all__ = ["no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly", "set_grad_enabled",
           "Function", "grad", "gradcheck", "Variable"]


_F = TypeVar("_F", bound=Callable[..., Any])


class set_grad_enabled:
    """Turn gradient recording on or off: as a call (it stays so until switched again, as
    torch's), a with-block (the previous mode comes back at its end) or a decorator."""

    def __init__(self, mode: bool):
        self.prev = is_grad_enabled()
        self.mode = bool(mode)
        set_grad_mode(self.mode)  # as torch: the call itself switches the mode

    def __enter__(self) -> None:
        set_grad_mode(self.mode)

    def __exit__(self, *exc: Any) -> None:
        set_grad_mode(self.prev)

    def clone(self) -> set_grad_enabled:
        return self.__class__(self.mode)

    def __call__(self, function: _F) -> _F:
        set_grad_mode(self.prev)  # decorating switches nothing: each call does
        return _decorated(lambda: _Switch(self.mode), function)


class _Switch:
    """The mode `mode` for a block, without switching it when made (a decorator's block)."""

    def __init__(self, mode: bool):
        self.mode = mode

    def __enter__(self) -> None:
        self.prev = is_grad_enabled()
        set_grad_mode(self.mode)

    def __exit__(self, *exc: Any) -> None:
        set_grad_mode(self.prev)


__getattr__ = _facade.module_getattr(__name__, [])  # any other name: the unsupported error
