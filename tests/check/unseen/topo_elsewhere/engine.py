"""A scalar Value whose backward() uses a topological sort from another file.

Pattern (issue 20, 9): graph_order.build_order has no visited set, so a node reached along
two paths runs its _backward twice. The old report had no line because the sort is not in
the checked file. Expected: node-visited-twice at graph_order.py's `order.append(node)`.
"""
from graph_order import build_order


class Value:
    def __init__(self, data, _children=()):
        self.data = data
        self.grad = 0.0
        self._prev = tuple(_children)
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        order = build_order(self)
        for v in order:
            if v._prev:
                v.grad = 0.0
        self.grad = 1.0
        for v in reversed(order):
            v._backward()
