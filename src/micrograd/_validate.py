"""Argument checks shared by the library: one wording for one mistake, everywhere."""

from __future__ import annotations

from typing import Any


def is_positive_int(n: Any) -> bool:
    """True for 1, 2, ... (ints and int-like types such as numpy's; not bool, not 2.0)."""
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        return False
    try:
        return n.__index__() >= 1
    except TypeError:
        return False


def check_positive_int(name: str, n: Any) -> int:
    """n as an int, or ValueError: '{name} must be a positive integer, got {n!r}'."""
    if not is_positive_int(n):
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n.__index__())
