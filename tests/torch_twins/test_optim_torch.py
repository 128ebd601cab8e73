"""torch.optim on micrograd: same start weights and gradients as torch -> same weights after
every step (float64, 1e-12); param_groups, state_dict, schedules."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module

import micrograd.torch as mt
from micrograd.torch import optim

torch = require_module("torch")


CASES = [
    ("SGD", dict(lr=0.1)),  # plain SGD: the optimizer's stateless fast path
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("Adam", dict(lr=0.01, betas=(0.8, 0.9), weight_decay=0.1)),
    ("AdamW", dict(lr=0.02, weight_decay=0.05, eps=1e-6)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
]


def gradients(steps, shapes, seed=5):
    rng = np.random.default_rng(seed)
    return [[rng.normal(size=s) for s in shapes] for _ in range(steps)]


@pytest.mark.parametrize("name, options", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
def test_optimizer_follows_torch_step_by_step(name, options):
    shapes = [(3, 4), (4,), ()]
    starts = [np.random.default_rng(1).normal(size=s) for s in shapes]
    ours = [mt.tensor(s, requires_grad=True) for s in starts]
    theirs = [torch.tensor(s, requires_grad=True) for s in starts]
    opt = getattr(optim, name)(ours, **options)
    ref = getattr(torch.optim, name)(theirs, **options)
    for grads in gradients(8, shapes):
        for p, q, g in zip(ours, theirs, grads, strict=True):
            p.grad = g.copy()
            q.grad = torch.tensor(g)
        opt.step()
        ref.step()
        for p, q in zip(ours, theirs, strict=True):
            np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-12, atol=1e-15)


def test_parameter_update_is_in_place_so_views_and_optimizer_see_it():
    p = mt.tensor([1.0, 2.0], requires_grad=True)
    array = p.numpy()
    p.grad = np.array([1.0, 1.0])
    optim.SGD([p], lr=0.5).step()
    assert p.numpy() is array and array.tolist() == [0.5, 1.5]


def test_param_groups_have_their_own_lr_and_are_editable_like_torch():
    a, b = (mt.tensor([1.0], dtype=mt.float64, requires_grad=True),
            mt.tensor([1.0], dtype=mt.float64, requires_grad=True))
    ta, tb = (torch.tensor([1.0], dtype=torch.float64, requires_grad=True),
              torch.tensor([1.0], dtype=torch.float64, requires_grad=True))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    ref = torch.optim.SGD([{"params": [ta]}, {"params": [tb], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [g["lr"] for g in ref.param_groups]
    assert set(opt.param_groups[0]) == set(ref.param_groups[0])
    for step in range(3):
        for group in (*opt.param_groups, *ref.param_groups):
            group["lr"] *= 0.5  # the hand-written schedule of many scripts
        for p, q in ((a, ta), (b, tb)):
            p.grad = np.array([1.0 + step])
            q.grad = torch.tensor([1.0 + step], dtype=torch.float64)
        opt.step()
        ref.step()
    assert a.data.tolist() == pytest.approx(ta.tolist(), rel=1e-14)
    assert b.data.tolist() == pytest.approx(tb.tolist(), rel=1e-14)
    c = mt.tensor([0.0], requires_grad=True)
    opt.add_param_group({"params": c, "lr": 1.0})
    assert opt.param_groups[2]["momentum"] == 0.9 and opt.param_groups[2]["params"] == [c]
    with pytest.raises(ValueError, match="already in another parameter group"):
        opt.add_param_group({"params": [a]})


def test_plain_sgd_keeps_no_state_as_torch():
    ours, theirs = mt.tensor([1.0, 2.0], requires_grad=True), torch.ones(2, requires_grad=True)
    opt, ref = optim.SGD([ours], lr=0.1), torch.optim.SGD([theirs], lr=0.1)
    ours.grad, theirs.grad = np.array([0.5, 0.5]), torch.full((2,), 0.5)
    opt.step()
    ref.step()
    assert opt.state_dict()["state"] == ref.state_dict()["state"] == {}


def test_optimizer_state_dict_matches_torch_layout_and_resumes_exactly():
    start = np.array([[0.5, -1.0], [2.0, 0.1]])
    grads = gradients(6, [(2, 2)])
    p = mt.tensor(start, requires_grad=True)
    opt = optim.Adam([p], lr=0.05)
    q = torch.tensor(start, requires_grad=True)
    ref = torch.optim.Adam([q], lr=0.05)
    for (g,) in grads[:3]:
        p.grad, q.grad = g.copy(), torch.tensor(g)
        opt.step()
        ref.step()
    ours_state, torch_state = opt.state_dict(), ref.state_dict()
    assert list(ours_state) == list(torch_state) == ["state", "param_groups"]
    assert set(ours_state["state"][0]) == set(torch_state["state"][0])
    assert ours_state["param_groups"][0]["params"] == torch_state["param_groups"][0]["params"]
    # a new optimizer loaded from torch's own state dict carries on as torch does
    resumed = optim.Adam([p], lr=0.05)
    resumed.load_state_dict(torch_state)
    for (g,) in grads[3:]:
        p.grad, q.grad = g.copy(), torch.tensor(g)
        resumed.step()
        ref.step()
    np.testing.assert_allclose(p.data, q.detach().numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="parameter groups"):
        resumed.load_state_dict({"state": {}, "param_groups": []})


def test_adam_with_eps_zero_and_zero_gradient_gives_nan_like_torch():
    p = mt.tensor([1.0, 2.0], dtype=mt.float64, requires_grad=True)
    q = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    p.grad, q.grad = np.zeros(2), torch.zeros(2, dtype=torch.float64)
    optim.Adam([p], eps=0).step()
    torch.optim.Adam([q], eps=0).step()
    assert np.isnan(p.numpy()).all() and torch.isnan(q).all()


SCHEDULES = [
    ("StepLR", dict(step_size=3, gamma=0.5)),
    ("MultiStepLR", dict(milestones=[2, 5, 9], gamma=0.3)),
    ("ExponentialLR", dict(gamma=0.9)),
    ("CosineAnnealingLR", dict(T_max=12, eta_min=0.001)),
    ("LambdaLR", dict(lr_lambda=lambda k: 1 / (1 + k))),
    ("OneCycleLR", dict(max_lr=1.0, total_steps=20)),
    ("OneCycleLR", dict(max_lr=0.5, epochs=4, steps_per_epoch=5, anneal_strategy="linear",
                        three_phase=True, pct_start=0.25)),
]


@pytest.mark.parametrize("name, options", SCHEDULES,
                         ids=[f"{n}-{i}" for i, (n, _) in enumerate(SCHEDULES)])
@pytest.mark.parametrize("kind", ["SGD", "Adam"])
def test_schedules_follow_torch_including_onecycle_momentum(name, options, kind):
    kwargs = dict(lr=0.1, momentum=0.9) if kind == "SGD" else dict(lr=0.1)
    p = mt.tensor([0.0], dtype=mt.float64, requires_grad=True)
    q = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    opt = getattr(optim, kind)([p], **kwargs)
    ref = getattr(torch.optim, kind)([q], **kwargs)
    ours = getattr(optim.lr_scheduler, name)(opt, **options)
    theirs = getattr(torch.optim.lr_scheduler, name)(ref, **options)
    key = "momentum" if kind == "SGD" else "betas"
    for _ in range(19):
        assert ours.get_last_lr() == pytest.approx(theirs.get_last_lr(), rel=1e-12, abs=1e-15)
        assert opt.param_groups[0]["lr"] == pytest.approx(ref.param_groups[0]["lr"], rel=1e-12)
        assert np.allclose(opt.param_groups[0][key], ref.param_groups[0][key], rtol=1e-12)
        p.grad, q.grad = np.ones(1), torch.ones(1, dtype=torch.float64)
        opt.step()
        ref.step()
        ours.step()
        theirs.step()
    assert math.isclose(p.item(), q.item(), rel_tol=1e-10)


def test_bad_settings_say_what_is_expected():
    p = mt.tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="wrap it in a list"):
        optim.SGD(p, lr=0.1)
    with pytest.raises(ValueError, match="lr must be a number >= 0"):
        optim.RMSprop([p], lr=-1)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        optim.Adam([p], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="momentum or beta1"):
        optim.lr_scheduler.OneCycleLR(optim.Adagrad([p]), max_lr=1.0, total_steps=5)
    with pytest.raises(ValueError, match="total_steps=2"):
        s = optim.lr_scheduler.OneCycleLR(optim.SGD([p], momentum=0.9), max_lr=1.0, total_steps=2)
        for _ in range(3):
            s.step()
