"""Tensor: a node of the autograd graph that holds a whole numpy array.

The same algorithm as `Value`, only coarser: every op computes its output array, records
its inputs in `_prev`, and attaches `_grad_fn(node)`, the local chain-rule step that adds
d(out)/d(input) * out.grad into each input's `.grad`. Walking the graph in topological
order, seeding and resetting gradients are `micrograd.autograd.backward`, shared with the
scalar engine. Only one new idea appears: broadcasting. An input that was broadcast to a
bigger shape was used many times, once per copy, so its gradient is the *sum* over the
copies -- `_unbroadcast` sums the gradient back to the input's shape.

Gradients are numpy arrays (or None before any backward), and the engine never writes
into a gradient array in place: accumulation makes a new array (`old + g`). That is why
an op may hand the same array to two inputs without copying it.
"""

from __future__ import annotations

import numbers
import os
import sys
from collections import namedtuple
from typing import Any, Callable, NoReturn, Sequence, Union

import numpy as np

from micrograd import autograd
from micrograd.autograd import modes

float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int64 = np.dtype(np.int64)

_default_dtype = float64  # what Python floats become (numpy's default; PyTorch uses float32)
_generator = np.random.default_rng()

ArrayLike = Union["Tensor", np.ndarray, Sequence, float, int]
MaxMin = namedtuple("MaxMin", ["values", "indices"])  # what torch.max(x, dim) returns


def set_default_dtype(dtype: Any) -> None:
    """The dtype Python floats and new parameters get: float64 (default) or float32."""
    global _default_dtype
    dtype = np.dtype(dtype)
    if dtype not in (float32, float64):
        raise TypeError(f"default dtype must be float32 or float64, got {dtype}")
    _default_dtype = dtype


# Device names PyTorch knows besides the CPU: recognised only to say clearly they are not here.
_OTHER_DEVICES = ("cuda", "mps", "xpu", "xla", "meta", "hip", "ipu", "hpu", "mtia", "vulkan",
                  "privateuseone")


def _is_device(target: Any) -> bool:
    """True for "cpu", "cuda:0", ... (a dtype otherwise); objects with a .type, as
    torch.device, count as devices too."""
    if isinstance(target, str):
        return target.split(":")[0] in ("cpu",) + _OTHER_DEVICES
    return isinstance(getattr(target, "type", None), str)


def check_device(target: Any) -> None:
    """Accept the CPU; for any other device raise a RuntimeError that says why."""
    name = target if isinstance(target, str) else getattr(target, "type", target)
    if not isinstance(name, str) or name.split(":")[0] != "cpu":
        raise RuntimeError(
            f"micrograd runs on the CPU only (it computes with numpy), so device {name!r} "
            "is not available; drop the .to(device)/.cuda() call or use 'cpu'"
        )


def _as_dtype(dtype: Any) -> np.dtype:
    """dtype as a numpy dtype, with an error that says what is accepted."""
    try:
        return np.dtype(dtype)
    except TypeError as error:
        raise TypeError(
            f"expected a dtype (micrograd.float32, float64, int64, ...) or the device 'cpu', "
            f"got {dtype!r}"
        ) from error


def to_arguments(args: tuple, dtype: Any, device: Any) -> np.dtype | None:
    """The dtype asked for by to(dtype) / to(device) / to(device, dtype) (None: none);
    checks that the device is the CPU. Shared by Tensor.to and Module.to."""
    if device is not None:
        check_device(device)
    for arg in args:
        if _is_device(arg):
            check_device(arg)
        elif dtype is None:
            dtype = arg
        else:
            raise TypeError(f"to() takes one dtype, got {dtype!r} and {arg!r}")
    return None if dtype is None else _as_dtype(dtype)


def device(name: str = "cpu") -> str:
    """torch.device's stand-in: "cpu" is the only device; others raise a RuntimeError."""
    check_device(name)
    return "cpu"


class _NoCuda:
    """torch.cuda's stand-in for `device = "cuda" if torch.cuda.is_available() else "cpu"`."""

    @staticmethod
    def is_available() -> bool:
        return False

    @staticmethod
    def device_count() -> int:
        return 0


cuda = _NoCuda()


def get_default_dtype() -> np.dtype:
    """The dtype Python floats and new parameters get."""
    return _default_dtype


def manual_seed(seed: int) -> np.random.Generator:
    """Reseed the generator behind randn/rand and nn.Linear's initial weights."""
    global _generator
    _generator = np.random.default_rng(seed)
    return _generator


def default_generator() -> np.random.Generator:
    """The generator that randn/rand and nn.Linear draw from (see manual_seed)."""
    return _generator


def set_num_threads(n: int) -> None:
    """Threads numpy's BLAS may use for matrix products, as torch.set_num_threads.

    On a busy or small machine one thread is often much faster for the small matrices
    of a learning-size network: BLAS worker threads spin waiting for cores they don't get.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"set_num_threads needs a positive int, got {n!r}")
    _threadpool_controller().limit(limits=n, user_api="blas")


def get_num_threads() -> int:
    """Threads numpy's BLAS uses for matrix products (the largest over loaded BLAS libraries)."""
    info = _threadpool_controller().info()
    return max((lib["num_threads"] for lib in info if lib["user_api"] == "blas"), default=1)


def _threadpool_controller():
    try:
        import threadpoolctl
    except ImportError as error:
        raise ImportError(
            "set_num_threads needs threadpoolctl: pip install threadpoolctl"
        ) from error
    return threadpoolctl.ThreadpoolController()


