"""Linear algebra: the matrix product, with numpy's rules for vectors and batches, and the
products built on it (addmm, baddbmm, mv, kron, cross)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from micrograd.tensors import parallel, threads
from micrograd.tensors.dtypes import check_same_dtype
from micrograd.tensors.function import (
    Tensor,
    accumulate,
    apply,
    method,
    node,
    operand,
    unbroadcast,
)
from micrograd.tensors.ops.index import getitem
from micrograd.tensors.ops.shape import reshape, stack
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
    try:  # a stack of products (attention's heads) may be split over threads
        out = threads.matmul(A, B) if A.ndim < 3 else parallel.matmul_stack(A, B)
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
        if A.ndim == 2 and B.ndim == 2:  # the common case: fresh products, nothing to reshape
            if left._requires_grad:  # (a reshaped view would make a leaf copy its gradient)
                accumulate(left, threads.matmul(g, B.T))
            if right._requires_grad:
                accumulate(right, threads.matmul(A.T, g))
            return
        A2, B2 = A, B
        if A.ndim == 1 and B.ndim == 1:  # a dot product: a (1, k) @ (k, 1) matrix product
            A2, B2, g = A[None, :], B[:, None], g.reshape(1, 1)
        elif A.ndim == 1:  # a vector acts as a 1-row matrix whose row dimension is dropped
            A2, g = A[None, :], np.expand_dims(g, -2)
        elif B.ndim == 1:  # and as a 1-column matrix on the right
            B2, g = B[:, None], np.expand_dims(g, -1)
        if left._requires_grad:
            da = parallel.matmul_stack(g, np.swapaxes(B2, -1, -2))
            accumulate(left, unbroadcast(da, A2.shape).reshape(A.shape))
        if right._requires_grad:
            db = parallel.matmul_stack(np.swapaxes(A2, -1, -2), g)
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


def _check_ndim(op: str, t: Tensor, ndim: int, what: str) -> None:
    if t._array.ndim != ndim:
        raise ValueError(f"{op} expects {what} ({ndim}-d) tensors, got shape {t._array.shape}")


def _as_tensor(x: ArrayLike) -> Tensor:
    return x if type(x) is Tensor else Tensor(x)


@method("mm")
def mm(a: ArrayLike, b: ArrayLike) -> Tensor:
    """The product of two matrices (2-d only, as torch.mm)."""
    a, b = _as_tensor(a), _as_tensor(b)
    _check_ndim("mm", a, 2, "matrix")
    _check_ndim("mm", b, 2, "matrix")
    return matmul(a, b)


@method("bmm")
def bmm(a: ArrayLike, b: ArrayLike) -> Tensor:
    """Batched matrix products of (B, n, m) and (B, m, p), as torch.bmm (no broadcasting)."""
    a, b = _as_tensor(a), _as_tensor(b)
    _check_ndim("bmm", a, 3, "batched matrix")
    _check_ndim("bmm", b, 3, "batched matrix")
    if a._array.shape[0] != b._array.shape[0]:
        raise ValueError(f"bmm: batch sizes differ, {a._array.shape[0]} and {b._array.shape[0]}")
    return matmul(a, b)


@method("dot")
def dot(a: ArrayLike, b: ArrayLike) -> Tensor:
    """The dot product of two 1-d tensors of the same length."""
    a, b = _as_tensor(a), _as_tensor(b)
    _check_ndim("dot", a, 1, "1-d")
    _check_ndim("dot", b, 1, "1-d")
    return matmul(a, b)


method("inner")(dot)


@method("outer", "ger")
def outer(a: ArrayLike, b: ArrayLike) -> Tensor:
    """out[i, j] = a[i] b[j];  da = g @ b,  db = g^T @ a."""
    a, b = _as_tensor(a), _as_tensor(b)
    _check_ndim("outer", a, 1, "1-d")
    _check_ndim("outer", b, 1, "1-d")
    return matmul(reshape(a, -1, 1), reshape(b, 1, -1))


def _einsum_parts(equation: str, count: int) -> tuple[list[str], str]:
    equation = equation.replace(" ", "")
    if "." in equation:
        raise ValueError("einsum: '...' is not supported; write out the dimensions")
    inputs, arrow, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise ValueError(f"einsum: the equation names {len(terms)} operands, got {count}")
    if not arrow:  # implicit output: the letters used once, in alphabetical order
        letters = "".join(terms)
        output = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    for term in terms:
        if len(set(term)) != len(term):
            raise ValueError(f"einsum: a repeated letter within one operand ({term!r}: a "
                             "diagonal) is not supported")
    return terms, output


def einsum(equation: str, *operands: ArrayLike) -> Tensor:
    """torch.einsum for explicit letters (no '...', no repeated letter in one operand).
    The gradient of each operand is itself an einsum: g with the other operands, summed
    to that operand's letters (and broadcast back over letters only it has)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    tensors = tuple(_as_tensor(t) for t in operands)
    terms, output = _einsum_parts(equation, len(tensors))
    arrays = [t._array for t in tensors]
    for t, term in zip(arrays, terms, strict=True):
        if t.ndim != len(term):
            raise ValueError(f"einsum: operand {term!r} has {t.ndim} dimensions, not "
                             f"{len(term)}")
    out = np.asarray(np.einsum(f"{','.join(terms)}->{output}", *arrays, optimize=True))

    def gradient_for(k: int) -> Callable[[np.ndarray], np.ndarray]:
        term = terms[k]
        others = [terms[i] for i in range(len(terms)) if i != k]
        present = set(output).union(*others) if others else set(output)
        kept = "".join(c for c in term if c in present)

        def vjp(g: np.ndarray) -> np.ndarray:
            rest = [arrays[i] for i in range(len(arrays)) if i != k]
            summed = np.einsum(f"{','.join([output, *others])}->{kept}", g, *rest,
                               optimize=True)
            if kept == term:
                return summed
            # letters only this operand has were summed away: each element got g
            aligned = summed.reshape([summed.shape[kept.index(c)] if c in present else 1
                                      for c in term])
            return np.broadcast_to(aligned, arrays[k].shape).copy()

        return vjp

    return apply("einsum", out, tensors, [gradient_for(k) for k in range(len(tensors))])


