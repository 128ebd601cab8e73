"""Tensor: a node of the autograd graph that holds a whole numpy array.

The same algorithm as `Value`, only coarser: every op computes its output array, records
its inputs in `_prev`, and attaches `_grad_fn(node)`, the local chain-rule step that adds
d(out)/d(input) * out.grad into each input's `.grad`. Walking the graph in topological
order, seeding and resetting gradients are `micrograd.autograd.backward`, shared with the
scalar engine.

This module holds the class's state and plain accessors only. How an op makes a node is
`micrograd.tensors.function` (the public op kernel); the ops themselves, which also become
Tensor's methods and operators, are `micrograd.tensors.ops`.

As in PyTorch, `.data` and `.grad` are Tensors sharing memory with this one
(`p.grad.zero_()`, `p.data -= lr * p.grad`), made on access from two plain arrays that the
ops, the walker and optimizers use directly: `_array` (the values) and `_grad_array`
(the gradient, or None). The engine never writes into an interior node's gradient array in
place (accumulation makes `old + g`), so an op may hand one array to two inputs; a leaf's
gradient is its own array and accumulates in place, as torch's `.grad` does.

In-place ops bump a version counter (`_version`, see `tensors.versions`): backward()
refuses to use a value that was changed after an op recorded it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, Union

import numpy as np

from micrograd import autograd
from micrograd.tensors import compat, dtypes, versions

ArrayLike = Union["Tensor", np.ndarray, Sequence, float, int]
# What an operator takes on its other side: t + 1.0, 2 * t, t @ u, t < array.
Operand = Union["Tensor", np.ndarray, float, int, bool]
Dims = int | Sequence[int] | None


def is_finite(grad: Any) -> bool:
    """True if `grad` (an array, or None) holds no inf or nan: anomaly mode's test."""
    if type(grad) is Tensor:
        grad = grad._array
    return grad is None or bool(np.isfinite(grad).all())


