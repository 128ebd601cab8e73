"""Tensor engine whose matmul backward multiplies by W instead of W transposed.

Pattern (issue 12, item 8): `matmul-grad-not-transposed`. For out = a @ b the gradients
are dL/da = dL/dout @ b.T and dL/db = a.T @ dL/dout. Here a's gradient uses b itself:
with rectangular shapes numpy raises (shapes not aligned), with square ones the result is
silently wrong. b's gradient is right. Style: closures, `_ctx` tuple, an explicit-stack
topological sort.
"""
import numpy as np


class Tensor:
    def __init__(self, data, _ctx=()):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._ctx = _ctx
        self._backward = lambda: None

    @staticmethod
    def _reduce(g, shape):
        while g.ndim > len(shape):
            g = g.sum(0)
        for i, n in enumerate(shape):
            if n == 1:
                g = g.sum(i, keepdims=True)
        return g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other))

        def _backward():
            self.grad += Tensor._reduce(out.grad, self.data.shape)
            other.grad += Tensor._reduce(out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other))

        def _backward():
            self.grad += Tensor._reduce(other.data * out.grad, self.data.shape)
            other.grad += Tensor._reduce(self.data * out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other))

        def _backward():
            self.grad += out.grad @ other.data
            other.grad += self.data.T @ out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(np.where(self.data > 0, self.data, 0.0), (self,))

        def _backward():
            self.grad += np.where(self.data > 0, out.grad, 0.0)
        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(np.sum(self.data, axis=axis, keepdims=keepdims), (self,))

        def _backward():
            g = out.grad if keepdims or axis is None else np.expand_dims(out.grad, axis)
            self.grad += g * np.ones_like(self.data)
        out._backward = _backward
        return out

    def backward(self):
        topo, done = [], set()
        stack = [self]
        while stack:
            t = stack[-1]
            pending = [c for c in t._ctx if id(c) not in done]
            if pending:
                stack.append(pending[0])
            else:
                stack.pop()
                if id(t) not in done:
                    done.add(id(t))
                    topo.append(t)
        for t in topo:
            if t._ctx:
                t.grad = np.zeros_like(t.data)
        self.grad = np.ones_like(self.data)
        for t in reversed(topo):
            t._backward()


if __name__ == "__main__":
    x = Tensor(np.eye(3))
    w = Tensor(np.arange(9.0).reshape(3, 3))
    (x @ w).relu().sum().backward()
    print(x.grad)   # should be rows of w summed over columns, is w's columns summed