def _keep_freed_memory() -> bool:
    """Ask glibc's malloc to reuse freed memory for big arrays instead of returning it to
    the kernel at once; True if the setting was made.

    Why: a training step allocates and frees the same large temporaries every step (a
    1,797x128 float32 activation is 0.9 MB). With glibc's defaults, blocks that big are
    mmap'ed or trimmed from the heap on free, so the next step touches fresh pages: on the
    digits benchmark ~300-650 page faults per step, ~1 ms of a 1.4 ms step in a VM (PyTorch,
    for comparison: ~10). Keeping up to 64 MiB of freed memory makes them reusable.
    Skipped off glibc, when the user tuned malloc already (MALLOC_*_ or GLIBC_TUNABLES),
    or when MICROGRAD_SYSTEM_MALLOC=1.
    """
    if not sys.platform.startswith("linux") or os.environ.get("MICROGRAD_SYSTEM_MALLOC") == "1":
        return False
    if "GLIBC_TUNABLES" in os.environ or any(
            k.startswith("MALLOC_") and k.endswith("_") for k in os.environ):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
        libc.gnu_get_libc_version  # noqa: B018  (only glibc has it: mallopt's codes are glibc's)
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_threshold = -1, -3
    mib = 1 << 20
    # mmap only blocks over 32 MiB (glibc's maximum), keep up to 64 MiB free at the heap top
    return bool(mallopt(m_mmap_threshold, 32 * mib)) and bool(mallopt(m_trim_threshold, 64 * mib))


_keep_freed_memory()


def _is_finite(grad: Any) -> bool:
    return grad is None or bool(np.isfinite(grad).all())


def _quiet(function: Callable) -> Callable:
    """`function` under np.errstate(all="ignore"): inf and nan come back as IEEE defines them
    (1/0 = inf, log 0 = -inf, sqrt -1 = nan), silently, as in PyTorch and the scalar engine.
    numpy would also print a RuntimeWarning pointing into this file; anomaly mode
    (micrograd.detect_anomaly) is the way to stop at the first inf or nan. Used only in the
    forward ops where such values can come up, since the context manager costs ~1 us a call;
    Tensor.backward() silences the whole backward pass once."""

    def call(*args: Any) -> Any:
        with np.errstate(all="ignore"):
            return function(*args)

    return call


_exp, _log, _sqrt = map(_quiet, (np.exp, np.log, np.sqrt))  # / and ** below do the same


def _true_divide(x: Any, y: Any) -> np.ndarray:
    """x / y. Integers divide to a float of the default dtype, as in PyTorch (numpy: float64)."""
    with np.errstate(all="ignore"):  # as _quiet, without a second call frame
        out = np.true_divide(x, y)
    if (_default_dtype is float32 and out.dtype == float64
            and not any(isinstance(v, float) or getattr(v, "dtype", int64).kind == "f"
                        for v in (x, y))):
        out = out.astype(float32)
    return out


def _raise_to_power(x: Any, y: Any) -> np.ndarray:
    """x ** y; bool ** bool tensor is refused as in PyTorch (numpy would give int8), and a
    bool tensor ** a Python bool stays bool."""
    with np.errstate(all="ignore"):
        out = np.power(x, y)
    if out.dtype == np.int8 and getattr(x, "dtype", None) != np.int8 \
            and getattr(y, "dtype", None) != np.int8:  # only bools make int8 from non-int8
        if isinstance(y, np.ndarray):
            raise TypeError("** with a bool tensor as the exponent is not supported, as in "
                            "PyTorch; convert it first, e.g. t.long()")
        out = out.astype(bool)
    return out


# Local derivatives of the arithmetic ops: g is the output's gradient, x and y the inputs.
def _mul_da(g, x, y, out):  # d(xy)/dx = y
    return g * y


def _mul_db(g, x, y, out):  # d(xy)/dy = x
    return g * x


def _div_da(g, x, y, out):  # d(x/y)/dx = 1/y
    return g / y


def _div_db(g, x, y, out):  # d(x/y)/dy = -x/y^2
    return -g * x / (y * y)


def _pow_da(g, x, y, out):  # d(x^y)/dx = y x^(y-1), 0 where y == 0 (as PyTorch)
    return g * np.where(y == 0, 0, y * np.power(x, y - 1))


def _pow_db(g, x, y, out):  # d(x^y)/dy = x^y ln x, 0 where x == 0 and y >= 0 (as PyTorch)
    return g * np.where((x == 0) & (np.asarray(y) >= 0), 0, out * np.log(x))


def _operator_pair(op: str, forward: Callable, da: Callable | None,
                   db: Callable | None) -> tuple[Callable, Callable]:
    """Tensor's method for an arithmetic operator and its reflected twin (`t * 2` and
    `2 * t`): both make the same `_binary` node, with the operands in written order."""

    def method(self: "Tensor", other: ArrayLike) -> "Tensor":
        if type(other) is not Tensor:
            other = _operand(other, op)
            if other is NotImplemented:
                return NotImplemented
        return _binary(self, other, op, forward, da, db)

    def reflected(self: "Tensor", other: ArrayLike) -> "Tensor":
        a = _operand(other, op)
        if a is NotImplemented:
            return NotImplemented
        return _binary(a, self, op, forward, da, db)

    return method, reflected


