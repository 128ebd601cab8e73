"""Learning-rate schedules, as torch.optim.lr_scheduler. As in torch: create the schedule
after the optimizer (it sets the step-0 learning rate at once), and call schedule.step()
after every optimizer.step(). Each parameter group follows the schedule from its own
starting learning rate (`initial_lr`, kept in the group as torch keeps it)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Callable, Sequence
from typing import Any

from micrograd.optim.optimizer import Optimizer, check_positive_int

__all__ = [
    "LRScheduler", "LambdaLR", "LinearDecay", "StepLR", "MultiStepLR", "ExponentialLR",
    "CosineAnnealingLR", "OneCycleLR",
]


class LRScheduler:
    """Base class: sets each group's lr to lr_for(k, base_lr) for k = 0, 1, 2, ...
    (one k per step())."""

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"a schedule needs a micrograd.optim optimizer, got {optimizer!r}")
        if last_epoch != -1:
            raise NotImplementedError("resuming a schedule with last_epoch is not supported "
                                      "yet: use load_state_dict()")
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            group.setdefault("initial_lr", group["lr"])
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = 0
        self._apply()

    @property
    def base_lr(self) -> float:
        """The first group's starting learning rate."""
        return float(self.base_lrs[0])

    @property
    def last_step(self) -> int:
        return self.last_epoch

    @property
    def lr(self) -> float:
        """The first group's current learning rate."""
        return float(self._last_lr[0])

    def lr_for(self, k: int, base_lr: float) -> float:
        """The learning rate at step k for a group that started at base_lr."""
        raise NotImplementedError

    def lr_at(self, k: int) -> float:
        """The first group's learning rate at step k."""
        return self.lr_for(k, self.base_lr)

    def _apply(self) -> None:
        self._last_lr = [self.lr_for(self.last_epoch, base) for base in self.base_lrs]
        # A group added to the optimizer after this scheduler was made keeps its own rate,
        # as in torch: the zip stops at the groups the scheduler knows.
        for group, lr in zip(self.optimizer.param_groups, self._last_lr, strict=False):
            group["lr"] = lr

    def step(self) -> None:
        """Advance to the next step and update the optimizer's learning rates."""
        self.last_epoch += 1
        self._apply()

    def get_last_lr(self) -> list[float]:
        """The learning rates of the groups, as last set."""
        return list(self._last_lr)

    def state_dict(self) -> dict[str, Any]:
        """Everything but the optimizer (and functions, which cannot be saved)."""
        return {k: v for k, v in self.__dict__.items()
                if k != "optimizer" and not callable(v)}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        self.__dict__.update(state_dict)
        self._apply()


class LambdaLR(LRScheduler):
    """lr_k = base_lr * lr_lambda(k), as torch.optim.lr_scheduler.LambdaLR."""

    def __init__(self, optimizer: Optimizer, lr_lambda: Callable[[int], float],
                 last_epoch: int = -1):
        self.lr_lambda = lr_lambda
        super().__init__(optimizer, last_epoch)

    def lr_for(self, k: int, base_lr: float) -> float:
        return base_lr * self.lr_lambda(k)


class LinearDecay(LRScheduler):
    """lr_k = start - decay * k / steps: the micrograd demo's lr = 1.0 - 0.9*k/100.

    LinearDecay(opt, start=1.0, decay=0.9, steps=100) gives the demo's numbers to the last
    bit (same expression, same rounding). `start` defaults to the group's lr.
    """

    def __init__(self, optimizer: Optimizer, decay: float, steps: int,
                 start: float | None = None):
        check_positive_int("steps", steps)
        self.start = start
        self.decay = decay
        self.steps = steps
        super().__init__(optimizer)

    def lr_for(self, k: int, base_lr: float) -> float:
        start = base_lr if self.start is None else self.start
        return start - self.decay * k / self.steps


