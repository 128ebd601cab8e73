"""The tensor ops, grouped by kind; importing this package installs them on Tensor.

Each op is a short entry on the public kernel (`micrograd.tensors.function`): a forward
array computation and one vector-Jacobian product per input.
"""

from micrograd.tensors.ops import (  # after the above
           arithmetic,
           elementwise,
           index,
           layout,
           linalg,
           pointwise,
           reduce,
           selection,
           shape,
           statistics,
)

__all__ = ["elementwise", "reduce", "shape", "index", "linalg", "pointwise", "statistics",
           "layout", "selection", "arithmetic"]
