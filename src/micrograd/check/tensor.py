"""Probes for a learner's numpy `Tensor` engine (the textbook's P1 chapter), as data.

A probe is a few steps of array ops on small leaves, ending in a scalar loss; the child runs
the steps on the learner's class (ops from a fixed table, never from text) and reports the
loss and every leaf's gradient as nested lists. Here, the same computation is written with
numpy (`reference`), its gradients come from central differences of it, and the two are
compared. Most probes end in `(y * R).sum()` with a fixed R of mixed signs, so a gradient
that is right only for an all-ones upstream gradient still shows.

numpy is imported only when a Tensor engine is checked (`import micrograd` stays standard
library only); the learner's engine needs it anyway.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from micrograd.check.report import ProbeResult
from micrograd.check.verdicts import Engine, concrete_advice

Steps = list[tuple[str, str, list[str], dict[str, Any]]]
ArrayFn = Callable[..., Any]
RTOL, ATOL, H = 1e-4, 1e-6, 1e-6


@dataclass(frozen=True, kw_only=True)
class TensorProbe:
    """One computation on Tensor leaves, and the diagnosis any failure of it means."""

    id: str
    steps: Steps
    inputs: dict[str, list[Any]]
    reference: ArrayFn       # numpy: (leaf arrays...) -> the scalar loss
    op: str                  # the op under test (for the line pointer)
    diagnosis: str           # what a wrong value, wrong gradient or exception here means
    needs: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    forward_only: bool = False
    backward_calls: int = 1
    title: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def request(self, timeout: float, one_hot: bool = False) -> dict[str, Any]:
        """The child's request; `one_hot` gives cross_entropy its targets as 0/1 rows."""
        steps = [[target, op, args, dict(params, one_hot=True, classes=3)
                  if one_hot and op == "cross_entropy" else params]
                 for target, op, args, params in self.steps]
        return {"do": "tensor", "steps": steps, "inputs": self.inputs,
                "backward_calls": 0 if self.forward_only else self.backward_calls,
                "timeout": timeout}


# fixed inputs: small, no ties at 0 for relu, positive for log
X23 = [[0.5, -1.2, 2.0], [-0.3, 0.8, -1.5]]
Y23 = [[1.5, 0.4, -0.7], [2.2, -0.9, 0.3]]
R23 = [[0.7, -1.1, 0.4], [-0.6, 1.3, 0.9]]
X34 = [[0.2, -0.5, 1.1, 0.3], [-1.0, 0.6, 0.1, -0.4], [0.9, -0.2, -0.8, 1.4]]
B4 = [0.5, -1.5, 0.25, 2.0]
R34 = [[0.3, -0.8, 1.2, 0.5], [-1.1, 0.4, 0.7, -0.2], [0.9, -0.6, -0.3, 1.0]]
W34 = [[0.4, -0.2, 0.9, 0.1], [-0.7, 0.5, 0.3, -1.2], [0.6, 0.8, -0.4, 0.2]]
R24 = [[0.5, -1.0, 0.8, 0.3], [1.2, -0.4, -0.9, 0.6]]
R32 = [[0.4, -0.9], [1.1, 0.2], [-0.5, 0.7]]
POSITIVE = [[0.5, 1.2, 2.0], [0.3, 0.8, 1.5]]
LOGITS = [[2.0, -1.0, 0.5], [0.1, 1.5, -0.3]]
HUGE_LOGITS = [[1000.0, 0.0, -1000.0], [-1000.0, 1000.0, -800.0]]  # p(target) ~ e^-1800
TARGETS = [0, 2]


def weighted(name: str, r: str) -> Steps:
    """`loss = (name * r).sum()`: a mixed-sign upstream gradient for the op's output."""
    return [("_w", "mul", [name, r], {}), ("loss", "sum", ["_w"], {})]


def _np() -> Any:
    import numpy
    return numpy


def _softmax(x: Any) -> Any:
    np = _np()
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _cross_entropy(x: Any, targets: list[int]) -> Any:
    np = _np()
    m = x.max(axis=1, keepdims=True)
    lse = m[:, 0] + np.log(np.exp(x - m).sum(axis=1))
    return (lse - x[np.arange(len(targets)), targets]).mean()


