"""The scalar engine: published numbers, IEEE numerics as PyTorch, anomaly mode, deep and
freed graphs, determinism, no_grad, define_op and bad input."""

import gc
import json
import math
import random
import subprocess
import sys
import weakref

import pytest
from conftest import SRC, assert_twin, require_module, run_python

import micrograd
from micrograd import autograd
from micrograd.engine import Value, define_op, weighted_sum


def test_micrograd_readme_expression_matches_published_numbers():
    a = Value(-4.0)
    b = Value(2.0)
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    assert g.data == pytest.approx(24.7041, abs=1e-4)
    assert a.grad == pytest.approx(138.8338, abs=1e-4)
    assert b.grad == pytest.approx(645.5773, abs=1e-4)


def test_textbook_sanity_case():
    x = Value(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    assert y.data == -20.0
    assert x.grad == 46.0


# ---------------------------------------------------------------------------------------
# Numerics: IEEE inf/nan as PyTorch float64, never a Python arithmetic exception
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("x", [1000.0, -1000.0])
def test_tanh_saturates_at_plus_minus_1000_like_torch(x):
    out, (grad,) = assert_twin(lambda a: a.tanh(), [x])
    assert out == math.copysign(1.0, x) and grad == 0.0


@pytest.mark.parametrize("x", [1000.0, -1000.0])
def test_sigmoid_saturates_at_plus_minus_1000_like_torch(x):
    out, (grad,) = assert_twin(lambda a: a.sigmoid(), [x])
    assert out == (1.0 if x > 0 else 0.0) and grad == 0.0


def test_exp_overflow_gives_inf_like_torch():
    out, (grad,) = assert_twin(lambda a: a.exp(), [1000.0])
    assert out == math.inf and grad == math.inf


def test_log_of_zero_is_minus_inf_and_its_gradient_inf_like_torch():
    out, (grad,) = assert_twin(lambda a: a.log(), [0.0])
    assert out == -math.inf and grad == math.inf


def test_log_of_negative_is_nan_like_torch():
    out, (grad,) = assert_twin(lambda a: a.log(), [-1.0])
    assert math.isnan(out) and grad == -1.0  # torch: d log x = 1/x, even outside the domain


def test_sqrt_of_negative_is_nan_like_torch():
    out, _ = assert_twin(lambda a: a.sqrt(), [-1.0])
    assert math.isnan(out)


def test_sqrt_gradient_at_zero_is_inf_like_torch():
    out, (grad,) = assert_twin(lambda a: a.sqrt(), [0.0])
    assert out == 0.0 and grad == math.inf


def test_zero_to_the_minus_one_is_inf_like_torch():
    out, (grad,) = assert_twin(lambda a: a ** -1, [0.0])
    assert out == math.inf and grad == -math.inf


def test_negative_base_to_fractional_power_is_nan_like_torch():
    out, (grad,) = assert_twin(lambda a: a ** 0.5, [-8.0])
    assert math.isnan(out) and math.isnan(grad)


@pytest.mark.parametrize("k", [0, 1, 2, 0.5, -1, 3.5])
def test_pow_gradient_at_zero_like_torch(k):
    assert_twin(lambda a: a ** k, [0.0])


@pytest.mark.parametrize("y", [0.0, 1.0, 2.0, -1.0, 0.5])
def test_value_pow_gradients_at_zero_base_like_torch(y):
    assert_twin(lambda a, b: a ** b, [0.0, y])


EXTREMES = [0.0, -0.0, -1.0, 1e-320, 1e308, -1e308, 1000.0, -1000.0, math.inf, -math.inf,
            math.nan]
EVERY_OP = [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
    lambda a, b: a ** b, lambda a, b: b ** a, lambda a, b: -a, lambda a, b: 1 / a,
    lambda a, b: 0 / a, lambda a, b: a / 0, lambda a, b: 2 ** a, lambda a, b: 0 ** a,
    lambda a, b: a ** 2, lambda a, b: a ** -3, lambda a, b: a ** 0.5, lambda a, b: a ** 1e300,
    lambda a, b: a ** 10 ** 400, lambda a, b: a / 10 ** 400, lambda a, b: a.exp(),
    lambda a, b: a.log(),
    lambda a, b: a.tanh(), lambda a, b: a.relu(), lambda a, b: a.sigmoid(), lambda a, b: a.sin(),
    lambda a, b: a.cos(), lambda a, b: a.sqrt(), lambda a, b: abs(a),
    lambda a, b: (a * 1e308) * (b * 1e308), lambda a, b: a.exp().exp() / b.exp(),
]


def test_no_python_arithmetic_exception_escapes_the_engine():
    # OverflowError, ZeroDivisionError and ValueError ('math domain error') are all
    # ArithmeticError/ValueError: none may come out of forward or backward.
    for op in EVERY_OP:
        for x in EXTREMES:
            for y in (0.0, -2.0, 0.5, 1e308, math.inf):
                a, b = Value(x), Value(y)
                out = op(a, b)
                out.backward()
                assert isinstance(out.data, float) and isinstance(a.grad, float)


def test_huge_python_int_becomes_inf_instead_of_overflow_error():
    assert Value(10 ** 400).data == math.inf and Value(-(10 ** 400)).data == -math.inf


def test_huge_int_exponent_acts_as_infinite_exponent_without_overflow_error():
    # an int beyond float range is +-inf, as in Value(10**400): 0.5**inf = 0, 2**inf = inf
    for base, expected in ((0.5, 0.0), (2.0, math.inf), (1.0, 1.0), (-0.5, 0.0)):
        x = Value(base)
        y = x ** (10 ** 400)
        assert y.data == expected == base ** math.inf
        y.backward()  # k * x**(k-1) must not raise either
        assert isinstance(x.grad, float)


def test_division_by_huge_int_is_division_by_inf():
    assert (Value(2.0) / 10 ** 400).data == 0.0 == (Value(2.0) / Value(10 ** 400)).data
    assert (Value(-2.0) / -(10 ** 400)).data == 0.0


# ---------------------------------------------------------------------------------------
# detect_anomaly(): stop at the first nan/inf, naming the op and its inputs
# ---------------------------------------------------------------------------------------

def test_anomaly_mode_raises_at_first_non_finite_forward_naming_op_and_inputs():
    a = Value(1000.0)
    with micrograd.detect_anomaly(), pytest.raises(FloatingPointError) as info:
        a.exp() * 2  # exp(1000) overflows: the '*' after it must never run
    message = str(info.value)
    assert "exp" in message and "1000.0" in message and "inf" in message


def test_anomaly_mode_names_both_inputs_of_a_binary_op():
    with micrograd.detect_anomaly(), pytest.raises(FloatingPointError) as info:
        Value(0.0) ** Value(-1.0)
    assert "**" in str(info.value) and "0.0" in str(info.value) and "-1.0" in str(info.value)


def test_anomaly_mode_raises_at_first_non_finite_gradient_in_backward():
    x = Value(0.0)
    with micrograd.detect_anomaly():
        y = x.sqrt() * 3.0 + 1.0  # forward is finite: sqrt(0) = 0
        with pytest.raises(FloatingPointError) as info:
            y.backward()  # d sqrt(x)/dx at 0 = inf
    message = str(info.value)
    assert "backward" in message and "sqrt" in message and "0.0" in message


def test_anomaly_mode_is_off_again_after_it_raised():
    with pytest.raises(FloatingPointError), micrograd.detect_anomaly():
        Value(-1.0).log()
    assert not autograd.modes.anomaly
    assert math.isnan(Value(-1.0).log().data)  # outside: nan flows as in PyTorch


def test_anomaly_mode_lets_finite_graphs_through():
    x = Value(0.5)
    with micrograd.detect_anomaly():
        y = (x.tanh() * x.exp() / (x + 1)).sigmoid()
        y.backward()
    assert math.isfinite(x.grad) and x.grad != 0.0


# ---------------------------------------------------------------------------------------
# Deep and wide graphs: the iterative walker
# ---------------------------------------------------------------------------------------

MILLION_CHAIN = """
import json, math
from micrograd import Value
N = 1_000_000
x = Value(0.5)
v = x
for _ in range(N):
    v = v.tanh()
v.backward()
# oracle in plain floats: t_{i+1} = tanh(t_i), d out/dx = prod(1 - t_{i+1}^2)
t, grad = 0.5, 1.0
for _ in range(N):
    t = math.tanh(t)
    grad *= 1 - t * t
result = {"value": v.data, "grad": x.grad, "oracle_value": t, "oracle_grad": grad}
del v  # freeing a million-node graph must not crash (deep recursive deallocation)
print(json.dumps(result))
"""


@pytest.mark.slow
def test_million_op_chain_backward_gives_the_right_gradient_and_frees():
    # In a subprocess: a crash while freeing the graph must fail this test, not pytest.
    result = json.loads(run_python(MILLION_CHAIN, SRC))
    assert result["value"] == result["oracle_value"]  # same math.tanh, same order
    assert result["grad"] == pytest.approx(result["oracle_grad"], rel=1e-9)
    assert result["grad"] > 0


def test_sum_over_100000_values_gives_every_input_gradient_one():
    rng = random.Random(0)
    xs = [Value(rng.uniform(-1, 1)) for _ in range(100_000)]
    s = sum(xs)
    s.backward()
    assert s.data == sum(x.data for x in xs)  # same additions in the same order
    assert all(x.grad == 1.0 for x in xs)
    probe = weakref.ref(s._prev[0])
    del s
    assert probe() is None  # the whole 100,000-node graph went away


def test_deleting_a_deep_chain_of_additions_does_not_crash():
    code = (
        "from micrograd import Value\n"
        "v = Value(1.0)\n"
        "for _ in range(300_000): v = v + 1.0\n"
        "del v\n"
        "print('freed')\n"
    )
    assert run_python(code, SRC).strip() == "freed"


# ---------------------------------------------------------------------------------------
# Determinism: children in creation order, same bits in every process
# ---------------------------------------------------------------------------------------

def test_children_are_kept_in_creation_order():
    a, b = Value(1.0), Value(2.0)
    assert (a * b)._prev == (a, b)
    assert (b * a)._prev == (b, a)
    assert (a + a)._prev == (a, a)
    assert (a - b)._prev[0] is a
    assert weighted_sum([a], [b], Value(0.5))._prev[:2] == (a, b)


DETERMINISM = """
import random
import subprocess
import sys
from micrograd import Value
rng = random.Random(7)
xs = [Value(rng.uniform(-3, 3)) for _ in range(30)]
out = Value(0.0)
for i in range(400):  # every x gets many contributions of very different sizes
    a, b = xs[rng.randrange(30)], xs[rng.randrange(30)]
    term = [a * b, a.tanh() * b.exp(), (a - b) ** 2, a.sigmoid() / (b * b + 1)][i % 4]
    out = out + term * rng.choice([1e-8, 1.0, 1e8])
out.backward()
print([repr(x.grad) for x in xs], repr(out.data))
"""


def test_gradients_are_bit_identical_across_processes_and_hash_seeds():
    first = run_python(DETERMINISM, SRC, {"PYTHONHASHSEED": "1"})
    second = run_python(DETERMINISM, SRC, {"PYTHONHASHSEED": "12345"})
    assert first == second


# ---------------------------------------------------------------------------------------
# Calling backward() twice accumulates (documented choice, as PyTorch)
# ---------------------------------------------------------------------------------------

def test_backward_twice_accumulates_twice_the_gradient():
    x = Value(3.0)
    z = (x * x) * 2
    z.backward()
    assert x.grad == 12.0  # d(2x^2)/dx = 4x
    z.backward()
    assert x.grad == 24.0  # micrograd 0.1.0 gives 36 here (stale intermediate grads)


def test_backward_twice_matches_torch_retain_graph():
    torch = require_module("torch")
    t = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
    tz = (t.tanh() * t + t.exp()) / t
    tz.backward(retain_graph=True)
    tz.backward()
    x = Value(0.7)
    z = (x.tanh() * x + x.exp()) / x
    z.backward()
    z.backward()
    assert x.grad == pytest.approx(t.grad.item(), rel=1e-13)


def test_backward_on_a_leaf_gives_one():
    x = Value(5.0)
    x.backward()
    assert x.grad == 1.0


# ---------------------------------------------------------------------------------------
# Reference counting frees a graph: no cycle between a node and its backward function
# ---------------------------------------------------------------------------------------

@pytest.fixture
def no_cyclic_gc():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _graph_with_probe(x):
    hidden = (x * 3.0 + 1.0).tanh()
    out = (hidden * hidden).exp() / (hidden + 2.0) + hidden.sigmoid() ** Value(2.0)
    return out, weakref.ref(hidden)


def test_graph_is_freed_by_reference_counting_when_output_is_deleted(no_cyclic_gc):
    x = Value(0.3)
    out, probe = _graph_with_probe(x)
    assert probe() is not None
    del out
    assert probe() is None


def test_graph_is_freed_by_reference_counting_after_backward(no_cyclic_gc):
    x = Value(0.3)
    out, probe = _graph_with_probe(x)
    out.backward()
    del out
    assert probe() is None
    assert x.grad != 0.0


def test_custom_op_and_fused_neuron_graphs_are_freed_too(no_cyclic_gc):
    cube = define_op("cube", lambda v: v ** 3, lambda v: 3 * v ** 2)
    x, w, b = Value(0.5), Value(2.0), Value(0.1)
    hidden = cube(weighted_sum([w], [x], b))
    probe = weakref.ref(hidden)
    out = hidden.relu()
    out.backward()
    del hidden, out
    assert probe() is None


# ---------------------------------------------------------------------------------------
# no_grad()
# ---------------------------------------------------------------------------------------

def test_no_grad_records_no_graph():
    a, b = Value(2.0), Value(3.0)
    with micrograd.no_grad():
        c = (a * b + 1).tanh()
    assert c._prev == () and c.data == math.tanh(7.0)
    c.backward()
    assert a.grad == 0.0 and b.grad == 0.0
    assert (a * b)._prev == (a, b)  # recording is back on after the block


def test_no_grad_restores_grad_mode_after_an_exception():
    with pytest.raises(KeyError), micrograd.no_grad():
        raise KeyError("boom")
    assert micrograd.is_grad_enabled()
    a = Value(1.0)
    assert (a + a)._prev == (a, a)


def test_no_grad_works_as_a_decorator():
    @micrograd.no_grad()
    def update(p):
        return p * 0.5 + 1

    p = Value(4.0)
    assert update(p)._prev == ()
    assert update(p)._prev == ()  # reusable, not a one-shot generator
    assert micrograd.is_grad_enabled() and (p * 2)._prev[0] is p


def test_enable_grad_inside_no_grad_records_again():
    a = Value(2.0)
    with micrograd.no_grad():
        with micrograd.enable_grad():
            b = a * a
        c = a * a
    assert b._prev == (a, a) and c._prev == ()


# ---------------------------------------------------------------------------------------
# define_op(): a custom differentiable op from forward + local derivative
# ---------------------------------------------------------------------------------------

def _central(f, xs, i, h=1e-6):
    up = [x + h if j == i else x for j, x in enumerate(xs)]
    down = [x - h if j == i else x for j, x in enumerate(xs)]
    return (f(*up) - f(*down)) / (2 * h)


def test_define_op_single_input_matches_central_difference():
    legendre3 = define_op("P3", lambda x: 0.5 * (5 * x ** 3 - 3 * x),
                          lambda x: 1.5 * (5 * x ** 2 - 1))
    for x0 in (-0.9, 0.2, 1.7):
        x = Value(x0)
        y = legendre3(x)
        y.backward()
        assert y.data == pytest.approx(0.5 * (5 * x0 ** 3 - 3 * x0), rel=1e-15)
        assert x.grad == pytest.approx(
            _central(lambda v: 0.5 * (5 * v ** 3 - 3 * v), [x0], 0), rel=1e-7)
        assert y._op == "P3" and y._prev == (x,)


def test_define_op_multi_input_gradients_match_central_difference():
    hypot = define_op("hypot", math.hypot,
                      lambda x, y: (x / math.hypot(x, y), y / math.hypot(x, y)))
    a, b = Value(3.0), Value(-4.0)
    out = hypot(a, b) * hypot(a, 1.0)  # a is used twice; 1.0 becomes a constant
    out.backward()

    def f(x, y):
        return math.hypot(x, y) * math.hypot(x, 1.0)

    assert out.data == pytest.approx(f(3.0, -4.0), rel=1e-15)
    assert a.grad == pytest.approx(_central(f, [3.0, -4.0], 0), rel=1e-7)
    assert b.grad == pytest.approx(_central(f, [3.0, -4.0], 1), rel=1e-7)


def test_define_op_with_wrong_number_of_partials_raises_clearly():
    bad = define_op("bad", lambda x, y: x * y, lambda x, y: y)  # one partial for two inputs
    out = bad(Value(2.0), Value(3.0))
    assert out.data == 6.0
    with pytest.raises(ValueError, match=r"bad.*1.*2"):
        out.backward()


def test_define_op_rejects_non_numeric_arguments():
    square = define_op("square", lambda x: x * x, lambda x: 2 * x)
    with pytest.raises(TypeError, match="str"):
        square("abc")


# ---------------------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad,type_name", [("abc", "str"), (None, "NoneType"), ([1.0], "list"),
                                           (1 + 2j, "complex"), ({"x": 1}, "dict")])
