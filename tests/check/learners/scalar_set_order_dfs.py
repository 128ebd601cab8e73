"""Iterative DFS that can put a node in the order twice, depending on set order.

Pattern (issue 12, item 1): children are kept in a set, so the order they are pushed in
follows the objects' hashes and changes from run to run. A child is skipped when pushed if
it was already visited, but not when popped: if two parents push the same child before it
is visited, it is expanded twice and appears twice in the order, so its _backward runs
twice and (for an intermediate node) once before all its gradient has arrived. Whether
that happens in one graph depends on the set's order; the checker must find it in every
run. The one fault is in backward(): the popped node is not skipped when already seen.
"""
import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = set(_children)
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

    def __pow__(self, other):
        out = Value(self.data ** other, (self,), '**')

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad
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
        topo = []
        visited = set()
        stack = [(self, False)]
        while stack:
            node, ready = stack.pop()
            if ready:
                topo.append(node)
                continue
            visited.add(node)
            stack.append((node, True))
            for child in node._prev:
                if child not in visited:
                    stack.append((child, False))
        for node in topo:
            if node._prev:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


if __name__ == "__main__":
    a = Value(0.5)
    h = a * 2.0
    y = h * h + h   # h is reached from y and from h*h: in some runs it is expanded twice
    y.backward()
    print(y.data, a.grad, "(should be", 2 * (2 * h.data + 1), ")")