def unary(op: str, x: list[Any], fn: ArrayFn, diagnosis: str = "") -> TensorProbe:
    return TensorProbe(id=f"t-{op}", steps=[("y", op, ["x"], {})] + weighted("y", "r"),
                       inputs={"x": x, "r": R23}, reference=lambda x, r: (fn(x) * r).sum(),
                       op=op, diagnosis=diagnosis or f"wrong-local-derivative:{op}",
                       needs=(op,), after=HARNESS, title=f"(x.{op}() * r).sum()")


HARNESS = ("t-sum", "t-mul")


def chain_steps(length: int) -> Steps:
    """y = x + c, `length` times, then .sum(): deep enough for a recursive sort to fail."""
    steps: Steps = [("y0", "add", ["x", "c"], {})]
    steps += [(f"y{i}", "add", [f"y{i - 1}", "c"], {}) for i in range(1, length)]
    steps.append(("loss", "sum", [f"y{length - 1}"], {}))
    return steps


def tensor_probes() -> list[TensorProbe]:
    """The probes in the order they run: the harness ops (sum, *) first, each op on its own."""
    np = _np()
    reduce_steps: list[tuple[str, dict[str, Any], list[Any]]] = [
        ("t-sum-axis0", {"axis": 0}, R23[0][:3]),
        ("t-sum-axis1", {"axis": 1}, [0.8, -1.3]),
        ("t-sum-axis1-keepdims", {"axis": 1, "keepdims": True}, [[0.8], [-1.3]]),
    ]
    probes = [
        TensorProbe(id="t-sum", steps=[("loss", "sum", ["x"], {})], inputs={"x": X23},
                    reference=lambda x: x.sum(), op="sum", diagnosis="wrong-local-derivative:sum",
                    needs=("sum",), title="x.sum()"),
        TensorProbe(id="t-mul", steps=[("y", "mul", ["x", "z"], {}), ("loss", "sum", ["y"], {})],
                    inputs={"x": X23, "z": Y23}, reference=lambda x, z: (x * z).sum(), op="mul",
                    diagnosis="wrong-local-derivative:mul", needs=("mul", "sum"),
                    after=("t-sum",), title="(x * z).sum()"),
        TensorProbe(id="t-add", steps=[("y", "add", ["x", "z"], {})] + weighted("y", "r"),
                    inputs={"x": X23, "z": Y23, "r": R23},
                    reference=lambda x, z, r: ((x + z) * r).sum(), op="add",
                    diagnosis="wrong-local-derivative:add", needs=("add",), after=HARNESS,
                    title="((x + z) * r).sum()"),
        TensorProbe(id="t-add-broadcast", steps=[("y", "add", ["x", "b"], {})] + weighted("y", "r"),
                    inputs={"x": X34, "b": B4, "r": R34},
                    reference=lambda x, b, r: ((x + b) * r).sum(), op="add",
                    diagnosis="missing-unbroadcast", needs=("add",), after=HARNESS + ("t-add",),
                    title="((x + b) * r).sum()   x: (3, 4), b: (4,)"),
        TensorProbe(id="t-mul-broadcast", steps=[("y", "mul", ["x", "b"], {})] + weighted("y", "r"),
                    inputs={"x": X34, "b": B4, "r": R34},
                    reference=lambda x, b, r: ((x * b) * r).sum(), op="mul",
                    diagnosis="missing-unbroadcast", needs=("mul",), after=HARNESS,
                    title="((x * b) * r).sum()   x: (3, 4), b: (4,)"),
        TensorProbe(id="t-matmul", steps=[("y", "matmul", ["x", "w"], {})] + weighted("y", "r"),
                    inputs={"x": X23, "w": W34, "r": R24},
                    reference=lambda x, w, r: ((x @ w) * r).sum(), op="matmul",
                    diagnosis="matmul-grad-not-transposed", needs=("matmul",), after=HARNESS,
                    title="((x @ w) * r).sum()   x: (2, 3), w: (3, 4)"),
    ]
    for pid, params, r in reduce_steps:
        axis, keep = params["axis"], params.get("keepdims", False)
        shown = f"axis={axis}" + (", keepdims=True" if keep else "")
        probes.append(TensorProbe(
            id=pid, steps=[("y", "sum", ["x"], params), *weighted("y", "r")],
            inputs={"x": X23, "r": r}, op="sum", diagnosis="sum-axis-grad", needs=("sum",),
            reference=lambda x, r, axis=axis, keep=keep:
                (x.sum(axis=axis, keepdims=keep) * r).sum(),
            after=HARNESS, title=f"(x.sum({shown}) * r).sum()"))
    probes += [
        TensorProbe(id="t-mean", steps=[("loss", "mean", ["x"], {})], inputs={"x": X23},
                    reference=lambda x: x.mean(), op="mean", diagnosis="mean-grad-not-divided",
                    needs=("mean",), after=HARNESS, title="x.mean()"),
        TensorProbe(id="t-mean-axis1",
                    steps=[("y", "mean", ["x"], {"axis": 1}), *weighted("y", "r")],
                    inputs={"x": X23, "r": [0.8, -1.3]}, op="mean",
                    reference=lambda x, r: (x.mean(axis=1) * r).sum(),
                    diagnosis="mean-grad-not-divided", needs=("mean",),
                    after=HARNESS + ("t-sum-axis1",), title="(x.mean(axis=1) * r).sum()"),
        TensorProbe(id="t-reshape", steps=[("y", "reshape", ["x"], {"shape": [3, 2]})]
                    + weighted("y", "r"), inputs={"x": X23, "r": R32}, op="reshape",
                    reference=lambda x, r: (x.reshape(3, 2) * r).sum(),
                    diagnosis="reshape-grad-not-reshaped", needs=("reshape",), after=HARNESS,
                    title="(x.reshape(3, 2) * r).sum()"),
        TensorProbe(id="t-transpose", steps=[("y", "T", ["x"], {})] + weighted("y", "r"),
                    inputs={"x": X23, "r": R32}, op="T", reference=lambda x, r: (x.T * r).sum(),
                    diagnosis="transpose-grad", needs=("T",), after=HARNESS,
                    title="(x.T * r).sum()"),
        unary("relu", X23, lambda x: np.maximum(x, 0.0)),
        unary("tanh", X23, np.tanh),
        unary("exp", X23, np.exp),
        unary("log", POSITIVE, np.log),
        unary("softmax", LOGITS, _softmax),
        TensorProbe(id="t-softmax-large", steps=[("y", "softmax", ["x"], {})] + weighted("y", "r"),
                    inputs={"x": HUGE_LOGITS, "r": R23}, op="softmax",
                    reference=lambda x, r: (_softmax(x) * r).sum(), forward_only=True,
                    diagnosis="softmax-unstable", needs=("softmax",), after=("t-softmax",),
                    title="(x.softmax() * r).sum()   logits ~1000"),
        TensorProbe(id="t-cross-entropy",
                    steps=[("loss", "cross_entropy", ["x"], {"targets": TARGETS})],
                    inputs={"x": LOGITS}, op="cross_entropy",
                    reference=lambda x: _cross_entropy(x, TARGETS),
                    diagnosis="wrong-local-derivative:cross_entropy", needs=("cross_entropy",),
                    title="x.cross_entropy([0, 2])"),
        TensorProbe(id="t-cross-entropy-large",
                    steps=[("loss", "cross_entropy", ["x"], {"targets": TARGETS})],
                    inputs={"x": HUGE_LOGITS}, op="cross_entropy", forward_only=True,
                    reference=lambda x: _cross_entropy(x, TARGETS),
                    diagnosis="cross-entropy-unstable", needs=("cross_entropy",),
                    after=("t-cross-entropy",), title="x.cross_entropy([0, 2])   logits ~1000"),
        TensorProbe(id="t-reuse", steps=[("t", "mul", ["x", "z"], {}), ("y", "add", ["t", "x"], {}),
                                         ("loss", "sum", ["y"], {})],
                    inputs={"x": X23, "z": Y23}, reference=lambda x, z: (x * z + x).sum(),
                    op="mul", diagnosis="tensor-grad-overwritten", needs=("add", "mul"),
                    after=HARNESS + ("t-add",), title="(x * z + x).sum()   (x used twice)"),
        TensorProbe(id="t-chain-2000", steps=chain_steps(2000),
                    inputs={"x": [1.0, 2.0], "c": [0.0, 0.0]},
                    reference=lambda x, c: (x + 2000 * c).sum(), op="backward",
                    diagnosis="wrong-topo-order", needs=("add", "sum"),
                    after=HARNESS + ("t-add", "t-reuse"),  # c is used 2000 times
                    title="x + c, 2000 times, then .sum()"),
        TensorProbe(id="t-backward-twice", steps=[("t", "add", ["x", "z"], {}),
                                                  ("y", "add", ["t", "x"], {}),
                                                  ("loss", "sum", ["y"], {})],
                    inputs={"x": X23, "z": Y23}, backward_calls=2, op="backward",
                    reference=lambda x, z: (x + z + x).sum(),
                    diagnosis="stale-intermediate-grads", needs=("add", "sum"),
                    after=HARNESS + ("t-add", "t-reuse"),
                    title="y = ((x + z) + x).sum(); y.backward(); y.backward()"),
    ]
    return probes


