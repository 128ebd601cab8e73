"""The worked examples of the lecture, the micrograd README, the textbook chapter and the
Japanese notes (shared/seeds/), run on our package, against the numbers they publish.

Code that a seed prints as a whole program is run verbatim in a subprocess, with only its
import line pointing at this package.
"""

from __future__ import annotations

import itertools
import math
import struct

import pytest
from conftest import SRC, require_module, run_python

from micrograd.engine import Value

# ---------------------------------------------------------------------------------------
# The lecture, section 2: derivatives as slopes
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("x0,slope", [(3.0, 14.0), (-3.0, -22.0), (2 / 3, 0.0)])
def test_lecture_parabola_slopes(x0, slope):
    x = Value(x0)
    y = 3 * x**2 - 4 * x + 5
    y.backward()
    assert x.grad == pytest.approx(slope, abs=1e-12)  # f'(x) = 6x - 4


def test_lecture_partial_derivatives_of_a_times_b_plus_c():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    d = a * b + c
    d.backward()
    assert (d.data, a.grad, b.grad, c.grad) == (4.0, -3.0, 2.0, 1.0)


def test_lecture_exercise_function_gradient_matches_analytic_and_torch():
    # f(a, b, c) = -a^3 + sin(3b) - 1/c + b^2.5 - a^0.5 at (2, 3, 4), the video's exercise
    def f(a, b, c):
        return -a**3 + (3 * b).sin() - 1 / c + b**2.5 - a**0.5

    a, b, c = Value(2.0), Value(3.0), Value(4.0)
    f(a, b, c).backward()
    analytic = [-3 * 2.0**2 - 0.5 * 2.0**-0.5, 3 * math.cos(9.0) + 2.5 * 3.0**1.5, 4.0**-2]
    assert [a.grad, b.grad, c.grad] == pytest.approx(analytic, rel=1e-14)
    torch = require_module("torch")
    ts = [torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (2.0, 3.0, 4.0)]
    out = f(*ts)
    out.backward()
    assert f(Value(2.0), Value(3.0), Value(4.0)).data == pytest.approx(out.item(), rel=1e-14)
    assert [a.grad, b.grad, c.grad] == pytest.approx([t.grad.item() for t in ts], rel=1e-13)


# ---------------------------------------------------------------------------------------
# The lecture: L = (a*b + c)*f
# ---------------------------------------------------------------------------------------

def _lecture_graph():
    a = Value(2.0, label="a")
    b = Value(-3.0, label="b")
    c = Value(10.0, label="c")
    e = a * b; e.label = "e"
    d = e + c; d.label = "d"
    f = Value(-2.0, label="f")
    L = d * f; L.label = "L"
    return a, b, c, d, e, f, L


def test_lecture_expression_graph_has_published_gradients():
    a, b, c, d, e, f, L = _lecture_graph()
    L.backward()
    assert L.data == -8.0 and L.grad == 1.0
    assert (a.grad, b.grad, c.grad, f.grad, e.grad, d.grad) == (6.0, -4.0, -2.0, 4.0, -2.0, -2.0)


def test_lecture_one_optimization_step_raises_L_to_about_minus_7_29():
    a, b, c, d, e, f, L = _lecture_graph()
    L.backward()
    for leaf in (a, b, c, f):
        leaf.data += 0.01 * leaf.grad
    e = a * b
    d = e + c
    L = d * f
    assert round(L.data, 2) == -7.29
    assert L.data == pytest.approx((2.06 * -3.04 + 9.98) * -1.96, rel=1e-15)


def test_label_keyword_and_repr_format():
    a = Value(2.0, label="a")
    assert a.label == "a"
    assert repr(a) == "Value(data=2.0, grad=0.0)"
    b = a * 3
    b.backward()
    assert repr(a) == "Value(data=2.0, grad=3.0)"
    assert Value(1.5, (), "", "x").label == "x"  # positional, after micrograd's _op


# ---------------------------------------------------------------------------------------
# The lecture: the tanh neuron, by hand and automatically
# ---------------------------------------------------------------------------------------

def _neuron():
    x1 = Value(2.0, label="x1")
    x2 = Value(0.0, label="x2")
    w1 = Value(-3.0, label="w1")
    w2 = Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1; x1w1.label = "x1*w1"
    x2w2 = x2 * w2; x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2; x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b; n.label = "n"
    o = n.tanh(); o.label = "o"
    return x1, x2, w1, w2, b, x1w1, x2w2, x1w1x2w2, n, o


