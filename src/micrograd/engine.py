"""The scalar autograd engine: a Value is one number that remembers how it was made.

Read it top to bottom like the lecture. Every op does three things:
    1. compute its output: a new Value that records its inputs (`_prev`) and its name (`_op`);
    2. define `_backward(out)`, the local chain-rule step: add d(out)/d(input) * out.grad
       into each input's grad (always +=: an input used twice gets both contributions);
    3. attach `_backward` to `out` and return it.

One difference from the lecture: `_backward` receives `out` as an argument instead of
capturing it. A closure that captures `out` and is stored on `out` is a reference cycle;
without it, a graph is freed by reference counting the moment its last reference goes
(in micrograd 0.1.0 the cyclic garbage collector took ~90% of the demo's training time).
The lecture's zero-argument `o._backward()` still works: see the `_backward` property.

Every op's backward step is written once, as a function of the node alone (it reads the
inputs from `out._prev`), instead of a new closure per call -- just as PyTorch has one
MulBackward0 for every product. Same numbers; a graph of a third as many Python objects,
and one that can be pickled and deep-copied. Every local derivative is written once, in
the op registry (`micrograd/ops/`), for floats here and arrays in the Tensor engine; the
op table (`OPS`) files each backward step with the registry's formula texts, for the
trace, the docs and the checker.

Numbers follow IEEE float64 as PyTorch does: overflow gives inf and a domain error gives
nan, instead of Python's OverflowError / ValueError / ZeroDivisionError.
"""

from __future__ import annotations

import functools
import math
import numbers
import operator
import types
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeGuard, TypeVar

from micrograd import autograd
from micrograd import ops as registry
from micrograd._floats import power
from micrograd.autograd import modes
from micrograd.ops.floats import FLOATS

Number = int | float
_V = TypeVar("_V", bound="Value")  # a method of a subclass (the lecture's) returns its class
inf, nan = math.inf, math.nan


# ---------------------------------------------------------------------------------------
# The op table: each op's name in the graph, its inputs and its local derivative as text.
# The numbers always come from the op's own backward step below; the text is what the
# backward trace, the docs and the checker print. An op and its entry sit side by side.
# ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class OpInfo:
    """One scalar op: what `_op` calls it, its arity, and its formulas as text.

    Formula texts are `str.format` templates: `{0}`, `{1}` are the inputs, `{out}` the
    output, `{k}` a constant exponent; `.data` / `.grad` read a node's number.
    `derivatives[i]` is what `backward` adds into input i's grad, e.g. for `*`
    `("{1.data} * {out.grad}", "{0.data} * {out.grad}")`. Empty for ops made by
    `define_op`, whose derivative is a Python function rather than a formula.
    """

    name: str
    arity: int  # number of inputs; -1 for w·x+b, which takes 2n + 1
    forward: str  # e.g. "{0} * {1}"
    derivatives: tuple[str, ...]
    backward: Callable[..., None] = field(repr=False, compare=False)

    def forward_text(self, n_inputs: int) -> str:
        """The forward formula for a node with `n_inputs` inputs."""
        if self.name != "w·x+b":
            return self.forward
        n = (n_inputs - 1) // 2
        return " + ".join([f"{{{i}}}*{{{n + i}}}" for i in range(n)] + [f"{{{2 * n}}}"])

    def derivative_texts(self, n_inputs: int) -> tuple[str, ...]:
        """derivatives, one per input, for a node with `n_inputs` inputs."""
        if self.name != "w·x+b":
            return self.derivatives
        n = (n_inputs - 1) // 2
        return (tuple(f"{{{n + i}.data}} * {{out.grad}}" for i in range(n))
                + tuple(f"{{{i}.data}} * {{out.grad}}" for i in range(n)) + ("{out.grad}",))


_ops: dict[str, OpInfo] = {}
OPS: Mapping[str, OpInfo] = types.MappingProxyType(_ops)
"""Every built-in scalar op by its `_op` name (`"**k"` stands for `**2`, `**-1`, ...)."""


