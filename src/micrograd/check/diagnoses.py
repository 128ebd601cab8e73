"""The named diagnoses: what each failing probe means, in plain words, and how to fix it.

An id is a short name (`grad-overwritten`) or a name with an op (`wrong-local-derivative:exp`).
`explain(id)` returns the Diagnosis; unknown ids get a generic but still useful text.
"""

from __future__ import annotations

from micrograd import ops as registry
from micrograd.check.diagnosis import Diagnosis
from micrograd.check.ninja_catalog import NINJA_CATALOG

# the checker's op names -> micrograd.engine.OPS names (its derivative formulas, as text)
ENGINE_OP = {  # add "+", mul "*", pow "**k" (a ** 3), exp "exp", relu "ReLU", ...
    **{entry.name: entry.constant[0] if entry.constant else entry.label
       for entry in registry.scalar_binary_ops()},
    **{entry.name: entry.label for entry in registry.probed_ops()}}
ROLES = {"{out.grad}": "out.grad", "{out.data}": "out.data", "{0.data}": "self.data",
         "{1.data}": "other.data", "{k}": "other"}
TARGETS = ("self.grad", "other.grad")
# composites, and the reflected forms: how the lecture writes them
COMPOSITE_FIX = {
    "radd": "__radd__ = __add__      # in the class body; __add__ adds out.grad to both",
    "rmul": "__rmul__ = __mul__      # in the class body",
    "sub": "def __sub__(self, other): return self + (-other)",
    "rsub": "def __rsub__(self, other): return other + (-self)",
    "neg": "def __neg__(self): return self * -1",
    "truediv": "def __truediv__(self, other): return self * other**-1",
    "rtruediv": "def __rtruediv__(self, other): return other * self**-1",
}


def _engine_fix(op: str) -> str | None:
    """`self.grad += <d op / d input> * out.grad` from micrograd.engine.OPS, per input."""
    from micrograd.engine import OPS  # standard library only, like this module

    info = OPS.get(ENGINE_OP.get(op, ""))
    if info is None:
        return None
    steps = []
    for target, formula in zip(TARGETS, info.derivatives, strict=False):  # unary: one
        for placeholder, name in ROLES.items():
            formula = formula.replace(placeholder, name)
        steps.append(f"{target} += {formula}")
    return ";  ".join(steps)


def local_derivative_fix(op: str, default: str) -> str:
    """The fix line for an op: the engine's own formula where it has the op, else the
    lecture's composite (`a - b` as `a + (-b)`), else `default`."""
    return _engine_fix(op) or COMPOSITE_FIX.get(op, default)

OP_SYMBOL = {
    **{entry.name: f"a {entry.symbol} {3 if entry.constant else 'b'}"  # a + b, ..., a ** 3
       for entry in registry.BINARY.values() if entry.operators},
    "radd": "2 + a", "rmul": "3 * a", "rsub": "2 - a", "neg": "-a", "rtruediv": "4 / a",
    **{entry.name: f"a.{entry.methods[0]}()" for entry in registry.probed_ops()},
}

CATALOG: dict[str, Diagnosis] = {}


def _add(id: str, title: str, explanation: str, example: str, fix: str, pitfall: str = "") -> None:
    CATALOG[id] = Diagnosis(id, title, " ".join(explanation.split()), example, fix, pitfall)


_add("grad-overwritten", "gradient overwritten with = instead of accumulated with +=",
     """A node that is used more than once gets a gradient contribution from every place it
     is used, and the chain rule says to add them up. Your _backward assigns (grad = ...), so
     the last contribution wipes out the earlier ones. Any expression that reuses a value
     (a + a, a*b + a, a neuron's input feeding several neurons) gets a wrong gradient.""",
     "a = Value(3.0); b = a + a; b.backward()  ->  a.grad should be 2, not 1",
     "self.grad += out.grad      # += in every _backward, never =",
     "textbook pitfall 1; lecture 1:22 (fixing a backprop bug when one node is used multiple "
     "times)")
_add("exp-grad-assigned", "exp's _backward assigns the gradient (= instead of +=)",
     """This is the slip visible in the lecture video: exp's _backward writes
     self.grad = out.data * out.grad. When the input of exp is also used elsewhere, the other
     contribution is thrown away. Every other op can be right and the gradient is still wrong
     whenever exp's input is reused.""",
     "a = Value(0.7); y = a.exp() + a; y.backward()  ->  a.grad should be e^0.7 + 1",
     "self.grad += out.data * out.grad",
     "lecture 1:27 (the notebook's note: = instead of += in exp)")
_add("grad-assigned", "this op's _backward assigns the gradient (= instead of +=)",
     """The _backward of this op writes its input's gradient with = rather than adding to it
     with +=. When the input is used anywhere else too, the other contribution is lost.""",
     "a = Value(x); y = op(a) + a; y.backward()  ->  a.grad should be op'(x) + 1",
     "self.grad += <local derivative> * out.grad", "textbook pitfall 1")
_add("wrong-local-derivative", "wrong local derivative",
     """The backward step of this op does not compute its derivative correctly (checked
     against central differences (f(x+h) - f(x-h)) / 2h of the op on plain numbers). The
     forward value is right, so the mistake is in the op's _backward.""",
     "see the probe's expression",
     "in the op's _backward: self.grad += <d out / d self> * out.grad, with the derivative\n"
     "worked out on paper and written with .data values")
