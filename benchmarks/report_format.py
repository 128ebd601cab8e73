"""Formatting helpers shared by the report's sections: times, sizes, ratios, tables."""

from __future__ import annotations


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


def verdict(value: float | None, target: float, at_least: bool) -> str:
    if value is None:
        return "n/a"
    return "PASS" if (value >= target if at_least else value <= target) else "FAIL"


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |" for row in rows]
    return "\n".join(lines)
