"""The safe expression parser: the lecture's expressions work, every forbidden form is refused."""

import builtins
import math

import pytest

from micrograd.viz import ExpressionError, evaluate_expression, parse_expression

B = 6.8813735870195432

# (expression, values, expected output, {variable: expected gradient}) -- hand-worked
ACCEPTED = [
    ("(a*b + c)*f", dict(a=2, b=-3, c=10, f=-2), -8.0, dict(a=6, b=-4, c=-2, f=4)),
    ("L = (a*b + c)*f", dict(a=2, b=-3, c=10, f=-2), -8.0, dict(a=6, b=-4, c=-2, f=4)),
    ("(d := (e := a*b) + c) * f", dict(a=2, b=-3, c=10, f=-2), -8.0, dict(a=6, b=-4)),
    ("tanh(x1*w1 + x2*w2 + b)", dict(x1=2, x2=0, w1=-3, w2=1, b=B), 1 / math.sqrt(2),
     dict(x1=-1.5, w1=1.0, x2=0.5, w2=0.0, b=0.5)),
    ("(x1*w1 + x2*w2 + b).tanh()", dict(x1=2, x2=0, w1=-3, w2=1, b=B), 1 / math.sqrt(2),
     dict(x1=-1.5, w1=1.0, x2=0.5, w2=0.0, b=0.5)),
    # the lecture's tanh written with exp: (e^2n - 1)/(e^2n + 1)
    ("(exp(2*n) - 1) / (exp(2*n) + 1)", dict(n=0.8813735870195432), 1 / math.sqrt(2),
     dict(n=0.5)),
    ("a*b + a", dict(a=2, b=3), 8.0, dict(a=4, b=2)),  # the textbook's first example
    ("a + a", dict(a=3), 6.0, dict(a=2)),  # the lecture's bug case
    ("-x**2 + +x", dict(x=3), -6.0, dict(x=-5)),
    ("2**x", dict(x=3), 8.0, dict(x=8 * math.log(2))),
    ("x**y", dict(x=2, y=3), 8.0, dict(x=12, y=8 * math.log(2))),
    ("x ** (1/2)", dict(x=4), 2.0, dict(x=0.25)),
    ("relu(x) + x.relu() + abs(x) + sqrt(x) + log(x)", dict(x=4), 4 + 4 + 4 + 2 + math.log(4),
     dict(x=1 + 1 + 1 + 0.25 + 0.25)),
    ("sin(x) * cos(x)", dict(x=0.5), math.sin(0.5) * math.cos(0.5), dict(x=math.cos(1.0))),
    ("sigmoid(x)", dict(x=0.0), 0.5, dict(x=0.25)),
    ("x.exp().log()", dict(x=1.5), 1.5, dict(x=1.0)),
    ("3", {}, 3.0, {}),
]


