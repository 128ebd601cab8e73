"""Gaps between micrograd.torch and torch 2.13 that ported scripts and old tutorials hit:
the legacy `torch.Tensor(...)` constructor, factories' keywords, `F.mse_loss` on mismatched
shapes, a `.grad` set by hand on a non-leaf, the legacy type names. torch is the oracle."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")


def _same(ours, theirs):
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


# --- torch.Tensor(...), the class called as the legacy constructor -----------------------

@pytest.mark.parametrize("data", [[[1, 2]], [1.5, -2.0], [True, False], [[1, 2.5], [3, 4]],
                                  [], [[]]])
@pytest.mark.parametrize("default", ["float32", "float64"])
def test_tensor_class_makes_python_data_the_default_float_dtype(data, default):
    previous = torch.get_default_dtype()
    try:
        torch.set_default_dtype(getattr(torch, default))
        mt.set_default_dtype(getattr(mt, default))
        _same(mt.Tensor(data), torch.Tensor(data))
    finally:
        torch.set_default_dtype(previous)
        mt.set_default_dtype(getattr(mt, str(previous).removeprefix("torch.")))


@pytest.mark.parametrize("sizes", [(2, 3), (5, 3), (2, 0, 4), ()])
def test_tensor_class_given_sizes_makes_that_shape(sizes):
    ours, theirs = mt.Tensor(*sizes), torch.Tensor(*sizes)
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))


@pytest.mark.parametrize("shape", [(2, 3), (3,), (0,), ()])
def test_tensor_class_given_a_shape_makes_that_shape(shape):
    ours = mt.Tensor(mt.zeros(shape).shape)  # torch.Tensor(x.shape)
    theirs = torch.Tensor(torch.zeros(shape).shape)
    assert (tuple(ours.shape), str(ours.dtype)) == (tuple(theirs.shape), str(theirs.dtype))


def test_python_numbers_in_ops_keep_torchs_dtypes():
    """The engine wraps Python numbers in ops (torch.where(c, 1, 0)): they keep int64."""
    for lib in (mt, torch):
        t = lib.tensor([1.0, 2.0])
        assert str(lib.where(t > 1, 1, 0).dtype) == "torch.int64"
    np.testing.assert_array_equal(mt.where(mt.tensor([1.0, 2.0]) > 1, 1, 0).numpy(), [0, 1])


@pytest.mark.parametrize("data", [[1, 2], [True], [1.0, 2], 3, 2.5, True, [], [[1], [2]]])
def test_the_tensor_factory_still_infers_as_torch_tensor_does(data):
    _same(mt.tensor(data), torch.tensor(data))