_add("wrong-forward", "wrong forward value",
     """The op computes the wrong number, compared with Python's math on plain floats.
     Gradients computed on top of a wrong forward value cannot be right either.""",
     "see the probe's expression", "compare your formula with the math module, e.g. math.tanh(x)")
_add("wrong-topo-order", "backward visits nodes in the wrong order",
     """A node may pass its gradient on only after every node that uses it has added its
     contribution. Depth-first post-order (children first, then the node), walked in
     reverse, guarantees that; breadth-first order or forward order does not, so a node
     reached by a short path and a long path sends its gradient on too early and the rest
     never arrives. Single ops are right, so the walker is the problem.""",
     "t = a*b; y = t + (t*c)*d; y.backward()  ->  a.grad = b*(1 + c*d)",
     "build topo by DFS (visit children, then topo.append(v)); "
     "then: for v in reversed(topo): v._backward()",
     "textbook pitfall 3")
_add("node-visited-twice", "backward runs a node's _backward more than once",
     """Your topological sort puts a node in the list once for every path that reaches it
     (no `visited` set), so a node used twice has its _backward run twice and everything
     below it gets its gradient twice. Remember which nodes you have seen.""",
     "t = a*b; y = t + (t*c)*d; y.backward()  ->  a.grad = b*(1 + c*d), not twice that",
     "find where backward()'s topological sort lets a node into the order a second time.\n"
     "If it is `topo.append(v)` outside `if v not in visited:`, indent it into that if\n"
     "(after the loop over the children); if it is `visited.add(node)` after a pop, skip\n"
     "nodes already seen first:\n"
     "    if node in visited: continue\n"
     "and with no visited set at all: if v not in visited: visited.add(v); ...",
     "textbook pitfall 3")
_add("eq-without-hash", "__eq__ without __hash__: Values cannot go in a set",
     """Defining __eq__ makes Python drop the inherited __hash__, so a Value can no longer be
     put in a set or used as a dict key — and the visited set of the topological sort (and
     _prev = set(_children)) needs exactly that. Nodes must be hashed by identity.""",
     "set([Value(1.0)])  ->  TypeError: unhashable type: 'Value'",
     "__hash__ = object.__hash__      # in the class body, next to __eq__")
_add("missing-radd", "no __radd__: `2 + a` does not work",
     """Python evaluates 2 + a as int.__add__(2, a), which does not know your class, and then
     falls back to a.__radd__(2). Without __radd__ you get TypeError, and sum(values) fails too
     because sum starts from 0.""",
     "2 + Value(1.7)  ->  TypeError", "__radd__ = __add__      # in the class body",
     "textbook pitfall 4")
_add("missing-rmul", "no __rmul__: `2 * a` does not work",
     """Python evaluates 3 * a as int.__mul__(3, a), which does not know your class, and then
     falls back to a.__rmul__(3). Without __rmul__ you get TypeError.""",
     "3 * Value(1.7)  ->  TypeError", "__rmul__ = __mul__      # in the class body",
     "textbook pitfall 4")
_add("rmul-returns-float", "`2.0 * a` silently gives a float, not a Value",
     """Your __rmul__ returns a plain number instead of a new node, so 2.0 * a looks fine but
     is disconnected from the graph: backward() never reaches a, and its gradient stays 0.
     Nothing raises, which makes this one hard to find.""",
     "y = 2.5 * a  ->  type(y) is float",
     "__rmul__ = __mul__      # return a Value built by __mul__",
     "textbook pitfall 8")
_add("radd-returns-float", "`2 + a` silently gives a float, not a Value",
     """Your __radd__ returns a plain number instead of a new node, so the result is cut off
     from the graph and backward() never reaches a.""",
     "y = 2 + a  ->  type(y) is float", "__radd__ = __add__", "textbook pitfall 8")
_add("op-returns-non-value", "an op returns a plain number",
     """The op returns something that is not a node of your graph, so backward() cannot reach
     its inputs.""",
     "see the probe's expression", "return out   # the new Value, after out._backward = _backward")
_add("exponent-as-value", "the exponent of ** is treated as a Value",
     """In x ** k the exponent k is a plain constant; the local derivative is
     k * x**(k-1), a number. Your __pow__ wraps k in a Value, so the gradient becomes a
     Value (or a TypeError is raised) instead of a number. Keep k a number; x**y with a
     variable y is a different op, exp(y * log(x)).""",
     "a = Value(1.7); (a ** 3).backward()  ->  a.grad should be 3 * 1.7**2 = 8.67",
     'assert isinstance(other, (int, float)), "only int/float powers"',
     "textbook pitfall 5")
_add("no-seed-gradient", "the output gradient is never seeded with 1",
     """backward() must start with d(out)/d(out) = 1: self.grad = 1.0 before walking the
     graph. Without it every gradient is 0 times something, so all gradients come out 0 and
     training does nothing.""",
     "y = a * b; y.backward()  ->  y.grad should be 1, a.grad = b",
     "self.grad = 1.0            # in backward(), before the loop over reversed(topo)",
     "textbook pitfall 9")
