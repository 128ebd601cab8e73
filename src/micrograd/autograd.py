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
import functools
import gc
import inspect
import threading
from collections.abc import Callable
from typing import Any, TypeVar


class _Modes:
    """Grad-recording and anomaly switches, read by every op (one attribute lookup each).

    Fast path: while no thread is inside a mode block, both are plain attributes holding
    the defaults (record the graph, no anomaly checks), so the hot path of every op pays
    one dict lookup. While any thread is inside a block, `modes` switches its class to
    _ThreadModes, whose properties read the calling thread's own setting, as PyTorch's
    grad mode is per thread. The last block to end switches back.
    """

    def __init__(self) -> None:
        self.grad_enabled = True  # False inside no_grad(): ops record no graph
        self.anomaly = False  # True inside detect_anomaly(): stop at the first nan/inf


class _ThreadState(threading.local):
    """Each thread's own modes; a new thread starts with the defaults, as in PyTorch."""

    grad_enabled = True
    anomaly = False
    pinned = False  # grad mode switched off by set_grad_mode(False), not by a block


_thread_state = _ThreadState()


def _reader(switch: str) -> Any:
    """modes.<switch> -> this thread's value, all in C (partial of getattr: no Python frame
    per op). The modes instance arrives as getattr's unused default argument."""
    return functools.partial(getattr, _thread_state, switch)


def _writer(switch: str) -> Any:
    def write(self: Any, value: bool) -> None:
        setattr(_thread_state, switch, value)
    return write


class _ThreadModes:
    """The base of the classes `modes` has while some thread is inside a mode block: the
    switches some block has set are properties reading the calling thread's own value; the
    others stay plain attributes (a `modes.anomaly` read inside no_grad(), once per op,
    costs ~10 ns, not the ~130 ns of a per-thread read).

    Same layout as _Modes (a plain __dict__), so `modes.__class__` can switch between them.
    """


def _per_thread(switches: frozenset[str]) -> type:
    if not switches:
        return _Modes
    properties = {s: property(_reader(s), _writer(s)) for s in sorted(switches)}
    return type(f"_ThreadModes_{'_'.join(sorted(switches))}", (_ThreadModes,), properties)


_SWITCHES = ("grad_enabled", "anomaly")
_BIT = {"grad_enabled": 1, "anomaly": 2}
# the class `modes` has for each set of switches with blocks open (bits of _BIT): looked up
# at every block's start and end, which a `with no_grad():` per optimizer step pays
_MODE_CLASSES = [_per_thread(frozenset(s for s in _SWITCHES if bits & _BIT[s]))
                 for bits in range(4)]
modes = _Modes()
_blocks_lock = threading.Lock()
_blocks_open = dict.fromkeys(_SWITCHES, 0)  # per switch: blocks entered and not yet left
_open_bits = 0  # the switches with blocks open now


def _open_block(switch: str) -> None:
    """One more block setting `switch` somewhere: every thread reads its own value of it."""
    global _open_bits
    _blocks_lock.acquire()  # (not `with`: a block's start and end are on the step's path)
    try:
        count = _blocks_open[switch]
        _blocks_open[switch] = count + 1
        if not count:
            _open_bits |= _BIT[switch]
            modes.__class__ = _MODE_CLASSES[_open_bits]
    finally:
        _blocks_lock.release()


def _close_block(switch: str) -> None:
    global _open_bits
    _blocks_lock.acquire()
    try:
        count = _blocks_open[switch] - 1
        _blocks_open[switch] = count
        if not count:  # no thread sets it now: a plain attribute again
            _open_bits &= ~_BIT[switch]
            modes.__class__ = _MODE_CLASSES[_open_bits]
    finally:
        _blocks_lock.release()


