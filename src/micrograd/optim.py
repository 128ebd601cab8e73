"""Optimizers and learning-rate schedules for anything with `.data` and `.grad`.

A parameter is any object whose `.data` and `.grad` support `+ - * / **` with floats: a
`Value` (floats) or a `Tensor` (numpy arrays). So this file uses arithmetic operators only
(`x ** 0.5`, never `math.sqrt(x)`) and never imports numpy, and an update *rebinds*
`p.data` to a new value instead of changing an array in place.

The update formulas are PyTorch's (torch.optim.SGD / Adam / AdamW, single-tensor path),
written in the same order, so a run matches PyTorch to the last few bits. As in PyTorch, a
parameter whose `.grad` is None takes no step.

    opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(100):
        loss = ...                # forward
        opt.zero_grad()
        loss.backward()
        opt.step()
"""

from __future__ import annotations

import math
from typing import Any, Callable, Iterable

__all__ = [
    "Optimizer",
    "SGD",
    "Adam",
    "AdamW",
    "LRScheduler",
    "LambdaLR",
    "LinearDecay",
    "StepLR",
    "CosineAnnealingLR",
]


def _zeros_like(x: Any) -> Any:
    """A fresh zero of x's kind: 0.0 for a float, a zero-filled copy for an array.

    Not `0.0 * x`: that is nan where x is inf or nan, and the nan would stick forever.
    """
    if isinstance(x, (int, float)):
        return 0.0
    fill = getattr(x, "fill", None)  # numpy arrays (and Tensors' .data) have fill()
    if fill is not None:
        zero = x.copy()
        zero.fill(0)
        return zero
    return 0.0 * x


def _set_data(p: Any, new: Any) -> None:
    """p.data = new, keeping p.data's type: numpy turns 0-d array arithmetic into a scalar."""
    old = p.data
    if type(new) is not type(old) and not isinstance(old, (int, float)) and hasattr(old, "copy"):
        fresh = old.copy()  # a new 0-d array holding the new number; `old` is not touched
        fresh[...] = new
        new = fresh
    p.data = new


def _copy(x: Any) -> Any:
    """An independent copy, so later in-place `grad += ...` cannot reach our state."""
    return x if isinstance(x, (int, float)) else x.copy()


class Optimizer:
    """Base class: holds the parameters and the learning rate; subclasses define step()."""

    def __init__(self, params: Iterable[Any], lr: float):
        self.params = list(params)
        if not self.params:
            raise ValueError("optimizer got an empty parameter list")
        seen = set()
        for i, p in enumerate(self.params):
            if not (hasattr(p, "data") and hasattr(p, "grad")):
                raise TypeError(
                    f"optimizer parameters need .data and .grad, got {type(p).__name__}"
                )
            if id(p) in seen:  # it would take two steps per step()
                raise ValueError(f"parameter {i} appears more than once in the parameter list")
            seen.add(id(p))
        _check_nonnegative("lr", lr)
        self.lr = float(lr)
        self.state: dict[int, dict[str, Any]] = {}  # per parameter, keyed by id(p)

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: array gradients become None (PyTorch's default; the next
        backward starts them fresh, with no zero-filled array to add into), or zero-filled
        arrays with set_to_none=False. A number gradient (a Value's) always becomes 0.0:
        the lecture's `child.grad += ...` needs a number there."""
        for p in self.params:
            if isinstance(p.grad, (int, float)):
                p.grad = 0.0
            elif set_to_none:
                p.grad = None
            elif p.grad is not None:
                p.grad = _zeros_like(p.grad)

    def step(self) -> None:
        raise NotImplementedError

    def _active(self) -> Iterable[tuple[Any, Any, dict[str, Any]]]:
        """(param, grad, state) for every parameter that has a gradient."""
        for p in self.params:
            if p.grad is not None:
                yield p, p.grad, self.state.setdefault(id(p), {})

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lr={self.lr}, {len(self.params)} parameters)"