_add("wrong-seed-gradient", "the output gradient is not 1 after backward()",
     """After backward() the output's own gradient should be exactly 1 (d out / d out).""",
     "y = a * b; y.backward()  ->  y.grad == 1", "self.grad = 1.0   # in backward()")
_add("mutable-default-children", "mutable default argument `_children=[]`",
     """A default value is created once, when the def runs, and shared by every call. With
     _children=[] all leaves share one list: append to it once and every Value seems to have
     that child. Use an immutable tuple.""",
     "def __init__(self, data, _children=[], _op='')",
     "def __init__(self, data, _children=(), _op=''):",
     "textbook pitfall 10")
_add("backward-stored-none", "`out._backward = _backward()` stores None",
     """The parentheses call _backward immediately, during the forward pass (when out.grad is
     still 0), and store its return value, None. backward() then fails with "'NoneType'
     object is not callable". Store the function itself. This is the bug the lecture keeps
     on camera.""",
     "y = a * b; y.backward()  ->  TypeError: 'NoneType' object is not callable",
     "out._backward = _backward      # no parentheses",
     "lecture 1:09 (implementing the backward function for each operation)")
_add("recursion-limit", "recursive topological sort hits Python's recursion limit",
     """Your backward() builds the topological order with a recursive function, one Python
     frame per node on the path. A chain of 2,000 ops (a long training sequence, an RNN
     unrolled over time) exceeds Python's default limit of 1,000 frames and backward()
     crashes. The lecture's engine and micrograd 0.1.0 do the same (0.1.0 stops past ~990
     ops): right for the lecture's small graphs, broken for deep ones. An explicit stack
     removes the limit.""",
     "x = a; 2000 times: x = x + b; x.backward()  ->  RecursionError",
     "replace build_topo's call of itself (for each child) with an explicit stack:\n"
     "stack = [(self, False)]\n"
     "while stack:\n"
     "    v, expanded = stack.pop()\n"
     "    if expanded: topo.append(v); continue\n"
     "    if v in visited: continue\n"
     "    visited.add(v); stack.append((v, True))\n"
     "    stack.extend((c, False) for c in v._prev)",
     "a LIMIT, not a bug: the lecture's build_topo and micrograd 0.1.0 do it too")
_add("infinite-recursion", "an op calls itself forever",
     """Running this expression recursed until Python's limit of 1,000 nested calls: an op
     that calls itself (for example __neg__ written as `return -self`, or __sub__ as
     `return self - other`) never reaches a base case. Express it with a different op.""",
     "-Value(1.7)  ->  RecursionError", "def __neg__(self): return self * -1")
_add("number-not-wrapped", "a plain number is not wrapped in a Value",
     """a + 2 reaches your __add__ with other = 2, a Python int, which has no .data. The
     lecture wraps it first so that expressions like a + 1, 2 * a and the loss
     (yout - ygt)**2 with float targets work.""",
     "Value(1.7) + 2  ->  AttributeError: 'int' object has no attribute 'data'",
     "other = other if isinstance(other, Value) else Value(other)   # first line of the op",
     "lecture 1:27; textbook 3.2")
_add("backward-on-wrong-node", "_backward is attached to an input instead of the output",
     """The op stores its backward function on one of its inputs (self._backward = ...)
     instead of on the node it creates (out._backward = ...). Simple expressions can still
     come out right by luck, but as soon as an input is used by two ops, the second op
     replaces the first one's backward and that path's gradient is lost.""",
     "t = a*b; y = t + (t*c)*d  ->  gradients wrong", "out._backward = _backward",
     "lecture 1:09")
_add("tanh-overflow", "tanh overflows for large inputs",
     """tanh(x) computed as (e^2x - 1)/(e^2x + 1) overflows for x above ~355 (e^710 is
     larger than any float), although tanh itself is just 1 there. The output of tanh is
     always strictly between -1 and 1; math.tanh handles the large inputs.""",
     "Value(400.0).tanh()  ->  OverflowError (should be 1.0)",
     "t = math.tanh(self.data)      # stable at every x; the backward stays 1 - t**2",
     "a LIMIT, not a bug, when the formula is the lecture's; textbook pitfall 6")
_add("tanh-range", "tanh gives a value outside [-1, 1]",
     """tanh squashes every input into the interval (-1, 1). Your tanh returned something else
     for a large input. (Related: with a tanh output layer, train on labels ±1 or inside
     (-1, 1), never targets like 0/1 beyond its reach.)""",
     "Value(30.0).tanh()  ->  1.0", "t = math.tanh(self.data)", "textbook pitfall 6")
_add("labels-outside-tanh-range", "targets 0/1 with a tanh output layer",
     """tanh outputs lie strictly between -1 and 1 and never reach 1, so the squared error on
     a target 1 can never reach 0: training keeps pushing the weights up to saturate tanh,
     where its gradient 1 - t^2 vanishes. And 0 is the middle of tanh's range, so the two
     classes are not separated by sign. The textbook trains its XOR network on labels ±1.""",
     "ys = [0, 1, 1, 0] with mlp(x) = tanh(...)  ->  loss > 0 for ever",
     "ys = [-1.0, 1.0, 1.0, -1.0]     # or keep 0/1 with a sigmoid or linear output",
     "textbook pitfall 6")
