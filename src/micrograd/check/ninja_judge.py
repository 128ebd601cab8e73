"""Judging a backprop-ninja run: each manual gradient against autograd's (as the lecture's
`cmp` does), and every wrong one named by the hypothesis it equals (`ninja_rules`).

Input: the recorder's events and blobs, and the learner's source as `Program` (where each
`dX` is written, where `cmp` is called). Output: one `NinjaResult` per gradient observed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from micrograd.check.ninja_rules import (
    ORDER,
    VARIABLES,
    Forward,
    Gradient,
    Mistake,
    close,
    evaluate,
    rules_for,
    true_gradients,
)
from micrograd.check.ninja_source import FORWARD, Program, Write
from micrograd.check.report import ProbeResult

SHOWN = 4  # values shown of a tensor


@dataclass
class NinjaResult(ProbeResult):
    """A gradient's verdict; `fix` is the line to write for this gradient."""

    fix: str = ""
    name: str = ""   # the gradient, e.g. "dcounts" (the id may add "(one expression)")
    fused: bool = False  # judged as the one-expression exercise (dlogits, dhprebn)
    cmp: str = ""    # the lecture's cmp line for it: exact | approximate | maxdiff
    code: str = ""   # the learner's line that `line` points at

    def to_dict(self) -> dict[str, Any]:
        return dict(super().to_dict(), fix=self.fix, gradient=self.name, cmp=self.cmp,
                    code=self.code)


# ------------------------------------------------------------------------------------------
# Observations: one learner gradient, its autograd twin, and the namespace around it
# ------------------------------------------------------------------------------------------

@dataclass
class Observation:
    name: str                      # "dcounts"
    value: np.ndarray              # the learner's tensor
    auto: np.ndarray | None        # autograd's .grad of the same tensor (if there was one)
    space: dict[str, np.ndarray]   # the part-4 names bound at that moment
    keys: dict[str, str]           # their blob keys
    line: int                      # the cmp call, or the last line of the cell/statement
    key: str                       # the learner's tensor's blob key
    via: str                       # "cmp" or "name"


def observations(events: list[dict[str, Any]], blobs: Mapping[str, np.ndarray],
                 program: Program) -> list[Observation]:
    """The learner's cmp calls; without them (or for gradients they skip), each new value
    a `dX` took while the forward pass of its first appearance was current."""
    found: list[Observation] = []

    def space_of(event: dict[str, Any]) -> dict[str, np.ndarray]:
        return {name: blobs[key] for name, key in event["space"].items() if key in blobs}

    for event in events:
        if event["kind"] != "cmp" or event.get("grad") not in blobs:
            continue
        var = program.cmp_tensor(event["line"])
        var = var if var in VARIABLES else (event["label"] if event["label"] in VARIABLES
                                            else None)
        if var is None:
            continue
        auto = blobs.get(event.get("auto") or "")
        found.append(Observation("d" + var, blobs[event["grad"]], auto, space_of(event),
                                 event["space"], event["line"], event["grad"], "cmp"))
    # without a cmp for it: the value the last `dX = ...` block (its `=` and the `+=` after
    # it) left behind, one for the step-by-step rule and one for the one expression, while
    # the forward pass of the first such value was current (an earlier block overwritten
    # by a later one is the `=` that should have been `+=`: the later one shows it)
    compared = {obs.name for obs in found}
    epoch: str | None = None
    blocks: dict[tuple[str, bool], dict[str, Any]] = {}
    for event in events:
        if event["kind"] != "unit":
            continue
        space = event["space"]
        if epoch is None and any(name in space for name in ORDER):
            epoch = space.get("loss")
        if epoch is None or space.get("loss") != epoch:
            continue  # a later forward pass (the training loop of exercise 4)
        for name in ORDER:
            if name in space and name not in compared and space[name] in blobs:
                blocks[(name, _rule(name, program.block(name, event["line"])).fused)] = event
    for (name, _), event in blocks.items():
        arrays = space_of(event)
        found.append(Observation(name, arrays[name], arrays.get(name[1:] + ".grad"), arrays,
                                 event["space"], event["line"], event["space"][name], "name"))
    return found


