"""micrograd.lecture: the lecture's classes, checked against the lecture's code itself.

The oracle is a plain re-implementation of the lecture's Value / Neuron / Layer / MLP, as
the video writes them (below, in this file): seeded training must give the same losses to
the last bit, and the neuron must print the video's 0.7071067811865476.
"""

from __future__ import annotations

import math
import random

import pytest
from conftest import require_module

# --- the oracle: the lecture's code, as written in the video --------------------------------

class LectureValue:
    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)  # the video: set(_children); see _lecture_training
        self._op = _op
        self.label = label

    def __add__(self, other):
        other = other if isinstance(other, LectureValue) else LectureValue(other)
        out = LectureValue(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, LectureValue) else LectureValue(other)
        out = LectureValue(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        out = LectureValue(self.data ** other, (self,), f"**{other}")

        def _backward():
            self.grad += other * (self.data ** (other - 1)) * out.grad
        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def __radd__(self, other):
        return self + other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = LectureValue(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


class LectureNeuron:
    def __init__(self, nin):
        self.w = [LectureValue(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = LectureValue(random.uniform(-1, 1))

    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x, strict=True)), self.b)
        return act.tanh()

    def parameters(self):
        return self.w + [self.b]


class LectureLayer:
    def __init__(self, nin, nout):
        self.neurons = [LectureNeuron(nin) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]


class LectureMLP:
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [LectureLayer(sz[i], sz[i + 1]) for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]


def _lecture_training(mlp_class, steps=20, seed=1337):
    """The lecture's training loop, word for word.

    The oracle keeps `_prev` in creation order (a tuple) where the video uses a set: a set
    of Values iterates in memory-address order, so the video's own class sums a weight's
    gradient contributions in an order that can change from run to run (last-bit
    differences). In creation order its recursive topological sort is a fixed DFS, the
    one the engine's walker makes, and the losses can be compared bit for bit.
    """
    random.seed(seed)
    n = mlp_class(3, [4, 4, 1])
    losses = []
    for _ in range(steps):
        ypred = [n(x) for x in XS]
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(YS, ypred, strict=True))
        for p in n.parameters():
            p.grad = 0.0
        loss.backward()
        for p in n.parameters():
            p.data += -0.1 * p.grad
        losses.append(loss.data)
    return losses, [p.data for p in n.parameters()]


# --- the tests ------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1337, 0, 42])
def test_seeded_training_gives_the_lecture_classes_losses_bit_for_bit(seed):
    from micrograd.lecture import MLP

    expected_losses, expected_params = _lecture_training(LectureMLP, seed=seed)
    losses, params = _lecture_training(MLP, seed=seed)
    assert losses == expected_losses
    assert params == expected_params
    assert losses[-1] < losses[0]


def test_the_lecture_neuron_prints_the_videos_number():
    from micrograd.lecture import Value

    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    assert repr(o) == "Value(data=0.7071067811865476)"  # the video's output
    o.backward()
    oracle = [LectureValue(v) for v in (2.0, 0.0, -3.0, 1.0, 6.8813735870195432)]
    lo = (oracle[0] * oracle[2] + oracle[1] * oracle[3] + oracle[4]).tanh()
    lo.backward()
    assert [v.grad for v in (x1, x2, w1, w2, b)] == [v.grad for v in oracle]


def test_star_import_gives_the_lecture_names():
    from micrograd import engine, lecture

    # `import *` takes exactly __all__
    assert set(lecture.__all__) == {"Value", "Neuron", "Layer", "MLP", "draw_dot", "trace"}
    assert all(hasattr(lecture, name) for name in lecture.__all__)
    assert issubclass(lecture.Value, engine.Value)  # the same engine underneath


def test_results_of_ops_stay_lecture_values_with_the_lecture_tanh():
    from micrograd.lecture import Value

    a = Value(0.3)
    for out in (a + 1, 1 + a, a * 2, 2 * a, a - 1, 1 - a, a / 2, 2 / a, -a, a ** 2, a.exp()):
        assert type(out) is Value, out
    x = 0.8813735870195432
    assert (Value(x) * 1).tanh().data == (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)


@pytest.mark.parametrize("x, expected", [(1000.0, 1.0), (355.0, 1.0), (-1000.0, -1.0),
                                         (20.0, 1.0), (0.0, 0.0)])
def test_lecture_tanh_does_not_overflow(x, expected):
    from micrograd.lecture import Value

    v = Value(x)
    t = v.tanh()
    assert t.data == expected
    t.backward()
    assert v.grad == 1 - expected**2


def test_lecture_tanh_is_nan_for_nan():
    from micrograd.lecture import Value

    assert math.isnan(Value(math.nan).tanh().data)


def test_neuron_draws_w_then_b_from_uniform():
    from micrograd.lecture import Neuron

    random.seed(7)
    n = Neuron(3)
    random.seed(7)
    drawn = [random.uniform(-1, 1) for _ in range(4)]
    assert [p.data for p in n.parameters()] == drawn


def test_draw_dot_draws_a_record_per_value_and_a_node_per_op():
    require_module("graphviz")
    from micrograd.lecture import Value, draw_dot

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    c.label = "c"
    dot = draw_dot(c)
    source = dot.source
    assert "rankdir=LR" in source
    assert "{ a | data 2.0000 | grad 0.0000 }" in source
    assert "{ c | data -6.0000 | grad 0.0000 }" in source
    assert source.count("->") == 3  # a -> *, b -> *, * -> c
