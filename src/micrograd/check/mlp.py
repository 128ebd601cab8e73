"""The learner's MLP(3, [4, 4, 1]), judged against a reference MLP computed here on floats.

The child builds the learner's MLP, sets the weights sent to it, and reports the parameter
count, the output, the loss, the gradients and what zero_grad() left; this module computes
what they should be (the lecture's MLP, central differences for the gradients).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from micrograd.check.probes import H_REL, Probe, close
from micrograd.check.report import ProbeResult
from micrograd.check.verdicts import Engine, Observation, classify_exception, shown

SIZES = (3, 4, 4, 1)
XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]
WEIGHTS = [round(0.1 * (((7 * i) % 13) - 6), 2) for i in range(41)]
ACTIVATIONS: dict[str, Callable[[float], float]] = {
    "tanh": math.tanh, "relu": lambda x: x if x > 0 else 0.0, "linear": lambda x: x}
NN_IDS = ("nn-parameter-count", "nn-forward", "nn-training-step", "nn-zero-grad")
EXPRESSIONS = {
    "nn-parameter-count": "ps = MLP(3, [4, 4, 1]).parameters(); len(ps), len({id(p) for p in ps})",
    "nn-forward": "MLP(3, [4, 4, 1]) with fixed weights, on x = [2.0, 3.0, -1.0]",
    "nn-training-step": "loss = sum((mlp(x) - y)**2 over the lecture's 4 examples); "
                        "loss.backward(); p.data -= 0.05 * p.grad",
    "nn-zero-grad": "loss.backward(); mlp.zero_grad()",
}


def request() -> Observation:
    """What the child needs to run the learner's MLP."""
    return {"do": "nn", "weights": WEIGHTS, "xs": XS, "ys": YS}


def reference_mlp(weights: list[float], x: list[float], hidden: str, output: str) -> float:
    """The lecture's MLP on floats; weights in the lecture's order (per neuron: w..., b)."""
    k = 0
    for layer in range(len(SIZES) - 1):
        act = ACTIVATIONS[output if layer == len(SIZES) - 2 else hidden]
        outs = []
        for _ in range(SIZES[layer + 1]):
            w = weights[k:k + SIZES[layer]]
            bias = weights[k + SIZES[layer]]
            k += SIZES[layer] + 1
            outs.append(act(sum(wi * xi for wi, xi in zip(w, x, strict=True)) + bias))
        x = outs
    return x[0]


def reference_loss(weights: list[float], hidden: str, output: str) -> float:
    return sum((reference_mlp(weights, x, hidden, output) - y) ** 2
               for x, y in zip(XS, YS, strict=True))


def loss_gradient(hidden: str, output: str) -> list[float]:
    grads = []
    for i, w in enumerate(WEIGHTS):
        h = H_REL * max(1.0, abs(w))
        up, down = list(WEIGHTS), list(WEIGHTS)
        up[i], down[i] = w + h, w - h
        grads.append((reference_loss(up, hidden, output) - reference_loss(down, hidden, output))
                     / (2 * h))
    return grads


def _probe(pid: str) -> ProbeResult:
    return ProbeResult(id=pid, group="nn", status="pass", expression=EXPRESSIONS[pid])


