"""Dtypes and PyTorch's type promotion: what `a + b` gives when a and b differ in dtype.

numpy promotes differently on two counts that matter for learners (float32 + int64 is
float64 there; a 0-d float64 turns a float32 batch into float64), so every op that mixes
dtypes asks this module instead of numpy.
"""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
int64 = np.dtype(np.int64)


class _DefaultDtype:
    """Holder of the default dtype: ops read `default.dtype` (one attribute lookup)."""

    dtype: np.dtype = float32  # what Python floats and new parameters become, as in PyTorch


default = _DefaultDtype()


def set_default_dtype(dtype: Any) -> None:
    """The dtype Python floats and new parameters get: float32 (default, as PyTorch's) or
    float64 (for gradient checks, or numbers to compare with the scalar engine)."""
    dtype = np.dtype(dtype)
    if dtype not in (float32, float64):
        raise TypeError(f"default dtype must be float32 or float64, got {dtype}")
    default.dtype = dtype


def get_default_dtype() -> np.dtype:
    """The dtype Python floats and new parameters get."""
    return default.dtype


def as_dtype(dtype: Any) -> np.dtype:
    """dtype as a numpy dtype, with an error that says what is accepted."""
    try:
        return np.dtype(dtype)
    except TypeError as error:
        raise TypeError(
            f"expected a dtype (micrograd.float32, float64, int64, ...) or the device 'cpu', "
            f"got {dtype!r}"
        ) from error


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}  # bool < integer < floating, as PyTorch


def result_dtype(x: np.ndarray, y: np.ndarray) -> np.dtype:
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


def promote(x: np.ndarray, y: np.ndarray, op: str) -> tuple[np.ndarray, np.ndarray]:
    """x and y converted to their PyTorch result dtype (call it when the dtypes differ)."""
    if op == "-" and (x.dtype.kind == "b" or y.dtype.kind == "b"):
        refuse_bool_subtraction()
    target = result_dtype(x, y)
    return (x if x.dtype == target else x.astype(target),
            y if y.dtype == target else y.astype(target))


def promote_with_number(array: np.ndarray, number: Any, op: str) -> np.ndarray:
    """The array side of `tensor op number` for a bool or integer tensor.

    numpy already treats Python numbers as weak, as PyTorch does (float32 * 2.0 stays
    float32, int64 + True stays int64). Left to fix: an integer or bool tensor with a Python
    float gives the *default* float dtype in PyTorch (numpy: float64), and `-` refuses bools
    (a bool number is refused earlier, where the operand is read).
    """
    if op == "-" and array.dtype.kind == "b":
        refuse_bool_subtraction()
    if type(number) is float and array.dtype.kind != "f":
        return array.astype(default.dtype)
    return array


def refuse_bool_subtraction() -> NoReturn:
    raise TypeError("- with a bool operand is not supported, as in PyTorch; to flip a mask "
                    "use ~mask or mask.logical_not(), to count use mask.long()")


def common_dtype(arrays: list[np.ndarray]) -> list[np.ndarray]:
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
            target = result_dtype(np.empty(0, target), np.empty(0, array.dtype))
    return [a if a.dtype == target else a.astype(target) for a in arrays]


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


# --- dtype objects: what t.dtype is, printed and compared as torch's ---------------------

