"""The `micrograd` command: argument parsing and the errors a user sees."""

import pytest

from micrograd.cli import main, parse_assignments


def test_assignments_become_floats():
    assert parse_assignments(["a=2", "b=-3", "w1=6.8813735870195432"]) == {
        "a": 2.0, "b": -3.0, "w1": 6.8813735870195432}


@pytest.mark.parametrize("items,message", [
    (["a"], "expected NAME=NUMBER"),
    (["=2"], "expected NAME=NUMBER"),
    (["1a=2"], "expected NAME=NUMBER"),
    (["a=two"], "expected a number"),
    (["a=nan"], "finite"),
    (["a=inf"], "finite"),
    (["a=1", "a=2"], "given twice"),
])
def test_bad_assignments_say_what_is_wrong(items, message):
    with pytest.raises(ValueError, match=message):
        parse_assignments(items)


def test_bad_value_on_the_command_line_exits_2_with_the_reason(capsys):
    assert main(["trace", "a*b", "a=2", "b=x"]) == 2
    err = capsys.readouterr().err
    assert "micrograd trace: error:" in err and "b: expected a number" in err


def test_trace_command_prints_the_lectures_gradients(capsys):
    assert main(["trace", "L = (a*b + c)*f", "a=2", "b=-3", "c=10", "f=-2"]) == 0
    out = capsys.readouterr().out
    # the lecture's hand-worked numbers
    for line in ("a.grad = 6.0", "b.grad = -4.0", "c.grad = -2.0", "f.grad = 4.0"):
        assert line in out
