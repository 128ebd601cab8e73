"""An annotation `other: Value` inside the class, without `from __future__ import annotations`.

Pattern (issue 12, item 3): on Python < 3.14 the annotation is evaluated while the class
body runs, before the name Value exists, so the class statement raises NameError and the
file defines no engine. The checker must say so (WARN for the statement, with the advice
to add `from __future__ import annotations` or to quote the name, not "move demo code
under if __name__ == '__main__'") and then that no class was found. On Python >= 3.14
annotations are deferred, the class loads, and the engine (right everywhere) passes.
"""
import math


class Value:
    def __init__(self, data, children=(), op=""):
        self.data = data
        self.grad = 0.0
        self.children = tuple(children)
        self.op = op
        self.backward_fn = lambda: None

    def __add__(self, other: Value) -> Value:
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def backward_fn():
            self.grad += out.grad
            other.grad += out.grad
        out.backward_fn = backward_fn
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def backward_fn():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out.backward_fn = backward_fn
        return out

    def __pow__(self, n):
        out = Value(self.data ** n, (self,), "**")

        def backward_fn():
            self.grad += n * self.data ** (n - 1) * out.grad
        out.backward_fn = backward_fn
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
        out = Value(math.tanh(self.data), (self,), "tanh")

        def backward_fn():
            self.grad += (1 - out.data ** 2) * out.grad
        out.backward_fn = backward_fn
        return out

    def backward(self):
        order, seen = [], set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
            elif node not in seen:
                seen.add(node)
                stack.append((node, True))
                stack.extend((c, False) for c in node.children if c not in seen)
        for node in order:
            if node.children:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(order):
            node.backward_fn()


if __name__ == "__main__":
    a = Value(3.0)
    b = (a * a + a).tanh()
    b.backward()
    print(b.data, a.grad)
