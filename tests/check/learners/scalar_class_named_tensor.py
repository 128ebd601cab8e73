"""A scalar engine whose class is called Tensor.

Pattern (issue 12, "5 of 25 engines went effectively unchecked"): the learner called the
class `Tensor` though it holds one float, as PyTorch's name for the thing. The checker
must see a scalar engine here (data is a float, not an array) and check it as one.
The topological sort is iterative, so there is no recursion limit; intermediate gradients
are not reset, the one lecture limit named.
"""
import math


class Tensor:
    def __init__(self, data, _children=(), _op=""):
        self.data = float(data)
        self.grad = 0.0
        self._prev = tuple(_children)
        self._op = _op
        self._backward = lambda: None

    def __repr__(self):
        return f"tensor({self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other), "add")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other), "mul")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, e):
        out = Tensor(self.data ** e, (self,), "pow")

        def _backward():
            self.grad += e * self.data ** (e - 1) * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return -1 * self

    def __sub__(self, other):
        return self + -1 * other

    def __rsub__(self, other):
        return -1 * self + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def relu(self):
        out = Tensor(self.data * (self.data > 0), (self,), "relu")

        def _backward():
            self.grad += (self.data > 0) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = Tensor(math.tanh(self.data), (self,), "tanh")

        def _backward():
            self.grad += (1.0 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        order, visited = [], set()
        stack = [iter([self])]
        path = []
        while stack:
            node = next(stack[-1], None)
            if node is None:
                stack.pop()
                if path:
                    order.append(path.pop())
                continue
            if node in visited:
                continue
            visited.add(node)
            path.append(node)
            stack.append(iter(node._prev))
        self.grad = 1.0
        for node in reversed(order):
            node._backward()


if __name__ == "__main__":
    w = Tensor(-0.7)
    x = Tensor(2.0)
    y = (w * x + 1).relu() + (w * x).tanh()
    y.backward()
    print(y, w.grad, x.grad)
