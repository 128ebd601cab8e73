"""Write the one-bug engines of this corpus from correct.py.

Each variant is correct.py with exactly one classic mistake put in by a text replacement
(checked to apply exactly once), plus a first line saying which. Run it after editing
correct.py:  python tests/check/corpus/make_variants.py   (the files are committed).
tests/test_check.py::test_corpus_files_are_up_to_date fails when they drift.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).parent

ADD_BACKWARD = """            self.grad += out.grad
            other.grad += out.grad
"""
MUL_BACKWARD = """            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
"""
DFS = """        topo, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, children_done = stack.pop()
            if children_done:
                topo.append(node)
                continue
            if node in visited:
                continue
            visited.add(node)
            stack.append((node, True))
            for child in node._prev:
                if child not in visited:
                    stack.append((child, False))
"""
BFS = """        topo, visited = [], {self}
        queue = [self]
        while queue:  # breadth-first from the output: NOT a topological order
            node = queue.pop(0)
            topo.insert(0, node)
            for child in node._prev:
                if child not in visited:
                    visited.add(child)
                    queue.append(child)
"""
RECURSIVE = """        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
"""
POW = """        assert isinstance(other, (int, float)), "only int/float powers"
        out = Value(self.data ** other, (self,), f"**{other}")
"""
POW_AS_VALUE = """        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data ** other.data, (self, other), "**")
"""
POW_BACKWARD = "            self.grad += other * self.data ** (other - 1) * out.grad\n"
POW_BACKWARD_AS_VALUE = "            self.grad += other * self.data ** (other.data - 1) * out.grad\n"
ENDLESS = """        self.grad = 1.0
        node = self
        while node._prev:  # walks down the graph... but never moves on: an endless loop
            node._backward()
        for node in reversed(topo):
"""
NUMERICAL = '''

def numerical_grad(f, x, h=1e-10):
    """(f(x + h) - f(x - h)) / 2h: the learner's own gradient check."""
    return (f(x + h) - f(x - h)) / (2 * h)
