"""Tensor engine whose exp backward multiplies by x instead of exp(x).

Pattern (issue 12, item 8): d e^x/dx = e^x, which is out.data. The learner applied the
power rule's habit and wrote x * out.grad (`wrong-local-derivative:exp`): wrong everywhere
except where x = e^x, which never happens. Style: an engine written around a softmax
built by hand from exp, sum and a reciprocal power, recursive topological sort (the
`recursion-limit` limit).
"""
import numpy as np


class Tensor:
    def __init__(self, data, srcs=()):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.srcs = srcs
        self.back = lambda: None

    @staticmethod
    def squash(g, shape):
        while g.ndim > len(shape):
            g = g.sum(axis=0)
        for i, n in enumerate(shape):
            if n == 1 and g.shape[i] != 1:
                g = g.sum(axis=i, keepdims=True)
        return g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other))

        def back():
            self.grad += Tensor.squash(out.grad, self.data.shape)
            other.grad += Tensor.squash(out.grad, other.data.shape)
        out.back = back
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other))

        def back():
            self.grad += Tensor.squash(other.data * out.grad, self.data.shape)
            other.grad += Tensor.squash(self.data * out.grad, other.data.shape)
        out.back = back
        return out

    def __pow__(self, k):
        out = Tensor(self.data ** k, (self,))

        def back():
            self.grad += k * self.data ** (k - 1) * out.grad
        out.back = back
        return out

    def exp(self):
        out = Tensor(np.exp(self.data), (self,))

        def back():
            self.grad += self.data * out.grad
        out.back = back
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def back():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        out.back = back
        return out

    def backward(self):
        topo, visited = [], set()

        def build(t):
            if id(t) not in visited:
                visited.add(id(t))
                for s in t.srcs:
                    build(s)
                topo.append(t)
        build(self)
        for t in topo:
            if t.srcs:
                t.grad = np.zeros_like(t.data)
        self.grad = np.ones_like(self.data)
        for t in reversed(topo):
            t.back()


if __name__ == "__main__":
    z = Tensor([[1.0, 2.0, 3.0]])
    e = z.exp()
    p = e * e.sum(axis=1, keepdims=True) ** -1
    (p * Tensor([[1.0, 0.0, 0.0]])).sum().backward()
    print(p.data, z.grad)
