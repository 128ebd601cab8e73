"""Tensor engine whose cross-entropy takes log of the softmax probability.

Pattern (issue 12, item 8): `cross-entropy-unstable`. The softmax itself is stable (max
subtracted), but a probability below ~1e-308 underflows to 0.0 and log(0) = -inf, so a
confidently wrong prediction (logits [0, -800, 5] with target 1) gives an infinite loss
instead of about 805. The stable form is logsumexp(z) - z[target]. The backward,
(softmax - onehot) / N, is right. Style: a learner who wrote the loss as a function
`cross_entropy(logits, targets)` and attached it to the class as a method.
"""
import numpy as np


class Tensor:
    def __init__(self, data, _children=()):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._children = _children
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other))

        def _backward():
            for t in (self, other):
                g = out.grad
                while g.ndim > t.data.ndim:
                    g = g.sum(axis=0)
                for ax, n in enumerate(t.data.shape):
                    if n == 1 and g.shape[ax] != 1:
                        g = g.sum(axis=ax, keepdims=True)
                t.grad += g
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other))

        def _backward():
            for t, f in ((self, other.data), (other, self.data)):
                g = out.grad * f
                while g.ndim > t.data.ndim:
                    g = g.sum(axis=0)
                for ax, n in enumerate(t.data.shape):
                    if n == 1 and g.shape[ax] != 1:
                        g = g.sum(axis=ax, keepdims=True)
                t.grad += g
        out._backward = _backward
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other))

        def _backward():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out._backward = _backward
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def _backward():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        out._backward = _backward
        return out

    def backward(self):
        topo, seen, stack = [], set(), [(self, False)]
        while stack:
            t, post = stack.pop()
            if post:
                topo.append(t)
            elif id(t) not in seen:
                seen.add(id(t))
                stack.append((t, True))
                stack.extend((c, False) for c in t._children if id(c) not in seen)
        for t in topo:
            if t._children:
                t.grad = np.zeros_like(t.data)
        self.grad = np.ones_like(self.data)
        for t in reversed(topo):
            t._backward()


def cross_entropy(logits, targets):
    """Mean negative log-probability of the integer targets; logits has shape (N, C)."""
    targets = np.asarray(targets)
    rows = np.arange(len(targets))
    e = np.exp(logits.data - logits.data.max(axis=1, keepdims=True))
    probs = e / e.sum(axis=1, keepdims=True)
    out = Tensor(-np.log(probs[rows, targets]).mean(), (logits,))

    def _backward():
        g = probs.copy()
        g[rows, targets] -= 1.0
        logits.grad += g / len(rows) * out.grad
    out._backward = _backward
    return out


Tensor.cross_entropy = cross_entropy


if __name__ == "__main__":
    z = Tensor([[2.0, 0.5, -1.0], [0.0, 3.0, 0.2]])
    loss = z.cross_entropy([0, 1])
    loss.backward()
    print(loss.data, z.grad)   # fine; [[0.0, -800.0, 5.0]] with target 1 gives inf