_add("h-too-small", "the step h of your numerical gradient is too small",
     """With h around 1e-10 the rounding error of floats (about 1e-16 relative) divided by h
     is bigger than the truncation error, so (f(x+h) - f(x-h)) / 2h gets worse, not better;
     at 1e-16, x + h == x and the estimate is 0. Your gradient check then disagrees with a
     correct backward (or agrees with a wrong one). About 1e-5 (central) or 1e-6 is the
     sweet spot.""",
     "(f(3 + 1e-16) - f(3)) / 1e-16  ->  0.0", "h = 1e-5", "textbook pitfall 7")
_add("no-zero-grad", "gradients are never zeroed in the training loop",
     """Your backward adds into .grad (as it should), so the gradients of every previous step
     pile up unless you reset them before each loss.backward(). The loss may still go down —
     the lecture's network trained anyway, the stale sum acting like a huge step — but it is
     not gradient descent any more. Reset before backward.""",
     "for k in range(20): ...; loss.backward(); p.data += -0.05 * p.grad   # no reset",
     "for p in model.parameters(): p.grad = 0.0     "
     "# (or model.zero_grad()) before loss.backward()",
     "textbook pitfall 2; lecture 2:01 (the zero_grad bug)")
_add("zero-grad-broken", "zero_grad() leaves gradients that are not 0",
     """Your zero_grad() does not reset every parameter's gradient: after it, some .grad values
     are still non-zero, so the next step's gradient is added on top of the old one.""",
     "loss.backward(); model.zero_grad()  ->  every p.grad should be 0",
     "def zero_grad(self):\n    for p in self.parameters():\n        p.grad = 0.0",
     "textbook pitfall 2")
_add("backward-resets-grads", "a second backward() replaces leaf gradients",
     """In PyTorch (and micrograd) gradients of leaves accumulate across backward() calls, so
     you zero them yourself each step (zero_grad). Your backward() resets them instead, so
     the gradients of two losses can't be added up by calling backward() on each, as
     PyTorch code does (gradient accumulation over minibatches). A training loop with one
     backward() per step still works.""",
     "(a*b).backward(); (a*b).backward()  ->  a.grad = 2*b in PyTorch",
     "don't reset leaf grads inside backward(); use zero_grad() in the loop",
     "PyTorch semantics of backward()")
_add("stale-intermediate-grads", "calling backward() twice on one graph reuses old gradients",
     """Calling backward() twice on the same graph should double the leaf gradients. Your
     intermediate nodes still hold their gradient from the first call and add to it, so the
     leaves get more than double: a wrong number. The lecture's engine and micrograd 0.1.0
     do the same (z = (x*x)*2 at x = 3 gives 36 after two calls instead of 24); PyTorch
     refuses or gives exactly double. It bites when you call backward() twice without
     rebuilding the graph.""",
     "t = a + b; y = t + a; y.backward(); y.backward()  ->  a.grad = 5, not 4",
     "in backward(), before the root's grad is seeded (self.grad = 1), reset the inner "
     "nodes:\n"
     "for v in topo:\n"
     "    if v._prev: v.grad = 0.0      # leaves keep accumulating, as in PyTorch",
     "a LIMIT, not a bug: the lecture's engine and micrograd 0.1.0 do it too")
_add("backward-twice-wrong", "gradients wrong after two backward() calls",
     """Two backward() calls on graphs sharing the same leaves should add up the two gradients.
     Yours gave something else.""",
     "(a*b).backward(); (a*b).backward()  ->  a.grad = 2*b", "self.grad += ... in every _backward")
_add("grad-not-zero-initially", "a new Value does not start with grad 0",
     """Gradients are accumulated with +=, so every node must start at 0.""",
     "Value(2.0).grad  ->  0", "self.grad = 0.0      # in __init__")
_add("grad-not-a-number", "a gradient is not a number",
     """After backward() a .grad holds something that is not a float (often a Value, when a
     _backward multiplies by a Value instead of its .data).""",
     "see the probe's expression", "use other.data, not other, inside _backward")
_add("missing-data-or-grad", "no .data or .grad attribute",
     """The checker needs the lecture's field names: .data for the number, .grad for its
     gradient.""", "Value(2.0).data, Value(2.0).grad", "self.data = data; self.grad = 0.0")
_add("backward-raised", "backward() raised an exception",
     """backward() stopped with an error (Python's own message is the detail). When the
     traceback passes through your file, its last line there is shown too.""",
     "see the probe's expression",
     "look for the error in the _backward of each op in the expression, then in backward()\n"
     "itself: usually a name the closure lacks, a Value used where a number belongs\n"
     "(other.data, not other), or a _backward that is not a function")
_add("exception-in-op", "the op raised an exception",
     """Building the expression (the forward pass, before backward()) raised an error inside
     your code (Python's own message is the detail). When the traceback passes through your
     file, its last line there is shown too.""",
     "see the probe's expression",
     "look for the error in the op the expression uses (__add__, exp, ...): usually a Value\n"
     "passed where a number belongs (math.exp(self.data), not math.exp(self)), a plain\n"
     "number not wrapped in a Value, or an attribute __init__ does not set")