# ------------------------------------------------------------------------------------------
# Judging
# ------------------------------------------------------------------------------------------

def judge(found: list[Observation], program: Program,
          raised: Mapping[int, str] | None = None) -> list[NinjaResult]:
    """One result per observation, in backward order (upstream gradients judged first).
    `raised`: the lines whose statement raised ({line: message}) in the learner's run."""
    order = {name: k for k, name in enumerate(ORDER)}
    results: list[NinjaResult] = []
    verdicts: dict[tuple[str, str], NinjaResult] = {}
    truths: dict[tuple[str, ...], dict[str, np.ndarray]] = {}
    for obs in sorted(found, key=lambda o: (order[o.name], o.line)):
        result = _judge_one(obs, program, truths, verdicts, raised or {})
        if isinstance(result.line, int):  # a line of the program -> 'cell 12, line 5'
            result.code = program.text(result.line)
            result.line = program.place(result.line)
        if any(r.name == obs.name for r in results):  # dlogits again, in exercise 2
            where = "one expression" if result.fused else f"at {program.place(obs.line)}"
            result.id = f"{obs.name} ({where})"
        verdicts[(obs.name, obs.key)] = result
        results.append(result)
    return results


def never_computed(program: Program, results: list[NinjaResult],
                   raised: Mapping[int, str]) -> list[NinjaResult]:
    """Gradients the file writes that never got a value because a line raised first; when
    that was a gradient's own line, they follow from its first mistake."""
    if not raised:
        return []
    line = min(raised)
    seen = {result.name for result in results}
    stopper = next((r for r in results if r.own_diagnosis == "gradient-line-raised"), None)
    out: list[NinjaResult] = []
    for name in ORDER:
        if not program.writes.get(name) or name in seen:
            continue
        result = NinjaResult(name, "ninja", "error", f"compute {name}", "gradient-not-computed",
                             detail=f"{name} never got a value: {raised[line]}",
                             line=program.place(line), name=name, code=program.text(line))
        if stopper is not None:
            result.own_diagnosis = result.diagnosis
            result.consequence_of = stopper.consequence_of or stopper.name
            result.diagnosis = stopper.diagnosis
        out.append(result)
    return out


