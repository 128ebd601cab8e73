"""The warnings torch gives a learner's code, given by micrograd.torch in torch's words (less
torch's "(Triggered internally at <C++ file>)" tail) and pointed at the learner's line; the
values computed alongside are torch's too (softmax without dim picks torch's dimension)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

CASES = {
    "x.T of a 3-d tensor": lambda lib: lib.ones(2, 3, 4).T,
    "x.T of a 0-d tensor": lambda lib: lib.tensor(2.0).T,
    "x.T of a vector": lambda lib: lib.ones(3).T,
    "x.T of a matrix": lambda lib: lib.ones(2, 3).T,
    "F.softmax without dim, 3-d": lambda lib: lib.nn.functional.softmax(
        lib.arange(24.0).view(2, 3, 4)),
    "F.softmax without dim, 2-d": lambda lib: lib.nn.functional.softmax(
        lib.arange(6.0).view(2, 3)),
    "F.log_softmax without dim, 4-d": lambda lib: lib.nn.functional.log_softmax(
        lib.arange(24.0).view(1, 2, 3, 4)),
    "F.softmax with dim": lambda lib: lib.nn.functional.softmax(lib.ones(2, 3), dim=0),
    "nn.Softmax() without dim": lambda lib: lib.nn.Softmax()(lib.arange(24.0).view(2, 3, 4)),
    "nn.LogSoftmax() without dim": lambda lib: lib.nn.LogSoftmax()(lib.arange(6.0)),
    "torch.tensor(a tensor)": lambda lib: lib.tensor(lib.ones(2)),
    "torch.tensor(a list)": lambda lib: lib.tensor([1.0, 2.0]),
}


def _run(lib, make):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = make(lib)
    said = [(w.category, str(w.message).split(" (Triggered internally")[0]) for w in caught]
    return said, [w.filename for w in caught], np.asarray(result.detach().numpy())


@pytest.mark.parametrize("case", CASES)
def test_warns_as_torch(case):
    ours, our_files, our_values = _run(mt, CASES[case])
    theirs, _, their_values = _run(torch, CASES[case])
    assert ours == theirs
    assert all(f == __file__ for f in our_files)  # the learner's line, not ours
    np.testing.assert_allclose(our_values, their_values, rtol=1e-6)