class _ModeBlock:
    """Set this thread's `switch` to `value` inside a with-block; restore its previous value
    after. Also a decorator (`@no_grad()`, or `@no_grad` bare, as torch allows): on a
    generator function the mode holds while the generator's own code runs -- each time it
    is resumed -- and not while the caller runs between two yields, as torch's does."""

    __slots__ = ("_previous", "switch", "value")

    def __init__(self, switch: str, value: bool) -> None:
        self.switch = switch
        self.value = value
        self._previous: list[bool] = []  # a stack: the same block may be re-entered

    def __enter__(self) -> None:
        switch = self.switch
        _open_block(switch)
        self._previous.append(getattr(_thread_state, switch))
        setattr(_thread_state, switch, self.value)

    def __exit__(self, *exc: Any) -> None:
        switch = self.switch
        setattr(_thread_state, switch, self._previous.pop())
        _close_block(switch)

    def clone(self) -> _ModeBlock:
        return _ModeBlock(self.switch, self.value)

    def __call__(self, function: _F) -> _F:
        return _decorated(self.clone, function)


_F = TypeVar("_F", bound=Callable[..., Any])


def _decorated(block: Callable[[], contextlib.AbstractContextManager[Any]],
               function: _F) -> _F:
    """`function` run inside a fresh `block()` per call (per resumption for generators)."""
    if inspect.isgeneratorfunction(function):
        @functools.wraps(function)
        def generator(*args: Any, **kwargs: Any) -> Any:
            inner = function(*args, **kwargs)
            with block():
                try:
                    response = inner.send(None)
                except StopIteration as done:
                    return done.value
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with block():
                        inner.close()
                    raise
                except BaseException as error:  # thrown in by the caller: pass it on
                    with block():
                        try:
                            response = inner.throw(error)
                        except StopIteration as done:
                            return done.value
                else:
                    with block():
                        try:
                            response = inner.send(request)
                        except StopIteration as done:
                            return done.value
        return generator  # type: ignore[return-value]

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        with block():
            return function(*args, **kwargs)
    return call  # type: ignore[return-value]


def _mode_block(switch: str, value: bool, function: Any) -> Any:
    block = _ModeBlock(switch, value)
    return block if function is None else block(function)


def no_grad(function: Any = None) -> Any:
    """Record no graph inside this block (also usable as a decorator), as torch.no_grad.

    Applies to the thread that entered it; other threads keep recording.
    """
    return _mode_block("grad_enabled", False, function)


def enable_grad(function: Any = None) -> Any:
    """Record the graph again inside this block, even within no_grad() (this thread only)."""
    return _mode_block("grad_enabled", True, function)


def is_grad_enabled() -> bool:
    """True unless this thread is inside no_grad()."""
    return modes.grad_enabled


def set_grad_mode(mode: bool) -> None:
    """Switch this thread's grad recording on or off until it is switched again: the call
    form of torch.set_grad_enabled(mode), which has no block to end it. While the mode is
    off this way, the thread counts as inside a block (so every thread reads its own mode);
    switching it back on ends that."""
    mode = bool(mode)
    pinned = getattr(_thread_state, "pinned", False)
    if not mode and not pinned:
        _open_block("grad_enabled")
        _thread_state.pinned = True
    elif mode and pinned:
        _thread_state.pinned = False
        _thread_state.grad_enabled = True
        _close_block("grad_enabled")
        return
    _thread_state.grad_enabled = mode


def detect_anomaly(function: Any = None) -> Any:
    """Raise FloatingPointError at the first nan/inf produced in forward or backward
    (in the thread that entered the block)."""
    return _mode_block("anomaly", True, function)


def gc_paused(function: _F) -> _F:
    """`function` run with Python's cyclic garbage collector paused, as backward() runs.

    For a model's forward pass. It allocates thousands of nodes that stay alive until
    backward, and every 700 allocations the collector would examine the newest ones: it
    finds no garbage (a graph has no cycles) and moves them on, and every ten such passes
    count toward a full collection, which crawls every object of the process (~30 ms with
    numpy and scikit-learn loaded). Paused, the call's nodes are examined once, by the first
    collection after it, and count as one pass (W1's training step: 13 young and 0.12 full
    collections per step before, 1.85 and 0.03 with the pause). The collector's state is
    restored when the call returns or raises (it stays off if it was off); as with
    gc.disable() itself, other threads see the pause while the call runs.
    """
    @functools.wraps(function)
    def paused(*args: Any, **kwargs: Any) -> Any:
        if not gc.isenabled():
            return function(*args, **kwargs)
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            gc.enable()
    return paused  # type: ignore[return-value]


