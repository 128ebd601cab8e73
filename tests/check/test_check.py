"""`micrograd check` on a corpus of learner engines, each with exactly one classic mistake.

Every corpus engine is checked once (two at a time) in a module fixture; the tests read the
reports. The expected diagnoses come from the textbook's ten pitfalls and the bugs the
lecture shows on camera, not from the checker's own output.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import os
import re
import subprocess
import sys
import types
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import require_module

from micrograd.check import CATALOG, check_engine, explain, render_junit, render_text, run_check
from micrograd.check.report import SCHEMA
from micrograd.check.static import static_findings

pytestmark = pytest.mark.checker  # each test checks an engine in the sandboxed subprocess

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
ROOT = HERE.parents[1]
SRC = ROOT / "src"


def _module_at(path: Path) -> types.ModuleType:
    """A module loaded from its file: the corpus folder is neither a package nor on sys.path."""
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_variants = _module_at(CORPUS / "make_variants.py")  # the corpus generator, for the drift test

# file -> the one diagnosis it must get, and whether the engine as a whole fails
ONE_BUG = {
    # textbook pitfalls (003: 踩坑清单), numbered as there
    "grad_overwritten": ("grad-overwritten", "fail"),                 # 1  = instead of +=
    "no_zero_grad": ("no-zero-grad", "fail"),                         # 2  grads never zeroed
    "zero_grad_broken": ("zero-grad-broken", "fail"),                 # 2  (Module.zero_grad)
    "bfs_topo": ("wrong-topo-order", "fail"),                         # 3  BFS order
    "forward_order": ("wrong-topo-order", "fail"),                    # 3  order not reversed
    "no_visited_set": ("node-visited-twice", "fail"),                 # 3  no visited set
    "set_order_topo": ("node-visited-twice", "fail"),                 # 3  only in some set orders
    "missing_radd": ("missing-radd", "missing"),                      # 4  not written yet
    "missing_rmul": ("missing-rmul", "missing"),                      # 4  (issue 20.4)
    "exponent_as_value": ("exponent-as-value", "fail"),               # 5
    "tanh_overflow": ("tanh-overflow", "limit"),                      # 6  the lecture's formula
    "zero_one_labels": ("labels-outside-tanh-range", "fail"),         # 6  tanh never reaches 1
    "tiny_h": ("h-too-small", "fail"),                                # 7  rounding error wins
    "rmul_returns_float": ("rmul-returns-float", "fail"),             # 8
    "no_seed": ("no-seed-gradient", "fail"),                          # 9
    "mutable_default": ("mutable-default-children", "fail"),          # 10
    # on camera in the lecture
    "backward_stored_none": ("backward-stored-none", "fail"),         # out._backward = _backward()
    "exp_grad_assigned": ("exp-grad-assigned", "fail"),               # = instead of += in exp
    # more
    "tanh_grad_assigned": ("grad-assigned:tanh", "fail"),
    "wrong_tanh_derivative": ("wrong-local-derivative:tanh", "fail"),
    "op_exception": ("exception-in-op:exp", "fail"),
    "infinite_recursion": ("infinite-recursion", "fail"),
    "number_not_wrapped": ("number-not-wrapped", "missing"),
    "backward_on_input": ("backward-on-wrong-node", "fail"),
    "neuron_forgets_bias": ("wrong-parameter-count", "fail"),
    "shared_neuron": ("shared-parameters", "fail"),                   # [Neuron(nin)] * nout
    "eq_without_hash": ("eq-without-hash", "fail"),
    # a file that cannot even be parsed
    "syntax_error": ("syntax-error", "error"),
    # top-level statements that fail: a WARN each, and the rest of the file runs (issue 12.3)
    "import_error": ("import-error", "warn"),
    "load_recursion": ("load-recursion", "warn"),
    "huge_allocation": ("load-memory", "warn"),
}
# engines that are only a class holding a number (the file's point is its top level)
STUB_ENGINES = {"import_error", "load_recursion", "huge_allocation", "toplevel_loop"}
SLOW_FILES = {"toplevel_loop": ("statement-slow", "warn"),
              "endless_loop": ("probe-timeout", "error")}
# the line each finding must point at: (file, regex of that line in the file)
LINES = {
    "syntax_error": r"def __add__\(self, other\)$",
    "import_error": r"from my_course_helpers import",
    "load_recursion": r"return 1 \+ count_nodes",
    "huge_allocation": r"cache = \[0.0\]",
    "backward_stored_none": r"^\s+out._backward = _backward\(\)",
    "no_zero_grad": r"for step in range",
    "tiny_h": r"def numerical_grad",
    "exp_grad_assigned": r"self.grad = out.data \* out.grad",
    "op_exception": r"math.exp\(self\)",
}


def _check(name: str):
    timeout, probe_timeout = (4.0, 0.5) if name in SLOW_FILES else (30.0, 2.0)
    return name, check_engine(CORPUS / f"{name}.py", timeout=timeout, probe_timeout=probe_timeout)


@pytest.fixture(scope="module")
def reports():
    names = list(ONE_BUG) + list(SLOW_FILES) + ["correct", "renamed_class", "recursive_topo",
                                                  "optional_imports"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(pool.map(_check, names))


def _line_of(name: str, pattern: str) -> int:
    for number, line in enumerate((CORPUS / f"{name}.py").read_text().splitlines(), start=1):
        if re.search(pattern, line):
            return number
    raise AssertionError(f"{pattern!r} not in {name}.py")


@pytest.mark.parametrize("name", list(ONE_BUG))
def test_each_one_bug_engine_gets_exactly_its_diagnosis(reports, name):
    diagnosis, status = ONE_BUG[name]
    report = reports[name]
    # a MISSING op (issue 20.4: not written yet) is named on its probe, not as a diagnosis;
    # a stub class (only __init__) can't be judged: never a PASS (issue 20.3)
    stub = ["too-little-checked"] if name in STUB_ENGINES else []
    assert report.diagnoses == ([] if status == "missing" else [diagnosis]) + stub, \
        render_text(report)
    assert report.ok is (status in ("warn", "limit", "missing") and not stub)  # limits: exit 0
    assert any(p.status == status and p.diagnosis == diagnosis for p in report.probes)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(SLOW_FILES))
def test_endless_loops_are_reported_not_hung(reports, name):
    diagnosis, status = SLOW_FILES[name]
    report = reports[name]
    assert diagnosis in report.diagnoses
    assert report.ok is (status == "warn" and name not in STUB_ENGINES)
    assert any(p.status == status and p.diagnosis == diagnosis for p in report.probes)


def test_endless_loop_in_backward_stops_after_two_timeouts_and_keeps_results(reports):
    report = reports["endless_loop"]
    statuses = [p.status for p in report.probes]
    assert statuses.count("error") == 2  # two probe timeouts, then the rest are not run
    assert "skipped" in statuses and report.by_id("construct").status == "pass"
    loop = _line_of("endless_loop", r"while node._prev")
    assert report.by_id("seed-gradient").line in (loop, loop + 1)  # the loop or its body


@pytest.mark.parametrize("name", list(LINES))
def test_findings_point_at_the_learners_line(reports, name):
    report = reports[name]
    first = next(p for p in report.probes if p.status in ("fail", "error", "warn"))
    assert first.line == _line_of(name, LINES[name]), render_text(report)


def test_toplevel_endless_loop_points_into_the_loop(reports):
    # the loop is stopped as a statement (a WARN) and the class after it is checked (12.3)
    loop = _line_of("toplevel_loop", r"while loss > 0")
    assert reports["toplevel_loop"].by_id(f"line-{loop}").status == "warn"
    line = reports["toplevel_loop"].by_id(f"line-{loop}").line
    assert line in (_line_of("toplevel_loop", r"while loss > 0"),
                    _line_of("toplevel_loop", r"step \+= 1"))


def test_correct_engine_passes_every_probe_including_its_nn(reports):
    report = reports["correct"]
    assert [p.id for p in report.probes if p.status != "pass"] == []
    ids = {p.id for p in report.probes}
    assert {"nn-parameter-count", "nn-forward", "nn-training-step", "nn-zero-grad",
            "chain-2000", "diamond", "micrograd-readme", "lecture-neuron"} <= ids
    assert len(report.probes) >= 50


def test_a_layer_that_repeats_one_neuron_object_is_named(reports):
    probe = reports["shared_neuron"].by_id("nn-parameter-count")
    # MLP(3, [4, 4, 1]) with one Neuron per layer: 41 entries, (3+1) + (4+1) + (4+1) = 14 objects
    assert probe.got == {"parameters": 41, "distinct_objects": 14}
    assert probe.expected == {"parameters": 41, "distinct_objects": 41}
    assert "layers[0].neurons holds 4 entries but only 1 distinct" in probe.detail
    text = render_text(reports["shared_neuron"])
    assert "fix: self.neurons = [Neuron(nin) for _ in range(nout)]" in text


def test_lecture_recursive_topological_sort_is_named_as_the_lectures_limits(reports):
    # issue 2: micrograd 0.1.0 "fails past ~990" ops and gives a stale result on a second
    # backward(); the lecture's engine does both, so a faithful copy of it gets both named --
    # as LIMITs (issue 12.1): the lecture's design, not the learner's bug
    report = reports["recursive_topo"]
    assert report.ok and report.diagnoses == ["recursion-limit", "stale-intermediate-grads"]
    assert report.verdict == "limits-only" and not report.passes(strict=True)
    assert report.by_id("chain-2000").status == "limit"
    assert [p.id for p in report.probes if p.status == "limit"] == ["chain-2000",
                                                                    "backward-same-graph-twice"]


def test_class_found_without_the_name_value(reports):
    report = reports["renamed_class"]
    assert report.class_name == "Scalar" and report.ok


def test_class_named_on_the_command_line():
    report = check_engine(f"{CORPUS / 'correct.py'}:Module")  # not an engine: probes fail
    assert report.class_name == "Module" and not report.ok
    with pytest.raises(ValueError, match="no such file"):
        check_engine(CORPUS / "does_not_exist.py")
    with pytest.raises(ValueError, match=r"expected a \.py file or a \.ipynb notebook"):
        check_engine(CORPUS / "README.md")


def test_required_ops_that_are_missing_fail():
    path = CORPUS / "optional_imports.py"  # has + * tanh only
    report = check_engine(path, require="exp,tanh")
    assert not report.ok and report.by_id("exp").status == "fail"
    assert report.by_id("sub").status == "missing" and report.by_id("tanh").status == "pass"
    with pytest.raises(ValueError, match="unknown op 'expo'"):
        check_engine(path, require=["expo"])


def test_a_missing_module_is_a_warning_with_pythons_own_error_and_the_rest_runs(reports):
    # issue 12.3: no stub modules; a missing module is reported as missing, as Python says it
    report = reports["optional_imports"]
    line = _line_of("optional_imports", r"^import seaborn as sns")
    missing = report.by_id(f"line-{line}")
    assert (missing.status, missing.diagnosis, missing.line) == ("warn", "import-error", line)
    assert missing.detail == "ModuleNotFoundError: No module named 'seaborn'"
    # the next statement that uses it fails as plain Python would make it fail
    use = report.by_id(f"line-{_line_of('optional_imports', r'^sns.set_theme')}")
    assert use.detail == "NameError: name 'sns' is not defined"
    assert report.stubbed_modules == []
    assert report.by_id("exp").status == "missing" and report.by_id("sub").status == "missing"
    assert report.ok  # only warnings and missing ops
    assert "building the engine" in report.stdout  # the learner's prints are captured


def test_an_installed_package_is_loaded_for_real_and_not_reported_as_stubbed():
    """numpy imports an optional internal submodule; only a missing top-level package is stubbed."""
    require_module("numpy")
    report = check_engine(CORPUS / "uses_numpy.py")  # its top level asserts numpy computes
    assert report.by_id("load").status == "pass", render_text(report)
    assert report.stubbed_modules == [] and report.ok
    assert "stub" not in render_text(report)


def test_our_engine_passes_every_probe():
    report = check_engine(SRC / "micrograd" / "engine.py")
    assert [(p.id, p.status, p.diagnosis) for p in report.probes if p.status != "pass"] == []


def test_our_nn_passes_every_probe_including_the_training_step():
    report = check_engine(SRC / "micrograd" / "nn.py")  # ReLU hidden layers, linear output
    assert [(p.id, p.status, p.diagnosis) for p in report.probes if p.status != "pass"] == []
    assert "hidden=relu, output=linear" in report.by_id("nn-forward").detail
    assert report.by_id("nn-training-step").status == "pass"


def test_learner_code_never_runs_in_the_checkers_process(tmp_path):
    engine = tmp_path / "marks.py"
    engine.write_text((CORPUS / "correct.py").read_text() + "\nimport builtins\n"
                      "builtins.MICROGRAD_CHECK_RAN_HERE = True\n")
    report = check_engine(engine)
    assert report.ok and not hasattr(builtins, "MICROGRAD_CHECK_RAN_HERE")


def test_total_timeout_kills_the_sandbox_and_reports_what_completed():
    report = check_engine(CORPUS / "endless_loop.py", timeout=1.5, probe_timeout=30.0)
    assert report.by_id("load").status == "pass"
    stuck = [p for p in report.probes if p.status == "error"]
    assert [p.diagnosis for p in stuck] == ["total-timeout"] and stuck[0].id == "seed-gradient"
    assert report.by_id("add").status == "skipped"


def test_every_emitted_diagnosis_has_a_written_explanation(reports):
    for report in reports.values():
        for diag in report.diagnoses:
            entry = explain(diag)
            assert entry.explanation != "The probe failed." and entry.fix, diag


def test_no_diagnosis_points_at_a_line_it_may_not_have():
    """Issue 12 item 7: a probe's line can be missing (an error raised outside the learner's
    file), so no text may lean on 'the line shown'; every fix says what to look for."""
    for diag, entry in CATALOG.items():
        for text in (entry.explanation, entry.example, entry.fix):
            assert "line shown" not in text and "call shown" not in text, (diag, text)
        assert not entry.fix.startswith("see "), (diag, entry.fix)  # a pointer, not a fix
    for op in ("exp", "softmax", "sum"):  # ops without a formula of micrograd.engine's too
        assert not explain(f"wrong-local-derivative:{op}").fix.startswith("see "), op
    # an op that raised in its forward pass: the fix is about the forward, not the derivative
    assert explain("exception-in-op:exp").fix == explain("exception-in-op").fix
    assert "out.grad" not in explain("exception-in-op:exp").fix


def test_a_class_statement_that_raised_is_named_by_its_line(tmp_path):
    body = "# the engine\nclass Value:\n    scale = undefined_name\n"
    script = tmp_path / "engine.py"
    script.write_text("import math\n" + body)
    found = check_engine(script).by_id("find-class")
    assert (found.diagnosis, found.line) == ("class-not-found", 3)
    assert found.detail.endswith("; the class statement at line 3 raised"), found.detail
    notebook = tmp_path / "engine.ipynb"  # cell 1 is markdown: the class is cell 3, line 2
    notebook.write_text(_notebook(["import math\n", body]))
    found = check_engine(notebook).by_id("find-class")
    assert (found.diagnosis, found.line) == ("class-not-found", "cell 3, line 2")
    assert found.detail.endswith("; the class statement at cell 3, line 2 raised"), found.detail


def test_warnings_are_only_the_advisory_diagnoses_and_failures_never_are(reports):
    """The exit code ignores WARN, so a WARN must never hide a bug (README: exit code)."""
    # a failing top-level statement is a note too, since issue 12.3 (load like a notebook)
    advisory = {"nn-not-probed", "notebook-cell-raised", "notebook-cell-slow",
                "load-exception", "statement-slow", "import-error", "load-recursion",
                "load-memory", "annotation-name-error", "files-not-copied"}
    assert {d for d, e in CATALOG.items() if "advisory" in e.pitfall} == advisory
    for report in reports.values():  # the one-bug engines: every finding about them FAILs
        for probe in report.probes:
            if probe.status == "warn":
                assert probe.diagnosis in advisory, (probe.id, probe.diagnosis)
            elif probe.status == "fail":
                assert probe.diagnosis not in advisory, (probe.id, probe.diagnosis)


def test_an_engine_with_three_mistakes_gets_three_diagnoses(tmp_path):
    text = (CORPUS / "correct.py").read_text()
    for name in ("grad_overwritten", "missing_radd", "tanh_overflow"):
        for old, new in make_variants.VARIANTS[name][1]:
            assert text.count(old) == 1
            text = text.replace(old, new)
    engine = tmp_path / "three.py"
    engine.write_text(text)
    report = check_engine(engine)
    assert set(report.diagnoses) == {"grad-overwritten", "tanh-overflow"}
    assert report.by_id("radd").status == "missing"  # not written yet (issue 20.4)


def test_corpus_files_are_up_to_date():
    correct = (CORPUS / "correct.py").read_text()
    for name in make_variants.VARIANTS:
        want = make_variants.variant_text(correct, name)
        assert (CORPUS / f"{name}.py").read_text() == want, name


# --- notebooks ----------------------------------------------------------------------------

def _notebook(cells: list[str]) -> str:
    return json.dumps({"cells": [{"cell_type": "markdown", "source": ["# my micrograd"]}] + [
        {"cell_type": "code", "source": text.splitlines(keepends=True), "metadata": {},
         "outputs": [], "execution_count": None} for text in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_notebook_code_cells_are_checked(tmp_path):
    source = (CORPUS / "correct.py").read_text()
    engine, _, rest = source.partition("class Module:")
    path = tmp_path / "homework.ipynb"
    path.write_text(_notebook(["%matplotlib inline\n!pip list\n" + engine, "class Module:" + rest]))
    report = check_engine(path)
    assert report.ok and report.class_name == "Value"


def test_script_exported_from_a_notebook_runs_its_magics_harmlessly(tmp_path):
    engine = tmp_path / "exported.py"
    engine.write_text("get_ipython().run_line_magic('matplotlib', 'inline')\n"
                      + (CORPUS / "correct.py").read_text() + "\ndisplay(Value(1.0))\n")
    assert check_engine(engine).ok


def test_notebook_error_lines_name_the_cell(tmp_path):
    path = tmp_path / "broken.ipynb"
    path.write_text(_notebook(["import math\n", "x = 1\nclass Value\n    pass\n"]))
    report = check_engine(path)
    cell = report.by_id("cell-3")  # cell 1 is the markdown cell
    assert (cell.status, cell.diagnosis, cell.line) == ("warn", "notebook-cell-raised",
                                                        "cell 3, line 2")
    assert "SyntaxError" in cell.detail
    assert report.by_id("find-class").diagnosis == "class-not-found" and not report.ok


def test_a_notebook_cell_that_trains_too_long_is_stopped_and_the_next_cells_run(tmp_path):
    source = (CORPUS / "correct.py").read_text()
    engine, _, rest = source.partition("class Module:")
    training = "steps = 0\nwhile True:  # a long training loop\n    steps += 1\n"
    path = tmp_path / "homework.ipynb"
    path.write_text(_notebook([engine, training, "class Module:" + rest]))
    report = check_engine(path, timeout=8.0)  # load time 4.8 s: a cell may take 1.2 s
    cell = report.by_id("cell-3")
    assert (cell.status, cell.diagnosis) == ("warn", "notebook-cell-slow")
    assert cell.detail == "stopped after 1 s"
    assert isinstance(cell.line, str) and cell.line.startswith("cell 3, line ")
    assert report.by_id("load").status == "pass"
    assert report.by_id("nn-parameter-count").status == "pass"  # cell 4 ran after it
    assert report.ok


def test_notebook_runs_cell_by_cell_past_a_cell_that_raises_on_purpose():
    """The lecture's order: cell 3 shows `2 * a` raising TypeError; cell 4 adds __rmul__."""
    path = CORPUS / "lecture_notebook.ipynb"
    report = check_engine(path)
    cell = report.by_id("cell-3")
    assert (cell.status, cell.diagnosis, cell.line) == ("warn", "notebook-cell-raised",
                                                        "cell 3, line 2")
    assert cell.detail.startswith("TypeError: unsupported operand type(s) for *: 'int'")
    assert report.by_id("load").status == "pass"
    assert report.by_id("rmul-int").status == "pass"  # the class as cell 4 left it
    assert report.by_id("radd").status == "pass" and report.by_id("lecture-neuron").status == "pass"
    text = render_text(report)
    assert "at cell 3, line 2 of" in text and "at line cell" not in text
    assert "cell 2, line 41 in build_topo" in text  # traceback frames are placed in cells too
    assert "__name__" not in text


