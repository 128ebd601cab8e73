"""The part of autograd that both engines share: graph order, the backward driver, modes.

`Value` (one float per node) and `Tensor` (one ndarray per node) differ only in what a
node holds. Walking the graph is the same word for word, so it lives here, once.

A node is any object with
    _prev      the nodes it was computed from, in creation order (a tuple)
    _grad_fn   None for a leaf; otherwise f(node) that adds node.grad's share into
               each input's .grad -- the local chain-rule step of one op
    grad       d(output)/d(this node), filled in by backward()
    _is_finite a function telling whether a gradient holds no nan/inf (for anomaly mode)

`_grad_fn` receives the node as an argument instead of capturing it in a closure.
That is the whole trick that keeps a graph free of reference cycles: when the last
reference to the output goes, reference counting frees the graph at once, and Python's
cyclic garbage collector never has to crawl it.
"""

from __future__ import annotations

import contextlib
import gc
from typing import Any, Iterator


class _Modes:
    """Global switches read by every op (one attribute lookup each)."""

    grad_enabled = True  # False inside no_grad(): ops record no graph
    anomaly = False  # True inside detect_anomaly(): stop at the first nan/inf


modes = _Modes()


@contextlib.contextmanager
def no_grad() -> Iterator[None]:
    """Record no graph inside this block (also usable as a decorator), as torch.no_grad."""
    previous = modes.grad_enabled
    modes.grad_enabled = False
    try:
        yield
    finally:
        modes.grad_enabled = previous


@contextlib.contextmanager
def enable_grad() -> Iterator[None]:
    """Record the graph again inside this block, even within no_grad()."""
    previous = modes.grad_enabled
    modes.grad_enabled = True
    try:
        yield
    finally:
        modes.grad_enabled = previous


def is_grad_enabled() -> bool:
    """True unless inside no_grad()."""
    return modes.grad_enabled


@contextlib.contextmanager
def detect_anomaly() -> Iterator[None]:
    """Raise FloatingPointError at the first nan/inf produced in forward or backward."""
    previous = modes.anomaly
    modes.anomaly = True
    try:
        yield
    finally:
        modes.anomaly = previous


def topological_order(root: Any) -> list:
    """Every node `root` depends on, each after all of its inputs (iterative DFS post-order).

    The same order as the lecture's recursive build_topo, but with an explicit stack, so a
    chain of a million ops does not hit Python's recursion limit.
    """
    order = []
    visited = {id(root)}
    stack = [(root, iter(root._prev))]
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if id(child) not in visited:
                visited.add(id(child))
                if child._prev:
                    stack.append((child, iter(child._prev)))
                    break
                order.append(child)  # a leaf: nothing to wait for
        else:
            stack.pop()
            order.append(node)
    return order


def backward(root: Any, seed: Any, zero: Any) -> None:
    """Run the chain rule from `root` back to the leaves.

    Gradients of leaves accumulate (+=) across calls, as in PyTorch: calling backward twice
    gives twice the gradient. Gradients of intermediate nodes are reset to `zero` first, so
    every pass starts them clean -- micrograd 0.1.0 kept their stale values and returned
    wrong leaf gradients on a second call.
    """
    with _cyclic_gc_paused():
        order = _nodes_to_run(root)
        for node in order:
            node.grad = zero
        if root._grad_fn is None:  # backward() on a leaf: d(root)/d(root) = 1 accumulates
            root.grad = seed if root.grad is None else root.grad + seed
        else:
            root.grad = seed
        if modes.anomaly:
            _backward_checked(order)
            return
        for node in reversed(order):
            node._grad_fn(node)


# ---------------------------------------------------------------------------------------
# Speed: backward() needs only the nodes that have a backward step, in the same relative
# order as topological_order(). Everything below is about doing that walk cheaply.
# ---------------------------------------------------------------------------------------

def _nodes_to_run(root: Any) -> list:
    """The nodes with a `_grad_fn` that `root` depends on, root included, in topological order.

    The same DFS as topological_order() -- so the same order, hence bit-for-bit the same
    gradients -- but leaves (most of the edges of a neural net: weights and inputs) are
    neither remembered nor listed: a leaf costs two attribute reads instead of a set update.
    """
    order = []
    visited = set()  # ids of interior nodes already on the stack or in `order`
    remember = visited.add
    stack = [(root, iter(root._prev))]
    push = stack.append
    while stack:
        node, inputs = stack[-1]
        for child in inputs:
            if child._prev:
                key = id(child)
                if key not in visited:
                    remember(key)
                    push((child, iter(child._prev)))
                    break
            elif child._grad_fn is not None and id(child) not in visited:
                remember(id(child))  # a leaf with a hand-set backward step: run it too
                order.append(child)
        else:
            stack.pop()
            if node._grad_fn is not None:
                order.append(node)
    return order


@contextlib.contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector out of the backward walk.

    The walk allocates a stack entry per node; on a big graph those allocations trigger
    collections that crawl the whole (live, cycle-free) graph again and again -- on a
    chain of 10^6 ops that is most of the backward time. The walk makes no cycles, so
    nothing is lost by collecting after it instead.
    """
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _backward_checked(order: list) -> None:
    """The backward loop of detect_anomaly(): check every gradient an op produces."""
    for node in reversed(order):
        if node._grad_fn is None:
            continue
        node._grad_fn(node)
        for child in node._prev:
            if not child._is_finite(child.grad):
                raise FloatingPointError(
                    f"backward of '{node._op}' produced a non-finite gradient {child.grad!r} "
                    f"for its input {child!r} (inputs: {_describe(node._prev)}; "
                    f"output gradient: {node.grad!r})"
                )


def check_forward(op: str, result: Any, inputs: tuple, is_finite) -> None:
    """detect_anomaly()'s forward check: raise if `op` produced nan/inf."""
    if not is_finite(result):
        raise FloatingPointError(
            f"forward of '{op}' produced {result!r} from inputs {_describe(inputs)}"
        )


def _describe(nodes: tuple) -> str:
    return ", ".join(repr(getattr(n, "data", n)) for n in nodes)
