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

The three ops a neural net runs thousands of times per step (+, *, relu) go one step
further: their backward step is written once, as a function of the node alone (it reads
the inputs from `out._prev`), instead of a new closure per call -- just as PyTorch has one
MulBackward0 for every product. Same numbers; a graph of a third as many Python objects,
which is what the cyclic garbage collector spends its time crawling.

Numbers follow IEEE float64 as PyTorch does: overflow gives inf and a domain error gives
nan, instead of Python's OverflowError / ValueError / ZeroDivisionError.
"""

from __future__ import annotations

import functools
import math
import numbers
from typing import Any, Callable, Iterable, Union

from micrograd import autograd
from micrograd.autograd import modes

Number = Union[int, float]
inf, nan = math.inf, math.nan


# ---------------------------------------------------------------------------------------
# IEEE-style float helpers: Python raises where C and PyTorch return inf or nan.
# ---------------------------------------------------------------------------------------

def _is_odd_integer(k: float) -> bool:
    return float(k).is_integer() and int(k) % 2 == 1


def _pow(x: float, k: float) -> float:
    """x ** k with C semantics: 0 ** -1 = inf, (-8) ** 0.5 = nan, 10 ** 1000 = inf."""
    try:
        result = x ** k
    except ZeroDivisionError:  # 0 ** negative
        return math.copysign(inf, x) if _is_odd_integer(k) else inf
    except OverflowError:  # too large -- or, for a negative x, complex: nan as in C
        if x < 0 and not float(k).is_integer():
            return nan
        return -inf if x < 0 and _is_odd_integer(k) else inf
    return nan if isinstance(result, complex) else result


def _div(a: float, b: float) -> float:
    """a / b with IEEE semantics: 1 / 0 = inf, 0 / 0 = nan."""
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or a != a:
            return nan
        return math.copysign(inf, a) * math.copysign(1.0, b)


def _exp(x: float) -> float:
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def _log(x: float) -> float:
    if x > 0:
        return math.log(x)
    return -inf if x == 0 else nan  # log(0) = -inf; log(negative or nan) = nan


def _domain(f: Callable[[float], float], x: float) -> float:
    """f(x), or nan where math raises a domain error (sin(inf), sqrt(-1))."""
    try:
        return f(x)
    except ValueError:
        return nan


def _sigmoid(x: float) -> float:
    # Two forms so that exp never overflows: stable at +-1000, like torch.sigmoid.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = _exp(x)
    return e / (1.0 + e)


def _as_float(data: object) -> float:
    if type(data) is float:  # the common case, without the slower ABC isinstance check
        return data
    if isinstance(data, numbers.Real):
        try:
            return float(data)
        except OverflowError:  # an int too large for a float
            return inf if data > 0 else -inf  # (copysign would convert the int: overflow)
    raise TypeError(
        f"Value() takes a real number (int or float), got {type(data).__name__}: {data!r:.60}"
    )


class Value:
    """Stores a single scalar value and its gradient."""

    __slots__ = ("data", "grad", "label", "_prev", "_op", "_grad_fn", "__weakref__")

    def __init__(self, data: Number, _children: tuple = (), _op: str = "", label: str = ""):
        if type(data) is not float:
            data = _as_float(data)
        self.data = data
        self.grad = 0.0  # d(output)/d(this value); 0 until backward() says otherwise
        self.label = label
        self._op = _op  # the op that produced this node, for pictures and debugging
        self._prev = tuple(_children) if modes.grad_enabled else ()  # inputs, in order
        self._grad_fn = None  # the local chain-rule step; None for a leaf
        if modes.anomaly and _children:  # detect_anomaly(): stop at the op that made a nan/inf
            autograd.check_forward(_op, data, tuple(_children), math.isfinite)

    def _attach(self, backward: Callable[["Value"], None]) -> "Value":
        """Step 3 of every op: remember how to send this node's grad to its inputs."""
        if self._prev:  # nothing to remember under no_grad()
            self._grad_fn = backward
        return self

    # --- the two ops the lecture starts with --------------------------------------------

    def __add__(self, other: Value | Number) -> Value:
        other = _as_value(other)
        if other is NotImplemented:
            return NotImplemented
        out = Value(self.data + other.data, (self, other), "+")
        return out._attach(Value._add_backward)

    @staticmethod
    def _add_backward(out: Value) -> None:  # d(a+b)/da = d(a+b)/db = 1: routes the gradient
        a, b = out._prev
        a.grad += out.grad
        b.grad += out.grad

    def __mul__(self, other: Value | Number) -> Value:
        other = _as_value(other)
        if other is NotImplemented:
            return NotImplemented
        out = Value(self.data * other.data, (self, other), "*")
        return out._attach(Value._mul_backward)

    @staticmethod
    def _mul_backward(out: Value) -> None:  # d(a*b)/da = b, d(a*b)/db = a: multiplication swaps
        a, b = out._prev
        a.grad += b.data * out.grad
        b.grad += a.data * out.grad

    def __pow__(self, other: Value | Number) -> Value:
        if isinstance(other, Value):
            return self._pow_value(other)
        if not isinstance(other, numbers.Real):
            return NotImplemented
        k = _as_float(other)  # same numbers as float ** int; an int past float range is +-inf
        out = Value(_pow(self.data, k), (self,), f"**{other}")

        def _backward(out):  # d(x**k)/dx = k * x**(k-1)  (0 when k == 0, as PyTorch)
            local = k * _pow(self.data, k - 1) if k != 0 else 0.0
            self.grad += local * out.grad

        return out._attach(_backward)

    def _pow_value(self, other: Value) -> Value:
        """x ** y with y a Value too: the gradient reaches both."""
        out = Value(_pow(self.data, other.data), (self, other), "**")

        def _backward(out):
            x, y = self.data, other.data
            # d/dx = y * x**(y-1);  d/dy = x**y * log(x), taken as 0 at x = 0, y >= 0
            dx = y * _pow(x, y - 1) if y != 0 else 0.0
            dy = 0.0 if x == 0 and y >= 0 else out.data * _log(x)
            self.grad += dx * out.grad
            other.grad += dy * out.grad

        return out._attach(_backward)

    # --- nonlinearities: each one knows its local derivative -----------------------------

    def relu(self) -> Value:
        out = Value(0.0 if self.data < 0 else self.data, (self,), "ReLU")
        return out._attach(Value._relu_backward)

    @staticmethod
    def _relu_backward(out: Value) -> None:  # 1 where the output is positive, else 0
        (x,) = out._prev
        x.grad += (out.data > 0) * out.grad

    def tanh(self) -> Value:
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward(out):  # tanh'(x) = 1 - tanh(x)**2
            self.grad += (1 - t**2) * out.grad

        return out._attach(_backward)

    def sigmoid(self) -> Value:
        s = _sigmoid(self.data)
        out = Value(s, (self,), "sigmoid")

        def _backward(out):  # sigma'(x) = sigma(x) * (1 - sigma(x))
            self.grad += s * (1 - s) * out.grad

        return out._attach(_backward)

    def exp(self) -> Value:
        out = Value(_exp(self.data), (self,), "exp")

        def _backward(out):  # (e**x)' = e**x, already in out.data
            self.grad += out.data * out.grad

        return out._attach(_backward)

    def log(self) -> Value:
        out = Value(_log(self.data), (self,), "log")

        def _backward(out):  # (log x)' = 1/x
            self.grad += _div(out.grad, self.data)

        return out._attach(_backward)

    def sqrt(self) -> Value:
        out = Value(_domain(math.sqrt, self.data), (self,), "sqrt")

        def _backward(out):  # (sqrt x)' = 1 / (2 sqrt x)
            self.grad += _div(out.grad, 2.0 * out.data)

        return out._attach(_backward)

    def sin(self) -> Value:
        out = Value(_domain(math.sin, self.data), (self,), "sin")

        def _backward(out):  # sin' = cos
            self.grad += _domain(math.cos, self.data) * out.grad

        return out._attach(_backward)

    def cos(self) -> Value:
        out = Value(_domain(math.cos, self.data), (self,), "cos")

        def _backward(out):  # cos' = -sin
            self.grad += -_domain(math.sin, self.data) * out.grad

        return out._attach(_backward)

    def __abs__(self) -> Value:
        out = Value(abs(self.data), (self,), "abs")

        def _backward(out):  # |x|' = sign(x), taken as 0 at 0
            self.grad += ((self.data > 0) - (self.data < 0)) * out.grad

        return out._attach(_backward)

    abs = __abs__

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
        self._grad_fn = lambda node: fn()

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
        return self * _pow(_as_float(other), -1)  # a huge int is inf, as in Value(10**400)

    def __rtruediv__(self, other: Number) -> Value:  # other / self
        if not _is_operand(other):
            return NotImplemented
        return other * self**-1

    def __rpow__(self, other: Number) -> Value:  # other ** self
        base = _as_value(other)
        return NotImplemented if base is NotImplemented else base ** self

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


