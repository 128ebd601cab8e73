"""A safe parser for the expressions the lecture writes, such as `(a*b + c)*f` or `tanh(x1*w1 + b)`.

The text is parsed with `ast.parse(mode="eval")` and the syntax tree is walked with a
whitelist; it is never given to `eval` or `exec`. Allowed:

    numbers, variable names, + - * / **, unary minus (and plus), parentheses,
    the Value ops called as functions `tanh(x)` or as methods `x.tanh()`,
    `(e := a*b)` to give an intermediate value a name, and a leading `L = ...` to name the output.

Everything else (attribute access outside the op names, imports, lambdas, comprehensions,
subscripts, dunder names, keyword arguments, comparisons, strings, ...) is rejected with an
error that points at the offending part. Variable names become the Values' labels.
"""

from __future__ import annotations

import ast
import numbers
import operator
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from micrograd import ops as registry
from micrograd.autograd import no_grad
from micrograd.engine import Value

# the Value ops of the op registry (micrograd/ops/table.py): exp, log, tanh, relu, ...
OPS = tuple(entry.methods[0] for entry in registry.scalar_ops())
# the registry's two-input ops Value spells with Python's operators (ops/binary.py):
# "+" -> operator.add, ..., "**" -> operator.pow
ARITHMETIC = {entry.symbol: getattr(operator, entry.operators[0].strip("_"))
              for entry in registry.BINARY.values() if entry.operators}
MAX_LENGTH = 100_000  # characters; far beyond any hand-written expression
ALLOWED = (
    f"allowed: numbers, variable names, {' '.join(ARITHMETIC)}, unary minus, parentheses, "
    f"and the ops {', '.join(OPS)} as tanh(x) or x.tanh()"
)
_SYNTAX = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
_BINARY = {node: symbol for node, symbol in _SYNTAX.items() if symbol in ARITHMETIC}
_OPERATOR_NAMES = {
    ast.FloorDiv: "//", ast.Mod: "%", ast.MatMult: "@", ast.LShift: "<<", ast.RShift: ">>",
    ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&", ast.Not: "not", ast.Invert: "~",
}
_FORMS = {
    ast.Lambda: "a lambda", ast.ListComp: "a list comprehension",
    ast.SetComp: "a set comprehension", ast.DictComp: "a dict comprehension",
    ast.GeneratorExp: "a generator expression", ast.Subscript: "subscripts ([...])",
    ast.Compare: "a comparison", ast.BoolOp: "'and'/'or'", ast.IfExp: "'... if ... else ...'",
    ast.JoinedStr: "an f-string", ast.List: "a list", ast.Tuple: "a tuple", ast.Dict: "a dict",
    ast.Set: "a set", ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
    ast.Starred: "*unpacking", ast.Slice: "a slice", ast.Attribute: "attribute access",
}
_ROOT_LABEL = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=(?!=)")


class ExpressionError(ValueError):
    """The expression text is not one this parser accepts; the message says where and why."""


@dataclass
class Expression:
    """A parsed, checked expression: call `evaluate(values)` to build its graph of Values."""

    text: str
    tree: ast.Expression = field(repr=False)
    variables: tuple  # names that need a value, in order of first use
    output_label: str = ""  # from a leading `L = ...`
    _offset: int = field(default=0, repr=False)  # columns taken by `L = ` in text

    def evaluate(self, values: Mapping[str, float]) -> Value:
        """Build the graph with each variable a labelled leaf Value holding values[name]."""
        missing = [name for name in self.variables if name not in values]
        if missing:
            example = " ".join(f"{name}=1.0" for name in missing)
            raise ExpressionError(
                f"no value given for {', '.join(missing)} in {self.text!r} "
                f"(give every variable a number, e.g. {example})"
            )
        unused = [name for name in values if name not in self.variables]
        if unused:
            wanted = ", ".join(self.variables) or "none"
            raise ExpressionError(
                f"value given for {', '.join(unused)}, which {self.text!r} does not use "
                f"(its variables: {wanted})"
            )
        for name, number in values.items():
            if isinstance(number, bool) or not isinstance(number, numbers.Real):
                raise ExpressionError(
                    f"the value of {name} must be a number, got {type(number).__name__}")
        env = {name: Value(float(values[name]), label=name) for name in self.variables}
        try:
            result = _Evaluator(self, env).visit(self.tree.body)
        except RecursionError:
            raise ExpressionError("the expression is nested too deeply to evaluate") from None
        if not isinstance(result, Value):
            result = Value(result)
        if self.output_label and not result.label:
            result.label = self.output_label
        return result

    __call__ = evaluate

    def error(self, node: ast.AST, message: str) -> ExpressionError:
        return ExpressionError(_point(self.text, node, message, self._offset))


