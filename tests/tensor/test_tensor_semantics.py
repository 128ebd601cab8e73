"""Tensor semantics as PyTorch's: .data/.grad as tensors, in-place ops, version counters.

Each scenario is one function written once against a tiny namespace `lib` (make a float64
tensor, no_grad, softmax, max), then run under PyTorch 2.13 and under micrograd; the
values, the gradients and the errors (type and torch's words) must agree.
"""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from conftest import require_module

import micrograd
from micrograd.tensors import Tensor, float64, no_grad
from micrograd.tensors.ops import reduce as mg_reduce


class Ours:
    name = "micrograd"
    no_grad = staticmethod(no_grad)

    @staticmethod
    def tensor(values, requires_grad=False):
        return micrograd.tensors.tensor(values, dtype=float64, requires_grad=requires_grad)

    @staticmethod
    def softmax(t, dim):
        return mg_reduce.softmax(t, dim)

    @staticmethod
    def max(t, dim):
        return mg_reduce.max(t, dim)


class Torch:
    name = "torch"

    def __init__(self):
        self.torch = require_module("torch")
        self.no_grad = self.torch.no_grad

    def tensor(self, values, requires_grad=False):
        return self.torch.tensor(values, dtype=self.torch.float64, requires_grad=requires_grad)

    def softmax(self, t, dim):
        return self.torch.softmax(t, dim)

    def max(self, t, dim):
        return self.torch.max(t, dim)


def as_array(x):
    if x is None or isinstance(x, np.ndarray):
        return x
    if hasattr(x, "detach"):  # a torch tensor
        return x.detach().numpy()
    return np.asarray(x.numpy())


def outcome(scenario, lib):
    """What the scenario returned (as arrays), or the error it raised (type, message)."""
    try:
        return [as_array(x) for x in scenario(lib)]
    except RuntimeError as error:
        return ("RuntimeError", str(error))


def assert_same(scenario, error_words=None):
    theirs, ours = outcome(scenario, Torch()), outcome(scenario, Ours)
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple), f"torch raised {theirs[1]!r}, micrograd returned {ours}"
        assert error_words is not None and error_words in theirs[1] and error_words in ours[1], (
            theirs, ours)
        return
    assert not isinstance(ours, tuple), f"micrograd raised {ours[1]!r}; torch gave {theirs}"
    assert len(theirs) == len(ours)
    for want, have in zip(theirs, ours, strict=True):
        if want is None:
            assert have is None
        else:
            np.testing.assert_allclose(have, want, rtol=1e-12, atol=1e-14)


# --- version counters ---------------------------------------------------------------------

