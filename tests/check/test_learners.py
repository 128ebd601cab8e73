"""The checker on the learners' corpus (issue 12, item 9): every engine in
tests/check/learners/expected.json gets exactly its expected report.

The manifest is the oracle: it was written from the engines' faults (confirmed against
`math`, central differences and numpy in test_learner_corpus_files.py), not from the
checker's output. One case per file (xdist-friendly); a summary test computes precision
and recall of the named diagnoses over the whole corpus.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from micrograd.check import check_engine
from micrograd.check.report import ProbeResult, Report, render_text

LEARNERS = Path(__file__).parent / "learners"
MANIFEST = json.loads((LEARNERS / "expected.json").read_text(encoding="utf-8"))["engines"]
NAMED = ("fail", "error", "limit", "warn")


def expectation(name: str) -> dict[str, Any]:
    """The manifest's entry for this environment (a variant replaces the main one)."""
    entry = dict(MANIFEST[name])
    variants = entry.get("variants", {})
    if "torch-missing" in variants and importlib.util.find_spec("torch") is None:
        entry.update(variants["torch-missing"])
    if "python-3.14" in variants and sys.version_info >= (3, 14):
        entry.update(variants["python-3.14"])
    return entry


@cache
def report_of(name: str) -> Report:
    return check_engine(LEARNERS / name, timeout=60.0)


def named(report: Report) -> dict[str, tuple[str, Any]]:
    """diagnosis -> (status, line) of the probe that names it as its own (not a consequence)."""
    found: dict[str, ProbeResult] = {}
    for probe in report.probes:
        if not (probe.diagnosis and probe.status in NAMED):
            continue
        earlier = found.get(probe.diagnosis)
        if earlier is None or (earlier.consequence_of and not probe.consequence_of):
            found[probe.diagnosis] = probe
    return {d: (p.status, p.line) for d, p in found.items()}


@pytest.mark.parametrize("name", sorted(MANIFEST))
def test_each_learner_engine_gets_its_expected_report(name):
    want = expectation(name)
    report = report_of(name)
    text = render_text(report)
    got = named(report)
    assert {d: s for d, (s, _) in got.items()} == want["diagnoses"], text
    assert report.verdict == want["verdict"], text
    for diagnosis, pointer in want["lines"].items():
        assert got[diagnosis][1] == pointer["line"], (diagnosis, text)
    if "class-not-found" not in want["diagnoses"]:
        api = dict(want["api"])
        assert report.api == api, text
        assert f"class {api['class']}" in text and f"data .{api['data']}" in text


def test_the_corpus_precision_and_recall_meet_issue_12s_targets(capsys):
    """Each named diagnosis (with its status) is a hit if the manifest expects it; each
    expected one not named is a miss. Targets: precision >= 98%, recall >= 95%."""
    right = wrong = missed = 0
    for name in sorted(MANIFEST):
        want = expectation(name)["diagnoses"]
        got = {d: s for d, (s, _) in named(report_of(name)).items()}
        right += sum(1 for d, s in got.items() if want.get(d) == s)
        wrong += sum(1 for d, s in got.items() if want.get(d) != s)
        missed += sum(1 for d, s in want.items() if got.get(d) != s)
    precision = right / max(1, right + wrong)
    recall = right / max(1, right + missed)
    with capsys.disabled():
        print(f"\nlearners' corpus: {right} right, {wrong} wrong, {missed} missed; "
              f"precision {precision:.1%}, recall {recall:.1%}")
    assert precision >= 0.98 and recall >= 0.95


def test_strict_turns_the_lectures_limits_into_a_failure():
    report = report_of("scalar_lecture_faithful.py")
    assert report.ok and report.passes() and not report.passes(strict=True)
