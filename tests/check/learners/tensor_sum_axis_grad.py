"""Tensor engine whose sum(axis) backward does not put the reduced axis back.

Pattern (issue 12, item 8): `sum-axis-grad`. The backward broadcasts out.grad straight to
the input's shape. That happens to work for axis=None, for keepdims=True and for axis=0,
but for x of shape (3, 4) summed over axis=1 without keepdims, out.grad has shape (3,) and
numpy cannot broadcast it to (3, 4) (ValueError); for a square x it broadcasts along the
wrong axis and the gradient comes out transposed. The fix is np.expand_dims(g, axis)
first. Style: a Tensor with `requires_grad`, `_parents`, `_grad_fn` closures.
"""
import numpy as np


class Tensor:
    def __init__(self, data, _parents=(), requires_grad=True):
        self.data = np.array(data, dtype=np.float64)
        self.grad = np.zeros(self.data.shape)
        self.requires_grad = requires_grad
        self._parents = _parents
        self._grad_fn = None

    def __add__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other, requires_grad=False)
        out = Tensor(self.data + other.data, (self, other))

        def grad_fn(g):
            for t in (self, other):
                gt = g
                while gt.ndim > t.data.ndim:
                    gt = gt.sum(axis=0)
                for axis, size in enumerate(t.data.shape):
                    if size == 1 and gt.shape[axis] > 1:
                        gt = gt.sum(axis=axis, keepdims=True)
                t.grad += gt
        out._grad_fn = grad_fn
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Tensor) else Tensor(other, requires_grad=False)
        out = Tensor(self.data * other.data, (self, other))

        def grad_fn(g):
            for t, factor in ((self, other.data), (other, self.data)):
                gt = g * factor
                while gt.ndim > t.data.ndim:
                    gt = gt.sum(axis=0)
                for axis, size in enumerate(t.data.shape):
                    if size == 1 and gt.shape[axis] > 1:
                        gt = gt.sum(axis=axis, keepdims=True)
                t.grad += gt
        out._grad_fn = grad_fn
        return out

    def sum(self, axis=None, keepdims=False):
        out = Tensor(self.data.sum(axis=axis, keepdims=keepdims), (self,))

        def grad_fn(g):
            self.grad += np.broadcast_to(g, self.data.shape)
        out._grad_fn = grad_fn
        return out

    def exp(self):
        out = Tensor(np.exp(self.data), (self,))

        def grad_fn(g):
            self.grad += out.data * g
        out._grad_fn = grad_fn
        return out

    def backward(self):
        order, visited = [], set()
        work = [(self, False)]
        while work:
            t, children_done = work.pop()
            if children_done:
                order.append(t)
            elif id(t) not in visited:
                visited.add(id(t))
                work.append((t, True))
                work.extend((p, False) for p in t._parents)
        for t in order:
            if t._parents:
                t.grad = np.zeros(t.data.shape)
        self.grad = np.ones(self.data.shape)
        for t in reversed(order):
            if t._grad_fn is not None:
                t._grad_fn(t.grad)


if __name__ == "__main__":
    x = Tensor(np.arange(6.0).reshape(2, 3))
    x.exp().sum().backward()
    print(x.grad)   # right; x.sum(axis=1) * w would not be
