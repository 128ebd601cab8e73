"""`check_engine`: read the file, start the child, ask it probe by probe, judge each report.
(The `micrograd check` command around it -- printing, exit codes, signals -- is command.py.)

The parent never imports the learner's code. It reads the file (as Python would), scans it
with `ast`, copies it into a scratch folder, starts `child.py` there under hard limits, and
sends one request per probe; every verdict is made here from the child's observations.
"""

from __future__ import annotations

import ast
import contextlib
import math
import re
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from micrograd.check import mlp, tensor
from micrograd.check.childlib import BACKWARD_NAMES, python_lines
from micrograd.check.probes import CAPABILITY, OPS, Probe, engine_probes, structural_probes
from micrograd.check.report import LIMITS, ProbeResult, Report
from micrograd.check.sandbox import ChildGone, Limits, Sandbox, Untrusted
from micrograd.check.source import Learner, copy_into, parse_for_checks, read_learner
from micrograd.check.static import Finding, ScanTimeout, static_findings
from micrograd.check.verdicts import (
    Engine,
    Helper,
    follows_from,
    from_exception,
    judge,
    limit_line,
    missing_result,
    proven_causes,
)

START_SECONDS = 10.0   # the child's interpreter start (imports only the standard library)
GRACE = 2.0            # beyond the child's own alarm before the parent stops waiting
MAX_TIMEOUTS = 2       # an engine that hangs would hang every probe: stop after two
SCAN_SHARE = 0.25      # of --timeout, for the parent's own source scan
MOSTLY_MISSING = 0.8   # more MISSING probes than this share: the run can't be a PASS
MIN_PASSED = 3         # nor with fewer passing probes than this


def split_target(target: str) -> tuple[str, str | None]:
    """'engine.py:Scalar' -> ('engine.py', 'Scalar'); 'engine.py' -> ('engine.py', None)."""
    head, sep, tail = target.rpartition(":")
    if sep and tail.isidentifier() and head:
        return head, tail
    return target, None


def parse_required_ops(require: str | Sequence[str] | None) -> list[str]:
    """'exp,tanh' or ['exp', 'tanh'] -> ['exp', 'tanh'], checked against the probed ops."""
    if not require:
        return []
    names = [n.strip() for n in (require.split(",") if isinstance(require, str) else require)]
    unknown = [n for n in names if n not in OPS]
    if unknown:
        raise ValueError(f"--require: unknown op {', '.join(map(repr, unknown))}; "
                         f"expected a comma-separated list of: {', '.join(OPS)}")
    return names


