"""The op registry's elementwise ops as Tensor functions: `exp(t)`, `t.exp()`, `t.exp_()`.

Each registry entry (micrograd/ops/table.py) becomes one function on the public kernel: its
rule on the numpy namespace gives the forward and the VJP, its dtype rule says whether
integers become the default float dtype first (as torch.exp of an integer tensor does), and
`quiet` silences numpy's warnings where the forward can make inf or nan. `install` in
micrograd/tensors/install.py puts them on Tensor; nothing here writes into another module.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from micrograd.ops import BINARY, OPS, Op, binary_rule, rule_at
from micrograd.ops.arrays import ARRAYS
from micrograd.tensors import dtypes
from micrograd.tensors.function import define_binary, in_place, unary
from micrograd.tensors.ops import selection
from micrograd.tensors.tensor import Tensor

_F32, _F64, _INT64 = np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.int64)


def _signature(entry: Op, first: str) -> inspect.Signature:
    P = inspect.Parameter
    return inspect.Signature(
        [P(first, P.POSITIONAL_OR_KEYWORD)]
        + [P(name, P.POSITIONAL_OR_KEYWORD, default=default) for name, default in entry.params],
        return_annotation="Tensor")


def binary_function(name: str) -> Callable[[Any, Any], Tensor]:
    """The Tensor function of two-input registry op `name` (micrograd/ops/binary.py):
    its forward and VJPs on arrays, on the kernel's broadcasting, promotion and summing
    back (`define_binary`). `install` makes them methods (BINARY_FUNCTIONS); the
    arithmetic operators are made in ops/elementwise.py."""
    rule = binary_rule(name, ARRAYS)
    function = define_binary(name, with_dtype_rule(name, rule.forward), rule.vjp_x, rule.vjp_y)
    function.__doc__ = BINARY[name].doc
    return function


def with_dtype_rule(name: str, forward: Callable[[Any, Any], np.ndarray]
                    ) -> Callable[[Any, Any], np.ndarray]:
    """`forward` of two-input registry op `name` under its dtype rule, on operands already
    promoted to one dtype: "promote" computes as numpy does; "float" gives two integer
    operands torch's default float dtype (numpy: float64); "float only" refuses them."""
    dtype_rule = BINARY[name].dtype
    if dtype_rule == "promote":
        return forward

    def computed(x: Any, y: Any) -> np.ndarray:
        if dtype_rule == "float only" and not any(_is_float(v) for v in (x, y)):
            raise NotImplementedError(f"{name} is not implemented for integer tensors, as in "
                                      f"torch; convert first, e.g. x.float()")
        with np.errstate(all="ignore"):  # inf and nan as torch gives them, without warnings
            out = forward(x, y)
        if (dtypes.default.dtype is _F32 and out.dtype == _F64
                and not any(_is_float(v) for v in (x, y))):
            out = out.astype(_F32)
        return out

    computed.__name__ = computed.__qualname__ = name
    return computed


def _is_float(v: Any) -> bool:
    """A float operand: a Python float or a float array (numpy's float64 for integers is
    not torch's dtype, so only these keep their own)."""
    return isinstance(v, float) or getattr(v, "dtype", _INT64).kind == "f"


