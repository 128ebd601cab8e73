"""The op registry's elementwise ops as Tensor functions: `exp(t)`, `t.exp()`, `t.exp_()`.

Each registry entry (micrograd/ops/table.py) becomes one function on the public kernel: its
rule on the numpy namespace gives the forward and the VJP, its dtype rule says whether
integers become the default float dtype first (as torch.exp of an integer tensor does), and
`quiet` silences numpy's warnings where the forward can make inf or nan. `install` in
micrograd/tensors/install.py puts them on Tensor; nothing here writes into another module.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from micrograd.ops import OPS, Op, Rule
from micrograd.ops.arrays import ARRAYS
from micrograd.tensors import dtypes
from micrograd.tensors.function import in_place, unary
from micrograd.tensors.tensor import Tensor


@functools.lru_cache(maxsize=256)
def rule(name: str, params: tuple[float, ...] = ()) -> Rule:
    """The registry rule of op `name` on numpy arrays, at these parameters (default: its own)."""
    entry = OPS[name]
    values = dict(entry.params)
    values.update(zip(values, params, strict=False))
    return entry.rule(ARRAYS, **values)


def bind(entry: Op, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[float, ...]:
    """The op's parameters from a call (positional or by name), defaults filled in."""
    values = dict(entry.params)
    if len(args) > len(values):
        raise TypeError(f"{entry.name}() takes at most {len(values) + 1} arguments "
                        f"(input, {', '.join(values)}), got {len(args) + 1}")
    values.update(zip(values, args, strict=False))
    for key, value in kwargs.items():
        if key not in values:
            raise TypeError(f"{entry.name}() got an unexpected keyword argument {key!r}")
        values[key] = value
    return tuple(float(v) for v in values.values())


def _signature(entry: Op, first: str) -> inspect.Signature:
    P = inspect.Parameter
    return inspect.Signature(
        [P(first, P.POSITIONAL_OR_KEYWORD)]
        + [P(name, P.POSITIONAL_OR_KEYWORD, default=default) for name, default in entry.params],
        return_annotation="Tensor")


def function_of(entry: Op) -> Callable[..., Tensor]:
    """The Tensor function of registry op `entry`: `f(x, *params)` -> a node named entry.name."""
    name, floating, quiet = entry.name, entry.dtype != "keep", entry.quiet
    refuse_integers = entry.dtype == "float only"
    default = rule(name)

    def function(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        forward, vjp = default if not (args or kwargs) else rule(name, bind(entry, args, kwargs))
        data = x._array
        if floating and data.dtype.kind not in "fc":
            if refuse_integers:
                raise NotImplementedError(
                    f"{name} is not implemented for {data.dtype} tensors, as in torch; "
                    f"convert first, e.g. x.float()")
            data = data.astype(dtypes.default.dtype)
        if quiet:
            with np.errstate(all="ignore"):
                out = forward(data)
        else:
            out = forward(data)
        if vjp is None:
            return unary(x, out, name, None)
        return unary(x, out, name, lambda g: vjp(g, data, out))

    function.__name__ = function.__qualname__ = entry.methods[0]
    function.__doc__ = entry.doc
    function.__signature__ = _signature(entry, "input")  # type: ignore[attr-defined]
    return function


def in_place_of(entry: Op, function: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """x.NAME_(*params): the op computed into x's memory (recorded by autograd, as torch's)."""
    op = f"{entry.torch.inplace}()"

    def update(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        def write(array: np.ndarray) -> None:
            result = function(Tensor(array), *args, **kwargs)._array
            if not np.can_cast(result.dtype, array.dtype, "same_kind"):
                raise RuntimeError(f"{op}: result type {result.dtype} can't be cast to the "
                                   f"tensor's dtype {array.dtype} in place")
            np.copyto(array, result, casting="same_kind")

        return in_place(x, op, write, lambda old: function(old, *args, **kwargs))

    update.__name__ = update.__qualname__ = entry.torch.inplace
    update.__doc__ = f"{entry.name} in place: {entry.doc}"
    update.__signature__ = _signature(entry, "self")  # type: ignore[attr-defined]
    return update


FUNCTIONS: dict[str, Callable[..., Tensor]] = {name: function_of(entry)
                                               for name, entry in OPS.items()}
"""Every registry op as a Tensor function, by op name, in registry order."""


def methods() -> list[tuple[str, Callable[..., Any]]]:
    """(attribute name, function) for every registry op's Tensor methods, operators and
    in-place methods, in registry order: what `install` attaches."""
    pairs: list[tuple[str, Callable[..., Any]]] = []
    for name, entry in OPS.items():
        function = FUNCTIONS[name]
        pairs += [(method, function) for method in entry.methods]
        if entry.torch.inplace:
            pairs.append((entry.torch.inplace, in_place_of(entry, function)))
    return pairs


FUNCTIONAL: dict[str, Callable[..., Tensor]] = {
    entry.torch.functional: FUNCTIONS[name] for name, entry in OPS.items()
    if entry.torch.functional}
"""torch.nn.functional's spellings of registry ops (F.relu, F.softplus, ...)."""
