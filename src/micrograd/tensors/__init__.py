"""P1: the Tensor engine -- the same autograd as `Value`, one numpy array per node.

The graph walker (topological order, backward loop, `+=` accumulation, no_grad, anomaly
mode) is `micrograd.autograd`, shared word for word with the scalar engine; this package
only adds ops whose local derivatives work on whole arrays at once.
"""

from __future__ import annotations

import builtins

try:
    import numpy  # noqa: F401
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "micrograd's Tensor engine needs numpy: pip install 'micrograd[tensor]'"
    ) from error

from micrograd.autograd import detect_anomaly, enable_grad, no_grad
from micrograd.tensors import ops  # installs the ops on Tensor: t + u, t.exp(), ...
from micrograd.tensors.compat import (
    cuda,
    device,
    get_num_threads,
    keep_freed_memory,
    set_num_threads,
)
from micrograd.tensors.custom import Function as Function  # torch.autograd.Function
from micrograd.tensors.dtypes import (
    float32,
    float64,
    get_default_dtype,
    int64,
    set_default_dtype,
)
from micrograd.tensors.factories import (
    arange,
    bernoulli,
    channels_last,
    contiguous_format,
    default_generator,
    empty,
    empty_like,
    eye,
    full,
    full_like,
    get_rng_state,
    initial_seed,
    linspace,
    logspace,
    manual_seed,
    multinomial,
    normal,
    ones,
    ones_like,
    preserve_format,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    seed,
    set_rng_state,
    strided,
    tensor,
    zeros,
    zeros_like,
)
from micrograd.tensors.install import install
from micrograd.tensors.ops import filling  # noqa: F401  (installs fill_, normal_, ...)
from micrograd.tensors.ops.shape import cat, stack
from micrograd.tensors.printing import get_printoptions, printoptions, set_printoptions
from micrograd.tensors.random import Generator
from micrograd.tensors.tensor import Tensor
from micrograd.tensors.toplevel import DTYPES, FUNCTIONS

install()  # the op registry's methods on Tensor: t.exp(), t.relu_(), -t, abs(t), ...

# torch.sin(x), torch.max(x, 1), ... and torch.float, torch.long, ...: generated from the
# method table (toplevel.py). Names that shadow builtins (sum, max, float, ...) are
# attributes only, not in __all__, so `from micrograd.tensors import *` leaves builtins be.
globals().update(FUNCTIONS)
globals().update(DTYPES)

__all__ = [
    "Tensor",
    "tensor",
    "zeros",
    "ones",
    "zeros_like",
    "ones_like",
    "device",
    "cuda",
    "arange",
    "rand",
    "randn",
    "cat",
    "stack",
    "manual_seed",
    "set_default_dtype",
    "get_default_dtype",
    "set_num_threads",
    "get_num_threads",
    "keep_freed_memory",
    "float32",
    "float64",
    "int64",
    "set_printoptions",
    "get_printoptions",
    "printoptions",
    "no_grad",
    "enable_grad",
    "detect_anomaly",
    "ops",
    "Generator",
    "default_generator",
    "seed",
    "initial_seed",
    "get_rng_state",
    "set_rng_state",
    "randint",
    "randperm",
    "multinomial",
    "normal",
    "bernoulli",
    "rand_like",
    "randn_like",
    "full",
    "full_like",
    "empty",
    "empty_like",
    "eye",
    "linspace",
    "logspace",
    "strided",
    "contiguous_format",
    "preserve_format",
    "channels_last",
    *(name for name in (*FUNCTIONS, *DTYPES) if not hasattr(builtins, name)),
]

# The rest of the package loads on first use (PEP 562): `micrograd.tensors.nn.Linear`
# works after `import micrograd`, without paying for the demos' imports up front.
_SUBMODULES = frozenset({"nn", "functional", "data", "gradcheck"})  # demos: micrograd.demos


def __getattr__(name: str):
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"micrograd.tensors.{name}")
    raise AttributeError(f"module 'micrograd.tensors' has no attribute {name!r}")
