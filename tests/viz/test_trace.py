"""micrograd.viz.trace: the backward pass step by step, checked against the lecture and PyTorch."""

import math

import pytest
from conftest import lecture_expression, lecture_neuron, nodes_by_label, require_module

from micrograd.autograd import topological_order
from micrograd.engine import Value, define_op, weighted_sum
from micrograd.viz import trace, trace_expression, trace_steps


def test_lecture_chain_rule_lines_in_numbers():
    L = lecture_expression()
    text = trace(L)
    assert "f.grad += d.data * L.grad = 4.0 * 1.0 = 4.0" in text
    assert "d.grad += f.data * L.grad = (-2.0) * 1.0 = -2.0" in text
    assert "c.grad += d.grad = -2.0" in text
    assert "e.grad += d.grad = -2.0" in text
    assert "a.grad += b.data * e.grad = (-3.0) * (-2.0) = 6.0" in text
    assert "b.grad += a.data * e.grad = 2.0 * (-2.0) = -4.0" in text
    # forward values come first, then the backward steps starting at L.grad = 1
    assert text.index("L = d * f = 4.0 * (-2.0) = -8.0") < text.index("L.grad = 1.0")


def test_lecture_expression_gradients_match_hand_worked_and_engine():
    L = lecture_expression()
    nodes = nodes_by_label(L)
    steps = trace_steps(L)
    hand_worked = dict(a=6.0, b=-4.0, c=-2.0, f=4.0, e=-2.0, d=-2.0)  # the lecture's table
    for name, expected in hand_worked.items():
        assert steps.grad(nodes[name]) == expected
    L.backward()
    for node in nodes.values():
        assert steps.grad(node) == node.grad


def test_lecture_neuron_gradients():
    o = lecture_neuron()
    nodes = nodes_by_label(o)
    steps = trace_steps(o)
    text = str(steps)
    assert "n.grad += (1 - o.data**2) * o.grad = (1 - 0.707107**2) * 1.0 = 0.5" in text
    # the lecture's numbers: x1 -1.5, w1 1.0, x2 0.5, w2 0.0, b 0.5
    lecture = dict(x1=-1.5, w1=1.0, x2=0.5, w2=0.0, b=0.5, n=0.5)
    for name, expected in lecture.items():
        assert steps.grad(nodes[name]) == pytest.approx(expected, abs=1e-12)


def test_steps_follow_the_order_backward_runs_the_nodes():
    o = lecture_neuron()
    ran = []
    for node in topological_order(o):  # record the order in which the engine calls them
        if node._grad_fn is not None:
            node._grad_fn = _recording(node._grad_fn, ran)
    o.backward()
    engine_order = list(ran)
    assert [step.node for step in trace_steps(o).steps] == engine_order


def test_trace_does_not_change_grads():
    L = lecture_expression()
    nodes = nodes_by_label(L)
    L.backward()
    before = {name: node.grad for name, node in nodes.items()}
    trace(L)
    assert {name: node.grad for name, node in nodes.items()} == before


def test_a_value_used_twice_shows_accumulation():
    a = Value(3.0, label="a")
    b = a + a
    b.label = "b"
    text = trace(b)
    assert "a.grad += b.grad = 1.0  -> a.grad = 2.0" in text
    assert trace_steps(b).grad(a) == 2.0  # the lecture's bug case: 2, not 1


def _torch_grads(build, xs):
    torch = require_module("torch")
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    build(ts, torch).backward()
    return [t.grad.item() if t.grad is not None else 0.0 for t in ts]


# (name, micrograd build, torch build, inputs): every op in engine.py
OPS = [
    ("add", lambda v, m: v[0] + v[1], lambda t, T: t[0] + t[1], [1.5, -2.0]),
    ("mul", lambda v, m: v[0] * v[1], lambda t, T: t[0] * t[1], [1.5, -2.0]),
    ("sub_neg", lambda v, m: v[0] - v[1] * 3, lambda t, T: t[0] - t[1] * 3, [1.5, -2.0]),
    ("div", lambda v, m: v[0] / v[1], lambda t, T: t[0] / t[1], [1.5, -2.0]),
    ("pow_const", lambda v, m: v[0] ** 3, lambda t, T: t[0] ** 3, [1.5]),
    ("pow_neg", lambda v, m: v[0] ** -1.5, lambda t, T: t[0] ** -1.5, [1.5]),
    ("pow_value", lambda v, m: v[0] ** v[1], lambda t, T: t[0] ** t[1], [1.5, 2.5]),
    ("rpow", lambda v, m: 2 ** v[0], lambda t, T: 2 ** t[0], [1.5]),
    ("exp", lambda v, m: v[0].exp(), lambda t, T: t[0].exp(), [0.7]),
    ("log", lambda v, m: v[0].log(), lambda t, T: t[0].log(), [0.7]),
    ("tanh", lambda v, m: v[0].tanh(), lambda t, T: t[0].tanh(), [0.7]),
    ("relu", lambda v, m: v[0].relu() + v[1].relu(), lambda t, T: t[0].relu() + t[1].relu(),
     [0.7, -0.3]),
    ("sigmoid", lambda v, m: v[0].sigmoid(), lambda t, T: t[0].sigmoid(), [0.7]),
    ("sin", lambda v, m: v[0].sin(), lambda t, T: t[0].sin(), [0.7]),
    ("cos", lambda v, m: v[0].cos(), lambda t, T: t[0].cos(), [0.7]),
    ("sqrt", lambda v, m: v[0].sqrt(), lambda t, T: t[0].sqrt(), [0.7]),
    ("abs", lambda v, m: abs(v[0]) * abs(v[1]), lambda t, T: t[0].abs() * t[1].abs(),
     [0.7, -0.3]),
    ("weighted_sum", lambda v, m: weighted_sum([v[0], v[1]], [v[2], v[3]], v[4]).tanh(),
     lambda t, T: (t[0] * t[2] + t[1] * t[3] + t[4]).tanh(), [0.5, -1.0, 2.0, 0.3, 0.1]),
    ("mixed", lambda v, m: (v[0] * v[1]).exp().log() + (v[0] ** 2).sqrt() * v[1].sigmoid(),
     lambda t, T: (t[0] * t[1]).exp().log() + (t[0] ** 2).sqrt() * t[1].sigmoid(), [0.7, -0.4]),
]


