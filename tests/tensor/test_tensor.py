"""The Tensor engine's API, its use of the shared walker, errors, dtypes, gradcheck, nn, data,
the bridge from the scalar engine, and a PyTorch training script run on both engines."""

from __future__ import annotations

import gc
import os
import random
import subprocess
import sys
import warnings
import weakref

import numpy as np
import pytest
from conftest import optional_module, require_demo_extra

import micrograd
from micrograd import autograd
from micrograd.tensors import functional as F
from micrograd.tensors import nn
from micrograd.tensors.data import DataLoader, TensorDataset
from micrograd.tensors.function import unary as _unary
from micrograd.tensors.gradcheck import GradcheckError, gradcheck

torch = optional_module("torch")  # the tests that use torch skip without it

if torch:
    torch.set_num_threads(1)
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src")


# --- the PyTorch-style API ------------------------------------------------------------------

def test_import_micrograd_does_not_import_numpy():
    code = "import sys, micrograd; assert 'numpy' not in sys.modules; print('ok')"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PYTHONPATH": SRC})
    assert result.stdout.strip() == "ok", result.stderr


def test_tensor_function_and_class_are_exposed_on_micrograd():
    x = micrograd.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    assert isinstance(x, micrograd.Tensor)
    assert x.shape == (2, 2) and x.ndim == 2 and x.size() == (2, 2) and x.size(1) == 2
    assert x.dtype == np.float32 and x.requires_grad and x.is_leaf and x.grad is None


def test_backward_fills_grad_as_the_chain_rule_says():
    x = micrograd.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = (x * x).sum()  # dy/dx = 2x
    y.backward()
    np.testing.assert_array_equal(x.grad, [2.0, -4.0, 6.0])
    assert y.item() == 14.0 and isinstance(y.item(), float)


def test_backward_twice_accumulates_leaf_gradients_as_torch():
    x = micrograd.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 3).sum()
    y.backward(retain_graph=True)  # torch 2.13 keeps x * 3's saved 3 only when asked
    y.backward()
    np.testing.assert_array_equal(x.grad, [6.0, 6.0])


def test_a_tensor_used_twice_gets_both_contributions():
    a = micrograd.tensor(2.0, requires_grad=True)
    b = micrograd.tensor(3.0, requires_grad=True)
    c = a * b + a  # the textbook's example: dc/da = b + 1, dc/db = a
    c.backward()
    assert a.grad == 4.0 and b.grad == 2.0


def test_backward_of_a_non_scalar_needs_a_gradient():
    x = micrograd.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="only for scalar outputs"):
        y.backward()
    y.backward(micrograd.tensor([1.0, 10.0]))
    np.testing.assert_array_equal(x.grad, [2.0, 20.0])
    with pytest.raises(ValueError, match=r"\[2\].*\[3\]"):
        y.backward(np.ones(3))


def test_backward_on_a_tensor_without_grad_says_why():
    with pytest.raises(RuntimeError, match="does not require grad"):
        micrograd.tensor([1.0]).sum().backward()


def test_detach_item_numpy_and_constants():
    x = micrograd.tensor([1.5, 2.5], requires_grad=True)
    d = x.detach()
    assert not d.requires_grad and d.numpy() is x.numpy()
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    c = micrograd.tensor([1.0, 2.0]) * 2  # nothing requires grad: no graph is recorded
    assert c._prev == () and c._grad_fn is None and not c.requires_grad
    with pytest.raises(ValueError, match="one element"):
        x.item()


def test_no_grad_is_the_shared_one_and_records_nothing():
    assert micrograd.tensors.no_grad is micrograd.no_grad is autograd.no_grad
    x = micrograd.tensor([1.0], requires_grad=True)
    with micrograd.no_grad():
        y = x * 2
    assert not y.requires_grad and y._prev == ()


def test_graph_is_freed_by_reference_counting_without_the_cycle_collector():
    x = micrograd.tensor([1.0, 2.0], requires_grad=True)
    gc.disable()
    try:
        h = (x * 2).tanh()
        probe = weakref.ref(h)
        loss = h.sum()
        loss.backward()
        del h, loss
        assert probe() is None
        model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2))
        hidden = model[1](model[0](x.reshape(1, 2)))
        probes = [weakref.ref(hidden)]
        loss = F.cross_entropy(model[2](hidden), [1]) + F.mse_loss(hidden, np.zeros((1, 3)))
        probes.append(weakref.ref(loss))
        loss.backward()
        del hidden, loss
        assert [p() for p in probes] == [None, None]
    finally:
        gc.enable()


