"""The names real scripts reach for (torch.backends, amp, distributed, accelerator,
utils.data's samplers, nn.utils clipping, random_(), autograd.grad) and autograd's rules
(retain_graph, set_grad_enabled, grad-mode decorators, .grad checks), each against real
torch 2.13; and the one error for a torch name micrograd lacks."""

from __future__ import annotations

import importlib
import sys
import warnings

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch import _facade, runner

torch = require_module("torch")

# -- autograd rules ----------------------------------------------------------------------


def second_backward(lib, build):
    """What a second backward() without retain_graph does: 'ok' or the error's text."""
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = build(x)
    y.backward()
    try:
        y.backward()
    except RuntimeError as error:
        return str(error)
    return f"ok {x.grad.tolist()}"


GRAPHS = {
    "sum of a sum": lambda x: (x + 1).sum(),
    "product with a number": lambda x: (x * 3).sum(),
    "mean of a reshape": lambda x: x.reshape(3, 1).mean(),
    "square": lambda x: (x * x).sum(),
    "exp": lambda x: x.exp().sum(),
    "tanh then sum": lambda x: x.tanh().sum(),
    "matmul": lambda x: x @ x,
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_a_second_backward_without_retain_graph_does_what_torch_does(name):
    assert second_backward(mt, GRAPHS[name]) == second_backward(torch, GRAPHS[name])


def test_retain_graph_allows_a_second_pass_that_accumulates_as_torch():
    results = []
    for lib in (mt, torch):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = (x * x).exp().sum()
        y.backward(retain_graph=True)
        y.backward()
        results.append(x.grad.tolist())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_create_graph_is_the_one_not_supported_error():
    x = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(_facade.NotSupportedByMicrograd, match="not supported by micrograd"):
        (x * x).sum().backward(create_graph=True)


def autograd_grad(lib):
    x = lib.tensor([0.5, -1.0], requires_grad=True)
    z = lib.tensor([2.0], requires_grad=True)
    x.grad = lib.tensor([10.0, 10.0])
    h = x * 3
    y = (h * h).sum() + x.tanh().sum()
    gx, gh = lib.autograd.grad(y, [x, h], retain_graph=True)
    unused = lib.autograd.grad(y, [x, z], allow_unused=True, retain_graph=True)[1]
    zeros = lib.autograd.grad(y, [z], allow_unused=True, materialize_grads=True,
                              retain_graph=True)[0]
    try:
        lib.autograd.grad(y, [x, z])
    except RuntimeError as error:
        refused = str(error)
    return gx.tolist(), gh.tolist(), x.grad.tolist(), unused, zeros.tolist(), refused


def test_autograd_grad_returns_gradients_and_leaves_dot_grad_alone():
    ours, theirs = autograd_grad(mt), autograd_grad(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-6)
    assert ours[2:] == theirs[2:]


def grad_modes(lib):
    x = lib.tensor([1.0], requires_grad=True)
    seen = []
    lib.set_grad_enabled(False)  # as a call: stays off until switched back
    seen.append(((x * 2).requires_grad, lib.is_grad_enabled()))
    lib.set_grad_enabled(True)
    with lib.set_grad_enabled(False):
        seen.append((x * 2).requires_grad)
    seen.append((x * 2).requires_grad)

    @lib.no_grad()
    def numbers():
        yield (x * 2).requires_grad
        yield (x * 2).requires_grad

    generator = numbers()
    seen.append((next(generator), lib.is_grad_enabled(), next(generator)))

    @lib.set_grad_enabled(False)
    def off():
        return (x * 2).requires_grad

    seen.append((lib.is_grad_enabled(), off(), lib.is_grad_enabled()))

    @lib.no_grad
    def bare():
        return (x * 2).requires_grad

    seen.append(bare())
    with lib.no_grad(), lib.enable_grad():
        seen.append((x * 2).requires_grad)
    return seen


def test_grad_modes_as_calls_blocks_and_decorators_match_torch():
    assert grad_modes(mt) == grad_modes(torch)


@pytest.mark.parametrize("value", [0.0, [1.0, 2.0], "zeros(2)", "float64", "int64"])
def test_grad_assignment_is_checked_as_torch(value):
    outcomes = []
    for lib in (mt, torch):
        p = lib.zeros(3, requires_grad=True)
        made = {"zeros(2)": ((2,), lib.float32), "float64": ((3,), lib.float64),
                "int64": ((3,), lib.int64)}
        new = lib.zeros(*made[value][0], dtype=made[value][1]) if isinstance(
            value, str) else value
        try:
            p.grad = new
            outcomes.append("ok")
        except (TypeError, RuntimeError) as error:
            outcomes.append(type(error).__name__)
            if isinstance(error, TypeError):
                assert str(error).startswith("assigned grad expected to be a Tensor or None")
    assert outcomes[0] == outcomes[1] != "ok"


# -- random_, clipping ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32",
                                   "int16", "int8", "uint8", "bool"])