class DType:
    """A tensor's dtype as torch shows it (`torch.float32`), over the numpy dtype the engine
    computes with.

    It compares equal to itself and to that numpy dtype (`t.dtype == np.float32`,
    `t.dtype == torch.float32`), hashes as it, and numpy takes it wherever it takes a dtype
    (`np.zeros(3, dtype=t.dtype)`: numpy reads its `.dtype`). `kind`/`type`/`char` are
    numpy's, kept because code written against numpy dtypes asks for them."""

    __slots__ = ("_numpy", "_torch_name")

    def __init__(self, torch_name: str, numpy_dtype: np.dtype | None):
        self._torch_name = torch_name
        self._numpy = numpy_dtype  # None: bfloat16 without the ml_dtypes package

    @property
    def dtype(self) -> np.dtype:
        """The numpy dtype (numpy's protocol: np.dtype(obj) reads obj.dtype)."""
        if self._numpy is None:
            raise TypeError(f"torch.{self._torch_name} needs the ml_dtypes package, which is "
                            "not installed (pip install ml_dtypes); float32 works everywhere")
        return self._numpy

    def __repr__(self) -> str:
        return f"torch.{self._torch_name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DType):
            return self is other or (self._numpy is not None and self._numpy == other._numpy)
        if self._numpy is None or other is None:
            return False
        try:
            return bool(self._numpy == other)
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self._numpy if self._numpy is not None else self._torch_name)

    def __reduce__(self) -> tuple:
        return (torch_dtype, (self._torch_name,))

    @property
    def is_floating_point(self) -> bool:
        return self._torch_name in ("float16", "bfloat16", "float32", "float64")

    @property
    def is_complex(self) -> bool:
        return self._torch_name.startswith("complex")

    @property
    def is_signed(self) -> bool:
        return self._torch_name not in ("bool", "uint8", "uint16", "uint32", "uint64")

    @property
    def itemsize(self) -> int:
        return 2 if self._numpy is None else self._numpy.itemsize

    @property
    def kind(self) -> str:
        return self.dtype.kind

    @property
    def type(self) -> type:
        return self.dtype.type

    @property
    def char(self) -> str:
        return self.dtype.char


# torch's aliases (torch.float is torch.float32, torch.long is torch.int64, ...)
TORCH_ALIASES = {"half": "float16", "float": "float32", "double": "float64", "short": "int16",
                 "int": "int32", "long": "int64", "cfloat": "complex64",
                 "cdouble": "complex128"}
_TORCH_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "uint16", "uint32",
                "uint64", "float16", "float32", "float64", "complex64", "complex128")


def _bfloat16() -> np.dtype | None:
    try:
        import ml_dtypes  # optional: the one maintained numpy bfloat16
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


_BY_NAME = {name: DType(name, np.dtype(name)) for name in _TORCH_NAMES}
_BY_NAME["bfloat16"] = DType("bfloat16", _bfloat16())
_BY_NUMPY = {d._numpy: d for d in _BY_NAME.values() if d._numpy is not None}


def torch_dtype(name: str) -> DType:
    """The dtype object for a torch name or alias ("float32", "long", "bfloat16")."""
    return _BY_NAME[TORCH_ALIASES.get(name, name)]


def dtype_of(array_dtype: np.dtype) -> DType:
    """The dtype object for a numpy dtype (a tensor's `.dtype`)."""
    found = _BY_NUMPY.get(array_dtype)
    if found is None:  # a numpy dtype torch has no name for (e.g. float128): keep numpy's
        found = _BY_NUMPY[array_dtype] = DType(array_dtype.name, array_dtype)
    return found


# torch's legacy tensor type names: t.type() -> "torch.FloatTensor"
_LEGACY_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
                 "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
                 "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
                 "bool": "BoolTensor"}
_FROM_LEGACY = {f"torch.{legacy}": name for name, legacy in _LEGACY_NAMES.items()}


def legacy_type_name(array_dtype: np.dtype) -> str:
    """torch's name for a tensor type of this dtype ("torch.FloatTensor")."""
    name = dtype_of(array_dtype)._torch_name
    if name not in _LEGACY_NAMES:
        raise TypeError(f"torch has no legacy tensor type name for dtype {name}")
    return f"torch.{_LEGACY_NAMES[name]}"


def legacy_type_names() -> dict[str, str]:
    """{"float32": "torch.FloatTensor", ...}: each dtype's legacy tensor type, where numpy
    has the dtype (bfloat16 needs ml_dtypes)."""
    return {name: f"torch.{legacy}" for name, legacy in _LEGACY_NAMES.items()
            if _BY_NAME[name]._numpy is not None}


def from_legacy_type_name(dtype: Any) -> Any:
    """A dtype given to t.type(): a dtype as is, or a legacy type such as torch.DoubleTensor
    or its name, "torch.DoubleTensor"."""
    if isinstance(dtype, type) and f"torch.{dtype.__name__}" in _FROM_LEGACY:
        dtype = f"torch.{dtype.__name__}"  # the class itself (micrograd.torch.legacy)
    if isinstance(dtype, str) and dtype in _FROM_LEGACY:
        return torch_dtype(_FROM_LEGACY[dtype])
    if isinstance(dtype, str) and dtype.startswith("torch."):
        raise ValueError(f"invalid type: {dtype!r}; expected a dtype or a name such as "
                         "'torch.FloatTensor'")
    return dtype