def parse_expression(text: str) -> Expression:
    """Parse and check `text` without running it; raise ExpressionError pointing at a bad part."""
    if not isinstance(text, str):
        raise TypeError(f"an expression must be a string, got {type(text).__name__}")
    if not text.strip():
        raise ExpressionError("the expression is empty; write one such as (a*b + c)*f")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"the expression has {len(text)} characters; at most {MAX_LENGTH}")
    output_label, offset, body = "", 0, text
    match = _ROOT_LABEL.match(text)
    if match:
        output_label, offset, body = match.group(1), match.end(), text[match.end():]
    offset += len(body) - len(body.lstrip())  # ast counts columns from the first character
    try:
        tree = ast.parse(body.strip(), mode="eval")
    except SyntaxError as error:
        raise ExpressionError(_syntax_message(text, error, offset)) from None
    except RecursionError:  # a sum of thousands of terms is a tree thousands deep
        raise ExpressionError("the expression is nested too deeply (or has too many terms "
                              "in a row) for Python's parser; build a graph this big in "
                              "Python instead") from None
    except (ValueError, MemoryError) as error:
        raise ExpressionError(f"cannot parse the expression: {error}") from None
    expression = Expression(text, tree, (), output_label, offset)
    checker = _Checker(expression)
    try:
        checker.visit(tree.body)
    except RecursionError:
        raise ExpressionError("the expression is nested too deeply") from None
    if output_label in checker.variables or output_label in checker.defined:
        raise ExpressionError(
            f"the output name {output_label!r} is also used inside the expression; "
            f"give the output another name")
    if output_label and (output_label in OPS or _is_dunder(output_label)):
        raise ExpressionError(f"{output_label!r} cannot name the output")
    expression.variables = tuple(checker.variables)
    return expression


def evaluate_expression(text: str, values: Mapping[str, float]) -> Value:
    """parse_expression(text).evaluate(values): the output Value of the built graph."""
    return parse_expression(text).evaluate(values)


# --- checking: a whitelist walk in evaluation order ---------------------------------------

def _is_dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


class _Checker:
    def __init__(self, expression: Expression):
        self.expression = expression
        self.variables: list = []  # free names, first use first
        self.defined: set = set()  # names given by (name := ...)
        self.walrus_targets = {n.target.id for n in ast.walk(expression.tree)
                               if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name)}

    def fail(self, node: ast.AST, message: str) -> ExpressionError:
        return self.expression.error(node, message)

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                kind = "complex numbers" if isinstance(value, complex) else repr(value)
                raise self.fail(node, f"{kind} cannot be used, only real numbers; {ALLOWED}")
        elif isinstance(node, ast.Name):
            self.name(node)
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINARY:
                symbol = _OPERATOR_NAMES.get(type(node.op), type(node.op).__name__)
                raise self.fail(node, f"the operator {symbol} is not supported; {ALLOWED}")
            self.visit(node.left)
            self.visit(node.right)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                symbol = _OPERATOR_NAMES.get(type(node.op), type(node.op).__name__)
                raise self.fail(node, f"the operator {symbol} is not supported; {ALLOWED}")
            self.visit(node.operand)
        elif isinstance(node, ast.Call):
            self.call(node)
        elif isinstance(node, ast.NamedExpr):
            target = node.target.id
            if _is_dunder(target) or target in OPS:
                raise self.fail(node.target, f"{target!r} cannot name a value")
            if target in self.defined:
                raise self.fail(node.target, f"{target!r} is already defined")
            if target in self.variables:
                raise self.fail(node.target, f"{target!r} is already a variable")
            self.visit(node.value)
            self.defined.add(target)
        else:
            what = _FORMS.get(type(node), f"a {type(node).__name__} node")
            raise self.fail(node, f"{what} cannot be used in an expression; {ALLOWED}")

    def name(self, node: ast.Name) -> None:
        name = node.id
        if _is_dunder(name):
            raise self.fail(node, f"dunder names such as {name} are not allowed; {ALLOWED}")
        if name in OPS:
            raise self.fail(node, f"{name} is an op: call it, as {name}(x) or x.{name}()")
        if name in self.defined:
            return
        if name in self.walrus_targets:
            raise self.fail(node, f"{name!r} is used before (name := ...) defines it")
        if name not in self.variables:
            self.variables.append(name)

    def call(self, node: ast.Call) -> None:
        if node.keywords:
            raise self.fail(node.keywords[0], "keyword arguments are not allowed; "
                                              "call an op with one value, as tanh(x)")
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                raise self.fail(arg, "*unpacking is not allowed; call an op as tanh(x)")
        func = node.func
        if isinstance(func, ast.Name):
            if _is_dunder(func.id):
                raise self.fail(func, f"dunder names such as {func.id} are not allowed; {ALLOWED}")
            if func.id not in OPS:
                raise self.fail(func, f"unknown function {func.id}(); the functions are "
                                      f"{', '.join(OPS)}")
            if len(node.args) != 1:
                raise self.fail(node, f"{func.id}() takes one value, as {func.id}(x); "
                                      f"got {len(node.args)}")
            self.visit(node.args[0])
        elif isinstance(func, ast.Attribute):
            if func.attr not in OPS:
                raise self.fail(node, f"attribute access .{func.attr} is not allowed; only the "
                                      f"op methods {', '.join(OPS)} as in x.tanh()")
            if node.args:
                raise self.fail(node, f".{func.attr}() takes no arguments, as x.{func.attr}()")
            self.visit(func.value)
        else:
            raise self.fail(func, f"only the ops can be called; {ALLOWED}")


