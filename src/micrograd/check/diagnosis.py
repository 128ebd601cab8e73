"""The Diagnosis record: one named mistake, shared by the engine checker's catalogue
(`diagnoses`) and the backprop-ninja one (`ninja_catalog`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Diagnosis:
    """A named mistake: what it is, the smallest example that shows it, and the fix."""

    id: str
    title: str
    explanation: str
    example: str
    fix: str
    pitfall: str = ""  # where the textbook / lecture talks about it

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
