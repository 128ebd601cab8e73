"""Check backpropagation against numbers: analytic gradients vs central differences.

    gradcheck(lambda a, b: a/b + (a*b).exp(), [Value(1.2), Value(0.7)])   # -> True

The numeric derivative (f(x+h) - f(x-h)) / 2h needs nothing but forward passes, so it does
not trust the code under test: an independent oracle. Its truncation error is O(h^2);
h = 1e-5 balances that against floating-point rounding (smaller h is worse, not better).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from micrograd.autograd import no_grad
from micrograd.engine import Value

__all__ = ["GradcheckError", "gradcheck", "numerical_grad"]


class GradcheckError(AssertionError):
    """Raised by gradcheck (Values and Tensors alike) when backward() disagrees with
    central differences.

    `.mismatches` holds one (index, analytic, numeric, error) tuple per failing argument
    of the scalar gradcheck; the Tensor gradcheck stops at the first element and says it
    in the message.
    """

    def __init__(self, message: str,
                 mismatches: list[tuple[int, float, float, float]] | None = None):
        super().__init__(message)
        self.mismatches = mismatches if mismatches is not None else []


def numerical_grad(
    f: Callable[..., Value], args: Sequence[Value], i: int, h: float = 1e-5
) -> float:
    """df/d(args[i]) ~= (f(.., x_i + h, ..) - f(.., x_i - h, ..)) / 2h, on fresh copies of args."""
    _check_args(args)
    if not 0 <= i < len(args):
        raise IndexError(f"argument index {i} is out of range for {len(args)} arguments")
    args_plus = [Value(a.data) for a in args]
    args_minus = [Value(a.data) for a in args]
    args_plus[i].data = args[i].data + h
    args_minus[i].data = args[i].data - h
    with no_grad():  # only the numbers are needed: build no graph
        up, down = _call(f, args_plus), _call(f, args_minus)
    return (up.data - down.data) / (2 * h)


def gradcheck(
    f: Callable[..., Value],
    args: Sequence[Value],
    tol: float = 1e-5,
    h: float = 1e-5,
    rtol: float = 0.0,
) -> bool:
    """True if each analytic df/d(args[i]) is within tol (+ rtol*|numeric|) of the numeric one.

    Otherwise raise GradcheckError (an AssertionError) naming every argument that disagrees,
    with its analytic value, numeric value and error. Sets the args' .grad as a side effect.
    """
    _check_args(args)
    for a in args:
        a.grad = 0.0
    out = _call(f, args)
    out.backward()
    mismatches: list[tuple[int, float, float, float]] = []
    for i, a in enumerate(args):
        numeric = numerical_grad(f, args, i, h)
        error = abs(a.grad - numeric)
        if not error < tol + rtol * abs(numeric):  # written so that nan counts as a failure
            mismatches.append((i, a.grad, numeric, error))
    if mismatches:
        raise GradcheckError(_report(f, args, out, mismatches, tol, rtol), mismatches)
    return True


def _report(
    f: Callable[..., Value],
    args: Sequence[Value],
    out: Value,
    mismatches: list[tuple[int, float, float, float]],
    tol: float,
    rtol: float,
) -> str:
    name = getattr(f, "__name__", repr(f))
    allowed = f"tol {tol:g}" + (f" + rtol {rtol:g} * |numeric|" if rtol else "")
    inputs = ", ".join(f"{a.data!r}" for a in args)
    lines = [
        f"gradcheck failed for {name}({inputs}) = {out.data!r}: "
        f"{len(mismatches)} of {len(args)} gradients disagree ({allowed})"
    ]
    for i, analytic, numeric, error in mismatches:
        lines.append(
            f"  argument {i} (data={args[i].data!r}): analytic {analytic!r}, "
            f"numeric {numeric!r}, error {error:.3g}"
        )
    return "\n".join(lines)


def _call(f: Callable[..., Value], args: Sequence[Value]) -> Value:
    out = f(*args)
    if not isinstance(out, Value):
        raise TypeError(f"gradcheck: f must return a Value, got {type(out).__name__}: {out!r:.60}")
    return out


def _check_args(args: Sequence[Value]) -> None:
    if isinstance(args, Value) or not isinstance(args, Sequence):
        raise TypeError(f"args must be a list of Values, got {type(args).__name__}")
    for i, a in enumerate(args):
        if not isinstance(a, Value):
            raise TypeError(f"argument {i} must be a Value, got {type(a).__name__}: {a!r:.60}")
        if not math.isfinite(a.data):
            raise ValueError(f"argument {i} must be finite to take differences, got {a.data!r}")