method("matmul")(matmul)


def _require(name: str, t: Tensor, ndim: int, what: str) -> None:
    """torch's RuntimeError for an operand of the wrong number of dimensions."""
    if t._array.ndim != ndim:
        raise RuntimeError(f"{name} must be a {what}, got {t._array.ndim}-D tensor")


def _check_product(op: str, a: Tensor, b: Tensor) -> None:
    if a._array.shape[-1] != b._array.shape[-2]:
        raise RuntimeError(f"{op}: mat1 and mat2 shapes cannot be multiplied "
                           f"({'x'.join(map(str, a._array.shape[-2:]))} and "
                           f"{'x'.join(map(str, b._array.shape[-2:]))})")


def _scaled_sum(input: Tensor, product: Tensor, beta: float, alpha: float) -> Tensor:
    """beta * input + alpha * product; beta = 0 ignores input (nan and inf in it too)."""
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:  # torch's rule; input still broadcasts the result's shape
        return scaled + Tensor(np.zeros(input._array.shape, scaled._array.dtype))
    return scaled + (input if beta == 1 else input * beta)


@method("addmm")
def addmm(input: ArrayLike, mat1: ArrayLike, mat2: ArrayLike, *, beta: float = 1,
          alpha: float = 1) -> Tensor:
    """beta * input + alpha * (mat1 @ mat2), input broadcast to the product's shape."""
    input, mat1, mat2 = _as_tensor(input), _as_tensor(mat1), _as_tensor(mat2)
    _require("mat1", mat1, 2, "matrix")
    _require("mat2", mat2, 2, "matrix")
    _check_product("addmm", mat1, mat2)
    return _scaled_sum(input, matmul(mat1, mat2), beta, alpha)


@method("baddbmm")
def baddbmm(input: ArrayLike, batch1: ArrayLike, batch2: ArrayLike, *, beta: float = 1,
            alpha: float = 1) -> Tensor:
    """beta * input + alpha * bmm(batch1, batch2) (attention scores with a bias)."""
    input, batch1, batch2 = _as_tensor(input), _as_tensor(batch1), _as_tensor(batch2)
    for name, t in (("batch1", batch1), ("batch2", batch2)):
        nd = t._array.ndim
        if nd < 3:  # torch's words: it reads the batches' third size first
            raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, "
                             f"{nd - 1}], but got 2) ({name} must be a 3-d tensor)")
        if nd != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha)


@method("mv")
def mv(a: ArrayLike, v: ArrayLike) -> Tensor:
    """A matrix times a vector: a 1-d tensor."""
    a, v = _as_tensor(a), _as_tensor(v)
    _require("mv: input", a, 2, "matrix")
    _require("mv: vec", v, 1, "vector")
    return matmul(a, v)


@method("kron")
def kron(a: ArrayLike, b: ArrayLike) -> Tensor:
    """The Kronecker product: out[i*p + k, j*q + l] = a[i, j] b[k, l], in any number of
    dimensions; written as a broadcast product of interleaved reshapes, so the gradient is
    the product's."""
    a, b = _as_tensor(a), _as_tensor(b)
    ndim = max(a._array.ndim, b._array.ndim)
    sa = (1,) * (ndim - a._array.ndim) + a._array.shape
    sb = (1,) * (ndim - b._array.ndim) + b._array.shape
    left = reshape(a, [n for s in sa for n in (s, 1)])
    right = reshape(b, [n for s in sb for n in (1, s)])
    return reshape(left * right, [m * n for m, n in zip(sa, sb, strict=True)])


@method("cross")
def cross(a: ArrayLike, b: ArrayLike, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along `dim` (None: the first dimension of size 3, as
    torch.cross), the operands broadcast; composed of products, so the gradient is theirs."""
    a, b = _as_tensor(a), _as_tensor(b)
    if a._array.ndim != b._array.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = np.broadcast_shapes(a._array.shape, b._array.shape)
    if dim is None:
        dim = next((d for d, n in enumerate(shape) if n == 3), -1)
    if not -len(shape) <= dim < len(shape) or shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{a._array.shape[dim] if a._array.ndim else 0} and "
                           f"{b._array.shape[dim] if b._array.ndim else 0}")
    axis = dim % len(shape)
    lead = (slice(None),) * axis
    x1, x2, x3 = (getitem(a.expand(*shape), (*lead, i)) for i in range(3))
    y1, y2, y3 = (getitem(b.expand(*shape), (*lead, i)) for i in range(3))
    return stack([x2 * y3 - x3 * y2, x3 * y1 - x1 * y3, x1 * y2 - x2 * y1], axis)


def cdist(x1: ArrayLike, x2: ArrayLike, p: float = 2.0, **_: object) -> Tensor:
    """The p-norm distance between each row of x1 (..., P, M) and each row of x2
    (..., R, M): (..., P, R); composed of differences and norms, so the gradient is theirs."""
    a, b = _as_tensor(x1), _as_tensor(x2)
    if a._array.ndim < 2 or b._array.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: "
                           f"{a._array.ndim}D")
    if a._array.shape[-1] != b._array.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{a._array.shape[-1]} X2: {b._array.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    difference = a.unsqueeze(-2) - b.unsqueeze(-3)
    return difference.norm(p=p, dim=-1)
