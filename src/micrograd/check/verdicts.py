"""From what the child observed to a verdict: every comparison and diagnosis is made here.

`judge(probe, observation, engine)` turns one validated report into a `ProbeResult`; the
expected values come from `probes.reference` on plain floats, never from the child.
`follows_from` is the one rule that names a failure after an earlier one.

To add a diagnosis: give it an entry in `diagnoses.py` and return its id from the verdict
function of its probe kind below (or from `classify_exception` for an exception).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from micrograd.check.probes import (
    CAPABILITY,
    Probe,
    central_differences,
    close,
    evaluate,
    tidy,
)
from micrograd.check.report import ProbeResult

Observation = dict[str, Any]  # one report from the child, as JSON decoded it


@dataclass(frozen=True)
class Helper:
    """A function backward() calls, in another of the learner's files (for line pointers)."""

    file: str
    first: int
    last: int
    lines: list[str]


@dataclass
class Engine:
    """What the parent knows about the learner's class: from the child's class report (names
    and line spans only) and from reading the source text itself."""

    name: str
    methods: dict[str, list[int] | None]
    source_lines: list[str]
    has_mlp: bool = False
    kind: str = "scalar"       # "scalar" (a float per node) or "tensor" (numpy arrays)
    grad_attr: str = "grad"    # the attribute name of the gradient (`.grad`, `.g`, ...)
    failed: dict[str, str] = field(default_factory=dict)  # probe id -> its diagnosis
    elsewhere: list[Helper] = field(default_factory=list)  # backward()'s helpers elsewhere

    def sort_spans(self) -> list[tuple[str | None, list[str], int, int]]:
        """Where the backward pass is written: backward() itself, then each helper it calls
        (file None: this file)."""
        spans: list[tuple[str | None, list[str], int, int]] = []
        span = self.methods.get("backward")
        if span:
            spans.append((None, self.source_lines, span[0], min(span[1], len(self.source_lines))))
        spans += [(h.file, h.lines, h.first, min(h.last, len(h.lines))) for h in self.elsewhere]
        return spans

    def has(self, capability: str) -> bool:
        return CAPABILITY[capability] in self.methods

    def line_in(self, attr: str, pattern: str) -> int | None:
        """The first line matching `pattern` inside the learner's method `attr`."""
        span = self.methods.get(attr)
        if not span:
            return None
        first, last = span
        for number in range(first, min(last, len(self.source_lines)) + 1):
            if re.search(pattern, self.source_lines[number - 1]):
                return number
        return None

    def in_method(self, attr: str, line: object) -> bool:
        """The line (a number in the checked file) lies inside the learner's method `attr`."""
        span = self.methods.get(attr)
        return span is not None and isinstance(line, int) and span[0] <= line <= span[1]

    def line_in_callees(self, attr: str, pattern: str) -> int | None:
        """The first line matching `pattern` in a module-level function of the file that the
        method `attr` calls by name (`softmax` -> `softmax_rows(x)`)."""
        span = self.methods.get(attr)
        if not span:
            return None
        body = "\n".join(self.source_lines[span[0] - 1:span[1]])
        for name in dict.fromkeys(re.findall(r"\b(\w+)\s*\(", body)):
            start = next((n for n, text in enumerate(self.source_lines, 1)
                          if re.match(rf"def {re.escape(name)}\s*\(", text)), None)
            if start is None:
                continue
            for number in range(start, len(self.source_lines) + 1):
                text = self.source_lines[number - 1]
                if number > start and text.strip() and not text[0].isspace():
                    break  # the function ended at the next top-level statement
                if re.search(pattern, text):
                    return number
        return None

    def line_in_class(self, pattern: str) -> int | None:
        """The first line matching `pattern` between the class's first and last method."""
        spans = [span for span in self.methods.values() if span]
        if not spans:
            return None
        first, last = min(s[0] for s in spans), max(s[1] for s in spans)
        for number in range(first, min(last, len(self.source_lines)) + 1):
            if re.search(pattern, self.source_lines[number - 1]):
                return number
        return None