def checked_seconds(name: str, value: float) -> float:
    """A time limit must be a finite number of seconds above 0 (inf, nan, 0, -1 are refused)."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number of seconds, got {value!r}") from None
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{name} must be a finite number of seconds above 0, got {value!r}")
    return seconds


def check_engine(path: str | Path, class_name: str | None = None, timeout: float = 20.0,
                 probe_timeout: float = 2.0, memory_mb: int = 1024,
                 require: str | Sequence[str] | None = None,
                 api: dict[str, str | None] | None = None) -> Report:
    """Run every probe on the Value-like class in `path` (a .py file or a .ipynb notebook).

    `timeout` bounds the whole check. Ops the engine lacks are 'missing', not failures,
    unless named in `require`. `api` overrides what is otherwise discovered: `backward`
    (a method name, or a module function taking the root), `data` and `grad` (attributes).
    """
    overrides = checked_api(api)
    started = time.monotonic()
    timeout = checked_seconds("timeout", timeout)
    probe_timeout = checked_seconds("probe timeout", probe_timeout)
    deadline = started + timeout
    if isinstance(memory_mb, bool) or not isinstance(memory_mb, int) or memory_mb < 64:
        raise ValueError(f"memory_mb must be a whole number of MiB, at least 64, got {memory_mb!r}")
    required = parse_required_ops(require)
    text_path = str(path)
    if class_name is None and not Path(text_path).exists():
        text_path, class_name = split_target(text_path)
    learner = read_learner(Path(text_path))
    try:
        scan_text, tree = parse_for_checks(learner)
    except SyntaxError as error:
        return _syntax_error_report(text_path, learner, error, started)
    source_probes = _scan(scan_text, tree, learner, started + SCAN_SHARE * timeout)

    with Sandbox(Limits(memory_mb=memory_mb, cpu_seconds=timeout)) as box:
        box.read_only = _read_only_folders(learner, box.folder)
        skipped: list[str] = []
        texts: dict[str, str] = {}
        target = copy_into(learner, box.work, tree if learner.cells is None else None, skipped,
                           texts)
        session = Session(box, learner, deadline, probe_timeout, overrides)
        session.other_files = texts
        session.engine_classes = engine_classes(tree)
        probes = session.run(target, class_name)
        if skipped:
            probes.insert(0, ProbeResult(
                "scratch-copy", "load", "warn", "copy the files next to it", "files-not-copied",
                detail=f"{len(skipped)} file(s) over the copy limits were not copied: "
                       + ", ".join(skipped[:10]) + (" ..." if len(skipped) > 10 else "")))
        stdout = box.learner_output()
        if box.ignored_forks:
            stdout += f"\n[{box.ignored_forks} report(s) from a forked copy were ignored]"
    report = Report(text_path, session.class_name, session.class_how, probes, stdout=stdout,
                    api=session.api)
    report.probes += source_probes
    _labels_against_the_mlp_output(report)
    for probe in report.probes:
        if learner.origin:  # a notebook: 'line 12' in details and frames -> 'cell 3, line 2'
            probe.line = learner.place(probe.line)
            probe.detail = _placed_text(probe.detail, learner)
            probe.where = [_placed_text(frame, learner) for frame in probe.where]
        if probe.status == "missing" and (probe.diagnosis or "")[len("missing-"):] in required:
            probe.status = "fail"  # a course can insist on ops: missing ones then fail
            probe.detail = f"required by --require; {probe.detail}"
    report.make_printable()
    report.seconds = time.monotonic() - started
    return report


def engine_classes(tree: Any) -> dict[str, int]:
    """Top-level classes of the file with arithmetic (`__add__`, `__mul__`, ...) and a
    backward-like method, by name -> line: read before the file runs, so its code can't
    change what they are."""
    found: dict[str, int] = {}
    for node in getattr(tree, "body", []):
        if not isinstance(node, ast.ClassDef):
            continue
        names = {item.name for item in node.body
                 if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if names & {"__add__", "__mul__", "__matmul__", "__sub__"} \
                and names & (set(BACKWARD_NAMES) | {"grad"}):
            found[node.name] = node.lineno
    return found


def _read_only_folders(learner: Learner, scratch: Path) -> list[str]:
    """The learner's folder (the package's for a file in one), mounted read-only for the child
    where it runs in its own namespace; not when the scratch folder lies inside it."""
    folder = (learner.package_root or learner.path.resolve().parent).resolve()
    scratch = scratch.resolve()
    return [] if scratch == folder or folder in scratch.parents else [str(folder)]


def checked_api(api: dict[str, str | None] | None) -> dict[str, str]:
    """--backward/--data/--grad: each a Python identifier (they are looked up, never run)."""
    chosen = {k: v for k, v in dict(api or {}).items() if v}
    for key, value in chosen.items():
        if key not in ("backward", "data", "grad"):
            raise ValueError(f"unknown API override {key!r}; expected backward, data or grad")
        name = value[len("call:"):] if key == "grad" and isinstance(value, str) \
            and value.startswith("call:") else value  # `v.grad()`: read by calling it
        if not isinstance(name, str) or not name.isidentifier():
            raise ValueError(f"--{key} must be a Python name (like {key}"
                             + (", or call:grad for a method" if key == "grad" else "")
                             + f"), got {value!r}")
    return chosen


class Session:
    """One conversation with the child: load, then one request per probe."""

    def __init__(self, box: Sandbox, learner: Learner, deadline: float, probe_timeout: float,
                 overrides: dict[str, str] | None = None):
        self.overrides = overrides or {}
        self.api: dict[str, Any] = {}
        self.one_hot = False  # a Tensor cross_entropy that takes one-hot targets
        self.box, self.learner = box, learner
        self.deadline, self.probe_timeout = deadline, probe_timeout
        self.class_name: str | None = None
        self.class_how = "the file was not loaded"
        self.results: list[ProbeResult] = []
        self.other_files: dict[str, str] = {}  # the learner's other .py files, as copied
        self.probe_ops: dict[str, str] = {}     # probe id -> the op it tests
        self.engine_classes: dict[str, int] = {}  # engine-like class statements, read by ast
        self.timeouts: list[str] = []
        self.stopped: str | None = None  # why no further probe can run

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def run(self, target: Path, class_name: str | None) -> list[ProbeResult]:
        try:
            self.box.start(max(0.1, min(START_SECONDS, self.remaining())))
        except (ChildGone, Untrusted) as error:
            self._stop("load", "load", f"the child process did not start: {error}")
            return self.results
        engine = self._load(target, class_name)
        if engine is None:
            return self.results
        if engine.kind == "tensor":
            for tensor_probe in tensor.in_order(tensor.tensor_probes(),
                                                lambda op: tensor.has(engine.methods, op)):
                self._tensor_probe(tensor_probe, engine)
            self._too_little_checked()
            self.box.drain()
            return self.results
        plan = structural_probes() + engine_probes(engine.has("tanh"), engine.has)
        self.probe_ops = {p.id: p.op for p in plan}
        for probe in plan:
            self._probe(probe, engine)
        if engine.has_mlp:
            self._nn(engine, [p.id for p in plan])
        self._too_little_checked()
        self.box.drain()
        for record in self.results:  # a second report for a probe: the run can't be trusted
            if record.id in self.box.spoiled:
                record.status, record.diagnosis = "error", "untrusted-report"
                record.detail = "the probe got more than one report (a forged or copied line)"
                record.consequence_of = None
        return self.results

    def _too_little_checked(self) -> None:
        """A run where most probes are MISSING is never a PASS: the class checked may not be
        the engine (a helper holding a number), or too little of it exists to judge."""
        probed = [r for r in self.results if r.group not in ("load", "source")]
        missing = sum(1 for r in probed if r.status == "missing")
        passed = sum(1 for r in probed if r.status == "pass")
        if probed and (missing > MOSTLY_MISSING * len(probed) or passed < MIN_PASSED) \
                and not any(r.status in ("fail", "error", "limit") for r in probed):
            self.results.append(ProbeResult(
                "coverage", "load", "error", "check enough of the engine", "too-little-checked",
                detail=f"{missing} of {len(probed)} probes are MISSING and {passed} passed: "
                       f"class {self.class_name} has too few ops to be judged; if it is not "
                       "your engine, name it (FILE:Class)"))

    # -- load --------------------------------------------------------------------------

    def _load(self, target: Path, class_name: str | None) -> Engine | None:
        load_seconds = max(1.0, 0.6 * self.remaining())
        request = {"do": "load", "path": str(target), "root": str(self.box.work),
                   "module_name": self.learner.module_name, "cells": self.learner.cells,
                   "class_name": class_name, "load_timeout": load_seconds,
                   "api": self.overrides,
                   "methods": [m for m in CAPABILITY.values() if not m.startswith("__")]}
        try:
            report = self.box.ask(request, min(load_seconds + GRACE, self.remaining()), "load")
            failures, info = list(report["failures"]), dict(report["class"])
            whole = next((f for f in failures if f.get("timeout") == "total"), None)
            for failure in failures:
                if failure is not whole:
                    self.results.append(self._load_warning(failure))
        except (Untrusted, KeyError, TypeError, ValueError, AttributeError) as error:
            why = str(error) if isinstance(error, Untrusted) else "a load report of the wrong shape"
            self.results.append(ProbeResult("load", "load", "error", "import the file",
                                            "untrusted-report",
                                            detail=f"the run could not be trusted: {why}"))
            self.stopped = "the check stopped before this probe (untrusted-report)"
            return None
        except ChildGone as error:
            self._stop("load", "load", str(error), error)
            return None
        load = ProbeResult("load", "load", "pass", "import the file")
        if whole is not None:
            stuck = dict(whole.get("error") or {})
            load = ProbeResult("load", "load", "error", "import the file", "load-timeout",
                               detail="running the file's top level used up the load time",
                               line=_line(stuck.get("line")), where=_texts(stuck.get("where")))
        self.results.append(load)
        self.class_name, self.class_how = info.get("name"), str(info.get("how", ""))
        where = self._class_statement(info)
        self.class_how += f" ({where})" if where else " (not defined in this file)"
        if where is None and class_name is None and self.class_name in self.engine_classes:
            # the file writes its own engine class of that name, yet the class found lives
            # elsewhere: made by exec, swapped in, or shadowed by an import of the same name
            own = ", ".join(f"class {n} ({self._where(line)})"
                            for n, line in self.engine_classes.items())
            self.results.append(ProbeResult(
                "find-class", "load", "error", "find the Value class", "untrusted-report",
                detail=f"the class the child used is not defined in the file, which defines "
                       f"{own}; name it with FILE:Class"))
            return None
        if not info.get("found"):
            raised = [line for line in map(self._class_line, failures) if line is not None]
            self.results.append(ProbeResult(  # a notebook's 'line N' becomes 'cell 3, line 2'
                "find-class", "load", "fail", "find the Value class", "class-not-found",
                detail=self.class_how + (f"; the class statement at line {raised[0]} raised"
                                         if raised else ""),
                line=raised[0] if raised else None))
            return None
        methods = {str(k): v for k, v in dict(info.get("methods", {})).items()}
        api = dict(info.get("api") or {})
        self.api = {k: api.get(k) for k in ("class", "backward", "data", "grad")}
        engine = Engine(name=str(self.class_name), methods=methods,
                        source_lines=python_lines(self.learner.text),
                        has_mlp=bool(info.get("mlp")), kind=str(api.get("kind", "scalar")),
                        grad_attr=str(info.get("grad_store") or api.get("grad") or "grad"))
        engine.elsewhere = self._helpers(info.get("helpers"))
        shadowed = info.get("shadowed")
        if isinstance(shadowed, str) and shadowed.isidentifier():
            self.results.append(self._shadowed(engine, shadowed))
        if api.get("backward") is None and any(engine.has(op) for op in OPS):
            self.results.append(ProbeResult(
                "find-backward", "load", "fail", "find the backward entry", "no-backward",
                detail=f"class {self.class_name} has no backward() (nor backprop(), "
                       "back_prop(), ...) and the file defines no backward function; name "
                       "yours with --backward NAME",
                line=(methods.get("__init__") or [None])[0]))
            return None
        return engine

    def _helpers(self, reported: Any) -> list[Helper]:
        """The functions backward() calls from the learner's other files (a topological sort
        in graph.py): their text comes from the copy made before the child ran."""
        helpers: list[Helper] = []
        for entry in reported if isinstance(reported, list) else []:
            try:
                file, first, last = str(entry[0]), int(entry[1]), int(entry[2])
            except (TypeError, ValueError, IndexError):
                continue
            text = self.other_files.get(file)
            if text is not None and 1 <= first <= last:
                helpers.append(Helper(file, first, last, python_lines(text)))
        return helpers

    def _shadowed(self, engine: Engine, name: str) -> ProbeResult:
        """`self.backward = ...` on each instance hides the class's backward() method: every
        `loss.backward()` runs the attribute instead. The probes call the class's method, so
        the bugs behind it still show; this names the line that hides it."""
        line = engine.line_in("__init__", rf"\bself\.{re.escape(name)}\s*=(?!=)") \
            or engine.line_in_class(rf"\.{re.escape(name)}\s*=(?!=)")
        return ProbeResult("backward-shadowed", "backward", "fail", f"root.{name}()",
                           "backward-shadowed", line=line,
                           detail=f"__init__ sets an instance attribute {name!r}, which hides "
                                  f"the method {name}() of class {engine.name}; the probes "
                                  "below call the method itself")

    def _load_warning(self, failure: dict[str, Any]) -> ProbeResult:
        """A top-level statement (or notebook cell) that raised or ran too long: a WARN."""
        unit, error = failure.get("unit"), failure.get("error") or {}
        notebook = self.learner.cells is not None
        pid = f"cell-{unit}" if notebook else f"line-{unit}"
        what = f"run notebook cell {unit}" if notebook else f"run the statement at line {unit}"
        types, message = list(error.get("types", [])), str(error.get("message", ""))
        line = error.get("line")
        if failure.get("timeout"):
            diagnosis = "notebook-cell-slow" if notebook else "statement-slow"
            detail = f"stopped after {float(failure.get('seconds', 0)):.0f} s"
        elif "ImportError" in types:
            diagnosis, detail = "import-error", message
        elif "RecursionError" in types:
            diagnosis, detail = "load-recursion", message
        elif "MemoryError" in types:
            diagnosis, detail = "load-memory", message
        elif "NameError" in types and self._annotation_line(line, message):
            diagnosis, detail = "annotation-name-error", message
        else:  # the statement the probe names, not where inside it (that is in `where`)
            diagnosis = "notebook-cell-raised" if notebook else "load-exception"
            detail = message
            line = error.get("statement", line)
        return ProbeResult(pid, "load", "warn", what, diagnosis, detail=detail,
                           line=_line(line), where=_texts(error.get("where")))

    def _class_statement(self, info: dict[str, Any]) -> str | None:
        """'line 12': the `class NAME` statement just above the class's methods in the
        learner's file (a class made elsewhere, by exec or imported, has none here)."""
        name, first = info.get("name"), info.get("first_line")
        if not isinstance(name, str) or not isinstance(first, int) or isinstance(first, bool):
            return None
        lines = python_lines(self.learner.text)
        pattern = re.compile(rf"\s*class\s+{re.escape(name)}\b")
        line = next((n for n in range(min(first, len(lines)), 0, -1)
                     if pattern.match(lines[n - 1])), None)
        return None if line is None else self._where(line)

    def _where(self, line: int) -> str:
        """'line 12', or 'cell 2, line 3' in a notebook."""
        placed = self.learner.place(line)
        return f"line {placed}" if isinstance(placed, int) else str(placed)

    def _class_line(self, failure: dict[str, Any]) -> int | None:
        """The line of the class statement in a unit that raised (a .py statement starting
        with `class`, or the first class statement of a notebook cell), else None."""
        unit, lines = failure.get("unit"), python_lines(self.learner.text)
        if not isinstance(unit, int) or isinstance(unit, bool):
            return None
        if self.learner.cells is None:
            span: Sequence[int] = [unit]
        else:
            span = next((range(first, last + 1) for number, first, last in self.learner.cells
                         if number == unit), [])
        return next((n for n in span
                     if 1 <= n <= len(lines) and lines[n - 1].lstrip().startswith("class ")),
                    None)

    def _annotation_line(self, line: Any, message: str) -> bool:
        """`other: Value` (or `-> Value`) on the line that raised NameError for Value."""
        found = re.search(r"name '(\w+)' is not defined", message)
        lines = python_lines(self.learner.text)
        if not found or not isinstance(line, int) or not 1 <= line <= len(lines):
            return False
        name = re.escape(found.group(1))
        return bool(re.search(rf"(:\s*|->\s*)['\"]?{name}\b", lines[line - 1]))

    # -- probes ------------------------------------------------------------------------

    def _probe(self, probe: Probe, engine: Engine) -> None:
        if self.stopped or len(self.timeouts) >= MAX_TIMEOUTS:
            detail = self.stopped or "not run: probes " + ", ".join(self.timeouts) + " timed out"
            self.results.append(ProbeResult(probe.id, probe.group if not self.stopped else
                                            "not-run", "skipped", probe.expression(), "not-run",
                                            detail=detail))
            return
        record = missing_result(probe, engine)
        if record is None:
            record = self._ask_and_judge(probe, engine)
        if record is None:
            return
        follows_from(record, proven_causes(probe, self.probe_ops, engine), engine.failed)
        if record.status == "fail" and record.diagnosis in LIMITS:
            record.status = "limit"  # the lecture's design does it too: shown, not a failure
            record.line = limit_line(engine, record.diagnosis) or record.line
        if "probe-timeout" in (record.diagnosis, record.own_diagnosis):
            self.timeouts.append(probe.id)
        self.results.append(record)

    def _ask_tensor(self, probe: tensor.TensorProbe, one_hot: bool) -> ProbeResult:
        report = self.box.ask(probe.request(self.probe_timeout, one_hot),
                              min(self.probe_timeout + GRACE, self.remaining()), probe.id)
        return tensor.judge_tensor(probe, report)

    def _tensor_probe(self, probe: tensor.TensorProbe, engine: Engine) -> None:
        """One numpy Tensor probe: missing ops are not probed; the rest as `_probe`."""
        if self.stopped or len(self.timeouts) >= MAX_TIMEOUTS:
            return
        usable = tensor.routed(probe, lambda op: tensor.has(engine.methods, op))
        if usable is None:  # an op the probe can't do without: not probed, never a FAIL
            lacking = [op for op in dict.fromkeys(probe.needs + tuple(tensor.step_ops(probe)))
                       if not tensor.has(engine.methods, op)]
            self.results.append(ProbeResult(probe.id, "tensor", "missing", probe.title,
                                            f"missing-{lacking[0]}",
                                            detail="the class has no " + ", ".join(lacking)))
            return
        probe = usable
        try:
            record = self._ask_tensor(probe, self.one_hot)
            if probe.op == "cross_entropy" and not self.one_hot and record.status == "fail" \
                    and record.detail.startswith(("forward raised", "the loss is")):
                retry = self._ask_tensor(probe, True)  # targets as one-hot rows instead?
                if retry.status == "pass":
                    record, self.one_hot = retry, True
                    record.detail = "cross_entropy takes one-hot targets"
        except Untrusted as error:
            record = ProbeResult(probe.id, "tensor", "error", probe.title, "untrusted-report",
                                 detail=f"the run could not be trusted: {error}")
        except ChildGone as error:
            self._stop(probe.id, "tensor", str(error), error)
            return
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            record = ProbeResult(probe.id, "tensor", "error", probe.title, "untrusted-report",
                                 detail=f"a report of the wrong shape ({type(error).__name__})")
        if probe.extra.get("seeded") and record.status == "fail" \
                and record.detail.startswith("backward raised") \
                and engine.in_method("backward", record.line):
            # backward() itself refuses a non-scalar root, and there is no .sum() to make one
            record.status, record.diagnosis = "missing", "missing-sum"
            record.detail = "backward() takes only a scalar loss and the class has no sum(); " \
                + record.detail
        if record.status == "fail" and record.diagnosis not in LIMITS:
            record.line = tensor.tensor_line(engine, record.diagnosis or "", probe.op) \
                or record.line
        after = probe.after + (tensor.SUM_AXIS if probe.op != "sum" and tensor.called_sum(record)
                               else ())
        follows_from(record, after, engine.failed)
        if record.status == "fail" and record.diagnosis in LIMITS:
            record.status = "limit"
            record.line = limit_line(engine, record.diagnosis) or record.line
        if "probe-timeout" in (record.diagnosis, record.own_diagnosis):
            self.timeouts.append(probe.id)
        self.results.append(record)

    def _ask_and_judge(self, probe: Probe, engine: Engine) -> ProbeResult | None:
        if probe.kind in ("construct", "signature"):
            request: dict[str, Any] = {"do": probe.kind, "timeout": self.probe_timeout}
        else:
            request = {"do": "probe", "program": probe.program, "points": probe.run_points(),
                       "walk": probe.walk, "backward_calls": probe.backward_calls,
                       "timeout": self.probe_timeout}
        try:
            report = self.box.ask(request, min(self.probe_timeout + GRACE, self.remaining()),
                                  probe.id)
        except Untrusted as error:
            return _untrusted(probe, str(error))
        except ChildGone as error:
            self._stop(probe.id, probe.group, str(error), error, probe)
            return None
        try:
            if isinstance(report.get("error"), dict) and "runs" not in report:
                return from_exception(ProbeResult(probe.id, probe.group, "pass",
                                                  probe.expression()),
                                      report["error"], probe, engine, "structure")
            return judge(probe, report, engine)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            return _untrusted(probe, f"a report of the wrong shape ({type(error).__name__})")

    def _nn(self, engine: Engine, engine_ids: list[str]) -> None:
        if self.stopped or self.timeouts:
            return
        request = dict(mlp.request(), timeout=max(self.probe_timeout * 3, 5.0))
        try:
            report = self.box.ask(request, min(request["timeout"] + GRACE, self.remaining()), "nn")
            results = mlp.judge_nn(report, engine)
        except Untrusted as error:
            results = [ProbeResult("nn-parameter-count", "nn", "error", "", "untrusted-report",
                                   detail=str(error))]
        except ChildGone as error:
            self._stop("nn", "nn", str(error), error)
            return
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
            results = [ProbeResult("nn-parameter-count", "nn", "error", "", "untrusted-report",
                                   detail=f"a report of the wrong shape ({type(error).__name__})")]
        engine_failures = tuple(i for i in engine_ids if i in engine.failed)
        for record in results:  # the nn is built on the engine: an engine failure explains it
            follows_from(record, engine_failures, engine.failed)
            self.results.append(record)

    def _stop(self, pid: str, group: str, why: str, error: Exception | None = None,
              probe: Probe | None = None) -> None:
        """The child can't go on (it died, hung, or the time is up): say which and why."""
        process = self.box.process
        if process is not None and self.remaining() > 0:
            # the channel closes a moment before the exit status is there
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=min(0.5, self.remaining()))
        if self.remaining() <= 0:
            diagnosis, detail = "total-timeout", "the whole check's time limit was reached"
        elif process is not None and process.poll() is not None:
            code = process.returncode
            diagnosis = "child-crashed"
            detail = f"the sandbox process exited with code {code}" + _signal_note(code)
        elif pid == "load":
            diagnosis = "load-timeout"
            detail = f"the file's top level gave no report in time ({why})"
        else:
            diagnosis, detail = "probe-timeout", f"no report in time ({why})"
        self.results.append(ProbeResult(pid, group, "error",
                                        probe.expression() if probe else f"probe {pid}",
                                        diagnosis, detail=detail))
        self.stopped = f"the check stopped before this probe ({diagnosis})"


