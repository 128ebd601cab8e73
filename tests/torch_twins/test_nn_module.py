"""nn.Module as torch's: registration, names, state_dict, modes, repr -- against torch."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch import nn

torch = require_module("torch")


def build(lib):
    """The same nested model with either library: containers, buffers, a bare Parameter."""

    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = lib.nn.Embedding(10, 4)
            self.blocks = lib.nn.ModuleList([lib.nn.Linear(4, 4), lib.nn.Linear(4, 4, bias=False)])
            self.norm = lib.nn.BatchNorm1d(4)
            self.heads = lib.nn.ModuleDict({"a": lib.nn.Linear(4, 2), "b": lib.nn.Sequential(
                lib.nn.Linear(4, 3), lib.nn.GELU(), lib.nn.Dropout(0.1), lib.nn.LayerNorm(3))})
            self.scale = lib.nn.Parameter(lib.ones(1))
            self.register_buffer("step", lib.zeros(1))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)

        def forward(self, idx):
            h = self.embed(idx)
            for block in self.blocks:
                h = block(h).tanh()
            h = self.norm(h)
            return self.heads["a"](h) * self.scale

    return Net()


def test_names_and_orders_of_parameters_buffers_modules_and_state_dict_match_torch():
    ours, theirs = build(mt), build(torch)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    shapes = {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert {k: tuple(v.shape) for k, v in ours.state_dict().items()} == shapes
    assert len(list(ours.modules())) == len(list(theirs.modules()))
    assert len(list(ours.children())) == len(list(theirs.children()))


def test_module_repr_is_torchs():
    assert repr(build(mt)) == repr(build(torch))
    for make in (lambda lib: lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Flatten(),
                                               lib.nn.Softmax(dim=1), lib.nn.Identity()),
                 lambda lib: lib.nn.Embedding(5, 2, padding_idx=0),
                 lambda lib: lib.nn.BatchNorm1d(3, momentum=None, affine=False),
                 lambda lib: lib.nn.CrossEntropyLoss()):
        assert repr(make(mt)) == repr(make(torch))


def test_state_dict_shares_memory_and_loads_from_torch_tensors():
    ours, theirs = build(mt), build(torch)
    ours.load_state_dict(theirs.state_dict())
    for (name, ours_value), theirs_value in zip(ours.state_dict().items(),
                                                theirs.state_dict().values(), strict=True):
        np.testing.assert_array_equal(ours_value.numpy(), theirs_value.numpy(), err_msg=name)
    state = ours.state_dict()
    state["embed.weight"].numpy()[0, 0] = 123.0  # a view of the parameter, as torch's
    assert ours.embed.weight.data[0, 0] == 123.0


def test_load_state_dict_errors_name_missing_unexpected_and_mismatched_keys():
    model = nn.Sequential(nn.Linear(3, 2))
    with pytest.raises(RuntimeError, match=r'Missing key\(s\) in state_dict: "0.bias"'):
        model.load_state_dict({"0.weight": np.zeros((2, 3))})
    with pytest.raises(RuntimeError, match=r'Unexpected key\(s\) in state_dict: "extra"'):
        model.load_state_dict({"0.weight": np.zeros((2, 3)), "0.bias": np.zeros(2),
                               "extra": np.zeros(1)})
    with pytest.raises(RuntimeError, match=r"size mismatch for 0.weight.*\(3, 3\).*\(2, 3\)"):
        model.load_state_dict({"0.weight": np.zeros((3, 3)), "0.bias": np.zeros(2)})
    result = model.load_state_dict({"0.weight": np.ones((2, 3)), "x": np.zeros(1)}, strict=False)
    assert result.missing_keys == ["0.bias"] and result.unexpected_keys == ["x"]
    assert model[0].weight.data.sum() == 6.0
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 2))
    twin = theirs.load_state_dict({"0.weight": torch.ones(2, 3), "x": torch.zeros(1)}, strict=False)
    assert ((twin.missing_keys, twin.unexpected_keys)
            == (result.missing_keys, result.unexpected_keys))


def test_train_eval_apply_requires_grad_zero_grad_and_to():
    model = build(mt)
    model.eval()
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    theirs = []
    build(torch).apply(lambda m: theirs.append(type(m).__name__))
    assert seen == theirs
    model.requires_grad_(False)
    assert not any(p.requires_grad for p in model.parameters())
    model.requires_grad_(True)
    weight = model.heads["a"].weight
    model(mt.tensor(np.array([1, 2, 3]))).sum().backward()
    assert weight.grad is not None
    model.zero_grad(set_to_none=False)
    assert weight.grad is not None and not weight.grad.numpy().any()
    model.zero_grad()
    assert weight.grad is None
    model.to(mt.float32)
    assert weight is model.heads["a"].weight and weight.dtype == np.float32
    assert model.step.dtype == np.float32  # buffers move too
    model.double()
    assert all(p.dtype == np.float64 for p in model.parameters())


def test_parameter_registration_rules():
    model = nn.Module()
    model.w = nn.Parameter(mt.zeros(2))
    assert isinstance(model.w, nn.Parameter) and model.w.requires_grad
    with pytest.raises(TypeError, match="cannot assign 'int' as parameter 'w'"):
        model.w = 3
    model.w = None
    assert model.parameters() == []
    with pytest.raises(AttributeError, match="'Module' object has no attribute 'missing'"):
        _ = model.missing
    shared = mt.tensor([1.0, 2.0])
    p = nn.Parameter(shared)
    p.data[0] = 9.0  # shares memory with the tensor it was made from, as torch's
    assert shared.data[0] == 9.0
    assert not isinstance(shared, nn.Parameter) and isinstance(p, mt.Tensor)


def test_containers_index_len_append_and_slices():
    seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
    seq.append(nn.Tanh())
    assert len(seq) == 3 and isinstance(seq[-1], nn.Tanh)
    assert isinstance(seq[1:], nn.Sequential) and len(seq[1:]) == 2
    assert [n for n, _ in seq.named_children()] == ["0", "1", "2"]
    layers = nn.ModuleList([nn.Linear(1, 1)])
    layers.append(nn.Linear(1, 1))
    layers += [nn.Linear(1, 1)]
    assert len(layers) == 3 and len(layers.parameters()) == 6
    heads = nn.ModuleDict({"x": nn.Linear(1, 1)})
    heads["y"] = nn.Linear(1, 2)
    assert list(heads.keys()) == ["x", "y"] and "y" in heads
    with pytest.raises(TypeError, match=r"must be an nn\.Module, got int"):
        nn.Sequential(nn.Linear(1, 1), 3)
    with pytest.raises(IndexError, match="out of range"):
        seq[5]
