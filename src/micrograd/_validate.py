"""Argument checks shared by the library: one wording for one mistake, everywhere."""

from __future__ import annotations

from typing import Any


def is_positive_int(n: Any) -> bool:
    """True for 1, 2, ... (ints and int-like types such as numpy's; not bool, not 2.0)."""
    if isinstance(n, bool) or not hasattr(n, "__index__"):
        return False
    try:
        return n.__index__() >= 1
    except TypeError:
        return False


def check_positive_int(name: str, n: Any) -> int:
    """n as an int, or ValueError: '{name} must be a positive integer, got {n!r}'."""
    if not is_positive_int(n):
        raise ValueError(f"{name} must be a positive integer, got {n!r}")
    return int(n.__index__())


REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction: Any) -> str:
    """reduction itself, or ValueError in torch's words plus what is expected."""
    if not isinstance(reduction, str) or reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction: reduction must be "
                         "one of 'mean', 'sum' or 'none'")
    return reduction


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """reduction, or what torch's deprecated size_average=/reduce= flags mean (with torch's
    warning): reduce=False -> 'none', size_average=False -> 'sum', else 'mean'."""
    if size_average is None and reduce is None:
        return reduction
    import warnings

    meant = "none" if reduce is False else "sum" if size_average is False else "mean"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{meant}' instead.", UserWarning, stacklevel=3)
    return meant


def check_weight_size(weight_shape: Any, input_shape: Any) -> None:
    """A loss's weight= must have the input's shape (mse_loss, l1_loss, huber_loss): torch's
    error otherwise."""
    if tuple(weight_shape) != tuple(input_shape):
        raise ValueError(f"Weights and input must have the same size: weight "
                         f"{list(weight_shape)}, input {list(input_shape)}")
