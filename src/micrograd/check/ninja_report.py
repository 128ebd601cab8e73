"""The backprop-ninja report for people: a terminal table (`render_ninja_text`), an HTML
table for Jupyter (`render_ninja_html`), and `check_ninja()`, which a notebook calls at its
end after `%load_ext micrograd.torch` (JSON and JUnit are the engine checker's own:
`Report.to_json()`, `report.render_junit`).

One row per gradient; then one block per gradient that is wrong on its own (not merely
because an earlier one is): what your tensor equals, your line, the expected shape and
values, and the line to write. The gradients that follow from it are listed under it.
"""

from __future__ import annotations

import html
import textwrap
from typing import Any

from micrograd.check.diagnoses import explain
from micrograd.check.report import MARKS, ProbeResult, Report, _paint

WIDTH = 92


def _cmp_of(p: ProbeResult) -> str:
    return str(getattr(p, "cmp", "") or "")


def _short_cmp(p: ProbeResult) -> str:
    """'exact: False | approximate: True | maxdiff: 6e-09' -> 'False | True | 6e-09'."""
    text = _cmp_of(p).split(" (")[0]
    for label in ("exact: ", "approximate: ", "maxdiff: "):
        text = text.replace(label, "")
    return text


def _note(p: ProbeResult) -> str:
    if p.consequence_of:
        return f"follows from {p.consequence_of}"
    if p.status == "pass":
        return ""
    return p.diagnosis or ""


def _values(summary: Any) -> str:
    if not isinstance(summary, dict):
        return ""
    shape = tuple(summary.get("shape", []))
    values = ", ".join(f"{v:.4g}" for v in summary.get("values", []))
    return f"shape {shape}, first values [{values}, ...]"


def _own_failures(report: Report) -> list[ProbeResult]:
    return [p for p in report.probes if p.status in ("fail", "error", "warn")
            and p.group == "ninja" and not p.consequence_of]


def _followers(report: Report, p: ProbeResult) -> list[str]:
    return [q.id for q in report.probes if q.consequence_of == p.id]


def _where(report: Report, p: ProbeResult) -> str:
    if p.line is None:
        return ""
    return p.line if isinstance(p.line, str) else f"line {p.line}"


def summary_line(report: Report) -> str:
    gradients = [p for p in report.probes if p.group == "ninja"]
    right = sum(p.status == "pass" for p in gradients)
    warned = sum(p.status == "warn" for p in gradients)
    own = len(_own_failures(report)) - warned
    follow = sum(bool(p.consequence_of) for p in gradients)
    shapes = f" (and {warned} right in a wrong shape: WARN)" if warned else ""
    return (f"{right} of {len(gradients)} gradients right{shapes}; {own} mistake(s) of their "
            f"own, {follow} wrong only because of an earlier one ({report.seconds:.1f} s)")


def render_ninja_text(report: Report, colour: bool = False) -> str:
    """The terminal report: the table, then each mistake with its line and fix."""
    lines = [f"micrograd check --ninja {report.path}", f"  {report.class_found_how}", ""]
    width = max([len(p.id) for p in report.probes] + [8])
    lines.append(f"  {'STATUS':7} {'GRADIENT':{width}}  {'CMP: EXACT | APPROX | MAXDIFF':33} "
                 "DIAGNOSIS")
    for p in report.probes:
        mark = _paint(f"{MARKS[p.status]:7}", p.status, colour)
        cmp = _short_cmp(p)
        note = _note(p) if p.group == "ninja" else f"{p.diagnosis}: {p.detail}"[:60]
        lines.append(f"  {mark} {p.id:{width}}  {cmp:33} {note}".rstrip())
    for p in _own_failures(report):
        entry = explain(p.diagnosis or "")
        head = _paint(f"{MARKS[p.status]} {p.id}", p.status, colour)
        where = _where(report, p)
        lines += ["", f"{head} — {entry.title}" + (f"   ({where})" if where else "")]
        lines += textwrap.wrap(p.detail, WIDTH, initial_indent="  ", subsequent_indent="    ")
        code = _learner_line(report, p)
        if code:
            lines.append(f"  your line:  {code}")
        if p.expected is not None:
            lines.append(f"  expected:   {_values(p.expected)}")
        if p.got is not None:
            lines.append(f"  yours:      {_values(p.got)}")
        fix = str(getattr(p, "fix", "") or entry.fix)
        if fix:
            lines.append("  fix:        " + fix.replace("\n", "\n              "))
        followers = _followers(report, p)
        if followers:
            lines += textwrap.wrap("then wrong only because of this one: " + ", ".join(followers),
                                   WIDTH, initial_indent="  ", subsequent_indent="    ")
    others = [p for p in report.probes if p.group != "ninja" and p.status != "pass"]
    for p in others:
        where = _where(report, p)
        lines += ["", f"{_paint(MARKS[p.status], p.status, colour)} {p.id}: {p.diagnosis}"
                  + (f" ({where})" if where else ""), f"  {p.detail}"]
    verdict = "verdict: PASS" if report.ok else "verdict: FAIL"
    lines += ["", _paint(summary_line(report), "pass" if report.ok else "fail", colour),
              _paint(verdict, "pass" if report.ok else "fail", colour)]
    return "\n".join(lines)


