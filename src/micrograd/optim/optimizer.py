"""The Optimizer base class: parameter groups, state, zero_grad, state_dict.

A parameter is any object whose `.data` and `.grad` support `+ - * / **` with floats: a
`Value` (floats) or a Tensor (numpy arrays). So the package uses arithmetic operators only
(`x ** 0.5`, never `math.sqrt(x)`) and never imports numpy: a scalar-only install works.

Parameter and gradient values are read and written through the accessors below and
nowhere else. A Tensor's `.data`/`.grad` are Tensors (as torch's), so for a Tensor they
use its raw arrays `_array`/`_grad_array`: plain numpy arithmetic, no Tensor made per step.
A write goes through the Tensor's storage API (`_array_to_change`), which bumps its version
as torch's in-place `add_` does: a graph that saved the old weights cannot backward().
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from micrograd._validate import check_positive_int as check_positive_int  # lr_scheduler's


def param_value(p: Any) -> Any:
    """The number or array a parameter holds (a Tensor's raw array, a Value's float)."""
    try:
        return p._array
    except AttributeError:
        return p.data


def grad_value(p: Any) -> Any:
    """The number or array of a parameter's gradient (None: no gradient, no step)."""
    try:
        return p._grad_array
    except AttributeError:
        return p.grad


def _array_to_change(p: Any) -> Any:
    """The array to update in place: a Tensor's through its storage API (bumping its
    version), another parameter's array `.data` as it is; None for a number."""
    try:
        return p._array_to_change()
    except AttributeError:
        data = p.data
        return data if hasattr(data, "shape") and hasattr(data, "dtype") else None


def subtract_from_param(p: Any, delta: Any) -> None:
    """p <- p - delta: in place for an array (no new array: the step stays as fast as a
    rebinding one, and views of the parameter see the change); a number is rebound."""
    array = _array_to_change(p)
    if array is None:
        p.data = p.data - delta
    else:
        array -= delta


def scale_param(p: Any, factor: float) -> None:
    """p <- p * factor, in place for an array."""
    array = _array_to_change(p)
    if array is None:
        p.data = p.data * factor
    else:
        array *= factor


def zeros_like(x: Any) -> Any:
    """A fresh zero of x's kind: 0.0 for a float, a zero-filled copy for an array.

    Not `0.0 * x`: that is nan where x is inf or nan, and the nan would stick forever."""
    if isinstance(x, (int, float)):
        return 0.0
    fill = getattr(x, "fill", None)  # numpy arrays have fill()
    if fill is not None:
        zero = x.copy()
        zero.fill(0)
        return zero
    return 0.0 * x


def copy_value(x: Any) -> Any:
    """An independent copy, so later in-place `grad += ...` cannot reach our state."""
    return x if isinstance(x, (int, float)) else x.copy()


def check_nonnegative(name: str, x: Any) -> None:
    if not isinstance(x, (int, float)) or isinstance(x, bool) or not x >= 0:
        raise ValueError(f"{name} must be a number >= 0, got {x!r}")


def _is_parameter(p: Any) -> bool:
    return hasattr(p, "data") and hasattr(p, "grad")


