"""The probes, as data: one program string each, run on the learner's class in the child and
on plain floats here (the reference), plus what a failure of it means.

To add a probe, add a `Probe(...)` to `engine_probes` (or a structural kind to `verdicts`):

    Probe(id="log-small", group="ops", program="a.log()", inputs={"a": 1e-3},
          needs=("log",), op="log")

`program` is a small Python subset (see `child.parse_program`): `NAME = EXPR`, `EXPR`,
`for _ in range(N): ...`, numbers, + - * / **, unary minus and `x.exp()`-style calls. Its
result is the value of the last statement. The expected value and gradients are computed
here on floats (`reference`): the forward value by running the same program with `math`,
the gradients by central differences of it. `after` names earlier probes a failure of this
one can follow from (see `verdicts.follows_from`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from micrograd import ops as registry
from micrograd.check.childlib import parse_program, run_program
from micrograd.ops.floats import FLOATS

H_REL = 1e-6          # central-difference step, relative to |x| (at least this absolute)
RTOL, ATOL = 1e-4, 1e-6

# capability -> the attribute the class must define for it
CAPABILITY = {
    # add, mul, sub, truediv, pow: the registry's two-input ops Value spells (ops/binary.py)
    **{entry.name: entry.operators[0] for entry in registry.BINARY.values() if entry.operators},
    "neg": "__neg__", "radd": "__radd__", "rmul": "__rmul__", "rsub": "__rsub__",
    "rtruediv": "__rtruediv__",
    # exp, log, tanh, relu, sigmoid, ...: the op registry's probed ops (micrograd/ops/)
    **{entry.name: entry.methods[0] for entry in registry.probed_ops()},
}
OPS = tuple(CAPABILITY)


@dataclass(frozen=True, kw_only=True)
class Probe:
    """One thing to try on the learner's class, and what its failure is called.

    kind: "grad" (forward and gradients against the float reference), "seed" (the output's
    own grad), "twice" (backward() twice; `backward_calls` = 2 or a fresh graph in
    `program`), "range" (forward only, at each of `points`), "construct", "signature".
    """

    id: str
    group: str
    program: str = ""
    inputs: dict[str, float] = field(default_factory=dict)
    needs: tuple[str, ...] = ()
    op: str = ""
    on_mismatch: str = ""        # the diagnosis when gradients differ (default: by op)
    after: tuple[str, ...] = ()  # earlier probes whose failure this one's can follow from
    kind: str = "grad"
    points: tuple[dict[str, float], ...] = ()  # other input points, run one after another
    repeat: int = 1              # fresh graphs at the same point (graph-order bugs)
    walk: bool = False           # record the order of _backward calls
    backward_calls: int = 1
    title: str = ""              # how the expression is shown, if not `program`
    fault: str = ""              # any failure of this probe is this diagnosis (an edge point)

    @property
    def mismatch(self) -> str:
        return self.on_mismatch or (f"wrong-local-derivative:{self.op}" if self.op
                                    else "wrong-gradient")

    def expression(self) -> str:
        text = self.title or "; ".join(line.strip() for line in self.program.splitlines())
        values = ", ".join(f"{k} = {v:g}" for k, v in self.inputs.items())
        return f"{text}   with {values}" if values else text

    def run_points(self) -> list[dict[str, float]]:
        return list(self.points) or [dict(self.inputs)] * self.repeat


# ------------------------------------------------------------------------------------------
# The float reference
# ------------------------------------------------------------------------------------------

FLOAT_METHODS = {  # the registry ops' forward on floats (IEEE: inf/nan, never an exception)
    **{entry.methods[0]: entry.rule(FLOATS, **entry.defaults()).forward
       for entry in registry.probed_ops()},
    "backward": lambda x: x,
}


def float_call(x: float, name: str) -> float:
    method: Any = FLOAT_METHODS[name]
    return float(method(x))


def evaluate(program: str, inputs: dict[str, float]) -> float:
    """The program on plain floats (math's functions); nan where floats can't compute it."""
    try:
        return float(run_program(parse_program(program), dict(inputs), float_call))
    except (ArithmeticError, ValueError):
        return math.nan


def central_differences(program: str, inputs: dict[str, float]) -> dict[str, float]:
    """d f / d x_i ~ (f(x + h e_i) - f(x - h e_i)) / 2h, on plain floats."""
    grads = {}
    for name, x in inputs.items():
        h = H_REL * max(1.0, abs(x))
        up, down = dict(inputs), dict(inputs)
        up[name], down[name] = x + h, x - h
        grads[name] = (evaluate(program, up) - evaluate(program, down)) / (2 * h)
    return grads


def close(got: Any, want: float) -> bool:
    """got is a number within RTOL/ATOL of want (nan matches nan)."""
    if not isinstance(got, (int, float)) or isinstance(got, bool):
        return False
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= ATOL + RTOL * max(1.0, abs(want))


def tidy(x: float) -> float:
    """A reference value for display: central differences carry ~1e-10 of noise."""
    return float(f"{x:.7g}") if math.isfinite(x) else x


# ------------------------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------------------------

UNARY_AT: dict[str, float] = {entry.name: entry.probe_at for entry in registry.probed_ops()
                             if entry.probe_at is not None}
POW_EDGES = ("pow-negative-exponent", "pow-negative-base")  # `/` is often `* other**-1`
WALKER = ("chain-2",)  # a failure here means the graph walk, not the op, is wrong
BASIC = ("add", "mul", "chain-2", "reuse-add", "reuse-mul", "reuse-mul-add")
TANH = ("tanh", "reuse-tanh")
RELU = ("relu", "relu-negative", "reuse-relu")
GRAPH_REPEAT = 24      # fresh graphs per graph-order probe: a set-order bug shows in some


def structural_probes() -> list[Probe]:
    return [Probe(id="construct", group="basics", kind="construct", title="Value(2.0)"),
            Probe(id="default-children", group="basics", kind="signature",
                  title="inspect.signature(Value.__init__)"),
            Probe(id="seed-gradient", group="backward", kind="seed", program="a * b",
                  inputs={"a": 2.0, "b": -3.0}, needs=("mul",),
                  title="y = a * b; y.backward(); y.grad")]


def _number(x: float) -> str:
    return f"{x:g}".replace("e-0", "e-").replace("e+0", "e+")  # 1e-9, as a learner writes it


def _edge_probe(entry: registry.Op) -> Probe:
    """Forward only, at the entry's edge points: large |x| (a textbook formula overflows),
    log near 0."""
    call = f"a.{entry.methods[0]}()"
    return Probe(id=entry.edge_probe or f"{entry.name}-range", group="ops", kind="range",
                 program=call, needs=(entry.name,), op=entry.name, backward_calls=0,
                 after=(entry.name,), points=tuple({"a": x} for x in entry.edge_points),
                 title=f"{call} for a in ({', '.join(map(_number, entry.edge_points))})")


def _edge_order(entries: list[registry.Op]) -> list[registry.Op]:
    """tanh and sigmoid first (the range bugs learners meet most), then in registry order."""
    return sorted(entries, key=lambda e: e.name not in ("tanh", "sigmoid"))


def engine_probes(has_tanh: bool, has: Callable[[str], bool] = lambda op: True) -> list[Probe]:
    """The op, reuse and graph probes, in the order they run (each op before composites).
    `has(op)`: does the class define it (an op beyond the lecture's is probed only then)."""
    probed = [entry for entry in registry.probed_ops() if entry.probe_required or has(entry.name)]
    unary_at = {name: x for name, x in UNARY_AT.items() if any(e.name == name for e in probed)}
    a, b = {"a": 1.7}, {"a": 1.7, "b": -0.6}
    probes = [  # a + b, a * b at the registry entries' probe points (ops/binary.py)
        *(Probe(id=entry.name, group="ops", program=f"a {entry.symbol} b",
                inputs=dict(zip("ab", entry.probe_at, strict=True)), needs=(entry.name,),
                op=entry.name)
          for entry in registry.BINARY.values() if entry.probe_at is not None),
        Probe(id="chain-2", group="ops", program="(a * b) + c", inputs={**b, "c": 0.4},
              needs=("add", "mul"), on_mismatch="wrong-topo-order", after=("add", "mul")),
        Probe(id="pow-int", group="ops", program="a ** 3", inputs=a, needs=("pow",), op="pow"),
        Probe(id="pow-float", group="ops", program="a ** 2.5", inputs=a, needs=("pow",), op="pow"),
        Probe(id="pow-negative-exponent", group="ops", program="a ** -1", inputs=a,
              needs=("pow",), op="pow", fault="pow-negative-exponent",
              after=("pow-int", "pow-float")),
        Probe(id="pow-negative-base", group="ops", program="a ** 2", inputs={"a": -3.0},
              needs=("pow",), op="pow", fault="pow-negative-base", after=("pow-int",),
              points=({"a": -3.0}, {"a": 0.0}), title="a ** 2 for a in (-3, 0)"),
        Probe(id="add-number", group="ops", program="a + 2", inputs=a, needs=("add",), op="add"),
        Probe(id="mul-number", group="ops", program="a * 3.5", inputs=a, needs=("mul",),
              op="mul"),
        Probe(id="neg", group="ops", program="-a", inputs=a, needs=("neg",), op="neg",
              after=("mul-number",) + WALKER),
        Probe(id="sub", group="ops", program="a - b", inputs=b, needs=("sub",), op="sub",
              after=("add", "neg") + WALKER),
        Probe(id="truediv", group="ops", program="a / b", inputs=b, needs=("truediv",),
              op="truediv", after=("mul",) + POW_EDGES + WALKER),
        Probe(id="sub-number", group="ops", program="a - 2", inputs=a, needs=("sub",),
              op="sub", after=("add-number", "sub") + WALKER),
        Probe(id="truediv-number", group="ops", program="a / 4", inputs=a, needs=("truediv",),
              op="truediv", after=("mul-number", "truediv") + POW_EDGES + WALKER),
        Probe(id="radd", group="reflected", program="2 + a", inputs=a, needs=("radd",),
              op="radd", after=("add-number",) + WALKER),
        Probe(id="rmul-int", group="reflected", program="3 * a", inputs=a, needs=("rmul",),
              op="rmul", after=("mul-number",) + WALKER),
        Probe(id="rmul-float", group="reflected", program="2.5 * a", inputs=a,
              needs=("rmul",), op="rmul", after=("mul-number",) + WALKER),
        Probe(id="rsub", group="reflected", program="2 - a", inputs=a, needs=("rsub",),
              op="rsub", after=("radd", "neg") + WALKER),
        Probe(id="rtruediv", group="reflected", program="4 / a", inputs=a, needs=("rtruediv",),
              op="rtruediv", after=("rmul-int", "truediv") + POW_EDGES + WALKER),
    ]
    for name, x in unary_at.items():
        probes.append(Probe(id=name, group="ops", program=f"a.{name}()", inputs={"a": x},
                            needs=(name,), op=name,
                            after=("chain-2",) if name == "sigmoid" else ()))
    # edge points, forward only: large |x| (overflow of a textbook formula), log near 0
    probes += [_edge_probe(entry) for entry in _edge_order(probed) if entry.edge_points]
    probes.append(Probe(id="relu-negative", group="ops", program="a.relu()", inputs={"a": -0.8},
                        needs=("relu",), op="relu"))
    # accumulation: a node used twice must receive both contributions (+=, not =)
    probes += [
        Probe(id="reuse-add", group="reuse", program="a + a", inputs={"a": 3.0}, needs=("add",),
              op="add", on_mismatch="grad-overwritten", after=("add",) + WALKER),
        Probe(id="reuse-mul", group="reuse", program="a * a", inputs={"a": 3.0}, needs=("mul",),
              op="mul", on_mismatch="grad-overwritten", after=("mul",) + WALKER),
        Probe(id="reuse-mul-add", group="reuse", program="a * b + a",
              inputs={"a": 2.0, "b": 3.0}, needs=("add", "mul"), op="mul",
              on_mismatch="grad-assigned:mul",
              after=("add", "mul", "reuse-add", "reuse-mul") + WALKER),
        Probe(id="reuse-pow", group="reuse", program="a ** 3 + a", inputs={"a": 1.3},
              needs=("add", "pow"), op="pow", on_mismatch="grad-assigned:pow",
              after=("add", "pow-int") + WALKER),
    ]
    for name, x in unary_at.items():
        probes.append(Probe(
            id=f"reuse-{name}", group="reuse", program=f"a.{name}() + a", inputs={"a": x},
            needs=("add", name), op=name,
            on_mismatch="exp-grad-assigned" if name == "exp" else f"grad-assigned:{name}",
            after=("add", name) + WALKER))
    chain_step = "(x*0.9 + b*0.1).tanh()" if has_tanh else "(x*0.9 + b*0.1)*0.5 + 1"
    tanh = TANH if has_tanh else ()
    graph: dict[str, Any] = {"group": "graph", "on_mismatch": "wrong-topo-order", "walk": True,
                             "repeat": GRAPH_REPEAT}
    probes += [
        Probe(id="diamond", program="t = a*b\ny = t + (t*c)*d",
              inputs={"a": 2.0, "b": -3.0, "c": 1.5, "d": 0.5}, needs=("add", "mul"),
              after=BASIC, **graph),  # t feeds y along a short and a long path
        Probe(id="lecture-neuron", program="(x1*w1 + x2*w2 + b).tanh()",
              inputs={"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432},
              needs=("add", "mul", "tanh"), after=BASIC + TANH, **graph),
        Probe(id="micrograd-readme",
              program="z = 2*x + 2 + x\nq = z.relu() + z*x\nh = (z*z).relu()\ny = h + q + q*x",
              inputs={"x": -4.0}, needs=("add", "mul", "radd", "rmul", "relu"),
              after=BASIC + RELU + ("radd", "rmul-int"), **graph),
        Probe(id="chain-50", program=f"x = a\nfor _ in range(25): x = {chain_step}\nx",
              title=f"x = a; 25 times: x = {chain_step}", inputs={"a": 0.3, "b": -0.8},
              needs=("add", "mul") + tanh[:1], after=BASIC + tanh, **graph),
        Probe(id="chain-2000", group="graph", program="x = a\nfor _ in range(2000): x = x + b\nx",
              title="x = a; 2000 times: x = x + b", inputs={"a": 1.0, "b": 0.5},
              needs=("add",), on_mismatch="wrong-topo-order", after=("add", "reuse-add") + WALKER),
        Probe(id="backward-fresh-graphs", group="backward", kind="twice",
              program="y = a*b\ny.backward()\na*b", inputs={"a": 2.0, "b": -3.0},
              needs=("add", "mul"), after=BASIC,
              title="(a*b).backward(); (a*b).backward()   (two fresh graphs, same leaves)"),
        Probe(id="backward-same-graph-twice", group="backward", kind="twice",
              program="t = a + b\nt + a", inputs={"a": 1.5, "b": -0.5}, needs=("add",),
              after=("add", "reuse-add") + WALKER, backward_calls=2,
              title="t = a + b; y = t + a; y.backward(); y.backward()"),
    ]
    return probes
