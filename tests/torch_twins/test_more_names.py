"""Small torch idioms real scripts use (found running pytorch/examples and minGPT under
`micrograd run`), each compared with PyTorch 2.13: `next(model.parameters())`."""

from __future__ import annotations

import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")


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
