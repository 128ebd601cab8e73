"""The shared op table (MiniTorch style): every op of the registry run on floats, on Value
(and the lecture's Value), on Tensor and through micrograd.torch's spellings, each checked
against independent oracles -- PyTorch 2.13 and central differences -- and against the
entry's own derivative."""

from __future__ import annotations

import math
import operator

import numpy as np
import pytest
from conftest import require_module
from hypothesis import given, settings
from hypothesis import strategies as st

import micrograd.torch as mtorch
from micrograd import lecture
from micrograd import ops as registry
from micrograd.engine import Value
from micrograd.ops.floats import FLOATS
from micrograd.tensors import Tensor

ENTRIES = list(registry.OPS.values())
SCALAR = registry.scalar_ops()
G = 1.3  # an output gradient that is not 1, so a missing `* out.grad` shows


def _ids(entries):
    return [entry.name for entry in entries]


def _points(entry, min_size=1, max_size=1):
    """Inputs inside the op's domain, away from its kinks (relu and abs at 0, floor at
    integers), where a derivative exists on both sides."""
    low, high = entry.domain
    x = st.floats(low, high, allow_nan=False, allow_infinity=False)
    if not entry.smooth or entry.name in ("relu", "abs"):
        x = x.filter(lambda v: abs(v - round(v)) > 1e-3 and abs(v) > 1e-3)
    return st.lists(x, min_size=min_size, max_size=max_size)


def _torch_function(torch, entry):
    """The op as PyTorch spells it: torch.NAME, else torch.nn.functional.NAME."""
    if entry.torch.function:
        return getattr(torch, entry.torch.function)
    return getattr(torch.nn.functional, entry.torch.functional)