def test_anomaly_mode_catches_a_non_finite_gradient_in_backward():
    x = micrograd.tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt().sum()  # forward is finite; d sqrt/dx at 0 is inf
    with micrograd.detect_anomaly(), pytest.raises(FloatingPointError, match="sqrt"):
        y.backward()


def test_anomaly_mode_catches_a_non_finite_forward():
    x = micrograd.tensor([0.0, 1.0], requires_grad=True)
    with micrograd.detect_anomaly(), pytest.raises(FloatingPointError, match="log"):
        x.log()


EDGE_OPS = {
    "sqrt": lambda t: t.sqrt(), "log": lambda t: t.log(), "1/x": lambda t: 1 / t,
    "x/0": lambda t: t / 0.0, "x**0.5": lambda t: t ** 0.5, "exp": lambda t: t.exp(),
    "log_softmax": lambda t: t.reshape(1, 3)[:, :0].log_softmax(dim=1).sum() + t.sum(),
}


@pytest.mark.parametrize("name", EDGE_OPS)
def test_inf_and_nan_come_back_silently_and_equal_torch_at_domain_edges(name):
    # 0, -1 and 1000 hit every edge: 1/0, log 0, sqrt -1, exp overflow. PyTorch returns the
    # IEEE values without a word; numpy alone would add a RuntimeWarning from our engine.
    data = [0.0, -1.0, 1000.0]
    x = micrograd.tensor(data, dtype=np.float64, requires_grad=True)
    reference = torch.tensor(data, dtype=torch.float64, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = EDGE_OPS[name](x)
        ours.sum().backward()
    theirs = EDGE_OPS[name](reference)
    theirs.sum().backward()
    np.testing.assert_allclose(ours.data, theirs.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(x.grad, reference.grad.numpy(), rtol=1e-12)


def test_intermediate_gradients_restart_clean_on_every_backward():
    x = micrograd.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    y = h.sum()
    y.backward(retain_graph=True)  # x * x saved x: without it the second pass raises
    y.backward()
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])  # leaves accumulate, no stale h.grad
    with pytest.warns(UserWarning, match="not a leaf Tensor"):
        assert h.grad is None  # dropped once used, as torch's


def test_retained_intermediate_gradients_accumulate_as_torchs():
    x = micrograd.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    h.retain_grad()
    y = h.sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_array_equal(h.grad, [2.0, 2.0])  # torch 2.13 gives the same
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])  # the working gradient was 1 per pass


def test_in_place_update_under_no_grad_changes_the_parameter():
    p = micrograd.tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    with pytest.raises(RuntimeError, match="no_grad"):
        p -= 0.1 * p.grad
    with micrograd.no_grad():
        p -= 0.1 * p.grad
    np.testing.assert_allclose(p.data, [0.8, 1.6])


def test_item_assignment_and_device_calls_work_as_in_pytorch_scripts():
    x = micrograd.tensor([1.0, 2.0, 3.0])
    x[1] = 5.0
    assert x.to("cpu") is x and x.tolist() == [1.0, 5.0, 3.0]
    p = micrograd.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="no_grad"):
        p[0] = 0.0
    model = nn.Sequential(nn.Linear(2, 3)).to("cpu").float()
    assert all(q.dtype == np.float32 for q in model.parameters())
    assert model(micrograd.tensor(np.ones((1, 2), np.float32))).dtype == np.float32


def test_leaf_gradients_are_separate_writable_arrays():
    a = micrograd.tensor([1.0, 2.0], requires_grad=True)
    b = micrograd.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()
    a.grad *= 10
    np.testing.assert_array_equal(b.grad, [1.0, 1.0])


def test_comparisons_argmax_and_float_give_plain_tensors():
    x = micrograd.tensor([[0.1, 0.9], [0.8, 0.2]], requires_grad=True)
    correct = x.argmax(dim=1) == micrograd.tensor([1, 0])
    assert correct.dtype == np.bool_ and not correct.requires_grad
    assert correct.float().mean().item() == 1.0


# --- dtypes ---------------------------------------------------------------------------------

