"""`micrograd check`: diagnose the classic mistakes in a learner's own autograd engine.

The learner's file is never imported in this process. It is read and scanned with `ast`
here, copied into a scratch folder and run in a child process (`child.py`, under
`python -I`, with hard limits) that only reports what the learner's class did; every
expected value and every verdict is computed here (`probes`, `verdicts`, `mlp`).

    report = check_engine("my_engine.py")          # or "notebook.ipynb", class_name="Scalar"
    print(render_text(report)); report.verdict; report.api; report.diagnoses

The verdict is "pass", "limits-only" (only what the lecture's design does too: LIMIT) or
"fail". A numpy Tensor engine is recognised and gets the `tensor` probes.

Layout: `probes` (the probes as data, and the float reference), `tensor` (the Tensor
probes and their numpy reference), `child` and `childlib` (the child's program and its
helpers), `sandbox` (process, limits, channel, cleanup), `source` (reading the file),
`verdicts` and `mlp` (judging reports), `report` (the result and its renderings),
`diagnoses` (the named mistakes), `static` (source checks), `run` (check_engine: the
conversation with the child), `command` (run_check: the `micrograd check` command).
"""

from __future__ import annotations

from micrograd.check.command import run_check
from micrograd.check.diagnoses import CATALOG, Diagnosis, explain
from micrograd.check.probes import OPS, Probe
from micrograd.check.report import (
    LIMITS,
    SCHEMA,
    ProbeResult,
    Report,
    render_junit,
    render_text,
)
from micrograd.check.run import check_engine, parse_required_ops, split_target

__all__ = ["CATALOG", "LIMITS", "OPS", "SCHEMA", "Diagnosis", "Probe", "ProbeResult", "Report",
           "check_engine", "explain", "parse_required_ops", "render_junit", "render_text",
           "run_check", "split_target"]
