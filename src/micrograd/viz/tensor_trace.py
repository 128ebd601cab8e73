"""trace for a Tensor graph: forward shapes, then each backward step with the gradient shapes.

A Value's trace writes the chain rule out in numbers (`f.grad += d.data * L.grad = ...`).
A Tensor's local derivative is a whole array expression (the backward of `linear` is two
matrix products and a sum), so its trace shows what a learner checks first when a tensor
backward goes wrong: for each op, in the order backward() runs them, the shape of the
gradient coming in and the shape and numbers of what it adds into each input -- summed
back to that input's shape where broadcasting stretched it.

Each step's contributions are read by running the node's own backward once on scratch
gradients (the engine never edits a gradient array in place, so this is safe); .grad is
restored afterwards, so tracing changes nothing. The gradients are those of one fresh
backward pass (as after zero_grad()), and equal backward()'s bit for bit.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from micrograd.autograd import topological_order
from micrograd.ops import BINARY
from micrograd.viz.graph import _unique_names, array_text, given_names, tensor_kind

# the op registry's two-input ops (ops/binary.py): each broadcasts its inputs, so a
# gradient may be summed back to an input's shape; + - * / ** are written between them
BROADCASTING_OPS = {entry.label for entry in BINARY.values()}
INFIX_OPS = {entry.symbol for entry in BINARY.values() if entry.symbol}


def _shape(array: Any) -> str:
    return f"shape {tuple(array.shape)}"


@dataclass
class TensorContribution:
    """What one backward step adds into one input's .grad (None: nothing, a constant)."""

    target: Any
    added: Any  # the array added, already summed to the target's shape; None if none
    before: Any  # target's gradient before the step (None: none yet)
    after: Any


@dataclass
class TensorStep:
    """The backward of one Tensor op: its equation, the incoming gradient, what it adds."""

    node: Any
    equation: str  # "v1 = linear(v0, 2.weight, 2.bias)"
    incoming: Any  # node's gradient when its backward runs
    contributions: list = field(default_factory=list)


@dataclass
class TensorTrace:
    """A Tensor graph's forward and backward pass, ready to print."""

    root: Any
    order: list
    names: dict  # id(node) -> name
    forward: list  # one line per node, inputs first
    steps: list  # TensorStep, in the order backward() runs them
    grads: dict  # id(node) -> gradient after the whole pass (None: no gradient)

    def name(self, node: Any) -> str:
        return self.names[id(node)]

    def grad(self, node: Any) -> Any:
        return self.grads[id(node)]

    def _line(self, step: TensorStep, c: TensorContribution) -> str:
        name = self.name(c.target)
        if c.added is None:
            if not getattr(c.target, "requires_grad", True):
                return f"{name}: no gradient (a constant: requires_grad=False)"
            return f"{name}: nothing added (no gradient reached {self.name(step.node)})"
        text = f"{name}.grad += {_shape(c.added)}: {array_text(c.added)}"
        if (step.node._op in BROADCASTING_OPS and step.incoming is not None
                and tuple(c.added.shape) != tuple(step.incoming.shape)):
            text += f"   (summed from {_shape(step.incoming)} to the input's shape)"
        if c.before is not None:  # accumulation: the input is used more than once
            text += f"  -> {name}.grad = {array_text(c.after)}"
        return text

    def __str__(self) -> str:
        root = self.name(self.root)
        out = ["forward pass (inputs first):"]
        out += ["  " + line for line in self.forward]
        out.append("backward pass (in the order backward() runs it):")
        if not self.root._prev and getattr(self.root, "requires_grad", False):
            out.append(f"  {root}.grad = 1.0   (the output is a leaf: backward() only seeds it)")
        elif not self.steps:
            out.append("  no backward steps: nothing in this graph requires grad")
        else:
            out.append(f"  {root}.grad = 1.0   (d{root}/d{root} = 1, "
                       f"{_shape(self.root._array)})")
        for k, step in enumerate(self.steps, 1):
            incoming = "None" if step.incoming is None else _shape(step.incoming)
            out.append(f"  step {k}: {step.equation}   (incoming "
                       f"{self.name(step.node)}.grad: {incoming})")
            out += ["    " + self._line(step, c) for c in step.contributions]
        leaves = [n for n in self.order if not n._prev and getattr(n, "requires_grad", False)]
        if leaves:
            out.append("gradients of the leaves that require grad:")
            for n in leaves:
                grad = self.grad(n)
                shape = "" if grad is None else f"{_shape(grad)}: "
                out.append(f"  {self.name(n)}.grad = {shape}{array_text(grad)}")
        return "\n".join(out)