def test_value_of_a_non_number_raises_type_error_naming_the_type(bad, type_name):
    with pytest.raises(TypeError, match=type_name):
        Value(bad)


@pytest.mark.parametrize("op", [
    lambda v: v + "x", lambda v: "x" + v, lambda v: v - "x", lambda v: "x" - v,
    lambda v: v * None, lambda v: None * v, lambda v: v / [1], lambda v: [1] / v,
    lambda v: v ** "2", lambda v: "2" ** v, lambda v: v + 1j, lambda v: v ** None,
])
def test_unsupported_operand_raises_type_error(op):
    with pytest.raises(TypeError):
        op(Value(2.0))


def test_unsupported_operand_returns_not_implemented():
    v = Value(2.0)
    for method in ("__add__", "__sub__", "__mul__", "__truediv__", "__pow__", "__rpow__"):
        assert getattr(v, method)("x") is NotImplemented, method


def test_weighted_sum_matches_torch():
    torch = require_module("torch")
    ws, xs, b0 = [0.3, -1.2, 2.0], [1.5, 0.25, -0.75], 0.1
    w, x, b = [Value(v) for v in ws], [Value(v) for v in xs], Value(b0)
    out = weighted_sum(w, x, b)
    out.tanh().backward()
    tw = torch.tensor(ws, dtype=torch.float64, requires_grad=True)
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    (tb + (tw * tx).sum()).tanh().backward()
    assert [v.grad for v in w] == pytest.approx(tw.grad.tolist(), rel=1e-13)
    assert [v.grad for v in x] == pytest.approx(tx.grad.tolist(), rel=1e-13)
    assert b.grad == pytest.approx(tb.grad.item(), rel=1e-13)


