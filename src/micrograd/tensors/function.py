"""The op kernel: how a tensor op is made. Public: new ops are written with it.

A tensor op is a forward computation on numpy arrays plus one vector-Jacobian product
(VJP) per input: given g, the gradient of the loss with respect to the op's output, the
VJP returns the gradient with respect to that input. The kernel does the rest, the same
for every op -- it records the node for `backward()`, sums each gradient back over the
axes broadcasting stretched (`unbroadcast`), converts it to the input's dtype, and adds it
into the input's `.grad`. The Tensor counterpart of `micrograd.define_op`.

From the highest level down:

    define_unary(op, forward, vjp)              -> a function of one tensor
    define_binary(op, forward, vjp_a, vjp_b)    -> a function of two operands (numbers too)
    unary(x, out, op, vjp)                      the node of a one-input op already computed
    apply(op, out, inputs, vjps)                the node of an n-input op already computed
    node(out, inputs, op, backward, record)     the raw node; backward(node) sends gradients
    accumulate(t, g)                            t.grad += g, unbroadcast and in t's dtype
    leaf(array)                                 a tensor that records no graph

A VJP of None means "the gradient passes through unchanged" (d out / d input = 1).
`method` installs an op as a Tensor method (t.exp(), t + u).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from micrograd import autograd
from micrograd.autograd import modes
from micrograd.tensors import dtypes, quiet_floats, versions
from micrograd.tensors.dtypes import float32, float64, promote, promote_with_number
from micrograd.tensors.tensor import NOT_RETAINED, Tensor, is_finite, leaf

__all__ = [
    "Tensor", "VJP", "leaf", "node", "accumulate", "unbroadcast", "unary", "apply", "binary",
    "define_unary", "define_binary", "operand", "raw", "quiet", "check_in_place", "in_place",
    "method", "attach", "shared_ones",
]

VJP = Callable[[np.ndarray], np.ndarray] | None  # g -> gradient for one input
F = TypeVar("F", bound=Callable[..., Any])

_new = object.__new__
_clock = versions.clock


def node(data: np.ndarray, inputs: tuple, op: str, backward: Callable[[Tensor], None] | None,
         record: bool | None = None) -> Tensor:
    """The output tensor of an op. It records `inputs` and `backward` (called as
    backward(node) by the walker, it sends node._grad_array on to the inputs with `accumulate`)
    when gradients are on and `record` is true (None: when any input requires grad)."""
    t = _new(Tensor)
    t._array = data if type(data) is np.ndarray else np.asarray(data)
    t._grad_array = None
    t._grad_view = None
    t._retained = NOT_RETAINED
    t._versions = None
    t._epoch = _clock.epoch
    t._op = op
    if record is None:
        record = any(x._requires_grad for x in inputs)
    if record and modes.grad_enabled:
        t._requires_grad = True
        t._prev = inputs
        t._grad_fn = backward
    else:
        t._requires_grad = False
        t._prev = ()
        t._grad_fn = None
    if modes.anomaly:
        autograd.check_forward(op, t._array, inputs, is_finite)
    return t


def accumulate(t: Tensor, g: Any, shared: bool = False) -> None:
    """t.grad += g, with g summed back to t's shape and converted to t's dtype.

    `shared` says g is also someone else's gradient array: a leaf then gets its own copy,
    so a user who edits p.grad in place does not change another tensor's gradient. The sum
    is a new array (never `old += g`): an op may have handed one array to two inputs.
    """
    data = t._array
    if g.shape != data.shape:
        g = unbroadcast(g, data.shape)
        shared = False
    if g.dtype is not data.dtype and g.dtype != data.dtype:  # `is`: the cheap common case
        g = g.astype(data.dtype)
        shared = False
    old = t._grad_array
    if old is None:
        if type(g) is not np.ndarray:
            g = np.array(g)
        elif t._grad_fn is None and (shared or g.base is not None):
            g = g.copy()  # a leaf's gradient is its own array, not a view of another one
        t._grad_array = g
    else:
        total = old + g
        t._grad_array = total if type(total) is np.ndarray else np.asarray(total)


def unbroadcast(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum g over the axes that broadcasting added or stretched, giving `shape`.

    An input broadcast along an axis was used once per position on it, so by the `+=`
    rule its gradient is the sum of the gradients of all those uses.
    """
    # np.add.reduce is ndarray.sum without its Python-level wrapper (~0.5 us a call)
    if not shape:  # a 0-d input (a scalar parameter): the sum of everything
        return np.asarray(np.add.reduce(g, axis=None))
    extra = g.ndim - len(shape)
    if extra:
        g = np.add.reduce(g, axis=tuple(range(extra)))
        if g.shape == shape:  # a bias's gradient, summed over the batch: done
            return g if type(g) is np.ndarray else np.asarray(g)
    # the common ranks without a generator: a one-element parameter times a vector, and a
    # (1, n) row (BatchNorm's gain, a keepdim mean) or (n, 1) column against a batch
    if len(shape) == 1:
        stretched: tuple[int, ...] = (0,) if shape[0] == 1 and g.shape[0] != 1 else ()
    elif len(shape) == 2:
        rows, cols = shape[0] == 1 and g.shape[0] != 1, shape[1] == 1 and g.shape[1] != 1
        stretched = (0, 1) if rows and cols else (0,) if rows else (1,) if cols else ()
    else:
        stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if stretched:
        g = np.add.reduce(g, axis=stretched, keepdims=True)
    return g if type(g) is np.ndarray else np.asarray(g)