class Tensor:
    """An n-dimensional array that records the ops applied to it, for backward()."""

    __slots__ = ("data", "grad", "_requires_grad", "_prev", "_grad_fn", "_op", "_label",
                 "__weakref__")
    __array_ufunc__ = None  # ndarray + Tensor: numpy steps aside, Tensor.__radd__ runs
    _is_finite = staticmethod(_is_finite)

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
        if dtype is None and python_data and array.dtype == float64 != _default_dtype:
            array = array.astype(_default_dtype)
        self.data = array
        self.grad = None
        self._prev = ()
        self._grad_fn = None
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

    # --- the graph-node side: how ops make nodes and send gradients -------------------

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

    def requires_grad_(self, flag: bool = True) -> "Tensor":
        """Set requires_grad in place and return self, as torch's requires_grad_()."""
        self.requires_grad = flag
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not made by a recorded op (parameters, inputs)."""
        return self._grad_fn is None

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

    def detach(self) -> "Tensor":
        """The same data (shared) as a new leaf that records no graph."""
        return _leaf(self.data)

    def clone(self) -> "Tensor":
        """A copy of the data; gradients flow back to this tensor."""
        return _unary(self, self.data.copy(), "clone", None)

    def to(self, *args: Any, dtype: Any = None, device: Any = None, non_blocking: bool = False,
           copy: bool = False) -> "Tensor":
        """This tensor converted to a dtype (gradients are converted back), as torch's
        to(dtype), to(device), to(device, dtype) or to(other_tensor). The only device is
        "cpu", which changes nothing; "cuda" and the like raise a RuntimeError.
        non_blocking is accepted and changes nothing (there is no device to copy to);
        copy=True returns a new tensor even when nothing needs converting."""
        args = tuple(a.data.dtype if isinstance(a, Tensor) else a for a in args)
        dtype = to_arguments(args, dtype, device)
        if dtype is None or dtype == self.data.dtype:
            return _unary(self, self.data.copy(), "to", None) if copy else self
        if dtype.kind != "f":
            return _leaf(self.data.astype(dtype))  # integer results are not differentiable
        return _unary(self, self.data.astype(dtype), "to", None)

    def cpu(self) -> "Tensor":
        """This tensor: it lives on the CPU already."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Always a RuntimeError: micrograd computes with numpy, on the CPU only."""
        check_device("cuda")

    @property
    def device(self) -> str:
        """Where the data lives: always "cpu" (numpy arrays)."""
        return "cpu"

    def float(self) -> "Tensor":
        return self.to(float32)

    def double(self) -> "Tensor":
        return self.to(float64)

    def long(self) -> "Tensor":
        return self.to(int64)

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
        if self.data.dtype != _default_dtype and self.data.dtype != int64:
            extras += f", dtype={self.data.dtype}"
        if self._grad_fn is not None:
            extras += f", grad_fn=<{self._op}>"
        elif self._requires_grad:
            extras += ", requires_grad=True"
        return f"tensor({body}{extras})"

    __hash__ = object.__hash__  # identity, like torch: == is elementwise below

    # --- elementwise arithmetic: forward and local derivative side by side ------------

    # Each operator and its reflected twin (2 * t runs t.__rmul__(2)) come from one line.
    __add__, __radd__ = _operator_pair("+", np.add, None, None)  # d/da = d/db = 1
    __sub__, __rsub__ = _operator_pair("-", np.subtract, None, lambda g, x, y, out: -g)
    __mul__, __rmul__ = _operator_pair("*", np.multiply, _mul_da, _mul_db)
    __truediv__, __rtruediv__ = _operator_pair("/", _true_divide, _div_da, _div_db)
    __pow__, __rpow__ = _operator_pair("**", _raise_to_power, _pow_da, _pow_db)

    def __matmul__(self, other: ArrayLike) -> "Tensor":
        b = other if type(other) is Tensor else _operand(other)
        if b is NotImplemented:
            return NotImplemented
        return matmul(self, b)

    def __rmatmul__(self, other: ArrayLike) -> "Tensor":
        a = _operand(other)
        if a is NotImplemented:
            return NotImplemented
        return matmul(a, self)

    def __neg__(self) -> "Tensor":
        return _unary(self, -self.data, "neg", lambda g: -g)

    def __pos__(self) -> "Tensor":
        return self

    # In-place updates are for parameter updates under no_grad(), as in PyTorch scripts
    # (`p -= lr * p.grad`). Without them Python would rebind p to a new tensor and the
    # parameter would silently never change.
    def __iadd__(self, other: ArrayLike) -> "Tensor":
        self._check_in_place("+=")
        self.data += _raw(other)
        return self

    def __isub__(self, other: ArrayLike) -> "Tensor":
        self._check_in_place("-=")
        self.data -= _raw(other)
        return self

    def __imul__(self, other: ArrayLike) -> "Tensor":
        self._check_in_place("*=")
        self.data *= _raw(other)
        return self

    def __itruediv__(self, other: ArrayLike) -> "Tensor":
        self._check_in_place("/=")
        self.data /= _raw(other)
        return self

    def zero_(self) -> "Tensor":
        """Fill with zeros in place (under no_grad() if this tensor requires grad)."""
        self._check_in_place("zero_()")
        self.data[...] = 0
        return self

    def _check_in_place(self, op: str) -> None:
        if self._requires_grad and modes.grad_enabled:
            raise RuntimeError(
                f"in-place {op} on a tensor that requires grad would corrupt its graph; "
                "update parameters inside `with no_grad():` (or use p.data)"
            )

    # --- comparisons: plain boolean tensors, no gradient --------------------------------

    def __eq__(self, other: Any) -> "Tensor":  # type: ignore[override]
        return _leaf(self.data == _raw(other))

    def __ne__(self, other: Any) -> "Tensor":  # type: ignore[override]
        return _leaf(self.data != _raw(other))

    def __lt__(self, other: Any) -> "Tensor":
        return _leaf(self.data < _raw(other))

    def __le__(self, other: Any) -> "Tensor":
        return _leaf(self.data <= _raw(other))

    def __gt__(self, other: Any) -> "Tensor":
        return _leaf(self.data > _raw(other))

    def __ge__(self, other: Any) -> "Tensor":
        return _leaf(self.data >= _raw(other))

    def __invert__(self) -> "Tensor":
        """~t: logical not of a bool tensor, bitwise not of an integer one (no gradient)."""
        if self.data.dtype.kind not in "biu":
            raise TypeError(f"~ needs a bool or integer tensor, got {self.data.dtype}")
        return _leaf(~self.data)

    def logical_not(self) -> "Tensor":
        """True where the element is zero (or False), as a bool tensor."""
        return _leaf(np.logical_not(self.data))

    def argmax(self, dim: int | None = None, keepdim: bool = False) -> "Tensor":
        return _leaf(np.asarray(self.data.argmax(axis=dim, keepdims=keepdim)))

    def argmin(self, dim: int | None = None, keepdim: bool = False) -> "Tensor":
        return _leaf(np.asarray(self.data.argmin(axis=dim, keepdims=keepdim)))

    # --- elementwise functions -----------------------------------------------------------

    def exp(self) -> "Tensor":
        """e^x;  d/dx = e^x."""
        e = _exp(self.data)
        return _unary(self, e, "exp", lambda g: g * e)

    def log(self) -> "Tensor":
        """ln x;  d/dx = 1/x."""
        x = self.data
        return _unary(self, _log(x), "log", lambda g: g / x)

    def tanh(self) -> "Tensor":
        """tanh x;  d/dx = 1 - tanh(x)^2."""
        t = np.tanh(self.data)
        return _unary(self, t, "tanh", lambda g: g * (1 - t * t))

    def relu(self) -> "Tensor":
        """max(0, x);  d/dx = 1 where x > 0, else 0 (also at 0, as PyTorch)."""
        positive = self.data > 0
        out = self.data * positive  # backward needs the mask anyway; as fast as np.maximum
        out += 0  # turns the -0.0 of negative inputs into 0.0
        return _unary(self, out, "relu", lambda g: g * positive)

    def sigmoid(self) -> "Tensor":
        """1 / (1 + e^-x);  d/dx = s(1 - s)."""
        s = _sigmoid(self.data)
        return _unary(self, s, "sigmoid", lambda g: g * (s * (1 - s)))

    def sqrt(self) -> "Tensor":
        """sqrt x;  d/dx = 1 / (2 sqrt x)."""
        r = _sqrt(self.data)
        return _unary(self, r, "sqrt", lambda g: g / (2 * r))

    def abs(self) -> "Tensor":
        """|x|;  d/dx = sign(x) (0 at 0, as PyTorch)."""
        x = self.data
        return _unary(self, np.abs(x), "abs", lambda g: g * np.sign(x))

    def __abs__(self) -> "Tensor":
        return self.abs()

    def sin(self) -> "Tensor":
        """sin x;  d/dx = cos x."""
        x = self.data
        return _unary(self, np.sin(x), "sin", lambda g: g * np.cos(x))

    def cos(self) -> "Tensor":
        """cos x;  d/dx = -sin x."""
        x = self.data
        return _unary(self, np.cos(x), "cos", lambda g: -g * np.sin(x))

    def clamp(self, min: float | None = None, max: float | None = None) -> "Tensor":
        """x limited to [min, max];  d/dx = 1 inside (bounds included, as PyTorch), else 0."""
        if min is None and max is None:
            raise ValueError("clamp needs min or max (or both)")
        x = self.data
        inside = np.ones(x.shape, dtype=bool)
        if min is not None:
            inside &= x >= min
        if max is not None:
            inside &= x <= max
        return _unary(self, np.clip(x, min, max), "clamp", lambda g: g * inside)

    # --- reductions ----------------------------------------------------------------------

    def sum(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> "Tensor":
        """Sum over `dim` (all by default);  every input element gets the output's grad."""
        x = self.data
        axes = _axes(dim, x.ndim)
        out = np.asarray(x.sum(axis=axes, keepdims=keepdim))
        return _unary(self, out, "sum", lambda g: _spread(_keep(g, axes, keepdim), x.shape))

    def mean(self, dim: int | Sequence[int] | None = None, keepdim: bool = False) -> "Tensor":
        """Mean over `dim` (all by default);  each input element gets grad / count."""
        x = self.data
        if x.dtype.kind != "f":
            raise TypeError(f"mean() needs a floating-point tensor, got {x.dtype}")
        axes = _axes(dim, x.ndim)
        count = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        with np.errstate(invalid="ignore", divide="ignore"):  # the mean of nothing is nan
            out = np.asarray(np.true_divide(x.sum(axis=axes, keepdims=keepdim), count))
        return _unary(self, out, "mean",
                      lambda g: _spread(_keep(g, axes, keepdim) / count, x.shape))

    def max(self, dim: int | None = None, keepdim: bool = False) -> "Tensor | MaxMin":
        """The largest element; with `dim`, (values, indices) along it, as torch.max."""
        return _extreme(self, dim, keepdim, "max")

    def min(self, dim: int | None = None, keepdim: bool = False) -> "Tensor | MaxMin":
        """The smallest element; with `dim`, (values, indices) along it, as torch.min."""
        return _extreme(self, dim, keepdim, "min")

    def softmax(self, dim: int = -1) -> "Tensor":
        """e^x_i / sum_j e^x_j along `dim`;  dx = s * (g - sum(g * s))."""
        s = _softmax(self.data, dim)
        return _unary(self, s, "softmax",
                      lambda g: s * (g - (g * s).sum(axis=dim, keepdims=True)))

    def log_softmax(self, dim: int = -1) -> "Tensor":
        """x_i - log sum_j e^x_j along `dim`;  dx = g - softmax(x) * sum(g)."""
        logp = _log_softmax(self.data, dim)
        return _unary(self, logp, "log_softmax",
                      lambda g: g - np.exp(logp) * g.sum(axis=dim, keepdims=True))

    # --- shape ops: the gradient is reshaped / moved back the same way ------------------

    def reshape(self, *shape: int | Sequence[int]) -> "Tensor":
        x = self.data
        return _unary(self, x.reshape(_shape_arg(shape)), "reshape",
                      lambda g: g.reshape(x.shape))

    view = reshape

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        shape = self.data.shape
        if not shape:
            return self.reshape(1)
        start, end = start_dim % len(shape), end_dim % len(shape)
        merged = int(np.prod(shape[start:end + 1]))
        return self.reshape(shape[:start] + (merged,) + shape[end + 1:])

    def unsqueeze(self, dim: int) -> "Tensor":
        return self.reshape(np.expand_dims(self.data, dim).shape)

    def squeeze(self, dim: int | None = None) -> "Tensor":
        x = self.data
        if dim is not None and x.shape[dim] != 1:
            return self
        return self.reshape(np.squeeze(x, axis=dim).shape)

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        """Swap two dimensions (torch.transpose, not numpy's)."""
        x = self.data
        return _unary(self, np.swapaxes(x, dim0, dim1), "transpose",
                      lambda g: np.swapaxes(g, dim0, dim1))

    def permute(self, *dims: int | Sequence[int]) -> "Tensor":
        order = _shape_arg(dims)
        inverse = tuple(np.argsort(order))
        return _unary(self, np.transpose(self.data, order), "permute",
                      lambda g: np.transpose(g, inverse))

    @property
    def T(self) -> "Tensor":
        """All dimensions reversed (a matrix transposed)."""
        return _unary(self, self.data.T, "T", lambda g: g.T)

    def __getitem__(self, index: Any) -> "Tensor":
        """x[index] with ints, slices, None, ... and integer/bool arrays; the gradient is
        scattered back, and repeated indices accumulate (np.add.at)."""
        index = _index_arg(index)
        x = self.data
        out = x[index]  # numpy raises IndexError out of range, as torch does
        if type(out) is not np.ndarray:
            out = np.asarray(out)

        def scatter(g):
            full = np.zeros(x.shape, dtype=g.dtype)
            if _is_advanced(index):
                np.add.at(full, index, g)  # x[[0, 0]]: both copies send their gradient
            else:
                full[index] = g
            return full

        return _unary(self, out, "index", scatter)

    def __setitem__(self, index: Any, value: Any) -> None:
        """x[index] = value, for data outside the graph (or parameters under no_grad())."""
        self._check_in_place("item assignment")
        self.data[_index_arg(index)] = _raw(value)

    def __iter__(self):
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self.data)))