def _line(value: Any) -> int | None:
    """A line number from a report (anything else is dropped)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _texts(value: Any) -> list[str]:
    return [str(item) for item in value] if isinstance(value, list) else []


def _signal_note(code: int | None) -> str:
    if code is None or code >= 0:
        return ""
    name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else str(-code)
    note = {"SIGKILL": " (killed: the CPU-time or memory limit?)",
            "SIGXCPU": " (the CPU-time limit)", "SIGXFSZ": " (the output limit)"}.get(name, "")
    return f" ({name}){note}"


def _untrusted(probe: Probe, why: str) -> ProbeResult:
    return ProbeResult(probe.id, probe.group, "error", probe.expression(), "untrusted-report",
                       detail=f"the run could not be trusted: {why}")


def _syntax_error_report(path: str, learner: Learner, error: SyntaxError,
                         started: float) -> Report:
    line = error.lineno
    probe = ProbeResult("load", "load", "error", "parse the file", "syntax-error",
                        detail=f"{type(error).__name__}: {error.msg}", line=learner.place(line),
                        where=[f"line {line}: {(error.text or '').strip()}"] if line else [])
    report = Report(path, None, "the file could not be parsed", [probe],
                    seconds=time.monotonic() - started)
    report.make_printable()
    return report


LINE_REFERENCE = re.compile(r"\bline (\d+)")


def _placed_text(text: str, learner: Learner) -> str:
    """'line 12 in __add__' -> 'cell 3, line 2 in __add__' for a notebook."""
    return LINE_REFERENCE.sub(lambda m: str(learner.place(int(m.group(1)))), text)


def _scan(text: str, tree: Any, learner: Learner, deadline: float) -> list[ProbeResult]:
    """The source checks, within their share of --timeout (an ERROR if they can't finish)."""
    try:
        return _source_probes(static_findings(text, deadline, tree), learner)
    except ScanTimeout:
        return [ProbeResult("source-scan", "source", "error", "scan the source with ast",
                            "total-timeout", detail="the source scan did not finish within its "
                            f"share ({SCAN_SHARE:.0%}) of --timeout; the file is very large")]


def _source_probes(findings: list[Finding], learner: Learner) -> list[ProbeResult]:
    """The ast checks as probes: one per kind, passing unless something was found."""
    kinds = [("source-zero-grad", "no-zero-grad",
              "every loop that calls backward() resets the grads first"),
             ("source-finite-difference-step", "h-too-small",
              "numerical-gradient step h is not below 1e-8"),
             ("source-labels", "labels-outside-tanh-range", "training labels suit a tanh output")]
    probes = []
    for pid, diagnosis, text in kinds:
        found = [f for f in findings if f.diagnosis == diagnosis]
        if not found:
            probes.append(ProbeResult(pid, "source", "pass", text))
            continue
        first = found[0]
        probes.append(ProbeResult(pid, "source", first.status, text, diagnosis,
                                  detail="; ".join(f.detail for f in found),
                                  line=first.line, got=first.code))
    return probes


def _labels_against_the_mlp_output(report: Report) -> None:
    """0/1 labels are a bug only with a tanh output: the nn probe saw which output the MLP has."""
    labels = next((p for p in report.probes if p.id == "source-labels"), None)
    output = mlp.output_layer(report.probes)
    if labels is None or labels.status != "fail" or output is None:
        return
    if output == "tanh":
        labels.detail += "; nn-forward: your MLP's output layer is tanh"
    else:
        labels.status, labels.diagnosis = "pass", None
        labels.detail = (f"0/1 labels, but your MLP's output layer is {output} "
                         "(nn-forward), which can reach them")