def _assert_neuron_grads(x1, x2, w1, w2, b, x1w1, x2w2, x1w1x2w2, n, o):
    assert round(o.data, 4) == 0.7071
    assert n.grad == pytest.approx(0.5, abs=1e-9) and b.grad == pytest.approx(0.5, abs=1e-9)
    assert x1w1.grad == pytest.approx(0.5, abs=1e-9) and x2w2.grad == pytest.approx(0.5, abs=1e-9)
    assert x1.grad == pytest.approx(-1.5, abs=1e-9)
    assert w1.grad == pytest.approx(1.0, abs=1e-9)
    assert x2.grad == pytest.approx(0.5, abs=1e-9)
    assert w2.grad == 0.0


def test_lecture_tanh_neuron_backward_gives_published_gradients():
    nodes = _neuron()
    nodes[-1].backward()
    _assert_neuron_grads(*nodes)


def test_lecture_manual_backward_sequence_works():
    nodes = _neuron()
    b, x1w1, x2w2, x1w1x2w2, n, o = nodes[4:]  # the leaves x1, x2, w1, w2 have no _backward
    o.grad = 1.0
    o._backward()
    n._backward()
    b._backward()  # a leaf: does nothing
    x1w1x2w2._backward()
    x2w2._backward()
    x1w1._backward()
    _assert_neuron_grads(*nodes)


def test_lecture_hand_written_topological_sort_drives_our_nodes():
    nodes = _neuron()
    o = nodes[-1]
    topo = []
    visited = set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(o)
    assert topo[-1] is o and len(topo) == 10
    o.grad = 1.0
    for node in reversed(topo):
        node._backward()
    _assert_neuron_grads(*nodes)


def test_lecture_bug_storing_the_call_instead_of_the_function_fails_as_in_the_video():
    # `out._backward = _backward()` stores None; the lecture then sees this TypeError
    x = Value(2.0)
    out = Value(x.data * 2, (x,), "double")

    def _backward():
        x.grad += 2 * out.grad

    out._backward = _backward()
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        out.backward()


def test_tanh_rebuilt_from_exp_gives_same_value_and_leaf_gradients():
    direct = _neuron()
    direct[-1].backward()
    x1, x2, w1, w2, b = (Value(v) for v in (2.0, 0.0, -3.0, 1.0, 6.8813735870195432))
    n = x1 * w1 + x2 * w2 + b
    e = (2 * n).exp()
    o = (e - 1) / (e + 1)
    o.backward()
    assert o.data == pytest.approx(direct[-1].data, rel=1e-14)
    for rebuilt, leaf in zip((x1, x2, w1, w2, b), direct[:5], strict=True):
        assert rebuilt.grad == pytest.approx(leaf.grad, rel=1e-12, abs=1e-15)


def test_lecture_pytorch_comparison_gives_the_same_numbers():
    torch = require_module("torch")
    # the lecture's PyTorch cell, line for line
    x1 = torch.Tensor([2.0]).double();  x1.requires_grad = True
    x2 = torch.Tensor([0.0]).double();  x2.requires_grad = True
    w1 = torch.Tensor([-3.0]).double(); w1.requires_grad = True
    w2 = torch.Tensor([1.0]).double();  w2.requires_grad = True
    b = torch.Tensor([6.8813735870195432]).double(); b.requires_grad = True
    o = torch.tanh(x1*w1 + x2*w2 + b)
    o.backward()
    t_o = o.item()
    t_x2, t_w2, t_x1, t_w1 = x2.grad.item(), w2.grad.item(), x1.grad.item(), w1.grad.item()

    # torch.Tensor([...]) is float32 before .double(): b arrives rounded to float32 there,
    # which is why the lecture's PyTorch prints 0.70710669... instead of 0.70710678...
    b32 = struct.unpack("f", struct.pack("f", 6.8813735870195432))[0]
    x1, x2, w1, w2 = Value(2.0), Value(0.0), Value(-3.0), Value(1.0)
    o = (x1 * w1 + x2 * w2 + Value(b32)).tanh()
    o.backward()
    assert round(t_o, 4) == 0.7071
    assert o.data == pytest.approx(t_o, rel=1e-15)
    for ours, theirs in ((x2.grad, t_x2), (w2.grad, t_w2), (x1.grad, t_x1), (w1.grad, t_w1)):
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------------------
# The lecture: a node used twice
# ---------------------------------------------------------------------------------------

def test_a_plus_a_gives_gradient_two():
    a = Value(3.0, label="a")
    b = a + a
    b.backward()
    assert a.grad == 2.0


def test_product_times_sum_of_the_same_nodes():
    a = Value(-2.0, label="a")
    b = Value(3.0, label="b")
    d = a * b
    e = a + b
    f = d * e
    f.backward()
    # df/da = b*(a+b) + a*b = -3, df/db = a*(a+b) + a*b = -8, as in the lecture
    assert (a.grad, b.grad) == (-3.0, -8.0)


