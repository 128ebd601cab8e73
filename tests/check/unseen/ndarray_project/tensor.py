"""A numpy Tensor whose constructor takes only ndarrays, using the learner's own `micrograd`.

Pattern (issue 20, 6): `Tensor(2.0)` raises, so the old discovery found no class (and, named
explicitly, ran the scalar probes: 30 false FAILs); `import micrograd` got the checker's
package instead of the learner's sibling one. Right everywhere. Expected: pass.
"""
import numpy as np

import micrograd


class Tensor:
    def __init__(self, array, parents=()):
        if not isinstance(array, np.ndarray):
            raise TypeError(f"Tensor wants an np.ndarray, got {type(array).__name__}")
        self.data = array.astype(np.float64)
        self.grad = np.zeros_like(self.data)
        self.parents = parents
        self.grad_fn = None

    def __add__(self, other):
        out = Tensor(self.data + other.data, (self, other))

        def grad_fn():
            self.grad += micrograd.unbroadcast(out.grad, self.data.shape)
            other.grad += micrograd.unbroadcast(out.grad, other.data.shape)
        out.grad_fn = grad_fn
        return out

    def __mul__(self, other):
        out = Tensor(self.data * other.data, (self, other))

        def grad_fn():
            self.grad += micrograd.unbroadcast(other.data * out.grad, self.data.shape)
            other.grad += micrograd.unbroadcast(self.data * out.grad, other.data.shape)
        out.grad_fn = grad_fn
        return out

    def __matmul__(self, other):
        out = Tensor(self.data @ other.data, (self, other))

        def grad_fn():
            self.grad += out.grad @ other.data.T
            other.grad += self.data.T @ out.grad
        out.grad_fn = grad_fn
        return out

    def sum(self):
        out = Tensor(np.array(self.data.sum()), (self,))

        def grad_fn():
            self.grad += np.ones_like(self.data) * out.grad
        out.grad_fn = grad_fn
        return out

    def backward(self):
        order, seen = [], set()

        def visit(t):
            if id(t) not in seen:
                seen.add(id(t))
                for p in t.parents:
                    visit(p)
                order.append(t)
        visit(self)
        for t in order:
            if t.parents:
                t.grad = np.zeros_like(t.data)
        self.grad = np.ones_like(self.data)
        for t in reversed(order):
            if t.grad_fn is not None:
                t.grad_fn()