# --- evaluation: builds Values; constant parts stay plain floats ---------------------------

class _Evaluator:
    def __init__(self, expression: Expression, env: dict):
        self.expression = expression
        self.env = env

    def visit(self, node: ast.AST):
        # the checker has let through only what is handled here; anything else ends below
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            try:
                return float(node.value)
            except OverflowError:
                raise self.expression.error(node, "this number is too large for a float") \
                    from None
        if isinstance(node, ast.Name):
            return self.env[node.id]
        if isinstance(node, ast.UnaryOp):
            operand = self.visit(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.BinOp):
            left, right = self.visit(node.left), self.visit(node.right)
            return _binary(_BINARY[type(node.op)], left, right)
        if isinstance(node, ast.Call):
            if isinstance(node.func, ast.Name):
                name, argument = node.func.id, node.args[0]
            elif isinstance(node.func, ast.Attribute):
                name, argument = node.func.attr, node.func.value
            else:
                raise self.expression.error(node, "not allowed")
            value = self.visit(argument)
            value = value if isinstance(value, Value) else Value(value)
            return getattr(value, name)()
        if isinstance(node, ast.NamedExpr):
            value = self.visit(node.value)
            value = value if isinstance(value, Value) else Value(value)
            if not value.label:
                value.label = node.target.id
            self.env[node.target.id] = value
            return value
        raise self.expression.error(node, "not allowed")  # the checker stops these first


def _binary(symbol: str, left, right):
    """left <symbol> right; two plain numbers fold to a float with IEEE results (no exceptions)."""
    constant = not isinstance(left, Value) and not isinstance(right, Value)
    if symbol == "**" and not isinstance(right, Value):
        right = int(right) if float(right).is_integer() and abs(right) < 2**53 else right
    if constant:
        with no_grad():
            return _binary(symbol, Value(left), right).data
    return ARITHMETIC[symbol](left, right)


# --- error messages that point -----------------------------------------------------------

def _point(text: str, node: ast.AST, message: str, offset: int) -> str:
    """message, then the line of text with ^^^ under node's columns."""
    lines = text.splitlines() or [""]
    row = getattr(node, "lineno", 1) - 1
    shift = offset if row == 0 else 0
    body_line = lines[row][shift:] if row < len(lines) else ""
    start = _chars(body_line, getattr(node, "col_offset", 0))
    end_row = getattr(node, "end_lineno", row + 1) - 1
    end = (_chars(body_line, getattr(node, "end_col_offset", None) or 0)
           if end_row == row else len(body_line))
    end = max(end, start + 1)
    line = lines[row] if row < len(lines) else ""
    snippet = body_line[start:end]
    where = f"line {row + 1}, column {start + shift + 1}" if len(lines) > 1 else \
        f"column {start + shift + 1}"
    return (f"{message}\n  at {where}: {snippet!r}\n    {line}\n"
            f"    {' ' * (start + shift)}{'^' * (end - start)}")


def _chars(line: str, byte_offset: int) -> int:
    """ast counts columns in UTF-8 bytes; convert to characters."""
    return len(line.encode("utf-8")[:byte_offset].decode("utf-8", errors="ignore"))


def _syntax_message(text: str, error: SyntaxError, offset: int) -> str:
    lines = text.splitlines() or [""]
    row = (error.lineno or 1) - 1
    shift = offset if row == 0 else 0
    column = max((error.offset or 1) - 1, 0) + shift
    line = lines[row] if row < len(lines) else ""
    hint = ""
    if re.search(r"\b(import|lambda|def|class|for|while|with|del|return|global)\b", text):
        hint = " (statements such as import are not expressions)"
    return (f"syntax error: {error.msg}{hint}\n  at column {column + 1}\n    {line}\n"
            f"    {' ' * column}^\n  {ALLOWED}")