LECTURE_MLP = '''
import random
random.seed(SEED)

class Neuron:
    def __init__(self, nin):
        self.w = [Value(random.uniform(-1, 1)) for _ in range(nin)]   # по весу на вход
        self.b = Value(random.uniform(-1, 1))                          # смещение
    def __call__(self, x):
        act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)     # w·x + b
        return act.tanh()
    def parameters(self):
        return self.w + [self.b]

class Layer:                                  # слой — независимые нейроны на общем входе
    def __init__(self, nin, nout):
        self.neurons = [Neuron(nin) for _ in range(nout)]
    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs
    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

class MLP:                                    # перцептрон — слои друг за другом
    def __init__(self, nin, nouts):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i + 1]) for i in range(len(nouts))]
    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]                         # желаемые ответы
n = MLP(3, [4, 4, 1])

for k in range(20):
    ypred = [n(x) for x in xs]                                     # прямой проход
    loss = sum((yout - ygt)**2 for ygt, yout in zip(ys, ypred))    # сумма квадратов ошибок
    for p in n.parameters():
        p.grad = 0.0                # обнулить! иначе += копит градиенты прошлых шагов
    loss.backward()                 # обратный проход
    for p in n.parameters():
        p.data += -0.1 * p.grad     # шаг против градиента
    print(k, loss.data)
print("params", len(n.parameters()))
'''


@pytest.mark.parametrize("seed", [0, 1337])
def test_lecture_mlp_code_runs_unchanged_and_its_loss_falls(seed):
    out = run_python("from micrograd.engine import Value\n" +
                     LECTURE_MLP.replace("SEED", str(seed)), SRC)
    lines = out.strip().split("\n")
    assert lines[-1] == "params 41"
    losses = [float(line.split()[1]) for line in lines[:-1]]
    assert len(losses) == 20
    assert losses[-1] < losses[0]
    assert losses[-1] < 0.5 * losses[0]  # 20 steps of lr 0.1 on four points


# ---------------------------------------------------------------------------------------
# The micrograd README and its tests (test_sanity_check, test_more_ops) against PyTorch
# ---------------------------------------------------------------------------------------

def test_micrograd_sanity_check_against_torch():
    torch = require_module("torch")
    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    xt = torch.tensor([-4.0], dtype=torch.float64, requires_grad=True)
    zt = 2 * xt + 2 + xt
    qt = zt.relu() + zt * xt
    ht = (zt * zt).relu()
    yt = ht + qt + qt * xt
    yt.backward()
    assert y.data == yt.item()
    assert x.grad == xt.grad.item()


def _readme_expression(a, b, relu):
    c = a + b
    d = a * b + b**3
    c = c + c + 1
    c = c + 1 + c + (-a)
    d = d + d * 2 + relu(b + a)
    d = d + 3 * d + relu(b - a)
    e = c - d
    f = e**2
    g = f / 2.0
    g = g + 10.0 / f
    return g


def test_micrograd_more_ops_against_torch():
    torch = require_module("torch")
    a, b = Value(-4.0), Value(2.0)
    g = _readme_expression(a, b, lambda v: v.relu())
    g.backward()
    at = torch.tensor([-4.0], dtype=torch.float64, requires_grad=True)
    bt = torch.tensor([2.0], dtype=torch.float64, requires_grad=True)
    gt = _readme_expression(at, bt, lambda v: v.relu())
    gt.backward()
    assert g.data == pytest.approx(gt.item(), abs=1e-6)
    assert a.grad == pytest.approx(at.grad.item(), abs=1e-6)
    assert b.grad == pytest.approx(bt.grad.item(), abs=1e-6)
    # the numbers printed in micrograd's README
    assert (round(g.data, 4), round(a.grad, 4), round(b.grad, 4)) == (24.7041, 138.8338, 645.5773)


# ---------------------------------------------------------------------------------------
# The textbook chapter "P0: scalar autograd"
# ---------------------------------------------------------------------------------------

def test_textbook_minimal_example():
    a = Value(2.0)
    b = Value(3.0)
    c = a * b + a
    c.backward()
    assert a.grad == 4.0 and b.grad == 2.0