@pytest.mark.parametrize("x0", [1.5, math.inf, -math.inf, math.nan])
def test_weighted_sum_under_a_zero_gradient_matches_torch(x0):
    # out.grad is 0 (times 0.0, as a ReLU that is off): the backward step may skip its loop
    # only when that sends exactly 0 -- an inf or nan input must still make its weight's
    # gradient nan (inf * 0), as in torch
    torch = require_module("torch")
    ws, xs, b0 = [0.5, -2.0], [x0, 0.25], 0.1
    w, x, b = [Value(v) for v in ws], [Value(v) for v in xs], Value(b0)
    (weighted_sum(w, x, b) * 0.0).backward()
    tw = torch.tensor(ws, dtype=torch.float64, requires_grad=True)
    tx = torch.tensor(xs, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b0, dtype=torch.float64, requires_grad=True)
    ((tb + (tw * tx).sum()) * 0.0).backward()
    for ours, theirs in ((w, tw.grad.tolist()), (x, tx.grad.tolist()), ([b], [tb.grad.item()])):
        assert [v.grad for v in ours] == pytest.approx(theirs, nan_ok=True)


def test_relu_passes_a_nan_gradient_and_skips_a_zero_one():
    x = Value(-1.0)
    y = x.relu()
    y.grad = math.nan  # as a nan from above would arrive: g * (out > 0) is nan
    y._backward()
    assert math.isnan(x.grad)
    x.grad = 0.25
    y.grad = 0.0
    y._backward()
    assert x.grad == 0.25


