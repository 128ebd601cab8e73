"""The benchmark harness keeps working: `python -m benchmarks --quick` completes and writes a
well-formed report. Deliberately no timing assertions -- speed lives in docs/benchmarks.md."""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_module

pytestmark = pytest.mark.slow  # the speed suite's code paths, run for real

ROOT = Path(__file__).resolve().parents[2]
RESULTS = {"PASS", "FAIL", "n/a"}


def markdown_tables(text: str) -> list[list[list[str]]]:
    """Every table in `text`, as rows of cells (header first, separator dropped)."""
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def run_quick_suite(output: Path) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--output", str(output)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, f"the quick suite failed:\n{done.stderr[-3000:]}"
    assert output.exists(), "the quick suite wrote no report"
    return output.read_text()


def check_sections(report: str) -> None:
    for heading in ("## Targets", "## W1", "## W2", "## W3", "## W4", "## W5", "## W6, W7",
                    "## Machine"):
        assert heading in report, f"report has no {heading!r} section"
    assert "**Quick run**" in report


def check_tables_well_formed(report: str) -> None:
    tables = markdown_tables(report)
    assert len(tables) >= 7
    for table in tables:
        header, separator, *rows = table
        assert all(set(cell) <= set("-:") and cell for cell in separator), separator
        assert rows, f"table {header} has no rows"
        for row in rows:
            assert len(row) == len(header), f"row {row} does not match header {header}"


def check_targets(report: str) -> None:
    header, _, *rows = markdown_tables(report.split("## Targets", 1)[1])[0]
    assert header == ["workload", "measure", "target", "measured", "result"]
    for row in rows:
        assert row[4] in RESULTS, row
        # W8 (the GPT lecture at full size, minutes a step) is left out of a quick run; and
        # the quick run has no default-thread processes, so no thread-policy ratio
        if row[0] != "W8" and "OPENBLAS_NUM_THREADS" not in row[1]:
            assert row[4] != "n/a", f"the quick run measured nothing for {row}"


def check_notebook_loss(report: str) -> None:
    # micrograd's demo.ipynb publishes 0.8958441028683222 at step 0: the harness runs the
    # real workload, not a stand-in.
    w1 = report.split("## W1", 1)[1].split("## W2", 1)[0]
    assert (
        "| step 0 loss vs the published notebook (0.8958441028683222) "
        "| 0.8958441028683222 | PASS |" in w1
    )


def check_lecture_steps_agree_with_torch(report: str) -> None:
    # W6/W7 run the same torch-API code from the same weights on PyTorch and micrograd.torch:
    # their step-0 losses must agree to float32 tolerance (PyTorch is the oracle), and the
    # report must say so for both workloads
    section = report.split("## W6, W7", 1)[1].split("\n## ", 1)[0]  # up to the next section
    losses = [t for t in markdown_tables(section) if t[0][:2] == ["workload", "step"]][-1]
    header, _, *rows = losses
    assert header == ["workload", "step", "micrograd", "PyTorch", "relative difference",
                      "result"]
    step0 = {row[0]: row for row in rows if row[1] == "0"}
    assert set(step0) == {"W6", "W7"}, rows
    for workload, row in step0.items():
        ours, theirs = float(row[2]), float(row[3])
        assert abs(ours - theirs) <= 1e-5 * abs(theirs), (workload, ours, theirs)
        assert row[5] == "PASS", row
    timings = markdown_tables(section)[0]
    assert [row[0] for row in timings[2:]] == ["W6", "W7"]
    for row in timings[2:]:
        assert row[-1] in RESULTS and row[2].endswith(" ms"), row  # micrograd, 1 thread ran


def check_machine(report: str) -> None:
    rows = markdown_tables(report.split("## Machine", 1)[1])[0][2:]
    machine = {row[0]: row[1] for row in rows}
    for key in ("CPU", "cores", "Python", "numpy", "BLAS that ran (threadpoolctl)", "PyTorch"):
        assert machine.get(key) not in (None, "", "?"), f"machine table lacks {key}"


@pytest.mark.slow
def test_quick_suite_completes_and_writes_a_well_formed_report(tmp_path, mg010):
    # the report compares with micrograd 0.1.0 (the mg010 fixture) and PyTorch
    require_module("torch")
    # One test, one run of the suite (~30 s): split into several tests, pytest-xdist would
    # run the suite once per worker.
    report = run_quick_suite(tmp_path / "benchmarks.md")
    check_sections(report)
    check_tables_well_formed(report)
    check_targets(report)
    check_notebook_loss(report)
    check_lecture_steps_agree_with_torch(report)
    check_machine(report)


