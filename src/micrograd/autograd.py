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
from typing import Any, Callable, Iterator


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


def backward(root: Any, seed: Any, zero: Any,
             check: Callable[[list], bool] | None = None) -> None:
    """Run the chain rule from `root` back to the leaves.

    `check(order)`, if given, sees the nodes about to run first: it may raise, or rewire
    the graph and return True to have the order worked out again (the Tensor engine's
    version counters, for values changed in place).

    Gradients of leaves accumulate (+=) across calls, as in PyTorch: calling backward twice
    gives twice the gradient. Gradients of intermediate nodes are reset to `zero` first, so
    every pass starts them clean -- micrograd 0.1.0 kept their stale values and returned
    wrong leaf gradients on a second call.
    """
    with _cyclic_gc_paused():
        order = _nodes_to_run(root)
        if check is not None:
            while check(order):
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

    Exactly topological_order()'s order with the leaves left out (so bit-for-bit the same
    gradients), found by a faster walk; graphs that walk cannot take fall back to it.
    """
    try:
        return _interior_postorder(root)
    except (_NotHashedByIdentity, TypeError):  # e.g. a node type with its own __eq__/__hash__
        return [node for node in topological_order(root) if node._grad_fn is not None]


class _NotHashedByIdentity(Exception):
    pass


_identity_hash = object.__hash__


def _interior_postorder(root: Any) -> list:
    """The DFS of topological_order(), made cheap for big graphs:

    - leaves (most edges of a neural net: weights and inputs) are never pushed or
      remembered: two attribute reads each;
    - the stack holds plain node references, with a None marker above a node whose inputs
      are being visited, instead of a (node, iterator) pair per node -- on a chain of 10^6
      ops that is 16 MB of pointers instead of 10^6 tuples and iterators;
    - `visited` holds the nodes themselves, not id()s: no int object per node. That needs
      hashing by identity, checked per node; any other node type takes the fallback.
    Children are pushed in reverse so they are visited in creation order, and a child
    already visited (through an earlier sibling) is skipped when popped -- exactly when the
    recursive DFS would have skipped it, so the post-order is the same. (One already
    visited at push time is not pushed at all: in a dense layer most inputs are.)
    """
    order = []
    visited = set()
    remember = visited.add
    stack = [root]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        if node is None:  # all inputs of the node below the marker are done: it is next
            node = pop()
            if node._grad_fn is not None:
                order.append(node)
            continue
        if node in visited:
            continue
        if type(node).__hash__ is not _identity_hash:
            raise _NotHashedByIdentity
        remember(node)
        inputs = node._prev
        if inputs:
            push(node)
            push(None)
            for child in reversed(inputs):
                if (child._prev or child._grad_fn is not None) and child not in visited:
                    push(child)
        elif node._grad_fn is not None:  # a leaf with a hand-set backward step: run it too
            order.append(node)
    return order


@contextlib.contextmanager
def _cyclic_gc_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector out of backward().

    Anything backward() allocates (stack entries, a backward step's temporaries) can
    trigger a collection, and a collection crawls the whole live graph -- with a stack
    entry per node, that was half the backward time of a 10^6-op chain. The walk and the
    backward steps make no cycles, so nothing is lost by collecting after them instead.
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


def __getattr__(name: str) -> Any:
    """`torch.autograd.gradcheck` in a ported script: the Tensor gradcheck, loaded on first
    use (it needs numpy; this module stays standard-library only)."""
    if name == "gradcheck":
        from micrograd.tensors.gradcheck import gradcheck

        return gradcheck
    raise AttributeError(f"module 'micrograd.autograd' has no attribute {name!r}")
