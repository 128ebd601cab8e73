"""Whole powers by repeated multiplication, which silently gives 1 for a negative exponent.

Pattern (issue 12, items 4 and 5): `pow-negative-exponent`. For an int exponent the
learner builds x*x*...*x so that only * nodes appear in the graph; for n < 0 the loop runs
zero times and x ** -1 is a constant 1 with no gradient. Float exponents take the ordinary
path and are right. Division is `self * other**-1`, so it is wrong too, but only because of
__pow__: the checker must name the cause, not the division. The sort is iterative and
intermediate gradients are reset, so nothing else is wrong.
"""
import math


class Value:
    def __init__(self, data, _children=(), _op=''):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
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

    def __pow__(self, n):
        if isinstance(n, int):
            result = Value(1.0)
            for _ in range(n):
                result = result * self
            return result
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
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, done = stack.pop()
            if done:
                topo.append(node)
                continue
            if node in visited:
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
    x = Value(2.0)
    y = x ** 3 + x ** 0.5
    y.backward()
    print(y.data, x.grad)   # right; x ** -1 gives Value(1.0)