def _judge_one(obs: Observation, program: Program,
               truths: dict[tuple[str, ...], dict[str, np.ndarray]],
               verdicts: dict[tuple[str, str], NinjaResult],
               raised: Mapping[int, str]) -> NinjaResult:
    """PASS as cmp; else the first of: its line raised, right given the learner's wrong
    upstream gradient (a consequence), a named mistake (from the right upstream gradients,
    then from the learner's), no known mistake."""
    block = program.block(obs.name, obs.line)
    line = block[-1].line if block else None
    result = NinjaResult(obs.name, "ninja", "fail", name=obs.name, line=line)
    try:
        forward = Forward(obs.space)
    except KeyError as missing:
        result.status, result.diagnosis = "error", "forward-not-found"
        result.detail = f"the forward tensors {missing.args[0]} are not defined where {obs.name} " \
                        "is checked; the checker needs the lecture's names"
        return result
    except (ValueError, IndexError, TypeError) as error:
        result.status, result.diagnosis = "error", "forward-not-found"
        result.detail = f"the forward tensors are not the lecture's shapes ({error})"
        return result
    fkey = tuple(sorted(f"{k}={v}" for k, v in obs.keys.items() if k in FORWARD))
    if fkey not in truths:
        truths[fkey] = true_gradients(forward)
    truth = truths[fkey]
    rule = _rule(obs.name, block)
    result.fix, result.expression = rule.fix, rule.fix.splitlines()[-1].split("  #")[0]
    result.fused = rule.fused
    right = truth[obs.name]
    reference = obs.auto if obs.auto is not None and obs.auto.shape == right.shape else right
    mine = np.asarray(obs.value, dtype=np.float64)
    result.expected = _summary(reference)
    result.got = _summary(mine)
    status, result.cmp = _cmp(mine, reference, obs.auto is not None)
    if obs.via == "name":
        result.cmp += " (paired by name: no cmp call for it ran)"
    if status == "pass" and mine.shape == reference.shape:
        result.status = "pass"
        return result
    diagnosis = _shape_mistake(mine, right)
    if diagnosis is not None:
        result.status = "warn" if status == "pass" else "fail"
        result.diagnosis, says = diagnosis
        result.detail = says
        return result
    learner = _learner_view(obs.space, truth, rule)
    wrong = [u for u in rule.upstream if u in obs.space and not close(learner[u], truth[u])]
    failed_line = next((w.line for w in program.writes.get(obs.name, []) if w.line in raised
                        and w.line <= obs.line), None)
    if failed_line is not None:  # e.g. `dcounts += ...` raised: it holds one branch only
        result.status, result.line = "error", failed_line
        result.diagnosis = result.own_diagnosis = "gradient-line-raised"
        result.detail = f"the line that writes {obs.name} raised: {raised[failed_line]}"
        upstream = next((verdicts.get((u, obs.keys.get(u, ""))) for u in wrong), None)
        if upstream is not None:
            result.consequence_of = upstream.consequence_of or upstream.name
            result.diagnosis = upstream.diagnosis
            result.detail += f" (your {upstream.name} has the wrong shape or values)"
        return result
    # rounding noise of the learner's upstream gradients: a gradient that is 0 in exact
    # arithmetic (db1 after BatchNorm, dlogit_maxes) is that noise in float32
    noise = 1e-5 * max([float(np.abs(learner[u]).max(initial=0.0)) for u in rule.upstream],
                       default=0.0)
    if wrong:  # first: is it right given the learner's own (wrong) upstream gradients?
        first = wrong[0]
        upstream = verdicts.get((first, obs.keys.get(first, "")))
        root = (upstream.consequence_of or first) if upstream else first
        expected_from_yours = evaluate(rule.rule, forward, learner)
        if expected_from_yours is not None and close(mine, expected_from_yours, noise):
            result.consequence_of = root
            result.own_diagnosis = "follows-from-upstream"
            result.diagnosis = upstream.diagnosis if upstream and upstream.diagnosis \
                else "follows-from-upstream"
            result.detail = f"right given your {first}, which is wrong: fix {root} first"
            return result
    # a mistake may read another gradient of the learner's (dW2 where W2 belongs)
    extras = {name: learner[name] for name in rule.extra if name in obs.space}
    matched = _matching_mistake(rule.mistakes, forward, dict(truth, **extras), mine, right)
    if matched is not None:
        _name(result, matched, block)
        return result
    if wrong:
        matched = _matching_mistake(rule.mistakes, forward, learner, mine, right)
        if matched is not None:
            _name(result, matched, block)
            result.detail += f"; your {first} is wrong too (fix {root} first)"
            return result
    result.diagnosis = "no-known-mistake"
    result.detail = f"no known mistake gives your {obs.name}; {_where(mine, right)}"
    return result


def _rule(name: str, block: list[Write]) -> Gradient:
    """Step by step or the one expression: the rule whose upstream gradients the learner's
    lines use (dlogits from dnorm_logits, or from logits alone)."""
    rules = rules_for(name)
    refs = frozenset().union(*(w.refs for w in block)) if block else frozenset()
    if len(rules) == 1 or not block:
        return rules[0]
    # the rule whose upstream gradients the lines use; none (dlogits from logits alone):
    # the one expression
    return max(rules, key=lambda r: (len(set(r.upstream) & refs), r.fused))


