"""`micrograd check --ninja`: the makemore part 4 exercise ("Becoming a Backprop Ninja"),
every manual gradient checked and every wrong one named, with its line and its fix.

    report = check_ninja_file("backprop.ipynb")     # a notebook or a .py script
    print(render_ninja_text(report))                # or report.to_json(), render_junit(report)

The learner's file runs in the engine checker's sandbox (`sandbox.Sandbox`, cell by cell,
with `ninja_child.py` as the child program and `import torch` on micrograd.torch); a
`Recorder` notes each `cmp` call and the tensors after each cell. The parent rebuilds every
gradient from the forward tensors of that run and names each wrong one by the hypothesis it
equals (`ninja_rules`, `ninja_judge`). In Jupyter, `%load_ext micrograd.torch` records the
same events in the kernel and `check_ninja()` judges them there (`ninja_notebook`).
"""

from __future__ import annotations

import base64
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

import micrograd
from micrograd.check.ninja_judge import judge, never_computed, observations
from micrograd.check.ninja_source import Program
from micrograd.check.report import ProbeResult, Report
from micrograd.check.sandbox import ChildGone, Limits, Sandbox, Untrusted
from micrograd.check.source import Learner, copy_into, parse_for_checks, read_learner

CHILD = Path(__file__).with_name("ninja_child.py")
TIMEOUT = 40.0          # seconds for the whole check; a cell gets a quarter of LOAD_SHARE
LOAD_SHARE = 0.6        # of the timeout, for running the file (exercise 4's loop is cut)
START_SECONDS = 10.0
BATCH_BYTES = 512 * 1024  # numbers asked from the child per request (base64 grows them)
DATA_SUFFIXES = (".txt", ".csv")  # the lecture reads names.txt from beside the notebook
MAX_DATA_BYTES = 8 * 1024 * 1024
SUBJECT = "makemore part 4: manual backprop (backprop ninja)"


def check_ninja_file(path: str | Path, timeout: float = TIMEOUT,
                     memory_mb: int = 2048) -> Report:
    """Run the learner's part-4 notebook or script in the sandbox and judge every gradient."""
    started = time.monotonic()
    if not timeout > 0:
        raise ValueError(f"timeout must be a number of seconds above 0, got {timeout!r}")
    learner = read_learner(Path(path))
    try:
        text, tree = parse_for_checks(learner)
    except SyntaxError as error:
        probe = ProbeResult("load", "load", "error", "parse the file", "syntax-error",
                            detail=f"SyntaxError: {error.msg}", line=learner.place(error.lineno))
        return _report(str(path), [probe], started)
    program = Program.scan(tree, text, learner.place)
    with Sandbox(Limits(memory_mb=memory_mb, cpu_seconds=timeout), program=CHILD) as box:
        target = copy_into(learner, box.work, tree if learner.cells is None else None)
        _copy_data_files(learner, box.work)
        results = _run(box, learner, target, program, started + timeout)
        stdout = box.learner_output()
    report = _report(str(path), results, started)
    report.stdout = stdout
    report.make_printable()
    return report


def _run(box: Sandbox, learner: Learner, target: Path, program: Program,
         deadline: float) -> list[ProbeResult]:
    load_seconds = LOAD_SHARE * (deadline - time.monotonic())
    try:
        box.start(min(START_SECONDS, deadline - time.monotonic()))
        answer = box.ask({"do": "ninja", "path": str(target), "root": str(box.work),
                          "module_name": learner.module_name, "cells": learner.cells,
                          "load_timeout": load_seconds, "api": {},
                          "micrograd": str(Path(micrograd.__file__).resolve().parent.parent)},
                         deadline - time.monotonic(), "ninja")
        if "error" in answer:
            raise ChildGone(str(answer["error"].get("message", "the run failed")))
        blobs = _fetch_blobs(box, answer["blobs"], deadline)
        events = [e for e in answer["events"] if _well_formed(e)]
        failures = list(answer["failures"])
    except (ChildGone, Untrusted) as error:
        return [ProbeResult("run", "load", "error", "run the file", "run-failed",
                            detail=f"the file could not be run to the end: {error}")]
    except (KeyError, TypeError, ValueError) as error:
        return [ProbeResult("run", "load", "error", "run the file", "untrusted-report",
                            detail=f"a report of the wrong shape ({type(error).__name__})")]
    results: list[ProbeResult] = [_unit_warning(f, learner) for f in failures]
    raised = {int(f["error"]["line"]): str(f["error"].get("message", "")) for f in failures
              if not f.get("timeout") and isinstance(f.get("error"), dict)
              and isinstance(f["error"].get("line"), int)}
    gradients = judge(observations(events, blobs, program), program, raised)
    results += gradients
    results += never_computed(program, gradients, raised)
    if not gradients:
        results.append(ProbeResult(
            "gradients", "load", "error", "find the manual gradients", "no-gradients-found",
            detail="no cmp(name, dX, X) call ran and no d-gradient (dlogprobs, dprobs, ...) "
                   "was computed next to the lecture's forward tensors"))
    return results