def test_a_syntax_error_in_one_cell_leaves_the_others_running(tmp_path):
    source = (CORPUS / "correct.py").read_text()
    path = tmp_path / "homework.ipynb"
    path.write_text(_notebook([source, "print('oops'\n", "a = Value(2.0)\nb = a * 3\n"]))
    report = check_engine(path)
    assert report.by_id("cell-3").line == "cell 3, line 1"
    assert report.by_id("cell-3").detail == "SyntaxError: '(' was never closed"
    assert [p.id for p in report.probes if p.status != "pass"] == ["cell-3"]


# --- output formats -----------------------------------------------------------------------

def test_json_schema_is_stable(reports):
    data = json.loads(reports["grad_overwritten"].to_json())
    assert data["schema"] == SCHEMA == "micrograd-check/1"
    assert set(data) == {"schema", "path", "class", "class_found", "ok", "verdict", "api",
                         "counts", "diagnoses", "probes", "stubbed_modules", "learner_output",
                         "seconds"}
    assert data["verdict"] == "fail"
    assert data["api"] == {"class": "Value", "backward": {"kind": "method", "name": "backward"},
                           "data": "data", "grad": "grad"}
    assert set(data["counts"]) == {"pass", "fail", "error", "limit", "warn", "missing",
                                   "skipped"}
    probe = next(p for p in data["probes"] if p["id"] == "reuse-add")
    assert set(probe) == {"id", "group", "status", "expression", "got", "expected", "detail",
                          "line", "where", "consequence_of", "diagnosis"}
    assert set(probe["diagnosis"]) == {"id", "title", "explanation", "example", "fix", "pitfall"}
    assert probe["got"]["grads"]["a"] == 1.0 and probe["expected"]["grads"]["a"] == 2.0
    assert data["diagnoses"][0]["id"] == "grad-overwritten" and data["ok"] is False