# ---------------------------------------------------------------------------------------
# Making nodes and sending gradients: the only glue between ops and the shared walker.
# ---------------------------------------------------------------------------------------

_new = object.__new__


def _leaf(data: np.ndarray) -> Tensor:
    """A tensor around `data` (not copied) that records no graph."""
    t = _new(Tensor)
    t.data = data if type(data) is np.ndarray else np.asarray(data)
    t.grad = None
    t._requires_grad = False
    t._prev = ()
    t._grad_fn = None
    t._op = ""
    return t


def _node(data: np.ndarray, inputs: tuple, op: str, grad_fn: Callable | None,
          record: bool | None = None) -> Tensor:
    """The output of an op. It records `inputs` and `grad_fn` when gradients are on and
    `record` is true (None: when any input requires grad)."""
    t = _new(Tensor)
    t.data = data if type(data) is np.ndarray else np.asarray(data)
    t.grad = None
    t._op = op
    if record is None:
        record = any(x._requires_grad for x in inputs)
    if record and modes.grad_enabled:
        t._requires_grad = True
        t._prev = inputs
        t._grad_fn = grad_fn
    else:
        t._requires_grad = False
        t._prev = ()
        t._grad_fn = None
    if modes.anomaly:
        autograd.check_forward(op, t.data, inputs, _is_finite)
    return t