def tensor_trace_steps(root: Any, names: Mapping[str, Any] | None = None) -> TensorTrace:
    """Work out the forward shapes and every backward step of a Tensor graph, .grad untouched."""
    size = getattr(root._array, "size", 1)
    if size != 1:
        raise ValueError(
            f"trace runs backward() from a single-element output, as backward() does without "
            f"a gradient; this tensor has shape {tuple(root.shape)}: trace its .sum() or the "
            f"loss instead")
    order = topological_order(root)
    fixed = given_names(names, "trace")
    table = _unique_names(order, fixed)

    def name(node: Any) -> str:
        return table[id(node)]

    grads: dict = {id(node): None for node in order}
    import numpy as np

    if root._grad_fn is not None or getattr(root, "requires_grad", False):
        grads[id(root)] = np.ones_like(root._array)
    steps = []
    for node in reversed(order):
        if node._grad_fn is None:
            continue
        step = TensorStep(node, _equation(node, name), grads[id(node)])
        inputs = list({id(c): c for c in node._prev}.values())
        added = _run_backward(node, grads[id(node)], {id(c): None for c in inputs})
        befores = {id(c): grads[id(c)] for c in inputs}
        if any(b is not None for b in befores.values()):
            # the engine adds into the existing gradient: let it, for the exact sums
            totals = _run_backward(node, grads[id(node)], befores)
        else:
            totals = added
        for c in inputs:
            grads[id(c)] = totals[id(c)]
            step.contributions.append(
                TensorContribution(c, added[id(c)], befores[id(c)], totals[id(c)]))
        steps.append(step)
    forward = [_forward_line(node, name) for node in order]
    return TensorTrace(root, order, table, forward, steps, grads)


def _run_backward(node: Any, incoming: Any, start: dict) -> dict:
    """Run node's backward with node.grad = incoming and each input's grad = start[id];
    return the inputs' gradients after it. Every .grad is restored."""
    inputs = list({id(c): c for c in node._prev}.values())
    saved = [(c, c._grad_array) for c in inputs] + [(node, node._grad_array)]
    try:
        for c in inputs:
            c._grad_array = start[id(c)]
        node._grad_array = incoming
        node._grad_fn(node)
        return {id(c): c._grad_array for c in inputs}
    finally:
        for n, grad in reversed(saved):
            n._grad_array = grad


def _equation(node: Any, name) -> str:
    ins = [name(c) for c in node._prev]
    op = node._op or "?"
    if op in INFIX_OPS | {"@"} and len(ins) == 2:
        return f"{name(node)} = {ins[0]} {op} {ins[1]}"
    if op in INFIX_OPS and len(ins) == 1:  # t * 2: the number is not a graph node
        found = _python_operand(node)
        if found is None:
            return f"{name(node)} = {ins[0]} {op} a number (or the number {op} {ins[0]})"
        number, first = found
        left, right = (number, ins[0]) if first else (ins[0], number)
        return f"{name(node)} = {left} {op} {right}"
    return f"{name(node)} = {op}({', '.join(ins)})"


def _python_operand(node: Any) -> tuple | None:
    """(the plain number, is it the left operand?) of `t * 2` or `2 - t`, else None.

    The graph keeps only the Tensor input; the number lives on in the op's backward
    function, which the Tensor engine makes as a closure over its operands' values `x`
    and `y` (the number itself for a number).
    Reading that closure changes nothing; if the engine ever keeps the operands elsewhere,
    this finds none and the trace says "a number" instead.
    """
    function = node._grad_fn
    code = getattr(function, "__code__", None)
    cells = getattr(function, "__closure__", None)
    if code is None or not cells:
        return None
    captured = {}
    for var, cell in zip(code.co_freevars, cells, strict=True):
        try:
            captured[var] = cell.cell_contents
        except ValueError:  # an empty cell
            continue
    x, y = captured.get("x"), captured.get("y")
    if _is_number(x):
        return repr(x), True
    if _is_number(y):
        return repr(y), False
    return None


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float))  # Python numbers (bool included), as the engine keeps them


def _describe(node: Any) -> str:
    return f"{_shape(node._array)} {node._array.dtype}: {array_text(node._array)}"


def _forward_line(node: Any, name) -> str:
    if not node._prev:
        return f"{name(node)}{tensor_kind(node)} = {_describe(node)}"
    return f"{_equation(node, name)} -> {_describe(node)}"