def _op(
    name: str, arity: int, forward: str, *derivatives: str
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register the decorated backward step as op `name`'s, with its formulas."""
    def register(backward: Callable[..., None]) -> Callable[..., None]:
        _ops[name] = OpInfo(name, arity, forward, derivatives, backward)
        return backward
    return register


def op_info(node: Any) -> OpInfo | None:
    """The table entry of the op that made `node`, if its backward step is that op's own.

    None for a leaf and for a backward step written by hand (`out._backward = ...`),
    whatever `_op` says; a `define_op` op gives its own entry (with no formula text).
    """
    backward = node._grad_fn
    if backward is None:
        return None
    if isinstance(backward, _CustomOpBackward):
        return backward.info
    if isinstance(backward, functools.partial):  # ** with a constant exponent
        backward = backward.func
    name = "**k" if node._op[:2] == "**" and len(node._op) > 2 else node._op
    info = _ops.get(name)
    return info if info is not None and info.backward is backward else None


def _as_float(data: object) -> float:
    """A real number as a float: Python's numbers, numpy scalars and 0-d arrays alike."""
    if type(data) is float:  # the common case, without the slower ABC isinstance check
        return data
    # ints and float subclasses (numpy's float64: the notebook's inputs) are Real: the
    # slower ABC isinstance check (tried last) only for the rest
    if isinstance(data, (int, float, numbers.Real)):
        try:
            return float(data)
        except OverflowError:  # an int too large for a float
            return -inf if data < 0 else inf  # (copysign would convert the int: overflow)
    if _is_scalar_like(data):  # np.bool_, np.float32(2), np.array(1.5), torch.tensor(2.)
        return _as_float(data.item())
    if hasattr(data, "__index__"):  # an int-like type of someone else's
        try:
            return _as_float(operator.index(data))
        except TypeError:  # e.g. a numpy array with elements: refused below
            pass
    raise TypeError(
        f"Value() takes a real number (int or float), got {type(data).__name__}: {data!r:.60}"
    )


class _HasItem(Protocol):
    def item(self) -> object: ...


def _is_scalar_like(x: object) -> TypeGuard[_HasItem]:
    """A numpy scalar or 0-d array (or anything with .item() and ndim 0), duck-typed: this
    module must not import numpy. Its item() is then checked like any other number."""
    return getattr(x, "ndim", None) == 0 and callable(getattr(x, "item", None))


class Value:
    """Stores a single scalar value and its gradient.

    `Value(2.0, label="a")`. Operators `+ - * / **` (with numbers on either side) and unary
    `-` build new Values; each remembers its inputs and how to send a gradient back to them.

    Args:
        data: the number (an int, a numpy scalar... becomes a float).
        label: a name for pictures and traces (`draw_dot`, `trace`).

    Attributes:
        data: the number, a float.
        grad: d(output)/d(this value) after `output.backward()`; 0.0 before.
        label: the name given, or "".
    """

    # __dict__ too: a learner may set attributes of their own (v.name = 'x'), as on the
    # lecture's class. It costs nothing until used: CPython creates the dict on first write.
    __slots__ = ("__dict__", "__weakref__", "_grad_fn", "_op", "_prev", "data", "grad", "label")

    def __init__(
        self, data: Number, _children: tuple[Value, ...] = (), _op: str = "", label: str = ""
    ):
        if type(data) is not float:
            data = _as_float(data)
        self.data = data
        self.grad = 0.0  # d(output)/d(this value); 0 until backward() says otherwise
        self.label = label
        self._op = _op  # the op that produced this node, for pictures and debugging
        self._prev = tuple(_children) if modes.grad_enabled else ()  # inputs, in order
        self._grad_fn: Callable[[Value], None] | None = None  # local chain-rule step; None: leaf
        if modes.anomaly and _children:  # detect_anomaly(): stop at the op that made a nan/inf
            autograd.check_forward(_op, data, tuple(_children), math.isfinite)

    def _attach(self, backward: Callable[[Value], None]) -> Value:
        """Step 3 of every op: remember how to send this node's grad to its inputs."""
        if self._prev:  # nothing to remember under no_grad()
            self._grad_fn = backward
        return self

    # Every backward step below is a plain function of the output node alone: it reads the
    # inputs back from out._prev. No closure holds a node, so a graph can be pickled and
    # deep-copied, and one function serves every node of its op (as PyTorch's MulBackward0).

    # --- the two ops the lecture starts with --------------------------------------------
    # (forward: the registry entries' x + y and x * y, written out: they are the hottest
    # lines of a scalar network; backward: _add_backward, _mul_backward below)

    def __add__(self, other: Value | Number) -> Value:
        operand = _as_value(other)
        if operand is None:
            return NotImplemented
        data = self.data + operand.data
        if type(data) is not float:  # (a .data set to an int by hand)
            data = _as_float(data)
        return _node(Value, data, (self, operand), "+", _add_backward)

    def __mul__(self, other: Value | Number) -> Value:
        operand = _as_value(other)
        if operand is None:
            return NotImplemented
        data = self.data * operand.data
        if type(data) is not float:
            data = _as_float(data)
        return _node(Value, data, (self, operand), "*", _mul_backward)

    def __pow__(self, other: Value | Number) -> Value:
        if isinstance(other, Value):
            out = Value(_pow(self.data, other.data), (self, other), "**")
            return out._attach(_pow_backward)
        if not isinstance(other, numbers.Real):
            return NotImplemented
        k = _as_float(other)  # same numbers as float ** int; an int past float range is +-inf
        out = Value(_pow(self.data, k), (self,), f"**{other}")
        return out._attach(functools.partial(_pow_const_backward, k))

    # --- nonlinearities: relu, tanh, exp, log, ... come from the op registry ----------------
    # Each is an entry in micrograd/ops/table.py: its forward and its local derivative
    # written once for floats and arrays. `install_ops` below makes them plain methods of
    # this class, in the same three steps as the ops above (see _unary_method).

    if TYPE_CHECKING:  # for mypy, which cannot see install_ops (test_value_declarations)
        def relu(self: _V) -> _V: ...
        def tanh(self: _V) -> _V: ...
        def sigmoid(self: _V) -> _V: ...
        def exp(self: _V) -> _V: ...
        def log(self: _V) -> _V: ...
        def sqrt(self: _V) -> _V: ...
        def sin(self: _V) -> _V: ...
        def cos(self: _V) -> _V: ...
        def abs(self: _V) -> _V: ...
        def __abs__(self: _V) -> _V: ...
        def softplus(self: _V, beta: float = 1.0, threshold: float = 20.0) -> _V: ...

    # --- backward: the chain rule over the whole graph ------------------------------------

    def backward(self) -> None:
        """Fill in .grad of every node this one depends on: d(self)/d(node).

        Leaf gradients accumulate: a second call adds the same gradient again (as PyTorch
        does), so zero them between training steps. Intermediate nodes show the last pass.
        """
        autograd.backward(self, 1.0, 0.0)

    @property
    def _backward(self) -> Callable[[], None]:
        """The lecture's `o._backward()`: run this node's local chain-rule step by hand."""
        if self._grad_fn is None:
            return _do_nothing
        return functools.partial(self._grad_fn, self)

    @_backward.setter
    def _backward(self, fn: Callable[[], None]) -> None:
        # Lecture-style custom ops assign a zero-argument closure: `out._backward = f`.
        self._grad_fn = _HandWrittenBackward(fn)

    _is_finite = staticmethod(math.isfinite)  # for detect_anomaly()

    # --- everything else is built from the ops above, as in the lecture ------------------

    def __neg__(self) -> Value:  # -self
        return self * -1

    def __radd__(self, other: Number) -> Value:  # other + self
        if not _is_operand(other):
            return NotImplemented  # so the TypeError names the user's op and operand order
        return self + other

    def __sub__(self, other: Value | Number) -> Value:  # self - other
        if not _is_operand(other):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other: Number) -> Value:  # other - self
        if not _is_operand(other):
            return NotImplemented
        return other + (-self)

    def __rmul__(self, other: Number) -> Value:  # other * self
        if not _is_operand(other):
            return NotImplemented
        return self * other

    def __truediv__(self, other: Value | Number) -> Value:  # self / other
        if not _is_operand(other):
            return NotImplemented
        if isinstance(other, Value):
            return self * other**-1
        return self * power(_as_float(other), -1)  # a huge int is inf, as in Value(10**400)

    def __rtruediv__(self, other: Number) -> Value:  # other / self
        if not _is_operand(other):
            return NotImplemented
        return other * self**-1

    def __rpow__(self, other: Number) -> Value:  # other ** self
        base = _as_value(other)
        # base.__pow__, not base ** self: for a subclass's self (the lecture's Value) Python
        # would try self.__rpow__ first, which would come back here forever
        return NotImplemented if base is None else base.__pow__(self)

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    def __reduce_ex__(self, protocol: Any) -> Any:
        """pickle / deepcopy: a leaf as usual; a computed node as its whole graph, flat.

        Saving node by node would recurse once per op (a RecursionError past ~1000 ops in
        a chain); a flat list of the graph's computed nodes, in topological order, has no
        nesting. Leaves stay objects in that list, so a leaf pickled alongside (a model's
        parameters) is the same object after loading.
        """
        if not self._prev:
            return object.__reduce_ex__(self, protocol)
        return (_rebuild_graph, (_flatten_graph(self),))


