"""log(x) computed as math.log(x + 1e-7) "so it never crashes": wrong for small x.

Pattern (issue 12, item 6, "small x for log"): the epsilon shifts every result, and for
x near 1e-7 or below the shift is the whole answer: log(1e-9) comes out as about -16.1
instead of -20.7. The backward is 1/x, the derivative of the true log, so the gradient is
right and only the value is wrong (`wrong-forward:log`). Everything else is right
(iterative sort, intermediate gradients reset, math.tanh).
"""
import math


class V:
    def __init__(self, data, deps=()):
        self.data = data
        self.grad = 0.0
        self.deps = deps
        self._backward = None

    def __add__(self, other):
        other = other if isinstance(other, V) else V(other)
        out = V(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, V) else V(other)
        out = V(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, k):
        out = V(self.data ** k, (self,))

        def _backward():
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = V(math.log(self.data + 1e-7), (self,))

        def _backward():
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def exp(self):
        out = V(math.exp(self.data), (self,))

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = V(math.tanh(self.data), (self,))

        def _backward():
            self.grad += (1 - out.data ** 2) * out.grad
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

    def backward(self):
        order, seen, todo = [], set(), [(self, False)]
        while todo:
            v, post = todo.pop()
            if post:
                order.append(v)
                continue
            if v in seen:
                continue
            seen.add(v)
            todo.append((v, True))
            todo.extend((d, False) for d in v.deps)
        for v in order:
            if v.deps:
                v.grad = 0.0
        self.grad = 1.0
        for v in reversed(order):
            if v._backward:
                v._backward()


if __name__ == "__main__":
    p = V(0.25)
    nll = -p.log()
    nll.backward()
    print(nll.data, p.grad)
