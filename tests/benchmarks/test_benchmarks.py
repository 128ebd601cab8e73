"""The benchmark harness keeps working: `python -m benchmarks --quick` completes and writes a
well-formed report. Deliberately no timing assertions -- speed lives in docs/benchmarks.md."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

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
    for heading in ("## Targets", "## W1", "## W2", "## W3", "## W4", "## W5", "## Machine"):
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
    assert header == ["workload", "target", "measured", "result"]
    assert {row[0] for row in rows} == {"W1", "W2", "W3", "W4", "W5"}
    for row in rows:
        assert row[3] in RESULTS, row


def check_notebook_loss(report: str) -> None:
    # micrograd's demo.ipynb publishes 0.8958441028683222 at step 0: the harness runs the
    # real workload, not a stand-in.
    w1 = report.split("## W1", 1)[1].split("## W2", 1)[0]
    assert (
        "| step 0 loss vs the published notebook (0.8958441028683222) "
        "| 0.8958441028683222 | PASS |" in w1
    )


def check_machine(report: str) -> None:
    rows = markdown_tables(report.split("## Machine", 1)[1])[0][2:]
    machine = {row[0]: row[1] for row in rows}
    for key in ("CPU", "cores", "Python", "numpy", "BLAS that ran (threadpoolctl)", "PyTorch"):
        assert machine.get(key) not in (None, "", "?"), f"machine table lacks {key}"


@pytest.mark.slow
def test_quick_suite_completes_and_writes_a_well_formed_report(tmp_path):
    # One test, one run of the suite (~30 s): split into several tests, pytest-xdist would
    # run the suite once per worker.
    report = run_quick_suite(tmp_path / "benchmarks.md")
    check_sections(report)
    check_tables_well_formed(report)
    check_targets(report)
    check_notebook_loss(report)
    check_machine(report)


def test_hand_written_part_of_an_existing_report_is_kept(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))  # benchmarks/ sits beside src/, not in it
    from benchmarks import report

    path = tmp_path / "benchmarks.md"
    path.write_text(
        f"old tables\n{report.HAND_WRITTEN_MARKER}\n\n## Where the time went\n\nnotes\n")
    report.write(path, "# Benchmarks\n\nnew tables\n")
    text = path.read_text()
    assert "old tables" not in text
    assert text.startswith("# Benchmarks\n\nnew tables\n")
    assert text.endswith(f"{report.HAND_WRITTEN_MARKER}\n\n## Where the time went\n\nnotes\n")
