"""torch.Size and dtype objects against torch: printed text, comparisons, numpy interop."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

SHAPES = [(), (0,), (1,), (3,), (182625, 3), (2, 0, 4), (1, 1, 1, 1)]
DTYPE_NAMES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8",
               "bool", "float", "double", "half", "long", "int", "short"]


@pytest.mark.parametrize("shape", SHAPES)
def test_shape_prints_and_behaves_as_torch_size(shape):
    ours, theirs = mt.zeros(shape), torch.zeros(shape)
    for a, b in [(ours.shape, theirs.shape), (ours.size(), theirs.size()),
                 (ours.shape[1:], theirs.shape[1:]), ((7,) + ours.shape, (7,) + theirs.shape),
                 (ours.shape + (5,), theirs.shape + (5,)), (ours.shape * 2, theirs.shape * 2)]:
        assert repr(a) == repr(b) and str(a) == str(b) and f"{a}" == f"{b}"
        assert a == b and a == tuple(b) and isinstance(a, tuple)
    assert ours.shape.numel() == theirs.shape.numel()
    assert np.zeros(ours.shape).shape == shape
    assert pickle.loads(pickle.dumps(ours.shape)) == ours.shape
    assert repr(mt.Size(shape)) == repr(torch.Size(shape))


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_prints_and_compares_as_torch(name):
    ours, theirs = getattr(mt, name), getattr(torch, name)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    t, u = mt.zeros(2, dtype=ours), torch.zeros(2, dtype=theirs)
    assert repr(t.dtype) == repr(u.dtype)
    assert t.dtype == ours and t.dtype is ours
    assert (t.dtype == mt.float32) == (u.dtype == torch.float32)
    assert t.dtype.is_floating_point == u.dtype.is_floating_point
    assert t.dtype.itemsize == u.dtype.itemsize
    assert t.dtype.is_signed == u.dtype.is_signed
    assert t.is_floating_point() == u.is_floating_point()
    # numpy interop: compared with numpy's dtype, and taken where numpy takes a dtype
    numpy_dtype = u.numpy().dtype
    assert t.dtype == numpy_dtype and t.dtype == numpy_dtype.type
    assert np.zeros(3, dtype=t.dtype).dtype == numpy_dtype
    assert {t.dtype: 1}.get(ours) == 1 and hash(t.dtype) == hash(numpy_dtype)
    assert pickle.loads(pickle.dumps(t.dtype)) is t.dtype


def test_default_dtype_and_bfloat16_name():
    assert repr(mt.get_default_dtype()) == repr(torch.get_default_dtype()) == "torch.float32"
    assert repr(mt.bfloat16) == repr(torch.bfloat16)
    assert mt.bfloat16.is_floating_point and mt.bfloat16.itemsize == 2
    # nanoGPT picks its dtype from a dict of all three, then uses float16 or float32 on CPU
    table = {"float32": mt.float32, "bfloat16": mt.bfloat16, "float16": mt.float16}
    assert table["float16"] != table["bfloat16"]


def test_bfloat16_needs_ml_dtypes_or_says_so():
    try:
        import ml_dtypes  # noqa: F401
    except ImportError:
        with pytest.raises(TypeError, match="ml_dtypes"):
            mt.zeros(2, dtype=mt.bfloat16)
    else:
        ours = mt.tensor([1.0, 3.14159], dtype=mt.bfloat16)
        theirs = torch.tensor([1.0, 3.14159], dtype=torch.bfloat16)
        assert [float(v) for v in ours.numpy()] == theirs.tolist()  # rounded alike
        assert repr(ours.dtype) == "torch.bfloat16"
