"""A numpy Tensor engine in the Function-class style, without __mul__.

Pattern (issue 20, 3): the old checker weighted every probe with its own `*`, so a missing
__mul__ produced FAILs whose diagnoses came from the checker's scaffolding. Each op is a
class with forward/backward, the Tensor records the Function that made it. Everything it
has is right. Expected: pass (mul is MISSING).
"""
import numpy as np


class Function:
    def __init__(self, *parents):
        self.parents = parents

    @classmethod
    def apply(cls, *parents, **kwargs):
        fn = cls(*parents)
        out = Tensor(fn.forward(*[p.data for p in parents], **kwargs))
        out.creator = fn
        return out


def sum_to_shape(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


class Add(Function):
    def forward(self, a, b):
        self.shapes = (a.shape, b.shape)
        return a + b

    def backward(self, grad):
        return sum_to_shape(grad, self.shapes[0]), sum_to_shape(grad, self.shapes[1])


class MatMul(Function):
    def forward(self, a, b):
        self.a, self.b = a, b
        return a @ b

    def backward(self, grad):
        return grad @ self.b.T, self.a.T @ grad


class Sum(Function):
    def forward(self, a, axis=None, keepdims=False):
        self.shape, self.axis, self.keepdims = a.shape, axis, keepdims
        return np.sum(a, axis=axis, keepdims=keepdims)

    def backward(self, grad):
        if self.axis is not None and not self.keepdims:
            grad = np.expand_dims(grad, self.axis)
        return (np.broadcast_to(grad, self.shape).copy(),)


class Exp(Function):
    def forward(self, a):
        self.out = np.exp(a)
        return self.out

    def backward(self, grad):
        return (grad * self.out,)


class Tensor:
    def __init__(self, data):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = None
        self.creator = None

    def __add__(self, other):
        return Add.apply(self, other)

    def __matmul__(self, other):
        return MatMul.apply(self, other)

    def sum(self, axis=None, keepdims=False):
        return Sum.apply(self, axis=axis, keepdims=keepdims)

    def exp(self):
        return Exp.apply(self)

    def backward(self):
        order, seen = [], set()

        def visit(t):
            if id(t) in seen:
                return
            seen.add(id(t))
            if t.creator is not None:
                for p in t.creator.parents:
                    visit(p)
            order.append(t)
        visit(self)
        for t in order:
            if t.creator is not None:
                t.grad = None
        self.grad = np.ones_like(self.data)
        for t in reversed(order):
            if t.creator is None:
                continue
            for parent, g in zip(t.creator.parents, t.creator.backward(t.grad)):
                parent.grad = g if parent.grad is None else parent.grad + g


if __name__ == "__main__":
    x = Tensor([[1.0, 2.0]])
    w = Tensor([[3.0], [4.0]])
    loss = (x @ w).exp().sum()
    loss.backward()
    print(loss.data, x.grad, w.grad)
