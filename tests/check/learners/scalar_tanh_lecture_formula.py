"""An engine right everywhere except that tanh is the lecture's (e^2x - 1)/(e^2x + 1).

Pattern (issue 12, items 1 and 5): e ** (2x) overflows once 2x passes ~709, so tanh(400)
raises OverflowError where the answer is 1.0. Because this is the lecture's own formula it
is a limit (`tanh-overflow`), not a failure: exit 0, shown with the stable form (math.tanh)
as the fix. The rest is done the careful way (an explicit-stack sort, intermediate
gradients reset each pass), so this is the one thing named. Expected verdict: limits-only.
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
        out = Value(self.data ** other, (self,), f'**{other}')

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
        e2x = math.e ** (2 * self.data)
        t = (e2x - 1) / (e2x + 1)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Value(math.exp(self.data), (self,), 'exp')

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            v, expanded = stack.pop()
            if expanded:
                topo.append(v)
            elif v not in visited:
                visited.add(v)
                stack.append((v, True))
                for child in v._prev:
                    if child not in visited:
                        stack.append((child, False))
        for v in topo:
            if v._prev:
                v.grad = 0.0
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


if __name__ == "__main__":
    x = Value(0.8)
    y = (x * 2).tanh()
    y.backward()
    print(y.data, x.grad)