def number(x: Any) -> float | None:
    """A reported number, or None for a non-number (reported as {'type', 'repr'})."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else None


def shown(x: Any) -> Any:
    """A reported value for the report: numbers as numbers (inf/nan as text), else its repr."""
    value = number(x)
    if value is not None:
        return value if math.isfinite(value) else repr(value)
    if isinstance(x, dict):
        return str(x.get("repr", "?"))
    return x


def result(probe: Probe, **fields: Any) -> ProbeResult:
    fields.setdefault("expression", probe.expression())
    return ProbeResult(id=probe.id, group=probe.group, status=fields.pop("status", "pass"),
                       **fields)


def failed(record: ProbeResult, diagnosis: str, detail: str, line: Any = None,
           status: str = "fail") -> ProbeResult:
    record.status, record.diagnosis, record.detail = status, diagnosis, detail
    if line is not None:
        record.line = line
    return record


# ------------------------------------------------------------------------------------------
# Exceptions
# ------------------------------------------------------------------------------------------

def classify_exception(error: Observation, probe: Probe, engine: Engine,
                       stage: str) -> tuple[str, str]:
    """(diagnosis id, status) for an exception the learner's code raised in a probe."""
    types, text = error.get("types", []), str(error.get("message", ""))
    if error.get("type") == "ProbeTimeout":
        return "probe-timeout", "error"
    if "RecursionError" in types:
        if probe.id == "chain-2000" and stage == "backward":  # deep but finite graph
            return "recursion-limit", "fail"
        return "infinite-recursion", "fail"
    if "MemoryError" in types:
        return "memory-limit", "error"
    if "TypeError" in types and "'NoneType' object is not callable" in text:
        return "backward-stored-none", "fail"
    if "TypeError" in types and "unhashable type" in text:
        return "eq-without-hash", "fail"
    if stage == "forward" and "TypeError" in types and "unsupported operand" in text:
        if probe.op in ("radd", "rmul"):  # not written yet: the lecture's next step
            return f"missing-{probe.op}", "missing"
        if "NoneType" in text:  # an op that forgot `return out`
            return f"op-returns-non-value:{probe.op or probe.id}", "fail"
        if probe.op in ("rsub", "rtruediv"):
            return f"missing-{probe.op}", "missing"
    if stage == "forward" and "AttributeError" in types and re.search(
            r"'(int|float)' object has no attribute", text):
        return "number-not-wrapped", "missing"  # `a + 2` before the lecture wraps numbers
    if probe.op == "pow" and "TypeError" in types and (
            "**" in text or "pow" in text or engine.name in text):
        return "exponent-as-value", "fail"
    if stage == "forward" and "AttributeError" in types and probe.op in CAPABILITY:
        return f"missing-{probe.op}", "missing"
    if probe.op == "tanh" and "OverflowError" in types:
        return "tanh-overflow", "fail"
    if stage == "backward":
        return "backward-raised", "fail"
    return f"exception-in-op:{probe.op or probe.id}", "fail"


MODULE_IMPORTS = {"math": "import math", "np": "import numpy as np", "numpy": "import numpy",
                  "random": "import random", "torch": "import torch"}


def concrete_advice(message: str) -> str:
    """The fix a plain exception names by itself (`NameError: name 'math'` -> `import math`),
    as text to add to the detail; '' when the exception says nothing that specific."""
    found = re.search(r"NameError: name '(\w+)' is not defined", message)
    if not found:
        return ""
    name = found.group(1)
    if name in MODULE_IMPORTS:
        return f" -- add `{MODULE_IMPORTS[name]}` at the top of your file"
    return f" -- nothing defines `{name}` where it is used (a typo, or a missing import?)"


# what the lecture writes next for an op or convenience a learner has not written yet
NEXT_STEP = {
    "missing-radd": "__radd__ = __add__   (the lecture adds it when 2 + a fails)",
    "missing-rmul": "__rmul__ = __mul__   (the lecture adds it when 2 * a fails)",
    "missing-rsub": "def __rsub__(self, other): return other + (-self)",
    "missing-rtruediv": "def __rtruediv__(self, other): return other * self**-1",
    "number-not-wrapped": "other = other if isinstance(other, Value) else Value(other)   "
                          "(first line of __add__ and __mul__, as the lecture does for a + 1)",
}


def not_written_yet(diagnosis: str, message: str = "") -> str:
    """A MISSING op's detail: not a bug in what is written; the lecture's next step."""
    step = NEXT_STEP.get(diagnosis) or (
        f"write {diagnosis[len('missing-'):]} when the lecture gets to it"
        if diagnosis.startswith("missing-") else "")
    said = f" ({message})" if message else ""
    return f"not written yet{said}; next step: {step}" if step else f"not written yet{said}"


