"""Linear algebra: the matrix product, with numpy's rules for vectors and batches."""

from __future__ import annotations

import numpy as np

from micrograd.tensors.dtypes import check_same_dtype
from micrograd.tensors.function import Tensor, accumulate, method, node, operand, unbroadcast
from micrograd.tensors.tensor import ArrayLike


def matmul(a: ArrayLike, b: ArrayLike) -> Tensor:
    """a @ b with numpy's rules (1-D vectors, batches broadcast);
    d/da = g @ b^T, d/db = a^T @ g."""
    if type(a) is not Tensor:
        a = Tensor(a)
    if type(b) is not Tensor:
        b = Tensor(b)
    A, B = a._array, b._array
    check_same_dtype("@", A, B)
    try:
        out = np.matmul(A, B)
    except ValueError as error:
        inner = (
            f"{A.shape[-1]} != {B.shape[-2] if B.ndim > 1 else B.shape[0]}"
            if A.ndim and B.ndim else "0-d operands cannot be multiplied; use *"
        )
        raise ValueError(
            f"@: shapes {A.shape} and {B.shape} cannot be multiplied ({inner})"
        ) from error
    if type(out) is not np.ndarray:
        out = np.asarray(out)
    left, right = a, b

    def backward(result: Tensor) -> None:
        g = result._grad_array
        if g is None:
            return
        A2, B2 = A, B
        if A.ndim == 1 and B.ndim == 1:  # a dot product: a (1, k) @ (k, 1) matrix product
            A2, B2, g = A[None, :], B[:, None], g.reshape(1, 1)
        elif A.ndim == 1:  # a vector acts as a 1-row matrix whose row dimension is dropped
            A2, g = A[None, :], np.expand_dims(g, -2)
        elif B.ndim == 1:  # and as a 1-column matrix on the right
            B2, g = B[:, None], np.expand_dims(g, -1)
        if left._requires_grad:
            da = np.matmul(g, np.swapaxes(B2, -1, -2))
            accumulate(left, unbroadcast(da, A2.shape).reshape(A.shape))
        if right._requires_grad:
            db = np.matmul(np.swapaxes(A2, -1, -2), g)
            accumulate(right, unbroadcast(db, B2.shape).reshape(B.shape))

    return node(out, (a, b), "@", backward, a._requires_grad or b._requires_grad)


@method("__matmul__")
def _matmul_operator(self: Tensor, other: ArrayLike) -> Tensor:
    b = other if type(other) is Tensor else operand(other)
    if b is NotImplemented:
        return NotImplemented
    return matmul(self, b)


@method("__rmatmul__")
def _reflected_matmul_operator(self: Tensor, other: ArrayLike) -> Tensor:
    a = operand(other)
    if a is NotImplemented:
        return NotImplemented
    return matmul(a, self)
