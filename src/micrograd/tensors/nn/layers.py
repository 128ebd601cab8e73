"""Layers and containers, as torch.nn has them, with torch's default initialisation."""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import numpy as np

import micrograd.tensors as _tensors
from micrograd._validate import check_positive_int
from micrograd.tensors import Tensor, torch_warnings
from micrograd.tensors import functional as F
from micrograd.tensors.nn import init
from micrograd.tensors.nn.activations import MODULES
from micrograd.tensors.nn.module import Module, Parameter


def _dtype(dtype: Any, device: Any = None) -> np.dtype:
    """The dtype a layer's parameters get: the default dtype unless one is given."""
    return np.dtype(_tensors.tensor(0.0).to(dtype=dtype, device=device).dtype)


def _empty(shape: tuple, dtype: np.dtype) -> Parameter:
    return Parameter(np.zeros(shape, dtype=dtype))


class Linear(Module):
    """y = x W^T + b with W (out, in), b (out,). Starts as torch's: W by
    kaiming_uniform_(a=sqrt 5) -- U(+-1/sqrt(in)) -- and b by U(+-1/sqrt(in)).
    rng: a numpy Generator to draw from instead of the manual_seed stream."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None, rng: np.random.Generator | None = None):
        super().__init__()
        self.in_features = check_positive_int("in_features", in_features)
        self.out_features = check_positive_int("out_features", out_features)
        kind = _dtype(dtype, device)
        self.weight = _empty((self.out_features, self.in_features), kind)
        if bias:
            self.bias = _empty((self.out_features,), kind)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters(rng)

    def reset_parameters(self, rng: np.random.Generator | None = None) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5), generator=rng)
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features)
            init.uniform_(self.bias, -bound, bound, generator=rng)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Embedding(Module):
    """A lookup table: row i of weight (num_embeddings, embedding_dim) for index i; starts
    N(0, 1) as torch's (the padding_idx row, if given, starts at zero)."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 device: Any = None, dtype: Any = None, _weight: Tensor | None = None):
        super().__init__()
        self.num_embeddings = check_positive_int("num_embeddings", num_embeddings)
        self.embedding_dim = check_positive_int("embedding_dim", embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"padding_idx must be within num_embeddings, got {padding_idx}")
            padding_idx = padding_idx % num_embeddings
        self.padding_idx = padding_idx
        if _weight is not None:
            self.weight = Parameter(_weight)
        else:
            self.weight = _empty((self.num_embeddings, self.embedding_dim), _dtype(dtype, device))
            self.reset_parameters()

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._array_to_change()[self.padding_idx] = 0

    def forward(self, input: Any) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        text = f"{self.num_embeddings}, {self.embedding_dim}"
        return text + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")


class LayerNorm(Module):
    """Normalise over the last dims to mean 0, variance 1, then scale and shift (weight
    ones, bias zeros)."""

    def __init__(self, normalized_shape: int | Iterable[int], eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None):
        super().__init__()
        shape = ((normalized_shape,) if isinstance(normalized_shape, int)
                 else tuple(normalized_shape))
        self.normalized_shape = shape
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        kind = _dtype(dtype, device)
        if elementwise_affine:
            self.weight = Parameter(np.ones(shape, dtype=kind))
            if bias:
                self.bias = Parameter(np.zeros(shape, dtype=kind))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, "
                f"bias={self.elementwise_affine and self.bias is not None}")


class BatchNorm1d(Module):
    """Normalise each feature over the batch ((N, C) or (N, C, L) input). Training: batch
    statistics, and running_mean/running_var follow them with `momentum` (None: a
    cumulative average); eval(): the running statistics."""

    _optional_state = ("num_batches_tracked",)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True):
        super().__init__()
        self.num_features = check_positive_int("num_features", num_features)
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.has_bias = affine and bias
        self.track_running_stats = track_running_stats
        kind = _dtype(dtype, device)
        if affine:
            self.weight = Parameter(np.ones(num_features, dtype=kind))
            if self.has_bias:
                self.bias = Parameter(np.zeros(num_features, dtype=kind))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", _tensors.tensor(np.empty(num_features, kind)))
            self.register_buffer("running_var", _tensors.tensor(np.empty(num_features, kind)))
            self.register_buffer("num_batches_tracked", _tensors.tensor(np.array(0, np.int64)))
            self.reset_running_stats()
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """Mean 0, variance 1, no batches seen: in place, as torch (each version + 1)."""
        if self.track_running_stats:
            self.running_mean._array_to_change()[...] = 0
            self.running_var._array_to_change()[...] = 1
            self.num_batches_tracked._array_to_change()[...] = 0

    def forward(self, input: Tensor) -> Tensor:
        if input.ndim not in (2, 3) or input.shape[1] != self.num_features:
            raise ValueError(f"BatchNorm1d({self.num_features}) expects input of shape (N, "
                             f"{self.num_features}) or (N, {self.num_features}, L), got "
                             f"{tuple(input.shape)}")
        momentum = self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked._array_to_change()[...] += 1
            if momentum is None:  # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked._array)
        use_batch = self.training or self.running_mean is None
        track = not self.training or self.track_running_stats
        return F.batch_norm(input, self.running_mean if track else None,
                             self.running_var if track else None, self.weight, self.bias,
                             use_batch, momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.has_bias}, "
                f"track_running_stats={self.track_running_stats}")