_new_object = object.__new__


def _node(cls: type[_V], data: float, inputs: tuple[Value, ...], op: str,
          backward: Callable[..., None]) -> _V:
    """`cls(data, inputs, op)._attach(backward)` for the engine's own ops, whose `data` is
    already a float and `inputs` a tuple of Values: the same node, built without
    `__init__`'s conversions and the `_attach` call (160 ns instead of 220; a network
    makes thousands of nodes per step).
    `cls` is Value or a subclass that keeps Value's __init__ (the lecture's)."""
    out = _new_object(cls)
    out.data = data
    out.grad = 0.0
    out.label = ""
    out._op = op
    if modes.grad_enabled:
        out._prev = inputs
        out._grad_fn = backward
    else:  # no_grad(): a leaf
        out._prev = ()
        out._grad_fn = None
    if modes.anomaly:
        autograd.check_forward(op, data, inputs, math.isfinite)
    return out


# ---------------------------------------------------------------------------------------
# The backward steps. Each local derivative is the op's registry entry (ops/binary.py): one
# VJP per input, vjp(g, x, y, out) with g = out.grad, the same text that Tensor computes
# with on arrays; `_binary_op` files the step under the entry's formula texts, which the
# trace prints. `out` is the node whose grad is being sent back to its inputs.
# ---------------------------------------------------------------------------------------

