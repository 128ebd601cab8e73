"""Tensor engine whose + does not sum a broadcast gradient back to the input's shape.

Pattern (issue 12, item 8): `missing-unbroadcast`. x @ W + b with b of shape (out,) is
broadcast over the batch in the forward pass, but the backward hands b the full (batch,
out) gradient, and numpy refuses to add it into b.grad of shape (out,) (ValueError:
non-broadcastable output operand). The fault is in Add.backward; Mul sums back correctly.
Style: each op is a small class with forward/backward, as in PyTorch's autograd.Function;
the topological sort is the lecture's recursive one (the `recursion-limit` limit).
"""
import numpy as np


def _sum_to(grad, shape):
    axes = tuple(range(grad.ndim - len(shape)))
    grad = grad.sum(axis=axes)
    keep = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=keep, keepdims=True) if keep else grad


class Add:
    @staticmethod
    def forward(a, b):
        return a + b

    @staticmethod
    def backward(grad, a, b):
        return grad, grad


class Mul:
    @staticmethod
    def forward(a, b):
        return a * b

    @staticmethod
    def backward(grad, a, b):
        return _sum_to(grad * b, a.shape), _sum_to(grad * a, b.shape)


class MatMul:
    @staticmethod
    def forward(a, b):
        return a @ b

    @staticmethod
    def backward(grad, a, b):
        return grad @ b.T, a.T @ grad


class Tensor:
    def __init__(self, data, parents=(), fn=None):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros(self.data.shape)
        self.parents = parents
        self.fn = fn

    def _apply(self, fn, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        return Tensor(fn.forward(self.data, other.data), (self, other), fn)

    def __add__(self, other):
        return self._apply(Add, other)

    def __mul__(self, other):
        return self._apply(Mul, other)

    def __matmul__(self, other):
        return self._apply(MatMul, other)

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")
        out.axis, out.keepdims = axis, keepdims
        return out

    def _grads(self):
        if self.fn == "sum":
            g = self.grad
            if self.axis is not None and not self.keepdims:
                g = np.expand_dims(g, self.axis)
            return (np.broadcast_to(g, self.parents[0].data.shape),)
        return self.fn.backward(self.grad, *(p.data for p in self.parents))

    def backward(self):
        order, seen = [], set()

        def visit(t):
            if id(t) not in seen:
                seen.add(id(t))
                for p in t.parents:
                    visit(p)
                order.append(t)
        visit(self)
        for t in order:
            if t.parents:  # leaves keep accumulating, as in PyTorch
                t.grad = np.zeros(t.data.shape)
        self.grad = np.ones(self.data.shape)
        for t in reversed(order):
            if t.parents:
                for parent, g in zip(t.parents, t._grads()):
                    parent.grad += g


if __name__ == "__main__":
    x = Tensor(np.ones((4, 3)))
    W = Tensor(np.full((3, 2), 0.5))
    loss = (x @ W).sum()
    loss.backward()
    print(W.grad)   # right; (x @ W + b).sum() with b of shape (2,) raises in backward
