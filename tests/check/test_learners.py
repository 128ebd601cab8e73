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

pytestmark = pytest.mark.checker  # each test checks a learner's engine in the sandboxed subprocess

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


@pytest.mark.slow
@pytest.mark.parametrize("name", ["tensor_missing_unbroadcast.py", "scalar_set_order_dfs.py"])
def test_twenty_runs_give_the_same_report(name):
    """Issue 12.4 on a Tensor engine and a set-order scalar engine: verdicts never depend
    on hash order or luck."""
    seen = set()
    for _ in range(20):
        report = check_engine(LEARNERS / name, timeout=60.0)
        seen.add(tuple((p.id, p.status, p.diagnosis, p.line, p.consequence_of)
                       for p in report.probes))
    assert len(seen) == 1


def test_the_backward_entry_and_attribute_names_can_be_given(tmp_path):
    """--backward/--data/--grad: the report uses and prints what it was told."""
    report = check_engine(LEARNERS / "scalar_grad_method_val_g.py",
                          api={"backward": "grad", "data": "val", "grad": "g"})
    assert report.api == MANIFEST["scalar_grad_method_val_g.py"]["api"]
    assert "used: class Num, backward root.grad(), data .val, grad .g" in render_text(report)
    function = check_engine(LEARNERS / "scalar_module_back_prop.py", api={"backward": "back_prop"})
    assert function.api["backward"] == {"kind": "function", "name": "back_prop"}
    assert function.verdict == "pass", render_text(function)
    with pytest.raises(ValueError, match="--data must be a Python name"):
        check_engine(LEARNERS / "scalar_backprop_name.py", api={"data": "data; import os"})


def test_a_class_with_ops_but_no_backward_gets_its_own_diagnosis(tmp_path):
    engine = tmp_path / "no_backward.py"
    engine.write_text(
        "class Value:\n"
        "    def __init__(self, data, _children=()):\n"
        "        self.data = data\n"
        "        self.grad = 0.0\n"
        "        self._prev = set(_children)\n"
        "\n"
        "    def __add__(self, other):\n"
        "        return Value(self.data + other.data, (self, other))\n")
    report = check_engine(engine)
    probe = report.by_id("find-backward")
    assert (probe.status, probe.diagnosis, probe.line) == ("fail", "no-backward", 2)
    assert report.verdict == "fail" and "--backward NAME" in probe.detail


def test_a_wrong_backward_override_is_named_not_guessed():
    report = check_engine(LEARNERS / "scalar_backprop_name.py", api={"backward": "nope"})
    assert report.diagnoses == ["no-backward"]


def test_limits_in_junit_are_passed_testcases_with_a_note_and_fail_with_strict():
    import xml.etree.ElementTree as ET

    from micrograd.check.report import render_junit

    report = report_of("scalar_lecture_faithful.py")
    suite = ET.fromstring(render_junit(report)).find("testsuite")
    assert suite is not None
    props = {p.get("name"): p.get("value") for p in suite.findall("properties/property")}
    assert props == {"verdict": "limits-only", "limits": "3"}
    limited = [c for c in suite.findall("testcase") if c.find("system-out") is not None
               and "limit (not a bug" in (c.findtext("system-out") or "")]
    assert len(limited) == 3 and suite.get("failures") == "0"
    assert all(c.find("failure") is None and c.find("skipped") is None for c in limited)
    strict = ET.fromstring(render_junit(report, strict=True)).find("testsuite")
    assert strict is not None and strict.get("failures") == "3"


def test_the_command_exits_0_for_limits_and_1_with_strict(capsys):
    from micrograd.check import run_check

    path = str(LEARNERS / "scalar_lecture_faithful.py")
    assert run_check(path) == 0
    out = capsys.readouterr().out
    assert "LIMIT tanh-overflow" in out and "verdict: LIMITS ONLY" in out
    assert run_check(path, strict=True) == 1
    capsys.readouterr()
    assert run_check(path, as_json=True) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "limits-only" and data["ok"] is True
    assert {d["id"] for d in data["diagnoses"]} == {"recursion-limit",
                                                   "stale-intermediate-grads", "tanh-overflow"}


def test_every_diagnosis_of_the_corpus_has_a_line_and_a_fix_of_its_own():
    """Item 7: a pointer for every fail/limit, and never 'see the line shown' without one."""
    from micrograd.check.diagnoses import explain

    for name in sorted(MANIFEST):
        report = report_of(name)
        for probe in report.probes:
            if probe.status in ("fail", "limit") and not probe.consequence_of:
                assert probe.line is not None, (name, probe.id, probe.diagnosis)
                fix = explain(probe.diagnosis or "").fix
                assert fix and fix != "see the line shown", (name, probe.diagnosis)


