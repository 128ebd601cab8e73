"""Value's state outside the arithmetic: grad modes per thread, pickle and copy, what it accepts.

Oracles: gradients worked out by hand or by the same graph built in one thread; a copy's
gradients against the original's (computed independently on the original graph).
"""

from __future__ import annotations

import copy
import math
import pickle
import threading

import pytest
from conftest import require_module

import micrograd
from micrograd import autograd
from micrograd.engine import Value, define_op
from micrograd.nn import MLP

# --- grad modes apply to the thread that entered them -------------------------------------

def _train_steps(steps: int) -> list[list[float]]:
    """A small deterministic training loop; the gradients of every step."""
    w, b = Value(0.3), Value(-0.2)
    grads = []
    for k in range(steps):
        x = 0.1 * k - 1.0
        loss = ((w * x + b).tanh() - 0.5) ** 2
        w.grad = b.grad = 0.0
        loss.backward()
        grads.append([w.grad, b.grad])
        w.data -= 0.1 * w.grad
        b.data -= 0.1 * b.grad
    return grads


def test_training_thread_gets_right_gradients_while_another_thread_is_in_no_grad():
    expected = _train_steps(30)  # the same loop with no other thread around
    assert all(g != [0.0, 0.0] for g in expected)
    inside, done = threading.Event(), threading.Event()

    def evaluate():
        with micrograd.no_grad():
            inside.set()
            done.wait(timeout=60)  # stay inside no_grad while the other thread trains

    evaluator = threading.Thread(target=evaluate)
    evaluator.start()
    inside.wait(timeout=60)
    try:
        got = []
        trainer = threading.Thread(target=lambda: got.extend(_train_steps(30)))
        trainer.start()
        trainer.join(timeout=60)
        assert autograd.is_grad_enabled()  # this thread was never in no_grad
    finally:
        done.set()
        evaluator.join(timeout=60)
    assert got == expected


def test_no_grad_in_one_thread_records_no_graph_there_only():
    seen = {}
    inside, done = threading.Event(), threading.Event()

    def evaluate():
        with micrograd.no_grad():
            inside.set()
            seen["other"] = (Value(2.0) * Value(3.0))._prev
            done.wait(timeout=60)

    t = threading.Thread(target=evaluate)
    t.start()
    inside.wait(timeout=60)
    try:
        a, b = Value(2.0), Value(3.0)
        assert (a * b)._prev == (a, b)  # this thread still records
    finally:
        done.set()
        t.join(timeout=60)
    assert seen["other"] == ()