def _learner_view(space: Mapping[str, np.ndarray], truth: dict[str, np.ndarray],
                  rule: Gradient) -> dict[str, np.ndarray]:
    view = dict(truth)
    for name in rule.upstream + rule.extra:
        if name in space:
            view[name] = np.asarray(space[name], dtype=np.float64)
    return view


def _matching_mistake(mistakes: tuple[Mistake, ...], forward: Forward,
                      grads: Mapping[str, np.ndarray], mine: np.ndarray,
                      right: np.ndarray) -> Mistake | None:
    for mistake in mistakes:
        value = evaluate(mistake.value, forward, grads)
        if value is not None and close(mine, value) and not close(value, right):
            return mistake
    return None


def _name(result: NinjaResult, mistake: Mistake, block: list[Write]) -> None:
    result.diagnosis = mistake.diagnosis
    result.detail = f"your {result.name} equals {mistake.says}"
    if mistake.line == "assign":
        assigns = [w for w in block if w.kind == "="]
        if assigns:
            result.line = assigns[-1].line


def _shape_mistake(mine: np.ndarray, right: np.ndarray) -> tuple[str, str] | None:
    """The right numbers in the wrong shape: keepdim lost or one dimension too many."""
    if mine.shape == right.shape or mine.size != right.size \
            or not close(mine.reshape(right.shape), right):
        return None
    if len(mine.shape) < len(right.shape):
        return "keepdim-lost", (f"the right numbers, shape {tuple(mine.shape)} instead of "
                                f"{tuple(right.shape)}: keepdim=True was lost in a sum")
    if len(mine.shape) > len(right.shape):
        return "keepdim-extra", (f"the right numbers, shape {tuple(mine.shape)} instead of "
                                 f"{tuple(right.shape)}: a size-1 dimension too many")
    return None


def _cmp(mine: np.ndarray, reference: np.ndarray, autograd: bool) -> tuple[str, str]:
    """The lecture's cmp line (exact / approximate / maxdiff, broadcasting as torch does):
    against autograd's .grad with torch.allclose's tolerances, else against the float64
    reference with float32 rounding allowed."""
    try:
        a, b = np.broadcast_arrays(mine, reference)
    except ValueError:
        return "fail", (f"shapes {tuple(mine.shape)} and {tuple(reference.shape)} do not "
                        "broadcast: cmp raises")
    exact = bool(np.array_equal(a, b))
    if autograd:
        approximate = bool(np.allclose(a, b, rtol=1e-5, atol=1e-8))
    else:
        approximate = close(np.ascontiguousarray(a), np.ascontiguousarray(b))
    with np.errstate(all="ignore"):
        maxdiff = float(np.abs(a - b).max(initial=0.0))
    text = f"exact: {exact} | approximate: {approximate} | maxdiff: {maxdiff:.3g}"
    if not autograd:
        text += " (against the checker's float64 gradient: no autograd .grad to compare)"
    return ("pass" if approximate else "fail"), text


def _where(mine: np.ndarray, right: np.ndarray) -> str:
    if mine.shape != right.shape:
        return f"its shape is {tuple(mine.shape)}, the gradient's is {tuple(right.shape)}"
    with np.errstate(all="ignore"):
        diff = np.abs(mine - right)
    index = np.unravel_index(int(np.nanargmax(diff)), diff.shape) if diff.size else ()
    at = tuple(int(i) for i in index)
    return (f"largest difference {float(diff[at]):.3g} at {list(at)} (yours "
            f"{float(mine[at]):.4g}, right {float(right[at]):.4g})")


def _summary(array: np.ndarray) -> dict[str, Any]:
    flat = np.asarray(array, dtype=np.float64).reshape(-1)
    return {"shape": list(np.shape(array)),
            "values": [float(f"{v:.6g}") for v in flat[:SHOWN]]}
