"""The one step that puts the op registry's ops on Tensor: `install()`.

Called once, by `micrograd.tensors` when it is imported, after `micrograd.tensors.ops`
has defined the other ops. It attaches every registry op's method, Python operator and
in-place method (tensors/ops/registered.py) in registry order, then gives the reductions
numpy's keyword spellings (statistics.accept_numpy_keywords), and names the Tensor
gradcheck as the class's `_gradcheck` (what micrograd.autograd.gradcheck, below the engine,
calls for Tensor inputs), and last marks the torch.Tensor names still missing (reading one
raises the "not supported" error) -- in this one place and in this order, so the class's
contents do not depend on which module was imported first.
"""

from __future__ import annotations

from micrograd.tensors.function import attach_recorded
from micrograd.tensors.gradcheck import gradcheck
from micrograd.tensors.ops import registered
from micrograd.tensors.ops.statistics import REDUCTIONS, accept_numpy_keywords
from micrograd.tensors.tensor import Tensor, mark_unsupported_names

_installed = False


def install() -> None:
    """Attach the registry's Tensor methods (idempotent: a second call changes nothing)."""
    global _installed
    if _installed:
        return
    attach_recorded()  # the kernel ops the op modules defined (t @ u, t.sum(), t[i], ...)
    for name, function in registered.methods():
        setattr(Tensor, name, function)
    for name in REDUCTIONS:  # sum(axis=0, keepdims=True), as torch accepts too
        setattr(Tensor, name, accept_numpy_keywords(getattr(Tensor, name)))
    Tensor._gradcheck = staticmethod(gradcheck)  # torch.autograd.gradcheck for Tensors
    mark_unsupported_names()  # last: every name installed above is supported
    _installed = True