@pytest.mark.parametrize("text, values, output, grads", ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_accepts_lecture_expressions(text, values, output, grads):
    root = evaluate_expression(text, values)
    assert root.data == pytest.approx(output, rel=1e-12)
    root.backward()
    leaves = {}
    stack, seen = [root], set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if not node._prev and node.label:
            leaves[node.label] = node
        stack.extend(node._prev)
    for name, expected in grads.items():
        assert leaves[name].grad == pytest.approx(expected, rel=1e-9, abs=1e-12), name


def test_variable_names_become_labels_and_walrus_names_intermediates():
    expression = parse_expression("L = (d := (e := a*b) + c) * f")
    assert expression.variables == ("a", "b", "c", "f")
    L = expression.evaluate(dict(a=2, b=-3, c=10, f=-2))
    d, f = L._prev
    e, c = d._prev
    assert (L.label, d.label, f.label, e.label, c.label) == ("L", "d", "f", "e", "c")
    assert [v.label for v in e._prev] == ["a", "b"]


# (expression, words the message must contain, the snippet it must point at)
REJECTED = [
    ("__import__('os')", "dunder", "__import__"),
    ("import os", "syntax error", None),
    ("x.__class__", "attribute access", "x.__class__"),
    ("x.__class__.__bases__[0]", "subscripts", "x.__class__.__bases__[0]"),
    ("x.data", "attribute access", "x.data"),
    ("x.grad * 2", "attribute access", "x.grad"),
    ("x.backward()", "attribute access .backward", "x.backward()"),
    ("(lambda: 1)()", "only the ops can be called", "lambda: 1"),
    ("lambda x: x", "lambda", "lambda x: x"),
    ("[x for x in y]", "list comprehension", "[x for x in y]"),
    ("sum(x for x in y)", "unknown function sum", "sum"),
    ("{x for x in y}", "set comprehension", "{x for x in y}"),
    ("x[0]", "subscripts", "x[0]"),
    ("__x__ + 1", "dunder", "__x__"),
    ("tanh(x=1)", "keyword arguments", "x=1"),
    ("tanh(*xs)", "unpacking", "*xs"),
    ("tanh(x, y)", "takes one value", "tanh(x, y)"),
    ("x.tanh(2)", "takes no arguments", "x.tanh(2)"),
    ("open('f')", "unknown function open", "open"),
    ("eval('1')", "unknown function eval", "eval"),
    ("a // b", "operator //", "a // b"),
    ("a % b", "operator %", "a % b"),
    ("a @ b", "operator @", "a @ b"),
    ("~a", "operator ~", "~a"),
    ("not a", "operator not", "not a"),
    ("a < b", "comparison", "a < b"),
    ("a and b", "'and'/'or'", "a and b"),
    ("a if b else c", "if", "a if b else c"),
    ("'text'", "real numbers", "'text'"),
    ("f'{x}'", "f-string", "f'{x}'"),
    ("1j * x", "complex", "1j"),
    ("True + x", "real numbers", "True"),
    ("(a, b)", "tuple", "(a, b)"),
    ("tanh + 1", "is an op", "tanh"),
    ("e + (e := a)", "used before", "e"),
    ("a +", "syntax error", None),
    ("", "empty", None),
]


@pytest.mark.parametrize("text, words, snippet", REJECTED, ids=[r[0] or "empty" for r in REJECTED])
def test_rejects_forbidden_forms_pointing_at_them(text, words, snippet):
    with pytest.raises(ExpressionError) as caught:
        parse_expression(text)
    message = str(caught.value)
    assert words in message
    if snippet is not None:
        assert f"{snippet!r}" in message  # names the offending part...
        column = text.index(snippet)
        lines = message.splitlines()
        caret = next(line for line in lines if line.strip().startswith("^"))
        assert caret.index("^") - 4 == column  # ...and points at its column
        assert f"column {column + 1}" in message


def test_pointer_accounts_for_an_output_name():
    with pytest.raises(ExpressionError) as caught:
        parse_expression("L = a // b")
    assert "column 5" in str(caught.value)


def test_missing_variables_are_all_listed():
    with pytest.raises(ExpressionError) as caught:
        evaluate_expression("(a*b + c)*f", dict(a=2))
    message = str(caught.value)
    assert "b, c, f" in message and "b=1.0 c=1.0 f=1.0" in message


def test_unknown_value_names_are_refused():
    with pytest.raises(ExpressionError, match="bb, which"):
        evaluate_expression("a*b", dict(a=1, b=2, bb=3))


def test_non_number_value_is_refused():
    with pytest.raises(ExpressionError, match="must be a number"):
        evaluate_expression("a*b", dict(a=1, b="2"))


def test_constant_overflow_gives_inf_not_a_hang_or_crash():
    root = evaluate_expression("x * 9**9**9**9", dict(x=1.0))
    assert root.data == math.inf


def test_huge_literal_is_a_clear_error():
    with pytest.raises(ExpressionError):
        evaluate_expression("x * 1" + "0" * 400, dict(x=1.0))


def test_deep_nesting_is_a_clear_error():
    with pytest.raises(ExpressionError):
        parse_expression("(" * 500 + "x" + ")" * 500)


def test_never_calls_eval_or_exec(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("eval/exec must not be used")

    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    assert evaluate_expression("tanh(a*b)", dict(a=1, b=0)).data == 0.0


def test_error_is_a_value_error_for_the_cli():
    assert issubclass(ExpressionError, ValueError)


def test_a_sum_too_long_for_pythons_parser_says_what_to_do():
    # 8000 terms in a row: ast builds a left-leaning tree 8000 deep and gives up
    with pytest.raises(ExpressionError, match=r"too many terms.*in Python instead"):
        parse_expression(" + ".join(f"x*{k}" for k in range(8000)))