def _send(t: Tensor, g: Any, shared: bool = False) -> None:
    """t.grad += g, with g summed back to t's shape and converted to t's dtype.

    `shared` says g is also someone else's gradient array: a leaf then gets its own copy,
    so a user who edits p.grad in place does not change another tensor's gradient.
    """
    data = t.data
    if g.shape != data.shape:
        g = _unbroadcast(g, data.shape)
        shared = False
    if g.dtype is not data.dtype and g.dtype != data.dtype:  # `is`: the cheap common case
        g = g.astype(data.dtype)
        shared = False
    old = t.grad
    if old is None:
        if type(g) is not np.ndarray:
            g = np.array(g)
        elif t._grad_fn is None and (shared or g.base is not None):
            g = g.copy()  # a leaf's .grad is its own array, not a view of another one
        t.grad = g
    else:
        total = old + g
        t.grad = total if type(total) is np.ndarray else np.asarray(total)


def _unbroadcast(g: np.ndarray, shape: tuple) -> np.ndarray:
    """Sum g over the axes that broadcasting added or stretched, giving `shape`.

    An input broadcast along an axis was used once per position on it, so by the `+=`
    rule its gradient is the sum of the gradients of all those uses.
    """
    extra = g.ndim - len(shape)
    if extra:
        g = g.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if stretched:
        g = g.sum(axis=stretched, keepdims=True)
    return g if type(g) is np.ndarray else np.asarray(g)


