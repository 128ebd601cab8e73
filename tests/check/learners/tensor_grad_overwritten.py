"""Tensor engine whose * backward assigns the first input's gradient instead of adding.

Pattern (issue 12, item 8): `tensor-grad-overwritten`. `self.grad = ...` in __mul__'s
backward throws away whatever reached self before: any tensor used twice, such as x in
x * w + x or the input of a residual block, loses one of its contributions. __add__ and
the other ops accumulate with +=. Style: each node keeps its local gradient step in
`backward_step`, and the engine walks a recursive topological order (the `recursion-limit`
limit).
"""
import numpy as np


def fit_shape(g, shape):
    g = np.asarray(g)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return g


class Tensor:
    def __init__(self, data, inputs=()):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros(self.data.shape)
        self.inputs = inputs
        self.backward_step = None

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other))

        def step():
            self.grad += fit_shape(out.grad, self.data.shape)
            other.grad += fit_shape(out.grad, other.data.shape)
        out.backward_step = step
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other))

        def step():
            self.grad = fit_shape(other.data * out.grad, self.data.shape)
            other.grad += fit_shape(self.data * out.grad, other.data.shape)
        out.backward_step = step
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other))

        def step():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out.backward_step = step
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def step():
            g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        out.backward_step = step
        return out

    def tanh(self):
        out = Tensor(np.tanh(self.data), (self,))

        def step():
            self.grad += (1 - out.data ** 2) * out.grad
        out.backward_step = step
        return out

    def backward(self):
        order, seen = [], set()

        def walk(t):
            if id(t) not in seen:
                seen.add(id(t))
                for i in t.inputs:
                    walk(i)
                order.append(t)
        walk(self)
        for t in order:
            if t.inputs:
                t.grad = np.zeros(t.data.shape)
        self.grad = np.ones(self.data.shape)
        for t in reversed(order):
            if t.backward_step:
                t.backward_step()


if __name__ == "__main__":
    x = Tensor([1.0, 2.0])
    w = Tensor([3.0, 4.0])
    (x * w + x).sum().backward()
    print(x.grad)   # should be w + 1 = [4, 5], is [3, 4]