def _do_nothing() -> None:
    pass


def _is_operand(x: object) -> bool:
    """Can x take part in an op with a Value? (a Value or a real number)"""
    return type(x) is float or type(x) is int or isinstance(x, (Value, numbers.Real))


def _as_value(x: object) -> Value:
    """Wrap a plain number so that `a + 2` works; NotImplemented for anything else."""
    if isinstance(x, Value):
        return x
    if _is_operand(x):
        return Value(x)
    return NotImplemented


# ---------------------------------------------------------------------------------------
# Bigger lego blocks. The lecture: any function whose forward pass and local derivative
# you know can be one node. The graph is smaller; the numbers are the same.
# ---------------------------------------------------------------------------------------

def weighted_sum(
    weights: list[Value], inputs: Iterable[Value | Number], bias: Value | Number
) -> Value:
    """bias + w0*x0 + w1*x1 + ... as one node (a neuron's pre-activation).

    Adds in the same order as micrograd's `sum((wi*xi ...), bias)`, so the value is
    bit-for-bit the same as the fine-grained graph's; gradients: d/dwi = xi, d/dxi = wi.
    """
    xs = [x if isinstance(x, Value) else Value(x) for x in inputs]
    bias = bias if isinstance(bias, Value) else Value(bias)
    if len(xs) != len(weights):
        raise ValueError(f"weighted_sum: {len(weights)} weights but {len(xs)} inputs")
    act = bias.data
    for w, x in zip(weights, xs):
        act += w.data * x.data
    out = Value(act, (*weights, *xs, bias), "w·x+b")
    return out._attach(_weighted_sum_backward)


