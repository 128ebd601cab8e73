"""Every target the suite checks, as issue 19 states them (with issue 5's it kept): the one
place the report's target table and its verdicts are read from.

A target is one row of the report's table: a workload (or one size of it), what is measured,
and the bound. Ratios are between numbers measured in the same run; "each at its best"
compares each engine at the faster of one thread and its default.
"""

from __future__ import annotations

from dataclasses import dataclass

# what is measured (the kind of a target); a report section records its values by these
SPEED_UP = "speed-up over micrograd 0.1.0"
SAME_LOSSES = "loss at every step against 0.1.0 (max relative difference)"
TIME = "time per step / PyTorch's, each at its best"
GROWTH = "build + backward of 10^6 ops / of 10^5 ops"
RSS_VS_010 = "peak RSS / micrograd 0.1.0's"
RSS = "peak RSS / PyTorch's, one thread"
POLICY = "micrograd's default / OPENBLAS_NUM_THREADS=1 (the thread policy)"
STEP0_LOSS = "step-0 loss against PyTorch's (relative difference)"
EVAL_LOSS = "eval-mode loss before training against PyTorch's (relative difference)"

W3_BATCHES = ("W3 batch 32", "W3 batch 128", "W3 batch 1,797")
W10 = ("W10-linear", "W10-mlp", "W10-poly")
THROUGH_TORCH_API = ("W6", "W7", "W8", "W9", *W10)  # micrograd.torch against torch


@dataclass(frozen=True)
class Target:
    """`value` of `kind`, measured on `workload`, must be ≥ `bound` (`at_least`) or ≤ it."""

    workload: str
    kind: str
    bound: float
    at_least: bool = False
    shown: str = ""  # the bound as the issue writes it, where that is not a plain number

    def text(self) -> str:
        """'≤ 0.5×', '≥ 100×', '≤ 1/3', '≤ 1e-05'."""
        if self.shown:
            number = self.shown
        elif self.bound < 1e-3:
            number = f"{self.bound:.0e}"
        else:
            number = f"{self.bound:g}×"
        return f"{'≥' if self.at_least else '≤'} {number}"

    def verdict(self, value: float | None) -> str:
        """PASS, FAIL, or n/a when nothing was measured."""
        if value is None:
            return "n/a"
        return "PASS" if (value >= self.bound if self.at_least else value <= self.bound) else "FAIL"


def _targets() -> tuple[Target, ...]:
    speed = {"W2": 0.5, **dict.fromkeys(W3_BATCHES, 0.5), "W6": 0.5, "W7": 0.5,
             "W8": 1.0, "W9": 1.0, **dict.fromkeys(W10, 0.5)}
    policy = (*W3_BATCHES, "W8", "W9", *W10)  # issue 19, item 4
    rows = [Target("W1", SPEED_UP, 100.0, at_least=True),
            Target("W1", SAME_LOSSES, 1e-12),
            Target("W4", GROWTH, 12.0),
            Target("W5", RSS_VS_010, 1 / 3, shown="1/3")]
    for workload, bound in speed.items():
        rows.append(Target(workload, TIME, bound))
        rows.append(Target(workload, RSS, 1.0))  # peak RSS ≤ PyTorch's on every tensor workload
        if workload in policy:
            rows.append(Target(workload, POLICY, 1.0))
        if workload in THROUGH_TORCH_API:  # same weights: the same first loss
            rows.append(Target(workload, EVAL_LOSS if workload == "W8" else STEP0_LOSS, 1e-5))
    # W1, W2, ..., W10 by number (a stable sort: a workload's rows keep the order above)
    return tuple(sorted(rows, key=lambda t: int(t.workload[1:].split()[0].split("-")[0])))


TARGETS = _targets()
BY_KEY = {(t.workload, t.kind): t for t in TARGETS}
LOSS_RTOL = BY_KEY[("W6", STEP0_LOSS)].bound  # the step-0 check that makes the suite exit 1


def target(workload: str, kind: str) -> Target:
    """The target of `kind` on `workload` (KeyError: the issue sets none)."""
    return BY_KEY[(workload, kind)]


# What a run measured against each target: (workload, kind) -> (value, how it reads).
# The report's sections fill it in; target_rows() turns it into the table.
Measured = dict[tuple[str, str], tuple[float | None, str]]
NOT_MEASURED = "not measured in this run"


def target_rows(measured: Measured) -> list[list[str]]:
    """The report's target table, one row per target, measured or not."""
    rows = []
    for t in TARGETS:
        value, text = measured.get((t.workload, t.kind), (None, NOT_MEASURED))
        rows.append([t.workload, t.kind, t.text(), text, t.verdict(value)])
    return rows
