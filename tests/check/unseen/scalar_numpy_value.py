"""A scalar Value that keeps its number in a 0-d numpy array, with a broken negation.

Pattern (issue 20, 7): because `.data` is an ndarray the old checker ran the Tensor probes
only, and its broken `-a` (and `a - b`, which goes through it) were never probed.
`__neg__`'s backward forgets the minus sign. Expected: wrong-local-derivative:neg only
(`a - b` follows from it: __sub__ calls -other).
"""
import numpy as np


class Value:
    def __init__(self, data, _children=()):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.array(0.0)
        self._prev = _children
        self._backward = lambda: None

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other))

        def _backward():
            self.grad = self.grad + out.grad
            other.grad = other.grad + out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other))

        def _backward():
            self.grad = self.grad + other.data * out.grad
            other.grad = other.grad + self.data * out.grad
        out._backward = _backward
        return out

    def __neg__(self):
        out = Value(-self.data, (self,))

        def _backward():
            self.grad = self.grad + out.grad
        out._backward = _backward
        return out

    def __sub__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return self + (-other)

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def backward(self):
        topo, seen = [], set()

        def build(v):
            if id(v) not in seen:
                seen.add(id(v))
                for child in v._prev:
                    build(child)
                topo.append(v)
        build(self)
        for v in topo:
            if v._prev:
                v.grad = np.array(0.0)
        self.grad = np.array(1.0)
        for v in reversed(topo):
            v._backward()
