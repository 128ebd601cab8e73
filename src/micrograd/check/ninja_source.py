"""The learner's part-4 source, read without running it and without numpy: the lecture's
forward names, where each `dX` is written and `cmp` called (`Program`), and whether a file is
a backprop-ninja exercise at all (`micrograd check FILE` asks this for every file).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from micrograd.check.source import parse_for_checks, read_learner

# the forward pass of makemore part 4, in its order (the names the lecture gives them)
FORWARD = ("C", "Xb", "Yb", "emb", "embcat", "W1", "b1", "hprebn", "bnmeani", "bndiff",
           "bndiff2", "bnvar", "bnvar_inv", "bnraw", "bngain", "bnbias", "hpreact", "h",
           "W2", "b2", "logits", "logit_maxes", "norm_logits", "counts", "counts_sum",
           "counts_sum_inv", "probs", "logprobs", "loss")


@dataclass(frozen=True)
class Write:
    line: int
    name: str
    kind: str  # "=", "+=" (any augmented op) or "[]" (an item assignment)
    refs: frozenset[str]


@dataclass
class Program:
    """The static facts `judge` needs; `place` turns a line into 'cell 12, line 5'."""

    writes: dict[str, list[Write]] = field(default_factory=dict)
    cmps: list[tuple[int, int, str | None]] = field(default_factory=list)  # span, t's name
    lines: list[str] = field(default_factory=list)
    place: Callable[[int], int | str | None] = lambda line: line

    @classmethod
    def scan(cls, tree: ast.AST, text: str,
             place: Callable[[int], int | str | None] | None = None) -> Program:
        program = cls(lines=text.splitlines(), place=place or (lambda line: line))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                refs = frozenset(n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)) \
                    if node.value is not None else frozenset()
                for target in targets:
                    for name, kind in _targets(target, isinstance(node, ast.AugAssign)):
                        program.writes.setdefault(name, []).append(
                            Write(node.lineno, name, kind, refs))
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                    and node.func.id == "cmp" and len(node.args) >= 3:
                tensor = node.args[2].id if isinstance(node.args[2], ast.Name) else None
                program.cmps.append((node.lineno, node.end_lineno or node.lineno, tensor))
        for writes in program.writes.values():
            writes.sort(key=lambda w: w.line)
        return program

    def cmp_tensor(self, line: int) -> str | None:
        return next((name for first, last, name in self.cmps if first <= line <= last), None)

    def block(self, name: str, line: int) -> list[Write]:
        """The writes that made `name`'s value seen at `line`: the last `=` and after."""
        writes = [w for w in self.writes.get(name, []) if w.line <= line]
        starts = [k for k, w in enumerate(writes) if w.kind == "="]
        return writes[starts[-1]:] if starts else writes

    def text(self, line: int | None) -> str:
        if line is None or not 1 <= line <= len(self.lines):
            return ""
        return self.lines[line - 1].strip()


def _targets(target: ast.expr, augmented: bool) -> list[tuple[str, str]]:
    if isinstance(target, ast.Name):
        return [(target.id, "+=" if augmented else "=")]
    if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
        return [(target.value.id, "[]")]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [pair for element in target.elts for pair in _targets(element, augmented)]
    return []


def looks_like_ninja(tree: ast.AST) -> bool:
    """A file that defines `cmp` and writes three or more of part 4's d-gradients."""
    defines_cmp = any(isinstance(node, ast.FunctionDef) and node.name == "cmp"
                      for node in ast.walk(tree))
    written = {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign)
               for target in node.targets if isinstance(target, ast.Name)}
    return defines_cmp and len(written & {"d" + name for name in FORWARD if name != "loss"}) >= 3


def is_ninja_file(path: str | Path) -> bool:
    """For `micrograd check FILE` without --ninja: should this file get the ninja check?"""
    try:
        _, tree = parse_for_checks(read_learner(Path(path)))
    except (ValueError, SyntaxError, OSError):
        return False
    return looks_like_ninja(tree)
