"""Non-leaf gradients as torch keeps them: dropped once their backward step has run (None,
with torch's warning, when read), kept and accumulated after retain_grad(). Each case runs
the same calls on real torch and on micrograd.torch and compares what they give."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch as real

import micrograd.torch as ours

LIBRARIES = [real, ours]


def _graph(torch):  # a = leaf; b, c interior; loss the root
    a = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    b = a * 2
    c = b.tanh()
    loss = (c * b).sum()
    return a, b, c, loss


def _as_array(t):
    return None if t is None else np.asarray(t.detach().numpy(), dtype=np.float64)


def _read_grad(t):
    """t.grad and the warnings reading it gave (their texts)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        grad = t.grad
    return _as_array(grad), [str(w.message) for w in caught if w.category is UserWarning]


def _torch_text(message: str) -> str:
    return message.split(" (Triggered internally")[0]  # torch's C++ location, not quoted


def test_non_leaf_grad_is_none_with_torchs_warning():
    seen = []
    for torch in LIBRARIES:
        a, b, c, loss = _graph(torch)
        loss.backward()
        reads = [_read_grad(t) for t in (b, c, loss)]
        seen.append((_as_array(a.grad), reads, a.is_leaf, b.is_leaf, b.retains_grad))
    (a_theirs, reads_theirs, *flags_theirs), (a_ours, reads_ours, *flags_ours) = seen
    np.testing.assert_allclose(a_ours, a_theirs, rtol=1e-6)
    assert flags_ours == flags_theirs == [True, False, False]
    for (grad_t, warned_t), (grad_o, warned_o) in zip(reads_theirs, reads_ours, strict=True):
        assert grad_t is None and grad_o is None
        assert len(warned_t) == len(warned_o) == 1
        assert warned_o[0] == _torch_text(warned_t[0])


def test_leaf_grad_reads_without_warning():
    for torch in LIBRARIES:
        a, _, _, loss = _graph(torch)
        loss.backward()
        grad, warned = _read_grad(a)
        assert grad is not None and warned == []


def test_retain_grad_keeps_and_accumulates_over_retain_graph():
    results = []
    for torch in LIBRARIES:
        a, b, c, loss = _graph(torch)
        b.retain_grad()
        loss.retain_grad()
        flags = (b.retains_grad, loss.retains_grad, c.retains_grad)
        loss.backward(retain_graph=True)
        first = [_read_grad(t) for t in (b, loss)]
        loss.backward()
        second = [_read_grad(t) for t in (b, loss)]
        results.append((flags, first, second, _as_array(a.grad), _read_grad(c)))
    theirs, mine = results
    assert mine[0] == theirs[0] == (True, True, False)
    for when in (1, 2):
        for (grad_t, warned_t), (grad_o, warned_o) in zip(theirs[when], mine[when], strict=True):
            assert warned_t == warned_o == []
            np.testing.assert_allclose(grad_o, grad_t, rtol=1e-6)
    np.testing.assert_allclose(mine[2][0][0], 2 * mine[1][0][0])  # accumulated, not reset
    np.testing.assert_allclose(mine[3], theirs[3], rtol=1e-6)
    assert mine[4][0] is None and theirs[4][0] is None  # c was not retained


def test_retain_grad_on_leaf_does_nothing_and_needs_requires_grad():
    for torch in LIBRARIES:
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        a.retain_grad()
        assert a.retains_grad is False
        with pytest.raises(RuntimeError, match="can't retain_grad on Tensor that has "
                                               "requires_grad=False"):
            torch.tensor([1.0]).retain_grad()


def test_retained_grad_can_be_cleared_by_hand():
    for torch in LIBRARIES:
        a, b, _, loss = _graph(torch)
        b.retain_grad()
        loss.backward(retain_graph=True)
        b.grad = None
        loss.backward()
        np.testing.assert_allclose(_as_array(b.grad), _as_array(a.grad) / 2 / 2)


def test_autograd_grad_of_a_non_leaf_input():
    results = []
    for torch in LIBRARIES:
        _, b, c, loss = _graph(torch)
        (gb, gc) = torch.autograd.grad(loss, [b, c])
        results.append((_as_array(gb), _as_array(gc), b.retains_grad))
    (gb_t, gc_t, kept_t), (gb_o, gc_o, kept_o) = results
    np.testing.assert_allclose(gb_o, gb_t, rtol=1e-6)
    np.testing.assert_allclose(gc_o, gc_t, rtol=1e-6)
    assert kept_o is kept_t is False


def test_value_engine_keeps_every_gradient():
    import math

    from micrograd import Value

    a = Value(0.2)
    b = a * 3
    c = b.tanh()
    c.backward()
    # the lecture prints interior gradients: d tanh(b)/db = 1 - tanh(b)^2
    assert b.grad == pytest.approx(1 - math.tanh(0.6) ** 2) and c.grad == 1.0


def test_gradcheck_of_a_non_leaf_input():
    verdicts = []
    for torch in LIBRARIES:
        leaf = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
        x = leaf * 1.5  # a non-leaf input: its gradient is dropped unless kept for the check
        verdicts.append((torch.autograd.gradcheck(lambda t: (t * t).sin(), (x,)),
                         x.retains_grad))
    assert verdicts[1] == verdicts[0] == (True, False)
