"""The op registry: one entry per op, read by both engines, the trace, the checker and the
torch facade. Standard library only at import; the numpy namespace is `micrograd.ops.arrays`.
"""

from micrograd.ops.registry import Fused, Op, Rule, Torch
from micrograd.ops.table import FUSED, OPS, probed_ops, rule_at, scalar_ops

__all__ = ["FUSED", "OPS", "Fused", "Op", "Rule", "Torch", "probed_ops", "rule_at",
           "scalar_ops"]