def _well_formed(event: Any) -> bool:
    """An event as the recorder writes it (the child's report is checked, not trusted)."""
    return (isinstance(event, dict) and event.get("kind") in ("cmp", "unit")
            and isinstance(event.get("line"), int) and isinstance(event.get("space"), dict)
            and all(isinstance(k, str) and isinstance(v, str)
                    for k, v in event["space"].items())
            and (event["kind"] == "unit" or (isinstance(event.get("grad"), str)
                                             and isinstance(event.get("label"), str))))


def _fetch_blobs(box: Sandbox, shapes: dict[str, Any], deadline: float
                 ) -> dict[str, np.ndarray]:
    """The numbers of every blob, a few hundred KB per request."""
    blobs: dict[str, np.ndarray] = {}
    batch: list[str] = []
    size = 0
    keys = list(shapes)
    for k, key in enumerate(keys):
        dtype, shape = shapes[key]
        nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        batch.append(key)
        size += nbytes
        if size >= BATCH_BYTES or k == len(keys) - 1:
            answer = box.ask({"do": "blobs", "keys": batch}, deadline - time.monotonic(),
                             f"blobs-{k}")
            for got, text in dict(answer["blobs"]).items():
                dtype, shape = shapes[got]
                if dtype not in ("float16", "float32", "float64", "int32", "int64", "bool"):
                    raise ValueError(f"a tensor of dtype {dtype}")
                blobs[got] = np.frombuffer(base64.b64decode(text), dtype=dtype).reshape(shape)
            batch, size = [], 0
    return blobs


def _copy_data_files(learner: Learner, work: Path) -> None:
    """The text files beside the learner's file (names.txt), which the lecture opens."""
    folder = learner.path.resolve().parent
    budget = MAX_DATA_BYTES
    for file in sorted(folder.iterdir()):
        if file.is_file() and file.suffix in DATA_SUFFIXES and file.stat().st_size <= budget:
            budget -= file.stat().st_size
            shutil.copyfile(file, work / file.name)


def _unit_warning(failure: dict[str, Any], learner: Learner) -> ProbeResult:
    """A cell (or statement) that raised or was stopped: a WARN with its line."""
    unit, error = failure.get("unit"), dict(failure.get("error") or {})
    notebook = learner.cells is not None
    line = error.get("line")
    if failure.get("timeout"):
        diagnosis = "notebook-cell-slow" if notebook else "statement-slow"
        detail = (f"stopped after {float(failure.get('seconds', 0)):.0f} s (a training loop? "
                  "the gradients before it are checked)")
    else:
        diagnosis = "notebook-cell-raised" if notebook else "load-exception"
        detail = str(error.get("message", ""))
    what = f"run notebook cell {unit}" if notebook else f"run the statement at line {unit}"
    return ProbeResult(f"cell-{unit}" if notebook else f"line-{unit}", "load", "warn", what,
                       diagnosis, detail=detail,
                       line=learner.place(line) if isinstance(line, int) else None)


def _report(path: str, results: list[ProbeResult], started: float) -> Report:
    report = Report(path, None, SUBJECT, results)
    report.seconds = time.monotonic() - started
    return report


def run_ninja(path: str, as_json: bool = False, junit: str | None = None,
              timeout: float = TIMEOUT) -> int:
    """The `micrograd check --ninja` command: 0 if every gradient passed, else 1."""
    from micrograd.check.command import report_and_exit_code
    from micrograd.check.ninja_report import render_ninja_text

    return report_and_exit_code(lambda: check_ninja_file(path, timeout=timeout),
                                render_ninja_text, as_json=as_json, junit=junit)
