"""A tiny neural-net library on top of Value: Module, Neuron, Layer, MLP.

Compatible with micrograd 0.1.0: same constructors, same reprs, and the initial weights
are drawn from Python's `random` in the same order, so `random.seed(1337)` gives the same
network. Two traps of the original are fixed: a one-neuron hidden layer works, and an
input of the wrong length raises instead of being silently truncated by `zip`.

By default a neuron's `w·x + b` is one graph node (`engine.weighted_sum`): the same numbers
as the lecture's chain of `*` and `+` nodes, several times faster. Pass `fused=False` to get
the lecture's fine-grained graph, e.g. for pictures and the backward trace.
"""

from __future__ import annotations

import random
import weakref
from collections.abc import Sequence, Sized
from typing import Any, cast

from micrograd._validate import check_positive_int
from micrograd.autograd import gc_paused
from micrograd.engine import Number, Value, _weighted_sum

ACTIVATIONS = ("relu", "tanh", "sigmoid", "linear")


class Module:
    """Base class: anything with parameters() that can zero their gradients."""

    def zero_grad(self) -> None:
        """Set every parameter's grad to 0.0 (call it before each backward())."""
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        """The Values that training changes, in a fixed order."""
        return []

    def named_parameters(self) -> list[tuple[str, Value]]:
        """(name, parameter) pairs in parameters() order, named by the attribute path as
        PyTorch names them: `layers.0.neurons.2.w.1` is weight 1 of neuron 2 of layer 0."""
        return []


# Every Value a module made as its parameter (weakly: the set keeps none alive), so that a
# picture can show a leaf as a parameter rather than an input or a constant.
PARAMETERS: weakref.WeakSet[Value] = weakref.WeakSet()


def name_parameters(module: Any) -> None:
    """Label each parameter of `module` with its named_parameters() name, so that pictures
    and traces show `layers.0.neurons.2.w.1` instead of a number. A module that becomes part
    of a bigger one is named again by it, so the names always start at the outermost."""
    for name, parameter in module.named_parameters():
        parameter.label = name
        PARAMETERS.add(parameter)


