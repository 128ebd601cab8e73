"""Layers for the Tensor engine, as torch.nn: Module, Parameter, layers, containers, losses.

`from_scalar_mlp` is the bridge from P0 to P1: it copies a scalar `micrograd.nn.MLP`'s
weights into an equivalent stack of Linear layers, so a learner can check that both
engines compute the same numbers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# the submodules, re-exported (torch.nn.init, torch.nn.functional) but not star-imported
from micrograd.tensors import functional as functional
from micrograd.tensors.nn import init as init
from micrograd.tensors.nn.activations import MODULES as _ACTIVATION_MODULES
from micrograd.tensors.nn.layers import (
    GELU,
    BatchNorm1d,
    Dropout,
    Embedding,
    Flatten,
    Identity,
    LayerNorm,
    Linear,
    LogSoftmax,
    ModuleDict,
    ModuleList,
    Sequential,
    Softmax,
)
from micrograd.tensors.nn.losses import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MarginRankingLoss,
    MSELoss,
    MultiLabelSoftMarginLoss,
    NLLLoss,
    PoissonNLLLoss,
    SmoothL1Loss,
    SoftMarginLoss,
    TripletMarginLoss,
)
from micrograd.tensors.nn.module import IncompatibleKeys, Module, Parameter, StateDictError
from micrograd.tensors.nn.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell

__all__ = [
    "Module", "Parameter", "IncompatibleKeys", "StateDictError",
    "Linear", "Embedding", "LayerNorm", "BatchNorm1d", "Dropout",
    "GELU", "Softmax", "LogSoftmax", "Flatten", "Identity",
    "Sequential", "ModuleList", "ModuleDict",
    "RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU",
    "MSELoss", "L1Loss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
    "SmoothL1Loss", "HuberLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss",
    "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss", "MultiLabelSoftMarginLoss",
    "CosineEmbeddingLoss", "TripletMarginLoss",
    "from_scalar_mlp",
]  # and the submodules init and functional

# ReLU, Tanh, Sigmoid, ...: one module per registry op with a torch.nn spelling
globals().update(_ACTIVATION_MODULES)
__all__ += list(_ACTIVATION_MODULES)
_ACTIVATIONS = {"relu": _ACTIVATION_MODULES["ReLU"], "tanh": _ACTIVATION_MODULES["Tanh"],
                "sigmoid": _ACTIVATION_MODULES["Sigmoid"]}


def __getattr__(name: str) -> type[Module]:
    """For type checkers: the registry's modules are found in globals() at runtime."""
    try:
        return _ACTIVATION_MODULES[name]
    except KeyError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


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
