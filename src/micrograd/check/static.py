"""Checks read from the learner's source with `ast` (parsed, never executed).

Some mistakes live in code the checker must not run: the training loop at the bottom of a
notebook, a numerical-gradient helper, the training labels. Reading the syntax tree finds them.
"""

from __future__ import annotations

import ast
import contextvars
import time
from collections.abc import Iterator
from dataclasses import dataclass

from micrograd.check.source import parse

# when the scan must stop (--timeout covers the parent's own work); per thread of checking
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("deadline", default=None)


class ScanTimeout(Exception):
    """The source scan ran past its deadline."""


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """ast.walk that gives up (ScanTimeout) once the scan's deadline has passed."""
    deadline = _DEADLINE.get()
    for count, sub in enumerate(ast.walk(node)):
        if deadline is not None and count % 2048 == 0 and time.monotonic() > deadline:
            raise ScanTimeout("the source scan ran out of time")
        yield sub


STEP_NAMES = {"h", "eps", "epsilon", "delta", "dx", "step"}
LABEL_NAMES = {"ys", "y", "Y", "labels", "targets", "y_true", "ygt", "y_train", "Y_train"}


@dataclass
class Finding:
    """A diagnosis found in the source: id, line, what was seen."""

    diagnosis: str
    line: int
    detail: str
    status: str  # "fail": each source finding is a real bug (see the README's exit code)
    code: str = ""  # the source line itself


def _assigns_grad(node: ast.AST) -> bool:
    """p.grad = 0 (a reset), not p.grad += ... (accumulation) nor the seed p.grad = 1."""
    if isinstance(node, ast.Assign) and _number(node.value) in (0.0, None):
        return any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in node.targets)
    return False


def _is_backward_driver(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """backward() itself resets inner nodes; calling it is not zeroing the parameters."""
    return fn.name in ("backward", "_backward") or any(
        _calls(sub, "_backward") for sub in _walk(fn))


def _calls(node: ast.AST, attr: str) -> bool:
    return isinstance(node, ast.Call) and (
        (isinstance(node.func, ast.Attribute) and node.func.attr == attr)
        or (isinstance(node.func, ast.Name) and node.func.id == attr))


def _called_names(node: ast.AST) -> set[str]:
    names = set()
    for sub in _walk(node):
        if isinstance(sub, ast.Call):
            if isinstance(sub.func, ast.Name):
                names.add(sub.func.id)
            elif isinstance(sub.func, ast.Attribute):
                names.add(sub.func.attr)
    return names


def _updates_data(node: ast.AST) -> bool:
    for sub in _walk(node):
        if isinstance(sub, (ast.AugAssign, ast.Assign)):
            targets = [sub.target] if isinstance(sub, ast.AugAssign) else sub.targets
            if any(isinstance(t, ast.Attribute) and t.attr == "data" for t in targets):
                return True
        if _calls(sub, "step"):  # optimizer.step()
            return True
    return False


def training_loops_without_zeroing(tree: ast.Module) -> list[Finding]:
    """Loops that call .backward() and update .data but never reset .grad inside the loop."""
    zeroing_functions = {
        fn.name for fn in _walk(tree)
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef))
        and not _is_backward_driver(fn) and any(_assigns_grad(sub) for sub in _walk(fn))
    } | {"zero_grad"}
    findings: list[Finding] = []
    inside_flagged: set[int] = set()  # nodes of loops already reported (one finding per nest)
    for loop in _walk(tree):
        if not isinstance(loop, (ast.For, ast.While)):
            continue
        if id(loop) in inside_flagged:
            continue
        body = ast.Module(body=loop.body, type_ignores=[])
        if not any(_calls(sub, "backward") for sub in _walk(body)):
            continue
        if not _updates_data(body):
            continue
        zeroes = any(_assigns_grad(sub) for sub in _walk(body)) or (
            _called_names(body) & zeroing_functions)
        if not zeroes:
            inside_flagged |= {id(sub) for sub in _walk(loop)}
            findings.append(Finding(
                "no-zero-grad", loop.lineno,
                f"the loop at line {loop.lineno} calls backward() and updates p.data, "
                "but never sets p.grad = 0 (or calls zero_grad()) inside the loop", "fail"))
    return findings


def _number(node: ast.AST) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _number(node.operand)
        return None if inner is None else -inner
    return None