def from_exception(record: ProbeResult, error: Observation, probe: Probe, engine: Engine,
                   stage: str) -> ProbeResult:
    diagnosis, status = classify_exception(error, probe, engine, stage)
    line = error.get("line")
    if diagnosis == "backward-stored-none":
        line = stored_none_line(engine, probe.op) or line
    message = str(error.get("message", ""))
    record.got = dict(record.got or {}, error=message)
    record.where = [str(w) for w in error.get("where", [])]
    failed(record, diagnosis, not_written_yet(diagnosis, message) if status == "missing"
           else message + concrete_advice(message), line, status)
    return record


STORED_NONE = r"_backward\s*=\s*_backward\s*\(\s*\)"
GRAD_WRITE = r"\.grad\s*\+?=(?!=)"


def stored_none_line(engine: Engine, op: str) -> int | None:
    attr = CAPABILITY.get(op, op)
    return engine.line_in(attr, STORED_NONE) or engine.line_in_class(STORED_NONE)


def op_line(engine: Engine, diagnosis: str, op: str) -> int | None:
    """Where in the learner's class the op behind a diagnosis is written."""
    base, attr = diagnosis.partition(":")[0], CAPABILITY.get(op, op)
    grad = re.escape(engine.grad_attr)
    assigned = rf"\.{grad}\s*=(?!=)"
    if base in ("grad-assigned", "exp-grad-assigned", "grad-overwritten"):
        return engine.line_in(attr, assigned) or engine.line_in(attr, rf"\.{grad}\s*\+?=(?!=)") \
            or engine.line_in(attr, r"def ")
    if base == "wrong-local-derivative":
        return engine.line_in(attr, rf"\.{grad}\s*\+?=(?!=)") or engine.line_in(attr, r"def ")
    if base == "missing-radd":
        return engine.line_in("__add__", r"def ")
    if base == "missing-rsub":
        return engine.line_in("__sub__", r"def ")
    if base == "div-no-backward":
        return engine.line_in(attr, r"\bout\s*=") or engine.line_in(attr, r"return\s+\w+\(") \
            or engine.line_in(attr, r"def ")
    if base == "pow-negative-exponent":
        return engine.line_in(attr, r"\brange\(|\bwhile\b") or engine.line_in(attr, r"def ")
    if base == "wrong-forward" and op in CAPABILITY and not op.startswith("__"):
        return engine.line_in(attr, rf"\b{op}\s*\((?!self\s*\))") or engine.line_in(attr, r"def ")
    if base in ("exponent-as-value", "rmul-returns-float", "radd-returns-float",
                "op-returns-non-value", "wrong-forward", "pow-negative-base"):
        return engine.line_in(attr, r"def ")
    return None


def _placed(file: str | None, number: int | None) -> int | str | None:
    """A line of the checked file as a number; of another file as 'FILE, line N'."""
    if number is None or file is None:
        return number
    return f"{file}, line {number}"


def visited_twice_line(engine: Engine) -> int | str | None:
    """The line that lets a node into the order again: an `append` outside the `if v not in
    visited:` it belongs to, or a `visited.add(node)` after a pop with no skip of seen nodes;
    in backward() or a sort it calls, in whichever of the learner's files."""
    for file, source, first, last in engine.sort_spans():
        found = _visited_twice_in(source[first - 1:last])
        if found is not None:
            return _placed(file, first + found)
    return None


def _visited_twice_in(lines: list[str]) -> int | None:
    def indent(text: str) -> int:
        return len(text) - len(text.lstrip())

    for i, text in enumerate(lines):
        if re.match(r"\s*if\s+\w+\s+not\s+in\s+\w+\s*:", text):
            for j in range(i + 1, len(lines)):
                if lines[j].strip() and indent(lines[j]) < indent(text):
                    break
                if indent(lines[j]) == indent(text) and re.search(r"\.append\(", lines[j]):
                    return j
    if not any(re.match(r"\s*if\s+\w+\s+in\s+\w+\s*:", t) for t in lines):
        for j, text in enumerate(lines):
            if re.search(r"\w+\.add\(", text):
                return j
    if not any(re.search(r"\bin\s+\w+\s*:|\.add\(", t) for t in lines):
        for j, text in enumerate(lines):  # no visited set at all: every append lets one in
            if re.search(r"\.append\(", text) and not re.search(r"\bstack\b", text):
                return j
    return None


