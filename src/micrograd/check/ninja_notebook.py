"""`check_ninja()` inside Jupyter: the backprop-ninja report for the notebook being run.

`%load_ext micrograd.torch` calls `start_recording(ipython)`: from then on every cell the
learner runs is noted (its source, as the program the report points into) and a `Recorder`
watches its `cmp` calls and tensors, exactly as the checker's child does for a file. A
`check_ninja()` at the end judges what was recorded, in the kernel (the learner's own code,
already run by the learner: no sandbox needed), and returns a `NinjaReport`: an HTML table
in Jupyter, text elsewhere.
"""

from __future__ import annotations

import contextlib
import time
from typing import Any

from micrograd.check.ninja_judge import judge, never_computed, observations
from micrograd.check.ninja_record import Recorder
from micrograd.check.ninja_report import NinjaReport
from micrograd.check.ninja_source import Program
from micrograd.check.report import Report
from micrograd.check.source import parse

_SESSION: KernelSession | None = None


class KernelSession:
    """The cells run since `%load_ext micrograd.torch`, joined as one program."""

    def __init__(self, ipython: Any):
        self.ipython = ipython
        self.recorder = Recorder()
        self.lines: list[str] = []
        self.origin: list[str] = []
        self.cells: list[tuple[int, int]] = []  # (first line, last line) of each cell
        self.raised: dict[int, str] = {}  # program line -> the error it raised
        self.count = 0

    def pre_run_cell(self, info: Any) -> None:
        self.recorder.offset = len(self.lines) + 1  # after the cell's header line

    def post_run_cell(self, result: Any) -> None:
        self.count = int(getattr(result, "execution_count", 0) or 0)  # the In [N] shown
        info = getattr(result, "info", None)
        source = str(getattr(info, "raw_cell", "") or "")
        self.lines.append(f"# %% In [{self.count}]")
        self.origin.append(f"In [{self.count}]")
        first = len(self.lines) + 1
        for number, line in enumerate(source.splitlines(), start=1):
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):  # a magic: plain Python for the scan
                line = line[: len(line) - len(stripped)] + "pass  # " + stripped
            self.lines.append(line)
            self.origin.append(f"In [{self.count}], line {number}")
        self.cells.append((first, len(self.lines)))
        error = getattr(result, "error_in_exec", None)
        raised_at = _cell_line(error)
        if raised_at is not None:  # the line of this cell that raised, as the child reports
            self.raised[first - 1 + raised_at] = f"{type(error).__name__}: {error}"[:300]
        self.recorder.after_unit(self.ipython.user_ns, len(self.lines))

    def program(self) -> Program:
        """The cells that parse, as one program (a cell that does not parse is blanked)."""
        lines = list(self.lines)
        for first, last in self.cells:
            try:
                parse("\n".join(lines[first - 1:last]))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                lines[first - 1:last] = [""] * (last - first + 1)
        text = "\n".join(lines) + "\n"
        origin = self.origin
        return Program.scan(parse(text), text,
                            lambda line: origin[line - 1] if 1 <= line <= len(origin) else line)


def _cell_line(error: BaseException | None) -> int | None:
    """The cell's own line in a traceback: the frame right after IPython's run_code."""
    tb = getattr(error, "__traceback__", None)
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "run_code" and tb.tb_next is not None:
            return tb.tb_next.tb_lineno
        tb = tb.tb_next
    return None


def start_recording(ipython: Any) -> None:
    """Note every cell from now on; put `check_ninja` in the notebook's namespace."""
    global _SESSION
    if getattr(ipython, "events", None) is None:  # not an IPython shell: nothing to record
        return
    if _SESSION is not None and _SESSION.ipython is ipython:
        return
    _SESSION = KernelSession(ipython)
    ipython.events.register("pre_run_cell", _SESSION.pre_run_cell)
    ipython.events.register("post_run_cell", _SESSION.post_run_cell)
    ipython.push({"check_ninja": check_ninja})


def stop_recording(ipython: Any) -> None:
    global _SESSION
    if _SESSION is None:
        return
    for event in ("pre_run_cell", "post_run_cell"):
        with contextlib.suppress(ValueError):  # not registered
            ipython.events.unregister(event, getattr(_SESSION, event))
    _SESSION = None


def check_ninja() -> NinjaReport:
    """The backprop-ninja report of this notebook's cells so far (run it in the last cell).

    Needs `%load_ext micrograd.torch` at the top, before the cells to check were run.
    """
    if _SESSION is None:
        raise RuntimeError("check_ninja() reads the cells run after `%load_ext micrograd.torch`"
                           "; put that line at the top of the notebook and run it again")
    started = time.monotonic()
    session = _SESSION
    program = session.program()
    # this cell (the one calling check_ninja) has not finished: look at the namespace now
    session.recorder.after_unit(session.ipython.user_ns, len(session.lines))
    found = observations(session.recorder.events, session.recorder.blobs, program)
    results = judge(found, program, session.raised)
    results += never_computed(program, results, session.raised)
    report = Report("this notebook", None, "makemore part 4: manual backprop (backprop ninja), "
                    "the cells run since %load_ext micrograd.torch", list(results))
    report.seconds = time.monotonic() - started
    report.make_printable()
    return NinjaReport(report)


__all__ = ["check_ninja", "start_recording", "stop_recording"]