def test_hand_written_part_of_an_existing_report_is_kept(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ sits beside src/, not in it
    from benchmarks import report

    path = tmp_path / "benchmarks.md"
    path.write_text(
        f"old tables\n{report.HAND_WRITTEN_MARKER}\n\n## Where the time went\n\nnotes\n")
    report.write(path, "# Benchmarks\n\nnew tables\n", whole=True)
    text = path.read_text()
    assert "old tables" not in text
    assert text.startswith("# Benchmarks\n\nnew tables\n")
    assert text.endswith(f"{report.HAND_WRITTEN_MARKER}\n\n## Where the time went\n\nnotes\n")


def _targets_table(*lines: str) -> str:
    return "\n".join(["| workload | measure | target | measured | result |",
                      "|---|---|---|---|---|", *lines])


def test_a_partial_run_keeps_the_other_workloads_sections_and_target_rows(tmp_path, monkeypatch):
    # `python -m benchmarks --only W6,W7` must not wipe W1..W5 from docs/benchmarks.md
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks import report

    path = tmp_path / "benchmarks.md"
    path.write_text(
        "# Benchmarks\n\nWritten by `python -m benchmarks` on 2026-01-01 00:00 UTC in 9 s.\n\n"
        "## Targets\n\n" + _targets_table("| W1 | speed | ≥ 1× | 1 | PASS |",
                                          "| W6 | time | ≤ 1× | 9 | FAIL |") + "\n\n"
        "## W1 — one\n\nold W1 table\n\n## W6, W7 — lecture\n\nold W6 table\n\n"
        "## Machine\n\nold machine\n\n"
        f"{report.HAND_WRITTEN_MARKER}\n\n## Where the time went\n\nnotes\n")
    new = ("# Benchmarks\n\nWritten by `python -m benchmarks --only W6,W7` on "
           "2026-02-02 00:00 UTC in 5 s.\n\n## Targets\n\n"
           + _targets_table("| W1 | speed | ≥ 1× | not measured in this run | n/a |",
                            "| W6 | time | ≤ 1× | 1 | PASS |", "| W7 | time | ≤ 1× | 2 | PASS |")
           + "\n\n## W6, W7 — lecture\n\nnew W6 table\n\n## Machine\n\nnew machine\n")
    report.write(path, new, whole=False)
    text = path.read_text()
    assert "old W6 table" not in text and "old machine" not in text
    assert "| W6 | time | ≤ 1× | 9" not in text and "not measured" not in text
    for kept in ("old W1 table", "| W1 | speed | ≥ 1× | 1 | PASS |", "new W6 table", "new machine",
                 "*Kept from the run of 2026-01-01 00:00 UTC", "## Where the time went"):
        assert kept in text, kept
    order = [text.index(s) for s in ("| W1 | speed", "| W6 | time", "| W7 | time", "## W1 —",
                                     "## W6, W7", "## Machine", report.HAND_WRITTEN_MARKER)]
    assert order == sorted(order), text

    # a whole run (make bench) replaces every section: nothing is kept from before
    path.write_text(text)
    report.write(path, new, whole=True)
    text = path.read_text()
    assert "old W1 table" not in text and "Kept from" not in text
    assert "| W1 | speed | ≥ 1× | not measured in this run | n/a |" in text
    assert text.endswith("## Where the time went\n\nnotes\n")


@pytest.mark.slow
def test_runs_in_lockstep_take_turns_and_never_overlap(monkeypatch):
    # W1 paces our notebook and 0.1.0's step by step so that load hits both alike: each
    # step of one must lie between two steps of the other, and the numbers stay the
    # notebook's (two processes of this repo's engine here: the pacing is what is tested)
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks.suite import SRC, run_lockstep

    first, second = run_lockstep("moons_notebook", [(3, SRC), (2, SRC)], 300)
    assert "error" not in first and "error" not in second, (first, second)
    assert (first["steps"], second["steps"]) == (3, 2)
    assert first["losses"][0] == second["losses"][0] == 0.8958441028683222
    steps = sorted([(t, t + s, "first") for t, s in zip(first["step_starts"], first["seconds"],
                                                         strict=True)]
                   + [(t, t + s, "second") for t, s in zip(second["step_starts"],
                                                           second["seconds"], strict=True)])
    assert [who for *_, who in steps] == ["first", "second", "first", "second", "first"]
    for (_, end, _), (start, _, _) in itertools.pairwise(steps):
        assert end <= start, "two paced steps ran at the same time"


@pytest.mark.slow
def test_w1_runs_ours_whole_while_the_paced_baseline_waits(monkeypatch):
    # W1: the baseline goes a step at a time; each of our runs goes whole, its steps back to
    # back, inside one of the baseline's gaps (this repo's engine stands in for 0.1.0 here)
    monkeypatch.syspath_prepend(str(ROOT))
    from benchmarks.suite import SRC, Plan, run_w1

    plan = Plan.make(quick=True)
    plan.w1_steps, plan.w1_runs, plan.w1_baseline_steps, plan.w1_baseline_runs = 2, 3, 4, 2
    result = run_w1(plan, SRC)
    ours, theirs = result["ours"], result["baseline"]
    assert all("error" not in r for r in ours + theirs), (ours, theirs)
    assert len(ours) == 3 and len(theirs) == 2
    assert result["ours_during"] == [0, 0, 1]  # two runs inside the first, one in the second
    assert all(r["losses"][0] == 0.8958441028683222 for r in ours + theirs)
    for run, pair in zip(ours, result["ours_during"], strict=True):
        base = theirs[pair]
        start, end = run["step_starts"][0], run["step_starts"][-1] + run["seconds"][-1]
        gaps = list(itertools.pairwise(
            [(t, t + s) for t, s in zip(base["step_starts"], base["seconds"], strict=True)]))
        before_first = start < base["step_starts"][0] and end < base["step_starts"][0]
        assert before_first or any(a_end < start and end < b_start
                                   for (_, a_end), (b_start, _) in gaps), (run, base)
