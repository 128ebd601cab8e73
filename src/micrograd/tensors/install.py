"""The one step that puts the op registry's ops on Tensor: `install()`.

Called once, by `micrograd.tensors` when it is imported. It attaches every registry op's
method, Python operator and in-place method (tensors/ops/registered.py) in registry order,
so the class's contents do not depend on which module happened to be imported first.
"""

from __future__ import annotations

from micrograd.tensors.ops import registered
from micrograd.tensors.tensor import Tensor

_installed = False


def install() -> None:
    """Attach the registry's Tensor methods (idempotent: a second call changes nothing)."""
    global _installed
    if _installed:
        return
    for name, function in registered.methods():
        setattr(Tensor, name, function)
    _installed = True