def step_ops(probe: TensorProbe) -> list[str]:
    """Every op the probe's steps use, in order (the scaffolding's `*` and `.sum()` too)."""
    return list(dict.fromkeys(op for _, op, _, _ in probe.steps))


def routed(probe: TensorProbe, has_op: Callable[[str], bool]) -> TensorProbe | None:
    """The probe rewritten to use only the ops the engine has, or None if it can't be.

    The scaffolding around the op under test is `(y * r).sum()`. Without `.sum()` the
    gradient is seeded by backward() itself on the non-scalar y (the engines that lack a sum
    seed it with ones), so the probe checks d sum(y); without `*`, `(y @ c).sum()` with c a
    column of r (through the learner's own `@`) or else `y.sum()` replaces the weighting. The
    reference gets r as the weights actually used (ones, or c's broadcast)."""
    if all(has_op(op) for op in step_ops(probe)):
        return probe
    steps, seeded = list(probe.steps), False
    ones: list[str] = []
    last = steps[-1]
    if last[1] == "sum" and not last[3] and not has_op("sum"):
        steps, seeded = steps[:-1], True
    at = len(steps) - (1 if seeded else 2)  # `_w = y * r` (see `weighted`)
    weighting = steps[at] if at >= 0 and steps[at][0] == "_w" else None
    inputs, column = dict(probe.inputs), ""
    if weighting is not None and (seeded or not has_op("mul")):
        y, r = weighting[2]
        rows = probe.inputs[r]
        if not seeded and has_op("matmul") and isinstance(rows[0], list):
            # `(y @ c).sum()`: the upstream gradient of y[i, j] is c[j], still mixed signs
            column = r
            inputs[r] = [[value] for value in rows[0]]
            steps[at] = ("_w", "matmul", [y, r], {})
        else:
            ones.append(r)
            del inputs[r]
            steps = steps[:at] + ([] if seeded else [("loss", "sum", [y], {})])
    if not steps or not all(has_op(op) for _, op, _, _ in steps):
        return None
    names = list(probe.inputs)

    def reference(*arrays: Any) -> Any:
        np = _np()
        given = dict(zip(inputs, arrays, strict=True))
        full = [np.ones(np.shape(probe.inputs[n])) if n in ones
                else np.broadcast_to(given[n][:, 0], np.shape(probe.inputs[n])) if n == column
                else given[n] for n in names]
        return probe.reference(*full).sum() if seeded else probe.reference(*full)

    how = ("backward() seeds y with ones (no .sum())" if seeded
           else "(y @ c).sum() (no *)" if column else "y.sum() (no *)")
    # the learner's own @ carries the weighting now: a broken @ explains this probe's failure
    after = probe.after + ("t-matmul",) if column and probe.id != "t-matmul" else probe.after
    return TensorProbe(id=probe.id, steps=steps, inputs=inputs,
                       reference=reference, op=probe.op, diagnosis=probe.diagnosis,
                       needs=probe.needs, after=after, forward_only=probe.forward_only,
                       backward_calls=probe.backward_calls, title=f"{probe.title}   as {how}",
                       extra=dict(probe.extra, seeded=seeded))