class Dropout(Module):
    """In training, zero each element with probability p and scale the rest by 1/(1-p);
    in eval(), the identity."""

    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p!r}")
        self.p = float(p)
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


# ReLU, Tanh, Sigmoid, ...: the registry's activation modules (tensors/nn/activations.py)


def __getattr__(name: str) -> type[Module]:
    """layers.ReLU etc., where models pickled before the registry look for them."""
    try:
        return MODULES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


class GELU(Module):
    def __init__(self, approximate: str = "none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, x: Tensor) -> Tensor:
        return F.gelu(x, self.approximate)

    def extra_repr(self) -> str:
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim: int | None = None):
        super().__init__()
        self.dim = dim

    def forward(self, x: Tensor) -> Tensor:
        return x.softmax(dim=self._dim(x, "softmax"))

    def _dim(self, x: Tensor, name: str) -> int:
        if self.dim is not None:
            return self.dim
        return torch_warnings.implicit_softmax_dim(name, x.ndim)  # torch's choice, warned

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, x: Tensor) -> Tensor:
        return x.log_softmax(dim=self._dim(x, "log_softmax"))


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, x: Tensor) -> Tensor:
        return x.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Identity(Module):
    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        return x


# --- containers -------------------------------------------------------------------------


class Sequential(Module):
    """Modules applied one after another, registered as "0", "1", ... (or by the names of
    an OrderedDict). A Linear directly followed by a ReLU runs as one fused node
    (F.linear_relu, same numbers)."""

    def __init__(self, *modules: Module | Mapping[str, Module]):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, module in modules[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(modules):
                self.add_module(str(i), _module(module, i))

    @property
    def layers(self) -> list[Module]:
        """The modules in order (the older micrograd name)."""
        return list(self._modules.values())

    def forward(self, x: Tensor) -> Tensor:
        layers = self.layers
        i, n = 0, len(layers)
        while i < n:
            layer = layers[i]
            # exact types: a subclass may change forward(), so it runs as written
            if type(layer) is Linear and i + 1 < n and type(layers[i + 1]) is MODULES["ReLU"]:
                x = F.linear_relu(x, layer.weight, layer.bias)
                i += 2
            else:
                x = layer(x)
                i += 1
        return x

    def __getitem__(self, index: int | slice) -> Any:
        if isinstance(index, slice):
            return Sequential(OrderedDict(list(self._modules.items())[index]))
        return self.layers[_index(index, len(self))]

    def __setitem__(self, index: int, module: Module) -> None:
        key = list(self._modules)[_index(index, len(self))]
        self.add_module(key, _module(module, index))

    def __delitem__(self, index: int) -> None:
        key = list(self._modules)[_index(index, len(self))]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self.layers)

    def append(self, module: Module) -> Sequential:
        self.add_module(str(len(self)), _module(module, len(self)))
        return self


class ModuleList(Module):
    """A list of modules, registered as "0", "1", ... so their parameters are found."""

    def __init__(self, modules: Iterable[Module] | None = None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, index: int | slice) -> Any:
        items = list(self._modules.values())
        if isinstance(index, slice):
            return ModuleList(items[index])
        return items[_index(index, len(items))]

    def __setitem__(self, index: int, module: Module) -> None:
        self.add_module(str(_index(index, len(self))), _module(module, index))

    def __repr__(self) -> str:
        """As torch prints a ModuleList: a run of identical modules once, as
        `(0-2): 3 x Linear(...)`."""
        runs: list[tuple[int, int, str]] = []  # (first index, last index, repr)
        for i, module in enumerate(self):
            text = repr(module)
            if runs and runs[-1][2] == text:
                runs[-1] = (runs[-1][0], i, text)
            else:
                runs.append((i, i, text))
        if not runs:
            return self._get_name() + "()"
        lines = [f"({first}): {text}" if first == last
                 else f"({first}-{last}): {last - first + 1} x {text}"
                 for first, last, text in runs]
        return (self._get_name() + "(\n  "
                + "\n  ".join(line.replace("\n", "\n  ") for line in lines) + "\n)")

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(list(self._modules.values()))

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def append(self, module: Module) -> ModuleList:
        self.add_module(str(len(self)), _module(module, len(self)))
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> None:
        items = list(self._modules.values())
        items.insert(index, _module(module, index))
        for key in list(self._modules):
            delattr(self, key)
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError("ModuleList has no forward(): iterate over it and call "
                                  "each module")


class ModuleDict(Module):
    """A dict of modules, registered under their keys."""

    def __init__(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, _module(module, key))

    def __delitem__(self, key: str) -> None:
        if key not in self._modules:
            raise KeyError(key)
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        return self._modules.values()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        for key in list(self._modules):
            delattr(self, key)

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError("ModuleDict has no forward(): look a module up and call it")


def _module(value: Any, where: Any) -> Module:
    if not isinstance(value, Module):
        raise TypeError(f"container entry {where!r} must be an nn.Module, got "
                        f"{type(value).__name__}")
    return value


def _index(index: Any, length: int) -> int:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise TypeError(f"index must be an int or a slice, got {type(index).__name__}")
    if not -length <= index < length:
        raise IndexError(f"index {index} is out of range for {length} modules")
    return int(index) % length
