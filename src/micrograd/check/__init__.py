"""`micrograd check`: diagnose the classic mistakes in a learner's own autograd engine.

The learner's file is never executed in this process. It is parsed with `ast` here (for the
training-loop and numerical-gradient checks) and run only in a child process
(`probe_runner.py`, started with `python -I`) under a wall-clock limit, an address-space
limit and a per-probe alarm. The child reports one JSON line per probe; whatever it wrote
before a crash or a kill is kept.

    report = check_engine("my_engine.py")          # or "notebook.ipynb", class_name="Scalar"
    print(render_text(report)); report.ok; report.diagnoses
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Sequence

from micrograd.check.diagnoses import CATALOG, Diagnosis, explain
from micrograd.check.report import SCHEMA, ProbeResult, Report, render_junit, render_text
from micrograd.check.static import static_findings

__all__ = ["check_engine", "run_check", "Report", "ProbeResult", "Diagnosis", "explain",
           "render_text", "render_junit", "CATALOG", "SCHEMA"]

RUNNER = Path(__file__).with_name("probe_runner.py")


def split_target(target: str) -> tuple[str, str | None]:
    """'engine.py:Scalar' -> ('engine.py', 'Scalar'); 'engine.py' -> ('engine.py', None)."""
    head, sep, tail = target.rpartition(":")
    if sep and tail.isidentifier() and head:
        return head, tail
    return target, None


def notebook_to_source(text: str, name: str) -> tuple[str, list[str], list[tuple[int, int, int]]]:
    """The code cells of a .ipynb joined into one script, where each line came from, and the
    cells as (cell number, first line, last line) of that script.

    IPython magics (%, !) become `pass  # magic`, so the script is plain Python and an
    indented block keeps its body. Nothing is run.
    """
    try:
        notebook = json.loads(text)
        cells = notebook["cells"]
    except (ValueError, KeyError, TypeError) as error:
        raise ValueError(f"{name}: not a Jupyter notebook (expected JSON with 'cells'): {error}")
    lines: list[str] = []
    origin: list[str] = []
    code_cells: list[tuple[int, int, int]] = []
    for cell_number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines.append(f"# %% cell {cell_number}")
        origin.append(f"cell {cell_number}")
        for offset, line in enumerate(source.splitlines(), start=1):
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                line = line[: len(line) - len(stripped)] + "pass  # " + stripped
            lines.append(line)
            origin.append(f"cell {cell_number}, line {offset}")
        code_cells.append((cell_number, len(lines) - len(source.splitlines()) + 1, len(lines)))
    return "\n".join(lines) + "\n", origin, [c for c in code_cells if c[1] <= c[2]]


def parsable_cells_only(source: str, cells: list[tuple[int, int, int]]) -> str:
    """The joined notebook with each cell that does not parse blanked (line numbers kept).

    Jupyter runs the other cells anyway, so the source checks read them too.
    """
    lines = source.split("\n")
    for _, first, last in cells:
        try:
            ast.parse("\n".join(lines[first - 1:last]))
        except (SyntaxError, ValueError):
            lines[first - 1:last] = [""] * (last - first + 1)
    return "\n".join(lines)


LINE_REFERENCE = re.compile(r"\bline (\d+)")


def _placed_text(text: str, place) -> str:
    """'line 12 in __add__' -> 'cell 3, line 2 in __add__' for a notebook (place maps lines)."""
    return LINE_REFERENCE.sub(lambda m: str(place(int(m.group(1)))), text)


def _package_module(path: Path) -> tuple[str, str | None]:
    """For a file inside a package (folders with __init__.py): (sys.path root, dotted name)."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) == 1:
        return str(path.parent), None
    if parts[-1] == "__init__":
        parts.pop()
    return str(folder), ".".join(parts)


OPS = ("add", "sub", "mul", "truediv", "pow", "neg", "radd", "rmul", "rsub", "rtruediv",
       "exp", "log", "tanh", "relu", "sigmoid")


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


