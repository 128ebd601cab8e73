"""A scalar Value whose __init__ sets `self.backward = lambda: None` (meant `_backward`).

Pattern (issue 20, 4): the instance attribute shadows the backward() method, so `loss.backward()`
does nothing. The old checker said `no-seed-gradient` on every probe, with no line, and
suggested a line the file already has. Behind it: `=` in mul's backward and a wrong tanh
derivative. Expected: backward-shadowed at the __init__ line, and both hidden bugs.
"""
import math


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self.backward = lambda: None
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        for node in topo:
            if node._prev:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


a = Value(2.0)
b = a * Value(-3.0) + 1.0
b.backward()
print(a.grad)
