"""micrograd.optim against torch.optim: same start, same gradients, same parameters after each step.

Two kinds of parameter are checked: Values (floats) and a stand-in for the Tensor engine
(an object whose .data and .grad are numpy arrays), so optim works for Tensors before
Tensors exist.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import require_module

import micrograd
from micrograd.engine import Value
from micrograd.optim import (
    SGD,
    Adam,
    AdamW,
    CosineAnnealingLR,
    LambdaLR,
    LinearDecay,
    StepLR,
)

torch = require_module("torch")  # twins of torch.optim: the module skips without it

STEPS = 6


class ArrayParam:
    """What a Tensor parameter looks like to an optimizer: ndarray .data, ndarray-or-None .grad."""

    def __init__(self, data: np.ndarray):
        self.data = np.array(data, dtype=np.float64)
        self.grad = None


CONFIGS = [
    (SGD, torch.optim.SGD, dict(lr=0.1)),
    (SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9)),
    (SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, weight_decay=0.01)),
    (SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1)),
    (SGD, torch.optim.SGD, dict(lr=0.05, momentum=0.9, nesterov=True)),
    (Adam, torch.optim.Adam, dict(lr=0.01)),
    (Adam, torch.optim.Adam, dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    (AdamW, torch.optim.AdamW, dict(lr=0.01)),
    (AdamW, torch.optim.AdamW, dict(lr=0.05, betas=(0.5, 0.9), weight_decay=0.3)),
]
IDS = [f"{ours.__name__}-{i}" for i, (ours, _, _) in enumerate(CONFIGS)]


def gradient_sequence(shape, seed):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=shape) * 3 for _ in range(STEPS)]


@pytest.mark.parametrize("ours, theirs, kwargs", CONFIGS, ids=IDS)
def test_value_parameters_follow_torch(ours, theirs, kwargs):
    start = np.random.default_rng(0).normal(size=5)
    values = [Value(float(x)) for x in start]
    reference = torch.tensor(start, dtype=torch.float64, requires_grad=True)
    opt, ref_opt = ours(values, **kwargs), theirs([reference], **kwargs)
    for grad in gradient_sequence(5, 1):
        for v, g in zip(values, grad, strict=True):
            v.grad = float(g)
        reference.grad = torch.tensor(grad)
        opt.step()
        ref_opt.step()
        np.testing.assert_allclose(
            [v.data for v in values], reference.detach().numpy(), rtol=1e-12, atol=1e-12
        )


@pytest.mark.parametrize("ours, theirs, kwargs", CONFIGS, ids=IDS)
def test_array_parameters_follow_torch(ours, theirs, kwargs):
    rng = np.random.default_rng(2)
    starts = [rng.normal(size=(3, 2)), rng.normal(size=4), rng.normal(size=())]
    params = [ArrayParam(s) for s in starts]
    references = [torch.tensor(s, requires_grad=True) for s in starts]
    opt, ref_opt = ours(params, **kwargs), theirs(references, **kwargs)
    grads = [gradient_sequence(s.shape, 10 + i) for i, s in enumerate(starts)]
    for step in range(STEPS):
        for p, r, g in zip(params, references, grads, strict=True):
            p.grad = g[step].copy()
            r.grad = torch.tensor(g[step])
        opt.step()
        ref_opt.step()
        for p, r in zip(params, references, strict=True):
            assert isinstance(p.data, np.ndarray) and p.data.shape == r.shape
            np.testing.assert_allclose(p.data, r.detach().numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("ours, theirs, kwargs", CONFIGS, ids=IDS)
def test_parameter_without_gradient_is_left_alone_as_in_torch(ours, theirs, kwargs):
    moving, frozen = ArrayParam([1.0, -2.0]), ArrayParam([3.0, 4.0])
    ref_moving = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    ref_frozen = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    opt = ours([moving, frozen], **kwargs)
    ref_opt = theirs([ref_moving, ref_frozen], **kwargs)
    for grad in gradient_sequence(2, 7)[:3]:
        moving.grad, ref_moving.grad = grad.copy(), torch.tensor(grad)
        opt.step()
        ref_opt.step()
    np.testing.assert_allclose(moving.data, ref_moving.detach().numpy(), rtol=1e-12)
    np.testing.assert_array_equal(frozen.data, [3.0, 4.0])
    np.testing.assert_array_equal(ref_frozen.detach().numpy(), [3.0, 4.0])


def test_momentum_state_is_not_changed_by_in_place_gradient_accumulation():
    # A Tensor engine accumulates with `grad += ...` on the same array; the optimizer's
    # momentum buffer must be its own copy, as torch clones the first gradient.
    p = ArrayParam([1.0, 1.0])
    ref = torch.tensor([1.0, 1.0], dtype=torch.float64, requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.9)
    ref_opt = torch.optim.SGD([ref], lr=0.1, momentum=0.9)
    p.grad = np.array([1.0, 2.0])
    ref.grad = torch.tensor([1.0, 2.0], dtype=torch.float64)
    opt.step()
    ref_opt.step()
    p.grad += np.array([0.5, 0.5])  # no zero_grad: gradients accumulate in place
    ref.grad += torch.tensor([0.5, 0.5], dtype=torch.float64)
    opt.step()
    ref_opt.step()
    np.testing.assert_allclose(p.data, ref.detach().numpy(), rtol=1e-12)


def test_sgd_on_values_is_the_lectures_update():
    # The lecture's loop `p.data += -lr * p.grad`, by hand, is what SGD(lr) does.
    a, b = Value(2.0), Value(-3.0)
    loss = (a * b + 1) ** 2
    loss.backward()
    expected = [a.data - 0.01 * a.grad, b.data - 0.01 * b.grad]
    SGD([a, b], lr=0.01).step()
    assert [a.data, b.data] == expected


def test_zero_grad_resets_floats_arrays_and_keeps_none():
    v = Value(1.0)
    v.grad = math.inf
    arr = ArrayParam([1.0, 2.0])
    old_grad = np.array([math.inf, -3.0])
    arr.grad = old_grad
    none = ArrayParam([0.0])
    opt = SGD([v, arr, none], lr=0.1)
    opt.zero_grad(set_to_none=False)
    assert v.grad == 0.0 and isinstance(v.grad, float)
    np.testing.assert_array_equal(arr.grad, [0.0, 0.0])  # not nan, though the old grad was inf
    assert arr.grad is not old_grad and old_grad[1] == -3.0  # a new array, the old one intact
    assert none.grad is None
    v.grad, arr.grad = 5.0, old_grad
    opt.zero_grad()  # PyTorch's default set_to_none=True -- but a Value's grad stays a number
    assert v.grad == 0.0 and isinstance(v.grad, float) and arr.grad is None
    x = Value(3.0)
    (x * x).backward()
    SGD([x], lr=0.1).zero_grad()
    (x * x).backward()  # the lecture's `grad += ...` still works after zero_grad()
    assert x.grad == 6.0


def test_zero_grad_defaults_to_none_for_tensors_as_torch():
    w = micrograd.tensor([1.0, -2.0], requires_grad=True)
    ref = torch.tensor([1.0, -2.0], dtype=torch.float64, requires_grad=True)
    opt, ref_opt = SGD([w], lr=0.1), torch.optim.SGD([ref], lr=0.1)
    for params, optimizer in (([w], opt), ([ref], ref_opt)):
        (params[0] * params[0]).sum().backward()
        optimizer.zero_grad()
    assert w.grad is None and ref.grad is None
    (w * 3).sum().backward()
    (ref * 3).sum().backward()
    np.testing.assert_array_equal(w.grad, ref.grad.numpy())


def test_zero_grad_then_backward_gives_the_fresh_gradient():
    x = Value(3.0)
    opt = SGD([x], lr=0.1)
    (x * x).backward()
    (x * x).backward()
    assert x.grad == 12.0  # accumulated twice
    opt.zero_grad()
    (x * x).backward()
    assert x.grad == 6.0


# --- schedules ---------------------------------------------------------------------------


def test_linear_decay_is_the_demo_notebooks_learning_rate_bit_for_bit():
    opt = SGD([Value(0.0)], lr=1.0)
    schedule = LinearDecay(opt, decay=0.9, steps=100)
    for k in range(100):
        assert opt.lr == 1.0 - 0.9 * k / 100  # the notebook's expression, exactly
        opt.step()
        schedule.step()


def _torch_lrs(make_schedule, steps, lr=0.5):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=lr)
    schedule = make_schedule(opt)
    lrs = []
    for _ in range(steps):
        lrs.append(opt.param_groups[0]["lr"])
        p.grad = torch.zeros(1)
        opt.step()
        schedule.step()
    return lrs


def _our_lrs(make_schedule, steps, lr=0.5):
    opt = SGD([Value(0.0)], lr=lr)
    schedule = make_schedule(opt)
    lrs = []
    for _ in range(steps):
        lrs.append(opt.lr)
        opt.step()
        schedule.step()
    return lrs


@pytest.mark.parametrize(
    "ours, theirs",
    [
        (lambda o: StepLR(o, step_size=7, gamma=0.5),
         lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=7, gamma=0.5)),
        (lambda o: CosineAnnealingLR(o, T_max=20, eta_min=0.01),
         lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=20, eta_min=0.01)),
        (lambda o: LambdaLR(o, lambda k: 0.95**k),
         lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda k: 0.95**k)),
    ],
    ids=["StepLR", "CosineAnnealingLR", "LambdaLR"],
)
def test_schedules_follow_torch(ours, theirs):
    np.testing.assert_allclose(_our_lrs(ours, 20), _torch_lrs(theirs, 20), rtol=1e-12)


def test_schedule_changes_the_update_size():
    p = Value(0.0)
    opt = SGD([p], lr=1.0)
    schedule = StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        p.grad = 1.0
        opt.step()
        schedule.step()
    assert p.data == -(1.0 + 0.5 + 0.25)


# --- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: SGD([], lr=0.1), "empty parameter list"),
        (lambda: SGD([Value(1.0)], lr=-0.1), "lr must be a number >= 0"),
        (lambda: SGD([Value(1.0)], lr="fast"), "lr must be a number >= 0"),
        (lambda: SGD([Value(1.0)], lr=0.1, momentum=-1), "momentum"),
        (lambda: SGD([Value(1.0)], lr=0.1, nesterov=True), "nesterov"),
        (lambda: Adam([Value(1.0)], betas=(1.0, 0.999)), r"betas\[0\] must be in \[0, 1\)"),
        (lambda: AdamW([Value(1.0)], weight_decay=-1), "weight_decay"),
        (lambda: StepLR(SGD([Value(1.0)], lr=0.1), step_size=0), "step_size"),
        (lambda: StepLR(SGD([Value(1.0)], lr=0.1), step_size=True),
         "step_size must be a positive int"),
        (lambda: CosineAnnealingLR(SGD([Value(1.0)], lr=0.1), T_max=2.5),
         "T_max must be a positive int"),
        (lambda: LinearDecay(SGD([Value(1.0)], lr=0.1), decay=0.9, steps=-1),
         "steps must be a positive int"),
    ],
)
def test_bad_settings_raise_value_error_saying_what_is_expected(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_parameter_without_data_and_grad_is_a_type_error():
    with pytest.raises(TypeError, match=r"need \.data and \.grad, got float"):
        SGD([1.0], lr=0.1)


@pytest.mark.parametrize("ours, theirs, kwargs", CONFIGS[1:2] + CONFIGS[5:6], ids=["SGD", "Adam"])
def test_float32_arrays_stay_float32_and_follow_torch(ours, theirs, kwargs):
    start = np.array([[0.5, -1.5], [2.0, 0.25]], dtype=np.float32)
    p = ArrayParam(start)
    p.data = start.copy()
    ref = torch.tensor(start, requires_grad=True)
    opt, ref_opt = ours([p], **kwargs), theirs([ref], **kwargs)
    for grad in gradient_sequence((2, 2), 3):
        p.grad = grad.astype(np.float32)
        ref.grad = torch.tensor(grad, dtype=torch.float32)
        opt.step()
        ref_opt.step()
    assert p.data.dtype == np.float32
    np.testing.assert_allclose(p.data, ref.detach().numpy(), rtol=1e-5)


def test_a_parameter_listed_twice_is_refused():
    v = Value(1.0)
    with pytest.raises(ValueError, match="parameter 1 appears more than once"):
        SGD([v, v], lr=0.1)
