"""trace: the forward values, then backprop step by step with the chain rule in numbers.

The steps follow the engine's own order (`autograd.topological_order`, reversed, as
`backward()` runs it). Each step prints the op's derivative as the engine's op table
(`engine.OPS`) writes it, then the same formula in numbers, the way the lecture does it by
hand, e.g. for L = d * f:

    f.grad += d.data * L.grad = 4.0 * 1.0 = 4.0

The numbers are never worked out here: the node's own backward step runs on scratch
gradients, so every sum is the engine's to the last bit. The trace keeps its own gradients
and never touches `.grad`, so tracing a graph does not change it. Ops made with `define_op`
(or a lecture-style `out._backward = ...`) have no formula text: their step reads
"x.grad += dcube/dx * y.grad" with the derivative's value. A Tensor graph gets
tensor_trace.py's trace instead: each step's gradient shapes and summaries.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from micrograd.autograd import topological_order
from micrograd.engine import Value, op_info
from micrograd.viz.graph import (
    GraphView,
    _unique_names,
    given_names,
    is_array_node,
    kinds_of,
    num,
)
from micrograd.viz.tensor_trace import TensorTrace, tensor_trace_steps


def _p(x: float) -> str:
    """A number inside arithmetic: negatives in parentheses, as the lecture writes (-3.0)."""
    text = num(x)
    return f"({text})" if text.startswith("-") else text


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
    node_names: dict[int, str]  # id(node) -> its name in the trace
    if graph is not None and graph.total == len(graph.nodes):
        node_names = graph.names
    elif graph is not None:  # a cut picture: its names, and new ones for what it hides
        node_names = graph.full_names(order)
    else:
        node_names = _unique_names(order, given_names(names, "trace"))
    # the page's rule, over the whole graph: a leaf's kind does not depend on what is drawn
    given = graph.given if graph is not None else set(given_names(names, "trace"))
    kinds = kinds_of(order, given)

    def name(node: Any) -> str:
        return node_names[id(node)]

    grads = {id(node): 0.0 for node in order}
    grads[id(root)] = 1.0
    steps = []
    for node in reversed(order):
        if node._grad_fn is None:
            continue
        step = BackwardStep(node, _equation(node, name))
        step.contributions = _local_steps(node, name, grads[id(node)], grads)
        steps.append(step)
    forward = [_forward_line(node, name, kinds) for node in order]
    seed = f"{name(root)}.grad = 1.0   (d{name(root)}/d{name(root)} = 1)"
    return Trace(root, order, node_names, forward, seed, steps, grads)


def trace(root: Any, names: Mapping[str, Any] | None = None) -> str:
    """The forward values, then each backward step with the chain rule in numbers.

    For a Tensor root: each step's incoming gradient shape and what it adds to each input.
    """
    return str(trace_steps(root, names=names))


# --- per-op text and numbers ---------------------------------------------------------------
#
# The text of every formula comes from the engine's op table (engine.OPS); the numbers come
# from running the node's own backward step on scratch gradients, so they are exactly the
# engine's, whatever the op. Nothing here knows an op's derivative.

class _Names:
    """Fills a formula template with names: {0.data} -> 'a.data', {out.grad} -> 'L.grad'."""

    def __init__(self, name: str):
        self.data, self.grad, self.name = f"{name}.data", f"{name}.grad", name

    def __format__(self, spec: str) -> str:
        return self.name


class _Numbers:
    """Fills a formula template with numbers, negatives in parentheses: (-3.0) * 1.0."""

    def __init__(self, data: float, grad: float = 0.0):
        self.data, self.grad, self.value = _p(data), _p(grad), data

    def __format__(self, spec: str) -> str:
        return _p(self.value)


def _exponent(node: Any) -> str:
    """The k of a `**k` node, as its op name writes it."""
    return node._op[2:] if node._op.startswith("**") else ""


def _equation(node: Any, name) -> str:
    info = op_info(node)
    ins = [name(c) for c in node._prev]
    if info is not None and info.forward:
        text = info.forward_text(len(ins)).format(*map(_Names, ins), k=_exponent(node))
        return f"{name(node)} = {text}"
    return f"{name(node)} = {node._op}({', '.join(ins)})"


def _forward_line(node: Any, name, kinds: dict[int, str]) -> str:
    if not node._prev:
        kind = kinds[id(node)]
        article = "an" if kind == "input" else "a"
        return f"{name(node)} = {num(node.data)}   ({article} {kind})"
    equation = _equation(node, name)
    info = op_info(node)
    if info is not None and info.forward and info.arity != -1:
        template = info.forward_text(len(node._prev))
        numbers = template.format(  # tanh(0.5), not tanh((0.5)): its own parentheses
            *(num(c.data) if f"({{{i}}})" in template else _Numbers(c.data)
              for i, c in enumerate(node._prev)), k=_exponent(node))
        return f"{equation} = {numbers} = {num(node.data)}"
    return f"{equation} = {num(node.data)}"


def _run_backward(node: Any, g: float, scratch_inputs: list) -> None:
    """node's backward step with out.grad = g, sending into scratch_inputs instead of its
    inputs: a stand-in output node with the same data and these inputs. (Works for the ops
    op_info() knows: their backward steps read everything from the node they are given.)"""
    stand_in = Value(node.data)
    stand_in._prev = tuple(scratch_inputs)
    stand_in._op = node._op
    stand_in.grad = g
    node._grad_fn(stand_in)


def _local_steps(node: Any, name, g: float, grads: dict) -> list:
    """[Contribution] of node's backward with out.grad = g; updates `grads` as backward() would.

    Each input's gradient after the step is the engine's to the last bit: the node's own
    backward step runs on scratch gradients that start from the trace's current values.
    """
    info = op_info(node)
    if info is None:  # a backward step written by hand: only the real inputs will do
        return _hand_written_steps(node, name, g, grads)
    ins = node._prev
    # 1. what each input position receives, each position its own scratch input
    shares = [Value(c.data) for c in ins]
    _run_backward(node, g, shares)
    locals_ = [Value(c.data) for c in ins]
    if not info.derivatives:  # define_op: the derivative is a function; show its value
        _run_backward(node, 1.0, locals_)
    # 2. the exact sums: one scratch per distinct input, starting at the trace's gradient
    unique = list({id(c): c for c in ins}.values())
    totals = {id(c): Value(c.data) for c in unique}
    for c in unique:
        totals[id(c)].grad = grads[id(c)]
    _run_backward(node, g, [totals[id(c)] for c in ins])

    texts = info.derivative_texts(len(ins))
    names = [_Names(name(c)) for c in ins]
    numbers = [_Numbers(c.data, grads[id(c)]) for c in ins]
    out_names, out_numbers = _Names(name(node)), _Numbers(node.data, g)
    remaining = {id(c): sum(1 for x in ins if x is c) for c in unique}
    result = []
    for position, target in enumerate(ins):
        value = shares[position].grad
        before = grads[id(target)]
        remaining[id(target)] -= 1
        after = totals[id(target)].grad if remaining[id(target)] == 0 else before + value
        grads[id(target)] = after
        if texts:
            template = texts[position]
            formula = f"{name(target)}.grad += " + template.format(
                *names, out=out_names, k=_exponent(node))
            arithmetic = "" if template == "{out.grad}" else template.format(
                *numbers, out=out_numbers, k=_exponent(node))
        else:
            local = locals_[position].grad
            formula = f"{name(target)}.grad += d{node._op}/d{name(target)} * {name(node)}.grad"
            arithmetic = f"{_p(local)} * {_p(g)}"
        result.append(Contribution(target, formula, arithmetic, value, before, after))
    return result


def _hand_written_steps(node: Any, name, g: float, grads: dict) -> list:
    """A backward step assigned by hand (`out._backward = closure`) updates the nodes it
    captured: run it on the real nodes, with their .grad saved and restored around it."""
    unique = list({id(c): c for c in node._prev}.values())
    saved = [(c, c.grad) for c in unique] + [(node, node.grad)]
    try:
        for c in unique:
            c.grad = 0.0
        node.grad = 1.0
        node._grad_fn(node)
        locals_ = [c.grad for c in unique]
        for c in unique:
            c.grad = grads[id(c)]
        node.grad = g
        node._grad_fn(node)
        afters = [c.grad for c in unique]
    finally:
        for n, grad in saved:
            n.grad = grad
    result = []
    for c, local, after in zip(unique, locals_, afters, strict=True):
        before = grads[id(c)]
        grads[id(c)] = after
        formula = f"{name(c)}.grad += d{node._op}/d{name(c)} * {name(node)}.grad"
        result.append(Contribution(c, formula, f"{_p(local)} * {_p(g)}", local * g, before,
                                   after))
    return result
