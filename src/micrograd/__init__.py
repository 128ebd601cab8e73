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
]