@pytest.mark.parametrize("name, build, torch_build, xs", OPS, ids=[op[0] for op in OPS])
def test_every_op_traced_gradients_equal_engine_and_torch(name, build, torch_build, xs):
    leaves = [Value(x, label=f"x{k}") for k, x in enumerate(xs)]
    out = build(leaves, None)
    steps = trace_steps(out)
    traced = [steps.grad(leaf) for leaf in leaves]
    out.backward()
    assert traced == [leaf.grad for leaf in leaves]  # same float operations, same order
    assert traced == pytest.approx(_torch_grads(torch_build, xs), rel=1e-12, abs=1e-12)
    text = str(steps)
    assert all(f"x{k}.grad = " in text for k in range(len(xs)))


def test_custom_op_is_traced_generically_with_its_own_derivative():
    cube = define_op("cube", lambda x: x**3, lambda x: 3 * x**2)
    x = Value(2.0, label="x")
    y = cube(x) * 2
    y.label = "y"
    steps = trace_steps(y)
    assert steps.grad(x) == 24.0  # d/dx 2x^3 = 6x^2 at 2
    assert "x.grad += dcube/dx * v0.grad = 12.0 * 2.0 = 24.0" in str(steps)


def test_lecture_style_closure_op_is_traced_generically():
    x = Value(0.5, label="x")
    out = Value(math.tanh(x.data), (x,), "tanh")

    def _backward():
        x.grad += 2.0 * out.grad  # deliberately not tanh's derivative: trace must follow it

    out._backward = _backward
    assert trace_steps(out).grad(x) == 2.0


def test_trace_expression_prints_forward_and_backward():
    text = trace_expression("L = (d := (e := a*b) + c) * f", dict(a=2, b=-3, c=10, f=-2))
    assert "f.grad += d.data * L.grad = 4.0 * 1.0 = 4.0" in text
    assert "a.grad = 6.0" in text and "b.grad = -4.0" in text


def test_leaf_root_has_no_steps():
    x = Value(3.0, label="x")
    steps = trace_steps(x)
    assert steps.steps == [] and steps.grad(x) == 1.0


def _recording(grad_fn, ran):
    """grad_fn, wrapped to append its node to `ran` before running it."""
    def recorded(n):
        ran.append(n)
        return grad_fn(n)
    return recorded


def test_trace_says_parameter_input_constant_as_the_page_does():
    # issue 22: a network's inputs and weights were all "(a constant)" in the trace
    from micrograd.lecture import MLP
    from micrograd.viz import html_page

    net = MLP(3, [2, 1])
    loss = (net([2.0, 3.0, -1.0]) - 1.0) ** 2
    text = trace(loss)
    assert "layers.0.neurons.1.w.2 = " in text
    forward = {line.split(" = ")[0].strip(): line for line in text.splitlines()
               if line.startswith("  ") and line.rstrip().endswith(")") and "(a" in line}
    assert forward["layers.0.neurons.1.w.2"].endswith("(a parameter)")
    assert forward["layers.1.neurons.0.b"].endswith("(a parameter)")
    def numbers(kind: str) -> list:
        return [line.split(" = ")[1].split()[0] for line in forward.values()
                if line.endswith(kind)]

    # the lecture's neuron wraps each input float in its own Value: 2.0, 3.0, -1.0 per neuron
    assert numbers("(an input)") == ["2.0", "3.0", "-1.0"] * 2
    assert numbers("(a constant)") == ["-1.0"]  # the lecture's a - b is a + (-b): the -1.0
    # the page's leaves table has the same kind for every leaf name
    import json
    import re
    page = html_page(loss)
    data = json.loads(re.search(r'id="mg-data">(.*?)</script>', page, re.S).group(1))
    for leaf in data["leaves"]:
        node = data["nodes"][leaf]
        assert forward[node["name"]].endswith(f"({'an' if node['kind'] == 'input' else 'a'} "
                                              f"{node['kind']})")
