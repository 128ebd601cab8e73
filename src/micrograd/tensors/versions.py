"""Version counters: backward() must not use a value that was changed after an op saw it.

PyTorch keeps a version number per tensor, bumped by every in-place change, and each
saved tensor remembers the version it was saved at; backward() raises if the two differ.
Without that, `b = a*1; c = (b*b).sum(); with no_grad(): b -= 100; c.backward()` silently
differentiates with the new b.

Here one process-wide clock (`clock.epoch`) ticks at every in-place change. A node records
the tick it was made at (`_epoch`); a tensor's `_versions` (a `Counter`, or None before any
change) counts its changes and remembers when they happened. A change is either made in
memory (under no_grad(), or on data that needs no gradient), or recorded by autograd: then
the tensor's previous value moves to a new node `old`, and the tensor itself becomes the
node computed from it, as torch rebases the history of a tensor changed in place. Values
computed from the tensor before keep the old array, untouched.

Before backward() runs, `check_graph` looks at each node made before the last tick: if one
of its inputs (or its own value) was changed in memory since, that is torch's error; if the
input was replaced by a recorded in-place op, the node is rewired to the old value, which
is what it computed with. Nothing is paid per op but one integer store; backward() pays one
compare per node once any in-place change has happened.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _Clock:
    """The process-wide tick of in-place changes (0: none ever happened)."""

    epoch = 0


clock = _Clock()

rewirable: set = set()
"""Code objects of backward steps that read their inputs from `node._prev` at backward
time (the op kernel's), so a node made by them can be rewired to an input's old value."""

_KEPT_TICKS = 32  # ticks of the latest changes in memory kept for the error's version numbers


class Counter:
    """The version counter of one array, shared by the tensors on it (t, t.detach(), t.data).

    count       how many in-place changes (torch's `t._version`)
    ticks       the clock ticks of the latest changes made in memory (at most _KEPT_TICKS)
    replaced    (tick, old) for each recorded in-place op: `old` is the node holding the
                value from before, or None when there was none
    """

    __slots__ = ("count", "replaced", "ticks")

    def __init__(self, count: int = 0, replaced: list | None = None) -> None:
        self.count = count
        self.ticks: list[int] = []
        self.replaced = replaced


def changed_in_memory(t: Any) -> None:
    """Record that t's array was written in place (its version goes up by one)."""
    tick = clock.epoch = clock.epoch + 1
    counter = t._versions
    if counter is None:
        counter = t._versions = Counter()
    counter.count += 1
    ticks = counter.ticks
    ticks.append(tick)
    if len(ticks) > _KEPT_TICKS:
        del ticks[0]


def replaced(t: Any, old: Any) -> int:
    """Record that t now holds a new value computed from `old` (a recorded in-place op).

    `old` keeps t's previous counter (shared with detached views of the previous array); t
    gets a new one, one version higher. Returns the tick, which becomes t's `_epoch`."""
    clock.epoch += 1
    previous = t._versions
    old._versions = previous
    count, history = (0, []) if previous is None else (previous.count,
                                                       list(previous.replaced or ()))
    history.append((clock.epoch, old))
    t._versions = Counter(count + 1, history)
    return clock.epoch


def shared_versions(t: Any) -> Counter:
    """t's version counter, created if needed, to share with a tensor on the same memory."""
    counter = t._versions
    if counter is None:
        counter = t._versions = Counter()
    return counter


def version(t: Any) -> int:
    """How many times t was changed in place (torch's `t._version`)."""
    counter = t._versions
    return 0 if counter is None else counter.count


def check_graph(order: list) -> bool:
    """Raise torch's error if a node in `order` would use a value changed in memory after
    it was computed; rewire nodes whose input was replaced by a recorded in-place op.
    Returns True if something was rewired (the caller then recomputes the order)."""
    now = clock.epoch
    if now == 0:
        return False
    rewired = False
    for node in order:
        made = node._epoch
        if made == now:
            continue
        own = node._versions  # its own value overwritten: its backward step may use it
        if own is not None and own.ticks and own.ticks[-1] > made:
            raise stale_error(node, own, made)
        inputs = node._prev
        for x in inputs:
            counter = x._versions
            if counter is None:
                continue
            old = _replaced_after(counter, made)
            if old is not None:
                if node._grad_fn.__code__ not in rewirable:
                    raise stale_error(x, counter, made)
                inputs = tuple(old if p is x else p for p in inputs)
                node._prev = inputs
                rewired = True
            elif counter.ticks and counter.ticks[-1] > made:
                raise stale_error(x, counter, made)
    return rewired


def _replaced_after(counter: Counter, tick: int) -> Any:
    """The node holding the value from `tick`, if a recorded in-place op replaced it since."""
    for when, old in counter.replaced or ():
        if when > tick:
            return old
    return None


def stale_error(t: Any, counter: Counter, tick: int) -> RuntimeError:
    """Torch's error for a value changed in memory after an op at `tick` recorded it."""
    ticks = counter.ticks
    later = sum(1 for when in ticks if when > tick)
    expected = str(counter.count - later)
    if len(ticks) == _KEPT_TICKS and ticks[0] > tick:
        expected = f"{counter.count - later} or lower"  # older ticks were not kept
    made_by = f", which is the output of '{t._op}'," if t._op else ""
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: [{t._array.dtype} tensor of shape {tuple(t._array.shape)}]"
        f"{made_by} is at version {counter.count}; expected version {expected} instead. "
        "Hint: it was changed in place (-=, zero_(), t[i] = v, ... e.g. under no_grad()) "
        "after an op recorded it for backward(); change a copy instead (t = t - x), or "
        "call backward() before changing it."
    )


def register_rewirable(function: Callable) -> None:
    """Mark a backward step as reading its inputs from node._prev (see `rewirable`)."""
    rewirable.add(function.__code__)