class Neuron(Module):
    """act(w·x + b): weights uniform in [-1, 1], bias 0, as micrograd 0.1.0."""

    def __init__(
        self,
        nin: int,
        nonlin: bool = True,
        activation: str = "relu",
        fused: bool = True,
        rng: random.Random | None = None,
    ):
        check_positive_int("nin", nin)
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {ACTIVATIONS}, got {activation!r}")
        uniform = (rng or random).uniform
        self.w = [Value(uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0)
        self.nonlin = nonlin
        self.activation = activation if nonlin else "linear"
        self.fused = fused
        name_parameters(self)

    @gc_paused
    def __call__(self, x: Sequence[Value | Number]) -> Value:
        _check_inputs("Neuron", x, len(self.w))
        xs = _own_values(x)
        return self._fire(xs, [v.data for v in xs])

    def _fire(self, xs: Sequence[Value], xdata: list[float]) -> Value:
        """act(w·x + b) on Values `xs` of the right length whose numbers are `xdata` (a
        layer reads them once for all its neurons)."""
        if self.fused:
            b = self.b if isinstance(self.b, Value) else Value(self.b)
            act = _weighted_sum(self.w, xs, xdata, b)
        else:
            act = sum((wi * xi for wi, xi in zip(self.w, xs, strict=True)), self.b)
        if self.activation == "relu":
            return act.relu()
        if self.activation == "tanh":
            return act.tanh()
        if self.activation == "sigmoid":
            return act.sigmoid()
        return act

    def parameters(self) -> list[Value]:
        """The weights w[0], w[1], ..., then the bias b."""
        return self.w + [self.b]

    def named_parameters(self) -> list[tuple[str, Value]]:
        """`w.0`, `w.1`, ..., `b`."""
        return [(f"w.{i}", w) for i, w in enumerate(self.w)] + [("b", self.b)]

    def __repr__(self) -> str:
        kind = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid", "linear": "Linear"}
        return f"{kind[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """nout independent neurons reading the same input."""

    def __init__(self, nin: int, nout: int, **kwargs: Any):
        check_positive_int("nout", nout)
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]
        name_parameters(self)

    @gc_paused
    def forward(self, x: Sequence[Value | Number]) -> list[Value]:
        """The layer's outputs, always as a list."""
        _check_inputs("Layer", x, len(self.neurons[0].w))
        xs = _values(x)
        return self._forward(x, None) if xs is None else self._forward(xs, xs)

    def _forward(self, x: Sequence[Value | Number], xs: Sequence[Value] | None) -> list[Value]:
        """forward() on inputs of the right length; `xs` is `x` when all of it are Values."""
        if xs is not None:
            xdata = [v.data for v in xs]  # read once for all the neurons
            return [n._fire(xs, xdata) for n in self.neurons]
        outs = []
        for n in self.neurons:
            own = _own_values(x)
            outs.append(n._fire(own, [v.data for v in own]))
        return outs

    def __call__(self, x: Sequence[Value | Number]) -> Value | list[Value]:
        out = self.forward(x)
        return out[0] if len(out) == 1 else out  # micrograd 0.1.0 unwraps a single output

    def parameters(self) -> list[Value]:
        """Every neuron's parameters, neuron by neuron."""
        return [p for n in self.neurons for p in n.parameters()]

    def named_parameters(self) -> list[tuple[str, Value]]:
        """`neurons.0.w.0`, ..., `neurons.0.b`, `neurons.1.w.0`, ..."""
        return [(f"neurons.{i}.{name}", p) for i, n in enumerate(self.neurons)
                for name, p in n.named_parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: hidden layers with `activation`, a linear output layer.

    MLP(3, [4, 4, 1]) has 3*4+4 + 4*4+4 + 4+1 = 41 parameters. `activation` is "relu"
    (micrograd's repository), "tanh" (the lecture) or "sigmoid"; `output_activation`
    defaults to "linear" -- pass "tanh" for the lecture's network, whose every neuron is tanh.
    """

    def __init__(
        self,
        nin: int,
        nouts: Sequence[int],
        activation: str = "relu",
        output_activation: str = "linear",
        fused: bool = True,
        rng: random.Random | None = None,
    ):
        check_positive_int("nin", nin)
        if isinstance(nouts, int) or not nouts:
            raise ValueError(f"nouts must be a non-empty list of layer sizes, got {nouts!r}")
        for name, value in (("activation", activation), ("output_activation", output_activation)):
            if value not in ACTIVATIONS:  # checked here too: with one layer it is never used
                raise ValueError(f"{name} must be one of {ACTIVATIONS}, got {value!r}")
        sz = [nin] + list(nouts)
        self.layers = [
            Layer(
                sz[i],
                sz[i + 1],
                nonlin=True,
                activation=activation if i != len(nouts) - 1 else output_activation,
                fused=fused,
                rng=rng,
            )
            for i in range(len(nouts))
        ]
        name_parameters(self)

    @gc_paused
    def __call__(self, x: Sequence[Value | Number]) -> Value | list[Value]:
        _check_inputs("MLP", x, self.nin)
        out: Any = x  # the input, then each layer's list of outputs
        values = False  # is `out` a Layer's output (Values only)?
        for layer in self.layers:  # lists between layers: a 1-neuron hidden layer works
            if type(layer) is Layer:
                _check_inputs("Layer", out, len(layer.neurons[0].w))
                out = layer._forward(out, out if values else _values(out))
                values = True
            else:  # a layer of the user's own
                out, values = layer.forward(out), False
        outputs: list[Value] = out
        return outputs[0] if len(outputs) == 1 else outputs

    @property
    def nin(self) -> int:
        return len(self.layers[0].neurons[0].w)

    def parameters(self) -> list[Value]:
        """Every layer's parameters, layer by layer."""
        return [p for layer in self.layers for p in layer.parameters()]

    def named_parameters(self) -> list[tuple[str, Value]]:
        """`layers.0.neurons.0.w.0`, ... in parameters() order."""
        return [(f"layers.{i}.{name}", p) for i, layer in enumerate(self.layers)
                for name, p in layer.named_parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


def _check_inputs(who: str, x: object, n: int) -> None:
    """A model takes a list (or tuple, or array) of exactly n numbers or Values."""
    given = _length(x)
    if given is None:
        hint = " (one input is still a list: [x])" if n == 1 else ""
        raise TypeError(
            f"{who} expects a list of {n} input{'s' * (n != 1)} (numbers or Values), got "
            f"{type(x).__name__}{hint}"
        )
    if given != n:
        raise ValueError(f"{who} expects {n} inputs, got {given}")


def _own_values(x: Sequence[Value | Number]) -> list[Value]:
    """x with each number wrapped in a new Value: a neuron's own leaves, as in micrograd
    0.1.0, where `wi * xi` wraps a number xi for each product."""
    return [v if isinstance(v, Value) else Value(v) for v in x]


def _values(x: Sequence[Value | Number]) -> tuple[Value, ...] | None:
    """x as a tuple when every element is a Value, else None."""
    xs = tuple(x)
    for v in xs:
        if not isinstance(v, Value):
            return None
    return cast("tuple[Value, ...]", xs)


def _length(x: object) -> int | None:
    """len(x), or None for what has no length (a number; a 0-d array, whose len() raises)."""
    if isinstance(x, (list, tuple)):  # the common case, before the slower ABC check
        return len(x)
    if not isinstance(x, Sized):
        return None
    try:
        return len(x)
    except TypeError:
        return None
