"""torch.autograd: grad modes, gradcheck, and Function once the engine exports one."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from micrograd.autograd import detect_anomaly, enable_grad, is_grad_enabled, no_grad
from micrograd.torch import _facade

__all__ = ["no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly", "set_grad_enabled",
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


def _set_grad_enabled(name: str) -> Any:
    if name != "set_grad_enabled":
        raise LookupError(name)
    from micrograd.torch import set_grad_enabled

    return set_grad_enabled


def _function(name: str) -> Any:
    # the public op kernel (custom ops with forward/backward) is exported by
    # micrograd.tensors when it lands; torch.autograd.Function is that class
    import micrograd.tensors as tensors

    if name != "Function":
        raise LookupError(name)
    return getattr(tensors, "Function")


__getattr__ = _facade.module_getattr(__name__, [_set_grad_enabled, _function])