SUM_AXIS = ("t-sum-axis0", "t-sum-axis1", "t-sum-axis1-keepdims")


def in_order(probes: list[TensorProbe], has_op: Callable[[str], bool]) -> list[TensorProbe]:
    """The probes in the order they run: the ops the others are built on come first (`.sum()`
    and `*`, or `@` when it stands in for a missing `*`, then sum over an axis, which a
    learner's unbroadcast may call), so their faults are named before their consequences."""
    base = ("t-sum", "t-mul") if has_op("mul") or not has_op("matmul") else ("t-sum", "t-matmul")
    first = [p for name in base + SUM_AXIS for p in probes if p.id == name]
    return first + [p for p in probes if p not in first]


def called_sum(record: ProbeResult) -> bool:
    """The failure's traceback passed through the learner's own `sum` (a broadcast op whose
    backward sums with the engine's sum): proof that a broken sum can explain it."""
    return any(re.search(r"\bin sum\b", frame) for frame in record.where)


def has(methods: dict[str, Any], op: str) -> bool:
    attr = {"add": "__add__", "mul": "__mul__", "matmul": "__matmul__"}.get(op, op)
    return attr in methods


def judge_tensor(probe: TensorProbe, report: dict[str, Any]) -> ProbeResult:
    """The learner's loss and gradients against numpy's, for one probe's report."""
    np = _np()
    record = ProbeResult(probe.id, "tensor", "pass", probe.title)
    run = next(iter(report["runs"]))
    inputs = {k: np.asarray(v, dtype=np.float64) for k, v in probe.inputs.items()}
    want = float(probe.reference(*inputs.values()))
    error = run.get("error")
    if error is not None and run.get("stage") != "done":
        message = str(error.get("message", ""))
        record.got, record.where = {"error": message}, [str(w) for w in error.get("where", [])]
        record.line = error.get("line") if isinstance(error.get("line"), int) else None
        record.expected = {"loss": want}
        if "RecursionError" in error.get("types", []) and run.get("stage") == "backward":
            record.status, record.diagnosis, record.detail = "fail", "recursion-limit", message
            return record
        if run.get("stage") == "forward" and "TypeError" in error.get("types", []) and (
                "unexpected keyword argument" in message or "positional argument" in message):
            record.status, record.diagnosis = "missing", f"missing-{probe.op}"
            record.detail = f"the op does not take these arguments ({message})"
            return record
        if error.get("type") == "ProbeTimeout":
            record.status, record.diagnosis, record.detail = "error", "probe-timeout", message
            return record
        record.status, record.diagnosis = "fail", probe.diagnosis
        record.detail = f"{run.get('stage')} raised {message}{concrete_advice(message)}"
        return record
    data = run.get("data")
    if probe.extra.get("seeded") and isinstance(data, (list, dict)):  # y: compare its sum
        try:
            data = float(np.sum(np.asarray(data.get("array") if isinstance(data, dict)
                                           else data, dtype=np.float64)))
        except (TypeError, ValueError):
            data = None
    got_loss = data if isinstance(data, (int, float)) and not isinstance(data, bool) else None
    record.expected = {"loss": want}
    record.got = {"loss": data}
    if got_loss is None or not np.isclose(got_loss, want, rtol=RTOL, atol=ATOL):
        record.status, record.diagnosis = "fail", probe.diagnosis
        record.detail = f"the loss is {data!r}, numpy gives {want:.6g}"
        return record
    if probe.forward_only:
        return record
    grads = dict(run.get("grads") or {})
    for name, x in inputs.items():
        once = central_differences(probe.reference, inputs, name)
        expected = probe.backward_calls * once  # a second backward() adds, as in PyTorch
        got = grads.get(name)
        array = got.get("array") if isinstance(got, dict) else got
        try:
            got_array = np.asarray(array, dtype=np.float64)
        except (TypeError, ValueError):
            got_array = None
        if got_array is None or got_array.shape != x.shape \
                or not np.allclose(got_array, expected, rtol=RTOL, atol=ATOL):
            record.status, record.diagnosis = "fail", probe.diagnosis
            if probe.backward_calls > 1 and got_array is not None and got_array.shape == x.shape \
                    and np.allclose(got_array, once, rtol=RTOL, atol=ATOL):
                record.diagnosis = "backward-resets-grads"
            record.got = {"loss": data, f"{name}.grad": array}
            record.expected = {"loss": want, f"{name}.grad": np.round(expected, 7).tolist()}
            shape = "no array" if got_array is None else f"shape {got_array.shape}"
            record.detail = (f"{name}.grad differs from central differences of numpy's "
                             f"computation ({shape}, expected {x.shape})")
            return record
    return record