'''

# name -> (what the mistake is, [(old, new), ...])
VARIANTS: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "grad_overwritten": ("= instead of += in _backward of + and *", [
        (ADD_BACKWARD, ADD_BACKWARD.replace("+=", "=")),
        (MUL_BACKWARD, MUL_BACKWARD.replace("+=", "=")),
    ]),
    "exp_grad_assigned": ("exp's _backward assigns with = (the slip in the video)", [
        ("            self.grad += out.data * out.grad\n",
         "            self.grad = out.data * out.grad\n"),
    ]),
    "tanh_grad_assigned": ("tanh's _backward assigns with =", [
        ("            self.grad += (1 - t ** 2) * out.grad\n",
         "            self.grad = (1 - t ** 2) * out.grad\n"),
    ]),
    "no_zero_grad": ("the training loop never zeroes the gradients", [
        ("        model.zero_grad()\n", ""),
    ]),
    "zero_grad_broken": ("zero_grad() compares instead of assigning", [
        ("            p.grad = 0.0\n", "            p.grad == 0.0\n"),
    ]),
    "bfs_topo": ("backward() visits nodes in breadth-first order", [(DFS, BFS)]),
    "forward_order": ("backward() walks the topological order forwards, not reversed", [
        ("        for node in reversed(topo):\n", "        for node in topo:\n"),
    ]),
    "missing_radd": ("no __radd__", [
        ("    def __radd__(self, other):\n        return self + other\n\n", ""),
    ]),
    "missing_rmul": ("no __rmul__", [
        ("    def __rmul__(self, other):\n        return self * other\n\n", ""),
    ]),
    "rmul_returns_float": ("__rmul__ returns a float: 2.0 * a is cut off from the graph", [
        ("    def __rmul__(self, other):\n        return self * other\n",
         "    def __rmul__(self, other):\n        return other * self.data\n"),
    ]),
    "exponent_as_value": ("__pow__ wraps the exponent in a Value", [
        (POW, POW_AS_VALUE), (POW_BACKWARD, POW_BACKWARD_AS_VALUE),
    ]),
    "no_seed": ("backward() never sets self.grad = 1.0", [
        ("        self.grad = 1.0\n", ""),
    ]),
    "mutable_default": ("_children=[] as default argument", [
        ('    def __init__(self, data, _children=(), _op=""):\n',
         '    def __init__(self, data, _children=[], _op=""):\n'),
    ]),
    "backward_stored_none": ("out._backward = _backward() in __mul__ (stores None)", [
        ("        out._backward = _backward\n        return out\n\n    def __pow__",
         "        out._backward = _backward()\n        return out\n\n    def __pow__"),
    ]),
    "tanh_overflow": ("tanh through exp: overflows for large inputs", [
        ("        t = math.tanh(self.data)\n",
         "        e2x = math.exp(2 * self.data)\n        t = (e2x - 1) / (e2x + 1)\n"),
    ]),
    "wrong_tanh_derivative": ("tanh's derivative written as 1 - t", [
        ("(1 - t ** 2) * out.grad", "(1 - t) * out.grad"),
    ]),
    "zero_one_labels": ("trains a tanh network on 0/1 labels", [
        ("    ys = [1.0, -1.0, -1.0, 1.0]\n", "    ys = [1, 0, 0, 1]\n"),
    ]),
    "tiny_h": ("a numerical-gradient helper with h = 1e-10", [
        ("\n\nclass Module:\n", NUMERICAL + "\n\nclass Module:\n"),
    ]),
    "set_order_topo": ("the sort skips a visited node only when pushing it, so one pushed by two "
                       "parents is expanded twice (found in some orders of the _prev set)", [
        ("""            if node in visited:
                continue
            visited.add(node)
""", """            visited.add(node)  # no check when popped: pushed twice means listed twice
"""),
    ]),
    "no_visited_set": ("the topological sort has no visited set", [
        (DFS, """        topo = []
        stack = [(self, False)]
        while stack:  # no visited set: a node reached by two paths is listed twice
            node, children_done = stack.pop()
            if children_done:
                topo.append(node)
                continue
            stack.append((node, True))
            for child in node._prev:
                stack.append((child, False))
"""),
    ]),
    "recursive_topo": ("the lecture's recursive build_topo (fine, but deep graphs hit the limit)", [
        (DFS, RECURSIVE),
        ("        for node in topo:\n            if node._prev:\n                node.grad = 0.0"
         "  # a second backward() on this graph starts inner nodes clean\n", ""),
    ]),
    "infinite_recursion": ("__neg__ calls itself", [
        ("    def __neg__(self):\n        return self * -1\n",
         "    def __neg__(self):\n        return -self\n"),
    ]),
    "endless_loop": ("backward() loops forever", [
        ("        self.grad = 1.0\n        for node in reversed(topo):\n", ENDLESS),
    ]),
    "op_exception": ("exp passes the Value, not its number, to math.exp", [
        ("        out = Value(math.exp(self.data), (self,), \"exp\")\n",
         "        out = Value(math.exp(self), (self,), \"exp\")\n"),
    ]),
    "number_not_wrapped": ("__add__ does not wrap plain numbers in a Value", [
        ("        other = other if isinstance(other, Value) else Value(other)\n"
         "        out = Value(self.data + other.data, (self, other), \"+\")\n",
         "        out = Value(self.data + other.data, (self, other), \"+\")\n"),
    ]),
    "backward_on_input": ("__mul__ stores its _backward on self instead of out", [
        ("        out._backward = _backward\n        return out\n\n    def __pow__",
         "        self._backward = _backward\n        return out\n\n    def __pow__"),
    ]),
    "neuron_forgets_bias": ("Neuron.parameters() leaves out the bias", [
        ("        return self.w + [self.b]\n", "        return self.w\n"),
    ]),
    "eq_without_hash": ("__eq__ compares data, which removes __hash__", [
        ("    def __repr__(self):\n",
         "    def __eq__(self, other):\n"
         "        return isinstance(other, Value) and self.data == other.data\n\n"
         "    def __repr__(self):\n"),
    ]),
    "shared_neuron": ("Layer repeats one Neuron object: [Neuron(nin)] * nout", [
        ("        self.neurons = [Neuron(nin) for _ in range(nout)]\n",
         "        self.neurons = [Neuron(nin)] * nout\n"),
    ]),
    "uses_numpy": ("no bug: the file also uses numpy, which is installed and must really load", [
        ("import math\n",
         "import math\n\nimport numpy as np\n\n"
         "assert float(np.array([1.0, 2.0]).sum()) == 3.0  # fails on a stub\n"),
    ]),
    "renamed_class": ("no bug: the class is called Scalar", [
        ("class Value:", "class Scalar:"),
    ]),
}


def variant_text(correct: str, name: str) -> str:
    what, edits = VARIANTS[name]
    text = correct
    for old, new in edits:
        count = text.count(old)
        if count != 1:
            raise ValueError(f"{name}: expected the text to replace exactly once, found {count}: {old!r}")
        text = text.replace(old, new)
    if name == "renamed_class":
        text = text.replace("Value(", "Scalar(").replace("isinstance(other, Value)",
                                                         "isinstance(other, Scalar)")
    end = text.index('"""', 3) + 3  # replace correct.py's docstring
    return f'"""Corpus engine with one mistake: {what}."""' + text[end:]


def main() -> int:
    correct = (HERE / "correct.py").read_text(encoding="utf-8")
    for name in VARIANTS:
        (HERE / f"{name}.py").write_text(variant_text(correct, name), encoding="utf-8")
    print(f"wrote {len(VARIANTS)} variants")
    return 0


if __name__ == "__main__":
    sys.exit(main())
