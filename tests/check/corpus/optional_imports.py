"""Corpus file: a correct tiny engine whose notebook also imports plotting/notebook modules.

seaborn is not installed in the test environment: `import seaborn` is a WARN with
Python's own ModuleNotFoundError, and the rest of the file runs (the engine does not need it).
"""
import math

import seaborn as sns
from IPython.display import display

sns.set_theme()
print("building the engine")


class Value:
    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __rmul__(self, other):
        return self * other

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t * t) * out.grad

        out._backward = _backward
        return out

    def backward(self):
        topo, seen = [], set()
        stack = [(self, iter(self._prev))]
        seen.add(self)
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                topo.append(node)
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(child._prev)))
        for node in topo:
            if node._prev:
                node.grad = 0.0  # a second backward() on this graph starts inner nodes clean
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


display(Value(2.0).data)
