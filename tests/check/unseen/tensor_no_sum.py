"""A numpy Tensor engine with no .sum(): the learner's network ends in a 1-element output.

Pattern (issue 20, 1): every tensor probe of the old checker ended in `.sum()`, so add,
matmul and .T were FAILed although they are right. Closures style; backward() seeds the
root's gradient with ones of its shape. Expected: pass (sum and mean are MISSING).
"""
import numpy as np


def reduce_to(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


class Tensor:
    def __init__(self, data, children=()):
        self.data = np.array(data, dtype=float)
        self.grad = np.zeros_like(self.data)
        self._back = lambda: None
        self._children = children

    def __add__(self, other):
        out = Tensor(self.data + other.data, (self, other))

        def back():
            self.grad += reduce_to(out.grad, self.data.shape)
            other.grad += reduce_to(out.grad, other.data.shape)
        out._back = back
        return out

    def __mul__(self, other):
        out = Tensor(self.data * other.data, (self, other))

        def back():
            self.grad += reduce_to(other.data * out.grad, self.data.shape)
            other.grad += reduce_to(self.data * out.grad, other.data.shape)
        out._back = back
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other))

        def back():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out._back = back
        return out

    @property
    def T(self):
        out = Tensor(self.data.T, (self,))

        def back():
            self.grad += out.grad.T
        out._back = back
        return out

    def relu(self):
        out = Tensor(np.maximum(self.data, 0.0), (self,))

        def back():
            self.grad += (self.data > 0) * out.grad
        out._back = back
        return out

    def backward(self):
        order, seen = [], set()

        def visit(node):
            if id(node) not in seen:
                seen.add(id(node))
                for child in node._children:
                    visit(child)
                order.append(node)
        visit(self)
        for node in order:
            if node._children:
                node.grad = np.zeros_like(node.data)
        self.grad = np.ones_like(self.data)
        for node in reversed(order):
            node._back()


if __name__ == "__main__":
    x = Tensor([[1.0, -2.0]])
    w = Tensor([[0.5], [0.25]])
    y = (x @ w).relu()
    y.backward()
    print(y.data, x.grad, w.grad)