_add("probe-timeout", "the probe did not finish in time (endless loop?)",
     """Running this expression did not finish within the per-probe time limit. Often a while
     loop whose condition never changes, or a graph walk without a visited set.""",
     "see the probe's expression",
     "look for a loop that never ends in backward() or in the op: a graph walk without a\n"
     "visited set revisits nodes, a while loop whose condition never changes never stops")
_add("memory-limit", "the probe ran out of memory",
     """The expression tried to allocate more memory than the checker allows.""",
     "see the probe's expression",
     "look for what grows without bound in the op or in backward(): a list appended to in a\n"
     "loop that never ends, a graph walk without a visited set, a huge [0] * n")
_add("nn-wrong-gradient", "one training step of your MLP gets wrong gradients",
     """With the same weights as a reference MLP on the lecture's four examples, the parameter
     gradients of the squared-error loss differ from central differences. Look at the engine
     diagnoses above first; if they all pass, check how Neuron combines w, x and b.""",
     "loss = sum((mlp(x) - y)**2 ...); loss.backward()",
     "fix the engine's diagnoses above first; if there are none, check that a Neuron\n"
     "computes act(sum(wi * xi) + b) from Values and that parameters() lists w then b")
_add("wrong-parameter-count", "MLP(3, [4, 4, 1]) does not have 41 parameters",
     """3*4+4 + 4*4+4 + 4+1 = 41: every neuron has one weight per input plus one bias.""",
     "len(MLP(3, [4, 4, 1]).parameters())  ->  41",
     "def parameters(self): return self.w + [self.b]    # in Neuron")
_add("shared-parameters", "the same Value object appears several times among parameters()",
     """parameters() lists one object more than once. [Neuron(nin)] * nout does not make nout
     neurons: it makes one Neuron and a list that refers to it nout times, so every neuron of
     the layer has the same weights, computes the same output and gets the sum of all their
     gradients; the count looks right but the layer has a single neuron's worth of weights.
     Build a new object for each entry.""",
     "layer.neurons = [Neuron(3)] * 4  ->  layer.neurons[0] is layer.neurons[1]",
     "self.neurons = [Neuron(nin) for _ in range(nout)]   # a new Neuron each time")
_add("nn-not-probed", "your MLP could not be compared",
     """The checker could not build MLP(3, [4, 4, 1]) or match its output to a standard MLP;
     the nn probes were skipped. Not an error in itself.""",
     "MLP(3, [4, 4, 1])", "(nothing required)", "advisory")
_add("nn-exception", "your nn raised an exception",
     """Running your MLP (building it, calling it, parameters(), backward() of the loss)
     raised an error; Python's own message is the detail, and your file's line when the
     traceback passes through it.""",
     "MLP(3, [4, 4, 1])(x)",
     "look for the error in Neuron, Layer and MLP (__init__, __call__, parameters()):\n"
     "usually a layer built with the wrong number of inputs, or parameters() returning a\n"
     "list of lists instead of one flat list of Values")
# findings about the file itself
_add("syntax-error", "the file has a syntax error",
     """Python could not parse the file, so nothing in it could run.""",
     "def __add__(self, other)      # no ':'  ->  SyntaxError",
     "fix the line Python's message names (often the line before it: an unclosed bracket,\n"
     "a missing ':' or mixed tabs and spaces)")
_add("import-error", "an import in the file failed",
     """A module imported by your file is not installed or not found, so that statement
     raised ImportError (shown as Python gives it). The checker ran the rest of the file, as
     a notebook runs the next cell: if the engine does not need the module (drawing with
     graphviz, plotting, a torch cross-check) nothing is lost.""",
     "import seaborn  ->  ModuleNotFoundError: No module named 'seaborn'",
     "pip install <module>, or delete the import if the engine does not need it", "advisory")
_add("load-exception", "a top-level statement raised an exception",
     """The checker runs a .py file's top-level statements one at a time, as a notebook runs
     its cells: this one raised (the error is Python's own) and the rest of the file ran. Often
     demo code (a plot, a cross-check); if the statement defines something the engine needs,
     later probes fail too.""",
     "plt.plot(losses)  ->  NameError: name 'plt' is not defined",
     "fix the top-level statement whose line the probe names, or move demo code under  "
     "if __name__ == '__main__':", "advisory")
_add("statement-slow", "a top-level statement ran too long and was stopped",
     """A top-level statement ran longer than its share of the load time (usually a training
     loop), so the checker stopped it and went on with the next statement. The checks need
     only your class, so nothing is lost unless a later statement needs what this one would
     have made.""",
     "for k in range(100000): ...train...  ->  stopped after 3 s",
     "move training code under  if __name__ == '__main__':  or give a longer --timeout",
     "advisory")
_add("annotation-name-error", "an annotation names the class before it exists",
     """Inside `class Value:` the name Value is not defined yet, and before Python 3.14 an
     annotation such as `def __add__(self, other: Value) -> Value:` is evaluated when the def
     runs, so it raises NameError and the class is never made. Quote the name, or let Python
     read annotations lazily.""",
     "class Value:\n    def __add__(self, other: Value): ...  "
     "->  NameError: name 'Value' is not defined",
     "from __future__ import annotations      # first line of the file; or write 'Value' in quotes",
     "advisory")
