"""Property tests: random expression graphs (with reused nodes and diamonds) vs PyTorch.

A random program is a few leaves and a list of steps (op, input index, input index); each
step may read ANY earlier node, so nodes get reused and paths split and rejoin (diamonds).
The output sums every node, so every path reaches it. The same program runs on Values and
on float64 tensors.
"""

from __future__ import annotations

import math

import pytest
from conftest import central_difference, require_module, run_ours, run_torch

import micrograd
from micrograd import autograd
from micrograd.engine import Value

require_module("torch")  # every property is checked against torch: the module skips without
require_module("hypothesis")  # it, or without hypothesis (both fail instead under CI=true)
from hypothesis import HealthCheck, assume, given, settings  # noqa: E402 (after the checks)
from hypothesis import strategies as st  # noqa: E402

# Ops chosen so that values stay finite and well-conditioned on any input in range;
# each works on a Value and on a tensor alike.
BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1),
    "pow": lambda a, b: a.sigmoid() ** b.tanh(),
    "rsub": lambda a, b: 1.5 - a * b.sigmoid(),
}
UNARY = {
    "tanh": lambda a: a.tanh(),
    "sigmoid": lambda a: a.sigmoid(),
    "sin": lambda a: a.sin(),
    "cos": lambda a: a.cos(),
    "exp": lambda a: a.tanh().exp(),
    "log": lambda a: (a * a + 1).log(),
    "sqrt": lambda a: (a * a + 0.5).sqrt(),
    "square": lambda a: a ** 2,
    "relu": lambda a: a.relu(),
    "abs": lambda a: abs(a),
    "neg": lambda a: -a,
    "rdiv": lambda a: 1 / (a * a + 2),
    "rpow": lambda a: 2 ** a.tanh(),
}
SMOOTH_UNARY = [name for name in UNARY if name not in ("relu", "abs")]

leaf_values = st.floats(min_value=-3, max_value=3, allow_nan=False, allow_infinity=False)


@st.composite
def programs(draw, smooth_only=False):
    """(leaf values, [(op, i, j), ...]) with i, j indexing any earlier node."""
    leaves = draw(st.lists(leaf_values, min_size=1, max_size=4))
    unary_names = SMOOTH_UNARY if smooth_only else sorted(UNARY)
    steps = []
    for _ in range(draw(st.integers(min_value=1, max_value=12))):
        n = len(leaves) + len(steps)
        op = draw(st.sampled_from(sorted(BINARY) + unary_names))
        steps.append((op, draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))))
    return leaves, steps


@st.composite
def shared_programs(draw):
    """Programs whose every binary step combines the NEWEST node with an older one it was
    built from (`x + y` where x already depends on y): the second input is reached again
    through the first. Run with output="last": a walk from the last node meets the newest
    nodes first, so a walker without its visited check runs a shared node's backward twice
    (summing every node in creation order, as programs() does, visits old nodes first and
    never shows it)."""
    leaves = draw(st.lists(leaf_values, min_size=1, max_size=3))
    steps = []
    for _ in range(draw(st.integers(min_value=2, max_value=10))):
        newest = len(leaves) + len(steps) - 1
        if draw(st.booleans()):
            op = draw(st.sampled_from(["add", "mul"]))  # direct inputs: no wrapper node
            steps.append((op, newest, draw(st.integers(0, newest))))
        else:
            steps.append((draw(st.sampled_from(SMOOTH_UNARY)), newest, newest))
    return leaves, steps


def as_function(steps, output="sum"):
    """The program as a function of its leaf nodes (Values or tensors) to its output: the sum
    of every node in creation order, or (output="last") the last node alone."""

    def program(*inputs):
        nodes = list(inputs)
        for op, i, j in steps:
            if op in BINARY:
                nodes.append(BINARY[op](nodes[i], nodes[j]))
            else:
                nodes.append(UNARY[op](nodes[i]))
        if output == "last":
            return nodes[-1]
        out = nodes[0]
        for node in nodes[1:]:
            out = out + node
        return out

    return program


def run_program(leaves, steps):
    """Build the program's graph on fresh Value leaves: (leaf nodes, output)."""
    inputs = [Value(x) for x in leaves]
    return inputs, as_function(steps)(*inputs)


FEW = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FEW
@given(programs())
def test_random_graphs_match_torch_values_and_gradients(program):
    leaves, steps = program
    out, grads = run_ours(as_function(steps), leaves)
    t_out, t_grads = run_torch(as_function(steps), leaves)
    assume(math.isfinite(t_out) and all(math.isfinite(g) for g in t_grads))
    assert out == pytest.approx(t_out, rel=1e-10, abs=1e-10)
    assert grads == pytest.approx(t_grads, rel=1e-8, abs=1e-8)


