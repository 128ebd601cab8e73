"""Tensor engine whose tanh backward uses the input where the output belongs.

Pattern (issue 12, item 8): d tanh(x)/dx = 1 - tanh(x)^2, i.e. 1 - out^2. The learner
wrote 1 - x^2 (`wrong-local-derivative:tanh`): right only at x = 0, negative for |x| > 1.
Style: a two-layer-MLP learner's engine with `parents`, `name` labels and a grad_fn per
node, explicit-stack topological sort.
"""
import numpy as np


class Tensor:
    def __init__(self, data, parents=(), name=""):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros(self.data.shape)
        self.parents = parents
        self.name = name
        self.grad_fn = None

    @staticmethod
    def _to_shape(g, shape):
        while g.ndim > len(shape):
            g = g.sum(axis=0)
        return g.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1),
                     keepdims=True) if 1 in shape else g

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other), "add")

        def grad_fn():
            self.grad += Tensor._to_shape(out.grad, self.data.shape)
            other.grad += Tensor._to_shape(out.grad, other.data.shape)
        out.grad_fn = grad_fn
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other), "mul")

        def grad_fn():
            self.grad += Tensor._to_shape(other.data * out.grad, self.data.shape)
            other.grad += Tensor._to_shape(self.data * out.grad, other.data.shape)
        out.grad_fn = grad_fn
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other), "matmul")

        def grad_fn():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out.grad_fn = grad_fn
        return out

    def tanh(self):
        out = Tensor(np.tanh(self.data), (self,), "tanh")

        def grad_fn():
            self.grad += (1 - self.data ** 2) * out.grad
        out.grad_fn = grad_fn
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")

        def grad_fn():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        out.grad_fn = grad_fn
        return out

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            t, expanded = stack.pop()
            if expanded:
                order.append(t)
            elif id(t) not in seen:
                seen.add(id(t))
                stack += [(t, True)] + [(p, False) for p in t.parents if id(p) not in seen]
        for t in order:
            if t.parents:
                t.grad = np.zeros(t.data.shape)
        self.grad = np.ones(self.data.shape)
        for t in reversed(order):
            if t.grad_fn:
                t.grad_fn()


if __name__ == "__main__":
    x = Tensor([[0.5, -2.0]], name="x")
    w1 = Tensor([[1.0], [0.5]], name="w1")
    (x @ w1).tanh().sum().backward()
    print(w1.grad)   # uses 1 - (x @ w1)^2 instead of 1 - tanh(x @ w1)^2