@functools.lru_cache(maxsize=32)
def shared_ones(shape: tuple[int, ...], dtype: Any) -> np.ndarray:
    """A read-only array of ones, kept for reuse: the ones vector a backward step multiplies
    by to sum over the batch (np.ones is a Python function: ~1 us a call on a tiny step)."""
    ones = np.ones(shape, dtype=dtype)
    ones.flags.writeable = False
    return ones


def unary(x: Tensor, data: np.ndarray, op: str, vjp: VJP) -> Tensor:
    """The node of a one-input op whose output `data` is computed: vjp(g) is the
    gradient for x (None: g passes through unchanged)."""
    if not x._requires_grad:
        return node(data, (x,), op, None, False)

    def backward(out: Tensor) -> None:
        g = out._grad_array
        if g is not None:  # the input from _prev, not captured: see versions.rewirable
            if vjp is None:
                accumulate(out._prev[0], g, shared=True)
            else:
                accumulate(out._prev[0], vjp(g))

    return node(data, (x,), op, backward, True)


def apply(op: str, data: np.ndarray, inputs: Sequence[Tensor], vjps: Sequence[VJP]) -> Tensor:
    """The node of an op of several tensors whose output `data` is computed: vjps[i](g)
    is the gradient for inputs[i] (None: g itself), summed back to its shape."""
    inputs = tuple(inputs)
    if len(vjps) != len(inputs):
        raise ValueError(f"{op}: {len(inputs)} inputs need {len(inputs)} VJPs, "
                         f"got {len(vjps)}")
    pairs = [(i, vjp) for i, (x, vjp) in enumerate(zip(inputs, vjps, strict=True))
             if x._requires_grad]
    if not pairs:
        return node(data, inputs, op, None, False)

    def backward(out: Tensor) -> None:
        g = out._grad_array
        if g is None:
            return
        prev = out._prev
        for i, vjp in pairs:
            if vjp is None:
                accumulate(prev[i], g, shared=True)
            else:
                accumulate(prev[i], vjp(g))

    return node(data, inputs, op, backward, True)


def binary(a: Any, b: Any, op: str, forward: Callable[[Any, Any], np.ndarray],
           vjp_a: Callable[..., np.ndarray] | None,
           vjp_b: Callable[..., np.ndarray] | None) -> Tensor:
    """An elementwise op of two operands, broadcast and promoted as in PyTorch; a or b may
    be a plain Python number (no gradient for it).

    forward(x, y) gives the output array; vjp_a(g, x, y, out) and vjp_b(...) the gradient
    for each input before unbroadcasting; None means "g itself" (the derivative is 1).
    """
    inputs: tuple[Tensor, ...]
    if type(a) is Tensor:
        x, a_needs = a._array, a._requires_grad
        if type(b) is Tensor:
            y, b_needs, inputs = b._array, b._requires_grad, (a, b)
            if x.dtype is not y.dtype and x.dtype != y.dtype:  # `is`: the cheap common case
                x, y = promote(x, y, op)
        else:
            y, b_needs, inputs = b, False, (a,)
            # a float tensor op a number: numpy's result dtype is PyTorch's already
            if x.dtype is not float64 and x.dtype is not float32 and x.dtype.kind != "f":
                x = promote_with_number(x, b, op)
    else:
        x, a_needs = a, False
        y, b_needs, inputs = b._array, b._requires_grad, (b,)
        if y.dtype is not float64 and y.dtype is not float32 and y.dtype.kind != "f":
            y = promote_with_number(y, a, op)
    try:
        out = forward(x, y)
    except ValueError as error:
        try:
            np.broadcast_shapes(np.shape(x), np.shape(y))
        except ValueError:
            raise ValueError(
                f"{op}: shapes {np.shape(x)} and {np.shape(y)} cannot be broadcast "
                "together (each trailing dimension must be equal or 1)"
            ) from error
        raise
    if not (a_needs or b_needs):
        return node(out, inputs, op, None, False)

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        prev = result._prev  # a is prev[0] and b prev[-1]: see versions.rewirable
        if a_needs:
            first = prev[0]
            if vjp_a is None:
                accumulate(first, g, True)
            else:
                accumulate(first, vjp_a(g, x, y, out))
        if b_needs:
            last = prev[-1]
            if vjp_b is None:
                accumulate(last, g, True)
            else:
                accumulate(last, vjp_b(g, x, y, out))

    return node(out, inputs, op, backward, True)


