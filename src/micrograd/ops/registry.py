"""The op registry's shape: what one entry says about an op, and the table of entries.

An entry is an op written once. Its math is a *rule*: a function of a math namespace `m`
(`m.exp`, `m.log1p`, `m.where`, ...) that returns the forward function and the
vector-Jacobian product (VJP) built on that namespace. Given the float namespace
(`micrograd.ops.floats`, standard library only) the rule computes on Python floats, for
`Value`; given the numpy one (`micrograd.ops.arrays`) it computes on whole arrays, for
`Tensor`. Like HIPS autograd's `defvjp(op, lambda g, ans, x: ...)` one-liners, the VJP
takes the output's gradient `g`, the input `x` and the output `out`.

Everything else about the op sits beside the rule: its names, its formula texts (what the
trace and the checker print), its torch spellings, the checker's probe and edge points,
and its dtype rule. The engines, the trace, the expression parser, the checker and
`micrograd.torch` read the table; none of them lists the ops again.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple, TypeVar


class Rule(NamedTuple):
    """An op's math on one namespace: `forward(x)` and `vjp(g, x, out)` (d loss / d x,
    given g = d loss / d out). A VJP of None: the op has no gradient (comparisons)."""

    forward: Callable[..., Any]
    vjp: Callable[..., Any] | None


@dataclass(frozen=True)
class Torch:
    """How PyTorch spells the op (empty: torch has no such spelling)."""

    function: str = ""    # torch.NAME(x)
    method: str = ""      # x.NAME()
    inplace: str = ""     # x.NAME_()
    module: str = ""      # torch.nn.NAME()
    functional: str = ""  # torch.nn.functional.NAME(x)
    inplace_arg: bool = False  # F.NAME(x, ..., inplace=) and nn.MODULE(..., inplace=) exist


@dataclass(frozen=True)
class Op:
    """One op of the registry.

    `rule(m, **params)` gives the op's `Rule` on namespace `m`; `params` are its keyword
    arguments with their defaults (softplus's `beta`, `threshold`), taken by every
    spelling. `forward_text` and `derivative_text` are `str.format` templates: `{0}` is
    the input, `{out}` the output, `.data` / `.grad` a node's number; the derivative text
    is what backward adds into the input's grad, as `engine.OPS` prints it.
    """

    name: str                          # the Tensor node's name and the checker's op name
    rule: Callable[..., Rule] = field(repr=False)
    forward_text: str = ""             # e.g. "tanh({0})"
    derivative_text: str = ""          # e.g. "(1 - {out.data}**2) * {out.grad}"
    doc: str = ""                      # one line with the math
    torch: Torch = Torch()
    params: tuple[tuple[str, float], ...] = ()
    dtype: str = "float"               # "float": integers become the default float dtype;
    #                                    "keep": the result keeps the input's dtype;
    #                                    "float only": integers refused, as torch does
    scalar: bool = False               # Value has it as a method (and the lecture's Value)
    scalar_name: str = ""              # Value's `_op` when it differs (relu: "ReLU")
    operators: tuple[str, ...] = ()    # Python operators spelling it (abs: "__abs__")
    quiet: bool = False                # its forward can make inf/nan: numpy must not warn
    probe_at: float | None = None      # the checker's gradient probe point
    probe_required: bool = False       # the lecture's ops: MISSING when a class lacks it;
    #                                    any other op is probed only in a class that has it
    edge_points: tuple[float, ...] = ()  # forward-only points where textbook formulas break
    edge_probe: str = ""               # the checker's id for them (default NAME-range)
    domain: tuple[float, float] = (-3.0, 3.0)  # where the shared tests draw inputs
    smooth: bool = True                # differentiable on `domain` (not sign, floor, ...)

    @property
    def label(self) -> str:
        """The op's name in a scalar graph (`Value._op`)."""
        return self.scalar_name or self.name

    @property
    def methods(self) -> tuple[str, ...]:
        """The method names a Tensor (and, if `scalar`, a Value) has for the op."""
        return (self.torch.method or self.name, *self.operators)

    def defaults(self) -> dict[str, float]:
        return dict(self.params)

    def bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[float, ...]:
        """The op's parameters from a call (by position or name), defaults filled in, in
        order; torch's TypeErrors for too many or unknown ones."""
        values = self.defaults()
        if len(args) > len(values):
            raise TypeError(f"{self.name}() takes at most {len(values) + 1} arguments "
                            f"(input, {', '.join(values)}), got {len(args) + 1}")
        values.update(zip(values, args, strict=False))
        for key, value in kwargs.items():
            if key not in values:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {key!r}")
            values[key] = value
        return tuple(float(v) for v in values.values())


class BinaryRule(NamedTuple):
    """A two-input op's math on one namespace: `forward(x, y)` and one VJP per input,
    `vjp_x(g, x, y, out)` and `vjp_y(g, x, y, out)` (HIPS autograd's `defvjp(op, vjp_x,
    vjp_y)`). A VJP of None: the derivative is 1, the gradient passes through unchanged."""

    forward: Callable[[Any, Any], Any]
    vjp_x: Callable[..., Any] | None
    vjp_y: Callable[..., Any] | None


@dataclass(frozen=True)
class BinaryOp:
    """One elementwise op of two inputs (`+ - * / **`, maximum, atan2, ...).

    `rule(m)` gives its `BinaryRule` on namespace `m`. The engines keep what is theirs:
    Tensor broadcasts, sums gradients back over broadcast dimensions and promotes dtypes;
    Value writes the lecture's ops (`+ * **`) as nodes of its own and the others as
    compositions (`a - b` is `a + (-b)`). Texts are `str.format` templates as in `Op`:
    `{0}`, `{1}` the inputs, `{out}` the output; `derivative_texts[i]` is what backward
    adds into input i's grad. `constant` is the node made when the second operand is a
    plain number (Value's `x**3`): its `_op` family (`**k`), forward text and derivative
    text, with `{k}` the number.
    """

    name: str                          # the checker's op name and the Tensor node's name
    rule: Callable[[Any], BinaryRule] = field(repr=False)
    symbol: str = ""                   # the node's name and Python operator ("*"), if any
    forward_text: str = ""             # e.g. "{0} * {1}"
    derivative_texts: tuple[str, str] = ("", "")
    doc: str = ""                      # one line with the math
    torch: Torch = Torch()
    operators: tuple[str, ...] = ()    # Python's operator and reflected operator methods
    aliases: tuple[str, ...] = ()      # torch's other names for it (atan2: arctan2)
    scalar: bool = False               # a Value node of its own (the lecture's + * **)
    constant: tuple[str, str, str] | None = None  # (label, forward, derivative) for x op k
    dtype: str = "promote"             # "promote": torch's promotion of the two dtypes;
    #                                    "float": integers give the default float dtype;
    #                                    "float only": integers refused, as torch does
    probe_at: tuple[float, float] | None = None  # the checker's gradient probe point
    domain: tuple[tuple[float, float], tuple[float, float]] = ((-3.0, 3.0), (-3.0, 3.0))
    smooth: bool = True                # differentiable on `domain` (not fmod at jumps)

    @property
    def label(self) -> str:
        """The op's name in a graph (`_op`): its symbol, else its name."""
        return self.symbol or self.name


@dataclass(frozen=True)
class Fused:
    """An op whose forward and backward are one hand-written kernel (softmax, layer norm,
    attention, cross-entropy...): the registry names it and where its backward lives;
    the kernel stays in its module, which is imported only when the op is used."""

    name: str
    implementation: str   # "module:function", resolved on use
    torch: Torch = Torch()
    doc: str = ""

    def resolve(self) -> Callable[..., Any]:
        import importlib

        module, _, function = self.implementation.partition(":")
        resolved: Callable[..., Any] = getattr(importlib.import_module(module), function)
        return resolved


_Entry = TypeVar("_Entry", Op, BinaryOp)


def table(*entries: _Entry) -> Mapping[str, _Entry]:
    """A read-only name -> entry mapping, in the order given (which is install order)."""
    by_name: dict[str, _Entry] = {}
    for entry in entries:
        if entry.name in by_name:
            raise ValueError(f"op {entry.name!r} is registered twice")
        by_name[entry.name] = entry
    return types.MappingProxyType(by_name)