TEXTBOOK_XOR = '''
class Neuron:
    def __init__(self, nin, rng):
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0.0)

    def __call__(self, xs):
        act = self.b
        for wi, xi in zip(self.w, xs):
            act = act + wi * xi
        return act.tanh()

    def params(self):
        return self.w + [self.b]


class Layer:
    def __init__(self, nin, nout, rng):
        self.neurons = [Neuron(nin, rng) for _ in range(nout)]

    def __call__(self, xs):
        outs = [n(xs) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def params(self):
        return [p for n in self.neurons for p in n.params()]


class MLP:
    def __init__(self, nin, nouts, rng):
        sizes = [nin] + nouts
        self.layers = [Layer(sizes[i], sizes[i+1], rng) for i in range(len(nouts))]

    def __call__(self, xs):
        for layer in self.layers:
            xs = layer(xs)
        return xs

    def params(self):
        return [p for layer in self.layers for p in layer.params()]

import random
rng = random.Random(42)
mlp = MLP(2, [4, 1], rng)

X = [[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]
Y = [-1.0, 1.0, 1.0, -1.0]

for step in range(300):
    total = Value(0.0)
    for xs, y in zip(X, Y):
        xs_v = [Value(xi) for xi in xs]
        y_pred = mlp(xs_v)
        total = total + (y_pred - y) ** 2

    for p in mlp.params():
        p.grad = 0.0

    total.backward()

    for p in mlp.params():
        p.data -= 0.1 * p.grad

    if step % 30 == 0:
        print(f"step {step:3d}  loss {total.data:.4f}")
'''


def _torch_textbook_xor():
    """The textbook's XOR training replayed in PyTorch float64: same init, same steps."""
    import random

    torch = require_module("torch")
    rng = random.Random(42)
    sizes = [2, 4, 1]
    layers = []
    for nin, nout in itertools.pairwise(sizes):  # neuron by neuron: nin weights, bias 0
        w = torch.tensor([[rng.uniform(-1, 1) for _ in range(nin)] for _ in range(nout)],
                         dtype=torch.float64, requires_grad=True)
        layers.append((w, torch.zeros(nout, dtype=torch.float64, requires_grad=True)))
    X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], dtype=torch.float64)
    Y = torch.tensor([-1.0, 1.0, 1.0, -1.0], dtype=torch.float64)
    printed, loss = [], None
    for step in range(300):
        h = X
        for w, b in layers:
            h = torch.tanh(h @ w.T + b)
        loss = ((h[:, 0] - Y) ** 2).sum()
        for p in (p for layer in layers for p in layer):
            p.grad = None
        loss.backward()
        with torch.no_grad():
            for p in (p for layer in layers for p in layer):
                p -= 0.1 * p.grad
        if step % 30 == 0:
            printed.append(f"step {step:3d}  loss {loss.item():.4f}")
    return printed, loss.item()


def test_textbook_xor_code_runs_unchanged_and_reaches_loss_below_001_in_300_steps():
    code = ("from micrograd.engine import Value\n" + TEXTBOOK_XOR +
            "print('final', repr(total.data))\n")
    lines = run_python(code, SRC).strip().split("\n")
    final = float(lines[-1].split()[1])
    assert final < 0.01  # the textbook's claim
    torch_printed, torch_final = _torch_textbook_xor()
    assert lines[:-1] == torch_printed  # every printed loss, to 4 decimals
    assert final == pytest.approx(torch_final, rel=1e-9)


# ---------------------------------------------------------------------------------------
# The Japanese notes (002): L = (a*b + c)*d with their names
# ---------------------------------------------------------------------------------------

def test_japanese_notes_expression_and_gradients():
    a, b, c, d = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    e = a * b
    f = e + c
    L = f * d
    assert (e.data, f.data, L.data) == (-6.0, 4.0, -8.0)
    L.backward()
    assert L.grad == 1.0
    assert (f.grad, d.grad, e.grad, c.grad, a.grad, b.grad) == (-2.0, 4.0, -2.0, -2.0, 6.0, -4.0)


def test_japanese_notes_numerical_check_number():
    h = 0.001
    L1 = (Value(2) * -3 + 10) * -2
    L2 = ((Value(2) + h) * -3 + 10) * -2
    assert (L2.data - L1.data) / h == 6.000000000000227  # as printed in the notes


def test_japanese_notes_pytorch_snippet_agrees():
    torch = require_module("torch")
    a = torch.tensor(2.0, requires_grad=True)
    b = torch.tensor(-3.0, requires_grad=True)
    c = torch.tensor(10.0, requires_grad=True)
    d = torch.tensor(-2.0, requires_grad=True)
    L = (a * b + c) * d
    L.backward()
    va, vb, vc, vd = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    ((va * vb + vc) * vd).backward()
    assert [t.grad.item() for t in (a, b, c, d)] == [v.grad for v in (va, vb, vc, vd)]
    assert [v.grad for v in (va, vb, vc, vd)] == [6.0, -4.0, -2.0, 4.0]


def test_japanese_notes_reused_node():
    a = Value(3.0)
    b = a + a  # a が2回使われている
    b.backward()
    assert a.grad == 2.0