def limit_line(engine: Engine, diagnosis: str) -> int | str | None:
    """Where a design limit lives: the recursive call of the topological sort (in backward()
    or a helper it calls, in any of the learner's files), or the line of backward() that
    seeds the root's gradient (where resetting intermediate grads belongs)."""
    if diagnosis == "recursion-limit":
        for file, lines, first, last in engine.sort_spans():
            found = _recursive_call(lines, first, last)
            if found is not None:
                return _placed(file, found)
        return None
    span = engine.methods.get("backward")
    if not span:
        return None
    lines = engine.source_lines
    first, last = span[0], min(span[1], len(lines))
    if diagnosis == "stale-intermediate-grads":
        seed = rf"\.{re.escape(engine.grad_attr)}\s*=(?!=)\s*(1|1\.0*|np\.ones|numpy\.ones)\b"
        for number in range(first, last + 1):
            if re.search(seed, lines[number - 1]):
                return number
    return None


def _recursive_call(lines: list[str], first: int, last: int) -> int | None:
    """The first line calling a function defined within lines first..last from its own body."""
    nested: list[tuple[str, int]] = []
    for number in range(first, last + 1):
        found = re.match(r"(\s*)def (\w+)\s*\(", lines[number - 1])
        if found:
            nested.append((found.group(2), len(found.group(1))))
            continue
        for name, indent in nested:
            body = lines[number - 1]
            if len(body) - len(body.lstrip()) > indent and re.search(rf"\b{name}\s*\(", body):
                return number
    return None


# ------------------------------------------------------------------------------------------
# Verdicts by probe kind
# ------------------------------------------------------------------------------------------

def judge_grad(probe: Probe, runs: list[Observation], engine: Engine) -> ProbeResult:
    """Forward value and gradients of every run against the float reference."""
    walks: list[Observation] = [run["walk"] for run in runs if isinstance(run.get("walk"), dict)]
    record = result(probe)
    # the child stops at a run that raised: fewer runs than points is normal
    for point, run in zip(probe.run_points(), runs, strict=False):
        want = evaluate(probe.program, point)
        want_grads = central_differences(probe.program, point)
        record.expected = {"data": tidy(want), "grads": {n: tidy(g) for n, g in want_grads.items()}}
        if len(probe.points) > 1:
            record.expression = probe.expression().split("   with")[0] + "   with " + \
                ", ".join(f"{k} = {v:g}" for k, v in point.items())
        verdict = judge_run(probe, run, record, engine, want, want_grads)
        if verdict is not None:
            return verdict
    if any(w.get("twice") or w.get("early") for w in walks):
        return walk_verdict(record, walks) or record
    return record