class Optimizer:
    """Holds parameter groups (`param_groups`: a list of dicts with "params" and the
    hyperparameters, editable between steps) and per-parameter state; subclasses define
    step()."""

    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]):
        if "lr" in defaults:
            check_nonnegative("lr", defaults["lr"])
            defaults["lr"] = float(defaults["lr"])
        self.defaults = defaults
        self.state: dict[int, dict[str, Any]] = {}  # per parameter, keyed by id(p)
        self.param_groups: list[dict[str, Any]] = []
        if _is_parameter(params):
            raise TypeError("params should be an iterable of parameters or of dicts, got "
                            f"a single {type(params).__name__}: wrap it in a list")
        items = list(params)
        if not items:
            raise ValueError("optimizer got an empty parameter list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own hyperparameters (missing ones take the
        optimizer's defaults), e.g. to train a new layer at another learning rate."""
        if not isinstance(param_group, dict):
            raise TypeError(f"a parameter group must be a dict, got {type(param_group).__name__}")
        params = param_group.get("params")
        if params is None:
            raise ValueError("a parameter group needs a 'params' entry")
        params = [params] if _is_parameter(params) else list(params)
        known = {id(p) for group in self.param_groups for p in group["params"]}
        seen: set[int] = set()
        for i, p in enumerate(params):
            if not _is_parameter(p):
                raise TypeError(f"optimizer parameters need .data and .grad, got "
                                f"{type(p).__name__}")
            if id(p) in seen:  # it would take two steps per step()
                raise ValueError(f"parameter {i} appears more than once in the parameter list")
            if id(p) in known:
                raise ValueError(f"parameter {i} of the new group is already in another "
                                 "parameter group")
            seen.add(id(p))
        group = {**self.defaults, **param_group, "params": params}
        check_nonnegative("lr", group.get("lr", 0.0))
        self.param_groups.append(group)

    @property
    def params(self) -> list[Any]:
        """All parameters of all groups, in order."""
        return [p for group in self.param_groups for p in group["params"]]

    @property
    def lr(self) -> float:
        """The first group's learning rate; setting it sets every group's."""
        return float(self.param_groups[0]["lr"])

    @lr.setter
    def lr(self, value: float) -> None:
        for group in self.param_groups:
            group["lr"] = value

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients: array gradients become None (torch's default; the next
        backward starts them fresh), or zero-filled arrays with set_to_none=False. A number
        gradient (a Value's) always becomes 0.0: the lecture's `child.grad += ...` needs a
        number there."""
        for p in self.params:
            grad = grad_value(p)
            if isinstance(grad, (int, float)):
                p.grad = 0.0
            elif set_to_none:
                p.grad = None
            elif grad is not None:
                p.grad = zeros_like(grad)

    def step(self, closure: Any = None) -> Any:
        """One update of every parameter that has a gradient; closure (optional) recomputes
        the loss first and its value is returned, as torch."""
        loss = closure() if closure is not None else None
        for group in self.param_groups:
            self._step_group(group)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:
        """One update of each parameter of `group` that has a gradient."""
        for p in group["params"]:
            grad = grad_value(p)
            if grad is not None:
                self._update(p, grad, self.state.setdefault(id(p), {}), group)

    def _update(self, p: Any, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    # --- saving and restoring -------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}: torch's
        layout, parameters numbered in order over the groups."""
        index: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = [index.setdefault(id(p), len(index)) for p in group["params"]]
            groups.append(packed)
        state = {index[key]: dict(value) for key, value in self.state.items() if key in index}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore hyperparameters and state saved by state_dict() (ours or torch's: torch
        tensors and micrograd Tensors are turned into arrays of the parameter's dtype)."""
        if not isinstance(state_dict, dict) or "param_groups" not in state_dict:
            raise ValueError("expected an optimizer state_dict with 'state' and 'param_groups'")
        saved_groups = state_dict["param_groups"]
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(f"loaded state dict has {len(saved_groups)} parameter groups, "
                             f"this optimizer has {len(self.param_groups)}")
        by_index: dict[int, Any] = {}
        for saved, group in zip(saved_groups, self.param_groups, strict=True):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't "
                                 f"match the size of optimizer's group ({len(saved['params'])} "
                                 f"against {len(group['params'])} parameters)")
            by_index.update(zip(saved["params"], group["params"], strict=True))
            for key, value in saved.items():
                if key != "params":
                    group[key] = value
        self.state = {}
        for key, values in state_dict.get("state", {}).items():
            p = by_index.get(int(key))
            if p is None:
                raise ValueError(f"loaded state refers to parameter {key}, which no group has")
            self.state[id(p)] = {name: _restore(name, value, param_value(p))
                                 for name, value in values.items()}

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for key in sorted(k for k in group if k != "params"):
                lines.append(f"    {key}: {group[key]}")
        return "\n".join(lines) + "\n)"


def _restore(name: str, value: Any, like: Any) -> Any:
    """A saved state value as this optimizer keeps it: the step count as a number, other
    tensors as arrays of the parameter's dtype (a number for a Value's state)."""
    if isinstance(value, (int, float)):
        return value
    array = value.detach().numpy() if hasattr(value, "detach") else value
    array = array.numpy() if hasattr(array, "numpy") else array
    if name == "step" or not hasattr(like, "dtype"):
        return float(array)
    return array.astype(like.dtype)  # a copy, so the saved dict is not shared
