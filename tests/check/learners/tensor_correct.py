"""A numpy Tensor engine in the textbook's P1 style, right everywhere.

Pattern (issue 12, item 8): the control for the tensor probes. data and grad are float64
arrays, each op sets a _backward closure, backward() runs them in reverse topological order.
Broadcast gradients are summed back to the input's shape, matmul uses the transposes,
sum/mean expand the gradient back over the reduced axis (with or without keepdims),
reshape and .T undo themselves, softmax subtracts the row max and cross-entropy uses
log-sum-exp. Expected verdict: pass.
"""
import numpy as np


def unbroadcast(grad, shape):
    """Sum grad over the axes that broadcasting added or stretched, back to shape."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


class Tensor:
    def __init__(self, data, _children=(), _op=""):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    @property
    def shape(self):
        return self.data.shape

    def __repr__(self):
        return f"Tensor(shape={self.data.shape}, op={self._op!r})"

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += unbroadcast(out.grad, self.data.shape)
            other.grad += unbroadcast(out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other)
        out = Tensor(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += unbroadcast(other.data * out.grad, self.data.shape)
            other.grad += unbroadcast(self.data * out.grad, other.data.shape)
        out._backward = _backward
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other), "@")

        def _backward():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1.0

    def __sub__(self, other):
        return self + (-other)

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum")

        def _backward():
            g = out.grad
            if axis is not None and not keepdims:
                g = np.expand_dims(g, axis)
            self.grad += np.broadcast_to(g, self.data.shape)
        out._backward = _backward
        return out

    def mean(self, axis=None, keepdims=False):
        n = self.data.size if axis is None else self.data.shape[axis]
        return self.sum(axis=axis, keepdims=keepdims) * (1.0 / n)

    def reshape(self, *shape):
        out = Tensor(self.data.reshape(*shape), (self,), "reshape")

        def _backward():
            self.grad += out.grad.reshape(self.data.shape)
        out._backward = _backward
        return out

    @property
    def T(self):
        out = Tensor(self.data.T, (self,), "T")

        def _backward():
            self.grad += out.grad.T
        out._backward = _backward
        return out

    def relu(self):
        out = Tensor(np.maximum(self.data, 0.0), (self,), "relu")

        def _backward():
            self.grad += (self.data > 0) * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        out = Tensor(np.tanh(self.data), (self,), "tanh")

        def _backward():
            self.grad += (1.0 - out.data ** 2) * out.grad
        out._backward = _backward
        return out

    def exp(self):
        out = Tensor(np.exp(self.data), (self,), "exp")

        def _backward():
            self.grad += out.data * out.grad
        out._backward = _backward
        return out

    def log(self):
        out = Tensor(np.log(self.data), (self,), "log")

        def _backward():
            self.grad += out.grad / self.data
        out._backward = _backward
        return out

    def softmax(self, axis=-1):
        shifted = self.data - self.data.max(axis=axis, keepdims=True)
        e = np.exp(shifted)
        out = Tensor(e / e.sum(axis=axis, keepdims=True), (self,), "softmax")

        def _backward():
            s, g = out.data, out.grad
            self.grad += s * (g - (g * s).sum(axis=axis, keepdims=True))
        out._backward = _backward
        return out

    def cross_entropy(self, targets):
        """Mean negative log-likelihood of integer class targets; self holds logits (N, C)."""
        targets = np.asarray(targets)
        rows = np.arange(self.data.shape[0])
        m = self.data.max(axis=1, keepdims=True)
        logsumexp = m[:, 0] + np.log(np.exp(self.data - m).sum(axis=1))
        out = Tensor((logsumexp - self.data[rows, targets]).mean(), (self,), "cross_entropy")

        def _backward():
            p = np.exp(self.data - logsumexp[:, None])
            p[rows, targets] -= 1.0
            self.grad += p / len(rows) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                topo.append(node)
            elif id(node) not in visited:
                visited.add(id(node))
                stack.append((node, True))
                stack.extend((c, False) for c in node._prev if id(c) not in visited)
        for node in topo:
            if node._prev:
                node.grad = np.zeros_like(node.data)
        self.grad = np.ones_like(self.data)
        for node in reversed(topo):
            node._backward()


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(4, 3)))
    W = Tensor(rng.normal(size=(3, 5)))
    b = Tensor(np.zeros(5))
    loss = (x @ W + b).relu().cross_entropy([0, 1, 2, 3])
    loss.backward()
    print(float(loss.data), W.grad.shape, b.grad.shape)