def _unary(x: Tensor, data: np.ndarray, op: str, derivative: Callable | None) -> Tensor:
    """A one-input op: `derivative(g)` is d(out)/dx applied to out's gradient g
    (None: the gradient passes through unchanged)."""
    if not x._requires_grad:
        return _node(data, (x,), op, None, False)

    def grad_fn(node):
        g = node.grad
        if g is not None:
            if derivative is None:
                _send(x, g, shared=True)
            else:
                _send(x, derivative(g))

    return _node(data, (x,), op, grad_fn, True)


def _binary(a: Any, b: Any, op: str, forward: Callable, da: Callable | None,
            db: Callable | None) -> Tensor:
    """A two-input op; a or b may be a plain Python number (no gradient for it).

    da(g, a, b, out) and db(...) give the gradient for each input before unbroadcasting;
    None means "g itself" (the derivative is 1).
    """
    if type(a) is Tensor:
        x, a_needs = a.data, a._requires_grad
        if type(b) is Tensor:
            y, b_needs, inputs = b.data, b._requires_grad, (a, b)
            if x.dtype is not y.dtype and x.dtype != y.dtype:  # `is`: the cheap common case
                x, y = _promote(x, y, op)
        else:
            y, b_needs, inputs = b, False, (a,)
            # a float tensor op a number: numpy's result dtype is PyTorch's already
            if x.dtype is not float64 and x.dtype is not float32 and x.dtype.kind != "f":
                x = _promote_with_number(x, b, op)
    else:
        x, a_needs = a, False
        y, b_needs, inputs = b.data, b._requires_grad, (b,)
        if y.dtype is not float64 and y.dtype is not float32 and y.dtype.kind != "f":
            y = _promote_with_number(y, a, op)
    try:
        out = forward(x, y)
    except ValueError as error:
        try:
            np.broadcast_shapes(_shape_of(x), _shape_of(y))
        except ValueError:
            raise ValueError(
                f"{op}: shapes {_shape_of(x)} and {_shape_of(y)} cannot be broadcast "
                "together (each trailing dimension must be equal or 1)"
            ) from error
        raise
    if not (a_needs or b_needs):
        return _node(out, inputs, op, None, False)

    def grad_fn(node):
        g = node.grad
        if g is None:
            return
        if a_needs:
            _send(a, g, True) if da is None else _send(a, da(g, x, y, out))
        if b_needs:
            _send(b, g, True) if db is None else _send(b, db(g, x, y, out))

    return _node(out, inputs, op, grad_fn, True)


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}  # bool < integer < floating, as PyTorch


def _result_dtype(x: np.ndarray, y: np.ndarray) -> np.dtype:
    """PyTorch's type promotion for two tensors: the higher category (bool < integer <
    floating) wins; within one category a dimensioned tensor's dtype wins over a 0-d one's,
    and two of the same kind promote as usual (float32 + float64 = float64).

    numpy differs on two counts that matter for learners: it makes float32 + int64 float64,
    and lets a 0-d float64 (a loss weight, a learning rate tensor) turn a float32 batch
    into float64 -- "float32 stays float32" would break silently."""
    x_category, y_category = _CATEGORY[x.dtype.kind], _CATEGORY[y.dtype.kind]
    if x_category != y_category:
        return x.dtype if x_category > y_category else y.dtype
    if (x.ndim == 0) != (y.ndim == 0):
        return y.dtype if x.ndim == 0 else x.dtype
    return np.promote_types(x.dtype, y.dtype)


