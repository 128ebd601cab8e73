"""What a graph saved for backward is released after backward(), as torch does.

torch frees the tensors each node saved for its backward step once backward() has run
(unless retain_graph=True); a second backward() through such a node raises. Nodes that
saved nothing (an add, a sum, a reshape) can run again. Here a node's saved values live in
its backward step's closure, which pictures and traces still read after backward() (a
learner draws the graph after calling it), so the step is kept and the node is only
marked: the next backward() through it raises torch's error before any gradient moves.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from micrograd.tensors import versions

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

# released nodes by id, each with a weak reference to it: an entry whose node died is never
# matched (`ref() is node` is False), so it is only swept now and then, not removed by a
# callback per node (a closure and a weakref callback per node cost ~1 us each backward)
# (keyed by id: a Tensor's == is elementwise, so tensors cannot be set members)
_released: dict[int, weakref.ref] = {}
_SWEEP_AT = 4096
_sweep_at = _SWEEP_AT  # the size at which the dead entries are dropped next


def release(nodes: Iterable[Any]) -> None:
    """After a backward pass without retain_graph: these nodes' saved values are gone."""
    global _sweep_at
    released, ref = _released, weakref.ref
    for node in nodes:
        if node._grad_fn is not None and node._op not in _SAVES_NO_TENSOR:
            released[id(node)] = ref(node)
    if len(released) >= _sweep_at:
        for key in [key for key, node in released.items() if node() is None]:
            del released[key]
        _sweep_at = max(_SWEEP_AT, 2 * len(released))  # live ones: a big retained graph


def check_graph(order: list[Any]) -> bool:
    """The check Tensor.backward runs on the nodes about to run: torch's error for a
    released one, then the version counters' check (which may rewire the graph)."""
    # (isdisjoint runs in C: its entries are mostly of nodes that died, never in `order`)
    if _released and not _released.keys().isdisjoint(map(id, order)):
        for node in order:
            ref = _released.get(id(node))
            if ref is not None and ref() is node:
                raise RuntimeError(SECOND_BACKWARD)
    return versions.check_graph(order)