def judge_nn(report: Observation, engine: Engine) -> list[ProbeResult]:
    """Up to four results from the one nn report, in the order the child ran them."""
    results: list[ProbeResult] = []
    failed = report.get("error") is not None
    error: Observation = dict(report.get("error") or {})
    stage = report.get("stage")

    def raised(pid: str, status_if_build: str = "warn") -> list[ProbeResult]:
        record = _probe(pid)
        record.detail = str(error.get("message", ""))
        record.line, record.where = error.get("line"), [str(w) for w in error.get("where", [])]
        if pid == "nn-parameter-count" and stage == "build":
            record.status, record.diagnosis = status_if_build, "nn-not-probed"
            if error.get("type") == "ProbeTimeout":
                record.status, record.diagnosis = "error", "probe-timeout"
        else:
            diagnosis, status = classify_exception(error, Probe(id="nn", group="nn"), engine,
                                                   "backward")
            record.status = status
            record.diagnosis = diagnosis if diagnosis != "backward-raised" else "nn-exception"
        return results + [record]

    if failed and stage == "build":
        return raised("nn-parameter-count")
    count, distinct = int(report.get("count", 0)), int(report.get("distinct", 0))
    record = _probe("nn-parameter-count")
    record.got = {"parameters": count, "distinct_objects": distinct}
    record.expected = {"parameters": 41, "distinct_objects": 41}
    if distinct < count:  # the count alone looks right: 41 entries, 14 objects
        record.status, record.diagnosis = "fail", "shared-parameters"
        record.detail = "; ".join([f"{count} parameters but only {distinct} distinct objects"]
                                  + [str(s) for s in report.get("shared", [])])
        return [record]
    if count != 41:
        record.status, record.diagnosis = "fail", "wrong-parameter-count"
        record.detail = f"{count} parameters instead of 41"
        return [record]
    results.append(record)
    if failed and stage == "forward":
        return raised("nn-forward")

    got = report.get("output")
    record = _probe("nn-forward")
    arch = next(((h, o) for h in ("tanh", "relu", "linear") for o in ("tanh", "linear", "relu")
                 if close(got, reference_mlp(WEIGHTS, XS[0], h, o))), None)
    record.got = shown(got)
    record.expected = {f"{h}/{o}": reference_mlp(WEIGHTS, XS[0], h, o)
                       for h, o in (("tanh", "tanh"), ("relu", "linear"))}
    if arch is None:
        record.status, record.diagnosis = "warn", "nn-not-probed"
        record.detail = ("the output matches no standard MLP (tanh/ReLU hidden layers, "
                         "tanh/linear output, lecture parameter order); training step skipped")
        return results + [record]
    record.detail = f"matches hidden={arch[0]}, output={arch[1]}"
    results.append(record)
    if failed and stage == "training-step":
        return raised("nn-training-step")

    record = _probe("nn-training-step")
    want = loss_gradient(*arch)
    grads = [g if isinstance(g, (int, float)) else math.nan for g in report.get("grads", [])]
    # as many gradients as the child reported, which need not be 41: counted as wrong below
    bad = [i for i, (g, w) in enumerate(zip(grads, want, strict=False)) if not close(g, w)]
    if len(grads) != len(want):
        bad = bad or [len(grads)]
    new_loss = reference_loss([w - 0.05 * g for w, g in zip(WEIGHTS, grads, strict=False)], *arch)
    record.got = {"loss": shown(report.get("loss")), "loss_after_step": new_loss,
                  "wrong_grads": len(bad)}
    record.expected = {"loss": reference_loss(WEIGHTS, *arch),
                       "loss_after_step": reference_loss(
                           [w - 0.05 * g for w, g in zip(WEIGHTS, want, strict=True)], *arch),
                       "wrong_grads": 0}
    if bad:
        i = bad[0]
        record.status, record.diagnosis = "fail", "nn-wrong-gradient"
        got_i = shown(grads[i]) if i < len(grads) else "none"
        want_i = f"{want[i]:.6g}" if i < len(want) else "none"
        record.detail = (f"{len(bad)} of 41 parameter gradients differ; parameter {i}: got "
                         f"{got_i}, expected {want_i}")
    results.append(record)
    if failed and stage == "zero-grad":
        return raised("nn-zero-grad")
    if "grads_after_zero_grad" in report:
        record = _probe("nn-zero-grad")
        left = sum(1 for g in report["grads_after_zero_grad"] if g != 0.0)  # a non-number too
        record.got = {"nonzero_grads_after_zero_grad": left}
        record.expected = {"nonzero_grads_after_zero_grad": 0}
        if left:
            span = report.get("zero_grad_span")
            record.status, record.diagnosis = "fail", "zero-grad-broken"
            record.detail = f"{left} of {count} gradients are not 0 after zero_grad()"
            record.line = span[0] if isinstance(span, list) and span else None
        results.append(record)
    return results


def output_layer(report_probes: list[ProbeResult]) -> str | None:
    """'tanh' / 'linear' / 'relu' from a passing nn-forward, else None."""
    forward = next((p for p in report_probes if p.id == "nn-forward" and p.status == "pass"), None)
    found = re.search(r"output=(\w+)", forward.detail) if forward else None
    return found.group(1) if found else None
