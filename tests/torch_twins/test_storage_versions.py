"""The storage API bumps versions as torch's in-place ops do: after an optimizer step (or
nn.init, BatchNorm's running statistics, load_state_dict) a backward() through a graph that
saved the old values raises torch's error, exactly as after a manual `p -= lr * p.grad`."""

from __future__ import annotations

import re

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt

torch = require_module("torch")

OPTIMIZERS = {
    "SGD": lambda m, ps: m.optim.SGD(ps, lr=0.1),
    "SGD momentum, weight_decay": lambda m, ps: m.optim.SGD(ps, lr=0.1, momentum=0.9,
                                                            weight_decay=0.01),
    "Adam": lambda m, ps: m.optim.Adam(ps, lr=0.1),
    "AdamW": lambda m, ps: m.optim.AdamW(ps, lr=0.1, weight_decay=0.1),
    "RMSprop": lambda m, ps: m.optim.RMSprop(ps, lr=0.1),
    "Adagrad": lambda m, ps: m.optim.Adagrad(ps, lr=0.1),
}

VERSIONS = re.compile(r"is at version (\d+); expected version (\d+)")


def _stale_graph_error(m, change):
    """Save p in a graph, change p with `change(m, p)`, then backward: the error's versions
    and p._version."""
    p = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
    (p * 3).sum().backward()  # a gradient for the optimizer
    saved = (p * p).sum()  # mul saves p for its backward step
    change(m, p)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as error:
        saved.backward()
    return VERSIONS.search(str(error.value)).groups(), p._version


def _manual_step(m, p):
    with m.no_grad():
        p -= 0.1 * p.grad


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_backward_after_optimizer_step_raises_torchs_error(name):
    def step(m, p):
        OPTIMIZERS[name](m, [p]).step()

    ours, theirs = _stale_graph_error(mt, step), _stale_graph_error(torch, step)
    assert ours == theirs


def test_optimizer_step_and_manual_update_agree():
    assert _stale_graph_error(mt, _manual_step) == _stale_graph_error(torch, _manual_step)
    step = _stale_graph_error(mt, lambda m, p: m.optim.SGD([p], lr=0.1).step())
    assert step == _stale_graph_error(mt, _manual_step)


def _versions_after(m):
    m.manual_seed(0)
    layer = m.nn.Linear(3, 2)
    m.nn.init.normal_(layer.weight)
    m.nn.init.zeros_(layer.bias)
    norm = m.nn.BatchNorm1d(2)
    norm(layer(m.ones(4, 3, dtype=m.float32) * m.arange(4.0).reshape(4, 1)))
    norm.load_state_dict({k: v.clone() for k, v in norm.state_dict().items()})
    return (layer.weight._version, layer.bias._version, norm.running_mean._version,
            norm.running_var._version, norm.num_batches_tracked._version)


def test_init_batch_norm_and_load_state_dict_bump_versions_as_torch():
    assert _versions_after(mt) == _versions_after(torch)


def test_optimizer_step_still_updates_the_parameter_in_place():
    p = mt.tensor([1.0, 2.0], requires_grad=True)
    array, view = p._array, p.data
    p.grad = mt.tensor([1.0, 1.0])
    mt.optim.SGD([p], lr=0.5).step()
    assert p._array is array
    np.testing.assert_array_equal(view.numpy(), [0.5, 1.5])
