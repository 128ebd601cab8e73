"""Tensor engine whose softmax exponentiates the raw logits, with no max subtracted.

Pattern (issue 12, item 8): `softmax-unstable`. exp(1000) is inf in float64, so a row of
large logits gives inf / inf = nan, although softmax is unchanged by subtracting the row's
max and then cannot overflow. The backward, s * (g - sum(g * s)), is right: only the
forward is unstable. Style: a compact engine with a `_parents` list and one generic
`_make` for unary ops; an explicit-stack topological sort.
"""
import numpy as np


def _collapse(g, shape):
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


class Tensor:
    def __init__(self, data, parents=()):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._parents = list(parents)
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, [self, other])

        def _backward():
            self.grad += _collapse(out.grad, self.data.shape)
            other.grad += _collapse(out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, [self, other])

        def _backward():
            self.grad += _collapse(other.data * out.grad, self.data.shape)
            other.grad += _collapse(self.data * out.grad, other.data.shape)
        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), [self])

        def _backward():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        out._backward = _backward
        return out

    def softmax(self, axis=-1):
        e = np.exp(self.data)
        out = Tensor(e / e.sum(axis=axis, keepdims=True), [self])

        def _backward():
            s = out.data
            self.grad += s * (out.grad - (out.grad * s).sum(axis=axis, keepdims=True))
        out._backward = _backward
        return out

    def log(self):
        out = Tensor(np.log(self.data), [self])

        def _backward():
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def backward(self):
        topo, visited, stack = [], set(), [(self, 0)]
        while stack:
            t, i = stack.pop()
            if i == 0 and id(t) in visited:
                continue
            visited.add(id(t))
            if i < len(t._parents):
                stack.append((t, i + 1))
                if id(t._parents[i]) not in visited:
                    stack.append((t._parents[i], 0))
            else:
                topo.append(t)
        for t in topo:
            if t._parents:
                t.grad = np.zeros_like(t.data)
        self.grad = np.ones_like(self.data)
        for t in reversed(topo):
            t._backward()


if __name__ == "__main__":
    logits = Tensor([[2.0, 1.0, 0.1]])
    probs = logits.softmax()
    (probs * Tensor([[1.0, 0.0, 0.0]])).sum().backward()
    print(probs.data, logits.grad)   # fine here; [[1000.0, 1001.0]] gives nan