def _binary_op(name: str, constant: bool = False) -> Callable[[Callable[..., None]],
                                                              Callable[..., None]]:
    """Register the decorated backward step as registry op `name`'s, with its texts (with
    `constant`: its node for a number as the second operand, Value's `x**k`)."""
    entry = registry.BINARY[name]
    if constant:
        assert entry.constant is not None
        label, forward, derivative = entry.constant
        return _op(label, 1, forward, derivative)
    return _op(entry.label, 2, entry.forward_text, *entry.derivative_texts)


def _vjps(name: str) -> tuple[Callable[..., float], Callable[..., float]]:
    """Two-input registry op `name`'s VJPs on floats, vjp(g, x, y, out), one per input."""
    _, vjp_x, vjp_y = registry.binary_rule(name, FLOATS)
    assert vjp_x is not None and vjp_y is not None, f"{name}: both derivatives are formulas"
    return vjp_x, vjp_y


_mul_dx, _mul_dy = _vjps("mul")
_pow_dx, _pow_dy = _vjps("pow")
_pow = registry.binary_rule("pow", FLOATS).forward


@_binary_op("add")
def _add_backward(out: Value) -> None:  # d(a+b)/da = d(a+b)/db = 1 (the entry's VJPs are
    a, b = out._prev                     # None): + routes the gradient to both inputs
    a.grad += out.grad
    b.grad += out.grad