def test_float32_stays_float32_through_ops_numbers_and_gradients():
    x = micrograd.tensor(np.array([[1.0, 2.0]], dtype=np.float32), requires_grad=True)
    w = micrograd.tensor(np.ones((2, 3), dtype=np.float32), requires_grad=True)
    y = ((x @ w) * 2.5 + 1 - np.float64(0.5)).tanh() ** 2 / 3
    loss = F.cross_entropy(y, [2]) + y.sigmoid().mean() + y.log_softmax(1).max()
    assert y.dtype == np.float32 and loss.dtype == np.float32
    loss.backward()
    assert x.grad.dtype == np.float32 and w.grad.dtype == np.float32


def test_mixed_float32_and_float64_promote_and_send_each_its_own_dtype():
    a = micrograd.tensor(np.ones(2, dtype=np.float32), requires_grad=True)
    b = micrograd.tensor(np.ones(2), requires_grad=True)
    c = a * b
    assert c.dtype == np.float64
    c.sum().backward()
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float64


def test_python_data_gets_the_default_dtype_and_numpy_keeps_its_own():
    assert torch.tensor([1.0]).dtype == torch.float32  # the oracle: torch's default
    assert micrograd.tensor([1.0]).dtype == np.float32
    assert micrograd.tensor([1, 2]).dtype == np.int64
    assert micrograd.tensor(np.zeros(2, np.float32)).dtype == np.float32
    assert micrograd.tensor(np.zeros(2)).dtype == np.float64  # numpy's float64 stays
    micrograd.tensors.set_default_dtype(np.float64)
    try:
        assert micrograd.tensor([1.0]).dtype == np.float64
        assert nn.Linear(2, 3).weight.dtype == np.float64
    finally:
        micrograd.tensors.set_default_dtype(np.float32)


# --- bad input ------------------------------------------------------------------------------

def test_shapes_that_do_not_broadcast_name_both_shapes():
    a, b = micrograd.tensor(np.ones((2, 3))), micrograd.tensor(np.ones(4))
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\)"):
        a + b
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\)"):
        a * np.ones(4)


def test_shapes_that_do_not_multiply_name_both_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4, 5\).*3 != 4"):
        micrograd.tensor(np.ones((2, 3))) @ micrograd.tensor(np.ones((4, 5)))
    with pytest.raises(ValueError, match=r"\(3,\).*\(4, 5\)"):
        nn.Linear(5, 4)(micrograd.tensor(np.ones(3, np.float32)))


def test_requires_grad_on_an_integer_tensor_is_refused():
    with pytest.raises(TypeError, match="floating-point"):
        micrograd.tensor([1, 2, 3], requires_grad=True)
    t = micrograd.tensor([1, 2])
    with pytest.raises(TypeError, match="floating-point"):
        t.requires_grad = True


def test_out_of_range_indexing_raises_index_error_as_numpy():
    x = micrograd.tensor(np.zeros((2, 3)), requires_grad=True)
    with pytest.raises(IndexError):
        x[2]
    with pytest.raises(IndexError):
        x[:, [0, 3]]


def test_non_numeric_data_is_refused():
    with pytest.raises(TypeError, match="numbers"):
        micrograd.tensor(["a", "b"])


def test_cross_entropy_checks_its_targets():
    logits = micrograd.tensor(np.zeros((2, 3)), requires_grad=True)
    with pytest.raises(TypeError, match="integer class indices"):
        F.cross_entropy(logits, [0.0, 1.0])
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(logits, [0, 3])
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(logits, [0, -1])
    with pytest.raises(ValueError, match=r"\(3,\)"):
        F.cross_entropy(logits, [0, 1, 2])


def test_cat_with_mismatched_shapes_names_them():
    with pytest.raises(ValueError, match=r"\(2, 3\), \(2, 2\)"):
        micrograd.cat([micrograd.zeros(2, 3), micrograd.zeros(2, 2)], dim=0)


# --- gradcheck ------------------------------------------------------------------------------

def test_gradcheck_passes_for_correct_ops():
    rng = np.random.default_rng(0)
    x = micrograd.tensor(rng.uniform(0.5, 2, (3, 2)), requires_grad=True)
    w = micrograd.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert gradcheck(lambda x, w: ((x @ w).tanh() * x.log().sum()).softmax(1), [x, w])
    assert gradcheck(lambda x: x.max(dim=0).values.sigmoid(), [x])