def changed_under_no_grad_after_it_was_saved(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1.0
    c = (b * b).sum()
    with lib.no_grad():
        b -= 100
    c.backward()
    return [a.grad]


def test_a_value_changed_after_an_op_saved_it_makes_backward_raise_as_torch():
    """The issue's example: without the check, a.grad silently came out [-198, -196]."""
    assert_same(changed_under_no_grad_after_it_was_saved,
                "modified by an inplace operation")
    message = outcome(changed_under_no_grad_after_it_was_saved, Ours)[1]
    assert "is at version 1; expected version 0 instead" in message


def parameter_changed_after_forward(lib):
    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    x = lib.tensor([[0.5, -1.0]], requires_grad=True)
    loss = (x @ w).sum()
    with lib.no_grad():
        w -= 0.1 * w  # an optimizer step before backward(): matmul saved w for x's gradient
    loss.backward()
    return [w.grad]


def test_an_optimizer_step_between_forward_and_backward_raises_as_torch():
    assert_same(parameter_changed_after_forward, "modified by an inplace operation")


def changed_through_detach(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 1.0
    c = (b * b).sum()
    b.detach().zero_()
    c.backward()
    return [a.grad]


def test_a_change_through_detach_counts_as_torch():
    assert_same(changed_through_detach, "modified by an inplace operation")


def versions_counted(lib):
    t = lib.tensor([1.0, 2.0, 3.0])
    seen = [t._version]
    t += 1
    seen.append(t._version)
    t.mul_(2)
    t[0] = 5.0
    seen.append(t._version)
    t.zero_()
    seen.append(t._version)
    return [np.array(seen, dtype=float), t]


def test_version_numbers_count_in_place_changes_as_torch():
    assert_same(versions_counted)


# --- in-place ops: refused on parameters, recorded on tensors in a graph --------------------

@pytest.mark.parametrize("change", ["+=", "-=", "*=", "/=", "zero_", "setitem", "add_",
                                    "clamp_", "masked_fill_"])
def test_in_place_on_a_parameter_outside_no_grad_raises_torchs_error(change):
    def scenario(lib):
        p = lib.tensor([1.0, -2.0], requires_grad=True)
        if change == "+=":
            p += 1
        elif change == "-=":
            p -= 1
        elif change == "*=":
            p *= 2
        elif change == "/=":
            p /= 2
        elif change == "zero_":
            p.zero_()
        elif change == "setitem":
            p[0] = 3.0
        elif change == "add_":
            p.add_(1.0)
        elif change == "clamp_":
            p.clamp_(min=0.0)
        else:
            p.masked_fill_(p > 0, 0.0)
        return [p]

    assert_same(scenario,
                "a leaf Variable that requires grad is being used in an in-place operation.")


def arithmetic_in_place_on_intermediates(lib):
    a = lib.tensor([[1.0, -2.0, 3.0], [0.5, 1.5, -1.0]], requires_grad=True)
    w = lib.tensor([2.0, -1.0, 0.5], requires_grad=True)
    b = a * 2
    b += w
    b -= 1
    b *= w
    b /= 3
    b.add_(w, alpha=2.0)
    b.sub_(a, alpha=0.5)
    b.mul_(a)
    b.div_(w + 3)
    (b * b).sum().backward()
    return [b, a.grad, w.grad]


def test_arithmetic_in_place_ops_on_intermediates_are_recorded_as_torch():
    assert_same(arithmetic_in_place_on_intermediates)


def indexed_updates(lib):
    a = lib.tensor([[1.0, -2.0, 3.0], [0.5, 1.5, -1.0]], requires_grad=True)
    v = lib.tensor([7.0, 8.0], requires_grad=True)
    t = a * 2
    t[[0, 1, 1], [2, 0, 0]] -= 1  # advanced, with a repeated position
    t[:, 1] -= a[:, 0]  # basic: a view of t
    t[0, 0] = v[1]  # a value that needs its own gradient
    t[1] = 4.0
    (t * t * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
    return [t, a.grad, v.grad]


def test_indexed_in_place_updates_on_intermediates_are_recorded_as_torch():
    assert_same(indexed_updates)


def masked_zero_and_clamp(lib):
    a = lib.tensor([1.0, -2.0, 3.0, -0.5], requires_grad=True)
    t = a * 3
    t.masked_fill_(a < 0, 0.5)
    u = a * 2
    u.clamp_(min=-1.0, max=4.0)
    z = a + 1
    z.zero_()
    (t * a + u * u + z).sum().backward()
    return [t, u, z, a.grad]


def test_masked_fill_clamp_and_zero_in_place_are_recorded_as_torch():
    assert_same(masked_zero_and_clamp)


def plain_tensor_updated_with_one_that_needs_grad(lib):
    w = lib.tensor([1.0, 2.0], requires_grad=True)
    acc = lib.tensor([0.0, 0.0])
    acc += w * w
    acc *= 3
    acc.sum().backward()
    return [acc, w.grad, np.array([float(acc.requires_grad), float(acc.is_leaf)])]


def test_a_constant_updated_with_a_tensor_that_needs_grad_joins_the_graph_as_torch():
    assert_same(plain_tensor_updated_with_one_that_needs_grad)


def used_before_an_in_place_change(lib):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = a * 3
    c = b + 1  # add saves nothing: torch's backward still reaches the old b
    b *= 2
    (c * c).sum().backward()
    return [c, b, a.grad]


def test_a_tensor_used_before_an_in_place_change_keeps_its_old_value_for_backward():
    """c was computed from b before b *= 2: c's gradient must reach a through the old b."""
    assert_same(used_before_an_in_place_change)


def manual_backward_of_cross_entropy(lib):
    """makemore part 4: dlogits = softmax(logits); dlogits[range(n), Y] -= 1; dlogits /= n."""
    logits = lib.tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 2.0]], requires_grad=True)
    dlogits = lib.softmax(logits, 1)
    dlogits[range(2), [2, 0]] -= 1
    dlogits /= 2
    counts = logits.exp()
    dcounts = counts * 0.5
    dcounts += lib.tensor([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]) * 0.25
    return [dlogits, dcounts]


def test_the_makemore_manual_backward_runs_with_grad_tracking_on():
    assert_same(manual_backward_of_cross_entropy)


# --- .data and .grad are tensors on the parameter's memory -------------------------------

def data_and_grad_as_tensors(lib):
    p = lib.tensor([[1.0, -2.0], [3.0, 0.5]], requires_grad=True)
    loss = (p * p * p).sum()
    loss.backward()
    grad_before = p.grad * 1.0
    p.data += -0.01 * p.grad  # a Tensor operand
    values, indices = lib.max(p.data, 1)
    same_object = float(p.grad is p.grad)
    p.grad.zero_()
    zeroed = p.grad * 1.0
    (p * 2).sum().backward()
    identity = id(p)
    p.data = lib.tensor([[5.0, 6.0], [7.0, 8.0]])
    kept = float(id(p) == identity and p.requires_grad and p.is_leaf)
    p.grad = None
    return [grad_before, values, indices.double(), zeroed, p, np.array([same_object, kept]),
            p.grad]


