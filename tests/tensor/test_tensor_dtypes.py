"""dtypes as PyTorch 2.13 has them: type promotion in the arithmetic ops, the default dtype in
every factory, reductions over dim=(), and a clear word that the engine runs on the CPU only."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import require_module

import micrograd
import micrograd.tensors

torch = require_module("torch")  # twins of torch: the module skips without it

DTYPES = {"float32": (np.float32, torch.float32), "float64": (np.float64, torch.float64),
          "int64": (np.int64, torch.int64), "bool": (np.bool_, torch.bool)}
OPS = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
       "/": lambda a, b: a / b, "**": lambda a, b: a ** b}


@pytest.fixture(params=["float64", "float32"])
def default_dtype(request):
    """Run a test with the same default dtype in micrograd and torch, then restore both."""
    ours, theirs = micrograd.tensors.get_default_dtype(), torch.get_default_dtype()
    micrograd.tensors.set_default_dtype(DTYPES[request.param][0])
    torch.set_default_dtype(DTYPES[request.param][1])
    yield request.param
    micrograd.tensors.set_default_dtype(ours)
    torch.set_default_dtype(theirs)


def operands():
    """(label, micrograd operand, torch operand): 0-d and 1-d tensors of each dtype, and
    Python numbers, which PyTorch treats as weaker than any tensor."""
    for name, (np_dtype, torch_dtype) in DTYPES.items():
        for shape_label, values in (("0-d", 1), ("1-d", [1, 2])):
            data = np.array(values).astype(np_dtype)
            yield (f"{shape_label} {name}", micrograd.tensor(data),
                   torch.tensor(values, dtype=torch_dtype))
    for number in (2, 2.0, True):
        yield f"Python {number!r}", number, number


def outcome(op, a, b) -> str:
    """The result's dtype name, or 'error' when the op refuses the operands."""
    try:
        result = op(a, b)
    except (RuntimeError, TypeError, ValueError):  # torch says RuntimeError for shapes
        return "error"
    return str(result.dtype).replace("torch.", "")


@pytest.mark.parametrize("op_name", OPS)
def test_binary_ops_promote_dtypes_as_torch(op_name, default_dtype):
    op = OPS[op_name]
    mismatches = []
    for (label_a, ours_a, torch_a), (label_b, ours_b, torch_b) in itertools.product(
            operands(), repeat=2):
        if not isinstance(ours_a, micrograd.Tensor) and not isinstance(ours_b, micrograd.Tensor):
            continue  # two Python numbers: plain Python arithmetic
        expected, got = outcome(op, torch_a, torch_b), outcome(op, ours_a, ours_b)
        if got != expected:
            mismatches.append(f"{label_a} {op_name} {label_b}: torch {expected}, ours {got}")
    assert not mismatches, "\n".join(mismatches)


def test_the_audits_two_cases_keep_float32():
    x = micrograd.tensor(np.float32([1, 2]))
    assert (x + micrograd.tensor([1, 2])).dtype == np.float32  # a float tensor with an int one
    assert (x + micrograd.tensor(1.0)).dtype == np.float32  # a 0-d float64 does not promote


def test_promoted_op_sends_gradients_back_in_each_inputs_dtype():
    x = micrograd.tensor(np.float32([1.0, 2.0]), requires_grad=True)
    w = micrograd.tensor(3.0, dtype=np.float64, requires_grad=True)  # 0-d float64: stays float32
    tx = torch.tensor([1.0, 2.0], dtype=torch.float32, requires_grad=True)
    tw = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    (x * w).sum().backward()
    (tx * tw).sum().backward()
    assert (x * w).dtype == np.float32 and x.grad.dtype == np.float32
    assert w.grad.dtype == np.float64 and w.grad.shape == ()
    np.testing.assert_allclose(x.grad, tx.grad.numpy())
    np.testing.assert_allclose(w.grad, tw.grad.numpy())


def test_matrix_products_still_refuse_mixed_dtypes():
    with pytest.raises(TypeError, match="dtypes"):
        micrograd.tensor(np.float32([[1.0]])) @ micrograd.tensor(np.float64([[1.0]]))


# --- the default dtype in every factory -------------------------------------------------------