def topological_order(root: Any) -> list[Any]:
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
             check: Callable[[list[Any]], bool] | None = None,
             release: Callable[[Any], None] | None = None) -> list[Any]:
    """Run the chain rule from `root` back to the leaves; return the nodes whose backward
    step ran, in topological order (the Tensor engine frees their saved values after).

    `check(order)`, if given, sees the nodes about to run first: it may raise, or rewire
    the graph and return True to have the order worked out again (the Tensor engine's
    version counters, for values changed in place).

    Gradients of leaves accumulate (+=) across calls, as in PyTorch: calling backward twice
    gives twice the gradient. Gradients of intermediate nodes are reset to `zero` first, so
    every pass starts them clean -- micrograd 0.1.0 kept their stale values and returned
    wrong leaf gradients on a second call.

    `release(node)`, if given, runs right after each node's backward step has sent its
    gradient on: the Tensor engine drops interior gradients there, as torch does, so a pass
    holds only the gradients still to be used (the Value engine keeps them all: the lecture
    prints them). The caller then owns the gradients: it has seeded `root` itself (`seed`
    and `zero` are unused) and keeps interior gradients clear between passes.
    """
    # Python's cyclic garbage collector stays out of the pass. Anything it allocates (stack
    # entries, a backward step's temporaries) can trigger a collection, and a collection
    # crawls the whole live graph -- with a stack entry per node, that was half the backward
    # time of a 10^6-op chain. The walk and the backward steps make no cycles, so nothing is
    # lost by collecting after them instead. (A plain try/finally: a @contextmanager costs
    # 1.6 us, 2% of a tiny-tensor training step.)
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        return _backward(root, seed, zero, check, release)
    finally:
        if collecting:
            gc.enable()


def _backward(root: Any, seed: Any, zero: Any, check: Callable[[list[Any]], bool] | None,
              release: Callable[[Any], None] | None) -> list[Any]:
    order = _nodes_to_run(root)
    if check is not None:
        while check(order):
            order = _nodes_to_run(root)
    if release is None:
        for node in order:
            node.grad = zero
        if root._grad_fn is None:  # backward() on a leaf: d(root)/d(root) = 1 accumulates
            root.grad = seed if root.grad is None else root.grad + seed
        else:
            root.grad = seed
    if modes.anomaly:
        _backward_checked(order, release)
    elif release is None:
        for node in reversed(order):
            node._grad_fn(node)
    else:
        for node in reversed(order):
            node._grad_fn(node)
            release(node)
    return order


# ---------------------------------------------------------------------------------------
# Speed: backward() needs only the nodes that have a backward step, in the same relative
# order as topological_order(). Everything below is about doing that walk cheaply.
# ---------------------------------------------------------------------------------------

def _nodes_to_run(root: Any) -> list[Any]:
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


# the slot function of every class that keeps object's hash (Value, Tensor)
_identity_hash: Callable[..., int] = object.__hash__