def judge_run(probe: Probe, run: Observation, record: ProbeResult, engine: Engine, want: float,
              want_grads: dict[str, float]) -> ProbeResult | None:
    """A failed ProbeResult for a run that went wrong, else None."""
    error = run.get("error")
    if error is not None and run.get("stage") != "done":
        return from_exception(record, error, probe, engine, str(run.get("stage")))
    if run.get("result_type") != engine.name and "data" not in run:
        record.got = {"result": f"{run.get('result', '?')} (a {run.get('result_type')})"}
        diagnosis = {"rmul": "rmul-returns-float", "radd": "radd-returns-float"}.get(
            probe.op, f"op-returns-non-value:{probe.op or probe.id}")
        return failed(record, diagnosis, f"the result is a {run.get('result_type')}, not a "
                      f"{engine.name}: the graph is cut here and backward() never reaches "
                      "the inputs")
    data = run.get("data")
    record.got = {"data": shown(data)}
    if number(data) is None or not close(number(data), want):
        return failed(record, f"wrong-forward:{probe.op or probe.id}",
                      f"forward value {shown(data)}, expected {want:.6g}")
    if run.get("backward_is_none"):
        return failed(record, "backward-stored-none", "out._backward is None right after the op",
                      stored_none_line(engine, probe.op))
    if probe.group == "ops" and run.get("input_backward_replaced"):
        return failed(record, "backward-on-wrong-node",
                      "building the expression replaced an input's _backward",
                      engine.line_in(CAPABILITY.get(probe.op, ""), r"(self|other)\._backward\s*="))
    seed, grads = run.get("seed"), dict(run.get("grads") or {})
    record.got = {"data": shown(data), "output_grad": shown(seed),
                  "grads": {n: shown(g) for n, g in grads.items()}}
    values = [number(g) for g in list(grads.values()) + [seed]]
    if any(v is None for v in values):
        kinds = sorted({str(g.get("type")) for g in list(grads.values()) + [seed]
                        if isinstance(g, dict)})
        diagnosis = "exponent-as-value" if probe.op == "pow" else "grad-not-a-number"
        return failed(record, diagnosis, f"a .grad holds a {', '.join(kinds)} instead of a number")
    if all(v == 0 for v in values):
        return failed(record, "no-seed-gradient",
                      "after backward() every grad is 0, the output's too")
    if probe.op in ("truediv", "rtruediv") and probe.group != "reuse" and close(number(seed), 1.0) \
            and all(number(g) == 0 for g in grads.values()):
        return failed(record, "div-no-backward", "the output's grad is 1 but no input got any: "
                      "`/` makes its node without a _backward")
    if not close(number(seed), 1.0):
        return failed(record, "wrong-seed-gradient", f"the output's grad is {shown(seed)}, not 1")
    if all(close(number(grads.get(n)), w) for n, w in want_grads.items()):
        return None
    diagnosis = probe.mismatch
    if diagnosis == "wrong-topo-order" and isinstance(run.get("walk"), dict):
        walked = walk_verdict(record, [run["walk"]])
        if walked is not None:
            return walked
    # got exactly the op's own derivative: the `+ a` path's 1.0 was overwritten, else not
    assigned = diagnosis.startswith("grad-assigned") or diagnosis == "exp-grad-assigned"
    lost_a_path = any(close(number(grads.get(n)), w - 1.0) for n, w in want_grads.items())
    if probe.group == "reuse" and probe.program.endswith("+ a") and assigned \
            and not lost_a_path:
        diagnosis = f"wrong-local-derivative:{probe.op}"
    return failed(record, diagnosis, "gradients differ from central differences")


def walk_verdict(record: ProbeResult, walks: list[Observation]) -> ProbeResult | None:
    twice = max((int(w.get("twice") or 0) for w in walks), default=0)
    if twice:
        return failed(record, "node-visited-twice",
                      f"{twice} node(s) had their _backward run more than once")
    early = next((w["early"] for w in walks if w.get("early")), None)
    if early:
        return failed(record, "wrong-topo-order", f"a '{early[0]}' node ran its _backward "
                      f"before the '{early[1]}' node that uses it")
    return None


def judge_seed(probe: Probe, runs: list[Observation], engine: Engine) -> ProbeResult:
    record = result(probe, expected={"y.grad": 1.0, "a.grad": -3.0})
    run = runs[0]
    if run.get("error") is not None:
        return from_exception(record, run["error"], probe, engine, "structure")
    seed, grad = run.get("seed"), (run.get("grads") or {}).get("a")
    record.got = {"y.grad": shown(seed), "a.grad": shown(grad)}
    if close(number(seed), 1.0):
        return record
    if number(seed) == 0:
        return failed(record, "no-seed-gradient", "backward() left the output's own grad at 0")
    return failed(record, "wrong-seed-gradient", f"the output's grad is {shown(seed)}")


def judge_twice(probe: Probe, runs: list[Observation], engine: Engine) -> ProbeResult:
    """Two backward() calls: leaf gradients add up, as in PyTorch (twice one pass's)."""
    once = central_differences(probe.program.splitlines()[-1] if probe.backward_calls == 1
                               else probe.program, probe.inputs)
    want = {n: 2 * g for n, g in once.items()}
    record = result(probe, expected={n: tidy(g) for n, g in want.items()})
    run = runs[0]
    if run.get("error") is not None:
        return from_exception(record, run["error"], probe, engine, "structure")
    grads = {n: number((run.get("grads") or {}).get(n)) for n in want}
    record.got = {n: shown((run.get("grads") or {}).get(n)) for n in want}
    if all(close(grads[n], w) for n, w in want.items()):
        return record
    if all(close(grads[n], g) for n, g in once.items()):
        return failed(record, "backward-resets-grads",
                      "the second backward() replaced the gradient instead of adding to it")
    if probe.backward_calls == 2 and all(g is not None for g in grads.values()) and any(
            abs(grads[n] or 0.0) > abs(w) + ATOL_TWICE for n, w in want.items()):
        return failed(record, "stale-intermediate-grads",
                      "the second backward() reused the intermediate node's old grad")
    if all(g == 0 for g in grads.values()):
        return failed(record, "no-seed-gradient", "every gradient is 0 after backward()")
    return failed(record, "backward-twice-wrong", "unexpected gradients after two backward() calls")