@FEW
@given(shared_programs())
def test_shared_subexpressions_match_torch_gradients(program):
    leaves, steps = program
    out, grads = run_ours(as_function(steps, output="last"), leaves)
    t_out, t_grads = run_torch(as_function(steps, output="last"), leaves)
    assume(math.isfinite(t_out) and all(math.isfinite(g) for g in t_grads))
    assume(all(abs(g) < 1e12 for g in t_grads))
    assert out == pytest.approx(t_out, rel=1e-10, abs=1e-10)
    assert grads == pytest.approx(t_grads, rel=1e-8, abs=1e-8)


def test_a_node_reached_through_two_paths_runs_its_backward_once():
    """z = y*x with y = x*x: x is z's second input and also reached through y, before the
    walk gets to it from z (the diamond a walker without a visited check gets wrong)."""
    x = Value(1.5)
    y = x * x
    z = y * x          # x**3
    w = z + y          # x**3 + x**2, with y reached twice
    w.backward()
    assert x.grad == 3 * 1.5 ** 2 + 2 * 1.5
    assert y.grad == 1.5 + 1.0


@settings(max_examples=60, deadline=None)
@given(programs(smooth_only=True))
def test_random_smooth_graphs_match_central_differences(program):
    leaves, steps = program
    _, grads = run_ours(as_function(steps), leaves)
    for i, grad in enumerate(grads):
        numeric = central_difference(as_function(steps), leaves, i)
        assert grad == pytest.approx(numeric, rel=1e-5, abs=1e-5)


@settings(max_examples=60, deadline=None)
@given(programs())
def test_topological_order_lists_every_node_once_after_its_inputs(program):
    _, out = run_program(*program)
    order = autograd.topological_order(out)
    position = {id(node): k for k, node in enumerate(order)}
    assert len(position) == len(order)  # no node twice
    assert order[-1] is out
    for node in order:
        for child in node._prev:
            assert position[id(child)] < position[id(node)]


@settings(max_examples=60, deadline=None)
@given(programs())
def test_second_backward_doubles_leaf_gradients(program):
    inputs, out = run_program(*program)
    out.backward()
    once = [v.grad for v in inputs]
    out.backward()
    # Each contribution is added into the leaf's .grad as it arrives, so a second pass
    # starts from g instead of 0 and can round differently where contributions of size ~1
    # cancel (x + cos x + (cos x - x) at x = 1e-75): hence the absolute tolerance.
    # (PyTorch sums a pass into a buffer first and gets exactly 2g.)
    assert [v.grad for v in inputs] == pytest.approx([2 * g for g in once], rel=1e-12, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(programs())
def test_no_grad_computes_the_same_values_without_a_graph(program):
    _, recorded = run_program(*program)
    with micrograd.no_grad():
        _, bare = run_program(*program)
    assert bare._prev == ()
    assert bare.data == recorded.data or (math.isnan(bare.data) and math.isnan(recorded.data))


@settings(max_examples=100, deadline=None)
@given(leaf_values, leaf_values, leaf_values)
def test_affine_gradients_are_exact(a, x, b):
    xv = Value(x)
    (a * xv + b).backward()
    assert xv.grad == a


@st.composite
def wide_graphs(draw):
    """A graph with w·x+b nodes (many inputs, as a neuron's) over any earlier nodes, reused
    and repeated, some of them leaves carrying a hand-set backward step; its last node."""
    from micrograd.engine import weighted_sum

    nodes = [Value(v) for v in draw(st.lists(leaf_values, min_size=1, max_size=5))]
    for leaf in nodes:
        if draw(st.booleans()):
            leaf._backward = lambda: None  # such a leaf is run by backward like an op
    index = st.integers(0, 10**6)
    for _ in range(draw(st.integers(min_value=1, max_value=10))):
        pick = lambda k: nodes[k % len(nodes)]  # noqa: E731 (any earlier node, reused)
        kind = draw(st.sampled_from(["wide", "binary", "unary"]))
        if kind == "wide":
            n = draw(st.integers(1, 4))
            weights = [pick(draw(index)) for _ in range(n)]
            inputs = [pick(draw(index)) for _ in range(n)]
            nodes.append(weighted_sum(weights, inputs, pick(draw(index))))
        elif kind == "binary":
            nodes.append(pick(draw(index)) * pick(draw(index)))
        else:
            nodes.append(pick(draw(index)).tanh())
    return nodes[-1]


def lecture_order(root):
    """The lecture's recursive build_topo, as written there."""
    topo, visited = [], set()

    def build_topo(v):
        if v not in visited:
            visited.add(v)
            for child in v._prev:
                build_topo(child)
            topo.append(v)

    build_topo(root)
    return topo


@settings(max_examples=200, deadline=None)
@given(wide_graphs())
def test_backward_runs_the_nodes_in_the_lectures_order(root):
    # the walker's shortcut for wide nodes (a set check of all their inputs) must not
    # change the order: gradients are summed in it, so it decides their last bits
    expected = [node for node in lecture_order(root) if node._grad_fn is not None]
    assert autograd._nodes_to_run(root) == expected
