"""micrograd: a tiny, correct and fast autograd engine for learning backpropagation."""

from typing import Any

from micrograd.autograd import detect_anomaly, enable_grad, is_grad_enabled, no_grad
from micrograd.engine import Value, define_op, weighted_sum

__version__ = "1.0.0"

__all__ = [
    "Value",
    "define_op",
    "weighted_sum",
    "no_grad",
    "enable_grad",
    "is_grad_enabled",
    "detect_anomaly",
    "Tensor",
    "tensor",
]

# The Tensor engine needs numpy, so it is imported only when first used: `import micrograd`
# stays standard-library only. (`micrograd.tensors` is the package; `micrograd.tensor` is
# the function, as torch.tensor.)
_TENSOR_NAMES = frozenset({
    "Tensor", "tensor", "zeros", "ones", "zeros_like", "ones_like", "randn", "rand", "arange",
    "cat", "stack", "manual_seed", "set_default_dtype", "get_default_dtype", "set_num_threads",
    "get_num_threads", "float32", "float64", "int64", "device", "cuda",
})

# Submodules, also imported only when first used (PEP 562), so that `micrograd.optim.SGD`
# works after a bare `import micrograd`, as `torch.optim.SGD` does after `import torch`.
_SUBMODULES = frozenset({
    "autograd", "engine", "nn", "optim", "losses", "datasets", "gradcheck", "demos", "cli",
    "viz", "tensors", "check", "lecture",
})

# PyTorch paths a ported script may reach for, and where they live here.
_TORCH_PATHS = {
    "utils": "torch.utils.data is micrograd.tensors.data "
             "(from micrograd.tensors.data import DataLoader, TensorDataset)",
    "functional": "torch.nn.functional is micrograd.tensors.functional",
}


def __getattr__(name: str) -> Any:
    if name in _TENSOR_NAMES:
        import micrograd.tensors as tensors

        return getattr(tensors, name)
    if name in _SUBMODULES:
        import importlib

        return importlib.import_module(f"micrograd.{name}")
    hint = f": {_TORCH_PATHS[name]}" if name in _TORCH_PATHS else ""
    raise AttributeError(f"module 'micrograd' has no attribute {name!r}{hint}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | _TENSOR_NAMES | _SUBMODULES)
