"""The op registry: one entry per op, read by both engines, the trace, the checker and the
torch facade. Standard library only at import; the numpy namespace is `micrograd.ops.arrays`.
"""

from micrograd.ops.binary import BINARY, binary_rule, scalar_binary_ops
from micrograd.ops.registry import BinaryOp, BinaryRule, Fused, Op, Rule, Torch
from micrograd.ops.table import FUSED, OPS, probed_ops, rule_at, scalar_ops

__all__ = ["BINARY", "FUSED", "OPS", "BinaryOp", "BinaryRule", "Fused", "Op", "Rule", "Torch",
           "binary_rule", "probed_ops", "rule_at", "scalar_binary_ops", "scalar_ops"]
