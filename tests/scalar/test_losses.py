"""micrograd.losses against PyTorch (float64, values and gradients) and central differences."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module

from micrograd.engine import Value
from micrograd.losses import (
    cross_entropy,
    hinge_loss,
    l2_penalty,
    logistic_loss,
    logsumexp,
    mse,
    softplus,
)

torch = require_module("torch")  # twins of torch: the module skips without it

F = torch.nn.functional

SCORES = [0.7, -1.3, 2.5, 0.0, -0.2]
SIGNS = [1, -1, -1, 1, 1]


def ours_and_torch(numbers):
    values = [Value(x) for x in numbers]
    tensor = torch.tensor(numbers, dtype=torch.float64, requires_grad=True)
    return values, tensor


def assert_matches(loss: Value, values, ref, ref_tensor, rel=1e-12):
    loss.backward()
    ref.backward()
    assert loss.data == pytest.approx(ref.item(), rel=rel, abs=1e-300)
    np.testing.assert_allclose(
        [v.grad for v in values], ref_tensor.grad.numpy(), rtol=rel, atol=1e-15
    )


def central_difference(f, numbers, i, h=1e-6):
    plus, minus = list(numbers), list(numbers)
    plus[i] += h
    minus[i] -= h
    return (f(plus).data - f(minus).data) / (2 * h)


# --- mse ---------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_matches_torch(reduction):
    targets = [1.0, -1.0, -1.0, 1.0, 0.5]
    values, tensor = ours_and_torch(SCORES)
    ref = F.mse_loss(tensor, torch.tensor(targets, dtype=torch.float64), reduction=reduction)
    assert_matches(mse(values, targets, reduction=reduction), values, ref, tensor)


def test_mse_sum_is_the_lectures_loss():
    ys = [1.0, -1.0, -1.0, 1.0]
    ypred = [Value(0.8), Value(-0.5), Value(0.1), Value(0.9)]
    lecture = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred, strict=True))
    assert mse(ypred, ys, reduction="sum").data == lecture.data


def test_mse_reduction_none_gives_one_loss_per_sample():
    losses = mse([Value(1.0), Value(3.0)], [0.0, 1.0], reduction="none")
    assert [l.data for l in losses] == [1.0, 4.0]


# --- hinge -------------------------------------------------------------------------------


def test_hinge_matches_torch():
    values, tensor = ours_and_torch(SCORES)
    y = torch.tensor(SIGNS, dtype=torch.float64)
    ref = torch.relu(1 - y * tensor).mean()
    assert_matches(hinge_loss(values, SIGNS), values, ref, tensor)


def test_hinge_is_the_moons_notebooks_expression_bit_for_bit():
    scores = [Value(x) for x in SCORES]
    losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(SIGNS, scores, strict=True)]
    notebook = sum(losses) * (1.0 / len(losses))
    assert hinge_loss(scores, SIGNS).data == notebook.data


def test_hinge_accepts_zero_one_labels_as_minus_one_plus_one():
    assert hinge_loss([Value(0.3)], [0]).data == hinge_loss([Value(0.3)], [-1]).data == 1.3


# --- logistic ------------------------------------------------------------------------------


@pytest.mark.parametrize("scores", [SCORES, [1000.0, -1000.0, 1000.0, -1000.0, 30.0]])
def test_logistic_matches_torch_bce_with_logits(scores):
    labels01 = [1 if s > 0 else 0 for s in SIGNS]
    values, tensor = ours_and_torch(scores)
    ref = F.binary_cross_entropy_with_logits(tensor, torch.tensor(labels01, dtype=torch.float64))
    loss = logistic_loss(values, SIGNS)  # +1/-1 labels ...
    assert math.isfinite(loss.data)
    assert_matches(loss, values, ref, tensor)
    assert logistic_loss([Value(s) for s in scores], labels01).data == loss.data  # ... or 0/1


def test_softplus_is_stable_and_its_gradient_is_sigmoid():
    for z in [-1000.0, -30.0, -1.0, 0.0, 1e-3, 2.0, 40.0, 1000.0]:
        x = Value(z)
        t = torch.tensor(z, dtype=torch.float64, requires_grad=True)
        y, ref = softplus(x), torch.logaddexp(torch.zeros_like(t), t)  # log(e^0 + e^z)
        y.backward()
        ref.backward()
        assert y.data == pytest.approx(ref.item(), rel=1e-15, abs=1e-300)
        assert x.grad == pytest.approx(t.grad.item(), rel=1e-15, abs=1e-300)


def test_softplus_gradient_at_zero_is_one_half():
    x = Value(0.0)
    softplus(x).backward()
    assert x.grad == 0.5


# --- cross-entropy ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "logits, target",
    [
        ([2.0, -1.0, 0.5], 0),
        ([2.0, -1.0, 0.5], 1),
        ([0.1, 0.2, 0.3, 0.4], 3),
        ([1000.0, -1000.0, 0.0], 1),  # naive exp would overflow
        ([1000.0, 1000.0], 0),
        ([-1000.0, -1000.0, -999.0], 2),  # naive exp would underflow to log(0)
        ([5.0], 0),
    ],
)
def test_cross_entropy_matches_torch_even_for_huge_logits(logits, target):
    values, tensor = ours_and_torch(logits)
    ref = F.cross_entropy(tensor[None], torch.tensor([target]))
    loss = cross_entropy(values, target)
    assert math.isfinite(loss.data)
    assert_matches(loss, values, ref, tensor)


def test_cross_entropy_batch_is_the_mean_over_samples():
    batch = [[2.0, -1.0, 0.5], [0.0, 3.0, -2.0]]
    targets = [2, 1]
    rows = [[Value(x) for x in row] for row in batch]
    tensor = torch.tensor(batch, dtype=torch.float64, requires_grad=True)
    ref = F.cross_entropy(tensor, torch.tensor(targets))
    loss = cross_entropy(rows, targets)
    loss.backward()
    ref.backward()
    assert loss.data == pytest.approx(ref.item(), rel=1e-12)
    np.testing.assert_allclose([[v.grad for v in r] for r in rows], tensor.grad.numpy(), rtol=1e-12)


def test_logsumexp_matches_torch_at_extremes():
    for numbers in ([1000.0, 1000.0], [-1000.0, -1001.0], [0.0, 1e-8, -5.0]):
        values, tensor = ours_and_torch(numbers)
        assert_matches(logsumexp(values), values, torch.logsumexp(tensor, 0), tensor)


# --- l2 ---------------------------------------------------------------------------------------


def test_l2_penalty_matches_torch():
    values, tensor = ours_and_torch(SCORES)
    assert_matches(l2_penalty(values, alpha=1e-4), values, 1e-4 * (tensor * tensor).sum(), tensor)


# --- central differences (independent of PyTorch) -----------------------------------------------


@pytest.mark.parametrize(
    "loss_of",
    [
        lambda vs: mse(vs, [1.0, 0.0, -1.0, 2.0, 0.5]),
        lambda vs: logistic_loss(vs, SIGNS),
        lambda vs: cross_entropy(vs, 2),
        lambda vs: hinge_loss(vs, SIGNS),
        lambda vs: l2_penalty(vs, alpha=0.3),
    ],
    ids=["mse", "logistic", "cross_entropy", "hinge", "l2"],
)
def test_gradients_agree_with_central_differences(loss_of):
    xs = [0.7, -1.3, 2.5, 0.4, -0.2]  # away from the hinge's kink
    values = [Value(x) for x in xs]
    loss_of(values).backward()
    for i, v in enumerate(values):
        numeric = central_difference(lambda ns: loss_of([Value(n) for n in ns]), xs, i)
        assert v.grad == pytest.approx(numeric, abs=1e-7)


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, error, message",
    [
        (lambda: mse([Value(1.0)], [1.0, 2.0]), ValueError, "1 predictions but 2 targets"),
        (lambda: mse([], []), ValueError, "got no predictions"),
        (lambda: mse([Value(1.0)], [1.0], reduction="avg"), ValueError, "reduction must be one of"),
        (lambda: hinge_loss([Value(1.0)], [2]), ValueError, r"labels must be \+1 or -1"),
        (lambda: cross_entropy([Value(1.0), Value(2.0)], 2), ValueError,
         "out of range for 2 classes"),
        (lambda: cross_entropy([Value(1.0)], 0.0), TypeError, "int class index"),
        (lambda: cross_entropy([Value(1.0), "x"], 0), TypeError, "got str"),
        (lambda: logsumexp([]), ValueError, "at least one value"),
    ],
)
def test_bad_input_says_what_is_expected(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_elementwise_losses_accept_one_array_valued_node():
    # A Tensor (here a torch tensor standing in for ours) goes through its own .relu/.mean.
    scores = torch.tensor(SCORES, dtype=torch.float64)
    y = torch.tensor(SIGNS, dtype=torch.float64)
    assert mse(scores, y).item() == pytest.approx(F.mse_loss(scores, y).item(), rel=1e-15)
    assert hinge_loss(scores, y, reduction="sum").item() == pytest.approx(
        torch.relu(1 - y * scores).sum().item(), rel=1e-15
    )


def test_cross_entropy_takes_numpy_integer_targets():
    logits = [[2.0, -1.0, 0.5], [0.0, 3.0, -2.0]]
    targets = np.array([2, 1])
    single = cross_entropy([Value(x) for x in logits[0]], targets[0])
    batch = cross_entropy([[Value(x) for x in row] for row in logits], targets)
    ref = F.cross_entropy(torch.tensor(logits, dtype=torch.float64), torch.tensor([2, 1]))
    assert batch.data == pytest.approx(ref.item(), rel=1e-12)
    assert single.data == pytest.approx(F.cross_entropy(
        torch.tensor([logits[0]], dtype=torch.float64), torch.tensor([2])).item(), rel=1e-12)


@pytest.mark.parametrize("numbers", [[0.0, 0.7, -1.3], [1000.0, -1000.0, 30.0]])
def test_logistic_on_an_array_valued_node_matches_torch_including_the_gradient_at_zero(numbers):
    scores = torch.tensor(numbers, dtype=torch.float64, requires_grad=True)
    reference = torch.tensor(numbers, dtype=torch.float64, requires_grad=True)
    y = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    loss = logistic_loss(scores, y)  # goes through the node's abs/exp/log
    ref = F.binary_cross_entropy_with_logits(reference, (y > 0).double())
    loss.backward()
    ref.backward()
    assert loss.item() == pytest.approx(ref.item(), rel=1e-12)
    # 0.5 - 0.5 + tiny loses the tiny part's relative precision: absolute accuracy 1e-16
    np.testing.assert_allclose(scores.grad.numpy(), reference.grad.numpy(), rtol=1e-12, atol=1e-16)


def test_tensor_scores_take_0_1_labels_as_the_list_form_does():
    import micrograd

    labels01 = [1, 0, 0, 1, 1]  # SIGNS written as 0/1
    y = torch.tensor(SIGNS, dtype=torch.float64)
    ref_scores = torch.tensor(SCORES, dtype=torch.float64)
    for labels in (micrograd.tensor(labels01), np.array(labels01), labels01):
        scores = micrograd.tensor(SCORES, dtype=np.float64, requires_grad=True)
        loss = hinge_loss(scores, labels)
        assert loss.item() == pytest.approx(torch.relu(1 - y * ref_scores).mean().item(), rel=1e-15)
        logistic = logistic_loss(micrograd.tensor(SCORES, dtype=np.float64), labels)
        ref = F.binary_cross_entropy_with_logits(ref_scores,
                                                 torch.tensor(labels01, dtype=torch.float64))
        assert logistic.item() == pytest.approx(ref.item(), rel=1e-12)


@pytest.mark.parametrize("loss", [mse, hinge_loss, logistic_loss])
def test_tensor_column_against_a_row_of_targets_is_refused_not_broadcast(loss):
    import micrograd

    column = micrograd.tensor([[0.5], [-1.0], [2.0]])  # a model's (N, 1) output
    with pytest.raises(ValueError, match=r"shape \(3, 1\) but .* shape \(3,\).*same shape"):
        loss(column, micrograd.tensor([1.0, -1.0, 1.0]))


def test_tensor_scores_refuse_labels_other_than_plus_minus_one_or_zero():
    import micrograd

    with pytest.raises(ValueError, match=r"labels must be \+1 or -1 \(or 1 / 0\), got 2"):
        hinge_loss(micrograd.tensor([0.5, -1.0]), micrograd.tensor([1, 2]))
