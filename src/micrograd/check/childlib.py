"""The checker child's plain helpers: the probe-program language (also used by the parent for
its float reference) and the functions that read a learner's objects.

Standard library only, and no `micrograd` import: `child.py` loads this file by path, beside
the learner's code. Like the child, it binds the builtins it uses before any learner code
runs, so `builtins.abs = ...` in the learner's file does not reach it.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import json
import numbers
import operator
import os
import re
import threading
from collections.abc import Callable
from typing import Any

globals().update({name: value for name, value in vars(builtins).items()
                  if not name.startswith("_")})
_dumps = json.dumps

# --------------------------------------------------------------------------------------
# Probe programs: the Python subset both the child (on the learner's class) and the parent
# (on floats) evaluate. Statements: NAME = EXPR, EXPR, `for _ in range(N): ...`.
# Expressions: numbers, names, + - * / **, unary -, and method calls without arguments.
# --------------------------------------------------------------------------------------

BINARY: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.Pow: operator.pow}
UNARY: dict[type[ast.AST], Callable[[Any], Any]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}
MAX_LOOP = 10_000


# CPython 3.11 turns a parse into Python AST objects with one recursion-depth counter per
# interpreter, not per thread: two threads parsing at once (check_engine from a thread pool:
# the parent parses probe programs and the learner's source) can trip it into "SystemError:
# AST constructor recursion depth mismatch". Every parse in the checker takes this lock.
PARSE_LOCK = threading.Lock()


def parse_program(text: str) -> list[ast.stmt]:
    """Parse a probe program, refusing anything outside the subset (a ValueError says what)."""
    with PARSE_LOCK:
        tree = ast.parse(text, mode="exec")
    placed: set[int] = set()  # the range(N) of a loop, the .method of a call: allowed there only
    for node in ast.walk(tree):
        if isinstance(node, ast.For) and _is_range_loop(node) and isinstance(node.iter, ast.Call):
            placed |= {id(node.iter), id(node.iter.func)}
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            placed.add(id(node.func))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and id(node) not in placed:
            raise ValueError("probe program: attributes only as x.method()")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and id(node) not in placed:
            raise ValueError("probe program: a call of a name is only `range(N)` in a loop")
        allowed = (ast.Module, ast.Assign, ast.Expr, ast.For, ast.BinOp, ast.UnaryOp,
                   ast.Name, ast.Load, ast.Store, ast.Constant, ast.Call, ast.Attribute,
                   *BINARY, *UNARY)
        if not isinstance(node, allowed):
            raise ValueError(f"probe program: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Constant) and (
                isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
            raise ValueError(f"probe program: only numbers, got {node.value!r}")
        if isinstance(node, ast.Assign) and (
                len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name)):
            raise ValueError("probe program: assign to one name")
        if isinstance(node, ast.For) and not _is_range_loop(node):
            raise ValueError("probe program: loops are `for _ in range(N):` only")
        if isinstance(node, ast.Call) and not isinstance(node.func, ast.Name) and not (
                isinstance(node.func, ast.Attribute) and is_method_name(node.func.attr)
                and not node.args and not node.keywords):
            raise ValueError("probe program: only x.method() calls, without arguments")
    return tree.body


def is_method_name(name: str) -> bool:
    """A probe program may call a public method (x.exp(), x.backward()): the op registry
    says which ops there are, and this file cannot import it (see the docstring)."""
    return name.isidentifier() and not name.startswith("_")


def _is_range_loop(node: ast.For) -> bool:
    it = node.iter
    return (isinstance(node.target, ast.Name) and not node.orelse and isinstance(it, ast.Call)
            and isinstance(it.func, ast.Name) and it.func.id == "range" and len(it.args) == 1
            and isinstance(it.args[0], ast.Constant) and isinstance(it.args[0].value, int)
            and 0 <= it.args[0].value <= MAX_LOOP)


def run_program(body: list[ast.stmt], env: dict[str, Any],
                call_method: Callable[[Any, str], Any]) -> Any:
    """Run a parsed probe program in `env`; the value of its last statement is the result."""
    result: Any = None
    for stmt in body:
        if isinstance(stmt, ast.Assign):
            target = stmt.targets[0]
            assert isinstance(target, ast.Name)  # parse_program allows nothing else
            result = env[target.id] = _evaluate(stmt.value, env, call_method)
        elif isinstance(stmt, ast.Expr):
            result = _evaluate(stmt.value, env, call_method)
        elif isinstance(stmt, ast.For):
            count = stmt.iter.args[0] if isinstance(stmt.iter, ast.Call) else None
            assert isinstance(count, ast.Constant) and isinstance(count.value, int)  # range(N)
            for _ in range(count.value):
                result = run_program(stmt.body, env, call_method)
    return result


def _evaluate(node: ast.expr, env: dict[str, Any], call_method: Callable[[Any, str], Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.BinOp):
        return BINARY[type(node.op)](_evaluate(node.left, env, call_method),
                                     _evaluate(node.right, env, call_method))
    if isinstance(node, ast.UnaryOp):
        return UNARY[type(node.op)](_evaluate(node.operand, env, call_method))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return call_method(_evaluate(node.func.value, env, call_method), node.func.attr)
    raise ValueError(f"probe program: cannot evaluate {type(node).__name__}")



BINARY_TENSOR_OPS = {"add": operator.add, "mul": operator.mul, "matmul": operator.matmul}
MAX_ITEMS = 400  # numbers in one reported array


def plain(x: Any) -> Any:
    """A number, or an array as nested lists of numbers (numpy's tolist); else a repr."""
    value = number(x)
    if not isinstance(value, dict):
        return value
    try:
        listed = x.tolist() if callable(getattr(x, "tolist", None)) else None
        if isinstance(listed, (int, float)):
            return float(listed)
        if isinstance(listed, list) and len(_dumps(listed)) < MAX_ITEMS * 30:
            return {"array": listed, "shape": [int(n) for n in x.shape]}
    except BaseException:
        pass
    return value


BACKWARD_NAMES = ("backward", "backprop", "back_prop", "backpropagate", "backward_pass",
                  "back_propagate", "propagate")
TENSOR_ATTRS = ("__matmul__", "sum", "mean", "reshape", "T", "softmax", "cross_entropy")


PYTHON_LINE_END = re.compile(r"\r\n|\r|\n")


def python_lines(text: str, keepends: bool = False) -> list[str]:
    """Lines as Python's tokenizer sees them: only \\n, \\r\\n and \\r end one (str.splitlines
    also splits at U+2028, U+0085, form feeds..., which may sit inside a string literal)."""
    if not text:
        return []
    ends = [m.end() if keepends else m.start() for m in PYTHON_LINE_END.finditer(text)]
    starts = [0] + [m.end() for m in PYTHON_LINE_END.finditer(text)]
    lines = [text[start:end] for start, end in zip(starts, ends, strict=False)]
    if starts[-1] < len(text):
        lines.append(text[starts[-1]:])
    return lines


def is_import(unit: Any) -> bool:
    return isinstance(unit, ast.Module) and len(unit.body) == 1 \
        and isinstance(unit.body[0], (ast.Import, ast.ImportFrom))


def instance_state(obj: Any) -> dict[str, Any]:
    """An instance's own attributes: its __dict__ and the __slots__ of its classes."""
    try:
        state = dict(object.__getattribute__(obj, "__dict__"))
    except AttributeError:
        state = {}
    for klass in type(obj).__mro__:
        slots = vars(klass).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in state and not name.startswith("__"):
                with contextlib.suppress(AttributeError):  # a slot never assigned
                    state[name] = object.__getattribute__(obj, name)
    return state


def is_two(value: Any) -> bool:
    """Value(2.0) keeps its 2.0 (a float, an int, or a numpy 0-d array)."""
    try:
        return not isinstance(value, (bool, str)) and float(value) == 2.0
    except (TypeError, ValueError):
        return False


def is_zero(value: Any) -> bool:
    try:
        return not isinstance(value, (bool, str)) and value is not None and float(value) == 0.0
    except (TypeError, ValueError):
        return False


# the operators; the op methods (exp, log, tanh, ...: the op registry's) come with the parent's
# load request, as "methods"
CAPABILITY_ATTRS = ("__add__", "__mul__", "__sub__", "__truediv__", "__pow__", "__neg__",
                    "__radd__", "__rmul__", "__rsub__", "__rtruediv__")


def call_method(obj: Any, name: str) -> Any:
    return getattr(obj, name)()


def future_flags(tree: ast.Module) -> int:
    """Compiler flags of `from __future__ import ...` (they must carry to later statements)."""
    import __future__
    flags = 0
    for stmt in tree.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__":
            for alias in stmt.names:
                feature = getattr(__future__, alias.name, None)
                flags |= getattr(feature, "compiler_flag", 0)
    return flags


def source_span(fn: Any, learner_file: str) -> list[int] | None:
    """[first line, last line] of a function in the learner's file, or None if elsewhere."""
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if code is None or os.path.abspath(code.co_filename) != learner_file:
        return None
    lines = [line for _, _, line in code.co_lines() if line is not None]
    return [code.co_firstlineno, max(lines + [code.co_firstlineno])]


def own_attr(node: Any, name: str) -> Any:
    """An attribute from the instance's own __dict__ (a property could build one per access)."""
    try:
        return object.__getattribute__(node, "__dict__").get(name)
    except (AttributeError, TypeError):
        return None


def instrument_walk(out: Any, prev: str = "_prev", step: str = "_backward"
                    ) -> tuple[list[Any], dict[int, list[Any]], list[int]] | None:
    """Wrap every node's backward step (`_backward`, or the engine's own name `step`) to record
    the order backward() calls them; the graph is read from the children attribute `prev`."""
    try:
        consumers: dict[int, list[Any]] = {}
        nodes, stack, seen = [], [out], {id(out)}
        while stack:
            node = stack.pop()
            nodes.append(node)
            for child in list(getattr(node, prev)):
                consumers.setdefault(id(child), []).append(node)
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        calls: list[int] = []
        for node in nodes:
            original = own_attr(node, step)
            if not callable(original):
                return None

            def counted(node_id: int = id(node), fn: Callable[[], Any] = original) -> Any:
                calls.append(node_id)
                return fn()

            object.__getattribute__(node, "__dict__")[step] = counted
        return nodes, consumers, calls
    except BaseException:
        return None


def summarize_walk(nodes: list[Any], consumers: dict[int, list[Any]],
                   calls: list[int], prev: str = "_prev") -> dict[str, Any] | None:
    """How many inner nodes ran their _backward twice; the first node run before a consumer."""
    if not calls:
        return None
    inner = [n for n in nodes if list(getattr(n, prev, ()))]
    twice = sum(1 for n in inner if calls.count(id(n)) > 1)
    position = {node_id: i for i, node_id in enumerate(calls)}
    early = None
    for node in inner:
        for consumer in consumers.get(id(node), []):
            if id(node) in position and id(consumer) in position \
                    and position[id(node)] < position[id(consumer)]:
                early = [safe_str(getattr(node, "_op", "?"))[:20],
                         safe_str(getattr(consumer, "_op", "?"))[:20]]
                break
        if early:
            break
    return {"twice": twice, "early": early}


def parameters_of(model: Any) -> list[Any]:
    for name in ("parameters", "params"):
        method = getattr(model, name, None)
        if callable(method):
            return list(method())
    raise AttributeError("the MLP has no parameters() method")


def repeated_parameter(params: list[Any]) -> list[str]:
    first: dict[int, int] = {}
    for i, p in enumerate(params):
        if id(p) in first:
            return [f"parameters()[{i}] is parameters()[{first[id(p)]}]"]
        first[id(p)] = i
    return []


def shared_neurons(mlp: Any) -> list[str]:
    for k, layer in enumerate(getattr(mlp, "layers", None) or []):
        neurons = getattr(layer, "neurons", None)
        if isinstance(neurons, list) and len(neurons) > len({id(n) for n in neurons}):
            return [f"layers[{k}].neurons holds {len(neurons)} entries but only "
                    f"{len({id(n) for n in neurons})} distinct Neuron object(s)"]
    return []


def number(x: Any) -> Any:
    """A number as JSON can carry it; anything else as {'type', 'repr'} for the parent."""
    if type(x) in (int, float) or (isinstance(x, numbers.Real) and not isinstance(x, bool)) \
            or (type(x).__name__ == "ndarray" and getattr(x, "size", 0) == 1):
        try:  # a 0-d or one-element ndarray: a scalar engine that keeps numpy numbers
            return float(x)
        except BaseException:
            pass
    return {"type": safe_str(type(x).__name__)[:60], "repr": safe_repr(x)}


def safe_repr(x: Any, limit: int = 80) -> str:
    try:
        text = repr(x)
        if type(text) is not str:
            raise TypeError
    except BaseException:  # a learner's __repr__ can raise anything
        text = f"<{type(x).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def safe_str(x: Any) -> str:
    try:
        text = str(x)
        return text if type(text) is str else "?"
    except BaseException:
        return "?"




CHILDREN_NAMES = ("_prev", "_children", "children", "prev", "parents", "_parents", "srcs",
                  "inputs", "_inputs", "operands")
STEP_NAMES = ("_backward", "backward_fn", "_backward_fn", "backward_step", "grad_fn",
              "_grad_fn", "_back")


def graph_names(out: Any, cls: type) -> tuple[str, str]:
    """The attribute holding a node's children (a non-empty collection of `cls` nodes) and
    the one holding its backward closure, read off one result node; the lecture's names by
    default."""
    state = instance_state(out)
    prev = next((k for k in CHILDREN_NAMES if _nodes(state.get(k), cls)),
                next((k for k, v in state.items() if _nodes(v, cls)), "_prev"))
    step = next((k for k in STEP_NAMES if callable(state.get(k))),
                next((k for k, v in state.items() if callable(v) and "back" in k), "_backward"))
    return prev, step


def _nodes(value: Any, cls: type) -> bool:
    try:
        items = list(value) if isinstance(value, (tuple, list, set, frozenset)) else []
    except BaseException:
        return False
    return bool(items) and all(isinstance(x, cls) for x in items)
