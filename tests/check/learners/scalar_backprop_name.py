"""Backward entry named backprop(): the checker must find it instead of skipping the engine.

Pattern (issue 12, item 2 and "5 of 25 engines went effectively unchecked"): the learner
named the backward method `backprop`. Otherwise this is the lecture's design (recursive
topological sort, no zeroing of intermediate gradients) with math.tanh, so the expected
report names only the two lecture limits, and says that it used `backprop`.
"""
import math


class Value:
    """scalar value + gradient"""

    def __init__(self, data, prev=(), op=""):
        self.data = data
        self.grad = 0
        self.prev = set(prev)
        self.op = op
        self._backward = lambda: None

    def __repr__(self):
        return "Value(%s, grad=%s)" % (self.data, self.grad)

    def __add__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        res = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += res.grad
            other.grad += res.grad
        res._backward = _backward
        return res

    def __mul__(self, other):
        if not isinstance(other, Value):
            other = Value(other)
        res = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * res.grad
            other.grad += self.data * res.grad
        res._backward = _backward
        return res

    def __pow__(self, n):
        res = Value(self.data ** n, (self,), "pow")

        def _backward():
            self.grad += n * self.data ** (n - 1) * res.grad
        res._backward = _backward
        return res

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return self ** -1 * other

    def tanh(self):
        t = math.tanh(self.data)
        res = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t * t) * res.grad
        res._backward = _backward
        return res

    def exp(self):
        res = Value(math.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += res.data * res.grad
        res._backward = _backward
        return res

    def backprop(self):
        nodes = []
        seen = set()

        def visit(n):
            if n in seen:
                return
            seen.add(n)
            for p in n.prev:
                visit(p)
            nodes.append(n)

        visit(self)
        self.grad = 1
        for n in nodes[::-1]:
            n._backward()


if __name__ == "__main__":
    x = Value(0.5)
    y = (x * x + 3 * x).tanh()
    y.backprop()
    print(y, x.grad)
