"""torch.nn.functional: micrograd.tensors.functional, plus the functions composed of
Tensor ops in micrograd.tensors.nn.functional (which win where both have a name: they take
torch's full argument lists, and call the fused ops for the common case)."""

from __future__ import annotations

from typing import Any

import micrograd.tensors.functional as _fused
import micrograd.tensors.nn.functional as _composed
from micrograd.torch import _facade

__all__: list[str] = sorted({n for n in dir(_fused) if not n.startswith("_")
                  and callable(getattr(_fused, n)) and getattr(getattr(_fused, n),
                                                               "__module__", "") == _fused.__name__}
                 | set(_composed.__all__))


def _find(name: str) -> Any:
    if name in _composed.__all__:
        return getattr(_composed, name)
    value = getattr(_fused, name)
    if getattr(value, "__module__", "") != _fused.__name__ or name.startswith("_"):
        raise LookupError(name)  # numpy, Tensor and helpers imported there are not F.*
    return value


__getattr__ = _facade.module_getattr(__name__, [_find])


def __dir__() -> list[str]:
    return list(__all__)
