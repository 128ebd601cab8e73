"""A lecture engine with a top-level `import torch` cross-check, as the lecture does.

Pattern (issue 12, item 3): the learner compares the engine with PyTorch at the top level
of the file, not under `if __name__ == "__main__"`. Torch may or may not be installed where
the checker runs; the engine must be checked either way, with no stub that changes what an
error says. If torch is missing, the import and the call of cross_check() are each reported
(WARN with their line and Python's own error) and the rest of the file still runs.
The engine itself is the lecture's (recursive topo sort, no reset of intermediate grads,
tanh from math.tanh), so the two lecture limits are named.
"""
import math
import torch


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
        t = math.tanh(self.data)
        out = Value(t, (self,), 'tanh')

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


def cross_check():
    x1, w1, b = Value(2.0), Value(-3.0), Value(6.8813735870195432)
    o = (x1 * w1 + b).tanh()
    o.backward()
    tx1 = torch.tensor([2.0], dtype=torch.double, requires_grad=True)
    tw1 = torch.tensor([-3.0], dtype=torch.double, requires_grad=True)
    tb = torch.tensor([6.8813735870195432], dtype=torch.double, requires_grad=True)
    to = torch.tanh(tx1 * tw1 + tb)
    to.backward()
    assert abs(o.data - to.item()) < 1e-12
    assert abs(w1.grad - tw1.grad.item()) < 1e-12
    print("matches torch:", o.data, w1.grad)


cross_check()
