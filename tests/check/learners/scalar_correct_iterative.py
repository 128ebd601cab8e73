"""A learner who went past the lecture: iterative topo sort, fresh intermediate grads.

Pattern (issue 12, target "the lecture's own engine exits 0"): the control engine that is
right everywhere. The topological order is built with an explicit stack (no recursion
limit), backward() zeroes the gradients of intermediate nodes before each pass (so a second
backward() only accumulates into the leaves, as PyTorch does), tanh uses math.tanh and the
sigmoid picks the form that cannot overflow. Expected verdict: pass.
"""
from __future__ import annotations

import math


class Value:
    def __init__(self, data: float, parents: tuple[Value, ...] = (), op: str = ""):
        self.data = float(data)
        self.grad = 0.0
        self._parents = parents
        self._op = op
        self._backward = lambda: None

    @staticmethod
    def lift(x: Value | float) -> Value:
        return x if isinstance(x, Value) else Value(x)

    def __add__(self, other: Value | float) -> Value:
        other = Value.lift(other)
        out = Value(self.data + other.data, (self, other), "+")

        def backward() -> None:
            self.grad += out.grad
            other.grad += out.grad
        out._backward = backward
        return out

    def __mul__(self, other: Value | float) -> Value:
        other = Value.lift(other)
        out = Value(self.data * other.data, (self, other), "*")

        def backward() -> None:
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = backward
        return out

    def __pow__(self, k: float) -> Value:
        out = Value(self.data ** k, (self,), f"**{k}")

        def backward() -> None:
            self.grad += k * self.data ** (k - 1) * out.grad
        out._backward = backward
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self) -> Value:
        return self * -1.0

    def __sub__(self, other: Value | float) -> Value:
        return self + (-Value.lift(other))

    def __rsub__(self, other: float) -> Value:
        return Value.lift(other) + (-self)

    def __truediv__(self, other: Value | float) -> Value:
        return self * Value.lift(other) ** -1

    def __rtruediv__(self, other: float) -> Value:
        return Value.lift(other) * self ** -1

    def _unary(self, value: float, local_grad: float, op: str) -> Value:
        out = Value(value, (self,), op)

        def backward() -> None:
            self.grad += local_grad * out.grad
        out._backward = backward
        return out

    def exp(self) -> Value:
        e = math.exp(self.data)
        return self._unary(e, e, "exp")

    def log(self) -> Value:
        return self._unary(math.log(self.data), 1.0 / self.data, "log")

    def tanh(self) -> Value:
        t = math.tanh(self.data)
        return self._unary(t, 1.0 - t * t, "tanh")

    def relu(self) -> Value:
        return self._unary(max(self.data, 0.0), float(self.data > 0), "relu")

    def sigmoid(self) -> Value:
        if self.data >= 0:
            s = 1.0 / (1.0 + math.exp(-self.data))
        else:
            z = math.exp(self.data)
            s = z / (1.0 + z)
        return self._unary(s, s * (1.0 - s), "sigmoid")

    def backward(self) -> None:
        order: list[Value] = []
        done: set[int] = set()
        stack: list[tuple[Value, bool]] = [(self, False)]
        while stack:
            node, children_done = stack.pop()
            if children_done:
                order.append(node)
                continue
            if id(node) in done:
                continue
            done.add(id(node))
            stack.append((node, True))
            for parent in node._parents:
                if id(parent) not in done:
                    stack.append((parent, False))
        for node in order:
            if node._parents:  # intermediate results start every pass from zero
                node.grad = 0.0
        self.grad = 1.0
        for node in reversed(order):
            node._backward()

    def __repr__(self) -> str:
        return f"Value({self.data:.4f}, grad={self.grad:.4f})"


if __name__ == "__main__":
    a, b = Value(2.0), Value(-3.0)
    y = (a * b + a).tanh() + (a / b).sigmoid() - b.exp().log()
    y.backward()
    print(y, a.grad, b.grad)