class Tensor:
    """An n-dimensional array that records the ops applied to it, for backward().

    Its methods and operators (t + u, t.exp(), t.sum(), t[i], ...) are the ops of
    `micrograd.tensors.ops`, installed on the class when the package is imported."""

    __slots__ = (
        "__weakref__",
        "_array",
        "_epoch",
        "_grad_array",
        "_grad_fn",
        "_grad_view",
        "_label",
        "_op",
        "_prev",
        "_requires_grad",
        "_versions",
    )
    __array_ufunc__ = None  # ndarray + Tensor: numpy steps aside, Tensor.__radd__ runs
    _is_finite = staticmethod(is_finite)  # the shared walker's anomaly check asks the node

    def __init__(self, data: ArrayLike, requires_grad: bool = False, dtype: Any = None):
        if isinstance(data, Tensor):
            data = data.numpy()
        python_data = not isinstance(data, (np.ndarray, np.generic))
        array = np.array(data, dtype=dtype)  # a copy, as torch.tensor makes
        if array.dtype.kind not in "biuf":
            raise TypeError(
                "tensor() takes numbers, nested lists of numbers or numeric numpy arrays, "
                f"got {type(data).__name__} of dtype {array.dtype}"
            )
        default = dtypes.default.dtype
        if dtype is None and python_data and array.dtype == dtypes.float64 != default:
            array = array.astype(default)
        self._array = array
        self._grad_array: np.ndarray | None = None
        self._grad_view: Tensor | None = None
        self._prev: tuple = ()
        self._grad_fn: Any = None
        self._op = ""
        self._epoch = versions.clock.epoch
        self._versions: versions.Counter | None = None
        self._requires_grad = False
        if requires_grad:
            self.requires_grad = True

    # --- .data and .grad: Tensors on the same memory, as torch's -------------------------

    @property
    def data(self) -> Tensor:
        """This tensor's values as a new tensor on the same memory that records no graph:
        `p.data -= lr * p.grad` changes p. Assigning (`p.data = t`) replaces the values,
        keeping p itself (its identity, requires_grad, graph role)."""
        view = leaf(self._array)
        counter = self._versions
        if counter is None:  # made once: a change through the view is a change of self
            counter = self._versions = versions.Counter()
        view._versions = counter
        return view

    @data.setter
    def data(self, value: ArrayLike) -> None:
        array = value._array if isinstance(value, Tensor) else np.asarray(value)
        if array is self._array:
            return  # `p.data -= x` assigns back what it changed in place
        if self._requires_grad and array.dtype.kind != "f":
            raise TypeError(f"p.data = ...: p requires grad, so the new data must be "
                            f"floating point, got {array.dtype}")
        self._array = array  # ops recorded before keep the old array: nothing to check
        self._grad_view = None

    @property
    def grad(self) -> Tensor | None:
        """d(output)/d(this tensor) after backward(), as a Tensor (None before): the same
        object on every access while the gradient array stays the same."""
        array = self._grad_array
        if array is None:
            return None
        view = self._grad_view
        if view is None or view._array is not array:
            view = self._grad_view = leaf(array)
        return view

    @grad.setter
    def grad(self, value: ArrayLike | None) -> None:
        if value is None:
            self._grad_array = None
            return
        array = value._array if isinstance(value, Tensor) else np.asarray(value)
        if array.shape != self._array.shape:
            raise RuntimeError(f"assigned grad has shape {tuple(array.shape)}, but the "
                               f"tensor has shape {tuple(self._array.shape)}: they must match")
        self._grad_array = array

    @property
    def _version(self) -> int:
        """How many in-place changes this tensor has had (torch's `t._version`)."""
        return versions.version(self)

    # --- the storage API: `leaf(array)` makes a tensor on an array; this changes one -----

    def _array_to_change(self) -> np.ndarray:
        """This tensor's array, for a change in place that the caller makes now (an
        optimizer step, nn.init, running statistics, load_state_dict). Bumps the version
        first, as torch's in-place ops do: a backward() through a graph that saved the old
        values then raises torch's error instead of silently using the new ones."""
        versions.changed_in_memory(self)
        return self._array

    # --- pickle and copy: data and requires_grad, never a graph -------------------------

    def __reduce_ex__(self, protocol: Any) -> tuple:
        self._refuse_graph("pickled")
        return (_rebuild, (type(self), self._array, self._requires_grad, None,
                           getattr(self, "__dict__", None)))

    def __deepcopy__(self, memo: dict) -> Tensor:
        self._refuse_graph("deep-copied")
        grad = None if self._grad_array is None else self._grad_array.copy()
        state = getattr(self, "__dict__", None)
        copy = _rebuild(type(self), self._array.copy(), self._requires_grad, grad, None)
        memo[id(self)] = copy
        if state:
            import copy as copy_module  # only here: deepcopy of a Tensor subclass's fields

            copy.__dict__.update(copy_module.deepcopy(state, memo))
        return copy

    def _refuse_graph(self, verb: str) -> None:
        if self._grad_fn is not None:
            raise RuntimeError(
                f"this tensor (the output of '{self._op}') is part of an autograd graph, "
                f"whose backward steps cannot be {verb}; save or copy the values instead: "
                "t.detach() for a tensor, model.state_dict() for a model"
            )

    @property
    def label(self) -> str:
        """The name pictures and traces show (as Value's label=): `h.label = "hidden"`."""
        return getattr(self, "_label", "")  # unset on most tensors: nothing to pay per op

    @label.setter
    def label(self, text: str) -> None:
        self._label = str(text)

    # --- the graph-node side ------------------------------------------------------------

    @property
    def requires_grad(self) -> bool:
        """True if backward() fills this tensor's .grad (or flows through it)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if flag and self._array.dtype.kind != "f":
            raise TypeError(
                f"only floating-point tensors can require gradients, this one is "
                f"{self._array.dtype}; make it float, e.g. tensor(data, dtype=float64) "
                "or tensor([1.0, 2.0])"
            )
        if not flag and self._grad_fn is not None:
            raise RuntimeError(
                "requires_grad can only be switched off on a leaf; use .detach() instead"
            )
        self._requires_grad = bool(flag)

    def requires_grad_(self, flag: bool = True) -> Tensor:
        """Set requires_grad in place and return self, as torch's requires_grad_()."""
        self.requires_grad = flag
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded op (parameters, inputs)."""
        return self._grad_fn is None

    @property
    def op(self) -> str:
        """The name of the op that made this tensor ("" for a leaf)."""
        return self._op

    @property
    def inputs(self) -> tuple:
        """The tensors this one was computed from, as recorded for backward()."""
        return self._prev

    def retain_grad(self) -> None:
        """Kept for PyTorch scripts: intermediate gradients are always kept here."""

    def backward(self, gradient: ArrayLike | None = None) -> None:
        """Fill .grad of every tensor this one depends on: d(self)/d(tensor), summed with
        `gradient` (the seed, default 1 for a single-element tensor)."""
        if not self._requires_grad:
            raise RuntimeError(
                "backward() on a tensor that does not require grad: no input of the "
                "expression had requires_grad=True (or it was computed under no_grad())"
            )
        if gradient is None:
            if self._array.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs: this tensor "
                    f"has shape {self.shape}; call .sum().backward() or pass "
                    "backward(gradient=...) of that shape"
                )
            seed = np.ones_like(self._array)
        else:
            seed = np.array(gradient._array if isinstance(gradient, Tensor) else gradient,
                            dtype=self._array.dtype)
            if seed.shape != self._array.shape:
                raise ValueError(
                    f"backward(gradient=...) needs the tensor's shape {self.shape}, "
                    f"got shape {tuple(seed.shape)}"
                )
        with np.errstate(all="ignore"):  # inf/nan gradients silently, as in PyTorch: once
            autograd.backward(self, seed, None, versions.check_graph)  # once, not per op

    # --- plain-data accessors, PyTorch names ------------------------------------------

    @property
    def shape(self) -> tuple:
        return self._array.shape

    @property
    def dtype(self) -> np.dtype:
        return self._array.dtype

    @property
    def ndim(self) -> int:
        return self._array.ndim

    def dim(self) -> int:
        return self._array.ndim

    def size(self, dim: int | None = None) -> tuple | int:
        """The shape, or its length along `dim`, as torch's size()."""
        return self._array.shape if dim is None else self._array.shape[dim]

    def numel(self) -> int:
        return self._array.size

    def item(self) -> float | int | bool:
        """The single number in a one-element tensor, as a Python number."""
        if self._array.size != 1:
            raise ValueError(
                f"item() needs a tensor with one element, this one has shape {self.shape}"
            )
        return self._array.item()

    def numpy(self) -> np.ndarray:
        """The data array itself (shared, not copied), as torch's numpy()."""
        return self._array

    def tolist(self) -> Any:
        return self._array.tolist()

    def detach(self) -> Tensor:
        """The same data (shared, with its version counter) as a new leaf that records no
        graph."""
        view = leaf(self._array)
        view._versions = versions.shared_versions(self)
        return view

    def cpu(self) -> Tensor:
        """This tensor: it lives on the CPU already."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Always a RuntimeError: micrograd computes with numpy, on the CPU only."""
        compat.check_device("cuda")
        raise AssertionError("unreachable")  # check_device("cuda") always raises

    @property
    def device(self) -> str:
        """Where the data lives: always "cpu" (numpy arrays)."""
        return "cpu"

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self._array if dtype is None else self._array.astype(dtype)

    def __len__(self) -> int:
        if self._array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self._array)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        """A one-element integer tensor used as an index, as torch allows: `data[i:i + 8]`
        for `i` taken from `torch.randint(...)` (the GPT lecture's get_batch)."""
        if self._array.dtype.kind not in "iub" or self._array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            f"index (got dtype {self._array.dtype}, shape {self.shape})")
        return int(self._array.reshape(()))

    def __bool__(self) -> bool:
        return bool(self._array)

    def __repr__(self) -> str:
        body = np.array2string(self._array, separator=", ", prefix="tensor(")
        extras = ""
        if self._array.dtype != dtypes.default.dtype and self._array.dtype != dtypes.int64:
            extras += f", dtype={self._array.dtype}"
        if self._grad_fn is not None:
            extras += f", grad_fn=<{self._op}>"
        elif self._requires_grad:
            extras += ", requires_grad=True"
        return f"tensor({body}{extras})"

    __hash__ = object.__hash__  # identity, like torch: == is elementwise (ops.elementwise)

    if TYPE_CHECKING:
        # The operators and methods below are installed on the class at import time by
        # `micrograd.tensors.ops` (setattr), which mypy cannot follow. These declarations
        # exist for the type checker only and cost nothing at runtime. The operators and
        # the methods the library itself calls are typed one by one, so mypy checks those
        # calls; the long tail of ~150 torch-named methods goes through `__getattr__`
        # (returning Any), since writing each signature twice (here and at the op) would
        # drift. `==`/`!=` keep object's signature: they return a Tensor at runtime, but
        # overriding `__eq__` with a non-bool return breaks the object protocol for mypy.
        # Comparisons leave out ndarray on the right: numpy's own reflected comparison
        # returns an ndarray, and mypy rejects the overlap.
        def __add__(self, other: Operand) -> Tensor: ...
        def __radd__(self, other: Operand) -> Tensor: ...
        def __sub__(self, other: Operand) -> Tensor: ...
        def __rsub__(self, other: Operand) -> Tensor: ...
        def __mul__(self, other: Operand) -> Tensor: ...
        def __rmul__(self, other: Operand) -> Tensor: ...
        def __truediv__(self, other: Operand) -> Tensor: ...
        def __rtruediv__(self, other: Operand) -> Tensor: ...
        def __pow__(self, other: Operand) -> Tensor: ...
        def __rpow__(self, other: Operand) -> Tensor: ...
        def __matmul__(self, other: Operand) -> Tensor: ...
        def __rmatmul__(self, other: Operand) -> Tensor: ...
        def __iadd__(self, other: Operand) -> Tensor: ...
        def __isub__(self, other: Operand) -> Tensor: ...
        def __imul__(self, other: Operand) -> Tensor: ...
        def __itruediv__(self, other: Operand) -> Tensor: ...
        def __lt__(self, other: Tensor | float) -> Tensor: ...
        def __le__(self, other: Tensor | float) -> Tensor: ...
        def __gt__(self, other: Tensor | float) -> Tensor: ...
        def __ge__(self, other: Tensor | float) -> Tensor: ...
        def __neg__(self) -> Tensor: ...
        def __pos__(self) -> Tensor: ...
        def __abs__(self) -> Tensor: ...
        def __invert__(self) -> Tensor: ...
        def __getitem__(self, index: Any) -> Tensor: ...
        def __setitem__(self, index: Any, value: Operand) -> None: ...
        def __iter__(self) -> Iterator[Tensor]: ...

        def to(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sum(self, dim: Dims = None, keepdim: bool = False) -> Tensor: ...
        def mean(self, dim: Dims = None, keepdim: bool = False) -> Tensor: ...
        def reshape(self, *shape: int | Sequence[int]) -> Tensor: ...
        def view(self, *shape: int | Sequence[int]) -> Tensor: ...
        def permute(self, *dims: int | Sequence[int]) -> Tensor: ...
        def flatten(self, start_dim: int = 0, end_dim: int = -1) -> Tensor: ...
        def exp(self) -> Tensor: ...
        def log(self) -> Tensor: ...
        def abs(self) -> Tensor: ...
        def tanh(self) -> Tensor: ...
        def relu(self) -> Tensor: ...
        def sigmoid(self) -> Tensor: ...
        def softmax(self, dim: int = -1) -> Tensor: ...
        def log_softmax(self, dim: int = -1) -> Tensor: ...

        def __getattr__(self, name: str) -> Any: ...


_new = object.__new__


def leaf(data: np.ndarray, cls: type = Tensor) -> Tensor:
    """A tensor around `data` (not copied) that records no graph: the one way the library
    makes a Tensor from an array it already has (`cls`: Tensor or a subclass)."""
    t: Tensor = _new(cls)
    t._array = data if type(data) is np.ndarray else np.asarray(data)
    t._grad_array = None
    t._grad_view = None
    t._requires_grad = False
    t._prev = ()
    t._grad_fn = None
    t._op = ""
    t._epoch = 0
    t._versions = None
    return t


def _rebuild(cls: type, array: np.ndarray, requires_grad: bool, grad: np.ndarray | None,
             state: dict | None) -> Tensor:
    """A pickled or copied tensor back: a leaf of class `cls` (Tensor, or a subclass such as
    nn.Parameter) with these values."""
    t = leaf(array, cls)
    t._grad_array = grad
    t._requires_grad = bool(requires_grad)
    if state:
        t.__dict__.update(state)
    return t