@_binary_op("mul")
def _mul_backward(out: Value) -> None:  # d(a*b)/da = b, d(a*b)/db = a: multiplication swaps
    a, b = out._prev
    g, x, y, z = out.grad, a.data, b.data, out.data
    a.grad += _mul_dx(g, x, y, z)
    b.grad += _mul_dy(g, x, y, z)


@_binary_op("pow", constant=True)
def _pow_const_backward(k: float, out: Value) -> None:  # d(x**k)/dx = k * x**(k-1)
    (x,) = out._prev
    x.grad += _pow_dx(out.grad, x.data, k, out.data)  # 0 when k == 0, as PyTorch


@_binary_op("pow")
def _pow_backward(out: Value) -> None:  # x ** y with y a Value too: the gradient reaches both
    x, y = out._prev
    g, z = out.grad, out.data
    # d/dx = y * x**(y-1);  d/dy = x**y * log(x), taken as 0 at x = 0, y >= 0
    x.grad += _pow_dx(g, x.data, y.data, z)
    y.grad += _pow_dy(g, x.data, y.data, z)


# --- the registry's ops ------------------------------------------------------------------

# Ops whose local derivative is a 0/1 mask (relu: g * (out > 0)): a zero gradient sends
# exactly +-0.0 to the input whatever its number, and adding +-0.0 leaves a gradient as it
# was (one that starts at +0.0 never becomes -0.0, the only number +0.0 would change), so
# their backward step can skip a zero gradient. In a ReLU net that is common: a sample
# whose hinge loss is 0, a unit that is off (see _weighted_sum_backward).
_MASKED = frozenset({"relu"})


def _unary_backward(name: str, vjp: Callable[..., float]) -> Callable[[Value], None]:
    """The backward step of registry op `name`: x.grad += vjp(out.grad, x, out)."""
    def backward(out: Value) -> None:
        (x,) = out._prev
        x.grad += vjp(out.grad, x.data, out.data)

    def masked_backward(out: Value) -> None:
        g = out.grad
        if g:  # (nan is true: it goes through, as g * (out > 0) would send it)
            (x,) = out._prev
            x.grad += vjp(g, x.data, out.data)

    if name in _MASKED:
        backward = masked_backward

    # a module-level name, so pickle finds it as it found the hand-written steps before
    backward.__name__ = backward.__qualname__ = f"_{name}_backward"
    return backward


def _param_backward(entry: registry.Op) -> Callable[..., None]:
    """The backward step of an op with parameters (softplus's beta): called as
    partial(step, params)(out), the VJP of the rule at those parameters."""
    def backward(params: tuple[float, ...], out: Value) -> None:
        (x,) = out._prev
        vjp = registry.rule_at(entry.name, FLOATS, params).vjp
        assert vjp is not None
        x.grad += vjp(out.grad, x.data, out.data)

    backward.__name__ = backward.__qualname__ = f"_{entry.name}_backward"
    return backward