def define_unary(op: str, forward: Callable[[np.ndarray], np.ndarray],
                 vjp: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray] | None,
                 ) -> Callable[[Tensor], Tensor]:
    """A one-input op from array functions: forward(x) -> out, vjp(g, x, out) -> the
    gradient for x. E.g. define_unary("sin", np.sin, lambda g, x, out: g * np.cos(x))."""

    def function(x: Tensor) -> Tensor:
        data = x._array
        out = forward(data)
        if vjp is None:
            return unary(x, out, op, None)
        return unary(x, out, op, lambda g: vjp(g, data, out))

    function.__name__ = function.__qualname__ = op
    function.__doc__ = f"{op}(x), elementwise."
    return function


def define_binary(op: str, forward: Callable[[Any, Any], np.ndarray],
                  vjp_a: Callable[..., np.ndarray] | None,
                  vjp_b: Callable[..., np.ndarray] | None) -> Callable[[Any, Any], Tensor]:
    """An elementwise two-input op (see `binary`): forward(x, y) -> out,
    vjp_a(g, x, y, out) and vjp_b(g, x, y, out) -> the gradient for each input."""

    def function(a: Any, b: Any) -> Tensor:
        if type(a) is not Tensor:
            a = operand(a, op)
        if type(b) is not Tensor:
            b = operand(b, op)
        if type(a) is not Tensor and type(b) is not Tensor:
            a = Tensor(a)
        return binary(a, b, op, forward, vjp_a, vjp_b)

    function.__name__ = function.__qualname__ = op
    function.__doc__ = f"{op}(x, y), elementwise with broadcasting."
    return function


def operand(other: Any, op: str = "") -> Any:
    """The other operand of an arithmetic op: a Tensor, a Python number (kept as is, so a
    float32 tensor times 2.0 stays float32), or an array made into a constant tensor;
    NotImplemented for anything else."""
    kind = type(other)
    if kind is float or kind is int or kind is Tensor:  # the common cases first
        return other
    if kind is bool or isinstance(other, np.bool_):
        if op == "-":
            dtypes.refuse_bool_subtraction()
        return bool(other)
    if isinstance(other, (int, float)) and not isinstance(other, np.generic):
        return other
    if isinstance(other, np.generic) and other.dtype.kind in "iuf":
        return other.item()  # numpy scalars act as Python numbers, as in PyTorch
    if isinstance(other, (np.ndarray, list, tuple)):
        return Tensor(other)
    if isinstance(other, numbers.Real):
        return float(other)
    return NotImplemented


def raw(other: Any) -> Any:
    """The plain data of an operand (for comparisons and in-place updates)."""
    return other._array if isinstance(other, Tensor) else other


def quiet(function: F) -> F:
    """`function` under np.errstate(all="ignore"): inf and nan come back as IEEE defines them
    (1/0 = inf, log 0 = -inf, sqrt -1 = nan), silently, as in PyTorch and the scalar engine.
    numpy would also print a RuntimeWarning pointing into our files; anomaly mode
    (micrograd.detect_anomaly) is the way to stop at the first inf or nan. Use it only in
    forward computations where such values can come up (it costs ~0.3 us a call, see
    quiet_floats); Tensor.backward() silences the whole backward pass once."""

    def call(*args: Any) -> Any:
        token = quiet_floats.silence()
        try:
            return function(*args)
        finally:
            quiet_floats.restore(token)

    return call  # type: ignore[return-value]