def _scaled_name(node: ast.AST) -> str | None:
    """`h`, `2 * h`, `h * 2.0` -> 'h'; anything else (e.g. `sqrt(v) + eps`) -> None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
        for factor, other in ((node.left, node.right), (node.right, node.left)):
            if isinstance(factor, ast.Name) and _number(other) is not None:
                return factor.id
    return None


def difference_quotient_steps(tree: ast.Module) -> set[str]:
    """Names used as the step of a difference quotient: (f(x+h) - f(x)) / h or / (2*h).

    An `eps = 1e-12` added inside a log, or Adam's `/ (sqrt(v) + eps)`, is not a step.
    """
    steps = set()
    for node in _walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) \
                and isinstance(node.left, ast.BinOp) and isinstance(node.left.op, ast.Sub):
            name = _scaled_name(node.right)
            if name:
                steps.add(name)
    return steps


def tiny_finite_difference_step(tree: ast.Module) -> list[Finding]:
    """h = 1e-10 (or a parameter h=1e-10) as the step of a difference quotient: rounding wins."""
    findings = []
    steps = difference_quotient_steps(tree) & STEP_NAMES
    for node in _walk(tree):
        pairs: list[tuple[str, ast.AST, int]] = []
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # `defaults` belong to the last positional parameters, positional-only ones too
            positional = node.args.posonlyargs + node.args.args
            args = positional + node.args.kwonlyargs
            defaults = [None] * (len(positional) - len(node.args.defaults)) \
                + list(node.args.defaults) + list(node.args.kw_defaults)
            pairs += [(a.arg, d, node.lineno) for a, d in zip(args, defaults, strict=True)
                      if d is not None]
        elif isinstance(node, ast.Assign):
            pairs += [(t.id, node.value, node.lineno) for t in node.targets
                      if isinstance(t, ast.Name)]
        for name, value, line in pairs:
            number = _number(value)
            if name in steps and number is not None and 0 < number < 1e-8:
                findings.append(Finding(
                    "h-too-small", line, f"{name} = {number:g} at line {line} is the step of a "
                    f"difference quotient (... - ...) / {name}", "fail"))
    return findings


def _defines(cls: ast.ClassDef, name: str) -> bool:
    return any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name
               for item in cls.body)


def tanh_used_by_the_model(tree: ast.Module) -> bool:
    """A tanh call outside the engine class that defines tanh (a neuron or the training code).

    Every lecture engine has a tanh method; only a model that calls it has a tanh output.
    """
    inside_engine: set[int] = set()
    for cls in _walk(tree):
        if isinstance(cls, ast.ClassDef) and _defines(cls, "tanh"):
            inside_engine |= {id(sub) for sub in _walk(cls)}
    for node in _walk(tree):
        if isinstance(node, ast.Call) and id(node) not in inside_engine and (
                (isinstance(node.func, ast.Attribute) and node.func.attr == "tanh")
                or (isinstance(node.func, ast.Name) and node.func.id == "tanh")):
            return True
    return False


def zero_one_labels_with_tanh(tree: ast.Module, source: str) -> list[Finding]:
    """ys = [0, 1, 1, 0] in a file whose model calls tanh (the nn probe confirms the output)."""
    if "tanh" not in source or not tanh_used_by_the_model(tree):
        return []
    findings = []
    for node in _walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.List, ast.Tuple)):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            values = [_number(e) for e in node.value.elts]
            if names and names[0] in LABEL_NAMES and len(values) >= 2 \
                    and all(v in (0.0, 1.0) for v in values) and set(values) == {0.0, 1.0}:
                findings.append(Finding("labels-outside-tanh-range", node.lineno,
                                        f"{names[0]} = {[int(v or 0) for v in values]} at line "
                                        f"{node.lineno}, and the model calls tanh", "fail"))
    return findings


def static_findings(source: str, deadline: float | None = None,
                    tree: ast.Module | None = None) -> list[Finding]:
    """All source-level findings; raises SyntaxError if the source does not parse, and
    ScanTimeout once time.monotonic() passes `deadline`. `tree`: the source already parsed."""
    tree = tree if tree is not None else parse(source)
    token = _DEADLINE.set(deadline)
    try:
        return _findings(tree, source)
    finally:
        _DEADLINE.reset(token)


def _findings(tree: ast.Module, source: str) -> list[Finding]:
    findings = (training_loops_without_zeroing(tree) + tiny_finite_difference_step(tree)
                + zero_one_labels_with_tanh(tree, source))
    lines = source.splitlines()
    for finding in findings:
        if 1 <= finding.line <= len(lines):
            finding.code = lines[finding.line - 1].strip()
    return findings
