"""torch.autograd: grad modes, gradcheck and Function (micrograd.tensors.custom)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from micrograd.autograd import detect_anomaly, enable_grad, is_grad_enabled, no_grad
from micrograd.tensors.custom import Function
from micrograd.torch import _facade

__all__ = ["no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly", "set_grad_enabled",
           "Function",
           "gradcheck"]


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, **ignored: Any) -> bool:
    """Compare func's analytic gradients with central differences (float64 inputs)."""
    from micrograd.tensors.gradcheck import gradcheck as check

    listed: Sequence[Any] = inputs if isinstance(inputs, (tuple, list)) else (inputs,)
    try:
        return check(func, list(listed), eps=eps, atol=atol, rtol=rtol)
    except AssertionError:
        if raise_exception:
            raise
        return False


class set_grad_enabled:
    """Turn gradient recording on or off: as a function call or a with-block."""

    def __init__(self, mode: bool):
        self.previous = is_grad_enabled()
        self.mode = bool(mode)
        self._context = (enable_grad if self.mode else no_grad)()
        self._context.__enter__()  # as torch: the call itself switches the mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        self._context.__exit__(*exc)


__getattr__ = _facade.module_getattr(__name__, [])  # any other name: the unsupported error
