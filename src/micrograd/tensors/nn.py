"""Layers for the Tensor engine, as torch.nn: Module, Linear, Sequential, activations.

`from_scalar_mlp` is the bridge from P0 to P1: it copies a scalar `micrograd.nn.MLP`'s
weights into an equivalent stack of Linear layers, so a learner can check that both
engines compute the same numbers.
"""

from __future__ import annotations

import math
from typing import Any, Iterator, NoReturn

import numpy as np

from micrograd.tensors import functional as F
from micrograd.tensors import engine as _engine
from micrograd.tensors.engine import Tensor


class Module:
    """Base class: parameters are the Tensor attributes that require grad, found
    recursively through sub-modules (and lists/tuples of them), in definition order."""

    training = True

    def forward(self, *args: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define forward()")

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def named_parameters(self, prefix: str = "") -> list[tuple[str, Tensor]]:
        """(name, parameter) pairs, each parameter once, named as PyTorch names them."""
        found: list[tuple[str, Tensor]] = []
        self._collect(prefix, found)
        seen: set[int] = set()
        unique = []
        for name, p in found:
            if id(p) not in seen:
                seen.add(id(p))
                unique.append((name, p))
        return unique

    def _collect(self, prefix: str, found: list) -> None:
        for name, value in vars(self).items():
            _collect_parameters(value, prefix + name, found)

    def parameters(self) -> list[Tensor]:
        return [p for _, p in self.named_parameters()]

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of the parameter arrays by name, as torch's state_dict()."""
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Set every parameter from `state` (names and shapes must match)."""
        own = dict(self.named_parameters())
        if set(own) != set(state):
            missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own))
            raise KeyError(f"state_dict mismatch: missing {missing}, unexpected {unexpected}")
        for name, p in own.items():
            value = np.asarray(state[name].data if isinstance(state[name], Tensor)
                               else state[name], dtype=p.data.dtype)
            if value.shape != p.data.shape:
                raise ValueError(f"{name}: expected shape {p.data.shape}, got {value.shape}")
            p.data = value.copy()

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Forget the gradients (None, as PyTorch's default; or zeros)."""
        for p in self.parameters():
            p.grad = None if set_to_none else np.zeros_like(p.data)

    def to(self, *args: Any, dtype: Any = None, device: Any = None,
           non_blocking: bool = False) -> "Module":
        """Convert every parameter to a dtype in place, as torch's module.to(dtype),
        to(device) or to(device, dtype); "cpu" changes nothing, "cuda" etc. raise
        (non_blocking is accepted and changes nothing)."""
        dtype = _engine.to_arguments(args, dtype, device)
        if dtype is None:
            return self
        for p in self.parameters():
            p.data = p.data.astype(dtype)
            p.grad = None
        return self

    def cpu(self) -> "Module":
        """This module: its parameters live on the CPU already."""
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Always a RuntimeError: micrograd computes with numpy, on the CPU only."""
        _engine.check_device("cuda")

    def float(self) -> "Module":
        return self.to(np.float32)

    def double(self) -> "Module":
        return self.to(np.float64)

    def train(self, mode: bool = True) -> "Module":
        self.training = mode
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"  # what PyTorch shows for a module without settings


def _collect_parameters(value: Any, name: str, found: list) -> None:
    if isinstance(value, Tensor):
        if value.requires_grad:
            found.append((name, value))
    elif isinstance(value, Module):
        value._collect(name + ".", found)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _collect_parameters(item, f"{name}.{i}", found)


class Linear(Module):
    """y = x W^T + b, with W (out, in) and b (out,) uniform in +-1/sqrt(in), as PyTorch."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 dtype: Any = None, rng: np.random.Generator | None = None):
        for name, n in (("in_features", in_features), ("out_features", out_features)):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
                raise ValueError(f"{name} must be a positive int, got {n!r}")
        self.in_features, self.out_features = int(in_features), int(out_features)
        dtype = np.dtype(dtype) if dtype is not None else _engine.get_default_dtype()
        rng = rng if rng is not None else _engine.default_generator()
        bound = 1 / math.sqrt(in_features)
        self.weight = Tensor(rng.uniform(-bound, bound, (out_features, in_features)).astype(dtype),
                             requires_grad=True)
        self.bias = (Tensor(rng.uniform(-bound, bound, out_features).astype(dtype),
                            requires_grad=True) if bias else None)

    def forward(self, x: Tensor) -> Tensor:
        return F.linear(x, self.weight, self.bias)

    def __repr__(self) -> str:
        return (f"Linear(in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None})")


class Sequential(Module):
    """Modules applied one after another. A Linear directly followed by a ReLU runs as one
    fused node (F.linear_relu, same numbers); call the layers one by one, e.g.
    `model[1](model[0](x))`, to see them as separate nodes."""

    def __init__(self, *modules: Module):
        self.layers = list(modules)

    def forward(self, x: Tensor) -> Tensor:
        layers = self.layers
        i, n = 0, len(layers)
        while i < n:
            layer = layers[i]
            # exact types: a subclass may change forward(), so it runs as written
            if type(layer) is Linear and i + 1 < n and type(layers[i + 1]) is ReLU:
                x = F.linear_relu(x, layer.weight, layer.bias)
                i += 2
            else:
                x = layer(x)
                i += 1
        return x

    def _collect(self, prefix: str, found: list) -> None:
        for i, layer in enumerate(self.layers):  # named 0.weight, 2.bias... as in PyTorch
            _collect_parameters(layer, f"{prefix}{i}", found)

    def __getitem__(self, i: int) -> Module:
        return self.layers[i]

    def __len__(self) -> int:
        return len(self.layers)

    def __iter__(self) -> Iterator[Module]:
        return iter(self.layers)

    def __repr__(self) -> str:
        inner = "".join(f"\n  ({i}): {layer!r}" for i, layer in enumerate(self.layers))
        return f"Sequential({inner}\n)"


class ReLU(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.relu()


class Tanh(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.tanh()


class Sigmoid(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x.sigmoid()


class Identity(Module):
    def forward(self, x: Tensor) -> Tensor:
        return x


_ACTIVATIONS = {"relu": ReLU, "tanh": Tanh, "sigmoid": Sigmoid}


def from_scalar_mlp(mlp: Any, dtype: Any = np.float64) -> Sequential:
    """A Tensor network computing exactly what the scalar `micrograd.nn.MLP` computes.

    Each scalar Layer of n neurons becomes Linear(nin, n) whose weight row i is neuron i's
    w and whose bias[i] is its b, followed by the neuron's activation.
    """
    modules: list[Module] = []
    for layer in mlp.layers:
        neurons = layer.neurons
        # a throwaway generator: the drawn weights are overwritten at once, and drawing them
        # from the default one would shift every later randn() of a seeded script
        linear = Linear(len(neurons[0].w), len(neurons), dtype=dtype,
                        rng=np.random.default_rng(0))
        linear.weight.data = np.array([[w.data for w in n.w] for n in neurons], dtype=dtype)
        linear.bias.data = np.array([n.b.data for n in neurons], dtype=dtype)
        modules.append(linear)
        activation = neurons[0].activation
        if activation in _ACTIVATIONS:
            modules.append(_ACTIVATIONS[activation]())
    return Sequential(*modules)