def check_engine(path: str | os.PathLike, class_name: str | None = None, timeout: float = 20.0,
                 probe_timeout: float = 2.0, memory_mb: int = 1024,
                 require: str | Sequence[str] | None = None) -> Report:
    """Run every probe on the Value-like class in `path` (a .py file or a .ipynb notebook).

    Ops the engine lacks are 'missing', not failures, unless named in `require`.
    """
    started = time.monotonic()
    required = parse_required_ops(require)
    text_path = str(path)
    if class_name is None and not Path(text_path).exists():
        text_path, class_name = split_target(text_path)
    file = Path(text_path)
    if not file.is_file():
        raise ValueError(f"{text_path}: no such file (expected a .py file or a .ipynb notebook)")
    if file.suffix not in (".py", ".ipynb"):
        raise ValueError(f"{text_path}: expected a .py file or a .ipynb notebook, got '{file.suffix}'")
    if not (timeout > 0 and probe_timeout > 0):
        raise ValueError(f"timeouts must be positive, got timeout={timeout}, probe_timeout={probe_timeout}")
    try:
        raw = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{text_path}: not UTF-8 text ({error})") from None

    workdir = Path(tempfile.mkdtemp(prefix="micrograd-check-"))
    try:
        origin: list[str] | None = None
        learner = file.resolve()
        root, module_name = _package_module(learner)
        source = raw
        cells: list[tuple[int, int, int]] | None = None
        if file.suffix == ".ipynb":
            source, origin, cells = notebook_to_source(raw, text_path)
            learner = workdir / "notebook" / (file.stem.replace("-", "_") + ".py")
            learner.parent.mkdir()
            learner.write_text(source, encoding="utf-8")
            root, module_name = str(file.resolve().parent), None

        def place(line: object) -> object:
            if origin and isinstance(line, int) and 1 <= line <= len(origin):
                return origin[line - 1]
            return line

        try:
            findings = static_findings(parsable_cells_only(source, cells) if cells is not None
                                       else source)
        except (SyntaxError, ValueError) as error:  # ValueError: source with NUL bytes
            line = getattr(error, "lineno", None)
            probe = ProbeResult("load", "load", "error", "parse the file", "syntax-error",
                                detail=f"{type(error).__name__}: {getattr(error, 'msg', error)}",
                                line=place(line),
                                where=[f"line {line}: {(getattr(error, 'text', '') or '').strip()}"]
                                if line else [])
            return Report(text_path, None, "the file could not be parsed", [probe],
                          seconds=time.monotonic() - started)

        records, returncode, timed_out = _run_child(
            learner, root, module_name, class_name, workdir, timeout, probe_timeout, memory_mb,
            cells)
        report = _assemble(text_path, records, returncode, timed_out, place)
        report.probes += _source_probes(findings, place)
        _labels_against_the_mlp_output(report)
        if origin:  # notebook: 'line 12' in tracebacks and details -> 'cell 3, line 2'
            for probe in report.probes:
                probe.detail = _placed_text(probe.detail, place)
                probe.where = [_placed_text(frame, place) for frame in probe.where]
        for probe in report.probes:  # a course can insist on ops: missing ones then fail
            if probe.status == "missing" and (probe.diagnosis or "")[len("missing-"):] in required:
                probe.status = "fail"
                probe.detail = f"required by --require; {probe.detail}"
        report.seconds = time.monotonic() - started
        return report
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run_child(learner: Path, root: str, module_name: str | None, class_name: str | None,
               workdir: Path, timeout: float, probe_timeout: float, memory_mb: int,
               cells: list[tuple[int, int, int]] | None = None):
    results = workdir / "results.jsonl"
    config = workdir / "config.json"
    config.write_text(json.dumps({
        "path": str(learner), "sys_path_root": root, "module_name": module_name,
        "class_name": class_name, "results_path": str(results),
        "probe_timeout": probe_timeout, "load_timeout": max(1.0, 0.6 * timeout),
        "memory_mb": memory_mb, "cpu_seconds": timeout + 5, "cells": cells,
    }), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(MPLBACKEND="Agg", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
               MKL_NUM_THREADS="1")
    with open(workdir / "child-output.txt", "wb") as output:
        child = subprocess.Popen([sys.executable, "-I", str(RUNNER), str(config)],
                                 cwd=str(learner.parent), env=env, stdin=subprocess.DEVNULL,
                                 stdout=output, stderr=subprocess.STDOUT,
                                 start_new_session=True)
        timed_out = False
        try:
            returncode = child.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            try:
                os.killpg(child.pid, signal.SIGKILL)  # the session we started for it
            except ProcessLookupError:
                pass
            returncode = child.wait()
    records = []
    if results.exists():
        for line in results.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                records.append(json.loads(line))
            except ValueError:  # a line cut short by the kill
                continue
    return records, returncode, timed_out


def _assemble(path: str, records: list[dict], returncode: int, timed_out: bool,
              place) -> Report:
    probes: list[ProbeResult] = []
    class_name, how = None, "the file was not loaded"
    stdout, stubbed = "", []
    running: str | None = None
    plan: list[str] = []
    ended = False
    for record in records:
        event = record.get("event")
        if event == "start":
            running = record["id"]
        elif event == "result":
            running = None
            probes.append(ProbeResult(
                id=record["id"], group=record.get("group", ""), status=record["status"],
                expression=record.get("expression", ""), diagnosis=record.get("diagnosis"),
                got=record.get("got"), expected=record.get("expected"),
                detail=record.get("detail", ""), line=place(record.get("line")),
                where=record.get("where") or [], consequence_of=record.get("consequence_of")))
        elif event == "class":
            class_name, how = record.get("name"), record.get("how", "")
            if not record.get("found"):
                probes.append(ProbeResult("find-class", "load", "error", "find the Value class",
                                          "class-not-found", detail=how))
        elif event == "plan":
            plan = record.get("ids", [])
        elif event == "end":
            ended = True
            stdout, stubbed = record.get("stdout", ""), record.get("stubbed", [])
            running = None
    if not ended:
        diag = "total-timeout" if timed_out else "child-crashed"
        detail = ("the whole check's time limit was reached" if timed_out
                  else f"the sandbox process exited with code {returncode}")
        probes.append(ProbeResult(running or "checker", "load" if running in (None, "load") else "sandbox",
                                  "error", f"probe {running}" if running else "", diag, detail=detail))
    done = {p.id for p in probes}
    for pid in plan:
        if pid not in done:
            probes.append(ProbeResult(pid, "not-run", "skipped", "", "not-run",
                                      detail="the check stopped before this probe"))
    return Report(path, class_name, how, probes, stdout=stdout, stubbed_modules=stubbed)


def _source_probes(findings, place) -> list[ProbeResult]:
    """The ast checks as probes: one per kind, passing unless something was found."""
    kinds = [("source-zero-grad", "no-zero-grad",
              "every loop that calls backward() resets the grads first"),
             ("source-finite-difference-step", "h-too-small",
              "numerical-gradient step h is not below 1e-8"),
             ("source-labels", "labels-outside-tanh-range", "training labels suit a tanh output")]
    probes = []
    for pid, diag, text in kinds:
        found = [f for f in findings if f.diagnosis == diag]
        if not found:
            probes.append(ProbeResult(pid, "source", "pass", text))
            continue
        first = found[0]
        probes.append(ProbeResult(pid, "source", first.status, text, diag, detail="; ".join(
            f.detail for f in found), line=place(first.line), got=first.code))
    return probes


def _labels_against_the_mlp_output(report: Report) -> None:
    """0/1 labels are a bug only with a tanh output: the nn probe saw which output the MLP has."""
    labels = next((p for p in report.probes if p.id == "source-labels"), None)
    forward = next((p for p in report.probes if p.id == "nn-forward" and p.status == "pass"), None)
    if labels is None or labels.status != "fail" or forward is None:
        return
    found = re.search(r"output=(\w+)", forward.detail)
    if not found:
        return
    if found.group(1) == "tanh":
        labels.detail += "; nn-forward: your MLP's output layer is tanh"
    else:
        labels.status, labels.diagnosis = "pass", None
        labels.detail = (f"0/1 labels, but your MLP's output layer is {found.group(1)} "
                         "(nn-forward), which can reach them")


def run_check(path: str, as_json: bool = False, junit: str | None = None,
              timeout: float = 20.0, require: str | Sequence[str] | None = None) -> int:
    """The `micrograd check` command: print the report; 0 if no probe failed or errored, else 1.

    Every probe of the engine that does not pass is a FAIL. Warnings are notes about the
    file, not the engine (a notebook cell that raised or ran too long, an MLP the checker
    could not compare); they and the ops the engine lacks (unless --require names them) do
    not change the exit code.
    """
    report = check_engine(path, timeout=timeout, require=require)  # it splits 'file.py:Class'
    if as_json:
        print(report.to_json())
    else:
        colour = sys.stdout.isatty() and "NO_COLOR" not in os.environ
        print(render_text(report, colour=colour))
    if junit:
        Path(junit).write_text(render_junit(report), encoding="utf-8")
    return 0 if report.ok else 1
