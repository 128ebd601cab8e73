"""Division written as its own op that never sets _backward, so its inputs get no gradient.

Pattern (issue 12, item 4): the learner wrote `/` directly instead of `self * other**-1`
and forgot the backward closure, so a / b has the right value and gradients of 0 for a
and b. The old checker blamed `exponent-as-value (follows from pow-negative)`; the cause is
that __truediv__ has no backward (`div-no-backward`). __rtruediv__ goes through __truediv__,
so it is wrong for the same reason and must not be named as a second fault.
Otherwise the engine is right everywhere (iterative sort, intermediate grads reset).
"""
import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = _children
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

    def __truediv__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data / other.data, (self, other), '/')
        return out

    def __rtruediv__(self, other):
        return Value(other) / self

    def __pow__(self, n):
        out = Value(self.data ** n, (self,), f'**{n}')

        def _backward():
            self.grad += n * self.data ** (n - 1) * out.grad
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

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
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
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


if __name__ == "__main__":
    a, b = Value(3.0), Value(4.0)
    c = a / b
    c.backward()
    print(c.data, a.grad, b.grad, "(should be", 1 / 4, -3 / 16, ")")
