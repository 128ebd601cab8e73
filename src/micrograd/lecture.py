"""The lecture's own classes, exactly: `from micrograd.lecture import *` and follow the video.

`micrograd.engine.Value` and `micrograd.nn` are micrograd 0.1.0's (ReLU networks, biases 0,
the C library's tanh). The lecture builds something slightly different, and a learner
following it notices:

- its `Value.tanh` computes (e^2x - 1) / (e^2x + 1), so the neuron prints
  0.7071067811865476 (math.tanh gives ...477);
- its `Value` prints as `Value(data=...)`;
- its `Neuron` draws w, then b, from random.uniform(-1, 1) and applies tanh, in every
  layer, so `random.seed(...)` gives the lecture's network and the lecture's losses.

This `Value` is the engine's Value (same ops, same backward, same walker) with those two
differences; `Neuron`, `Layer`, `MLP` and `draw_dot` are the lecture's code shape.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from micrograd import engine
from micrograd.nn import name_parameters
from micrograd.ops import BINARY
from micrograd.ops.floats import LECTURE

__all__ = ["MLP", "Layer", "Neuron", "Value", "draw_dot", "trace"]


class Value(engine.Value):
    """The lecture's Value: the engine's, with the lecture's tanh formula and repr.

    Its tanh is (e^2x - 1) / (e^2x + 1), the lecture's formula (micrograd.ops.floats's
    LectureMath), with the engine's backward 1 - tanh^2."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"Value(data={self.data})"


def _keeps_lecture_class(name: str) -> Callable[..., Any]:
    """Wrap engine op `name` so that its result is a lecture Value too (so that `(a*b).tanh()`
    is the lecture's tanh). Reassigning __class__ is safe: the subclass adds no fields."""
    op = getattr(engine.Value, name)

    def lecture_op(self: Value, *args: Any) -> Any:
        out = op(self, *args)
        if type(out) is engine.Value:
            out.__class__ = Value
        return out

    lecture_op.__name__ = lecture_op.__qualname__ = name
    lecture_op.__doc__ = op.__doc__
    return lecture_op


# + - * / ** and their reflected forms (the op registry's two-input ops Value spells), and -x
for _name in (*(name for entry in BINARY.values() for name in entry.operators), "__neg__"):
    setattr(Value, _name, _keeps_lecture_class(_name))
# relu, tanh, exp, ... (every registry op Value has): methods that make lecture Values,
# computed with the lecture's formulas (its tanh; the engine's math otherwise)
engine.install_ops(Value, LECTURE)


class Neuron:
    """tanh(w·x + b), with w then b drawn from random.uniform(-1, 1): the lecture's neuron."""

    def __init__(self, nin: int):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(random.uniform(-1, 1))
        name_parameters(self)  # not in the video: labels for the pictures (w.0, ..., b)

    def __call__(self, x: Sequence[Any]) -> Value:
        """tanh(w·x + b) for the inputs x."""
        # The lecture's zip, unchecked: extra inputs are ignored, as in the video.
        act = sum((wi * xi for wi, xi in zip(self.w, x, strict=False)), self.b)
        out = act.tanh()
        return out

    def parameters(self) -> list[Value]:
        """The weights, then the bias."""
        return self.w + [self.b]

    def named_parameters(self) -> list[tuple[str, Value]]:
        """`w.0`, `w.1`, ..., `b` (as micrograd.nn.Neuron names them)."""
        return [(f"w.{i}", w) for i, w in enumerate(self.w)] + [("b", self.b)]


class Layer:
    """nout neurons reading the same inputs."""

    def __init__(self, nin: int, nout: int):
        self.neurons = [Neuron(nin) for _ in range(nout)]
        name_parameters(self)

    def __call__(self, x: Sequence[Any]) -> Value | list[Value]:
        """Each neuron's output; the Value itself when there is one neuron."""
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self) -> list[Value]:
        """Every neuron's parameters, neuron by neuron."""
        return [p for neuron in self.neurons for p in neuron.parameters()]

    def named_parameters(self) -> list[tuple[str, Value]]:
        """`neurons.0.w.0`, ... (as micrograd.nn.Layer names them)."""
        return [(f"neurons.{i}.{name}", p) for i, n in enumerate(self.neurons)
                for name, p in n.named_parameters()]


class MLP:
    """Layers of tanh neurons: MLP(3, [4, 4, 1]) is the lecture's network."""

    def __init__(self, nin: int, nouts: list[int]):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i + 1]) for i in range(len(nouts))]
        name_parameters(self)

    def __call__(self, x: Any) -> Any:
        """The layers applied in turn."""
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self) -> list[Value]:
        """Every layer's parameters, layer by layer."""
        return [p for layer in self.layers for p in layer.parameters()]

    def named_parameters(self) -> list[tuple[str, Value]]:
        """`layers.0.neurons.0.w.0`, ... (as micrograd.nn.MLP names them)."""
        return [(f"layers.{i}.{name}", p) for i, layer in enumerate(self.layers)
                for name, p in layer.named_parameters()]


def trace(root: engine.Value) -> tuple[set, set]:
    """All nodes and edges (child, parent) of the graph that ends at `root`."""
    nodes: set = set()
    edges: set = set()

    def build(v: engine.Value) -> None:
        if v not in nodes:
            nodes.add(v)
            for child in v._prev:
                edges.add((child, v))
                build(child)

    build(root)
    return nodes, edges


def draw_dot(root: engine.Value) -> Any:
    """The lecture's picture: a graphviz Digraph, left to right, one record per Value
    (label | data | grad) and one small node per op. Needs the graphviz package."""
    try:
        from graphviz import Digraph
    except ImportError:
        raise ImportError("draw_dot needs the graphviz package: pip install graphviz "
                          "(and the Graphviz programs to render it)") from None
    dot = Digraph(format="svg", graph_attr={"rankdir": "LR"})
    nodes, edges = trace(root)
    for n in nodes:
        uid = str(id(n))
        dot.node(name=uid, label=f"{{ {n.label} | data {n.data:.4f} | grad {n.grad:.4f} }}",
                 shape="record")
        if n._op:
            dot.node(name=uid + n._op, label=n._op)
            dot.edge(uid + n._op, uid)
    for n1, n2 in edges:
        dot.edge(str(id(n1)), str(id(n2)) + n2._op)
    return dot