FACTORIES = {  # name: (micrograd call, torch call), each given the library as `m`
    "tensor([1.5, 2])": lambda m: m.tensor([1.5, 2]),
    "tensor(2.5)": lambda m: m.tensor(2.5),
    "tensor([1, 2])": lambda m: m.tensor([1, 2]),
    "tensor(True)": lambda m: m.tensor(True),
    "tensor(float64 array)": lambda m: m.tensor(np.zeros(2)),
    "tensor(float32 array)": lambda m: m.tensor(np.zeros(2, np.float32)),
    "zeros(2, 3)": lambda m: m.zeros(2, 3),
    "ones((2,))": lambda m: m.ones((2,)),
    "zeros(2, dtype=int64)": lambda m: m.zeros(2, dtype=m.int64),
    "randn(2)": lambda m: m.randn(2),
    "rand(2)": lambda m: m.rand(2),
    "arange(3)": lambda m: m.arange(3),
    "arange(3.0)": lambda m: m.arange(3.0),
    "arange(0, 1, 0.25)": lambda m: m.arange(0, 1, 0.25),
    "arange(1, 7, 2)": lambda m: m.arange(1, 7, 2),
    "arange(3, dtype=float32)": lambda m: m.arange(3, dtype=m.float32),
    "zeros_like(int tensor)": lambda m: m.zeros_like(m.tensor([1, 2])),
    "ones_like(float32 tensor)": lambda m: m.ones_like(m.tensor(np.ones(2, np.float32))),
    "Linear(2, 3).weight": lambda m: (m.tensors.nn if m is micrograd else m.nn).Linear(2, 3).weight,
    "int tensor * 0.5": lambda m: m.tensor([1, 2]) * 0.5,
    "int tensor / int tensor": lambda m: m.tensor([1, 2]) / m.tensor([2, 2]),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_every_factory_follows_the_default_dtype_as_torch(name, default_dtype):
    ours = FACTORIES[name](micrograd)
    theirs = FACTORIES[name](torch)
    assert str(ours.dtype) == str(theirs.dtype)


# --- reductions over dim=() -------------------------------------------------------------------

@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("dim", [(), []])
def test_an_empty_dim_reduces_over_every_dimension_as_torch(reduction, dim, keepdim):
    data = np.arange(6.0).reshape(2, 3)
    x = micrograd.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    ours = getattr(x, reduction)(dim=dim, keepdim=keepdim)
    theirs = getattr(tx, reduction)(dim=dim, keepdim=keepdim)
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.data, theirs.detach().numpy())
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy())


# --- the CPU is the only device ---------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda t: t.to("cuda"), lambda t: t.to("cuda:0"), lambda t: t.to("mps"),
    lambda t: t.to(device="cuda"), lambda t: t.cuda(),
])
def test_other_devices_are_refused_with_a_clear_error(call):
    t = micrograd.tensor([1.0, 2.0])
    model = micrograd.tensors.nn.Linear(2, 1)
    for target in (t, model):
        with pytest.raises(RuntimeError, match="CPU only"):
            call(target)


def test_the_cpu_device_changes_nothing_and_dtypes_still_convert():
    t = micrograd.tensor([1.0, 2.0])
    assert t.to("cpu") is t and t.cpu() is t and t.device == "cpu"
    assert t.to("cpu", micrograd.float32).dtype == np.float32
    assert t.to(device="cpu", dtype=micrograd.float32).dtype == np.float32
    assert t.to(micrograd.tensor([1, 2])).dtype == np.int64  # to(other): other's dtype
    assert micrograd.device("cpu") == "cpu" and not micrograd.cuda.is_available()
    model = micrograd.tensors.nn.Linear(2, 1)
    assert model.to("cpu") is model and model.cpu() is model
    assert model.to("cpu", micrograd.float32).weight.dtype == np.float32
    with pytest.raises(TypeError, match="dtype"):
        t.to("nonsense")


def test_to_takes_non_blocking_and_copy_as_torch():
    # `x.to(device, non_blocking=True)` is common in training loops
    for lib in (torch, micrograd):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        assert x.to("cpu", non_blocking=True) is x
        y = x.to("cpu", copy=True)
        assert y is not x and y.requires_grad
        (y * 3).sum().backward()
        assert np.array_equal(np.asarray(x.grad), [3.0, 3.0])  # the copy passes gradients
    model = micrograd.tensors.nn.Linear(2, 1)
    assert model.to("cpu", non_blocking=True) is model


# --- ops that combine several tensors promote the same way ------------------------------------

COMBINING = {
    "cat": lambda m, a, b: m.cat([a, b]),
    "stack": lambda m, a, b: m.stack([a, b]),
    "mse_loss": lambda m, a, b: (m.tensors.functional if m is micrograd
                                 else torch.nn.functional).mse_loss(a, b),
}


@pytest.mark.parametrize("op_name", COMBINING)
def test_cat_stack_and_mse_loss_promote_as_torch(op_name):
    op = COMBINING[op_name]
    mismatches = []
    for (name_a, (np_a, torch_a)), (name_b, (np_b, torch_b)), shape in itertools.product(
            DTYPES.items(), DTYPES.items(), [(3,), ()]):  # 0-d too: stack takes scalars
        if op_name == "mse_loss" and "float" not in name_a:
            continue  # the input is a float prediction
        ours = outcome(lambda a, b: op(micrograd, a, b), micrograd.tensor(np.ones(shape, np_a)),
                       micrograd.tensor(np.ones(shape, np_b)))
        theirs = outcome(lambda a, b: op(torch, a, b), torch.ones(shape, dtype=torch_a),
                         torch.ones(shape, dtype=torch_b))
        if ours != theirs:
            mismatches.append(f"{op_name}({name_a}, {name_b}, shape {shape}): torch {theirs}, "
                              f"ours {ours}")
    assert not mismatches, "\n".join(mismatches)


@pytest.mark.parametrize("factory", [
    lambda m, d: m.tensor([1.0], device=d), lambda m, d: m.zeros(2, device=d),
    lambda m, d: m.ones(2, device=d), lambda m, d: m.randn(2, device=d),
    lambda m, d: m.rand(2, device=d), lambda m, d: m.arange(3, device=d),
    lambda m, d: m.zeros_like(m.tensor([1.0]), device=d),
    lambda m, d: m.ones_like(m.tensor([1.0]), device=d),
])
def test_factories_take_device_cpu_and_refuse_cuda(factory):
    assert factory(micrograd, "cpu").shape == tuple(factory(torch, "cpu").shape)
    with pytest.raises(RuntimeError, match="CPU only"):
        factory(micrograd, "cuda")