def test_overlapping_no_grad_blocks_in_two_threads_restore_every_threads_mode():
    # A enters, B enters, A leaves, B leaves: with one process-wide flag, B restored the
    # False it saw on entry and grad recording stayed off for everybody.
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()
    after = {}

    def thread_a():
        with micrograd.no_grad():
            a_in.set()
            b_in.wait(timeout=60)
        after["a"] = autograd.is_grad_enabled()
        a_out.set()

    def thread_b():
        a_in.wait(timeout=60)
        with micrograd.no_grad():
            b_in.set()
            a_out.wait(timeout=60)
            after["b inside"] = autograd.is_grad_enabled()
        after["b"] = autograd.is_grad_enabled()

    threads = [threading.Thread(target=thread_a), threading.Thread(target=thread_b)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert after == {"a": True, "b inside": False, "b": True}
    assert autograd.is_grad_enabled()
    x = Value(1.0)
    assert (x * 2)._prev != ()  # recording is on again for the main thread


def test_nested_modes_restore_the_previous_mode_in_this_thread():
    with micrograd.no_grad():
        with micrograd.enable_grad():
            assert autograd.is_grad_enabled()
        assert not autograd.is_grad_enabled()
        with autograd.detect_anomaly():
            assert autograd.modes.anomaly and not autograd.is_grad_enabled()
        assert not autograd.modes.anomaly
    assert autograd.is_grad_enabled() and not autograd.modes.anomaly


def test_a_new_thread_starts_with_grad_enabled_even_inside_no_grad():
    seen = []
    with micrograd.no_grad():
        t = threading.Thread(target=lambda: seen.append(autograd.is_grad_enabled()))
        t.start()
        t.join(timeout=60)
    assert seen == [True]  # as in PyTorch: the mode is per thread, new threads get the default


def test_mode_is_restored_when_the_block_raises():
    with pytest.raises(ZeroDivisionError), micrograd.no_grad():
        raise ZeroDivisionError
    assert autograd.is_grad_enabled()


# --- pickle and deepcopy --------------------------------------------------------------------

def _cube(x: float) -> float:
    return x ** 3


def _cube_derivative(x: float) -> float:
    return 3 * x ** 2


cube = define_op("cube", _cube, _cube_derivative)


def _graph() -> tuple[Value, list[Value]]:
    a, b = Value(0.7, label="a"), Value(-1.3, label="b")
    out = (a * b).tanh() + cube(a) + (b ** 2).exp().log() + (a / b).sigmoid() + a ** b.abs()
    return out, [a, b]


def _expected_grads() -> list[float]:
    # d/da and d/db worked out by hand for out above, at a = 0.7, b = -1.3
    a, b = 0.7, -1.3
    sech2 = 1 - math.tanh(a * b) ** 2
    s = 1 / (1 + math.exp(-a / b))
    da = sech2 * b + 3 * a ** 2 + s * (1 - s) / b + abs(b) * a ** (abs(b) - 1)
    db = sech2 * a + 2 * b + s * (1 - s) * (-a / b ** 2) + a ** abs(b) * math.log(a) * -1
    return [da, db]


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_graph_with_tanh_pow_and_define_op_survives_pickle_and_deepcopy(how):
    out, leaves = _graph()
    if how == "pickle":
        out2, leaves2 = pickle.loads(pickle.dumps((out, leaves)))
    else:
        out2, leaves2 = copy.deepcopy((out, leaves))
    assert out2.data == out.data and [v.label for v in leaves2] == ["a", "b"]
    out2.backward()
    assert [v.grad for v in leaves2] == pytest.approx(_expected_grads(), rel=1e-12)
    assert [v.grad for v in leaves] == [0.0, 0.0]  # the copy's backward left the original alone
    out.backward()
    assert [v.grad for v in leaves] == [v.grad for v in leaves2]


def test_deepcopy_works_with_a_lambda_define_op_and_pickle_says_what_to_do():
    square = define_op("square", lambda x: x * x, lambda x: 2 * x)
    x = Value(3.0)
    y = square(x)
    y2 = copy.deepcopy(y)
    y2.backward()
    assert y2._prev[0].grad == 6.0 and x.grad == 0.0
    with pytest.raises(TypeError, match=r"custom op 'square'.*lambda.*module level"):
        pickle.dumps(y)


@pytest.mark.parametrize("how", [pickle.dumps, copy.deepcopy, copy.copy])
def test_a_hand_written_backward_closure_refuses_to_be_copied_with_a_clear_error(how):
    x = Value(0.5)
    out = Value(2 * x.data, (x,), "double")

    def _backward():
        x.grad += 2.0 * out.grad

    out._backward = _backward
    with pytest.raises(TypeError, match=r"assigned by hand.*Save the numbers"):
        how(out._grad_fn if how is copy.copy else out)


def test_a_scalar_mlp_pickles_and_deepcopies_with_the_same_outputs():
    import random

    model = MLP(3, [4, 4, 1], activation="tanh", rng=random.Random(0))
    x = [2.0, 3.0, -1.0]
    for clone in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        assert clone(x).data == model(x).data
        assert [p.data for p in clone.parameters()] == [p.data for p in model.parameters()]
        clone.parameters()[0].data += 1.0
        assert clone(x).data != model(x).data  # really a copy


# --- what Value accepts -------------------------------------------------------------------

def test_numpy_scalars_and_0d_arrays_are_numbers():
    np = require_module("numpy")
    assert Value(np.bool_(True)).data == 1.0 and Value(np.bool_(False)).data == 0.0
    assert Value(np.float32(2)).data == 2.0 and type(Value(np.float32(2)).data) is float
    assert Value(np.int64(-3)).data == -3.0
    assert Value(np.array(1.5)).data == 1.5
    assert (Value(2.0) * np.array(1.5)).data == 3.0


@pytest.mark.parametrize("bad", ["1.5", 1 + 2j, [1.5], None])
def test_non_numbers_are_refused_with_a_clear_error(bad):
    with pytest.raises(TypeError, match="Value\\(\\) takes a real number"):
        Value(bad)


def test_numpy_arrays_with_elements_and_complex_scalars_are_refused():
    np = require_module("numpy")
    for bad in (np.array([1.5]), np.array([[1.0, 2.0]]), np.complex128(1 + 2j),
                np.array(1 + 2j)):
        with pytest.raises(TypeError, match="Value\\(\\) takes a real number"):
            Value(bad)


def test_a_learner_can_set_attributes_of_their_own():
    v = Value(2.0)
    v.name = "x"
    v.note = [1, 2]
    assert (v.name, v.note) == ("x", [1, 2])
    assert (v * 3).data == 6.0


@pytest.mark.parametrize("how", ["pickle", "deepcopy"])
def test_a_deep_graph_pickles_and_deepcopies_without_recursion_error(how):
    x = Value(1.0, label="x")
    y = x
    for _ in range(5000):  # far past the recursion limit if saved node by node
        y = y * 1.0001 + 0.1
    y.name = "a learner's attribute"
    if how == "pickle":
        y2, x2 = pickle.loads(pickle.dumps((y, x)))
    else:
        y2, x2 = copy.deepcopy((y, x))
    assert y2.data == y.data and x2.label == "x" and y2.name == "a learner's attribute"
    y2.backward()
    assert x2.grad == pytest.approx(1.0001 ** 5000, rel=1e-9)  # d/dx of 5000 times (*1.0001)
    assert x.grad == 0.0