LEAF_IN_PLACE = "a leaf Variable that requires grad is being used in an in-place operation."


def check_in_place(t: Tensor, op: str) -> None:
    """Refuse, with torch's error, an in-place change of a leaf that requires grad (a
    parameter) while gradients are on: its .grad would no longer match its value."""
    if t._requires_grad and t._grad_fn is None and modes.grad_enabled:
        raise RuntimeError(
            f"{LEAF_IN_PLACE} ({op} on a parameter: update it inside `with no_grad():`, "
            "or through p.data)"
        )


def in_place(t: Tensor, op: str, write: Callable[[np.ndarray], Any],
             compute: Callable[[Tensor], Tensor], operands: Sequence[Any] = ()) -> Tensor:
    """Change t in place as torch does; returns t.

    `write(array)` makes the change in t's memory: used when autograd records nothing
    (under no_grad(), or when neither t nor any of `operands` requires grad).
    `compute(old)` is the same change as an ordinary op of `old`, a node holding t's
    previous value: used when autograd records it. t then becomes that op's node (its
    identity stays, its history is rebased onto `old`, as in torch) and the values
    recorded from t before stay as they were. Either way t's version goes up by one."""
    if not modes.grad_enabled or not (
            t._requires_grad or any(type(o) is Tensor and o._requires_grad for o in operands)):
        write(t._array)
        versions.changed_in_memory(t)
        return t
    check_in_place(t, op)
    old = _new(Tensor)
    old._array, old._grad_array, old._grad_view = t._array, None, None
    old._requires_grad, old._prev, old._grad_fn = t._requires_grad, t._prev, t._grad_fn
    old._op, old._epoch, old._versions = t._op, t._epoch, None
    old._retained = NOT_RETAINED
    result = compute(old)
    array = result._array
    if array.shape != t._array.shape:
        raise RuntimeError(f"{op}: the result has shape {tuple(array.shape)}, but an "
                           f"in-place op keeps the tensor's shape {tuple(t._array.shape)}")
    if array.dtype != t._array.dtype:
        if not np.can_cast(array.dtype, t._array.dtype, "same_kind"):
            raise RuntimeError(f"{op}: result type {array.dtype} can't be cast to the "
                               f"tensor's dtype {t._array.dtype} in place")
        result = unary(result, array.astype(t._array.dtype), "to", None)
    t._array, t._grad_array, t._grad_view = result._array, None, None
    t._requires_grad, t._prev, t._grad_fn = result._requires_grad, result._prev, result._grad_fn
    t._op = result._op
    t._epoch = versions.replaced(t, old)
    return t


_pending: list[tuple[str, Any]] = []  # what `attach` was given before install(), in order
_assembled = False


def attach(name: str, value: Any) -> None:
    """Put `value` on Tensor as `name`. While `micrograd.tensors` is being imported this only
    records it: `install()` (tensors/install.py) attaches everything in one step, in a fixed
    order, so no module writes into the class as a side effect of being imported. Once the
    class is assembled (a learner's own op, made after import) it is attached at once."""
    if _assembled:
        setattr(Tensor, name, value)
    else:
        _pending.append((name, value))


def attach_recorded() -> None:
    """install()'s first step: attach what the op modules recorded, in their order."""
    global _assembled
    for name, value in _pending:
        setattr(Tensor, name, value)
    _pending.clear()
    _assembled = True


def method(*names: str) -> Callable[[F], F]:
    """Make the decorated op a Tensor method under `names` (default: its own name), so the
    function `exp(t)` is also the method `t.exp()`; returns the function unchanged."""

    def record(function: F) -> F:
        for name in names or (function.__name__,):
            attach(name, function)
        return function

    return record


def _mark_in_place_safe() -> None:
    """The backward steps of unary, apply and binary read their inputs from node._prev when
    they run, so the version check may rewire such a node to an input's value from before an
    in-place op. Marked here by name, one node of each: every node a maker makes shares its
    step's code, and a maker that stops making a step fails here, at import."""
    x = leaf(np.zeros(1))
    x._requires_grad = True
    with autograd.enable_grad():  # (an import under no_grad() records nothing)
        made_by_each = (unary(x, x._array, "mark", None),
                        apply("mark", x._array, (x,), (None,)),
                        binary(x, x, "mark", np.add, None, None))
    for made in made_by_each:
        step = made._grad_fn
        if step is None:
            raise RuntimeError(f"the op kernel made no backward step for {made._op!r}")
        versions.register_rewirable(step)


_mark_in_place_safe()