_add("files-not-copied", "some files next to yours were not copied",
     """The checker copies your file and the .py/.ipynb files next to it into a scratch
     folder and runs it there. There were more of them than it copies (400 files, 32 MB), so
     the files named were left out: if your file imports one of them, that import fails.""",
     "a folder with thousands of .py files", "check a folder that holds only your engine "
     "and what it imports", "advisory")
_add("untrusted-report", "the run could not be trusted",
     """The checker's child process reports what your class did, one report per probe, on a
     private channel. For this probe it got something else: a line that is not a report, a
     second report, or one that does not answer the question asked. Code in the checked file
     that writes to the checker's channel, forks the process or tampers with it causes this.
     The probe counts as an error, never as a pass.""",
     "os.write(<channel>, b'{...}')  ->  ERROR untrusted-report",
     "don't write to file descriptors you didn't open, and don't fork at top level")
_add("notebook-cell-raised", "a notebook cell raised an exception",
     """Jupyter shows a cell's error and lets you run the next cells, so the checker does the
     same: it reports the cell and goes on with the next one, then checks the class as the
     last cells left it. Often on purpose (the lecture runs 2 * a to show the TypeError before
     it adds __rmul__); if not, later cells may miss what this one should have defined.""",
     "cell 3: 2 * a  ->  TypeError (no __rmul__ yet); cell 4: Value.__rmul__ = Value.__mul__",
     "nothing, if the error is there on purpose; otherwise fix that cell (the error is "
     "Python's own)", "advisory")
_add("notebook-cell-slow", "a notebook cell ran too long and was stopped",
     """A cell ran longer than its share of the load time, so the checker stopped it and went
     on with the next cell, as you would interrupt the kernel. Usually a training loop: the
     checks need only your class, so nothing is lost -- unless a later cell needs what the
     stopped cell would have made.""",
     "cell 9: for k in range(100): ...train...  ->  stopped after 3 s",
     "nothing, for a training cell; otherwise make the cell faster or give a longer --timeout",
     "advisory")
_add("load-timeout", "running the file did not finish in time",
     """Importing your file runs its top-level code; it did not finish within the time limit
     (an endless loop, or a long training run at top level).""",
     "while True: ...   # at top level  ->  no report in time",
     "move demo/training code under  if __name__ == '__main__':  (in a notebook: shorten "
     "the cell that loops)")
_add("load-recursion", "infinite recursion while running the file",
     """A top-level statement of your file ran into infinite recursion (a function or
     property that calls itself without a base case). The checker ran the rest of the file
     anyway.""", "def f(n): return f(n - 1)\nf(3)  ->  RecursionError",
     "give the recursive function a base case that returns without calling itself",
     "advisory")
_add("load-memory", "running the file ran out of memory",
     """A top-level statement of your file tried to allocate more memory than the checker
     allows (its address-space limit). The checker ran the rest of the file anyway.""",
     "x = [0.0] * 10**10   # at top level  ->  MemoryError",
     "allocate less at top level (or move it under  if __name__ == '__main__':)", "advisory")
_add("no-backward", "the class has no backward entry",
     """The checker found your class (it keeps a number and a gradient) but no way to run
     backpropagation: no method backward() (nor backprop(), back_prop(), grad(), ...) and no
     module-level function such as backward(root). Without one nothing can be checked.""",
     "Value(2.0).backward()  ->  AttributeError",
     "add  def backward(self): ...  to the class (topological sort, seed self.grad = 1, "
     "call _backward in reverse), or name yours: micrograd check FILE --backward NAME")
_add("too-little-checked", "too little of the class could be checked",
     """Nearly every probe needs an op the class does not have, so a PASS would say nothing.
     Either the checker picked a class that is not your engine (a helper class that happens
     to hold a number), or the engine is at its very start. The report lists what was
     missing.""",
     "class ScaleFn: def __init__(self, k): self.k = k   ->  not an engine",
     "name your engine's class: micrograd check FILE:ClassName, or write + and * first",
     "")
_add("backward-shadowed", "an instance attribute hides the backward() method",
     """Your __init__ assigns `self.backward = ...` (most likely meant `self._backward`). An
     attribute set on the instance is found before the class's method of the same name, so
     `loss.backward()` runs that attribute (a lambda doing nothing) and no gradient ever
     flows. The checker calls your class's backward() directly so the rest still gets
     checked; your own code would not.""",
     "loss.backward()  ->  runs lambda: None; every .grad stays 0",
     "in __init__, write  self._backward = lambda: None  (with the underscore)",
     "lecture 1:05")
_add("div-no-backward", "`/` makes its node without a _backward",
     """Your __truediv__ computes the quotient in a new node but never sets that node's
     _backward, so backward() passes nothing through `/`: both inputs keep gradient 0.
     Either write its backward (d(a/b)/da = 1/b, d(a/b)/db = -a/b^2) or build `/` from ops
     that have one, as the lecture does.""",
     "y = a / b; y.backward()  ->  a.grad = 0, b.grad = 0",
     "def __truediv__(self, other): return self * other**-1\n"
     "or, after the line that makes its node (out = ...):\n"
     "def _backward():\n"
     "    self.grad += (1 / other.data) * out.grad\n"
     "    other.grad += (-self.data / other.data**2) * out.grad\n"
     "out._backward = _backward", "lecture 1:38")
