"""__add__ is there, __radd__ is not: `2 + a` raises TypeError.

Pattern (issue 12, item 6): the old checker reported "MISSING add" for an engine that has
__add__. The report must say `missing-radd` (the reflected form), point at __add__ where
`__radd__ = __add__` belongs, and never call add missing. sum() of Values, which starts
from 0, fails for the same reason. The rest is right (__rmul__ is there, iterative sort,
intermediate grads reset, math.tanh).
"""
import math


class Scalar:
    def __init__(self, data, parents=(), name=""):
        self.data = data
        self.grad = 0.0
        self.parents = parents
        self.name = name
        self.grad_fn = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        out = Scalar(self.data + other.data, (self, other), "add")

        def grad_fn():
            self.grad += out.grad
            other.grad += out.grad
        out.grad_fn = grad_fn
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Scalar) else Scalar(other)
        out = Scalar(self.data * other.data, (self, other), "mul")

        def grad_fn():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out.grad_fn = grad_fn
        return out

    def __rmul__(self, other):
        return self * other

    def __pow__(self, k):
        out = Scalar(self.data ** k, (self,), "pow")

        def grad_fn():
            self.grad += k * self.data ** (k - 1) * out.grad
        out.grad_fn = grad_fn
        return out

    def __neg__(self):
        return -1 * self

    def __sub__(self, other):
        return self + (-1 * other)

    def __rsub__(self, other):
        return (-self) + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return (self ** -1) * other

    def tanh(self):
        t = math.tanh(self.data)
        out = Scalar(t, (self,), "tanh")

        def grad_fn():
            self.grad += (1 - t * t) * out.grad
        out.grad_fn = grad_fn
        return out

    def backward(self):
        order, visited, stack = [], set(), [self]
        while stack:
            node = stack[-1]
            if node not in visited:
                visited.add(node)
                stack.extend(p for p in node.parents if p not in visited)
            else:
                stack.pop()
                if node not in order:
                    order.append(node)
        for node in order:
            if node.parents:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(order):
            node.grad_fn()


if __name__ == "__main__":
    a, b = Scalar(1.0), Scalar(2.0)
    c = (a * b + b).tanh() - 1
    c.backward()
    print(c.data, a.grad, b.grad)   # 2 + a would raise TypeError
