"""micrograd: a tiny, correct and fast autograd engine for learning backpropagation."""

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
    "Tensor", "tensor", "zeros", "ones", "randn", "rand", "arange", "cat", "stack",
    "manual_seed", "float32", "float64", "int64",
})


def __getattr__(name: str):
    if name in _TENSOR_NAMES:
        import micrograd.tensors.engine as tensor_engine

        return getattr(tensor_engine, name)
    raise AttributeError(f"module 'micrograd' has no attribute {name!r}")