def test_gradcheck_names_the_input_and_element_of_a_wrong_derivative():
    def wrong_sin(x):  # sin with the derivative of 2x: wrong
        return _unary(x, np.sin(x.numpy()), "sin", lambda g: g * 2)

    a = micrograd.tensor([0.5, 1.0], dtype=np.float64, requires_grad=True)
    x = micrograd.tensor([0.3, 0.1, 0.2], dtype=np.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match=r"input 1 element \(0,\): backward gives 2\.0, "
                                             r"central difference gives 0\.955"):
        gradcheck(lambda a, x: a.sum() + wrong_sin(x).sum(), [a, x])  # cos(0.3) = 0.9553


def test_gradcheck_wants_float64():
    with pytest.raises(TypeError, match="float64"):
        gradcheck(lambda x: x * 2, [micrograd.tensor(np.ones(2, np.float32), requires_grad=True)])


# --- nn ---------------------------------------------------------------------------------------

def test_linear_initialisation_bounds_and_shapes_follow_pytorch():
    layer = nn.Linear(16, 5, rng=np.random.default_rng(0))
    bound = 1 / np.sqrt(16)  # kaiming-uniform with a=sqrt(5) gives U(-1/sqrt(in), 1/sqrt(in))
    assert layer.weight.shape == (5, 16) and layer.bias.shape == (5,)
    for p in (layer.weight, layer.bias):
        assert np.abs(p.numpy()).max() <= bound and np.abs(p.numpy()).max() > 0.5 * bound
    torch_layer = torch.nn.Linear(16, 5)
    assert tuple(torch_layer.weight.shape) == layer.weight.shape


def test_module_parameters_names_and_zero_grad():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2, bias=False), nn.Sigmoid())
    names = [name for name, _ in model.named_parameters()]
    expected = [name for name, _ in torch.nn.Sequential(
        torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2, bias=False),
        torch.nn.Sigmoid()).named_parameters()]
    assert names == expected == ["0.weight", "0.bias", "2.weight"]
    model(micrograd.randn(5, 3)).sum().backward()
    assert all(p.grad is not None for p in model.parameters())
    model.zero_grad()
    assert all(p.grad is None for p in model.parameters())


def test_state_dict_round_trip_and_mismatch():
    f64 = np.float64  # compared with a float64 torch model below
    a = nn.Sequential(nn.Linear(3, 4, dtype=f64), nn.ReLU(), nn.Linear(4, 2, dtype=f64))
    b = nn.Sequential(nn.Linear(3, 4, dtype=f64), nn.ReLU(), nn.Linear(4, 2, dtype=f64))
    b.load_state_dict(a.state_dict())
    x = micrograd.randn(5, 3, dtype=f64)
    np.testing.assert_array_equal(a(x).data, b(x).data)
    torch_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                      torch.nn.Linear(4, 2)).double()
    # state_dict() holds Tensors now, as torch's; torch takes their arrays
    torch_model.load_state_dict({k: torch.tensor(v.numpy()) for k, v in a.state_dict().items()})
    np.testing.assert_allclose(torch_model(torch.tensor(x.numpy())).detach().numpy(), a(x).data)
    with pytest.raises(KeyError, match="missing"):
        b.load_state_dict({"0.weight": np.zeros((4, 3))})


def test_custom_module_finds_nested_parameters():
    class Net(nn.Module):
        def __init__(self):
            self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
            self.heads = [nn.Linear(3, 1), nn.Linear(3, 1)]
            self.scale = micrograd.tensor(1.0, requires_grad=True)

        def forward(self, x):
            h = self.body(x)
            return (self.heads[0](h) + self.heads[1](h)) * self.scale

    net = Net()
    assert len(net.parameters()) == 2 + 2 + 2 + 1
    x = micrograd.randn(4, 2)
    net(x).sum().backward()
    # d/d(scale) of sum((head0 + head1) * scale) is sum(head0 + head1), computed apart
    with micrograd.no_grad():
        h = net.body(x)
        expected = (net.heads[0](h) + net.heads[1](h)).sum().item()
    assert net.scale.grad.item() == pytest.approx(expected, rel=1e-5)


