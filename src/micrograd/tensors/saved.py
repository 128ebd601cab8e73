"""Releasing what a graph saved for backward, as torch does after backward().

torch frees the tensors each node saved for its backward step once backward() has run
(unless retain_graph=True); a second backward() through such a node raises. Nodes that
saved nothing (an add, a sum, a reshape) can run again.
Here a node's saved values live in its backward step's closure, so releasing them is
replacing that step with one that raises torch's error -- which also frees the memory.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward.")

# ops whose torch backward node saves no tensor (only sizes or dims); checked against
# torch 2.13 (a product or quotient saves its operands even when one is a Python number,
# which torch wraps in a tensor)
_SAVES_NO_TENSOR = frozenset({
    "+", "-", "neg", "sum", "mean", "reshape", "view", "flatten", "permute", "transpose",
    "movedim", "expand", "squeeze", "unsqueeze", "cat", "stack", "clone", "contiguous", "to",
    "flip", "roll", "repeat", "pad", "tril", "triu", "index", "fill_", "zero_", "copy_",
})


def freed_backward(node: Any) -> NoReturn:
    """The backward step of a node whose saved values were released."""
    raise RuntimeError(SECOND_BACKWARD)


def release(nodes: Iterable[Any]) -> None:
    """After a backward pass without retain_graph: these nodes' saved values are gone."""
    for node in nodes:
        if node._grad_fn is not None and node._op not in _SAVES_NO_TENSOR:
            node._grad_fn = freed_backward
