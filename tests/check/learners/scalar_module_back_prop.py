"""Backward as a module-level function back_prop(root), not a method.

Pattern (issue 12, item 2): "a module-level back_prop(root)" left the engine unchecked.
The class `Value` has no backward method at all; the learner calls back_prop(loss).
The order comes from Kahn's algorithm (count the consumers of each node, release a node
when all of them are done), and intermediate gradients are cleared first, so the engine is
right everywhere: expected verdict pass, with the report saying it used back_prop(root).
"""
import math
from collections import deque


class Value:
    def __init__(self, data, inputs=(), local_grads=()):
        self.data = data
        self.grad = 0.0
        self.inputs = inputs            # the Values this one was computed from
        self.local_grads = local_grads  # d(self)/d(input) for each input, same order

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data + other.data, (self, other), (1.0, 1.0))

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        return Value(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        return Value(self.data ** k, (self,), (k * self.data ** (k - 1),))

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + -other

    def __rsub__(self, other):
        return -self + other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return self ** -1 * other

    def exp(self):
        e = math.exp(self.data)
        return Value(e, (self,), (e,))

    def log(self):
        return Value(math.log(self.data), (self,), (1 / self.data,))

    def tanh(self):
        t = math.tanh(self.data)
        return Value(t, (self,), (1 - t ** 2,))

    def relu(self):
        return Value(max(0.0, self.data), (self,), (1.0 if self.data > 0 else 0.0,))


def back_prop(root):
    """Fill .grad of every Value that root depends on with d(root)/d(value)."""
    consumers = {}
    todo, seen = [root], {id(root)}
    while todo:
        node = todo.pop()
        for x in node.inputs:
            consumers[id(x)] = consumers.get(id(x), 0) + 1
            if id(x) not in seen:
                seen.add(id(x))
                todo.append(x)
    ready = deque([root])
    order = []
    while ready:
        node = ready.popleft()
        order.append(node)
        for x in node.inputs:
            consumers[id(x)] -= 1
            if consumers[id(x)] == 0:
                ready.append(x)
    for node in order:
        if node.inputs:
            node.grad = 0.0
    root.grad = 1.0
    for node in order:
        for x, local in zip(node.inputs, node.local_grads):
            x.grad += local * node.grad


if __name__ == "__main__":
    a = Value(1.5)
    b = Value(-0.5)
    loss = (a * b + b ** 2).tanh() * a
    back_prop(loss)
    print(loss.data, a.grad, b.grad)