def test_bridge_scalar_mlp_and_tensor_mlp_agree_to_1e_12():
    from micrograd.nn import MLP

    for activation in ("relu", "tanh", "sigmoid"):
        scalar = MLP(3, [4, 5, 2], activation=activation, rng=random.Random(7))
        tensor_mlp = nn.from_scalar_mlp(scalar)
        inputs = np.random.default_rng(1).standard_normal((6, 3))
        # scalar engine: loss = sum over samples of sum over outputs of out * k
        coefficients = [1.5, -0.5]
        total = 0.0
        outputs = []
        for row in inputs:
            out = scalar([float(v) for v in row])
            outputs.append([o.data for o in out])
            total = total + sum(o * k for o, k in zip(out, coefficients, strict=True))
        scalar.zero_grad()
        total.backward()
        out_t = tensor_mlp(micrograd.tensor(inputs))
        (out_t * micrograd.tensor(coefficients)).sum().backward()
        np.testing.assert_allclose(out_t.data, outputs, rtol=1e-12, atol=1e-12)
        linears = [m for m in tensor_mlp if isinstance(m, nn.Linear)]
        for layer, linear in zip(scalar.layers, linears, strict=True):
            w_grad = [[w.grad for w in n.w] for n in layer.neurons]
            b_grad = [n.b.grad for n in layer.neurons]
            np.testing.assert_allclose(linear.weight.grad, w_grad, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(linear.bias.grad, b_grad, rtol=1e-12, atol=1e-12)


def test_module_reprs_read_as_pytorch_prints_them():
    ours = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.Identity(),
                         nn.Linear(3, 1, bias=False))
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Tanh(),
                                 torch.nn.Sigmoid(), torch.nn.Identity(),
                                 torch.nn.Linear(3, 1, bias=False))
    assert repr(ours) == repr(theirs)


def test_bridge_leaves_the_default_generator_alone():
    from micrograd.nn import MLP

    scalar = MLP(3, [4, 1], rng=random.Random(0))
    micrograd.manual_seed(5)
    expected = micrograd.randn(3).data
    micrograd.manual_seed(5)
    nn.from_scalar_mlp(scalar)  # its weights are copied, so it has no reason to draw
    np.testing.assert_array_equal(micrograd.randn(3).data, expected)


# --- data ---------------------------------------------------------------------------------

def test_dataloader_visits_every_row_once_per_epoch_in_a_seeded_order():
    X = np.arange(10 * 2).reshape(10, 2).astype(np.float64)
    y = np.arange(10)
    loader = DataLoader(TensorDataset(X, y), batch_size=4, shuffle=True, seed=3)
    assert len(loader) == 3
    epoch1 = [yb.numpy().copy() for _, yb in loader]
    epoch2 = [yb.numpy().copy() for _, yb in loader]
    assert [len(b) for b in epoch1] == [4, 4, 2]
    assert sorted(np.concatenate(epoch1)) == list(range(10))
    assert not np.array_equal(np.concatenate(epoch1), np.concatenate(epoch2))
    again = DataLoader(TensorDataset(X, y), batch_size=4, shuffle=True, seed=3)
    np.testing.assert_array_equal(np.concatenate([yb.numpy() for _, yb in again]),
                                  np.concatenate(epoch1))
    for xb, yb in loader:  # the rows stay paired
        np.testing.assert_array_equal(xb.numpy()[:, 0], 2 * yb.numpy())


def test_dataloader_without_shuffle_keeps_order_and_can_drop_the_last_batch():
    loader = DataLoader((np.arange(7.0), np.arange(7)), batch_size=3, drop_last=True)
    assert len(loader) == 2
    assert [b[1].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]
    rows = [(np.float64(i), i) for i in range(5)]  # a plain list of samples is stacked
    assert [b[1].tolist() for b in DataLoader(rows, batch_size=2)] == [[0, 1], [2, 3], [4]]
    with pytest.raises(ValueError, match="same length"):
        TensorDataset(np.zeros(3), np.zeros(4))


# --- the same training script on both engines ----------------------------------------------

def train_script(torch, nn, F, X, y, initial_weights, steps=15, lr=0.3):
    """A small PyTorch training script; the micrograd twin runs it with other imports."""
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 8), nn.ReLU(),
                          nn.Linear(8, 3))
    for p, w in zip(model.parameters(), initial_weights, strict=True):
        p.data = torch.tensor(w).data
    inputs = torch.tensor(X)
    labels = torch.tensor(y)
    losses = []
    for _ in range(steps):
        logits = model(inputs)
        loss = F.cross_entropy(logits, labels) + 0.1 * F.mse_loss(logits.softmax(1).max(1).values,
                                                                  torch.tensor(np.ones(len(y))))
        model.zero_grad()
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p -= lr * p.grad
        losses.append(loss.item())
    accuracy = (model(inputs).argmax(dim=1) == labels).float().mean().item()
    return losses, accuracy


