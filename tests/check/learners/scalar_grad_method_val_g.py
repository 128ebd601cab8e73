"""Backward called grad(), data in .val, gradient in .g, and a real `=` bug in relu.

Pattern (issue 12, item 2): an engine with its own names went unchecked, so the `=` in
relu's backward was never found. The class is `Num`; `Num.grad()` runs backpropagation;
the number is `.val` and its gradient `.g`. The one fault: relu's backward assigns the
gradient instead of adding to it, so `x.relu() + x` loses the `+ x` contribution.
The topological sort is the lecture's recursive one and intermediate gradients are not
reset, so the two lecture limits are named as well.
"""
import math


class Num:
    def __init__(self, val, kids=(), tag=None):
        self.val = val
        self.g = 0.0
        self.kids = kids
        self.tag = tag
        self.back = lambda: None

    def __repr__(self):
        return f"Num({self.val!r}, g={self.g!r})"

    @staticmethod
    def wrap(x):
        return x if isinstance(x, Num) else Num(x)

    def __add__(self, other):
        other = Num.wrap(other)
        out = Num(self.val + other.val, (self, other), "+")

        def back():
            self.g += out.g
            other.g += out.g
        out.back = back
        return out

    def __mul__(self, other):
        other = Num.wrap(other)
        out = Num(self.val * other.val, (self, other), "*")

        def back():
            self.g += other.val * out.g
            other.g += self.val * out.g
        out.back = back
        return out

    def __pow__(self, p):
        out = Num(self.val ** p, (self,), "**")

        def back():
            self.g += p * self.val ** (p - 1) * out.g
        out.back = back
        return out

    def relu(self):
        out = Num(self.val if self.val > 0 else 0.0, (self,), "relu")

        def back():
            self.g = (1.0 if out.val > 0 else 0.0) * out.g
        out.back = back
        return out

    def tanh(self):
        out = Num(math.tanh(self.val), (self,), "tanh")

        def back():
            self.g += (1 - out.val ** 2) * out.g
        out.back = back
        return out

    __radd__ = __add__
    __rmul__ = __mul__

    def __neg__(self):
        return self * -1

    def __sub__(self, other):
        return self + (-Num.wrap(other))

    def __rsub__(self, other):
        return Num.wrap(other) - self

    def __truediv__(self, other):
        return self * Num.wrap(other) ** -1

    def __rtruediv__(self, other):
        return Num.wrap(other) / self

    def grad(self):
        def topo(node, acc, seen):
            if node not in seen:
                seen.add(node)
                for k in node.kids:
                    topo(k, acc, seen)
                acc.append(node)
            return acc

        self.g = 1.0
        for node in reversed(topo(self, [], set())):
            node.back()


if __name__ == "__main__":
    x = Num(2.0)
    y = x * 3 + 1
    y.grad()
    print(y, x.g)  # 3.0: this one is right; x.relu() + x would not be
