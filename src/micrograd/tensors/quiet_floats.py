"""numpy's floating-point warnings switched off around a block of array code, cheaply.

`with np.errstate(all="ignore"):` is right but costs ~1-2 us (it builds numpy's error
state from keyword arguments on every entry): a few % of a tiny-tensor training step, which
pays it once a backward() pass. On numpy 2, whose error state is a context variable,
`silence()` sets a prepared "ignore all" state in ~0.3 us; it is derived from the state in
force (so a user's bufsize or error callback still holds) and kept per state. On numpy
versions without that variable it falls back to np.errstate.

    token = silence()
    try:
        ...  # inf and nan come out silently, as in PyTorch
    finally:
        restore(token)
"""

from __future__ import annotations

from typing import Any

import numpy as np

_extobj_contextvar: Any = None  # numpy >= 2.0: the error state, a context variable
_make_extobj: Any = None  # ... and its maker
try:
    from numpy._core import umath as _umath

    _extobj_contextvar = _umath._extobj_contextvar
    _make_extobj = _umath._make_extobj
except (ImportError, AttributeError):  # pragma: no cover - numpy 1.x: np.errstate
    pass

# the state in force -> the same state with every warning ignored. The key is kept alive by
# the dict, so its id cannot be reused by a different state while its entry exists.
_ignoring: dict[Any, Any] = {}


def silence() -> Any:
    """Ignore numpy's floating-point warnings from here; pass the result to `restore`."""
    if _extobj_contextvar is None:  # pragma: no cover - numpy 1.x
        state = np.errstate(all="ignore")
        state.__enter__()
        return state
    current = _extobj_contextvar.get()
    quiet = _ignoring.get(current)
    if quiet is None:
        if len(_ignoring) >= 8:  # a program that keeps changing its settings
            _ignoring.clear()
        quiet = _ignoring[current] = _make_extobj(all="ignore")
    return _extobj_contextvar.set(quiet)


def restore(token: Any) -> None:
    """Put back the warning settings `silence()` replaced."""
    if _extobj_contextvar is None:  # pragma: no cover - numpy 1.x
        token.__exit__(None, None, None)
        return
    _extobj_contextvar.reset(token)