def test_a_pytorch_training_script_gives_the_same_losses_on_micrograd():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 4))
    y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5).astype(np.int64)
    shapes = [(8, 4), (8,), (8, 8), (8,), (3, 8), (3,)]
    weights = [rng.uniform(-0.5, 0.5, s) for s in shapes]
    torch_losses, torch_acc = train_script(torch, torch.nn, torch.nn.functional, X, y, weights)
    ours, our_acc = train_script(micrograd, nn, F, X, y, weights)
    np.testing.assert_allclose(ours, torch_losses, rtol=1e-10)
    assert our_acc == torch_acc
    assert torch_losses[-1] < torch_losses[0]  # it did train


# --- demos ------------------------------------------------------------------------------

def test_digits_demo_reaches_97_percent_with_a_fixed_seed(tmp_path, capsys):
    require_demo_extra()
    from micrograd.demos.tensor import run_demo

    assert run_demo("digits", out=str(tmp_path), seed=0) == 0
    printed = capsys.readouterr().out
    accuracy = float(printed.split("test accuracy ")[1].split("%")[0]) / 100
    assert accuracy >= 0.97
    assert "confusion matrix" in printed
    assert (tmp_path / "digits_misclassified.png").stat().st_size > 1000


def test_digits_accuracy_is_computed_against_the_held_out_labels():
    from micrograd.demos.digits import confusion_matrix, format_confusion

    text = format_confusion(confusion_matrix(np.array([0, 1, 1, 2]), np.array([0, 1, 2, 2]),
                                             classes=3))
    rows = [line.split() for line in text.splitlines()[2:]]
    assert rows == [["0", "1", "0", "0"], ["1", "0", "1", "1"], ["2", "0", "0", "1"]]


def test_misclassified_picture_says_how_many_it_leaves_out(tmp_path, monkeypatch):
    from conftest import require_module

    Figure = require_module("matplotlib.figure").Figure

    from micrograd.demos.digits import save_misclassified

    titles = []
    original = Figure.suptitle
    monkeypatch.setattr(Figure, "suptitle",
                        lambda fig, text, **kw: (titles.append(text), original(fig, text, **kw))[1])
    true = np.zeros(50, dtype=int)
    images = np.zeros((50, 8, 8))
    save_misclassified(images, true, np.ones(50, dtype=int), str(tmp_path / "50.png"))
    three_wrong = np.r_[np.ones(3, dtype=int), true[3:]]
    save_misclassified(images, true, three_wrong, str(tmp_path / "3.png"))
    assert "(the first 40 of 50)" in titles[0]  # 50 wrong, 40 drawn
    assert "(3)" in titles[1]


def test_demo_pictures_leave_the_callers_matplotlib_backend_alone(tmp_path):
    from conftest import require_module

    from micrograd.demos.digits import save_misclassified
    from micrograd.demos.tensor import _run_moons

    matplotlib = require_module("matplotlib")
    before = matplotlib.get_backend()
    matplotlib.use("svg")  # a notebook's inline backend, say: the demos must not switch it
    try:
        _run_moons(out=str(tmp_path), steps=1, seed=1337, verbose=False)
        save_misclassified(np.zeros((2, 8, 8)), np.array([0, 1]), np.array([1, 1]),
                           str(tmp_path / "digits.png"))
        assert matplotlib.get_backend() == "svg"
    finally:
        matplotlib.use(before)
    assert (tmp_path / "moons_tensor_boundary.png").read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "digits.png").read_bytes()[:4] == b"\x89PNG"