def test_random_without_bounds_draws_torchs_numbers(dtype):
    values = []
    for lib in (mt, torch):
        lib.manual_seed(11)
        values.append(lib.empty(50, dtype=getattr(lib, dtype)).random_().tolist()
                      + lib.rand(2).tolist())  # the stream goes on where torch's does
    assert values[0] == values[1]


def clipped(lib, max_norm, norm_type):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
    model(lib.randn(5, 4)).pow(2).sum().backward()
    total = lib.nn.utils.clip_grad_norm_(model.parameters(), max_norm, norm_type=norm_type)
    return total.item(), [p.grad.tolist() for p in model.parameters()]


@pytest.mark.parametrize("max_norm, norm_type", [(0.5, 2.0), (100.0, 2.0), (0.1, 1.0),
                                                 (0.2, float("inf"))])
def test_clip_grad_norm_scales_as_torch(max_norm, norm_type):
    (ours, our_grads), (theirs, their_grads) = (clipped(mt, max_norm, norm_type),
                                                clipped(torch, max_norm, norm_type))
    assert ours == pytest.approx(theirs, rel=1e-6)
    for a, b in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-7)


def test_clip_grad_value_clamps_as_torch():
    grads = []
    for lib in (mt, torch):
        p = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        (p * lib.tensor([-5.0, 0.1, 7.0])).sum().backward()
        lib.nn.utils.clip_grad_value_([p], 1.5)
        grads.append(p.grad.tolist())
    assert grads[0] == grads[1]


# -- utils.data: samplers and the loader's arguments --------------------------------------

def sampled(lib):
    data = list(range(10))
    u = lib.utils.data
    lib.manual_seed(3)
    g = lib.Generator().manual_seed(9)
    out = [
        list(u.RandomSampler(data)),
        list(u.RandomSampler(data, generator=g)),
        list(u.RandomSampler(data, replacement=True, num_samples=40)),
        list(u.RandomSampler(data, num_samples=23)),
        list(u.SequentialSampler(data)),
        list(u.BatchSampler(u.SequentialSampler(data), 4, drop_last=False)),
        list(u.BatchSampler(range(10), 3, drop_last=True)),
        list(u.SubsetRandomSampler([2, 4, 6, 8], generator=g)),
        [b.tolist() for b in u.DataLoader(data, batch_size=3, shuffle=True, drop_last=True)],
        [b.tolist() for b in u.DataLoader(
            data, batch_sampler=u.BatchSampler(u.RandomSampler(data), 4, False))],
        list(u.DataLoader(data, batch_size=4, collate_fn=sum)),
        lib.rand(3).tolist(),
    ]
    return out


def test_samplers_and_loader_arguments_draw_torchs_order_and_stream():
    assert sampled(mt) == sampled(torch)


@pytest.mark.parametrize("kwargs", [dict(sampler=[0, 1], shuffle=True),
                                    dict(batch_sampler=[[0]], batch_size=2),
                                    dict(batch_sampler=[[0]], drop_last=True),
                                    dict(batch_size=None, drop_last=True)])
def test_loader_argument_conflicts_raise_torchs_error(kwargs):
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DataLoader(list(range(4)), **kwargs)
    with pytest.raises(ValueError) as ours:
        mt.utils.data.DataLoader(list(range(4)), **kwargs)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("path", ["torch.utils.data.dataset", "torch.utils.data.dataloader",
                                  "torch.utils.data.sampler", "torch.backends.cudnn",
                                  "torch.backends.cuda", "torch.backends.mps", "torch.amp",
                                  "torch.cuda.amp", "torch.distributed", "torch.nn.parallel",
                                  "torch.nn.utils", "torch.nn.utils.clip_grad",
                                  "torch.accelerator"])
def test_torchs_submodule_paths_import(path):
    importlib.import_module(path)  # a real torch path, not one we made up
    importlib.import_module("micrograd." + path)


# -- the CPU world: backends, amp, distributed, accelerator, default device ----------------

def test_backend_flags_are_settable_as_in_torch():
    for lib in (mt, torch):
        lib.backends.cuda.matmul.allow_tf32 = True
        lib.backends.cudnn.allow_tf32 = True
        lib.backends.cudnn.benchmark = False
        assert lib.backends.mps.is_available() is False
        assert lib.backends.cudnn.deterministic is False