def _interior_postorder(root: Any) -> list[Any]:
    """The DFS of topological_order(), made cheap for big graphs:

    - leaves (most edges of a neural net: weights and inputs) are never pushed: two
      attribute reads each. A node with more than two inputs (a neuron's w·x+b) also
      remembers its plain leaves, so that the next node whose inputs were all seen already
      -- the other neurons of a layer, the same neuron on the next sample -- is passed by
      one set.issuperset call in C instead of a Python loop over its inputs. A unary or
      binary node does not: a chain's constants would only fill the set;
    - the stack holds plain node references, with a None marker above a node whose inputs
      are being visited, instead of a (node, iterator) pair per node -- on a chain of 10^6
      ops that is 16 MB of pointers instead of 10^6 tuples and iterators. A node none of
      whose inputs needs a visit is emitted at once, without the marker's round trip;
      unary and binary nodes (a chain's every node) have their own unrolled branch
      (W1's walk: 17% fewer instructions, a 30,000-op chain's 19%);
    - `visited` holds the nodes themselves, not id()s: no int object per node. That needs
      hashing by identity, checked once per node class met in a row (a class's
      `__hash__` read is a slow lookup in CPython 3.11); any other node type takes the
      fallback.
    Children are pushed in reverse so they are visited in creation order, and a child
    already visited (through an earlier sibling) is skipped when popped -- exactly when the
    recursive DFS would have skipped it, so the post-order is the same. (One already
    visited at push time is not pushed at all: in a dense layer most inputs are.)
    """
    order: list[Any] = []
    emit = order.append
    visited: set[Any] = set()
    remember, all_seen = visited.add, visited.issuperset
    stack = [root]
    pop, push = stack.pop, stack.append
    checked: type | None = None  # the class of the last node checked to hash by identity
    while stack:
        node = pop()
        if node is None:  # all inputs of the node below the marker are done: it is next
            node = pop()
            if node._grad_fn is not None:
                emit(node)
            continue
        if node in visited:
            continue
        if type(node) is not checked:
            if type(node).__hash__ is not _identity_hash:
                raise _NotHashedByIdentity
            checked = type(node)
        remember(node)
        inputs = node._prev
        n = len(inputs)
        if n == 2:
            a, b = inputs
            visit_a = (a._prev or a._grad_fn is not None) and a not in visited
            visit_b = (b._prev or b._grad_fn is not None) and b not in visited
            if visit_a or visit_b:
                push(node)
                push(None)
                if visit_b:
                    push(b)
                if visit_a:
                    push(a)
                continue
        elif n == 1:
            child = inputs[0]
            if (child._prev or child._grad_fn is not None) and child not in visited:
                push(node)
                push(None)
                push(child)
                continue
        elif n and not all_seen(inputs):  # (if all were seen, none is pushed: no loop)
            depth = len(stack)
            push(node)
            push(None)
            for child in reversed(inputs):
                if child._prev or child._grad_fn is not None:
                    if child not in visited:
                        push(child)
                elif type(child) is checked or type(child).__hash__ is _identity_hash:
                    remember(child)  # a plain leaf: never pushed, remembered for all_seen()
            if len(stack) > depth + 2:
                continue
            del stack[depth:]  # no input to visit after all: the node is next
        # a leaf (with a hand-set backward step, run too) or inputs all done already
        if node._grad_fn is not None:
            emit(node)
    return order


def _backward_checked(order: list[Any], release: Callable[[Any], None] | None) -> None:
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
        if release is not None:
            release(node)


def check_forward(
    op: str, result: Any, inputs: tuple[Any, ...], is_finite: Callable[[Any], bool]
) -> None:
    """detect_anomaly()'s forward check: raise if `op` produced nan/inf."""
    if not is_finite(result):
        raise FloatingPointError(
            f"forward of '{op}' produced {result!r} from inputs {_describe(inputs)}"
        )


def _describe(nodes: tuple[Any, ...]) -> str:
    return ", ".join(repr(getattr(n, "data", n)) for n in nodes)


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5,
              rtol: float = 1e-3, raise_exception: bool = True, **ignored: Any) -> bool:
    """`torch.autograd.gradcheck`: True if func's analytic gradients at `inputs` (one input
    or a sequence) match central differences; GradcheckError (or False, with
    raise_exception=False) if not. torch's other keywords are accepted and ignored.

    The check itself belongs to the engine the inputs come from: their class's
    `_gradcheck` (the Tensor engine's is micrograd.tensors.gradcheck.gradcheck), so this
    module, below both engines, needs neither of them.
    """
    listed = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
    checks = {check for x in listed
              if (check := getattr(type(x), "_gradcheck", None)) is not None}
    if len(checks) != 1:
        kinds = sorted({type(x).__name__ for x in listed})
        raise TypeError(
            f"gradcheck checks Tensor inputs (float64, requires_grad=True); got "
            f"{', '.join(kinds) or 'no inputs'}. For Values, use micrograd.gradcheck.gradcheck")
    check = checks.pop()
    try:
        return bool(check(func, listed, eps=eps, atol=atol, rtol=rtol))
    except AssertionError:  # GradcheckError: the gradients disagree
        if raise_exception:
            raise
        return False
