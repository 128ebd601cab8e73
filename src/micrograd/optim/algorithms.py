"""SGD, Adam, AdamW, RMSprop, Adagrad: torch.optim's update formulas (single-tensor path),
written in the same order so that a run matches torch to the last few bits.

Each `_update` gets one parameter with its gradient, state and group; it works on floats
(Values) and on numpy arrays alike, and changes the parameter through the accessors
`subtract_from_param` / `scale_param` (in place for arrays).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from typing import Any

from micrograd.optim.optimizer import (
    Optimizer,
    check_nonnegative,
    copy_value,
    grad_value,
    param_value,
    scale_param,
    subtract_from_param,
    zeros_like,
)

__all__ = ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad"]

# Adam's numpy passes over a parameter; below _PARALLEL_ELEMENTS elements in a group, a
# thread hand-off costs more than it saves
_ADAM_PASSES = 12
_PARALLEL_ELEMENTS = 1 << 16


def _divide(a: Any, b: Any, eps: float) -> Any:
    """a / b, where b = something >= 0 plus eps. With eps = 0 the divisor can be 0, and then
    as in IEEE and torch 0/0 is nan and x/0 is +-inf, never an exception or a warning
    (Adam(eps=0) with a zero gradient gives nan, as in torch)."""
    if eps > 0:
        return a / b  # the common case, without the warnings machinery's cost
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return a / b
    except ZeroDivisionError:  # Python floats (Values)
        if a == 0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)


def _check_betas(betas: tuple[float, float]) -> tuple[float, float]:
    beta1, beta2 = betas
    for name, beta in (("betas[0]", beta1), ("betas[1]", beta2)):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"{name} must be in [0, 1), got {beta!r}")
    return float(beta1), float(beta2)


def _refuse(name: str, flag: bool) -> None:
    if flag:
        raise NotImplementedError(f"{name}=True is not supported by micrograd.optim yet")


# torch's implementation switches: they choose how torch computes, not what; accepted so
# scripts that pass them run (differentiable=True would change what, so it is refused)
_IMPLEMENTATION_OPTIONS = frozenset({"foreach", "fused", "capturable", "differentiable"})


def _check_options(options: dict[str, Any]) -> dict[str, Any]:
    """The switches as the group entries torch keeps for them."""
    unknown = set(options) - _IMPLEMENTATION_OPTIONS
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    _refuse("differentiable", bool(options.get("differentiable")))
    return {"foreach": options.get("foreach"), "differentiable": False,
            "fused": options.get("fused")}


class SGD(Optimizer):
    """Stochastic gradient descent: p <- p - lr * g, with optional momentum and weight decay.

    g = grad + weight_decay * p;  buf = g (first step), else momentum * buf + (1 - dampening) * g;
    nesterov: g = g + momentum * buf, else g = buf.  Exactly torch.optim.SGD.
    """

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 *, maximize: bool = False, **options: Any):
        switches = _check_options(options)
        check_nonnegative("lr", lr)
        check_nonnegative("momentum", momentum)
        check_nonnegative("weight_decay", weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("nesterov momentum needs momentum > 0 and dampening = 0")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, **switches))

    def _step_group(self, group: dict[str, Any]) -> None:
        if group["momentum"] or group["weight_decay"] or group["maximize"]:
            super()._step_group(group)
            return
        # plain SGD, p <- p - lr * g: no state (torch keeps none either), nothing per
        # parameter but the update itself; a tiny model's step is mostly this loop
        lr = group["lr"]
        for p in group["params"]:
            g = grad_value(p)
            if g is not None:
                subtract_from_param(p, lr * g)

    def _update(self, p: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param_value(p)  # L2 penalty folded into the gradient
        momentum = group["momentum"]
        if momentum != 0:
            if state.get("momentum_buffer") is None:
                buf = copy_value(g)
            else:
                buf = state["momentum_buffer"] * momentum + (1 - group["dampening"]) * g
            state["momentum_buffer"] = buf
            g = g + momentum * buf if group["nesterov"] else buf
        subtract_from_param(p, group["lr"] * g)


class Adam(Optimizer):
    """Adam with bias correction (torch.optim.Adam):

    m <- m + (1 - b1)(g - m);  v <- b2 v + (1 - b2) g^2;
    p <- p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps).
    weight_decay adds weight_decay * p to g (L2, coupled); AdamW decouples it.
    """

    decoupled_weight_decay = False

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0.0, amsgrad: bool = False, *, maximize: bool = False,
                 **options: Any):
        switches = _check_options(options)
        check_nonnegative("lr", lr)
        check_nonnegative("eps", eps)
        check_nonnegative("weight_decay", weight_decay)
        _refuse("amsgrad", amsgrad)
        super().__init__(params, dict(lr=lr, betas=_check_betas(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, **switches))

    def _update(self, p: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        beta1, beta2 = group["betas"]
        lr, weight_decay = group["lr"], group["weight_decay"]
        if group["maximize"]:
            g = -g
        if weight_decay != 0:
            if self.decoupled_weight_decay:  # AdamW: shrink p itself
                scale_param(p, 1 - lr * weight_decay)
            else:
                g = g + weight_decay * param_value(p)
        if "step" not in state:
            state["step"] = 0.0
            state["exp_avg"] = zeros_like(g)
            state["exp_avg_sq"] = zeros_like(g)
        state["step"] += 1
        t = state["step"]
        # m and v change in place (arrays; numbers are rebound), as torch's exp_avg and
        # exp_avg_sq do: the same rounding as m + (1 - b1)(g - m), v b2 + (1 - b2) g g
        m = state["exp_avg"] = _lerp_in_place(state["exp_avg"], g, 1 - beta1)
        v = state["exp_avg_sq"]
        v *= beta2
        g_sq = (1 - beta2) * g
        g_sq *= g
        v += g_sq
        state["exp_avg_sq"] = v
        step_size = lr / (1 - beta1**t)
        denom = v**0.5
        denom /= math.sqrt(1 - beta2**t)
        denom += group["eps"]
        subtract_from_param(p, _divide(step_size * m, denom, group["eps"]))

    def _step_group(self, group: dict[str, Any]) -> None:
        """Each parameter's update on its own: big array groups spread over threads
        (tensors/parallel.py), a parameter at a time."""
        todo = [(p, g, self.state.setdefault(id(p), {})) for p in group["params"]
                if (g := grad_value(p)) is not None]
        elements = sum(getattr(g, "size", 1) for _, g, _ in todo)
        if elements < _PARALLEL_ELEMENTS or len(todo) < 2:
            for p, g, state in todo:
                self._update(p, g, state, group)
            return
        from micrograd.tensors import parallel  # arrays here, so numpy is installed

        def update(part: slice) -> None:
            for p, g, state in todo[part]:
                self._update(p, g, state, group)

        parallel.run(update, len(todo), elements * _ADAM_PASSES)


class AdamW(Adam):
    """Adam with decoupled weight decay (torch.optim.AdamW): p <- p (1 - lr wd), then Adam."""

    decoupled_weight_decay = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 **options: Any):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         **options)


class RMSprop(Optimizer):
    """RMSprop (torch.optim.RMSprop): v <- alpha v + (1 - alpha) g^2;
    p <- p - lr g / (sqrt(v) + eps); centered subtracts the squared running mean of g
    under the root; momentum keeps a buffer of those steps."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0.0, momentum: float = 0.0,
                 centered: bool = False, *, maximize: bool = False, **options: Any):
        switches = _check_options(options)
        for name, x in (("lr", lr), ("alpha", alpha), ("eps", eps),
                        ("weight_decay", weight_decay), ("momentum", momentum)):
            check_nonnegative(name, x)
        super().__init__(params, dict(lr=lr, alpha=alpha, eps=eps, weight_decay=weight_decay,
                                      momentum=momentum, centered=centered, maximize=maximize,
                                      **switches))

    def _update(self, p: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        alpha, momentum = group["alpha"], group["momentum"]
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param_value(p)
        if "step" not in state:
            state["step"] = 0.0
            state["square_avg"] = zeros_like(g)
            if momentum > 0:
                state["momentum_buffer"] = zeros_like(g)
            if group["centered"]:
                state["grad_avg"] = zeros_like(g)
        state["step"] += 1
        square_avg = state["square_avg"] * alpha + (1 - alpha) * (g * g)
        state["square_avg"] = square_avg
        if group["centered"]:
            grad_avg = _lerp(state["grad_avg"], g, 1 - alpha)
            state["grad_avg"] = grad_avg
            avg = (square_avg + -1 * (grad_avg * grad_avg)) ** 0.5 + group["eps"]
        else:
            avg = square_avg**0.5 + group["eps"]
        if momentum > 0:
            buf = state["momentum_buffer"] * momentum + _divide(g, avg, group["eps"])
            state["momentum_buffer"] = buf
            subtract_from_param(p, group["lr"] * buf)  # p + (-lr) buf, the same bits
        else:
            subtract_from_param(p, group["lr"] * _divide(g, avg, group["eps"]))


class Adagrad(Optimizer):
    """Adagrad (torch.optim.Adagrad): s <- s + g^2;
    p <- p - lr / (1 + (t - 1) lr_decay) * g / (sqrt(s) + eps)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0.0,
                 weight_decay: float = 0.0, initial_accumulator_value: float = 0.0,
                 eps: float = 1e-10, *, maximize: bool = False, **options: Any):
        switches = _check_options(options)
        for name, x in (("lr", lr), ("lr_decay", lr_decay), ("weight_decay", weight_decay),
                        ("initial_accumulator_value", initial_accumulator_value), ("eps", eps)):
            check_nonnegative(name, x)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      eps=eps, maximize=maximize, **switches))

    def _update(self, p: Any, g: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        if "step" not in state:  # torch fills the sum when the optimizer is made; same values
            state["step"] = 0.0
            state["sum"] = zeros_like(param_value(p)) + group["initial_accumulator_value"]
        if group["maximize"]:
            g = -g
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * param_value(p)
        state["step"] += 1
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        state["sum"] = state["sum"] + g * g
        std = state["sum"] ** 0.5 + group["eps"]
        subtract_from_param(p, clr * _divide(g, std, group["eps"]))


def _lerp_in_place(start: Any, end: Any, weight: float) -> Any:
    """_lerp(start, end, weight), written into start when it is an array and weight < 0.5."""
    if weight < 0.5:
        step = end - start
        step *= weight
        start += step
        return start
    return _lerp(start, end, weight)


def _lerp(start: Any, end: Any, weight: float) -> Any:
    """start + weight (end - start), rounded the way torch.lerp rounds it."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)