def central_differences(fn: ArrayFn, inputs: dict[str, Any], name: str) -> Any:
    np = _np()
    x = inputs[name]
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        up = {k: v.copy() for k, v in inputs.items()}
        down = {k: v.copy() for k, v in inputs.items()}
        up[name][index] += H
        down[name][index] -= H
        grad[index] = (float(fn(*up.values())) - float(fn(*down.values()))) / (2 * H)
    return grad


def tensor_line(engine: Engine, diagnosis: str, op: str) -> int | str | None:
    """The learner's line behind a Tensor diagnosis: the op's gradient write (or, for the
    stability faults, its exp/log), else the backward of an autograd.Function-style class,
    else the op's row in a dispatch table (`"exp": (np.exp, lambda g, out, a: ...)`)."""
    attr = {"add": "__add__", "mul": "__mul__", "matmul": "__matmul__"}.get(op, op)
    grad = re.escape(engine.grad_attr)
    if diagnosis == "softmax-unstable":
        return engine.line_in(attr, r"\bexp\(") or engine.line_in_callees(attr, r"\bexp\(")
    if diagnosis == "cross-entropy-unstable":
        return engine.line_in(attr, r"\blog\(") or engine.line_in_callees(attr, r"\blog\(")
    if diagnosis == "tensor-grad-overwritten":  # `=` in * (the probe's op) or in +
        assigned = rf"\.{grad}\s*=(?!=)"
        return engine.line_in(attr, assigned) or engine.line_in("__add__", assigned) \
            or overwrite_in_backward(engine)
    found = engine.line_in(attr, rf"\.{grad}\s*\+?=(?!=)|\b_?acc\w*\(|\baccumulate\w*\(")
    if found is None:  # class Add: forward/backward, with the Tensor calling it
        found = engine.line_in(f"class:{op}", r"\breturn\b")
    return found or dispatch_line(engine.source_lines, op)


