"""What a backprop-ninja run leaves behind, recorded as it runs: the learner's `cmp` calls
and, after every cell (or top-level statement), the part-4 tensors in its namespace.

Used in two places: in the checker's child process (around the learner's notebook or
script) and in a Jupyter kernel after `%load_ext micrograd.torch` (for `check_ninja()`).
It observes and copies; it judges nothing (that is `ninja_judge`, in the parent).

An event is {"kind": "cmp" | "unit", "line": ..., "space": {name: blob key}}; a blob is a
numpy copy of one tensor, stored once however many events name it.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import sys
from collections.abc import Callable, MutableMapping
from typing import Any

import numpy as np

from micrograd.check.ninja_rules import FORWARD, ORDER, VARIABLES

MAX_ELEMENTS = 1 << 20  # a part-4 tensor has a few thousand numbers; a bigger one is skipped
TRACKED = FORWARD + ORDER + tuple(f"{name}.grad" for name in VARIABLES)
ALLOWED_DTYPES = ("float16", "float32", "float64", "int32", "int64", "bool")


def as_array(value: Any) -> np.ndarray | None:
    """A copy of a tensor's numbers (micrograd.torch or PyTorch), or None if it is none."""
    if value is None or isinstance(value, (str, bytes, dict, list, tuple, set)):
        return None
    try:
        if hasattr(value, "detach"):
            value = value.detach()
        if hasattr(value, "cpu"):
            value = value.cpu()
        array = np.array(value.numpy() if hasattr(value, "numpy") else value, copy=True)
    except Exception:  # anything the object raises: it is not a tensor we can read
        return None
    if array.dtype.name not in ALLOWED_DTYPES or array.size > MAX_ELEMENTS:
        return None
    return array


class Recorder:
    """The events of one run and the blobs they name."""

    def __init__(self) -> None:
        self.blobs: dict[str, np.ndarray] = {}
        self.events: list[dict[str, Any]] = []
        self.offset = 0  # added to a frame's line: a Jupyter cell's first line in the program
        self._last: dict[str, str] | None = None

    def keep(self, value: Any) -> str | None:
        """The blob key of a tensor (stored once), or None if it is not one."""
        array = as_array(value)
        if array is None:
            return None
        digest = hashlib.sha1(f"{array.dtype.name}{array.shape}".encode())
        digest.update(np.ascontiguousarray(array).tobytes())
        key = digest.hexdigest()[:20]
        self.blobs.setdefault(key, array)
        return key

    def space(self, namespace: MutableMapping[str, Any]) -> dict[str, str]:
        """Blob keys of the part-4 names (and their autograd .grad) bound in `namespace`."""
        keys: dict[str, str] = {}
        for name in TRACKED:
            base, _, attr = name.partition(".")
            value = namespace.get(base)
            if value is None:
                continue
            if attr:
                try:
                    value = getattr(value, attr, None)
                except Exception:
                    continue
            key = self.keep(value)
            if key is not None:
                keys[name] = key
        return keys

    def after_unit(self, namespace: MutableMapping[str, Any], last_line: int) -> None:
        """A cell or statement ran: wrap a new `cmp`, and note the tensors if they changed."""
        self.wrap_cmp(namespace)
        space = self.space(namespace)
        if space and space != self._last:
            self.events.append({"kind": "unit", "line": last_line, "space": space})
        self._last = space

    def wrap_cmp(self, namespace: MutableMapping[str, Any]) -> None:
        """Replace the learner's `cmp(name, dt, t)` by one that records, then calls it."""
        original = namespace.get("cmp")
        if callable(original) and not getattr(original, "_ninja_recorded", False):
            namespace["cmp"] = self._recording(original)

    def _recording(self, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def cmp(*args: Any, **kwargs: Any) -> Any:
            with contextlib.suppress(Exception):  # never change what the learner's cmp does
                self.record_cmp(args, kwargs, sys._getframe(1))
            return original(*args, **kwargs)

        cmp._ninja_recorded = True  # type: ignore[attr-defined]
        return cmp

    def record_cmp(self, args: tuple[Any, ...], kwargs: dict[str, Any], frame: Any) -> None:
        given = list(args[:3]) + [None] * (3 - len(args[:3]))
        label, manual, tensor = (kwargs.get(k, v) for k, v in
                                 zip(("s", "dt", "t"), given, strict=True))
        grad = self.keep(manual)
        if grad is None:
            return
        self.events.append({
            "kind": "cmp", "line": self.offset + frame.f_lineno, "label": str(label)[:100],
            "grad": grad, "auto": self.keep(getattr(tensor, "grad", None)),
            "space": self.space(frame.f_globals)})