def test_grad_scaler_disabled_passes_through_and_cuda_scaler_disables_itself():
    p = mt.tensor([1.0, 2.0], requires_grad=True)
    optimizer = mt.optim.SGD([p], lr=0.5)
    scaler = mt.amp.GradScaler("cpu", enabled=False)
    loss = (p * p).sum()
    assert scaler.scale(loss) is loss and scaler.get_scale() == 1.0
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    assert p.tolist() == [0.0, 0.0] and scaler.state_dict() == {}
    with pytest.warns(UserWarning, match="CUDA is not available"):
        cuda_scaler = mt.cuda.amp.GradScaler()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert cuda_scaler.is_enabled() is torch.cuda.amp.GradScaler().is_enabled() is False


def test_real_loss_scaling_on_the_cpu_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="enabled=False"):
        mt.amp.GradScaler("cpu", enabled=True)


def test_autocast_changes_nothing_here():
    x = mt.ones(2, 2)
    with pytest.warns(UserWarning, match="CUDA is not available"):
        block = mt.amp.autocast(device_type="cuda", dtype=mt.float16)
    with block:
        assert (x @ x).dtype == np.float32
    with mt.autocast("cpu", enabled=False):
        assert (x @ x).dtype == np.float32


def test_distributed_and_parallel_are_importable_but_never_available():
    assert mt.distributed.is_available() is False and mt.distributed.is_initialized() is False
    from micrograd.torch.distributed import destroy_process_group, init_process_group
    from micrograd.torch.nn.parallel import DistributedDataParallel
    for call in (lambda: init_process_group(backend="gloo"), destroy_process_group,
                 lambda: DistributedDataParallel(mt.nn.Linear(1, 1))):
        with pytest.raises(RuntimeError, match=r"single process|one device"):
            call()


def test_default_device_and_accelerator_say_cpu():
    mt.set_default_device("cpu")
    mt.set_default_device(None)
    assert mt.accelerator.is_available() is False
    assert mt.accelerator.current_accelerator() is None
    with pytest.raises(RuntimeError, match="CPU only"):
        mt.set_default_device("cuda")


def test_summary_writer_without_tensorboard_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "tensorboard", None)  # as if not installed
    from micrograd.torch.utils.tensorboard import SummaryWriter

    with pytest.raises(ModuleNotFoundError, match="pip install tensorboard"):
        SummaryWriter(log_dir=str(tmp_path))


# -- one error for every torch name we lack --------------------------------------------------

MISSING_ATTRIBUTES = ["torch.fft", "torch.compile", "torch.nn.Conv2d", "torch.nn.Transformer",
                      "torch.nn.functional.conv2d", "torch.optim.LBFGS",
                      "torch.utils.data.IterableDataset", "torch.distributions"]
MISSING_METHODS = [("Tensor", "stride"), ("Tensor", "storage_offset"),
                   ("Tensor", "register_hook"), ("Module", "compile"),
                   ("Module", "register_forward_hook")]
MISSING_MODULES = ["torch.distributions", "torch.fx", "torch.utils.checkpoint", "torch.onnx"]


def resolve(root, dotted):
    obj = root
    for part in dotted.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@pytest.mark.parametrize("dotted", MISSING_ATTRIBUTES)
def test_a_missing_torch_attribute_is_the_one_error(dotted):
    resolve(torch, dotted)  # torch has it
    with pytest.raises(_facade.UnsupportedTorchName) as missing:
        resolve(mt, dotted)
    assert isinstance(missing.value, AttributeError)
    assert f"{dotted} is not supported by micrograd.torch (yet)" in str(missing.value)
    assert "docs/torch.md" in str(missing.value)


@pytest.mark.parametrize("owner, name", MISSING_METHODS)
def test_a_missing_torch_method_is_the_one_error_and_a_typo_is_not(owner, name):
    real = torch.zeros(1) if owner == "Tensor" else torch.nn.Linear(1, 1)
    ours = mt.zeros(1) if owner == "Tensor" else mt.nn.Linear(1, 1)
    getattr(real, name)
    with pytest.raises(_facade.UnsupportedTorchName, match="not supported by micrograd"):
        getattr(ours, name)
    with pytest.raises(AttributeError) as typo:
        getattr(ours, name + "_typo")
    assert not isinstance(typo.value, _facade.NotSupportedByMicrograd)


@pytest.mark.parametrize("module", MISSING_MODULES)
def test_a_missing_torch_module_import_is_the_one_error(module):
    importlib.import_module(module)  # real torch has it
    saved = {name: sys.modules.pop(name) for name in list(sys.modules)
             if name == "torch" or name.startswith("torch.")}
    finder = runner.TorchAliasFinder()
    sys.meta_path.insert(0, finder)
    try:
        with pytest.raises(_facade.UnsupportedTorchModule) as missing:
            importlib.import_module(module)
        assert isinstance(missing.value, ModuleNotFoundError)
        assert "not supported by micrograd.torch (yet)" in str(missing.value)
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
            del sys.modules[name]
        sys.modules.update(saved)
