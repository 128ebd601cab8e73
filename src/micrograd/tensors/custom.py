"""Custom ops written as PyTorch writes them: `torch.autograd.Function`.

A subclass gives two static methods: `forward(ctx, *inputs)` computes the output (without
recording a graph) and may keep tensors with `ctx.save_for_backward(...)`; `backward(ctx,
grad_output)` returns one gradient per input of forward (None for an input that needs
none). `MyOp.apply(*inputs)` runs forward and records one node whose backward calls it.
On the op kernel (micrograd.tensors.function): the kernel sums each gradient back over
broadcast axes and adds it into the input's .grad.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.autograd import no_grad
from micrograd.tensors.function import accumulate, node
from micrograd.tensors.tensor import Tensor, leaf

__all__ = ["Function", "FunctionCtx"]


class FunctionCtx:
    """What forward leaves for backward: saved tensors, and which inputs need gradients."""

    def __init__(self, needs_input_grad: tuple[bool, ...]):
        self.needs_input_grad = needs_input_grad
        self.saved_tensors: tuple[Any, ...] = ()

    def save_for_backward(self, *tensors: Any) -> None:
        self.saved_tensors = tensors


class Function:
    """Base class of a custom op with a hand-written backward (torch.autograd.Function)."""

    @staticmethod
    def forward(ctx: FunctionCtx, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("a Function subclass defines forward(ctx, *inputs)")

    @staticmethod
    def backward(ctx: FunctionCtx, *grad_outputs: Any) -> Any:
        raise NotImplementedError("a Function subclass defines backward(ctx, grad_output)")

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        """Run forward on `args` and record a node whose backward is cls.backward."""
        ctx = FunctionCtx(tuple(isinstance(a, Tensor) and a.requires_grad for a in args))
        with no_grad():
            out = cls.forward(ctx, *args)
        if not isinstance(out, Tensor):
            raise TypeError(f"{cls.__name__}.forward must return one Tensor, got "
                            f"{type(out).__name__} (several outputs are not supported yet)")
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        inputs = tuple(args[i] for i in positions)
        if not any(ctx.needs_input_grad):
            return node(out._array, inputs, cls.__name__, None, False)

        def backward(result: Tensor) -> None:
            g = result._grad_array
            if g is None:
                return
            with no_grad():
                grads = cls.backward(ctx, leaf(g))
            grads = grads if isinstance(grads, tuple) else (grads,)
            if len(grads) != len(args):
                raise RuntimeError(f"{cls.__name__}.backward returned {len(grads)} gradients, "
                                   f"but forward took {len(args)} inputs")
            for k, i in enumerate(positions):
                if ctx.needs_input_grad[i] and grads[i] is not None:
                    grad = grads[i]
                    array = grad._array if isinstance(grad, Tensor) else np.asarray(grad)
                    accumulate(result._prev[k], array)

        return node(out._array, inputs, cls.__name__, backward, True)
