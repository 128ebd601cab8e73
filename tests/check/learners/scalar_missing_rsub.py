"""__sub__ without __rsub__: `2 - a` raises TypeError.

Pattern (issue 12, item 6): the old checker's fix for a missing __rsub__ talked about
math.tanh. The report must name `missing-rsub` with a fix for subtraction
(`def __rsub__(self, other): return other + (-self)`), pointing at __sub__ where it belongs.
A missing reflected op raises loudly rather than computing something wrong, so it is a
WARN. Everything else is right (iterative sort, intermediate grads reset, math.tanh).
"""
import math


class Value:
    __slots__ = ("data", "grad", "_prev", "_backward")

    def __init__(self, data, _prev=()):
        self.data = data
        self.grad = 0.0
        self._prev = _prev
        self._backward = None

    def _new(self, data, parents, backward):
        out = Value(data, parents)
        out._backward = lambda: backward(out)
        return out

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)

        def backward(out):
            self.grad += out.grad
            other.grad += out.grad
        return self._new(self.data + other.data, (self, other), backward)

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)

        def backward(out):
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        return self._new(self.data * other.data, (self, other), backward)

    def __pow__(self, p):
        def backward(out):
            self.grad += p * self.data ** (p - 1) * out.grad
        return self._new(self.data ** p, (self,), backward)

    def tanh(self):
        t = math.tanh(self.data)

        def backward(out):
            self.grad += (1 - t ** 2) * out.grad
        return self._new(t, (self,), backward)

    def exp(self):
        e = math.exp(self.data)

        def backward(out):
            self.grad += e * out.grad
        return self._new(e, (self,), backward)

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-other)

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def backward(self):
        order, marked, stack = [], set(), [(self, False)]
        while stack:
            node, finished = stack.pop()
            if finished:
                order.append(node)
                continue
            if id(node) in marked:
                continue
            marked.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node._prev)
        for node in order:
            if node._prev:
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(order):
            if node._backward is not None:
                node._backward()


if __name__ == "__main__":
    x = Value(0.4)
    y = (x - 1).exp() * x.tanh()
    y.backward()
    print(y.data, x.grad)   # 1 - x would raise TypeError
