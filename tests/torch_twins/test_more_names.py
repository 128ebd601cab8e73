"""Small torch idioms real scripts use (found running pytorch/examples and minGPT under
`micrograd run`), each compared with PyTorch 2.13: `x.type()` and `x.type(dtype)`, and
`next(model.parameters())`."""

from __future__ import annotations

import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")


@pytest.mark.parametrize("values, dtype", [
    ([1.5, 2.0], "float32"), ([1.5, 2.0], "float64"), ([1, 2], "int64"), ([1, 2], "int32"),
    ([True, False], "bool"), ([1, 2], "uint8"), ([1, 2], "int8"), ([1, 2], "int16")])
def test_type_names_the_tensor_type_as_torch(values, dtype):
    for m in (torch, mt):
        assert m.tensor(values, dtype=getattr(m, dtype)).type() == torch.tensor(
            values, dtype=getattr(torch, dtype)).type()


@pytest.mark.parametrize("target", ["int64", "float64", "float32", "bool"])
@pytest.mark.parametrize("spelled", ["dtype", "name"])
def test_type_converts_as_torch(target, spelled):
    def convert(m):
        x = m.tensor([[0.5, -2.0], [3.25, 0.0]])
        wanted = getattr(m, target)
        if spelled == "name":
            wanted = torch.empty(0, dtype=getattr(torch, target)).type()
        return x.type(wanted)

    theirs, ours = convert(torch), convert(mt)
    assert ours.type() == theirs.type()
    assert ours.tolist() == theirs.tolist()


def test_type_refuses_an_unknown_name():
    with pytest.raises(ValueError):
        torch.zeros(1).type("torch.NoSuchTensor")
    with pytest.raises(ValueError, match="invalid type"):
        mt.zeros(1).type("torch.NoSuchTensor")


def test_next_of_parameters_is_the_first_parameter_as_in_torch():
    for m in (torch, mt):
        m.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(3, 1)).double()
    ours = mt.nn.Sequential(mt.nn.Linear(2, 3), mt.nn.Linear(3, 1)).double()
    first_theirs, first_ours = next(theirs.parameters()), next(ours.parameters())
    assert tuple(first_ours.shape) == tuple(first_theirs.shape)
    assert first_ours.tolist() == first_theirs.tolist()
    assert str(first_ours.dtype).removeprefix("torch.") == "float64"
    walked_theirs, walked_ours = theirs.parameters(), ours.parameters()
    for _ in range(4):
        assert next(walked_ours).tolist() == next(walked_theirs).tolist()
    for walked in (walked_theirs, walked_ours):
        with pytest.raises(StopIteration):
            next(walked)
    assert len(ours.parameters()) == 4  # still a list, as micrograd's Module gives
