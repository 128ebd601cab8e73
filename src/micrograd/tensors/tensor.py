"""Tensor: a node of the autograd graph that holds a whole numpy array.

The same algorithm as `Value`, only coarser: every op computes its output array, records
its inputs in `_prev`, and attaches `_grad_fn(node)`, the local chain-rule step that adds
d(out)/d(input) * out.grad into each input's `.grad`. Walking the graph in topological
order, seeding and resetting gradients are `micrograd.autograd.backward`, shared with the
scalar engine.

This module holds the class's state and plain accessors only. How an op makes a node is
`micrograd.tensors.function` (the public op kernel); the ops themselves, which also become
Tensor's methods and operators, are `micrograd.tensors.ops`.

Gradients are numpy arrays (or None before any backward), and the engine never writes
into a gradient array in place: accumulation makes a new array (`old + g`). That is why
an op may hand the same array to two inputs without copying it.
"""

from __future__ import annotations

from typing import Any, NoReturn, Sequence, Union

import numpy as np

from micrograd import autograd
from micrograd.tensors import compat, dtypes

ArrayLike = Union["Tensor", np.ndarray, Sequence, float, int]


def is_finite(grad: Any) -> bool:
    """True if `grad` (an array, or None) holds no inf or nan: anomaly mode's test."""
    return grad is None or bool(np.isfinite(grad).all())


class Tensor:
    """An n-dimensional array that records the ops applied to it, for backward().

    Its methods and operators (t + u, t.exp(), t.sum(), t[i], ...) are the ops of
    `micrograd.tensors.ops`, installed on the class when the package is imported."""

    __slots__ = ("data", "grad", "_requires_grad", "_prev", "_grad_fn", "_op", "_label",
                 "__weakref__")
    __array_ufunc__ = None  # ndarray + Tensor: numpy steps aside, Tensor.__radd__ runs
    _is_finite = staticmethod(is_finite)  # the shared walker's anomaly check asks the node

    def __init__(self, data: ArrayLike, requires_grad: bool = False, dtype: Any = None):
        if isinstance(data, Tensor):
            data = data.data
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
        self.data = array
        self.grad: np.ndarray | None = None
        self._prev: tuple = ()
        self._grad_fn: Any = None
        self._op = ""
        self._requires_grad = False
        if requires_grad:
            self.requires_grad = True

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
        if flag and self.data.dtype.kind != "f":
            raise TypeError(
                f"only floating-point tensors can require gradients, this one is "
                f"{self.data.dtype}; make it float, e.g. tensor(data, dtype=float64) "
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
            if self.data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs: this tensor "
                    f"has shape {self.shape}; call .sum().backward() or pass "
                    "backward(gradient=...) of that shape"
                )
            seed = np.ones_like(self.data)
        else:
            seed = np.array(gradient.data if isinstance(gradient, Tensor) else gradient,
                            dtype=self.data.dtype)
            if seed.shape != self.data.shape:
                raise ValueError(
                    f"backward(gradient=...) needs the tensor's shape {self.shape}, "
                    f"got shape {tuple(seed.shape)}"
                )
        with np.errstate(all="ignore"):  # inf/nan gradients silently, as in PyTorch: once
            autograd.backward(self, seed, None)  # here, not in every backward function

    # --- plain-data accessors, PyTorch names ------------------------------------------

    @property
    def shape(self) -> tuple:
        return self.data.shape

    @property
    def dtype(self) -> np.dtype:
        return self.data.dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    def dim(self) -> int:
        return self.data.ndim

    def size(self, dim: int | None = None) -> tuple | int:
        """The shape, or its length along `dim`, as torch's size()."""
        return self.data.shape if dim is None else self.data.shape[dim]

    def numel(self) -> int:
        return self.data.size

    def item(self) -> float | int | bool:
        """The single number in a one-element tensor, as a Python number."""
        if self.data.size != 1:
            raise ValueError(
                f"item() needs a tensor with one element, this one has shape {self.shape}"
            )
        return self.data.item()

    def numpy(self) -> np.ndarray:
        """The data array itself (shared, not copied), as torch's numpy()."""
        return self.data

    def tolist(self) -> Any:
        return self.data.tolist()

    def detach(self) -> Tensor:
        """The same data (shared) as a new leaf that records no graph."""
        return leaf(self.data)

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
        return self.data if dtype is None else self.data.astype(dtype)

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.data)

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __bool__(self) -> bool:
        return bool(self.data)

    def __repr__(self) -> str:
        body = np.array2string(self.data, separator=", ", prefix="tensor(")
        extras = ""
        if self.data.dtype != dtypes.default.dtype and self.data.dtype != dtypes.int64:
            extras += f", dtype={self.data.dtype}"
        if self._grad_fn is not None:
            extras += f", grad_fn=<{self._op}>"
        elif self._requires_grad:
            extras += ", requires_grad=True"
        return f"tensor({body}{extras})"

    __hash__ = object.__hash__  # identity, like torch: == is elementwise (ops.elementwise)


_new = object.__new__


def leaf(data: np.ndarray) -> Tensor:
    """A tensor around `data` (not copied) that records no graph."""
    t = _new(Tensor)
    t.data = data if type(data) is np.ndarray else np.asarray(data)
    t.grad = None
    t._requires_grad = False
    t._prev = ()
    t._grad_fn = None
    t._op = ""
    return t