ATOL_TWICE = 1e-6


RANGE_FAULTS = {"tanh": "tanh-overflow", "sigmoid": "sigmoid-overflow"}
UNDEFINED = {"OverflowError", "ZeroDivisionError", "ValueError"}


def judge_range(probe: Probe, runs: list[Observation], engine: Engine) -> ProbeResult:
    """An op at edge points, forward only: the value math gives, and no exception where math
    has an answer (exp past ~709 has none: no float holds it, so it is not judged)."""
    record = result(probe)
    got: Observation = {}
    expected: Observation = {}
    for point, run in zip(probe.run_points(), runs, strict=False):  # stops at a raise
        x = point["a"]
        key, want = f"{probe.op}({x:g})", evaluate(probe.program, point)
        if math.isnan(want):
            continue
        expected[key] = want
        if run.get("error") is not None:
            error = run["error"]
            record.got, record.expected = {key: error.get("message")}, {key: want}
            record.where = [str(w) for w in error.get("where", [])]
            if set(error.get("types", [])) & UNDEFINED and probe.op in RANGE_FAULTS:
                return failed(record, RANGE_FAULTS[probe.op], str(error.get("message")),
                              error.get("line"))
            return from_exception(record, error, probe, engine, "forward")
        value = number(run.get("data"))
        got[key] = shown(run.get("data"))
        if value is None or not close(value, want):
            record.got, record.expected = got, {key: want}
            diagnosis = "tanh-range" if probe.op == "tanh" else f"wrong-forward:{probe.op}"
            return failed(record, diagnosis, f"{key} gave {shown(run.get('data'))}, "
                          f"math gives {want:.6g}")
    record.got, record.expected = got, expected
    return record


def judge_construct(probe: Probe, report: Observation, engine: Engine) -> ProbeResult:
    record = result(probe, expression=f"{engine.name}(2.0)", expected={"data": 2.0, "grad": 0.0})
    record.got = {"data": shown(report.get("data")) if report.get("has_data") else "<missing>",
                  "grad": shown(report.get("grad")) if report.get("has_grad") else "<missing>"}
    if not (report.get("has_data") and report.get("has_grad")):
        return failed(record, "missing-data-or-grad", "the object needs .data and .grad")
    if number(report.get("data")) != 2.0:
        return failed(record, "wrong-forward:construct", "data is not the number given")
    if number(report.get("grad")) != 0:
        return failed(record, "grad-not-zero-initially", "a fresh Value's grad must be 0")
    return record


def judge_signature(probe: Probe, report: Observation, engine: Engine) -> ProbeResult:
    record = result(probe, expression=f"inspect.signature({engine.name}.__init__)")
    mutable = report.get("mutable") or []
    if not mutable:
        return record
    name, kind, text = (str(x) for x in mutable[0][:3])
    record.got, record.expected = {name: text}, {name: "()"}
    span = engine.methods.get("__init__")
    return failed(record, "mutable-default-children", f"parameter {name} defaults to a {kind}",
                  span[0] if span else None)


JUDGES: dict[str, Callable[[Probe, Any, Engine], ProbeResult]] = {
    "grad": judge_grad, "seed": judge_seed, "twice": judge_twice, "range": judge_range,
    "construct": judge_construct, "signature": judge_signature,
}


def missing_result(probe: Probe, engine: Engine) -> ProbeResult | None:
    """MISSING when the class lacks an op the probe needs (`2 + a` without __radd__ still runs:
    the TypeError is textbook pitfall 4, a failure)."""
    lacking = [c for c in probe.needs if not engine.has(c)
               and not (c in ("radd", "rmul") and engine.has(c[1:]))]
    if not lacking:
        return None
    diagnosis = f"missing-{lacking[0]}"
    return result(probe, status="missing", diagnosis=diagnosis,
                  detail="needs " + ", ".join(CAPABILITY[c] for c in lacking) + "; "
                         + not_written_yet(diagnosis),
                  line=op_line(engine, diagnosis, lacking[0]))