def _unary_method(entry: registry.Op, cls: type[Value], math: Any) -> Callable[..., Value]:
    """`cls`'s method for registry op `entry`, computing its forward with `math`."""
    label = entry.label
    backward = _ops[label].backward
    forward = registry.rule_at(entry.name, math).forward

    def method(self: Value) -> Value:
        data = forward(self.data)  # 1. the output (a float for a float input)
        if type(data) is not float:
            data = _as_float(data)
        return _node(cls, data, (self,), label, backward)  # 2.-3. its inputs, op, backward

    def method_own_init(self: Value) -> Value:  # for a subclass with a constructor of its own
        out = cls(forward(self.data), (self,), label)
        return out._attach(backward)

    def method_with_params(self: Value, *args: float, **kwargs: float) -> Value:
        params = entry.bind(args, kwargs)
        out = cls(registry.rule_at(entry.name, math, params).forward(self.data), (self,), label)
        return out._attach(functools.partial(backward, params))

    made = (method_with_params if entry.params
            else method if cls.__init__ is Value.__init__ else method_own_init)
    made.__name__ = made.__qualname__ = entry.methods[0]
    made.__doc__ = entry.doc
    return made


def install_ops(cls: type[Value], math: Any = FLOATS) -> None:
    """Give `cls` (Value, or a subclass such as the lecture's) a method for every registry
    op Value has, computing with `math`; each method makes a node of class `cls`."""
    for entry in registry.scalar_ops():
        method = _unary_method(entry, cls, math)
        for name in entry.methods:
            setattr(cls, name, method)


for _entry in registry.scalar_ops():
    _vjp = registry.rule_at(_entry.name, FLOATS).vjp
    assert _vjp is not None, f"{_entry.name}: a Value op needs a derivative"
    _step = _param_backward(_entry) if _entry.params else _unary_backward(_entry.name, _vjp)
    _ops[_entry.label] = OpInfo(_entry.label, 1, _entry.forward_text,
                                (_entry.derivative_text,), _step)
    globals()[_step.__name__] = _step  # pickle finds a node's backward step by this name
install_ops(Value)


class _HandWrittenBackward:
    """A backward step assigned by hand, lecture-style: `out._backward = closure`.

    The closure captures the very nodes it updates, so a copy of the graph would send its
    gradients into the original's nodes: copying and pickling refuse, saying so.
    """

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[], None]):
        self.fn = fn

    def __call__(self, node: Value) -> None:
        self.fn()

    def _refuse(self, *args: object) -> Any:
        raise TypeError(
            "can't copy or pickle a Value whose backward step was assigned by hand "
            "(out._backward = a closure): the closure refers to the original nodes. "
            "Save the numbers instead (e.g. [p.data for p in model.parameters()]) and "
            "rebuild the graph, or make the op with micrograd.define_op"
        )

    __reduce__ = __reduce_ex__ = __deepcopy__ = __copy__ = _refuse


def _flatten_graph(root: Value) -> list[tuple[Any, ...]]:
    """The computed nodes of root's graph, inputs first, each as plain fields; an input is
    the index of an earlier record or, for a leaf, the leaf itself."""
    index: dict[int, int] = {}
    records = []
    for node in autograd.topological_order(root):
        if not node._prev:
            continue
        inputs = tuple(index.get(id(c), c) if c._prev else c for c in node._prev)
        extra = getattr(node, "__dict__", None) or None
        records.append((type(node), node.data, node.grad, node.label, node._op, node._grad_fn,
                        inputs, extra))
        index[id(node)] = len(records) - 1
    return records


def _rebuild_graph(records: list[tuple[Any, ...]]) -> Value:
    """The inverse of _flatten_graph: the graph again, its root last."""
    nodes: list[Value] = []
    for cls, data, grad, label, op, grad_fn, inputs, extra in records:
        node = cls.__new__(cls)
        node.data, node.grad, node.label, node._op, node._grad_fn = data, grad, label, op, grad_fn
        node._prev = tuple(nodes[i] if type(i) is int else i for i in inputs)
        if extra:
            node.__dict__.update(extra)
        nodes.append(node)
    return nodes[-1]


def _do_nothing() -> None:
    pass


def _is_operand(x: object) -> bool:
    """Can x take part in an op with a Value? (a Value or a real number)"""
    return (type(x) is float or type(x) is int or isinstance(x, (Value, numbers.Real))
            or _is_scalar_like(x))


