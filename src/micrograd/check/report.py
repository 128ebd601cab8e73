"""The checker's result and its three renderings: a terminal table, JSON, JUnit XML."""

from __future__ import annotations

import json
import math
import textwrap
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Any

from micrograd.check.diagnoses import explain

SCHEMA = "micrograd-check/1"
STATUSES = ("pass", "fail", "error", "limit", "warn", "missing", "skipped")
FAILING = ("fail", "error")
# what the lecture's design (and micrograd 0.1.0) also does: shown, explained, and a failure
# only with --strict
LIMITS = ("recursion-limit", "stale-intermediate-grads", "tanh-overflow")


@dataclass
class ProbeResult:
    """One probe: what was tried, what came out, and (if it failed) the named diagnosis."""

    id: str
    group: str
    status: str  # one of STATUSES
    expression: str = ""
    diagnosis: str | None = None
    got: Any = None
    expected: Any = None
    detail: str = ""
    line: int | str | None = None  # a line number, or "cell 3, line 5" for notebooks
    where: list[str] = field(default_factory=list)
    consequence_of: str | None = None
    own_diagnosis: str | None = None  # before `consequence_of` renamed it (not in the JSON)

    def to_dict(self) -> dict[str, Any]:
        entry = explain(self.diagnosis) if self.diagnosis else None
        return {
            "id": self.id, "group": self.group, "status": self.status,
            "expression": self.expression, "got": self.got, "expected": self.expected,
            "detail": self.detail, "line": self.line, "where": self.where,
            "consequence_of": self.consequence_of,
            "diagnosis": entry.to_dict() if entry else None,
        }


@dataclass
class Report:
    """Everything `micrograd check` found about one engine file."""

    path: str
    class_name: str | None
    class_found_how: str
    probes: list[ProbeResult]
    stdout: str = ""
    stubbed_modules: list[str] = field(default_factory=list)
    seconds: float = 0.0
    api: dict[str, Any] = field(default_factory=dict)  # the class, backward, data, grad used

    @property
    def counts(self) -> dict[str, int]:
        return {s: sum(p.status == s for p in self.probes) for s in STATUSES}

    @property
    def ok(self) -> bool:
        """True when no probe failed or errored (limits, missing ops and warnings don't count)."""
        return not any(p.status in FAILING for p in self.probes)

    @property
    def verdict(self) -> str:
        """'fail' (a probe failed or errored), 'limits-only' (only the lecture's design limits),
        or 'pass'. Warnings and missing ops don't change it."""
        if not self.ok:
            return "fail"
        return "limits-only" if any(p.status == "limit" for p in self.probes) else "pass"

    def passes(self, strict: bool = False) -> bool:
        """The exit status's question: no failure (and, with `strict`, no limit either)."""
        return self.verdict == "pass" or (self.verdict == "limits-only" and not strict)

    @property
    def diagnoses(self) -> list[str]:
        """The distinct diagnosis ids of failing and warning probes, in probe order."""
        seen: list[str] = []
        for p in self.probes:
            if p.diagnosis and p.status in ("fail", "error", "limit", "warn") \
                    and p.diagnosis not in seen:
                seen.append(p.diagnosis)
        return seen

    def by_id(self, probe_id: str) -> ProbeResult:
        for p in self.probes:
            if p.id == probe_id:
                return p
        raise KeyError(probe_id)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "path": self.path,
            "class": self.class_name,
            "class_found": self.class_found_how,
            "ok": self.ok,
            "verdict": self.verdict,
            "api": self.api,
            "counts": self.counts,
            "diagnoses": [explain(d).to_dict() for d in self.diagnoses],
            "probes": [p.to_dict() for p in self.probes],
            "stubbed_modules": self.stubbed_modules,
            "learner_output": self.stdout,
            "seconds": round(self.seconds, 3),
        }

    def make_printable(self) -> None:
        """Escape control characters in everything that came from the learner's file or code
        (a NUL or ESC in an exception must reach neither the terminal nor the XML raw)."""
        self.path = printable(self.path)
        self.class_found_how = printable(self.class_found_how)
        if self.class_name is not None:
            self.class_name = printable(self.class_name)
        self.api = _printable_value(self.api)  # a name with a lone surrogate: escaped
        self.stdout = printable(self.stdout, keep="\n\t")
        for p in self.probes:
            p.expression, p.detail = printable(p.expression), printable(p.detail)
            p.where = [printable(w) for w in p.where]
            p.got, p.expected = _printable_value(p.got), _printable_value(p.expected)
            if isinstance(p.line, str):
                p.line = printable(p.line)

    def to_json(self) -> str:
        """Strict JSON: inf and nan (not valid JSON numbers) become the strings 'inf', 'nan'."""
        return json.dumps(_finite(self.to_dict()), indent=2, default=str, allow_nan=False)