def judge(probe: Probe, report: Observation, engine: Engine) -> ProbeResult:
    """The verdict on one validated report; the pointer to the learner's line added."""
    if probe.kind in ("construct", "signature"):
        record = JUDGES[probe.kind](probe, report, engine)
    else:
        record = JUDGES[probe.kind](probe, list(report["runs"]), engine)
    if probe.fault and record.status == "fail" and (record.diagnosis or "").partition(":")[0] in (
            "wrong-forward", "wrong-local-derivative", "backward-raised", "exception-in-op"):
        raised = record.diagnosis in ("backward-raised", f"exception-in-op:{probe.op}")
        record.own_diagnosis, record.diagnosis = record.diagnosis, probe.fault
        if not (raised and record.line is not None):  # else: the line that raised
            record.line = op_line(engine, probe.fault, probe.op) or record.line
    if record.status == "fail" and record.diagnosis == "node-visited-twice":
        record.line = visited_twice_line(engine) or record.line
    if record.status in ("fail", "missing") and record.diagnosis in ("div-no-backward",
                                                                  "missing-radd"):
        record.line = op_line(engine, record.diagnosis, probe.op) or record.line
    if record.status == "fail" and record.line is None and record.diagnosis:
        record.line = op_line(engine, record.diagnosis, probe.op)
    return record


# ------------------------------------------------------------------------------------------
# The one "follows from" rule
# ------------------------------------------------------------------------------------------

# mistakes of their own: named even when an earlier probe failed too
OWN_MISTAKES = ("missing-radd", "missing-rmul", "missing-rsub", "missing-rtruediv",
                "rmul-returns-float", "radd-returns-float", "tanh-overflow",
                "backward-stored-none", "backward-on-wrong-node", "infinite-recursion",
                "recursion-limit", "eq-without-hash", "untrusted-report")


# how the learner's method for one op spells a use of another (source text, one line each)
OP_USE = {"add": r"\+(?!=)|__add__", "mul": r"(?<!\*)\*(?![*=])|__mul__",
          "pow": r"\*\*|__pow__|\bpow\(", "neg": r"(^|[(,=\s])-\s*[\w(]|__neg__",
          "sub": r"-(?!=)|__sub__", "truediv": r"/(?![/=])|__truediv__",
          "exp": r"\.exp\(", "tanh": r"\.tanh\(", "log": r"\.log\(", "relu": r"\.relu\("}


def proven_causes(probe: Probe, probe_ops: dict[str, str], engine: Engine) -> tuple[str, ...]:
    """The probes in `after` that this probe's failure may follow from, as the learner's code
    shows it: an earlier op counts only if the learner's method for this op uses it (`/` that
    never calls `**` can't fail because of pow). Graph-walk and structural probes stay."""
    span = engine.methods.get(CAPABILITY.get(probe.op, ""))
    if not span:
        return probe.after
    body = engine.source_lines[span[0] - 1:span[1]]
    kept = []
    for earlier in probe.after:
        op = probe_ops.get(earlier, "")
        if op == probe.op or op not in OP_USE \
                or any(re.search(OP_USE[op], line.split("#")[0]) for line in body[1:]):
            kept.append(earlier)
    return tuple(kept)


def follows_from(record: ProbeResult, after: tuple[str, ...], failed: dict[str, str]) -> None:
    """A FAIL or ERROR of a probe whose `after` probe failed earlier is named after that one:
    its diagnosis becomes the earlier probe's, `consequence_of` says which. Mistakes that are
    their own (OWN_MISTAKES) keep their name. The first failed probe in `after` wins."""
    own = record.diagnosis or ""
    if record.status in ("fail", "error") and not own.startswith(OWN_MISTAKES):
        for earlier in after:
            if earlier in failed:
                record.own_diagnosis = record.diagnosis
                record.consequence_of = earlier
                record.diagnosis = failed[earlier]
                if record.diagnosis in NEXT_STEP:  # needs an op not written yet: not a bug
                    record.status = "missing"
                break
    if record.diagnosis and (record.status in ("fail", "error") or (
            record.status == "missing" and record.diagnosis in NEXT_STEP)):
        failed[record.id] = record.diagnosis