def test_junit_xml_has_one_testcase_per_probe(reports):
    report = reports["grad_overwritten"]
    root = ET.fromstring(render_junit(report))
    suite = root.find("testsuite")
    assert suite is not None
    cases = suite.findall("testcase")
    assert len(cases) == len(report.probes)
    failures = [f for f in (c.find("failure") for c in cases) if f is not None]
    assert len(failures) == int(suite.get("failures", "")) == report.counts["fail"] > 0
    assert all(f.get("type") == "grad-overwritten" for f in failures)
    assert "+=" in (failures[0].text or "")
    assert int(suite.get("skipped", "")) == report.counts["missing"] + report.counts["skipped"]


def test_cli_exit_codes_json_and_junit(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    junit = tmp_path / "report.xml"
    cli = [sys.executable, "-m", "micrograd.cli", "check"]
    buggy = subprocess.run(cli + [str(CORPUS / "no_seed.py"), "--json", "--junit", str(junit)],
                           capture_output=True, text=True, env=env, timeout=120)
    assert buggy.returncode == 1, buggy.stderr
    assert json.loads(buggy.stdout)["diagnoses"][0]["id"] == "no-seed-gradient"
    assert ET.parse(junit).getroot().tag == "testsuites"
    good = subprocess.run(cli + [str(CORPUS / "correct.py")], capture_output=True, text=True,
                          env=env, timeout=120)
    assert good.returncode == 0 and "\033[" not in good.stdout  # no colour when piped
    assert re.search(r"\d+ passed, 0 failed", good.stdout)
    missing = subprocess.run(cli + [str(tmp_path / "nope.py")], capture_output=True, text=True,
                             env=env, timeout=120)
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_text_report_explains_and_shows_the_fix(reports, capsys):
    text = render_text(reports["backward_stored_none"])
    assert "FAIL backward-stored-none" in text
    assert "fix: out._backward = _backward      # no parentheses" in text
    assert "'NoneType' object is not callable" in text
    coloured = render_text(reports["backward_stored_none"], colour=True)
    assert "\033[31m" in coloured and "\033[" not in text


def test_run_check_writes_junit_and_returns_exit_code(tmp_path, capsys):
    junit = tmp_path / "out.xml"
    assert run_check(str(CORPUS / "mutable_default.py"), junit=str(junit)) == 1
    assert "mutable-default-children" in capsys.readouterr().out
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "1"


# --- source checks (ast only) -------------------------------------------------------------

LOOP = """
for k in range(10):
    loss = model(x)
{reset}    loss.backward()
    for p in params:
        p.data -= 0.1 * p.grad
"""


@pytest.mark.parametrize("reset, flagged", [
    ("", True),
    ("    for p in params:\n        p.grad = 0.0\n", False),
    ("    model.zero_grad()\n", False),
    ("    reset(params)\n", False),
])
def test_training_loop_without_reset_is_found(reset, flagged):
    helper = "def reset(ps):\n    for p in ps:\n        p.grad = 0\n"
    findings = static_findings(helper + LOOP.format(reset=reset))
    assert any(f.diagnosis == "no-zero-grad" for f in findings) is flagged


def test_backward_that_resets_inner_nodes_does_not_count_as_zeroing():
    source = ("class V:\n    def backward(self):\n        for v in topo:\n            v.grad = 0\n"
              "        for v in reversed(topo):\n            v._backward()\n"
              + LOOP.format(reset=""))
    assert [f.diagnosis for f in static_findings(source)] == ["no-zero-grad"]


@pytest.mark.parametrize("source, flagged", [
    ("def numerical_grad(f, x, h=1e-10):\n    return (f(x + h) - f(x - h)) / (2 * h)\n", True),
    ("h = 1e-10\nslope = (f(x + h) - f(x)) / h\n", True),
    # defaults of positional-only parameters line up with those parameters too
    ("def numerical_grad(f, x, h=1e-10, /):\n    return (f(x + h) - f(x - h)) / (2 * h)\n", True),
    ("def slope(f, h=1e-10, /, x=1.0):\n    return (f(x + h) - f(x - h)) / (2 * h)\n", True),
    ("h = 1e-5\nslope = (f(x + h) - f(x)) / h\n", False),
    # an epsilon that keeps log() finite, and Adam's, are not difference-quotient steps
    ("eps = 1e-12\ndef bce(p):\n    return -math.log(p + eps)\n", False),
    ("eps = 1e-10\nw = w - lr * m / (v ** 0.5 + eps)\n", False),
])
def test_tiny_step_is_flagged_only_as_the_step_of_a_difference_quotient(source, flagged):
    found = [f for f in static_findings(source) if f.diagnosis == "h-too-small"]
    assert bool(found) is flagged
    assert all(f.status == "fail" for f in found)


ENGINE_WITH_TANH = "class Value:\n    def tanh(self):\n        return self\n"


@pytest.mark.parametrize("model, flagged", [
    ("", False),  # the engine offers tanh, but nothing uses it as the output
    ("def neuron(x):\n    return (x * w + b).tanh()\n", True),
])
def test_zero_one_labels_need_a_model_that_calls_tanh(model, flagged):
    found = static_findings(ENGINE_WITH_TANH + model + "ys = [0, 1, 1, 0]\n")
    assert [f.diagnosis for f in found] == (["labels-outside-tanh-range"] if flagged else [])


def test_zero_one_labels_with_a_linear_output_mlp_are_fine(tmp_path):
    """micrograd 0.1.0's MLP: tanh hidden layers (here), linear output: 0/1 is within reach."""
    text = (CORPUS / "zero_one_labels.py").read_text()
    for old, new in [("    def __init__(self, nin):\n        self.w",
                      "    def __init__(self, nin, nonlin=True):\n        self.nonlin = nonlin\n"
                      "        self.w"),
                     ("        return act.tanh()\n",
                      "        return act.tanh() if self.nonlin else act\n"),
                     ("    def __init__(self, nin, nout):\n        self.neurons = [Neuron(nin) ",
                      "    def __init__(self, nin, nout, nonlin=True):\n"
                      "        self.neurons = [Neuron(nin, nonlin) "),
                     ("Layer(sizes[i], sizes[i + 1])",
                      "Layer(sizes[i], sizes[i + 1], i != len(nouts) - 1)")]:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    engine = tmp_path / "linear_output.py"
    engine.write_text(text)
    report = check_engine(engine)
    assert "output=linear" in report.by_id("nn-forward").detail
    labels = report.by_id("source-labels")
    assert labels.status == "pass" and "output layer is linear" in labels.detail
    assert report.ok, render_text(report)


def test_exit_status_is_documented_in_help():
    env = dict(os.environ, PYTHONPATH=str(SRC))
    help_text = subprocess.run([sys.executable, "-m", "micrograd.cli", "check", "--help"],
                               capture_output=True, text=True, env=env, timeout=60).stdout
    assert "0  no probe failed or errored (LIMIT, WARN and MISSING are allowed)" in help_text
    assert "with --strict, also a LIMIT" in help_text
    assert "1  at least one probe FAILED" in help_text
    readme = (ROOT / "docs" / "check-your-engine.md").read_text()
    assert "The exit code is 0 only when every probe of the engine passed" in readme


def test_the_lecture_engines_limits_give_exit_code_0_unless_strict(capsys, tmp_path):
    assert run_check(str(CORPUS / "recursive_topo.py")) == 0  # recursion-limit, stale grads
    out = capsys.readouterr().out
    assert "LIMIT recursion-limit" in out and "verdict: LIMITS ONLY" in out
    assert run_check(str(CORPUS / "recursive_topo.py"), strict=True) == 1
    capsys.readouterr()
    notebook = tmp_path / "homework.ipynb"  # a correct engine, then a cell that raises
    notebook.write_text(_notebook([(CORPUS / "correct.py").read_text(), "2 * undefined\n"]))
    report = check_engine(notebook)
    assert report.by_id("cell-3").status == "warn" and report.ok  # a note, not a failure
    assert run_check(str(notebook)) == 0


@pytest.mark.parametrize("name", ["tiny_h", "zero_one_labels"])
def test_textbook_pitfalls_6_and_7_give_exit_code_1(name, capsys):
    assert run_check(str(CORPUS / f"{name}.py")) == 1
    assert f"FAIL {ONE_BUG[name][0]}" in capsys.readouterr().out


@pytest.mark.slow
def test_micrograd_010_is_named_only_where_issue_2_says_it_breaks(mg010):
    """The original micrograd: a recursive topo sort and stale gradients on a second
    backward() (the breakages issue 2 names; LIMITs since issue 12.1: exit 0 and named),
    no exp/log/tanh (missing)."""
    report = check_engine(mg010.path / "micrograd" / "nn.py")
    assert report.ok and report.verdict == "limits-only"
    assert report.diagnoses == ["recursion-limit", "stale-intermediate-grads"]
    assert report.counts["limit"] == 2 and report.counts["fail"] == 0
    assert report.counts["warn"] == 0, render_text(report)
    assert report.by_id("tanh").status == "missing"
    assert report.by_id("nn-training-step").status == "pass"


@pytest.mark.parametrize("prelude, diagnosis, line", [
    # a statement that raises is a WARN and the rest runs, as in a notebook (issue 12.3)
    ("import sys\nsys.exit(3)\n", "load-exception", 2),
    ("name = input('your name? ')\n", "load-exception", 1),
    ("import os\nos._exit(0)\n", "child-crashed", None),
    ("import signal\nsignal.signal(signal.SIGALRM, signal.SIG_IGN)\n", None, None),
    ("import threading, time\nthreading.Thread(target=time.sleep, args=(60,)).start()\n",
     None, None),
])
def test_hostile_top_level_code_is_contained(tmp_path, prelude, diagnosis, line):
    engine = tmp_path / "hostile.py"
    engine.write_text(prelude + (CORPUS / "correct.py").read_text())
    report = check_engine(engine, timeout=20.0)
    if diagnosis is None:
        assert report.ok, render_text(report)
    elif diagnosis == "load-exception":
        statement = report.by_id(f"line-{line}")
        assert (statement.status, statement.diagnosis) == ("warn", diagnosis)
        assert report.ok, render_text(report)
    else:
        load = report.by_id("load")
        assert (load.status, load.diagnosis, load.line) == ("error", diagnosis, line)


def test_a_top_level_call_that_raises_inside_a_function_points_at_the_call(tmp_path):
    """The probe names the statement (`line-N`, "run the statement at line N") and its fix
    says to fix that statement, so its line is the call's; the line inside the function
    that raised is in the traceback frames."""
    engine = tmp_path / "demo.py"
    source = (CORPUS / "correct.py").read_text() + (
        "\n\ndef demo():\n    return plt.plot([1.0])\n\n\ndemo()\n")
    engine.write_text(source)
    lines = source.splitlines()
    call, inside = lines.index("demo()") + 1, lines.index("    return plt.plot([1.0])") + 1
    statement = check_engine(engine).by_id(f"line-{call}")
    assert (statement.status, statement.diagnosis, statement.line) == (
        "warn", "load-exception", call)
    assert statement.detail == "NameError: name 'plt' is not defined"
    assert f"line {inside} in demo: return plt.plot([1.0])" in statement.where


def test_a_set_order_bug_gets_the_same_report_in_20_runs():
    """Issue 12.4: the sort expands a node twice only when the _prev set happens to be
    iterated in one of its two orders; graph probes run on many fresh graphs, so every run
    names it (before, 13 of 20 runs said nothing)."""
    reports = [check_engine(CORPUS / "set_order_topo.py") for _ in range(20)]
    verdicts = {tuple((p.id, p.status, p.diagnosis, p.consequence_of) for p in r.probes)
                for r in reports}
    assert len(verdicts) == 1
    assert reports[0].diagnoses == ["node-visited-twice"]
    assert reports[0].by_id("diamond").status == "fail"


@pytest.mark.skipif(sys.version_info >= (3, 14), reason="from 3.14 annotations are read lazily")
def test_an_annotation_naming_the_class_inside_it_gets_the_future_import_advice(tmp_path):
    text = (CORPUS / "correct.py").read_text().replace(
        "    def __add__(self, other):", "    def __add__(self, other: Value) -> Value:")
    engine = tmp_path / "annotated.py"
    engine.write_text(text)
    report = check_engine(engine)
    line = next(n for n, t in enumerate(text.splitlines(), 1) if "other: Value" in t)
    warning = next(p for p in report.probes if p.diagnosis == "annotation-name-error")
    assert warning.status == "warn" and warning.line == line
    assert warning.detail == "NameError: name 'Value' is not defined"
    assert "from __future__ import annotations" in explain("annotation-name-error").fix
    # with the advice taken, the class loads and every engine probe passes
    engine.write_text("from __future__ import annotations\n" + text)
    fixed = check_engine(engine)
    assert fixed.ok and fixed.by_id("add").status == "pass", render_text(fixed)