# ---------------------------------------------------------------------------------------
# Lecture-style extensions and in-place forms
# ---------------------------------------------------------------------------------------

def test_in_place_add_rebinds_to_a_new_node_as_in_the_lecture():
    a = Value(1.0)
    original = a
    a += 2
    assert a is not original and original.data == 1.0 and a.data == 3.0
    assert a._prev[0] is original and a._op == "+"
    a *= a
    a.backward()
    assert original.grad == 6.0  # d((x+2)^2)/dx at x=1


def test_lecture_style_op_assigning_backward_closure_works():
    def cube(self):  # written the lecture's way, outside engine.py
        out = Value(self.data ** 3, (self,), "cube")

        def _backward():
            self.grad += 3 * self.data ** 2 * out.grad

        out._backward = _backward
        return out

    x = Value(2.0)
    y = cube(x) * 2 + x
    y.backward()
    assert y.data == 18.0 and x.grad == 25.0  # 6x^2 + 1
    y.backward()
    assert x.grad == 50.0  # accumulates like the built-in ops


def test_leaf_backward_is_a_no_op_callable():
    leaf = Value(1.0)
    leaf._backward()
    assert leaf.grad == 0.0


def test_engine_and_nn_import_with_the_standard_library_only():
    # -S: no site-packages at all, so any third-party import would fail here
    code = (
        "import sys\n"
        f"sys.path.insert(0, {str(SRC)!r})\n"
        "import micrograd, micrograd.engine, micrograd.nn, micrograd.autograd\n"
        "third_party = [m for m in ('numpy', 'torch', 'graphviz') if m in sys.modules]\n"
        "print(third_party)\n"
    )
    proc = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_anomaly_message_names_inputs_even_under_no_grad():
    with micrograd.no_grad(), micrograd.detect_anomaly(), pytest.raises(FloatingPointError) as info:
        Value(-1.0).log()
    assert "log" in str(info.value) and "-1.0" in str(info.value)