# how a dispatch table or an `if self.op == ...` branch may spell an op's key
OP_KEYS = {"add": ("add", "+"), "mul": ("mul", "*"), "matmul": ("matmul", "@"),
           "T": ("transpose", "T")}
BACKWARD_LAMBDA = r"lambda\s+(g|grad|dy|dout|upstream|\w*_grad|grad_\w*)\b"


def dispatch_line(lines: list[str], op: str) -> int | None:
    """The backward of `op` in an op table: the `lambda g, ...` of its row, or the first
    `return` of its `if self.op == "op":` branch."""
    for key in OP_KEYS.get(op, (op,)):
        quoted = rf"[\"']{re.escape(key)}[\"']"
        for number, text in enumerate(lines, 1):
            if re.search(quoted + r"\s*:", text):  # a table row, perhaps over several lines
                for row in range(number, min(number + 4, len(lines)) + 1):
                    if row > number and re.search(r"[\"']\w+[\"']\s*:", lines[row - 1]):
                        break
                    if re.search(BACKWARD_LAMBDA, lines[row - 1]):
                        return row
            if re.search(r"==\s*" + quoted, text):  # if self.op == "mean": ... return
                for row in range(number + 1, min(number + 6, len(lines)) + 1):
                    if re.search(r"\breturn\b", lines[row - 1]):
                        return row
    return None


def overwrite_in_backward(engine: Engine) -> int | str | None:
    """`parent.grad = g` in the backward loop: a gradient assigned from something that is not
    its own old value, a zero reset or the root's seed of ones."""
    grad = re.escape(engine.grad_attr)
    assigned = re.compile(rf"\.{grad}\s*=(?!=)(?P<rhs>.*)")
    for file, lines, first, last in engine.sort_spans():
        for number in range(first, last + 1):
            found = assigned.search(lines[number - 1])
            if found and not re.search(rf"\.{grad}\b|zeros|ones|\b[01](\.0*)?\s*$|None",
                                       found.group("rhs")):
                return number if file is None else f"{file}, line {number}"
    return None
