"""The `micrograd check` command around a check: print the report (text or JSON), write the
JUnit file, give the exit code, and stop cleanly on Ctrl-C or SIGTERM. Shared by
`micrograd check` (check_engine) and `micrograd check --ninja` (ninja.check_ninja_file).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from micrograd.check.report import Report, render_junit, render_text
from micrograd.check.run import check_engine


class Terminated(BaseException):
    """SIGTERM arrived: unwind (so the child and the scratch folder go), then exit 143."""


def _on_sigterm(signum: int, frame: Any) -> None:
    raise Terminated()


class terminate_cleanly:
    """While checking in the main thread, SIGTERM unwinds like Ctrl-C (cleanup runs)."""

    def __enter__(self) -> terminate_cleanly:
        self.previous = None
        if threading.current_thread() is threading.main_thread():
            self.previous = signal.signal(signal.SIGTERM, _on_sigterm)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.signal(signal.SIGTERM, self.previous)


def run_check(path: str, as_json: bool = False, junit: str | None = None,
              timeout: float = 20.0, require: str | Sequence[str] | None = None,
              strict: bool = False, api: dict[str, str | None] | None = None) -> int:
    """The `micrograd check` command: print the report; 0 if no probe failed or errored, else 1.

    Every probe of the engine that does not pass is a FAIL, except the lecture's own design
    limits (LIMIT: recursion limit, stale intermediate grads, the tanh formula's overflow),
    which fail only with `strict`. Warnings are notes about the
    file, not the engine (a statement or notebook cell that raised or ran too long, an MLP
    the checker could not compare); they and the ops the engine lacks (unless --require
    names them) do not change the exit code. Ctrl-C: one line, exit 130; SIGTERM: 143.
    """
    return report_and_exit_code(
        lambda: check_engine(path, timeout=timeout, require=require, api=api), render_text,
        as_json=as_json, junit=junit, strict=strict)


def report_and_exit_code(make_report: Callable[[], Report],
                         render: Callable[..., str], *, as_json: bool, junit: str | None,
                         strict: bool = False) -> int:
    """Run a check, print its report (`render`ed, or JSON), write the JUnit file if asked,
    and give the command's exit code: 0 if it passes, 1 if not; Ctrl-C: one line, 130;
    SIGTERM: 143. Shared by `micrograd check` and `micrograd check --ninja`."""
    try:
        with terminate_cleanly():
            report = make_report()
    except KeyboardInterrupt:
        print("micrograd check: interrupted; the checked file's processes were stopped",
              file=sys.stderr)
        return 130
    except Terminated:
        print("micrograd check: terminated; the checked file's processes were stopped",
              file=sys.stderr)
        return 143
    if as_json:
        print(report.to_json())
    else:
        print(render(report, colour=sys.stdout.isatty() and "NO_COLOR" not in os.environ))
    if junit:
        Path(junit).write_text(render_junit(report, strict=strict), encoding="utf-8")
    return 0 if report.passes(strict) else 1