_add("pow-negative-exponent", "x ** n is wrong for a negative exponent n",
     """x ** -1 (which `/` is usually built on) must give 1/x with derivative -1/x^2. Your
     __pow__ handles only n >= 0 (a loop `range(n)` runs zero times for n < 0, leaving 1), so
     every negative power, and every division built on it, comes out wrong.""",
     "Value(1.7) ** -1  ->  1.0 (should be 0.588)",
     "out = Value(self.data ** other, (self,), f'**{other}')\n"
     "self.grad += other * self.data ** (other - 1) * out.grad   # any real exponent",
     "lecture 1:38")
_add("pow-negative-base", "x ** n raises for a negative or zero base",
     """x ** 2 at x = -3 is 9 with derivative -6, and at x = 0 it is 0 with derivative 0. Your
     __pow__'s backward takes math.log of the base (the derivative with respect to the
     exponent), which is undefined for a base <= 0, so backward() raises. With a constant
     exponent that term is not needed at all.""",
     "(Value(-3.0) ** 2).backward()  ->  ValueError: math domain error",
     "for a number exponent, drop the log term:\n"
     "self.grad += other * self.data ** (other - 1) * out.grad",
     "lecture 1:38")
_add("sigmoid-overflow", "sigmoid overflows for large negative inputs",
     """sigmoid(x) written as 1 / (1 + exp(-x)) overflows for x below about -709: exp(-x) is
     larger than any float, so math.exp raises OverflowError although sigmoid is just 0
     there. The stable form uses exp of a non-positive number only.""",
     "Value(-800.0).sigmoid()  ->  OverflowError (should be 0.0)",
     "s = 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))")
_add("missing-rsub", "no __rsub__: `2 - a` raises TypeError",
     """Python evaluates 2 - a as int.__sub__(2, a), which does not know your class, and then
     falls back to a.__rsub__(2). Without __rsub__ you get a TypeError: loud, not a wrong
     number, so it is a warning. It belongs next to the __sub__ shown.""",
     "2 - Value(1.7)  ->  TypeError",
     "def __rsub__(self, other): return other + (-self)    # next to __sub__",
     "textbook pitfall 4")
# numpy Tensor engines (the textbook's P1 chapter)
_add("missing-unbroadcast", "a broadcast input's gradient is not summed back to its shape",
     """In x + b with x of shape (3, 4) and b of shape (4,), numpy broadcasts b over the rows.
     The gradient of b is then the sum of out.grad over the broadcast axes, shape (4,); your
     op hands b the whole (3, 4) gradient, so numpy refuses to add it (or b.grad gets the
     wrong shape). Every op whose inputs can broadcast (+, *, ...) must sum back.""",
     "x: (3, 4), b: (4,); ((x + b) * r).sum().backward()  ->  ValueError or b.grad (3, 4)",
     "def unbroadcast(g, shape):\n"
     "    while g.ndim > len(shape): g = g.sum(axis=0)\n"
     "    for i, n in enumerate(shape):\n"
     "        if n == 1 and g.shape[i] != 1: g = g.sum(axis=i, keepdims=True)\n"
     "    return g\n"
     "and in each broadcasting op's backward: unbroadcast(grad, a.shape), "
     "unbroadcast(grad, b.shape)",
     "textbook P1: broadcasting")
_add("matmul-grad-not-transposed", "matmul's backward does not use the transposes",
     """For out = a @ b, the gradients are a.grad += out.grad @ b.T and b.grad += a.T @
     out.grad. Without the transposes the shapes only line up for square matrices (and the
     numbers are still wrong); for (2, 3) @ (3, 4) numpy raises.""",
     "x: (2, 3), w: (3, 4); ((x @ w) * r).sum().backward()",
     "self.grad += out.grad @ other.data.T\nother.grad += self.data.T @ out.grad",
     "textbook P1: matmul")
_add("sum-axis-grad", "sum(axis)'s backward does not put the reduced axis back",
     """x.sum(axis=1) of a (2, 3) array has shape (2,). Its gradient must be spread over the
     summed axis: out.grad reshaped to (2, 1) (np.expand_dims(g, axis)) and broadcast to
     (2, 3). Broadcasting (2,) directly lines it up with the wrong axis (or fails), unless
     keepdims=True kept the axis.""",
     "(x.sum(axis=1) * r).sum().backward()  ->  x.grad wrong",
     "g = out.grad if axis is None or keepdims else np.expand_dims(out.grad, axis)\n"
     "self.grad += np.broadcast_to(g, self.data.shape)", "textbook P1: reductions")
_add("mean-grad-not-divided", "mean's backward does not divide by the count",
     """mean is sum / n, so each input gets out.grad / n, where n is the number of elements
     averaged (all of them, or the size of the axis). Your backward spreads out.grad
     without dividing, n times too large.""",
     "x.mean().backward() on a (2, 3) array  ->  x.grad = 1 everywhere, not 1/6",
     "self.grad += np.broadcast_to(g, self.data.shape) / n   # n = size averaged over",
     "textbook P1: reductions")
