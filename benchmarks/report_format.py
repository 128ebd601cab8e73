"""Formatting helpers shared by the report's sections: times, sizes, ratios, tables."""

from __future__ import annotations

import statistics
from collections.abc import Callable


def ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{seconds * 1000:,.2f} ms" if seconds < 10 else f"{seconds:,.1f} s"


def sec(seconds: float | None) -> str:
    return "—" if seconds is None else f"{seconds:,.3f} s"


def mib(kib: float | None) -> str:
    return "—" if not kib else f"{kib / 1024:,.1f} MiB"


def ratio(x: float | None) -> str:
    return "—" if x is None else f"{x:,.1f}×" if x >= 10 else f"{x:,.2f}×"


def spread(values: list[float], unit: Callable[[float], str] = ms) -> str:
    """The median of `values` and, when there are several, their range: '1.20 ms (1.10–1.40)'."""
    if not values:
        return "—"
    middle = unit(statistics.median(values))
    if len(values) == 1:
        return middle
    return f"{middle} ({unit(min(values)).split()[0]}–{unit(max(values))})"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)
