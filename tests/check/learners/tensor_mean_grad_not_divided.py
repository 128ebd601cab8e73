"""Tensor engine whose mean backward forgets to divide by the number of elements averaged.

Pattern (issue 12, item 8): `mean-grad-not-divided`. The forward is np.mean, the backward
spreads out.grad over the input like sum does, so every gradient through a mean is n times
too large (n = 12 for a 3x4 mean, 3 or 4 along one axis). A loss written as a mean over the
batch then trains with a learning rate n times too big. Style: a `Value`-like class named
Tensor with the grad initialised lazily to None and a recursive topological sort (the
`recursion-limit` limit).
"""
import numpy as np


class Tensor:
    def __init__(self, data, prev=()):
        self.data = np.asarray(data, dtype=float)
        self.grad = None
        self.prev = prev
        self.backward_fn = None

    def _acc(self, g):
        self.grad = g.copy() if self.grad is None else self.grad + g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other))

        def fn():
            for t in (self, other):
                g = out.grad
                while g.ndim > t.data.ndim:
                    g = g.sum(0)
                for i, n in enumerate(t.data.shape):
                    if n == 1 and g.shape[i] != 1:
                        g = g.sum(i, keepdims=True)
                t._acc(g)
        out.backward_fn = fn
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other))

        def fn():
            for t, s in ((self, other.data), (other, self.data)):
                g = out.grad * s
                while g.ndim > t.data.ndim:
                    g = g.sum(0)
                for i, n in enumerate(t.data.shape):
                    if n == 1 and g.shape[i] != 1:
                        g = g.sum(i, keepdims=True)
                t._acc(g)
        out.backward_fn = fn
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def fn():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self._acc(np.broadcast_to(g, self.data.shape))
        out.backward_fn = fn
        return out

    def mean(self, axis=None, keepdims=False):
        out = Tensor(self.data.mean(axis=axis, keepdims=keepdims), (self,))

        def fn():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self._acc(np.broadcast_to(g, self.data.shape))
        out.backward_fn = fn
        return out

    def tanh(self):
        out = Tensor(np.tanh(self.data), (self,))

        def fn():
            self._acc((1 - out.data ** 2) * out.grad)
        out.backward_fn = fn
        return out

    def backward(self):
        topo, seen = [], set()

        def build(t):
            if id(t) in seen:
                return
            seen.add(id(t))
            for p in t.prev:
                build(p)
            topo.append(t)
        build(self)
        for t in topo:
            if t.prev:
                t.grad = None
        self.grad = np.ones_like(self.data)
        for t in reversed(topo):
            if t.backward_fn is not None and t.grad is not None:
                t.backward_fn()


if __name__ == "__main__":
    x = Tensor([[1.0, 2.0], [3.0, 4.0]])
    x.mean().backward()
    print(x.grad)   # should be 0.25 everywhere, is 1.0