@pytest.mark.parametrize("op,message", [
    (lambda v: "x" + v, r'can only concatenate str \(not "Value"\) to str'),
    (lambda v: None + v, r"for \+: 'NoneType' and 'Value'"),
    (lambda v: None - v, r"for -: 'NoneType' and 'Value'"),
    (lambda v: None * v, r"for \*: 'NoneType' and 'Value'"),
    (lambda v: None / v, r"for /: 'NoneType' and 'Value'"),
    (lambda v: None ** v, r"for \*\* or pow\(\): 'NoneType' and 'Value'"),
])
def test_reflected_op_with_unsupported_operand_names_the_right_op_and_order(op, message):
    # the reflected methods return NotImplemented, so Python reports the user's own op
    with pytest.raises(TypeError, match=message):
        op(Value(2.0))


def test_weighted_sum_takes_a_plain_number_as_bias():
    from micrograd.engine import weighted_sum

    w, x = [Value(0.5), Value(-2.0)], [Value(3.0), Value(0.25)]
    out = weighted_sum(w, x, 1.5)
    out.backward()
    assert out.data == 1.5 + 0.5 * 3.0 + (-2.0) * 0.25  # same order as sum(..., bias)
    assert [v.grad for v in w] == [3.0, 0.25] and [v.grad for v in x] == [0.5, -2.0]