def _weighted_sum_backward(out: Value) -> None:
    """d/dwi = xi * out.grad, d/dxi = wi * out.grad, d/dbias = out.grad.

    Like +, * and relu, it reads its inputs back from out._prev = (w..., x..., bias)
    instead of capturing them in a closure: one shared function instead of a function,
    a cell per variable and a list per neuron call. A neural net makes thousands of these
    nodes per step, and every object less is one the cyclic gc does not have to crawl.
    """
    inputs = out._prev
    n = len(inputs) // 2
    g = out.grad
    inputs[-1].grad += g
    # Last input first, as the fine-grained graph's backward meets the products: an input
    # given twice (m([x, x])) then adds up its two shares in the same order, to the last bit.
    for i in range(n - 1, -1, -1):
        w, x = inputs[i], inputs[n + i]
        w.grad += x.data * g
        x.grad += w.data * g


def _call_user(name: str, what: str, function: Callable, xs: list) -> Any:
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


def define_op(
    name: str,
    forward: Callable[..., float],
    derivative: Callable[..., Union[float, tuple]],
) -> Callable[..., Value]:
    """Make a new differentiable op from its forward function and its local derivative.

    `forward(*xs)` computes the output from plain floats; `derivative(*xs)` returns
    d(out)/d(x) (one input) or a tuple of partial derivatives (several inputs). This is
    micrograd's torch.autograd.Function: no need to edit this file.

        cube = define_op("cube", lambda x: x**3, lambda x: 3 * x**2)
        y = cube(Value(2.0))    # y.data == 8.0; after y.backward(), x.grad == 12.0
    """

    def op(*args: Value | Number) -> Value:
        inputs = tuple(a if isinstance(a, Value) else _as_value(a) for a in args)
        if any(a is NotImplemented for a in inputs):
            bad = next(a for a in args if _as_value(a) is NotImplemented)
            raise TypeError(f"{name}() takes Values or numbers, got {type(bad).__name__}")
        xs = [a.data for a in inputs]
        out = Value(_as_float(_call_user(name, "forward", forward, xs)), inputs, name)

        def _backward(out):
            partials = _call_user(name, "derivative", derivative, xs)
            if not isinstance(partials, (tuple, list)):  # one number: one partial
                partials = (partials,)
            if len(partials) != len(inputs):
                raise ValueError(
                    f"derivative of {name} returned {len(partials)} partials "
                    f"for {len(inputs)} inputs"
                )
            for a, d in zip(inputs, partials):
                a.grad += d * out.grad

        return out._attach(_backward)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"The custom op {name!r}, made by define_op."
    return op
