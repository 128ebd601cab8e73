"""The name torch gives the backward node of each op (`grad_fn=<MulBackward0>`), in one
table: what a tensor's print and `t.grad_fn` show.

Most names follow from the op's name (`masked_fill` -> `MaskedFillBackward0`); `_NAMES`
lists the ones that do not. A few ops map to one of several torch nodes by what they did
(`sum()` is SumBackward0, `sum(dim)` SumBackward1; `a @ b` is MmBackward0 for matrices,
UnsafeViewBackward0 for a batch); `_BY_SHAPE` picks those from the node's input and output
shapes. Where our op records too little to tell torch's cases apart (`1 - a` is torch's
RsubBackward1, `a - 1` its SubBackward0: both are our one-input "-"), the common case wins.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from micrograd.tensors.tensor import Tensor

_NAMES = {
    "+": "AddBackward0", "-": "SubBackward0", "*": "MulBackward0", "/": "DivBackward0",
    "neg": "NegBackward0", "T": "PermuteBackward0", "square": "PowBackward0",
    "log1p": "Log1PBackward0", "to": "ToCopyBackward0", "clamp": "ClampBackward1",
    "cross_entropy": "NllLossBackward0", "norm": "LinalgVectorNormBackward0",
    "layer_norm": "NativeLayerNormBackward0", "batch_norm": "NativeBatchNormBackward0",
    "pad": "ConstantPadNdBackward0", "copy_": "CopyBackwards",
    "linear_relu": "ReluBackward0", "einsum": "ViewBackward0",
    "binary_cross_entropy": "BinaryCrossEntropyBackward0",
    "binary_cross_entropy_with_logits": "BinaryCrossEntropyWithLogitsBackward0",
}


def _shapes(t: Tensor) -> tuple[tuple[int, ...], list[tuple[int, ...]]]:
    return t._array.shape, [x._array.shape for x in t._prev]


def _reduction(full: str, along: str) -> Callable[[Tensor], str]:
    """sum/mean/max/min: one node for a reduction over everything, another along dims."""
    def name(t: Tensor) -> str:
        out, inputs = _shapes(t)
        return full if len(out) == 0 and inputs and len(inputs[0]) > 0 else along
    return name


def _power(t: Tensor) -> str:
    return "PowBackward1" if len(t._prev) == 2 else "PowBackward0"


def _reshape(t: Tensor) -> str:
    out, inputs = _shapes(t)
    before = inputs[0]
    if len(out) == len(before) + 1 and [n for n in out if n != 1] == [n for n in before if n != 1]:
        return "UnsqueezeBackward0"
    if len(out) < len(before) and tuple(n for n in before if n != 1) == out:
        return "SqueezeBackward0"
    return "ViewBackward0"


def _index(t: Tensor) -> str:
    out, inputs = _shapes(t)
    before = inputs[0]
    if len(out) < len(before):
        return "SelectBackward0"  # t[i], t[i, j], t[:, i]
    if len(out) == len(before) and all(o <= b for o, b in zip(out, before, strict=True)):
        return "SliceBackward0"  # t[1:3] (torch says IndexBackward0 for t[[0, 1]])
    return "IndexBackward0"  # C[X]: an index tensor adds dimensions


def _matmul(t: Tensor) -> str:
    a, b = ([x._array.shape for x in t._prev] + [(), ()])[:2]
    if len(a) == 2 and len(b) == 2:
        return "MmBackward0"
    if len(a) == 1 and len(b) == 1:
        return "DotBackward0"
    if len(a) == 2 and len(b) == 1:
        return "MvBackward0"
    if len(a) == 1 and len(b) == 2:
        return "SqueezeBackward4"
    return "UnsafeViewBackward0"  # a batch: torch's matmul folds it into one mm or bmm


def _linear(t: Tensor) -> str:
    """F.linear: addmm (with bias) or mm for 2-d input; a batch is reshaped back (view)."""
    with_bias = len(t._prev) == 3
    if t._array.ndim <= 2:
        return "AddmmBackward0" if with_bias else "MmBackward0"
    return "ViewBackward0" if with_bias else "UnsafeViewBackward0"


def _transpose(t: Tensor) -> str:
    return "TransposeBackward0"  # torch says TBackward0 for t.t(): ours records one op


_BY_SHAPE: dict[str, Callable[[Tensor], str]] = {
    "sum": _reduction("SumBackward0", "SumBackward1"),
    "mean": _reduction("MeanBackward0", "MeanBackward1"),
    "max": _reduction("MaxBackward1", "MaxBackward0"),
    "min": _reduction("MinBackward1", "MinBackward0"),
    "**": _power, "reshape": _reshape, "index": _index, "@": _matmul, "linear": _linear,
    "transpose": _transpose,
}


def from_op_name(op: str) -> str:
    """torch's node name for our op name, where it depends on the name only."""
    name = _NAMES.get(op)
    if name is None:
        name = "".join(part[:1].upper() + part[1:] for part in op.strip("_").split("_"))
        name += "Backward0"
    return name


def torch_node_name(t: Tensor) -> str:
    """The name torch prints for the node that made `t` (`grad_fn=<...>`)."""
    pick = _BY_SHAPE.get(t._op)
    return pick(t) if pick is not None else from_op_name(t._op)


class Node:
    """What `t.grad_fn` is: torch's node, by name (`type(t.grad_fn).__name__` and
    `t.grad_fn.name()` give `MulBackward0`)."""

    __slots__ = ("_tensor",)

    def __init__(self, tensor: Tensor):
        self._tensor = tensor

    def name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{type(self).__name__} object at {id(self):#x}>"


_NODE_TYPES: dict[str, type[Node]] = {}


def grad_fn(t: Tensor) -> Any:
    """`t.grad_fn`: None for a leaf, else a Node whose class is named as torch's node."""
    if t._grad_fn is None:
        return None
    name = torch_node_name(t)
    cls = _NODE_TYPES.get(name)
    if cls is None:
        cls = _NODE_TYPES[name] = type(name, (Node,), {"__slots__": ()})
    return cls(t)