def _promote(x: np.ndarray, y: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """x and y converted to their PyTorch result dtype (only called when the dtypes differ)."""
    if op == "-" and (x.dtype.kind == "b" or y.dtype.kind == "b"):
        _refuse_bool_subtraction()
    target = _result_dtype(x, y)
    return (x if x.dtype == target else x.astype(target),
            y if y.dtype == target else y.astype(target))


def _promote_with_number(array: np.ndarray, number: Any, op: str) -> np.ndarray:
    """The array side of `tensor op number` for a bool or integer tensor.

    numpy already treats Python numbers as weak, as PyTorch does (float32 * 2.0 stays
    float32, int64 + True stays int64). Left to fix: an integer or bool tensor with a Python
    float gives the *default* float dtype in PyTorch (numpy: float64), and `-` refuses bools
    (a bool number is refused earlier, in _operand).
    """
    if op == "-" and array.dtype.kind == "b":
        _refuse_bool_subtraction()
    if type(number) is float and array.dtype.kind != "f":
        return array.astype(_default_dtype)
    return array


def _refuse_bool_subtraction() -> NoReturn:
    raise TypeError("- with a bool operand is not supported, as in PyTorch; to flip a mask "
                    "use ~mask or mask.logical_not(), to count use mask.long()")


def _common_dtype(arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The arrays converted to one dtype by PyTorch's promotion (cat and stack: float32 and
    int64 make float32, where numpy would make float64)."""
    first = arrays[0].dtype
    for a in arrays:
        if a.dtype is not first and a.dtype != first:
            break
    else:
        return arrays  # one dtype already: the common case, no work
    target = first
    for array in arrays[1:]:
        if array.dtype != target:
            # both as 1-d: stacked tensors share one shape, so the 0-d rule never applies
            target = _result_dtype(np.empty(0, target), np.empty(0, array.dtype))
    return [a if a.dtype == target else a.astype(target) for a in arrays]


def _operand(other: Any, op: str = "") -> Any:
    """The other operand of an arithmetic op: a Tensor, a Python number (kept as is, so a
    float32 tensor times 2.0 stays float32), or an array made into a constant tensor."""
    kind = type(other)
    if kind is float or kind is int or kind is Tensor:  # the common cases first
        return other
    if kind is bool or isinstance(other, np.bool_):
        if op == "-":
            _refuse_bool_subtraction()
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


def _raw(other: Any) -> Any:
    """The plain data of an operand (for comparisons and in-place updates)."""
    return other.data if isinstance(other, Tensor) else other


def _shape_of(x: Any) -> tuple:
    return tuple(np.shape(x))


# ---------------------------------------------------------------------------------------
# Matrix product, joining tensors, max/min: ops with more bookkeeping.
# ---------------------------------------------------------------------------------------

def check_same_dtype(op: str, A: np.ndarray, B: np.ndarray) -> None:
    """Matrix products take one dtype, as in PyTorch (elementwise ops promote instead).

    numpy would silently compute float32 @ float64 in float64, twice the time and memory,
    and the float32 model the learner thinks they have would not be one."""
    if A.dtype != B.dtype:
        raise TypeError(
            f"{op}: the operands have different dtypes, {A.dtype} and {B.dtype}; a matrix "
            "product needs one dtype, as in PyTorch: convert one side, e.g. x.float() or "
            "x.double() for a tensor, model.float() or model.double() for a model"
        )


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """a @ b with numpy's rules (1-D vectors, batches broadcast);
    d/da = g @ b^T, d/db = a^T @ g."""
    if type(a) is not Tensor:
        a = Tensor(a)
    if type(b) is not Tensor:
        b = Tensor(b)
    A, B = a.data, b.data
    check_same_dtype("@", A, B)
    try:
        out = np.matmul(A, B)
    except ValueError as error:
        inner = (
            f"{A.shape[-1]} != {B.shape[-2] if B.ndim > 1 else B.shape[0]}"
            if A.ndim and B.ndim else "0-d operands cannot be multiplied; use *"
        )
        raise ValueError(
            f"@: shapes {A.shape} and {B.shape} cannot be multiplied ({inner})"
        ) from error
    if type(out) is not np.ndarray:
        out = np.asarray(out)

    def grad_fn(node):
        g = node.grad
        if g is None:
            return
        A2, B2 = A, B
        if A.ndim == 1 and B.ndim == 1:  # a dot product: a (1, k) @ (k, 1) matrix product
            A2, B2, g = A[None, :], B[:, None], g.reshape(1, 1)
        elif A.ndim == 1:  # a vector acts as a 1-row matrix whose row dimension is dropped
            A2, g = A[None, :], np.expand_dims(g, -2)
        elif B.ndim == 1:  # and as a 1-column matrix on the right
            B2, g = B[:, None], np.expand_dims(g, -1)
        if a._requires_grad:
            da = np.matmul(g, np.swapaxes(B2, -1, -2))
            _send(a, _unbroadcast(da, A2.shape).reshape(A.shape))
        if b._requires_grad:
            db = np.matmul(np.swapaxes(A2, -1, -2), g)
            _send(b, _unbroadcast(db, B2.shape).reshape(B.shape))

    return _node(out, (a, b), "@", grad_fn, a._requires_grad or b._requires_grad)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dimension; each gets its slice of the gradient."""
    tensors = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)
    if not tensors:
        raise ValueError("cat() needs at least one tensor")
    arrays = _common_dtype([t.data for t in tensors])
    try:
        out = np.concatenate(arrays, axis=dim)
    except (ValueError, np.exceptions.AxisError) as error:
        raise ValueError(
            f"cat: cannot join shapes {', '.join(str(a.shape) for a in arrays)} along "
            f"dim {dim}: all other dimensions must match ({error})"
        ) from error
    axis = dim % out.ndim
    bounds = np.cumsum([0] + [a.shape[axis] for a in arrays])

    def grad_fn(node):
        g = node.grad
        if g is None:
            return
        for t, start, stop in zip(tensors, bounds[:-1], bounds[1:]):
            if t._requires_grad:
                _send(t, g[(slice(None),) * axis + (slice(start, stop),)])

    return _node(out, tensors, "cat", grad_fn)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join same-shaped tensors along a new dimension; each gets its slice of the gradient."""
    tensors = tuple(t if isinstance(t, Tensor) else Tensor(t) for t in tensors)
    if not tensors:
        raise ValueError("stack() needs at least one tensor")
    arrays = _common_dtype([t.data for t in tensors])
    try:
        out = np.stack(arrays, axis=dim)
    except ValueError as error:
        raise ValueError(
            f"stack: shapes {', '.join(str(a.shape) for a in arrays)} must all be equal"
        ) from error
    axis = dim % out.ndim

    def grad_fn(node):
        g = node.grad
        if g is None:
            return
        for i, t in enumerate(tensors):
            if t._requires_grad:
                _send(t, np.take(g, i, axis=axis))

    return _node(out, tensors, "stack", grad_fn)


def _extreme(x: Tensor, dim: int | None, keepdim: bool, kind: str) -> Tensor | MaxMin:
    """max/min. Over everything, tied elements share the gradient evenly (as PyTorch);
    along `dim`, the gradient goes to the element whose index is returned."""
    data = x.data
    if data.size == 0:
        raise ValueError(f"{kind}() of an empty tensor of shape {data.shape} is undefined")
    if dim is None:
        value = np.asarray(data.max() if kind == "max" else data.min())

        def share(g):
            ties = data == value
            return g * ties / int(ties.sum())

        return _unary(x, value, kind, share)
    pick = data.argmax if kind == "max" else data.argmin
    index = np.expand_dims(pick(axis=dim), dim)
    values = np.take_along_axis(data, index, axis=dim)

    def route(g):
        full = np.zeros(data.shape, dtype=g.dtype)
        np.put_along_axis(full, index, g if keepdim else np.expand_dims(g, dim), axis=dim)
        return full

    if not keepdim:  # new names: route() must keep the unsqueezed index
        values, indices = np.squeeze(values, dim), np.squeeze(index, dim)
    else:
        indices = index
    return MaxMin(_unary(x, values, kind, route), _leaf(indices))


# ---------------------------------------------------------------------------------------
# Small numeric helpers.
# ---------------------------------------------------------------------------------------

def _sigmoid(x: np.ndarray) -> np.ndarray:
    # exp(-|x|) never overflows: 1/(1+e) for x >= 0, e/(1+e) below, as torch.sigmoid.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _softmax(x: np.ndarray, dim: int) -> np.ndarray:
    e = np.exp(x - x.max(axis=dim, keepdims=True, initial=-np.inf))  # shifted: no overflow
    return e / e.sum(axis=dim, keepdims=True)


def _log_softmax(x: np.ndarray, dim: int) -> np.ndarray:
    z = x - x.max(axis=dim, keepdims=True, initial=-np.inf)
    return z - _log(np.exp(z).sum(axis=dim, keepdims=True))  # an empty row sums to 0


def _axes(dim: int | Sequence[int] | None, ndim: int) -> tuple | None:
    """dim (int, sequence or None) as a tuple of non-negative axes (None: all)."""
    if dim is None:
        return None
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if not dims:  # torch reads dim=() and dim=[] as "every dimension", numpy as "none"
        return None
    if ndim == 0:
        if any(d not in (0, -1) for d in dims):
            raise IndexError(f"dim {dim} is out of range for a 0-d tensor")
        return None
    for d in dims:
        if not -ndim <= d < ndim:
            raise IndexError(f"dim {d} is out of range for a tensor with {ndim} dimensions")
    return tuple(d % ndim for d in dims)


def _spread(g: np.ndarray, shape: tuple) -> np.ndarray:
    """g broadcast to `shape`, as a new array (np.broadcast_to costs several µs more)."""
    out = np.empty(shape, dtype=g.dtype)
    out[...] = g
    return out


def _keep(g: np.ndarray, axes: tuple | None, keepdim: bool) -> np.ndarray:
    """A reduced gradient with the reduced axes put back as size 1, ready to broadcast."""
    if keepdim or axes is None:
        return g
    return np.expand_dims(g, axes)


def _shape_arg(shape: tuple) -> tuple:
    """Accept both f(2, 3) and f((2, 3)), as PyTorch does."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