class SGD(Optimizer):
    """Stochastic gradient descent: p <- p - lr * g, with optional momentum and weight decay.

    g = grad + weight_decay * p;  buf = g (first step), else momentum * buf + (1 - dampening) * g;
    nesterov: g = g + momentum * buf, else g = buf.  Exactly torch.optim.SGD.
    """

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 0.01,
        momentum: float = 0.0,
        dampening: float = 0.0,
        weight_decay: float = 0.0,
        nesterov: bool = False,
    ):
        super().__init__(params, lr)
        _check_nonnegative("momentum", momentum)
        _check_nonnegative("weight_decay", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("nesterov momentum needs momentum > 0 and dampening = 0")
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov

    def step(self) -> None:
        for p, g, state in self._active():
            if self.weight_decay != 0:
                g = g + self.weight_decay * p.data  # L2 penalty folded into the gradient
            if self.momentum != 0:
                if "momentum_buffer" not in state:
                    buf = _copy(g)
                else:
                    buf = state["momentum_buffer"] * self.momentum + (1 - self.dampening) * g
                state["momentum_buffer"] = buf
                g = g + self.momentum * buf if self.nesterov else buf
            _set_data(p, p.data - self.lr * g)


class Adam(Optimizer):
    """Adam with bias correction (torch.optim.Adam):

    m <- m + (1 - b1)(g - m);  v <- b2 v + (1 - b2) g^2;
    p <- p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
    weight_decay adds weight_decay * p to g (L2, coupled); AdamW decouples it.
    """

    decoupled_weight_decay = False

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ):
        super().__init__(params, lr)
        beta1, beta2 = betas
        for name, beta in (("betas[0]", beta1), ("betas[1]", beta2)):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"{name} must be in [0, 1), got {beta!r}")
        _check_nonnegative("eps", eps)
        _check_nonnegative("weight_decay", weight_decay)
        self.betas = (float(beta1), float(beta2))
        self.eps = eps
        self.weight_decay = weight_decay

    def step(self) -> None:
        beta1, beta2 = self.betas
        lr = self.lr
        for p, g, state in self._active():
            if self.weight_decay != 0:
                if self.decoupled_weight_decay:
                    _set_data(p, p.data * (1 - lr * self.weight_decay))  # AdamW: shrink p itself
                else:
                    g = g + self.weight_decay * p.data
            if "step" not in state:
                state["step"] = 0
                state["exp_avg"] = _zeros_like(g)
                state["exp_avg_sq"] = _zeros_like(g)
            state["step"] += 1
            t = state["step"]
            m = _lerp(state["exp_avg"], g, 1 - beta1)  # running mean of g
            v = state["exp_avg_sq"] * beta2 + (1 - beta2) * g * g  # running mean of g^2
            state["exp_avg"], state["exp_avg_sq"] = m, v
            step_size = lr / (1 - beta1**t)
            denom = v**0.5 / math.sqrt(1 - beta2**t) + self.eps
            _set_data(p, p.data - step_size * m / denom)


class AdamW(Adam):
    """Adam with decoupled weight decay (torch.optim.AdamW): p <- p (1 - lr wd), then Adam."""

    decoupled_weight_decay = True

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
    ):
        super().__init__(params, lr, betas, eps, weight_decay)


def _lerp(start: Any, end: Any, weight: float) -> Any:
    """start + weight (end - start), rounded the way torch.lerp rounds it."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


def _check_nonnegative(name: str, x: float) -> None:
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not x >= 0:
        raise ValueError(f"{name} must be a number >= 0, got {x!r}")


def _check_positive_int(name: str, n: int) -> None:
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"{name} must be a positive int, got {n!r}")


# ---------------------------------------------------------------------------------------
# Learning-rate schedules. As in PyTorch: create the schedule after the optimizer (it sets
# the step-0 learning rate at once), and call schedule.step() after every optimizer.step().
# ---------------------------------------------------------------------------------------


class LRScheduler:
    """Base class: sets optimizer.lr = lr_at(k) for k = 0, 1, 2, ... (one per step())."""

    def __init__(self, optimizer: Optimizer):
        if not hasattr(optimizer, "lr"):
            raise TypeError(f"a schedule needs an optimizer with .lr, got {optimizer!r}")
        self.optimizer = optimizer
        self.base_lr = optimizer.lr
        self.last_step = 0
        optimizer.lr = self.lr = self.lr_at(0)

    def lr_at(self, k: int) -> float:
        """The learning rate for step k."""
        raise NotImplementedError

    def step(self) -> None:
        """Advance to the next step and update the optimizer's learning rate."""
        self.last_step += 1
        self.optimizer.lr = self.lr = self.lr_at(self.last_step)


class LambdaLR(LRScheduler):
    """lr_k = base_lr * factor(k), as torch.optim.lr_scheduler.LambdaLR."""

    def __init__(self, optimizer: Optimizer, factor: Callable[[int], float]):
        self.factor = factor
        super().__init__(optimizer)

    def lr_at(self, k: int) -> float:
        return self.base_lr * self.factor(k)


class LinearDecay(LRScheduler):
    """lr_k = start - decay * k / steps: the micrograd demo's lr = 1.0 - 0.9*k/100.

    LinearDecay(opt, start=1.0, decay=0.9, steps=100) gives the demo's numbers to the last
    bit (same expression, same rounding). `start` defaults to the optimizer's lr.
    """

    def __init__(
        self, optimizer: Optimizer, decay: float, steps: int, start: float | None = None
    ):
        _check_positive_int("steps", steps)
        self.start = optimizer.lr if start is None else start
        self.decay = decay
        self.steps = steps
        super().__init__(optimizer)

    def lr_at(self, k: int) -> float:
        return self.start - self.decay * k / self.steps


class StepLR(LRScheduler):
    """lr_k = base_lr * gamma ** (k // step_size), as torch.optim.lr_scheduler.StepLR."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1):
        _check_positive_int("step_size", step_size)
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer)

    def lr_at(self, k: int) -> float:
        return self.base_lr * self.gamma ** (k // self.step_size)


class CosineAnnealingLR(LRScheduler):
    """lr_k = eta_min + (base_lr - eta_min) (1 + cos(pi k / T_max)) / 2 (PyTorch's closed form)."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0):
        _check_positive_int("T_max", T_max)
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer)

    def lr_at(self, k: int) -> float:
        cosine = (1 + math.cos(math.pi * k / self.T_max)) / 2
        return self.eta_min + (self.base_lr - self.eta_min) * cosine