_add("reshape-grad-not-reshaped", "reshape's backward does not reshape the gradient back",
     """out = x.reshape(3, 2) has the output's shape; its gradient must be reshaped to the
     input's shape before it is added: out.grad.reshape(self.data.shape).""",
     "(x.reshape(3, 2) * r).sum().backward() with x (2, 3)  ->  ValueError",
     "self.grad += out.grad.reshape(self.data.shape)", "textbook P1: views")
_add("transpose-grad", ".T's backward does not transpose the gradient back",
     """out = x.T has the transposed shape; its gradient must be transposed back before it is
     added to x.grad: out.grad.T.""",
     "(x.T * r).sum().backward() with x (2, 3)  ->  ValueError or a wrong grad",
     "self.grad += out.grad.T", "textbook P1: views")
_add("softmax-unstable", "softmax overflows for large logits",
     """exp(1000) is inf, and inf / inf is nan: softmax of logits around 1000 gives nan.
     Softmax does not change when a constant is subtracted from every logit, so subtract
     the row's max first: every exp is then at most 1.""",
     "Tensor([[1000., 0., -1000.]]).softmax()  ->  nan",
     "e = np.exp(self.data - self.data.max(axis=axis, keepdims=True))",
     "textbook P1: numerical stability")
_add("cross-entropy-unstable", "cross-entropy takes log of a probability that underflows",
     """log(softmax(z)[target]) is -inf when that probability is below ~1e-308 (a
     confidently wrong prediction), so the loss is inf although it is just
     logsumexp(z) - z[target], about 1800 for logits 1000 apart. Compute it in log space.""",
     "logits [-1000, 1000, -800], target 2  ->  inf (should be 1800)",
     "m = z.max(axis=1, keepdims=True)\n"
     "lse = m[:, 0] + np.log(np.exp(z - m).sum(axis=1))\n"
     "loss = (lse - z[np.arange(N), targets]).mean()", "textbook P1: numerical stability")
_add("tensor-grad-overwritten", "`=` instead of `+=` in a Tensor op's backward",
     """A tensor used twice (x * z + x) must receive the sum of both paths' gradients. An
     op's backward assigns its input's gradient (x.grad = ...) instead of adding to it, so
     the path that ran first is lost.""",
     "(x * z + x).sum().backward()  ->  x.grad = z, not z + 1",
     "self.grad += ...   # in every op's backward: add, never assign", "textbook pitfall 1")
_add("class-not-found", "no Value class found",
     """The checker looks for a class defined in the file that takes a number and keeps it
     with a gradient (Value(2.0).data == 2.0 and .grad == 0, under any attribute names).
     Name it with PATH:ClassName if it is not found; if the class statement itself raised,
     its line is shown.""",
     "micrograd check my_engine.py:Scalar", "micrograd check FILE.py:YourClassName")
_add("child-crashed", "the checker's sandbox process died",
     """The process running your code stopped abruptly (a crash in C code, or the operating
     system killed it, e.g. for memory). The probe it was running is shown.""",
     "see the probe",
     "run that probe's expression in your own Python: look for C code (ctypes, a numpy\n"
     "call on a huge array) or deep recursion in the ops it uses")
_add("total-timeout", "the whole check ran out of time",
     """The check's total time limit was reached; the probes that completed are reported and
     the rest were not run. Raise --timeout if your engine is just slow.""",
     "micrograd check FILE --timeout 60",
     "raise --timeout, or time the probe that was running in your own Python: a slow op\n"
     "(a Python loop over a big list) or an endless loop")
_add("not-run", "not run", """The check stopped before this probe.""", "", "")


def explain(diag_id: str) -> Diagnosis:
    """The Diagnosis for an id such as 'grad-overwritten' or 'wrong-local-derivative:exp'."""
    base, _, op = diag_id.partition(":")
    if base == "missing" or (base.startswith("missing-") and base not in CATALOG):
        name = base[len("missing-"):]
        return Diagnosis(diag_id, f"op not implemented: {name}",
                         f"Your class has no {name} op. Unless a course requires it "
                         "(--require), probes that need it are listed as missing, not failed.",
                         OP_SYMBOL.get(name, name),
                         local_derivative_fix(name, f"def {name}(self): ..."), "")
    entry = CATALOG.get(diag_id) or CATALOG.get(base)
    if entry is None:  # the backprop-ninja mistakes (check --ninja) have their own table
        entry = NINJA_CATALOG.get(diag_id)
    if entry is None:
        return Diagnosis(diag_id, diag_id.replace("-", " "), "The probe failed.", "", "")
    if not op:
        return entry
    fix = local_derivative_fix(op, entry.fix)
    example = OP_SYMBOL.get(op, entry.example)
    if base == "grad-assigned":
        example = (f"y = {OP_SYMBOL.get(op, op)} + a; y.backward()  "
                   f"->  a.grad should be {op}'(a) + 1")
    # a wrong or raising forward pass is not fixed by the op's derivative formula
    own_fix = base in ("wrong-forward", "exception-in-op")
    return Diagnosis(diag_id, f"{entry.title}: {op}", entry.explanation, example,
                     entry.fix if own_fix else fix, entry.pitfall)
