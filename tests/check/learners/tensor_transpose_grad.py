"""Tensor engine whose .T backward hands the gradient back untransposed.

Pattern (issue 12, item 8): `transpose-grad`. out = x.T has shape (n, m) for x of shape
(m, n); its gradient must be transposed back. Here it is added as it is: numpy raises for
rectangular x, and for square x the gradient is silently the transpose of the right one
(as in x.T @ W). Style: graph kept in `_inputs`, ops registered with a small helper, an
explicit-stack sort.
"""
import numpy as np


class Tensor:
    def __init__(self, data):
        self.data = np.asarray(data, dtype=float)
        self.grad = np.zeros(self.data.shape)
        self._inputs = ()
        self._backward = None

    @classmethod
    def _node(cls, data, inputs, backward):
        out = cls(data)
        out._inputs = inputs
        out._backward = lambda: backward(out.grad)
        return out

    @staticmethod
    def _shrink(g, shape):
        while g.ndim > len(shape):
            g = g.sum(axis=0)
        for i, n in enumerate(shape):
            if n == 1 and g.shape[i] != 1:
                g = g.sum(axis=i, keepdims=True)
        return g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)

        def backward(g):
            self.grad += Tensor._shrink(g, self.data.shape)
            other.grad += Tensor._shrink(g, other.data.shape)
        return Tensor._node(self.data + other.data, (self, other), backward)

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)

        def backward(g):
            self.grad += Tensor._shrink(g * other.data, self.data.shape)
            other.grad += Tensor._shrink(g * self.data, other.data.shape)
        return Tensor._node(self.data * other.data, (self, other), backward)

    def __matmul__(self, other):
        def backward(g):
            self.grad += g @ other.data.T
            other.grad += self.data.T @ g
        return Tensor._node(self.data @ other.data, (self, other), backward)

    @property
    def T(self):
        def backward(g):
            self.grad += g
        return Tensor._node(self.data.T, (self,), backward)

    def sum(self, axis=None, keepdims=False):
        def backward(g):
            if axis is not None and not keepdims:
                g = np.expand_dims(g, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        return Tensor._node(self.data.sum(axis=axis, keepdims=keepdims), (self,), backward)

    def backward(self):
        order, state = [], {}
        stack = [self]
        while stack:
            t = stack.pop()
            if state.get(id(t)) == "open":
                state[id(t)] = "done"
                order.append(t)
            elif id(t) not in state:
                state[id(t)] = "open"
                stack.append(t)
                stack.extend(i for i in t._inputs if id(i) not in state)
        for t in order:
            if t._inputs:
                t.grad = np.zeros(t.data.shape)
        self.grad = np.ones(self.data.shape)
        for t in reversed(order):
            if t._backward is not None:
                t._backward()


if __name__ == "__main__":
    x = Tensor([[1.0, 2.0], [3.0, 4.0]])
    w = Tensor([[1.0, 0.0], [0.0, 0.0]])
    (x.T @ w).sum().backward()
    print(x.grad)   # should be [[1, 1], [0, 0]], is [[1, 0], [1, 0]]
