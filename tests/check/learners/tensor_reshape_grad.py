"""Tensor engine whose reshape passes the gradient back without reshaping it.

Pattern (issue 12, item 8): `reshape-grad-not-reshaped`. x.reshape(3, 4) of a (2, 6)
input sends back out.grad of shape (3, 4); adding that into x.grad of shape (2, 6) fails
(ValueError); only a reshape that drops a leading 1 gets through, by broadcasting luck.
The fix is out.grad.reshape(self.data.shape). Style: a flatten-heavy MLP learner's engine with
`children`, `op` strings and a recursive topological sort (the `recursion-limit` limit).
"""
import numpy as np


class Tensor:
    def __init__(self, data, children=(), op=""):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.children = children
        self.op = op
        self._backward = lambda: None

    def __repr__(self):
        return f"Tensor({self.data.shape}, op={self.op})"

    @staticmethod
    def _fit(g, shape):
        g = g.sum(axis=tuple(range(g.ndim - len(shape)))) if g.ndim > len(shape) else g
        axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
        return g.sum(axis=axes, keepdims=True) if axes else g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other), "add")

        def _backward():
            self.grad += Tensor._fit(out.grad, self.data.shape)
            other.grad += Tensor._fit(out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other), "mul")

        def _backward():
            self.grad += Tensor._fit(other.data * out.grad, self.data.shape)
            other.grad += Tensor._fit(self.data * out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other), "matmul")

        def _backward():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out._backward = _backward
        return out

    def reshape(self, *shape):
        out = Tensor(self.data.reshape(shape), (self,), "reshape")

        def _backward():
            self.grad += out.grad
        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")

        def _backward():
            g = out.grad
            if axis is not None and not keepdims:
                g = np.expand_dims(g, axis)
            self.grad += g + np.zeros_like(self.data)
        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(self.data * (self.data > 0), (self,), "relu")

        def _backward():
            self.grad += (self.data > 0) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build_topo(t):
            if t not in visited:
                visited.add(t)
                for child in t.children:
                    build_topo(child)
                topo.append(t)
        build_topo(self)
        for t in topo:
            if t.children:
                t.grad = np.zeros_like(t.data)
        self.grad = np.ones_like(self.data)
        for t in reversed(topo):
            t._backward()


if __name__ == "__main__":
    images = Tensor(np.ones((2, 2, 2)))
    w = Tensor(np.full((4, 1), 0.5))
    (images.reshape(2, 4) @ w).relu().sum()   # the forward is fine; backward() raises
    print("forward ok")