def test_moons_on_the_tensor_engine_matches_the_scalar_engine_step_by_step(tmp_path):
    require_demo_extra()
    from sklearn.datasets import make_moons

    from micrograd.demos.tensor import _run_moons
    from micrograd.engine import Value
    from micrograd.nn import MLP

    steps = 8
    tensor_losses = _run_moons(out=str(tmp_path), steps=steps, seed=1337, verbose=False).losses
    assert (tmp_path / "moons_tensor_boundary.png").exists()
    # the notebook's loop on the scalar engine, same seeds
    np.random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1
    random.seed(1337)
    model = MLP(2, [16, 16, 1])
    scalar_losses = []
    for k in range(steps):
        scores = [model([Value(a), Value(b)]) for a, b in X]
        losses = [(1 + -int(yi) * s).relu() for yi, s in zip(y, scores, strict=True)]
        data_loss = sum(losses) * (1.0 / len(losses))
        total = data_loss + 1e-4 * sum(p * p for p in model.parameters())
        model.zero_grad()
        total.backward()
        for p in model.parameters():
            p.data -= (1.0 - 0.9 * k / steps) * p.grad  # the notebook's 100 is its step count
        scalar_losses.append(total.data)
    np.testing.assert_allclose(tensor_losses, scalar_losses, rtol=1e-10)
    assert abs(tensor_losses[0] - 0.8958441) < 1e-6  # the notebook's published step-0 loss


def test_moons_demo_losses_are_the_same_on_both_engines_for_any_step_count(tmp_path):
    require_demo_extra()
    from micrograd import demos as scalar_demos
    from micrograd.demos.tensor import train_moons

    # 8 steps, not the notebook's 100: the learning rate decays over the run's own length
    tensor_losses = train_moons(steps=8, seed=1337).losses  # one contract for both engines
    scalar_losses = scalar_demos.train_moons(steps=8, seed=1337).losses
    np.testing.assert_allclose(tensor_losses, scalar_losses, rtol=1e-10)


def test_demo_names_and_steps_are_checked(capsys):
    from micrograd.demos.tensor import run_demo

    assert run_demo("xor") == 2
    assert run_demo("digits", steps=0) == 2
    assert "digits" in capsys.readouterr().err


def test_set_num_threads_limits_blas_and_checks_its_argument():
    before = micrograd.tensors.get_num_threads()
    try:
        micrograd.tensors.set_num_threads(1)
        assert micrograd.tensors.get_num_threads() == 1
    finally:
        micrograd.tensors.set_num_threads(before)
    with pytest.raises(ValueError, match="positive int"):
        micrograd.tensors.set_num_threads(0)


def test_matrix_products_refuse_mixed_dtypes_as_torch():
    # numpy would quietly compute float32 @ float64 in float64; PyTorch refuses, and so do we.
    x32 = np.ones((4, 2), dtype=np.float32)
    w64 = np.ones((3, 2))
    with pytest.raises(RuntimeError):
        torch.nn.functional.linear(torch.from_numpy(x32), torch.from_numpy(w64))
    with pytest.raises(RuntimeError):
        torch.from_numpy(x32) @ torch.from_numpy(w64.T.copy())
    layer = nn.Linear(2, 3, dtype=np.float64)  # float64 parameters
    with pytest.raises(TypeError, match=r"float32 and float64.*model\.float\(\)"):
        layer(micrograd.tensor(x32))
    with pytest.raises(TypeError, match="float32 and float64"):
        micrograd.tensor(x32) @ micrograd.tensor(w64.T)
    with pytest.raises(TypeError, match="linear_relu"):
        nn.Sequential(nn.Linear(2, 3, dtype=np.float64), nn.ReLU())(micrograd.tensor(x32))
    assert layer.float()(micrograd.tensor(x32)).dtype == np.float32
    assert layer([[1, 2]]).dtype == np.float32  # a list takes the model's dtype


def test_tensor_moons_demo_prints_and_draws_what_the_scalar_demo_does(tmp_path, capsys):
    require_demo_extra()
    from micrograd.cli import main

    assert main(["demo", "moons", "--steps", "20", "--out", str(tmp_path / "scalar")]) == 0
    scalar = capsys.readouterr().out.splitlines()
    assert main(["demo", "moons", "--engine", "tensor", "--steps", "20",
                 "--out", str(tmp_path / "tensor")]) == 0
    tensor = capsys.readouterr().out.splitlines()
    assert tensor[0].startswith("moons: ") and "Tensor engine" in tensor[0]
    assert "20 steps, seed 1337" in tensor[0]

    def summary(lines):
        return [line for line in lines if line.startswith(("step", "final"))]

    assert len(summary(tensor)) == 12  # steps 0, 2, ..., 18, the last one, the final line
    assert summary(tensor) == summary(scalar)  # the same weights, so the same numbers
    for png in ("moons_tensor_boundary.png", "moons_tensor_loss.png"):
        assert (tmp_path / "tensor" / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"wrote {tmp_path / 'tensor' / png}" in tensor