def _as_value(x: object) -> Value | None:
    """Wrap a plain number so that `a + 2` works; None for anything else (the caller then
    returns NotImplemented, so Python tries the other operand's method)."""
    if isinstance(x, Value):
        return x
    if type(x) is float or type(x) is int:  # `1 + v`, `2 * v`: a Value(x), built directly
        return _constant(_as_float(x))
    if _is_operand(x):
        return Value(_as_float(x))
    return None


def _constant(data: float) -> Value:
    """Value(data) for a float: the leaf an op makes of a number operand, without
    __init__'s conversions (the moons notebook's loss wraps ~200 numbers a step)."""
    out = _new_object(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    out._op = ""
    out._prev = ()
    out._grad_fn = None
    return out


# ---------------------------------------------------------------------------------------
# Bigger lego blocks. The lecture: any function whose forward pass and local derivative
# you know can be one node. The graph is smaller; the numbers are the same.
# ---------------------------------------------------------------------------------------

def weighted_sum(
    weights: list[Value], inputs: Iterable[Value | Number], bias: Value | Number
) -> Value:
    """`bias + w0*x0 + w1*x1 + ...` as one node (a neuron's pre-activation).

    Adds in the same order as micrograd's `sum((wi*xi ...), bias)`, so the value is
    bit-for-bit the same as the fine-grained graph's; gradients: d/dwi = xi, d/dxi = wi.
    """
    xs = tuple(x if isinstance(x, Value) else Value(x) for x in inputs)
    bias = bias if isinstance(bias, Value) else Value(bias)
    return _weighted_sum(weights, xs, [x.data for x in xs], bias)


def _weighted_sum(weights: list[Value], xs: Sequence[Value], xdata: list[float],
                  bias: Value) -> Value:
    """weighted_sum of Values whose numbers the caller has read: a layer reads its inputs'
    numbers once for all its neurons (`xdata[i]` is `xs[i].data`)."""
    if len(xdata) != len(weights):
        raise ValueError(f"weighted_sum: {len(weights)} weights but {len(xdata)} inputs")
    act = bias.data
    # lengths checked above; zip's strict=True would double the cost of creating the zip
    for w, x in zip(weights, xdata):  # noqa: B905
        act += w.data * x
    return _node(Value, act, (*weights, *xs, bias), "w·x+b", _weighted_sum_backward)


@_op("w·x+b", -1, "{0}*{n} + ... + {2n}", "{n+i.data} * {out.grad} for w_i",
     "{i.data} * {out.grad} for x_i", "{out.grad} for the bias")  # texts: derivative_texts()
def _weighted_sum_backward(out: Value) -> None:
    """d/dwi = xi * out.grad, d/dxi = wi * out.grad, d/dbias = out.grad.

    Like +, * and relu, it reads its inputs back from out._prev = (w..., x..., bias)
    instead of capturing them in a closure: one shared function instead of a function,
    a cell per variable and a list per neuron call. A neural net makes thousands of these
    nodes per step, and every object less is one the cyclic gc does not have to crawl.
    """
    g = out.grad
    if not g and math.isfinite(out.data):
        # A zero gradient (a ReLU that is off, a sample the hinge loss ignores) would add
        # xi * 0.0 and wi * 0.0: exactly +-0.0, which changes no sum, as long as every wi
        # and xi is finite -- and they are when out's number is (an inf or nan among them
        # makes the sum inf or nan). In the moons notebook 49% of these nodes skip the
        # loop at step 0, 88% from step 10 on (most samples' hinge loss is 0 by then).
        return
    inputs = out._prev
    n = len(inputs) // 2
    inputs[-1].grad += g
    # Last input first, as the fine-grained graph's backward meets the products: an input
    # given twice (m([x, x])) then adds up its two shares in the same order, to the last bit.
    for i in range(n - 1, -1, -1):
        w, x = inputs[i], inputs[n + i]
        w.grad += x.data * g
        x.grad += w.data * g


def _call_user(name: str, what: str, function: Callable[..., Any], xs: list[float]) -> Any:
    """function(*xs) for a custom op; Python's math errors said in the op's terms."""
    try:
        return function(*xs)
    except (OverflowError, ZeroDivisionError, ValueError) as error:
        arguments = ", ".join(repr(x) for x in xs)
        kind = next(k for k in (OverflowError, ZeroDivisionError, ValueError)
                    if isinstance(error, k))  # the plain built-in: a subclass may need more
        advice = ""
        if kind is not ValueError or str(error) == "math domain error":
            advice = (". Python's math raises where IEEE floats give inf or nan; write the "
                      "function in a form that cannot overflow, or return math.inf / "
                      "math.nan yourself")
        raise kind(f"{what} of the custom op {name!r} at ({arguments}) raised "
                   f"{type(error).__name__}: {error}{advice}") from error


class _CustomOpBackward:
    """The backward step of an op made by define_op: the user's derivative at the inputs.

    An object rather than a closure, so the graph can be deep-copied (the functions are
    shared, the nodes copied) and pickled when `derivative` is importable by name.
    """

    __slots__ = ("derivative", "info")

    def __init__(self, info: OpInfo, derivative: Callable[..., float | tuple[float, ...]]):
        self.info = info
        self.derivative = derivative

    def __call__(self, out: Value) -> None:
        inputs = out._prev
        name = self.info.name
        partials = _call_user(name, "derivative", self.derivative, [a.data for a in inputs])
        if not isinstance(partials, (tuple, list)):  # one number: one partial
            partials = (partials,)
        if len(partials) != len(inputs):
            raise ValueError(
                f"derivative of {name} returned {len(partials)} partials for {len(inputs)} inputs"
            )
        for a, d in zip(inputs, partials, strict=True):
            a.grad += d * out.grad

    def __deepcopy__(self, memo: dict[int, Any]) -> _CustomOpBackward:
        return self  # holds no node: the copy's backward reads the copied out._prev

    def __reduce__(self) -> tuple[Any, ...]:
        qualname = getattr(self.derivative, "__qualname__", "")
        if "<lambda>" in qualname or "<locals>" in qualname:
            raise TypeError(
                f"can't pickle a graph containing the custom op {self.info.name!r}: its "
                f"derivative {qualname} is a lambda or a local function, which pickle cannot "
                f"save by name. Define it with `def` at module level, or save the numbers "
                f"(e.g. [p.data for p in model.parameters()]) instead of the graph"
            )
        return (_CustomOpBackward, (self.info, self.derivative))


def define_op(
    name: str,
    forward: Callable[..., float],
    derivative: Callable[..., float | tuple[float, ...]],
) -> Callable[..., Value]:
    """Make a new differentiable op from its forward function and its local derivative.

    `forward(*xs)` computes the output from plain floats; `derivative(*xs)` returns
    d(out)/d(x) (one input) or a tuple of partial derivatives (several inputs). This is
    micrograd's torch.autograd.Function: no need to edit this file.

        cube = define_op("cube", lambda x: x**3, lambda x: 3 * x**2)
        y = cube(Value(2.0))    # y.data == 8.0; after y.backward(), x.grad == 12.0
    """

    info = OpInfo(name, -1, "", (), _CustomOpBackward.__call__)
    backward = _CustomOpBackward(info, derivative)

    def op(*args: Value | Number) -> Value:
        inputs: list[Value] = []
        for a in args:
            operand = _as_value(a)
            if operand is None:
                raise TypeError(f"{name}() takes Values or numbers, got {type(a).__name__}")
            inputs.append(operand)
        xs = [a.data for a in inputs]
        out = Value(_as_float(_call_user(name, "forward", forward, xs)), tuple(inputs), name)
        return out._attach(backward)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The custom op {name!r}, made by define_op."
    return op