@pytest.mark.parametrize("base, exponent", [(-1e-200, -2.5), (-1e200, 2.5), (-1e-200, -3.0),
                                            (-1e200, 3.0), (-1e200, 2.0)])
def test_power_overflow_with_a_negative_base_is_nan_or_signed_inf_as_torch(base, exponent):
    torch = require_module("torch")
    for as_value in (False, True):  # a number exponent and a Value exponent
        x = Value(base)
        k = Value(exponent) if as_value else exponent
        y = x ** k
        y.backward()
        tx = torch.tensor(base, dtype=torch.float64, requires_grad=True)
        tk = torch.tensor(exponent, dtype=torch.float64, requires_grad=as_value)
        ty = tx ** tk
        ty.backward()
        assert_same_float(y.data, ty.item())
        assert_same_float(x.grad, tx.grad.item())


def assert_same_float(ours: float, theirs: float) -> None:
    assert (math.isnan(ours) and math.isnan(theirs)) or ours == theirs, (ours, theirs)


def test_a_custom_op_whose_forward_overflows_says_which_op_and_where():
    naive = define_op("softplus", lambda x: math.log1p(math.exp(x)),
                      lambda x: 1 / (1 + math.exp(-x)))
    with pytest.raises(OverflowError, match=r"forward of the custom op 'softplus' at \(1000\.0\)"):
        naive(Value(1000.0))
    x = Value(-1000.0)
    y = naive(x)  # the forward is fine here; the derivative's exp(1000) overflows
    with pytest.raises(OverflowError, match="derivative of the custom op 'softplus'"):
        y.backward()
    with pytest.raises(ValueError, match=r"custom op 'root' at \(-1\.0\).*IEEE"):
        define_op("root", math.sqrt, lambda x: 0.5 / math.sqrt(x))(Value(-1.0))
    with pytest.raises(ValueError, match="custom op 'parse'") as raised:  # not about math
        define_op("parse", lambda x: float("abc"), lambda x: 0.0)(Value(1.0))
    assert "IEEE" not in str(raised.value)


def test_readme_softplus_custom_op_is_stable_at_1000():
    # the README's define_op example, checked at the ends where a naive form overflows
    softplus = define_op("softplus", lambda x: max(x, 0.0) + math.log1p(math.exp(-abs(x))),
                         lambda x: 0.5 + 0.5 * math.tanh(x / 2))
    for x0, value, slope in ((1000.0, 1000.0, 1.0), (-1000.0, 0.0, 0.0), (0.0, math.log(2), 0.5)):
        x = Value(x0)
        y = softplus(x)
        y.backward()
        assert y.data == pytest.approx(value, abs=1e-300) and x.grad == pytest.approx(slope)


def test_a_registry_method_of_a_subclass_with_its_own_constructor_calls_it():
    from micrograd.engine import install_ops

    class Tagged(Value):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.tag = "made by Tagged"

    install_ops(Tagged)
    out = Tagged(-0.5).relu()
    assert type(out) is Tagged and out.tag == "made by Tagged"
    assert out.data == 0.0 and out._op == "ReLU"
