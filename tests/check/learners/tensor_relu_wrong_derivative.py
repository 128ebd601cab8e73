"""Tensor engine whose relu backward tests the sign of the gradient, not of the input.

Pattern (issue 12, item 8): relu's derivative is 1 where the *input* was positive. Here
the mask is `out.grad > 0`, so a positive input with a negative upstream gradient gets 0,
and a negative input with a positive upstream gradient lets it through
(`wrong-local-derivative:relu`). With an all-ones upstream gradient (loss = relu(x).sum())
nothing shows: the checker has to probe with mixed-sign upstream gradients.
Style: ops as methods on a class with `_prev` sets, lecture-like, iterative sort.
"""
import numpy as np


class Tensor:
    def __init__(self, data, _children=(), _op=''):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    @staticmethod
    def _unbroadcast(g, shape):
        extra = g.ndim - len(shape)
        if extra > 0:
            g = g.sum(axis=tuple(range(extra)))
        for i, n in enumerate(shape):
            if n == 1 and g.shape[i] > 1:
                g = g.sum(axis=i, keepdims=True)
        return g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += Tensor._unbroadcast(out.grad, self.data.shape)
            other.grad += Tensor._unbroadcast(out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += Tensor._unbroadcast(other.data * out.grad, self.data.shape)
            other.grad += Tensor._unbroadcast(self.data * out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other), '@')

        def _backward():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(np.maximum(0, self.data), (self,), 'relu')

        def _backward():
            self.grad += (out.grad > 0) * out.grad
        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), 'sum')

        def _backward():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self.grad += np.ones_like(self.data) * g
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            v, ready = stack.pop()
            if ready:
                topo.append(v)
                continue
            if v in visited:
                continue
            visited.add(v)
            stack.append((v, True))
            stack.extend((c, False) for c in v._prev if c not in visited)
        for v in topo:
            if v._prev:
                v.grad = np.zeros_like(v.data)
        self.grad = np.ones_like(self.data)
        for v in reversed(topo):
            v._backward()


if __name__ == "__main__":
    x = Tensor([-1.0, 2.0])
    (x.relu() * Tensor([3.0, -1.0])).sum().backward()
    print(x.grad)   # should be [0, -1], is [3, 0]