def _central_difference(f, x):
    h = 1e-6 * max(1.0, abs(x))
    return (f(x + h) - f(x - h)) / (2 * h)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_the_float_rule_matches_torch_and_central_differences(entry, data):
    torch = require_module("torch")
    (x,) = data.draw(_points(entry))
    forward, vjp = entry.rule(FLOATS)
    out = forward(x)
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = _torch_function(torch, entry)(t)
    y.backward(torch.tensor(G, dtype=torch.float64))
    assert out == pytest.approx(y.item(), rel=1e-12, abs=1e-15)
    assert vjp(G, x, out) == pytest.approx(t.grad.item(), rel=1e-9, abs=1e-12)
    if entry.smooth:
        assert vjp(G, x, out) == pytest.approx(G * _central_difference(forward, x),
                                               rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("entry", SCALAR, ids=_ids(SCALAR))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_value_computes_the_rule_and_torchs_gradient(entry, data):
    torch = require_module("torch")
    (x,) = data.draw(_points(entry))
    forward, vjp = entry.rule(FLOATS)
    a = Value(x)
    out = getattr(a, entry.methods[0])()
    (out * G).backward()
    assert out._op == entry.label and out.data == forward(x)
    assert a.grad == pytest.approx(vjp(G, x, out.data), rel=1e-15)
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    (_torch_function(torch, entry)(t) * G).backward()
    assert a.grad == pytest.approx(t.grad.item(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("entry", SCALAR, ids=_ids(SCALAR))
def test_the_lecture_value_keeps_its_class_and_its_tanh_through_every_op(entry):
    x = entry.domain[0] + 0.37 * (entry.domain[1] - entry.domain[0])
    out = getattr(lecture.Value(x), entry.methods[0])()
    assert type(out) is lecture.Value
    after = out.tanh()
    e = math.exp(2 * out.data)  # the lecture's formula, (e^2x - 1) / (e^2x + 1)
    assert type(after) is lecture.Value and after.data == (e - 1) / (e + 1)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_tensor_matches_torch_forward_and_backward(entry, data):
    torch = require_module("torch")
    xs = data.draw(_points(entry, 1, 6))
    g = np.linspace(-1.5, 2.0, len(xs))
    t = Tensor(np.array(xs), requires_grad=True)
    out = getattr(t, entry.methods[0])()
    out.backward(Tensor(g))
    ref = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    y = _torch_function(torch, entry)(ref)
    y.backward(torch.tensor(g))
    np.testing.assert_allclose(out.numpy(), y.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(t.grad.numpy(), ref.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_the_dtype_rule_is_torchs(entry):
    """An integer tensor: float ops give torch's default float dtype, the others keep it."""
    torch = require_module("torch")
    ints = [1, 2, 3] if entry.domain[0] >= 0 else [-1, 0, 2]
    if entry.name in ("asin", "acos"):
        ints = [0, 0, 0]
    if entry.dtype == "float only":
        with pytest.raises(NotImplementedError):
            _torch_function(torch, entry)(torch.tensor(ints))
        with pytest.raises(NotImplementedError, match="convert first"):
            getattr(mtorch.tensor(ints), entry.methods[0])()
        return
    ours = getattr(mtorch.tensor(ints), entry.methods[0])()
    theirs = _torch_function(torch, entry)(torch.tensor(ints))
    assert str(ours.dtype).removeprefix("torch.") == str(theirs.dtype).removeprefix("torch.")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


def _spellings(entry):
    """(how, call(module, x)) for each torch spelling the entry declares."""
    spelled = entry.torch
    found = []
    if spelled.function:
        found.append(("torch." + spelled.function, lambda m, x: getattr(m, spelled.function)(x)))
    if spelled.method:
        found.append(("x." + spelled.method + "()", lambda m, x: getattr(x, spelled.method)()))
    if spelled.inplace:
        found.append(("x." + spelled.inplace + "()",
                      lambda m, x: getattr(x.clone(), spelled.inplace)()))
    if spelled.module:
        found.append(("nn." + spelled.module, lambda m, x: getattr(m.nn, spelled.module)()(x)))
    if spelled.functional:
        found.append(("F." + spelled.functional,
                      lambda m, x: getattr(m.nn.functional, spelled.functional)(x)))
    return found


CASES = [(entry, how, call) for entry in ENTRIES for how, call in _spellings(entry)]


@pytest.mark.parametrize("entry, how, call", CASES, ids=[how for _, how, _ in CASES])
def test_every_torch_spelling_is_there_and_computes_what_torch_does(entry, how, call):
    torch = require_module("torch")
    low, high = entry.domain
    xs = [low + (high - low) * f for f in (0.13, 0.41, 0.77)]
    ours = call(mtorch, mtorch.tensor(xs, dtype=mtorch.float64))
    theirs = call(torch, torch.tensor(xs, dtype=torch.float64))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12, atol=1e-15)


def test_the_fused_entries_name_kernels_that_exist():
    for fused in registry.FUSED:
        assert callable(fused.resolve()), fused.name


def test_the_names_are_unique_across_spellings():
    methods = [name for entry in ENTRIES for name in entry.methods]
    assert len(methods) == len(set(methods))


def test_values_type_declarations_are_registry_ops():
    """engine.py declares the generated methods for mypy: each must be a registry op."""
    import inspect

    from micrograd import engine

    source = inspect.getsource(engine.Value)
    block = source[source.index("if TYPE_CHECKING:"):source.index("# --- backward:")]
    declared = {line.split("def ")[1].split("(")[0] for line in block.splitlines()
                if "def " in line}
    assert declared <= {name for entry in SCALAR for name in entry.methods}


# --- the two-input entries: + - * / ** and torch's maximum, atan2, hypot, fmod, ... -------

BINARY = list(registry.BINARY.values())
SPELLED = [entry for entry in BINARY if entry.operators]  # Value has them as operators


def _pass(g, x, y, out):  # a VJP of None: the gradient passes through unchanged
    return g


def _vjps(entry):
    rule = entry.rule(FLOATS)
    return rule.forward, rule.vjp_x or _pass, rule.vjp_y or _pass


def _pair_points(entry, size=1):
    (xlow, xhigh), (ylow, yhigh) = entry.domain

    def floats(low, high):
        return st.lists(st.floats(low, high, allow_nan=False, allow_infinity=False),
                        min_size=size, max_size=size)

    return st.tuples(floats(xlow, xhigh), floats(ylow, yhigh))


def _python_operator(entry):
    return getattr(operator, entry.operators[0].strip("_"))  # __truediv__ -> operator.truediv


@pytest.mark.parametrize("entry", BINARY, ids=_ids(BINARY))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_the_float_binary_rule_matches_torch_and_central_differences(entry, data):
    torch = require_module("torch")
    ([x], [y]) = data.draw(_pair_points(entry))
    forward, vjp_x, vjp_y = _vjps(entry)
    out = forward(x, y)
    tx, ty = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, y))
    getattr(torch, entry.torch.function)(tx, ty).backward(torch.tensor(G, dtype=torch.float64))
    ref = getattr(torch, entry.torch.function)(tx.detach(), ty.detach()).item()
    assert out == pytest.approx(ref, rel=1e-12, abs=1e-15)
    assert vjp_x(G, x, y, out) == pytest.approx(tx.grad.item(), rel=1e-9, abs=1e-12)
    assert vjp_y(G, x, y, out) == pytest.approx(ty.grad.item(), rel=1e-9, abs=1e-12)
    if entry.smooth:  # each VJP against central differences in its input alone
        assert vjp_x(G, x, y, out) == pytest.approx(
            G * _central_difference(lambda v: forward(v, y), x), rel=1e-5, abs=1e-6)
        assert vjp_y(G, x, y, out) == pytest.approx(
            G * _central_difference(lambda v: forward(x, v), y), rel=1e-5, abs=1e-6)


# where torch defines a value the formula does not give (the shared table found these)
CORNERS = [("atan2", 0.0, 0.0), ("atan2", 1.45e-185, 0.0), ("atan2", 1e-160, 1e-160),
           ("hypot", 0.0, 0.0), ("remainder", -5e-324, 2.0), ("fmod", -5e-324, 2.0),
           ("pow", 0.0, 0.0), ("pow", 0.0, 2.5), ("pow", -2.0, 0.5), ("truediv", 1.0, 0.0),
           ("maximum", 1.0, 1.0), ("minimum", -0.5, -0.5)]


@pytest.mark.parametrize("name, x, y", CORNERS, ids=[f"{n}({x:g},{y:g})" for n, x, y in CORNERS])
def test_the_binary_rules_agree_with_torch_at_its_corners(name, x, y):
    """The float rule and a Tensor against torch at points where a textbook derivative is
    0/0, an overflow, a tie or a rounded quotient."""
    torch = require_module("torch")
    entry = registry.BINARY[name]
    forward, vjp_x, vjp_y = _vjps(entry)
    tx, ty = (torch.tensor([v], dtype=torch.float64, requires_grad=True) for v in (x, y))
    getattr(torch, entry.torch.function)(tx, ty).backward(torch.tensor([G], dtype=torch.float64))
    want = (tx.grad.item(), ty.grad.item())
    out = forward(x, y)
    np.testing.assert_allclose((vjp_x(G, x, y, out), vjp_y(G, x, y, out)), want, rtol=1e-12)
    a, b = (mtorch.tensor([v], dtype=mtorch.float64, requires_grad=True) for v in (x, y))
    getattr(mtorch, entry.torch.function)(a, b).backward(mtorch.tensor([G], dtype=mtorch.float64))
    np.testing.assert_allclose((a.grad.item(), b.grad.item()), want, rtol=1e-12)


@pytest.mark.parametrize("entry", SPELLED, ids=_ids(SPELLED))
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_value_operators_compute_the_rule_and_torchs_gradients(entry, data):
    """Value op Value, Value op number and number op Value: the entry's numbers (for the
    lecture's + * ** exactly, as Value's own nodes; - and / as the lecture's compositions)
    and PyTorch's gradients."""
    torch = require_module("torch")
    ([x], [y]) = data.draw(_pair_points(entry))
    forward, vjp_x, vjp_y = _vjps(entry)
    op = _python_operator(entry)
    tx, ty = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (x, y))
    (op(tx, ty) * G).backward()
    a, b = Value(x), Value(y)
    out = op(a, b)
    (out * G).backward()
    rel = 0.0 if entry.scalar else 1e-12  # Value's own nodes: the entry's numbers exactly
    assert out.data == pytest.approx(forward(x, y), rel=rel)
    assert a.grad == pytest.approx(vjp_x(G, x, y, out.data), rel=rel)
    assert b.grad == pytest.approx(vjp_y(G, x, y, out.data), rel=rel)
    assert a.grad == pytest.approx(tx.grad.item(), rel=1e-9, abs=1e-12)
    assert b.grad == pytest.approx(ty.grad.item(), rel=1e-9, abs=1e-12)
    a, b = Value(x), Value(y)
    (op(a, y) * G + op(x, b) * G).backward()  # a number on either side
    assert a.grad == pytest.approx(tx.grad.item(), rel=1e-9, abs=1e-12)
    assert b.grad == pytest.approx(ty.grad.item(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("entry", [e for e in BINARY if e.scalar], ids=_ids(
    [e for e in BINARY if e.scalar]))
def test_values_nodes_of_the_lectures_ops_print_the_entrys_formulas(entry):
    """The trace and the checker print engine.OPS's texts: they are the entry's."""
    from micrograd.engine import OPS, op_info

    op = _python_operator(entry)
    node = op(Value(1.5), Value(0.5))
    assert node._op == entry.label and op_info(node) is OPS[entry.label]
    assert OPS[entry.label].forward == entry.forward_text
    assert OPS[entry.label].derivatives == entry.derivative_texts
    if entry.constant:
        label, forward_text, derivative_text = entry.constant
        node = op(Value(1.5), 3)
        assert op_info(node) is OPS[label]
        assert (OPS[label].forward, OPS[label].derivatives) == (forward_text, (derivative_text,))


@pytest.mark.parametrize("entry", SPELLED, ids=_ids(SPELLED))
def test_the_lecture_value_keeps_its_class_through_every_operator(entry):
    op = _python_operator(entry)
    for out in (op(lecture.Value(1.5), lecture.Value(0.5)), op(lecture.Value(1.5), 2),
                op(2, lecture.Value(1.5))):
        assert type(out) is lecture.Value
        e = math.exp(2 * out.data)  # then its tanh is the lecture's (e^2x - 1) / (e^2x + 1)
        assert out.tanh().data == (e - 1) / (e + 1)


def _tensor_spellings(entry):
    """(how, call(module, x, y)) for torch.NAME, x.NAME(y), x.NAME_(y) and the operator."""
    spelled = entry.torch
    found = [("torch." + spelled.function,
              lambda m, x, y: getattr(m, spelled.function)(x, y)),
             (f"x.{spelled.method}(y)", lambda m, x, y: getattr(x, spelled.method)(y))]
    if spelled.inplace:  # on a non-leaf copy, so the gradient flows back through it
        found.append((f"x.{spelled.inplace}(y)",
                      lambda m, x, y: getattr(x.expand(3, 4) * 1, spelled.inplace)(y)))
    if entry.operators:
        found.append((f"x {entry.symbol} y", lambda m, x, y: _python_operator(entry)(x, y)))
    return found


BINARY_CASES = [(entry, how, call) for entry in BINARY for how, call in _tensor_spellings(entry)]


@pytest.mark.parametrize("entry, how, call", BINARY_CASES,
                         ids=[how for _, how, _ in BINARY_CASES])
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_tensor_spellings_broadcast_and_match_torch(entry, how, call, data):
    """x of shape (3, 1) with y of shape (4,): the (3, 4) result and each input's gradient
    summed back over the dimensions broadcasting stretched, as PyTorch's."""
    torch = require_module("torch")
    xs, ys = data.draw(_pair_points(entry, 3).flatmap(
        lambda p: st.tuples(st.just(p[0]), _pair_points(entry, 4).map(lambda q: q[1]))))
    g = np.linspace(-1.5, 2.0, 12).reshape(3, 4)
    x = mtorch.tensor(xs, dtype=mtorch.float64).reshape(3, 1).requires_grad_()
    y = mtorch.tensor(ys, dtype=mtorch.float64, requires_grad=True)
    tx = torch.tensor(xs, dtype=torch.float64).reshape(3, 1).requires_grad_()
    ty = torch.tensor(ys, dtype=torch.float64, requires_grad=True)
    out, ref = call(mtorch, x, y), call(torch, tx, ty)
    out.backward(mtorch.tensor(g))
    ref.backward(torch.tensor(g))
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("entry", BINARY, ids=_ids(BINARY))
def test_the_binary_dtype_rule_is_torchs(entry):
    """Two integer tensors: "promote" keeps int64, "float" gives the default float32,
    "float only" is refused -- as torch."""
    torch = require_module("torch")
    ints = ([5, -7, 3], [2, 3, 4])
    theirs_op, ours_op = (getattr(m, entry.torch.function) for m in (torch, mtorch))
    if entry.dtype == "float only":
        with pytest.raises(NotImplementedError):
            theirs_op(*map(torch.tensor, ints))
        with pytest.raises(NotImplementedError, match="convert first"):
            ours_op(*map(mtorch.tensor, ints))
        return
    ours, theirs = ours_op(*map(mtorch.tensor, ints)), theirs_op(*map(torch.tensor, ints))
    assert str(ours.dtype) == str(theirs.dtype)
    assert str(ours.dtype) == ("torch.int64" if entry.dtype == "promote" else "torch.float32")
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
