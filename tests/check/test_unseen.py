"""The checker on engines of issue 20's patterns (tests/check/unseen/): each gets exactly
its expected report, and planted bugs in three tensor styles are found by name and line.

The manifest (unseen/expected.json) is the oracle, written from each file's planted fault:
the line holding the fault's code, not the checker's output. `mutations` plant one classic
bug at a time into a correct base file (in a temporary copy) and name the diagnosis it must
get, at the line that now holds the planted code. Precision and recall are computed over
both, counting a MISSING op as not a bug.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from micrograd.check import check_engine
from micrograd.check.report import Report, render_text

UNSEEN = Path(__file__).parent / "unseen"
MANIFEST = json.loads((UNSEEN / "expected.json").read_text(encoding="utf-8"))
ENGINES: dict[str, Any] = MANIFEST["engines"]
MUTATIONS: dict[str, Any] = {f"{m['base']}:{m['id']}": m for m in MANIFEST["mutations"]}
NAMED = ("fail", "error", "limit", "warn")

pytestmark = pytest.mark.slow


def named(report: Report) -> dict[str, tuple[str, Any]]:
    """diagnosis -> (status, line) of the probe naming it as its own (not a consequence)."""
    found: dict[str, Any] = {}
    for probe in report.probes:
        if not (probe.diagnosis and probe.status in NAMED):
            continue
        earlier = found.get(probe.diagnosis)
        if earlier is None or (earlier.consequence_of and not probe.consequence_of):
            found[probe.diagnosis] = probe
    return {d: (p.status, p.line) for d, p in found.items()}


def shown_line(pointer: dict[str, Any]) -> Any:
    """The report's line: a number in the checked file, 'FILE, line N' in another one."""
    return f"{pointer['file']}, line {pointer['line']}" if "file" in pointer else pointer["line"]


@cache
def report_of(name: str) -> Report:
    return check_engine(UNSEEN / name, timeout=60.0)


@cache
def mutated(key: str, folder: Path) -> tuple[Report, dict[str, Any]]:
    """The base file with one bug planted; the expectation: the base's plus the bug's."""
    mutation = MUTATIONS[key]
    base = UNSEEN / mutation["base"]
    text = base.read_text(encoding="utf-8")
    assert text.count(mutation["replace"]) == 1, key
    at = text.index(mutation["replace"])
    text = text.replace(mutation["replace"], mutation["with"])
    target = folder / key.replace(":", "__").replace("/", "_")
    target.mkdir()
    (target / base.name).write_text(text, encoding="utf-8")
    # the planted line, or (line_code) the line the diagnosis's documented pointer names
    line = text.count("\n", 0, at) + 1
    code = mutation.get("line_code", mutation["with"])
    if "line_code" in mutation:
        line = next(n for n, row in enumerate(text.splitlines(), 1) if code in row)
    want = dict(ENGINES[mutation["base"]])
    want["diagnoses"] = dict(want["diagnoses"], **mutation["diagnoses"])
    want["lines"] = dict(want["lines"], **{d: {"line": line, "code": code}
                                            for d in mutation["diagnoses"]})
    want["verdict"] = "fail"
    return check_engine(target / base.name, timeout=60.0), want


def assert_report(report: Report, want: dict[str, Any]) -> None:
    text = render_text(report)
    got = named(report)
    assert {d: s for d, (s, _) in got.items()} == want["diagnoses"], text
    assert report.verdict == want["verdict"], text
    for diagnosis, pointer in want["lines"].items():
        assert got[diagnosis][1] == shown_line(pointer), (diagnosis, text)
    assert report.api == want["api"], text
    if "advice" in want:
        assert any(want["advice"] in p.detail for p in report.probes), text


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_each_unseen_engine_gets_its_expected_report(name):
    assert_report(report_of(name), ENGINES[name])


@pytest.mark.parametrize("key", sorted(MUTATIONS))
def test_each_planted_tensor_bug_is_found_by_name_and_line(key, tmp_path_factory):
    report, want = mutated(key, tmp_path_factory.getbasetemp())
    assert_report(report, want)


def score(pairs: list[tuple[Report, dict[str, Any]]]) -> tuple[int, int, int]:
    right = wrong = missed = 0
    for report, want in pairs:
        expected = want["diagnoses"]
        got = {d: s for d, (s, _) in named(report).items()}
        right += sum(1 for d, s in got.items() if expected.get(d) == s)
        wrong += sum(1 for d, s in got.items() if expected.get(d) != s)
        missed += sum(1 for d, s in expected.items() if got.get(d) != s)
    return right, wrong, missed


def test_precision_and_recall_meet_issue_20s_targets(capsys, tmp_path_factory):
    """Each named diagnosis with its status is a hit if expected, else a false alarm; each
    expected one not named is a miss. Targets: precision >= 98%, recall >= 95%."""
    pairs = [(report_of(name), ENGINES[name]) for name in sorted(ENGINES)]
    pairs += [mutated(key, tmp_path_factory.getbasetemp()) for key in sorted(MUTATIONS)]
    right, wrong, missed = score(pairs)
    precision = right / max(1, right + wrong)
    recall = right / max(1, right + missed)
    with capsys.disabled():
        print(f"\nunseen corpus: {right} right, {wrong} wrong, {missed} missed; "
              f"precision {precision:.1%}, recall {recall:.1%}")
    assert precision >= 0.98 and recall >= 0.95


def test_data_given_alone_is_used_and_shown():
    """Issue 20, pattern 10: `--data val` on its own (no --backward/--grad) is honoured."""
    learners = Path(__file__).parent / "learners"
    report = check_engine(learners / "scalar_grad_method_val_g.py", api={"data": "val"})
    assert report.api["data"] == "val" and report.api["grad"] == "g", report.api
    assert "data .val" in render_text(report)


def test_a_grad_method_can_be_named_with_call_grad():
    """`--grad call:grad`: the gradient is read as `v.grad()` (pattern 5's engine)."""
    report = check_engine(UNSEEN / "scalar_helper_decoy.py", api={"grad": "call:grad"})
    assert report.api["grad"] == "call:grad" and report.class_name == "Node"
    assert "wrong-local-derivative:tanh" in report.diagnoses
    with pytest.raises(ValueError, match="call:grad for a method"):
        check_engine(UNSEEN / "scalar_helper_decoy.py", api={"grad": "call:grad()"})
