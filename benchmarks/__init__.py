"""The speed suite: micrograd against micrograd 0.1.0 and PyTorch, written to docs/benchmarks.md.

Run `python -m benchmarks` (full, a few minutes) or `python -m benchmarks --quick` (CI smoke
run). Every workload runs in a subprocess of its own, so that micrograd 0.1.0 (which shares
our import name) and PyTorch never meet our engine in one interpreter.
"""
