"""torch's legacy tensor types and Variable, which old tutorials still use.

`torch.FloatTensor([[1, 2]])` makes a float32 tensor (`LongTensor` int64, ...), from data
or from sizes (`FloatTensor(2, 3)`); `isinstance(t, torch.FloatTensor)` asks whether t is
a float32 tensor; `t.type(torch.DoubleTensor)` converts. `Variable(t, requires_grad=True)`
is, since torch 0.4, a tensor: a new leaf on t's memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from micrograd.tensors import dtypes, torch_warnings
from micrograd.tensors.size import Size
from micrograd.tensors.tensor import Tensor

__all__ = ["LEGACY_TYPES", "Variable"]


class _LegacyTensorType(type):
    """The class of torch.FloatTensor and its kin: called, it makes a tensor of its dtype;
    isinstance() checks a tensor's dtype. No tensor's class is one of them (in torch
    neither: issubclass(torch.FloatTensor, torch.Tensor) is False)."""

    dtype: dtypes.DType

    def __call__(cls, *data: Any, device: Any = None) -> Tensor:
        if device is not None and str(device) != "cpu":
            raise RuntimeError(f"{cls.__name__} is a CPU tensor type; got device={device!r}")
        kind = np.dtype(cls.dtype)
        if not data:
            return Tensor(np.zeros(0, kind))
        if all(type(n) is int for n in data) or isinstance(data[0], Size):
            shape = (*data[0], *data[1:]) if isinstance(data[0], Size) else data
            return Tensor(np.zeros(shape, kind))  # sizes (torch's memory is uninitialised)
        if len(data) > 1:
            raise TypeError(f"{cls.__name__}() takes data (a list, an array or a tensor) or "
                            f"sizes (ints), got {', '.join(type(d).__name__ for d in data)}")
        (value,) = data
        if isinstance(value, Tensor):
            if value.dtype != kind:
                raise TypeError(f"{cls.__name__}(tensor) needs a tensor of dtype {cls.dtype}, "
                                f"got {value.dtype}; convert it with t.type(torch."
                                f"{cls.__name__}) or t.to({cls.dtype})")
            return value.detach()  # as torch's: the same memory
        return Tensor(np.array(value).astype(kind))  # LongTensor([1.7]) truncates, as torch

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance.dtype == np.dtype(cls.dtype)

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"


def _legacy_type(name: str, dtype_name: str) -> _LegacyTensorType:
    made = _LegacyTensorType(name, (), {"__module__": "torch", "__doc__":
                                        f"torch.{name}: makes (or recognises) tensors of "
                                        f"dtype {dtype_name}"})
    made.dtype = dtypes.torch_dtype(dtype_name)
    return made


# torch.FloatTensor, ...: the names t.type() gives, one per dtype that has one
LEGACY_TYPES = {legacy.removeprefix("torch."): _legacy_type(legacy.removeprefix("torch."), name)
                for name, legacy in dtypes.legacy_type_names().items()}


class _VariableType(type):
    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor)  # every tensor is a Variable, as in torch


class Variable(metaclass=_VariableType):
    """torch.autograd.Variable(t, requires_grad=False): t's values as a new leaf tensor on
    the same memory (a Variable is a tensor since torch 0.4)."""

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False
                ) -> Any:
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if volatile:
            torch_warnings.warn("volatile was removed and now has no effect. Use "
                                "`with torch.no_grad():` instead.")
        return data.detach().requires_grad_(requires_grad)