def function_of(entry: Op) -> Callable[..., Tensor]:
    """The Tensor function of registry op `entry`: `f(x, *params)` -> a node named entry.name.

    Made per entry with only the steps it needs (no parameters: no argument parsing; no
    numpy warnings possible: no errstate), since a small tensor's op costs about a
    microsecond and each skipped step is a measurable share of it."""
    name, quiet = entry.name, entry.quiet
    keep_dtype, refuse_integers = entry.dtype == "keep", entry.dtype == "float only"
    default_forward, default_vjp = rule_at(name, ARRAYS)

    def floats(data: np.ndarray) -> np.ndarray:
        """The input as the op computes it: integers to the default float dtype, or refused."""
        if keep_dtype or data.dtype.kind in "fc":
            return data
        if refuse_integers:
            raise NotImplementedError(f"{name} is not implemented for {data.dtype} tensors, as "
                                      f"in torch; convert first, e.g. x.float()")
        return data.astype(dtypes.default.dtype)

    def node_of(x: Tensor, data: np.ndarray, out: Any, vjp: Any) -> Tensor:
        if not x._requires_grad or vjp is None:
            return unary(x, out, name, None)
        return unary(x, out, name, lambda g: vjp(g, data, out))

    def function(x: Tensor) -> Tensor:
        data = x._array
        dtype = data.dtype
        if dtype is not _F32 and dtype is not _F64:
            data = floats(data)
        if quiet:
            with np.errstate(all="ignore"):
                out = default_forward(data)
        else:
            out = default_forward(data)
        if not x._requires_grad or default_vjp is None:  # (node_of, inlined: a call less)
            return unary(x, out, name, None)
        return unary(x, out, name, lambda g: default_vjp(g, data, out))

    def function_with_params(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        forward, vjp = rule_at(name, ARRAYS, entry.bind(args, kwargs))
        data = floats(x._array)
        with np.errstate(all="ignore"):
            out = forward(data)
        return node_of(x, data, out, vjp)

    made = function_with_params if entry.params else function
    made.__name__ = made.__qualname__ = entry.methods[0]
    made.__doc__ = entry.doc
    made.__signature__ = _signature(entry, "input")  # type: ignore[attr-defined]
    return made


def in_place_of(entry: Op, function: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """x.NAME_(*params): the op computed into x's memory (recorded by autograd, as torch's)."""
    op = f"{entry.torch.inplace or entry.name + '_'}()"

    def update(x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        def write(array: np.ndarray) -> None:
            result = function(Tensor(array), *args, **kwargs)._array
            if not np.can_cast(result.dtype, array.dtype, "same_kind"):
                raise RuntimeError(f"{op}: result type {result.dtype} can't be cast to the "
                                   f"tensor's dtype {array.dtype} in place")
            np.copyto(array, result, casting="same_kind")

        return in_place(x, op, write, lambda old: function(old, *args, **kwargs))

    update.__name__ = update.__qualname__ = entry.torch.inplace or entry.name + "_"
    update.__doc__ = f"{entry.name} in place: {entry.doc}"
    update.__signature__ = _signature(entry, "self")  # type: ignore[attr-defined]
    return update


FUNCTIONS: dict[str, Callable[..., Tensor]] = {name: function_of(entry)
                                               for name, entry in OPS.items()}
"""Every registry op as a Tensor function, by op name, in registry order."""


BINARY_FUNCTIONS: dict[str, Callable[..., Tensor]] = {
    name: binary_function(name) for name, entry in BINARY.items() if not entry.operators}
"""The two-input registry ops Python has no operator for (maximum, atan2, ...), by name;
+ - * / ** are Tensor's operators (ops/elementwise.py)."""


def methods() -> list[tuple[str, Callable[..., Any]]]:
    """(attribute name, function) for every registry op's Tensor methods, operators and
    in-place methods, in registry order: what `install` attaches."""
    pairs: list[tuple[str, Callable[..., Any]]] = []
    for name, entry in OPS.items():
        function = FUNCTIONS[name]
        pairs += [(method, function) for method in entry.methods]
        if entry.torch.inplace:
            pairs.append((entry.torch.inplace, in_place_of(entry, function)))
    for name, function in BINARY_FUNCTIONS.items():
        spelled = BINARY[name].torch
        pairs += [(method, function) for method in (spelled.method, *BINARY[name].aliases)]
        if spelled.inplace:
            pairs.append((spelled.inplace, selection.in_place_of(spelled.inplace, function)))
    return pairs


def functional_of(entry: Op) -> Callable[..., Tensor]:
    """F.NAME: the op's function, or where torch's takes `inplace=` (F.relu(x, inplace=True),
    F.leaky_relu(x, 0.2, True)), the op computed into x when it is true."""
    function = FUNCTIONS[entry.name]
    if not entry.torch.inplace_arg:
        return function
    update = in_place_of(entry, function)

    def functional(input: Tensor, *args: Any, inplace: bool = False, **kwargs: Any) -> Tensor:
        if len(args) == len(entry.params) + 1:  # inplace given by position, as torch allows
            args, inplace = args[:-1], args[-1]
        return (update if inplace else function)(input, *args, **kwargs)

    functional.__name__ = functional.__qualname__ = entry.torch.functional
    functional.__doc__ = entry.doc
    return functional


FUNCTIONAL: dict[str, Callable[..., Tensor]] = {
    entry.torch.functional: functional_of(entry) for entry in OPS.values()
    if entry.torch.functional}
"""torch.nn.functional's spellings of registry ops (F.relu, F.softplus, ...)."""