def printable(text: str, keep: str = "") -> str:
    """Control characters (C0, C1, DEL), lone surrogates and U+FFFE/U+FFFF as \\xNN escapes."""
    return "".join(ch if ch in keep or not _unprintable(ch) else _escape(ch) for ch in str(text))


def _unprintable(ch: str) -> bool:
    code = ord(ch)
    return code < 0x20 or 0x7F <= code <= 0x9F or 0xD800 <= code <= 0xDFFF \
        or code in (0xFFFE, 0xFFFF)


def _escape(ch: str) -> str:
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def _printable_value(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {printable(str(k)): _printable_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_printable_value(v) for v in value]
    return value


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


# ---------------------------------------------------------------------------------------
# Terminal
# ---------------------------------------------------------------------------------------

COLOURS = {"pass": "32", "fail": "31", "error": "31;1", "limit": "35", "warn": "33",
           "missing": "36", "skipped": "2"}
MARKS = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "limit": "LIMIT", "warn": "WARN",
         "missing": "MISSING", "skipped": "SKIP"}


def _paint(text: str, status: str, colour: bool) -> str:
    return f"\033[{COLOURS[status]}m{text}\033[0m" if colour else text


def _rounded(value: Any) -> Any:
    """Floats to 7 significant digits, for reading (JSON keeps every digit)."""
    if isinstance(value, float):
        return float(f"{value:.7g}")
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    return value


def _short(value: Any, width: int = 60) -> str:
    text = value if isinstance(value, str) else json.dumps(_rounded(value), default=str)
    return text if len(text) <= width else text[: width - 3] + "..."