def test_data_and_grad_are_tensors_sharing_the_parameters_memory_as_torch():
    assert_same(data_and_grad_as_tensors)


def test_grad_and_data_are_tensors_that_record_no_graph():
    p = micrograd.tensors.tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    assert type(p.grad) is Tensor and type(p.data) is Tensor
    assert not p.grad.requires_grad and not p.data.requires_grad
    assert np.shares_memory(p.data.numpy(), p.numpy())
    with pytest.raises(RuntimeError, match="same size"):
        p.grad = micrograd.tensors.tensor([1.0, 2.0, 3.0])


# --- pickle and deepcopy ------------------------------------------------------------------

def test_tensors_pickle_and_deepcopy_as_data_and_requires_grad():
    p = micrograd.tensors.tensor([[1.0, 2.0]], dtype=float64, requires_grad=True)
    (p * 3).sum().backward()
    back = pickle.loads(pickle.dumps(p))
    assert type(back) is Tensor and back.requires_grad and back.is_leaf and back.grad is None
    np.testing.assert_array_equal(back.numpy(), [[1.0, 2.0]])
    assert back.dtype == np.float64
    twin = copy.deepcopy(p)
    np.testing.assert_array_equal(twin.grad.numpy(), [[3.0, 3.0]])  # deepcopy keeps .grad
    assert not np.shares_memory(twin.numpy(), p.numpy())
    assert not np.shares_memory(twin.grad.numpy(), p.grad.numpy())
    ints = pickle.loads(pickle.dumps(micrograd.tensors.tensor([1, 2])))
    assert ints.dtype == np.int64 and not ints.requires_grad


def test_a_tensor_subclass_pickles_as_its_class_with_its_fields():
    class Parameter(Tensor):  # as nn.Parameter: a Tensor subclass, maybe with fields
        pass

    p = Parameter([1.0, 2.0], requires_grad=True)
    p.note = "weights"
    for restored in (copy.deepcopy(p), copy.copy(p)):
        assert type(restored) is Parameter and restored.note == "weights"
        assert restored.requires_grad


def test_pickling_a_graph_raises_one_error_that_says_what_to_save_instead():
    x = micrograd.tensors.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).tanh()
    for attempt in (lambda: pickle.dumps(y), lambda: copy.deepcopy(y),
                    lambda: pickle.dumps({"loss": y})):
        with pytest.raises(RuntimeError, match=r"autograd graph.*detach\(\).*state_dict\(\)"):
            attempt()
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(y.detach())).numpy(), y.numpy())


def test_pickled_parameters_make_the_same_numbers_as_torch_after_a_round_trip():
    torch = require_module("torch")
    w = np.array([[0.5, -1.0], [2.0, 0.25]])
    ours = pickle.loads(pickle.dumps(micrograd.tensors.tensor(w, requires_grad=True)))
    theirs = pickle.loads(pickle.dumps(torch.tensor(w, requires_grad=True)))
    (ours.tanh() * ours).sum().backward()
    (theirs.tanh() * theirs).sum().backward()
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)


def test_a_tensor_model_pickles_and_deepcopies_and_computes_the_same_after():
    from micrograd.tensors import nn

    rng = np.random.default_rng(3)
    model = nn.Sequential(nn.Linear(3, 4, rng=rng), nn.ReLU(), nn.Linear(4, 2, rng=rng))
    x = micrograd.tensors.tensor(rng.standard_normal((5, 3)).astype(np.float32))
    model(x).sum().backward()  # gradients present: still only data is pickled
    for restored in (pickle.loads(pickle.dumps(model)), copy.deepcopy(model)):
        np.testing.assert_array_equal(restored(x).numpy(), model(x).numpy())
        for mine, theirs in zip(restored.parameters(), model.parameters(), strict=True):
            assert mine.requires_grad and not np.shares_memory(mine.numpy(), theirs.numpy())
        restored(x).sum().backward()  # and it trains


def test_second_backward_raises_while_released_graphs_that_died_are_forgotten():
    """saved.release marks nodes without a callback per node: a graph that died must not
    make a later, fresh graph raise (its nodes may get the dead nodes' ids), the one that
    was released must, and the marks of dead graphs do not pile up."""
    from micrograd.tensors import saved

    w = Tensor(np.array([1.5, -2.0]), requires_grad=True)
    passes = 3 * saved._SWEEP_AT  # more dead graphs than a sweep lets stay
    for _ in range(passes):
        loss = (w * w).sum()
        loss.backward()
    assert len(saved._released) < 2 * saved._SWEEP_AT
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        loss.backward()
    fresh = (w * w).sum()
    fresh.backward()
    np.testing.assert_allclose(w.grad.numpy(), 2 * (passes + 1) * np.array([1.5, -2.0]))