class StepLR(LRScheduler):
    """lr_k = base_lr * gamma ** (k // step_size), as torch.optim.lr_scheduler.StepLR."""

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1,
                 last_epoch: int = -1):
        check_positive_int("step_size", step_size)
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_for(self, k: int, base_lr: float) -> float:
        return base_lr * self.gamma ** (k // self.step_size)


class MultiStepLR(LRScheduler):
    """lr_k = base_lr * gamma ** (number of milestones <= k)."""

    def __init__(self, optimizer: Optimizer, milestones: Sequence[int], gamma: float = 0.1,
                 last_epoch: int = -1):
        self.milestones = sorted(int(m) for m in milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_for(self, k: int, base_lr: float) -> float:
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, k)


class ExponentialLR(LRScheduler):
    """lr_k = base_lr * gamma ** k."""

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_for(self, k: int, base_lr: float) -> float:
        return base_lr * self.gamma**k


class CosineAnnealingLR(LRScheduler):
    """lr_k = eta_min + (base_lr - eta_min) (1 + cos(pi k / T_max)) / 2 (torch's closed form)."""

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0,
                 last_epoch: int = -1):
        check_positive_int("T_max", T_max)
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def lr_for(self, k: int, base_lr: float) -> float:
        cosine = (1 + math.cos(math.pi * k / self.T_max)) / 2
        return self.eta_min + (base_lr - self.eta_min) * cosine


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith): lr warms up from max_lr/div_factor to max_lr over
    pct_start of the steps, then anneals to initial_lr/final_div_factor; momentum (or
    Adam's beta1) moves the opposite way between max_momentum and base_momentum."""

    def __init__(self, optimizer: Optimizer, max_lr: float | Sequence[float],
                 total_steps: int | None = None, epochs: int | None = None,
                 steps_per_epoch: int | None = None, pct_start: float = 0.3,
                 anneal_strategy: str = "cos", cycle_momentum: bool = True,
                 base_momentum: float = 0.85, max_momentum: float = 0.95,
                 div_factor: float = 25.0, final_div_factor: float = 1e4,
                 three_phase: bool = False, last_epoch: int = -1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("OneCycleLR needs total_steps, or epochs and steps_per_epoch")
            check_positive_int("epochs", epochs)
            check_positive_int("steps_per_epoch", steps_per_epoch)
            total_steps = epochs * steps_per_epoch
        check_positive_int("total_steps", total_steps)
        if not 0 <= pct_start <= 1 or isinstance(pct_start, bool):
            raise ValueError(f"pct_start must be a number in [0, 1], got {pct_start!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        self.total_steps = total_steps
        self.anneal_strategy = anneal_strategy
        groups = optimizer.param_groups
        max_lrs = ([float(max_lr)] * len(groups) if isinstance(max_lr, (int, float))
                   else [float(v) for v in max_lr])
        if len(max_lrs) != len(groups):
            raise ValueError(f"expected {len(groups)} max_lr values, got {len(max_lrs)}")
        for group, top in zip(groups, max_lrs, strict=True):
            group["initial_lr"] = top / div_factor
            group["max_lr"] = top
            group["min_lr"] = group["initial_lr"] / final_div_factor
        if three_phase:
            self.phases = [
                (float(pct_start * total_steps) - 1, "initial_lr", "max_lr", "max_momentum",
                 "base_momentum"),
                (float(2 * pct_start * total_steps) - 2, "max_lr", "initial_lr",
                 "base_momentum", "max_momentum"),
                (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum"),
            ]
        else:
            self.phases = [
                (float(pct_start * total_steps) - 1, "initial_lr", "max_lr", "max_momentum",
                 "base_momentum"),
                (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum"),
            ]
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            for group in groups:
                if "momentum" not in group and "betas" not in group:
                    raise ValueError("optimizer must support momentum or beta1 with "
                                     "cycle_momentum enabled")
                group["base_momentum"], group["max_momentum"] = base_momentum, max_momentum
        self._use_betas = "betas" in groups[0]
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start: float, end: float, pct: float) -> float:
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def _at(self, k: int, group: dict[str, Any]) -> tuple[float, float | None]:
        if k > self.total_steps:
            raise ValueError(f"tried to step {k} times; OneCycleLR was set up for "
                             f"total_steps={self.total_steps}")
        start_step = 0.0
        for i, (end_step, lr_from, lr_to, m_from, m_to) in enumerate(self.phases):
            if k <= end_step or i == len(self.phases) - 1:
                pct = (k - start_step) / (end_step - start_step)
                lr = self._anneal(group[lr_from], group[lr_to], pct)
                momentum = (self._anneal(group[m_from], group[m_to], pct)
                            if self.cycle_momentum else None)
                return lr, momentum
            start_step = end_step
        raise AssertionError("unreachable: the last phase always matches")

    def lr_for(self, k: int, base_lr: float) -> float:
        return self._at(k, self.optimizer.param_groups[0])[0]

    def _apply(self) -> None:
        self._last_lr = []
        for group in self.optimizer.param_groups:
            lr, momentum = self._at(self.last_epoch, group)
            group["lr"] = lr
            self._last_lr.append(lr)
            if momentum is not None:
                if self._use_betas:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