def render_text(report: Report, colour: bool = False) -> str:
    """A table of every probe, then one block per diagnosis with its explanation and fix."""
    lines = [f"micrograd check {report.path}",
             f"  engine class: {report.class_name or '(none)'} — {report.class_found_how}"]
    if report.api:
        lines.append("  used: " + describe_api(report.api))
    if report.stubbed_modules:
        lines.append("  not installed, replaced by a harmless stub: "
                     + ", ".join(report.stubbed_modules))
    lines.append("")
    width = max([len(p.id) for p in report.probes] + [5])
    lines.append(f"  {'STATUS':8} {'PROBE':{width}}  DIAGNOSIS / EXPRESSION")
    for p in report.probes:
        mark = _paint(f"{MARKS[p.status]:8}", p.status, colour)
        if p.status in ("fail", "error", "limit", "warn") and p.diagnosis:
            follows = f"  (follows from {p.consequence_of})" if p.consequence_of else ""
            note = p.diagnosis + follows
        elif p.status == "missing":
            note = f"{p.diagnosis or ''}  {p.detail}".strip()
        else:
            note = p.expression
        lines.append(f"  {mark} {p.id:{width}}  {_short(note, 70)}")
    for diag_id in report.diagnoses:
        entry = explain(diag_id)
        examples = [p for p in report.probes if p.diagnosis == diag_id
                    and p.status in ("fail", "error", "limit", "warn")]
        first = next((p for p in examples if not p.consequence_of), examples[0])
        status = first.status
        lines += ["", _paint(f"{MARKS[status]} {diag_id}", status, colour) + f" — {entry.title}"]
        lines += textwrap.wrap(entry.explanation, 92, initial_indent="  ", subsequent_indent="  ")
        if first.group in ("source", "basics", "load") or not first.expression:
            if entry.example and not entry.example.startswith("see "):
                lines.append(f"  for example: {entry.example}")
        else:
            lines.append(f"  smallest example: {first.expression}")
        if first.got is not None and first.group == "source":
            lines.append(f"  your code: {first.got}")
        elif first.got is not None:
            lines.append(f"  your engine gave: {_short(first.got, 100)}")
        if first.expected is not None:
            lines.append(f"  it should give:   {_short(first.expected, 100)}")
        if first.detail:
            lines.append(f"  detail: {first.detail}")
        if first.line is not None:
            if isinstance(first.line, str) and ".py, line " in first.line:
                lines.append(f"  at {first.line} (a file next to {report.path})")
            else:  # 'cell 3, line 2' in a notebook
                where = first.line if isinstance(first.line, str) else f"line {first.line}"
                lines.append(f"  at {where} of {report.path}")
        for frame in first.where[-3:]:
            lines.append(f"    {frame}")
        if entry.fix:
            lines.append("  fix: " + entry.fix.replace("\n", "\n       "))
        if entry.pitfall:
            lines.append(f"  see: {entry.pitfall}")
        others = [p.id for p in examples if p is not first]
        if others:
            lines += textwrap.wrap("also shows in: " + ", ".join(others), 92,
                                   initial_indent="  ", subsequent_indent="    ")
    c = report.counts
    summary = (f"{c['pass']} passed, {c['fail']} failed, {c['error']} errors, "
               f"{c['limit']} limits, {c['warn']} warnings, {c['missing']} missing, "
               f"{c['skipped']} not run ({report.seconds:.1f} s)")
    verdict = {"pass": "verdict: PASS", "fail": "verdict: FAIL",
               "limits-only": "verdict: LIMITS ONLY — the lecture's own design limits, not bugs "
                              "(exit 0; --strict makes them failures)"}[report.verdict]
    lines += ["", _paint(summary, "pass" if report.ok else "fail", colour),
              _paint(verdict, {"limits-only": "limit"}.get(report.verdict, report.verdict),
                     colour)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# JUnit XML
# ---------------------------------------------------------------------------------------

def render_junit(report: Report, strict: bool = False) -> str:
    """One <testcase> per probe; failures carry the diagnosis; missing ops are <skipped>.

    A limit is a passed testcase with a `verdict=limit` property and a <system-out> note
    (with `strict`, a <failure> like any other); the suite's `verdict` property says
    pass, limits-only or fail.
    """
    c = report.counts
    suites = ET.Element("testsuites", name="micrograd check")
    suite = ET.SubElement(suites, "testsuite", name=printable(f"micrograd check {report.path}"),
                          tests=str(len(report.probes)),
                          failures=str(c["fail"] + (c["limit"] if strict else 0)),
                          errors=str(c["error"]), skipped=str(c["missing"] + c["skipped"]),
                          time=f"{report.seconds:.3f}")
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", name="verdict", value=report.verdict)
    ET.SubElement(properties, "property", name="limits", value=str(c["limit"]))
    for p in report.probes:
        case = ET.SubElement(suite, "testcase", classname=printable(f"micrograd.check.{p.group}"),
                             name=printable(p.id))
        text = printable(_probe_text(p), keep="\n")
        if p.status == "limit" and strict:
            ET.SubElement(case, "failure", message=_message(p),
                          type=printable(p.diagnosis or "limit")).text = text
        elif p.status == "limit":  # a passed testcase that says so: CI stays green unless --strict
            limit_props = ET.SubElement(case, "properties")
            ET.SubElement(limit_props, "property", name="verdict", value="limit")
            ET.SubElement(case, "system-out").text = "limit (not a bug; --strict fails it): " + text
        elif p.status == "fail":
            ET.SubElement(case, "failure", message=_message(p),
                          type=printable(p.diagnosis or "fail")).text = text
        elif p.status == "error":
            ET.SubElement(case, "error", message=_message(p),
                          type=printable(p.diagnosis or "error")).text = text
        elif p.status in ("missing", "skipped"):
            ET.SubElement(case, "skipped", message=_message(p))
        elif p.status == "warn":
            ET.SubElement(case, "system-out").text = "warning: " + text
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def describe_api(api: dict[str, Any]) -> str:
    """'class Num, backward root.grad(), data .val, grad .g' from a report's `api`."""
    backward = api.get("backward") or {}
    call = (f"{backward.get('name')}(root)" if backward.get("kind") == "function"
            else f"root.{backward.get('name')}()")
    return (f"class {api.get('class')}, backward {call}, data .{api.get('data')}, "
            f"grad .{api.get('grad')}")


def _message(p: ProbeResult) -> str:
    """A failure's one-line message; printable, so the XML stays well-formed (XML 1.0 has no
    way to write most control characters at all)."""
    if p.diagnosis:
        return printable(f"{p.diagnosis}: {explain(p.diagnosis).title}")
    return printable(p.detail or p.status)


def _probe_text(p: ProbeResult) -> str:
    parts = [f"expression: {p.expression}"]
    if p.diagnosis:
        entry = explain(p.diagnosis)
        parts += [f"diagnosis: {entry.id} — {entry.title}", entry.explanation]
    if p.got is not None:
        parts.append(f"got: {json.dumps(p.got, default=str)}")
    if p.expected is not None:
        parts.append(f"expected: {json.dumps(p.expected, default=str)}")
    if p.detail:
        parts.append(f"detail: {p.detail}")
    if p.line is not None:
        parts.append(f"line: {p.line}")
    if p.diagnosis and explain(p.diagnosis).fix:
        parts.append(f"fix: {explain(p.diagnosis).fix}")
    return "\n".join(parts)