def _learner_line(report: Report, p: ProbeResult) -> str:
    return str(getattr(p, "code", "") or "")  # a NinjaResult's; "" for the other rows


CSS = """
<style>
.mg-ninja {font-family: system-ui, sans-serif; font-size: 13px}
.mg-ninja table {border-collapse: collapse; margin: 4px 0 10px}
.mg-ninja td, .mg-ninja th {padding: 2px 10px; text-align: left !important;
white-space: nowrap; border-bottom: 1px solid #ddd}
.mg-ninja .pass {color: #127a2a; font-weight: 600} .mg-ninja .fail {color: #b3261e;
font-weight: 600} .mg-ninja .error {color: #b3261e; font-weight: 700}
.mg-ninja .warn {color: #8a6100; font-weight: 600} .mg-ninja .follows {color: #777}
.mg-ninja .mistake {border-left: 4px solid #b3261e; padding: 4px 10px; margin: 8px 0;
background: #fdf3f2} .mg-ninja pre {margin: 2px 0; background: #f4f4f4; padding: 4px}
.mg-ninja code {background: #f4f4f4}
</style>
"""


def render_ninja_html(report: Report) -> str:
    """The same report as an HTML table, for a Jupyter notebook."""
    e = html.escape
    rows = []
    for p in report.probes:
        note = _note(p) if p.group == "ninja" else f"{p.diagnosis}: {p.detail}"
        css = "follows" if p.consequence_of else p.status
        rows.append(f"<tr><td class='{p.status}'>{MARKS[p.status]}</td><td><code>{e(p.id)}"
                    f"</code></td><td>{e(_short_cmp(p))}</td>"
                    f"<td class='{css}'>{e(note)}</td><td>{e(_where(report, p))}</td></tr>")
    blocks = []
    for p in _own_failures(report):
        entry = explain(p.diagnosis or "")
        code = _learner_line(report, p)
        fix = str(getattr(p, "fix", "") or entry.fix)
        followers = _followers(report, p)
        blocks.append(
            f"<div class='mistake'><b class='{p.status}'>{MARKS[p.status]} {e(p.id)}</b> — "
            f"<b>{e(entry.title)}</b> <i>({e(_where(report, p))})</i><br>{e(p.detail)}<br>"
            + (f"your line: <code>{e(code)}</code><br>" if code else "")
            + (f"expected: {e(_values(p.expected))}<br>" if p.expected is not None else "")
            + (f"yours: {e(_values(p.got))}<br>" if p.got is not None else "")
            + (f"fix:<pre>{e(fix)}</pre>" if fix else "")
            + (f"<span class='follows'>then wrong only because of this one: "
               f"{e(', '.join(followers))}</span>" if followers else "") + "</div>")
    verdict = "PASS" if report.ok else "FAIL"
    return (CSS + f"<div class='mg-ninja'><b>micrograd check --ninja</b> — "
            f"{e(summary_line(report))} — <b class='{'pass' if report.ok else 'fail'}'>"
            f"{verdict}</b><table><tr><th>status</th><th>gradient</th>"
            f"<th>cmp: exact | approx | maxdiff</th><th>diagnosis</th><th>where</th></tr>"
            + "".join(rows) + "</table>" + "".join(blocks) + "</div>")


class NinjaReport:
    """What `check_ninja()` returns: shown as HTML in Jupyter and as text elsewhere."""

    def __init__(self, report: Report):
        self.report = report

    def _repr_html_(self) -> str:
        return render_ninja_html(self.report)

    def __repr__(self) -> str:
        return render_ninja_text(self.report)

    def to_json(self) -> str:
        return self.report.to_json()
