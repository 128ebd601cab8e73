"""trace: the forward values, then backprop step by step with the chain rule in numbers.

The steps follow the engine's own order (`autograd.topological_order`, reversed, as
`backward()` runs it). Each step is worked out here from the node's op and its inputs'
numbers, the way the lecture does it by hand, e.g. for L = d * f:

    f.grad += d.data * L.grad = 4.0 * 1.0 = 4.0

The trace keeps its own gradients and never touches `.grad`, so tracing a graph does not
change it. Ops made with `define_op` (or a lecture-style `out._backward = ...`) are traced
generically: their local derivative is read by running the node's own backward once with
out.grad = 1 on scratch gradients. A Tensor graph gets tensor_trace.py's trace instead:
each step's gradient shapes and summaries.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from micrograd.autograd import topological_order
from micrograd.engine import _div, _domain, _log, _pow
from micrograd.viz.graph import GraphView, _unique_names, given_names, is_array_node, num
from micrograd.viz.tensor_trace import TensorTrace, tensor_trace_steps


def _p(x: float) -> str:
    """A number inside arithmetic: negatives in parentheses, as the lecture writes (-3.0)."""
    text = num(x)
    return f"({text})" if text.startswith("-") else text


def _k(k: float) -> str:
    """An exponent as written in the op name: 2, -1, 0.5."""
    return str(int(k)) if float(k).is_integer() and abs(k) < 1e15 else repr(float(k))


@dataclass
class Contribution:
    """One `input.grad += local * out.grad` of a backward step."""

    target: Any
    formula: str  # "f.grad += d.data * L.grad"
    arithmetic: str  # "4.0 * 1.0" ('' when the formula is already a number)
    value: float  # what is added
    before: float
    after: float

    def line(self, name: str) -> str:
        text = self.formula + (f" = {self.arithmetic}" if self.arithmetic else "")
        text += f" = {num(self.value)}"
        if self.before != 0:  # accumulation: the input is used more than once
            text += f"  -> {name}.grad = {num(self.after)}"
        return text


@dataclass
class BackwardStep:
    """The backward of one node: its equation and what it adds into each input."""

    node: Any
    equation: str  # "L = d * f"
    contributions: list = field(default_factory=list)


@dataclass
class Trace:
    """A whole forward + backward pass, ready to print (str) or to animate (the HTML page)."""

    root: Any
    order: list  # the engine's topological order
    names: dict  # id(node) -> name
    forward: list  # one line per node, inputs first
    seed: str  # "L.grad = 1.0"
    steps: list  # BackwardStep, in the order backward() runs them
    grads: dict  # id(node) -> gradient after the whole pass

    def name(self, node: Any) -> str:
        return self.names[id(node)]

    def grad(self, node: Any) -> float:
        return self.grads[id(node)]

    def __str__(self) -> str:
        out = ["forward pass (inputs first):"]
        out += ["  " + line for line in self.forward]
        out.append("backward pass (in the order backward() runs it):")
        out.append("  " + self.seed)
        for k, step in enumerate(self.steps, 1):
            out.append(f"  step {k}: {step.equation}")
            out += ["    " + c.line(self.name(c.target)) for c in step.contributions]
        leaves = [n for n in self.order if not n._prev]
        out.append("gradients of the leaves:")
        out += [f"  {self.name(n)}.grad = {num(self.grad(n))}" for n in leaves]
        return "\n".join(out)


def trace_steps(root: Any, graph: GraphView | None = None,
                names: Mapping[str, Any] | None = None) -> Trace | TensorTrace:
    """Work out forward values and every backward step of `root` without touching .grad.

    graph: use its names (the page's); names: {name: node} for unlabelled nodes.
    """
    if not hasattr(root, "_prev"):
        raise TypeError(f"trace takes a Value or a Tensor, got {type(root).__name__}")
    if is_array_node(root):
        return tensor_trace_steps(root, names)
    order = topological_order(root)
    if graph is not None and graph.total == len(graph.nodes):
        names = graph.names
    elif graph is not None:  # a cut picture: its names, and new ones for what it hides
        names = graph.full_names(order)
    else:
        names = _unique_names(order, given_names(names, "trace"))
    name = lambda node: names[id(node)]  # noqa: E731
    grads = {id(node): 0.0 for node in order}
    grads[id(root)] = 1.0
    steps = []
    for node in reversed(order):
        if node._grad_fn is None:
            continue
        step = BackwardStep(node, _equation(node, name))
        for target, formula, arithmetic, value in _local_steps(node, name, grads[id(node)]):
            before = grads[id(target)]
            grads[id(target)] = before + value
            step.contributions.append(
                Contribution(target, formula, arithmetic, value, before, grads[id(target)]))
        steps.append(step)
    forward = [_forward_line(node, name) for node in order]
    seed = f"{name(root)}.grad = 1.0   (d{name(root)}/d{name(root)} = 1)"
    return Trace(root, order, names, forward, seed, steps, grads)


def trace(root: Any, names: Mapping[str, Any] | None = None) -> str:
    """The forward values, then each backward step with the chain rule in numbers.

    For a Tensor root: each step's incoming gradient shape and what it adds to each input.
    """
    return str(trace_steps(root, names=names))


# --- per-op arithmetic -------------------------------------------------------------------

_UNARY = {"exp", "log", "sqrt", "tanh", "sigmoid", "ReLU", "sin", "cos", "abs"}


def _is_builtin(node: Any) -> bool:
    """Was this node made by one of engine.py's own ops (not define_op / a custom closure)?"""
    backward = node._grad_fn
    if getattr(backward, "__module__", None) != "micrograd.engine":
        return False
    # define_op's ops and lecture-style `out._backward = closure` (wrapped by the property
    # setter) live in engine.py too, but their arithmetic is unknown: traced generically.
    qualname = getattr(backward, "__qualname__", "")
    return not qualname.startswith(("define_op.", "Value._backward."))


def _equation(node: Any, name) -> str:
    ins = [name(c) for c in node._prev]
    op = node._op
    if _is_builtin(node):
        if op in ("+", "*") and len(ins) == 2:
            return f"{name(node)} = {ins[0]} {op} {ins[1]}"
        if op.startswith("**") and len(ins) == 1:
            return f"{name(node)} = {ins[0]}{op}"
        if op == "**":
            return f"{name(node)} = {ins[0]} ** {ins[1]}"
        if op == "w·x+b":
            k = (len(ins) - 1) // 2
            terms = [f"{ins[i]}*{ins[k + i]}" for i in range(k)] + [ins[-1]]
            return f"{name(node)} = " + " + ".join(terms)
        if op in _UNARY:
            return f"{name(node)} = {op.lower()}({ins[0]})"
    return f"{name(node)} = {op}({', '.join(ins)})"


def _forward_line(node: Any, name) -> str:
    if not node._prev:
        kind = "" if getattr(node, "label", "") else "   (a constant)"
        return f"{name(node)} = {num(node.data)}{kind}"
    xs = [c.data for c in node._prev]
    op = node._op
    equation = _equation(node, name)
    if _is_builtin(node):
        if op in ("+", "*") and len(xs) == 2:
            return f"{equation} = {_p(xs[0])} {op} {_p(xs[1])} = {num(node.data)}"
        if op.startswith("**") and len(xs) == 1:
            return f"{equation} = {_p(xs[0])}{op} = {num(node.data)}"
        if op in _UNARY:
            return f"{equation} = {op.lower()}({num(xs[0])}) = {num(node.data)}"
    return f"{equation} = {num(node.data)}"


def _local_steps(node: Any, name, g: float) -> list:
    """[(input, formula, arithmetic, contribution)] of node's backward, as the engine adds them.

    The arithmetic repeats the engine's float operations in the same order, so the sums
    equal backward()'s bit for bit.
    """
    op, ins, O = node._op, node._prev, name(node)
    if not _is_builtin(node):
        return _generic_steps(node, name, g)
    if op == "+":
        return [(c, f"{name(c)}.grad += {O}.grad", "", g) for c in ins]
    if op == "*":
        a, b = ins
        return [
            (a, f"{name(a)}.grad += {name(b)}.data * {O}.grad", f"{_p(b.data)} * {_p(g)}",
             b.data * g),
            (b, f"{name(b)}.grad += {name(a)}.data * {O}.grad", f"{_p(a.data)} * {_p(g)}",
             a.data * g),
        ]
    if op == "**":
        x, y = ins
        X, Y = name(x), name(y)
        dx = y.data * _pow(x.data, y.data - 1) if y.data != 0 else 0.0
        dy = 0.0 if x.data == 0 and y.data >= 0 else node.data * _log(x.data)
        return [
            (x, f"{X}.grad += {Y}.data * {X}.data**({Y}.data - 1) * {O}.grad",
             f"{_p(dx)} * {_p(g)}", dx * g),
            (y, f"{Y}.grad += {O}.data * log({X}.data) * {O}.grad", f"{_p(dy)} * {_p(g)}",
             dy * g),
        ]
    if op.startswith("**"):
        (x,) = ins
        X = name(x)
        k = float(op[2:])
        local = k * _pow(x.data, k - 1) if k != 0 else 0.0
        return [(x, f"{X}.grad += {_k(k)} * {X}.data**{_k(k - 1)} * {O}.grad",
                 f"{_p(local)} * {_p(g)}", local * g)]
    if op == "w·x+b":
        k = (len(ins) - 1) // 2
        result = []
        for w, x in zip(ins[:k], ins[k:2 * k]):
            result.append((w, f"{name(w)}.grad += {name(x)}.data * {O}.grad",
                           f"{_p(x.data)} * {_p(g)}", x.data * g))
            result.append((x, f"{name(x)}.grad += {name(w)}.data * {O}.grad",
                           f"{_p(w.data)} * {_p(g)}", w.data * g))
        result.append((ins[-1], f"{name(ins[-1])}.grad += {O}.grad", "", g))
        return result
    (x,) = ins
    X, xd, od = name(x), x.data, node.data
    if op == "tanh":
        return [(x, f"{X}.grad += (1 - {O}.data**2) * {O}.grad",
                 f"(1 - {_p(od)}**2) * {_p(g)}", (1 - od**2) * g)]
    if op == "sigmoid":
        return [(x, f"{X}.grad += {O}.data * (1 - {O}.data) * {O}.grad",
                 f"{_p(od)} * (1 - {_p(od)}) * {_p(g)}", od * (1 - od) * g)]
    if op == "exp":
        return [(x, f"{X}.grad += {O}.data * {O}.grad", f"{_p(od)} * {_p(g)}", od * g)]
    if op == "log":
        return [(x, f"{X}.grad += {O}.grad / {X}.data", f"{_p(g)} / {_p(xd)}", _div(g, xd))]
    if op == "sqrt":
        return [(x, f"{X}.grad += {O}.grad / (2 * {O}.data)", f"{_p(g)} / (2 * {_p(od)})",
                 _div(g, 2.0 * od))]
    if op == "ReLU":
        on = od > 0
        return [(x, f"{X}.grad += ({O}.data > 0) * {O}.grad", f"{int(on)} * {_p(g)}", on * g)]
    if op == "sin":
        local = _domain(math.cos, xd)
        return [(x, f"{X}.grad += cos({X}.data) * {O}.grad", f"{_p(local)} * {_p(g)}",
                 local * g)]
    if op == "cos":
        local = -_domain(math.sin, xd)
        return [(x, f"{X}.grad += -sin({X}.data) * {O}.grad", f"{_p(local)} * {_p(g)}",
                 local * g)]
    if op == "abs":
        sign = (xd > 0) - (xd < 0)
        return [(x, f"{X}.grad += sign({X}.data) * {O}.grad", f"{sign} * {_p(g)}", sign * g)]
    return _generic_steps(node, name, g)


def _generic_steps(node: Any, name, g: float) -> list:
    """A custom op: read d(out)/d(input) by running its backward once on scratch grads."""
    unique = list({id(c): c for c in node._prev}.values())
    saved = [(c, c.grad) for c in unique] + [(node, node.grad)]
    try:
        for c in unique:
            c.grad = 0.0
        node.grad = 1.0
        node._grad_fn(node)
        locals_ = [c.grad for c in unique]
    finally:
        for n, grad in saved:
            n.grad = grad
    O, op = name(node), node._op
    return [(c, f"{name(c)}.grad += d{op}/d{name(c)} * {O}.grad", f"{_p(d)} * {_p(g)}", d * g)
            for c, d in zip(unique, locals_)]
