"""A scalar engine whose gradient is read by calling `v.grad()`, after a helper class.

Pattern (issue 20, 5): the first class in the file, ScaleBackwardFn(2.0), stores a number
and has a `propagate` method; the old discovery took it for the engine: PASS, exit 0, with
nearly every probe MISSING. The real engine, Node, has the arithmetic, `backward()`, and
a `grad()` method returning the gradient. Its tanh derivative is wrong.
Expected: api grad "call:grad"; wrong-local-derivative:tanh.
"""
import math


class ScaleBackwardFn:
    def __init__(self, factor):
        self.factor = factor
        self.calls = 0

    def propagate(self, upstream):
        self.calls += 1
        return self.factor * upstream


class Node:
    def __init__(self, value, parents=()):
        self.value = value
        self._g = 0.0
        self._parents = parents
        self._backward = lambda: None

    def grad(self):
        return self._g

    def __add__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value + other.value, (self, other))

        def _backward():
            self._g += out._g
            other._g += out._g
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Node) else Node(other)
        out = Node(self.value * other.value, (self, other))

        def _backward():
            self._g += ScaleBackwardFn(other.value).propagate(out._g)
            other._g += ScaleBackwardFn(self.value).propagate(out._g)
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def tanh(self):
        t = math.tanh(self.value)
        out = Node(t, (self,))

        def _backward():
            self._g += (1 + t ** 2) * out._g
        out._backward = _backward
        return out

    def backward(self):
        order, seen = [], set()

        def visit(n):
            if n not in seen:
                seen.add(n)
                for p in n._parents:
                    visit(p)
                order.append(n)
        visit(self)
        for n in order:
            if n._parents:
                n._g = 0.0
        self._g = 1.0
        for n in reversed(order):
            n._backward()