def test_the_command_line_takes_the_api_overrides(capsys):
    from micrograd.cli import main

    code = main(["check", str(LEARNERS / "scalar_grad_method_val_g.py"), "--backward", "grad",
                 "--data", "val", "--grad", "g", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1 and data["verdict"] == "fail"
    assert data["api"] == MANIFEST["scalar_grad_method_val_g.py"]["api"]
    assert main(["check", str(LEARNERS / "scalar_backprop_name.py"), "--grad", "a-b"]) == 2
    assert "--grad must be a Python name" in capsys.readouterr().err


def test_graph_attributes_with_other_names_are_watched_too(tmp_path):
    """`parents` for `_prev` and `grad_fn` for `_backward`: the order of backward steps is
    still recorded, so a node run twice is still named as such."""
    corpus = Path(__file__).parent / "corpus"
    for name, want in (("set_order_topo", ["node-visited-twice"]), ("correct", [])):
        text = (corpus / f"{name}.py").read_text()
        engine = tmp_path / f"{name}.py"
        engine.write_text(text.replace("_prev", "parents").replace("_backward", "grad_fn"))
        report = check_engine(engine)
        assert report.diagnoses == want, render_text(report)


def test_a_minimal_tensor_engine_with_sum_of_no_arguments_passes(tmp_path):
    """Only the arguments a probe needs are passed: `def sum(self)` is not a fault, and
    the axis probes a plain `sum()` cannot take are reported, not blamed on the engine."""
    engine = tmp_path / "tiny_tensor.py"
    engine.write_text(
        "import numpy as np\n\n\n"
        "class Tensor:\n"
        "    def __init__(self, data, _prev=()):\n"
        "        self.data = np.asarray(data, dtype=float)\n"
        "        self.grad = np.zeros_like(self.data)\n"
        "        self._prev, self._backward = _prev, lambda: None\n\n"
        "    def __add__(self, other):\n"
        "        out = Tensor(self.data + other.data, (self, other))\n\n"
        "        def _backward():\n"
        "            self.grad += out.grad\n"
        "            other.grad += out.grad\n"
        "        out._backward = _backward\n"
        "        return out\n\n"
        "    def __mul__(self, other):\n"
        "        out = Tensor(self.data * other.data, (self, other))\n\n"
        "        def _backward():\n"
        "            self.grad += other.data * out.grad\n"
        "            other.grad += self.data * out.grad\n"
        "        out._backward = _backward\n"
        "        return out\n\n"
        "    def sum(self):\n"
        "        out = Tensor(self.data.sum(), (self,))\n\n"
        "        def _backward():\n"
        "            self.grad += np.ones_like(self.data) * out.grad\n"
        "        out._backward = _backward\n"
        "        return out\n\n"
        "    def backward(self):\n"
        "        topo, seen, stack = [], set(), [(self, False)]\n"
        "        while stack:\n"
        "            node, done = stack.pop()\n"
        "            if done:\n"
        "                topo.append(node)\n"
        "            elif id(node) not in seen:\n"
        "                seen.add(id(node))\n"
        "                stack.append((node, True))\n"
        "                stack.extend((c, False) for c in node._prev)\n"
        "        for node in topo:\n"
        "            if node._prev:\n"
        "                node.grad = np.zeros_like(node.data)\n"
        "        self.grad = np.ones_like(self.data)\n"
        "        for node in reversed(topo):\n"
        "            node._backward()\n")
    report = check_engine(engine)
    assert report.api["class"] == "Tensor"
    assert report.by_id("t-sum").status == "pass" and report.by_id("t-mul").status == "pass"
    assert report.by_id("t-chain-2000").status == "pass", render_text(report)
    failing = {p.id: p.diagnosis for p in report.probes if p.status == "fail"}
    # no unbroadcast in this engine: the broadcasting probe names it, nothing else fails
    assert set(failing.values()) == {"missing-unbroadcast"}, failing
    assert report.by_id("t-sum-axis1").status == "missing"


def test_a_cross_entropy_that_takes_one_hot_targets_is_probed_with_them(tmp_path):
    text = (LEARNERS / "tensor_correct.py").read_text()
    old = "        targets = np.asarray(targets)\n"
    assert text.count(old) == 1
    engine = tmp_path / "one_hot.py"
    engine.write_text(text.replace(old, "        targets = np.asarray(targets).argmax(axis=1)\n"))
    report = check_engine(engine)
    assert report.verdict == "pass", render_text(report)
    assert "one-hot" in report.by_id("t-cross-entropy").detail
    assert report.by_id("t-cross-entropy-large").status == "pass"


NO_DEFAULTS = """import math
class Value:
    def __init__(self, data, children, op):
        self.data = data
        self.grad = 0.0
        self._prev = set(children)
        self._backward = lambda: None
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other, (), '')
        out = Value(self.data + other.data, (self, other), '+')
        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out
    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other, (), '')
        out = Value(self.data * other.data, (self, other), '*')
        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out
    __radd__ = __add__
    __rmul__ = __mul__
    def backward(self):
        topo, seen, stack = [], set(), [(self, False)]
        while stack:
            v, done = stack.pop()
            if done:
                topo.append(v); continue
            if v in seen: continue
            seen.add(v); stack.append((v, True)); stack.extend((c, False) for c in v._prev)
        for v in topo:
            if v._prev: v.grad = 0.0
        self.grad = 1.0
        for v in reversed(topo): v._backward()"""

def test_a_constructor_without_defaults_for_its_children_is_fed_them(tmp_path):
    """`Value(data, children, op)` with no defaults: leaves are made as Value(x, (), '')."""
    engine = tmp_path / "no_defaults.py"
    engine.write_text(NO_DEFAULTS + "\n")
    report = check_engine(engine)
    assert report.class_name == "Value" and report.verdict == "pass", render_text(report)
