"""A numpy Tensor engine that dispatches through an op table, right everywhere.

Style 3 of issue 20, item 7: each op is one row of OPS (forward, backward); the Tensor's
methods only look the row up. The classic bugs are planted in it by `mutations` in
expected.json. Expected: pass.
"""
import numpy as np


def unbroadcast(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def expand_back(grad, shape, axis, keepdims):
    if axis is not None and not keepdims:
        grad = np.expand_dims(grad, axis)
    return np.broadcast_to(grad, shape)


def softmax_rows(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=axis, keepdims=True)


OPS = {
    "add": (lambda a, b: a + b,
            lambda g, out, a, b: (unbroadcast(g, a.shape), unbroadcast(g, b.shape))),
    "mul": (lambda a, b: a * b,
            lambda g, out, a, b: (unbroadcast(g * b, a.shape), unbroadcast(g * a, b.shape))),
    "matmul": (lambda a, b: a @ b,
               lambda g, out, a, b: (g @ b.T, a.T @ g)),
    "relu": (lambda a: np.maximum(a, 0.0),
             lambda g, out, a: (g * (a > 0),)),
    "tanh": (np.tanh,
             lambda g, out, a: (g * (1.0 - out ** 2),)),
    "exp": (np.exp,
            lambda g, out, a: (g * out,)),
    "log": (np.log,
            lambda g, out, a: (g / a,)),
    "transpose": (lambda a: a.T,
                  lambda g, out, a: (g.T,)),
}


class Tensor:
    def __init__(self, data, parents=(), op=None, **params):
        self.data = np.asarray(data, dtype=np.float64)
        self.grad = np.zeros_like(self.data)
        self.parents, self.op, self.params = parents, op, params

    def _apply(self, name, *others):
        forward, _ = OPS[name]
        args = (self,) + others
        return Tensor(forward(*[t.data for t in args]), args, name)

    def __add__(self, other):
        return self._apply("add", other)

    def __mul__(self, other):
        return self._apply("mul", other)

    def __matmul__(self, other):
        return self._apply("matmul", other)

    def relu(self):
        return self._apply("relu")

    def tanh(self):
        return self._apply("tanh")

    def exp(self):
        return self._apply("exp")

    def log(self):
        return self._apply("log")

    @property
    def T(self):
        return self._apply("transpose")

    def sum(self, axis=None, keepdims=False):
        return Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,), "sum",
                      axis=axis, keepdims=keepdims)

    def mean(self, axis=None, keepdims=False):
        count = self.data.size if axis is None else self.data.shape[axis]
        return Tensor(self.data.mean(axis=axis, keepdims=keepdims), (self,), "mean",
                      axis=axis, keepdims=keepdims, count=count)

    def reshape(self, *shape):
        return Tensor(self.data.reshape(*shape), (self,), "reshape")

    def softmax(self, axis=-1):
        return Tensor(softmax_rows(self.data, axis), (self,), "softmax", axis=axis)

    def local_grads(self):
        g, (a, *_) = self.grad, self.parents
        if self.op == "sum":
            return (expand_back(g, a.data.shape, self.params["axis"], self.params["keepdims"]),)
        if self.op == "mean":
            full = expand_back(g, a.data.shape, self.params["axis"], self.params["keepdims"])
            return (full / self.params["count"],)
        if self.op == "reshape":
            return (g.reshape(a.data.shape),)
        if self.op == "softmax":
            s, axis = self.data, self.params["axis"]
            return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)
        _, backward = OPS[self.op]
        return backward(g, self.data, *[p.data for p in self.parents])

    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            node, expanded = stack.pop()
            if expanded:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            stack.extend((p, False) for p in node.parents)
        for node in order:
            if node is not self and node.parents:
                node.grad = np.zeros_like(node.data)
        self.grad = np.ones_like(self.data)
        for node in reversed(order):
            if node.op is None:
                continue
            for parent, g in zip(node.parents, node.local_grads()):
                parent.grad = parent.grad + g


def cross_entropy(logits, targets):
    """Mean over rows of -log softmax(logits)[target], through log-sum-exp."""
    x = logits.data
    m = x.max(axis=1, keepdims=True)
    lse = m + np.log(np.exp(x - m).sum(axis=1, keepdims=True))
    rows = np.arange(len(targets))
    out = Tensor(np.mean(lse[:, 0] - x[rows, targets]), (logits,), "xent")
    probabilities = np.exp(x - lse)

    def local_grads():
        onehot = np.zeros_like(x)
        onehot[rows, targets] = 1.0
        return ((probabilities - onehot) / len(targets) * out.grad,)
    out.local_grads = local_grads
    return out


if __name__ == "__main__":
    x = Tensor([[1.0, -2.0, 0.5]])
    w = Tensor([[0.5], [0.25], [1.0]])
    loss = ((x @ w).tanh() * Tensor([[2.0]])).sum()
    loss.backward()
    print(loss.data, x.grad.tolist(), w.grad.tolist())