def _index_arg(index: Any) -> Any:
    """An index with tensors replaced by their arrays and lists by int arrays."""
    if isinstance(index, Tensor):
        return index.data
    if isinstance(index, list):
        return np.asarray(index)
    if isinstance(index, tuple):
        return tuple(_index_arg(i) for i in index)
    return index


def _is_advanced(index: Any) -> bool:
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, np.ndarray) for p in parts)


# ---------------------------------------------------------------------------------------
# Creating tensors, PyTorch names.
# ---------------------------------------------------------------------------------------

def tensor(data: ArrayLike, requires_grad: bool = False, dtype: Any = None,
           device: Any = None) -> Tensor:
    """A new tensor holding a copy of `data` (Python floats become the default dtype)."""
    _on_cpu(device)
    return Tensor(data, requires_grad=requires_grad, dtype=dtype)


def zeros(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> Tensor:
    _on_cpu(device)
    return Tensor(np.zeros(_shape_arg(shape), dtype=dtype or _default_dtype), requires_grad)


def ones(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> Tensor:
    _on_cpu(device)
    return Tensor(np.ones(_shape_arg(shape), dtype=dtype or _default_dtype), requires_grad)


def zeros_like(t: Tensor, requires_grad: bool = False, dtype: Any = None,
               device: Any = None) -> Tensor:
    _on_cpu(device)
    return Tensor(np.zeros_like(t.data, dtype=dtype), requires_grad)


def ones_like(t: Tensor, requires_grad: bool = False, dtype: Any = None,
              device: Any = None) -> Tensor:
    _on_cpu(device)
    return Tensor(np.ones_like(t.data, dtype=dtype), requires_grad)


def arange(start: float, end: float | None = None, step: float = 1, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> Tensor:
    """start, start + step, ... below end (arange(n): 0 .. n-1); integers give int64, any
    float gives the default dtype, as torch.arange."""
    _on_cpu(device)
    data = np.arange(start, end, step) if end is not None else np.arange(start)
    if dtype is None and data.dtype.kind == "f":
        dtype = _default_dtype
    return Tensor(data if dtype is None else data.astype(dtype), requires_grad)


def randn(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> Tensor:
    """Standard normal samples from the generator set by manual_seed."""
    _on_cpu(device)
    data = _generator.standard_normal(_shape_arg(shape)).astype(dtype or _default_dtype)
    return Tensor(data, requires_grad)


def rand(*shape: int | Sequence[int], dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> Tensor:
    """Uniform samples in [0, 1) from the generator set by manual_seed."""
    _on_cpu(device)
    data = _generator.random(_shape_arg(shape)).astype(dtype or _default_dtype)
    return Tensor(data, requires_grad)


def _on_cpu(device: Any) -> None:
    """The factories' device= argument: None or "cpu"; anything else raises (check_device)."""
    if device is not None:
        check_device(device)
