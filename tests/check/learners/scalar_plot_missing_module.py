"""A correct engine followed by top-level plotting code whose helper module is missing.

Pattern (issue 12, item 3): "one failing top-level statement in a .py discards the whole
check". The learner's notebook had draw_dot in a helper file that is not next to this one,
so the import fails, and so does the later top-level call of draw_dot. Both statements are
to be reported as WARN with their line and Python's own error (ModuleNotFoundError, then
NameError); everything else runs and the engine, which is right everywhere (iterative
topological sort, intermediate gradients reset), is checked: expected verdict pass.
"""
import math
from lecture_graphviz_helpers import draw_dot


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = list(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), '+')

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), '*')

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, k):
        out = Value(self.data ** k, (self,), '**')

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad
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

    def __rsub__(self, other):
        return other + (-self)

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited, stack = [], set(), [(self, 0)]
        while stack:
            v, i = stack.pop()
            if i == 0:
                if v in visited:
                    continue
                visited.add(v)
            if i < len(v._prev):
                stack.append((v, i + 1))
                if v._prev[i] not in visited:
                    stack.append((v._prev[i], 0))
            else:
                topo.append(v)
        for v in topo:
            if v._prev:
                v.grad = 0
        self.grad = 1
        for v in reversed(topo):
            v._backward()


a = Value(2.0)
b = Value(-4.0)
L = (a * b + b ** 2).tanh()
L.backward()
print(L.data, a.grad, b.grad)
draw_dot(L)
