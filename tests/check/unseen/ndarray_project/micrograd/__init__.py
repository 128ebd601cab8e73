"""The learner's own package called micrograd (it shares a name with ours)."""
from micrograd.shapes import unbroadcast

__all__ = ["unbroadcast"]
