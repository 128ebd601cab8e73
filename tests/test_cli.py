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


# --- an expression that starts with unary minus ------------------------------------------------

@pytest.mark.parametrize("argv,grads", [
    # d(-x*y)/dx = -y, d(-x*y)/dy = -x
    (["trace", "-x*y", "x=2", "y=3"], {"x": "-3.0", "y": "-2.0"}),
    (["trace", "-2*x", "x=5"], {"x": "-2.0"}),
    (["trace", "-x", "x=5"], {"x": "-1.0"}),
    (["trace", "-(a + b)*a", "a=1", "b=2"], {"a": "-4.0", "b": "-1.0"}),  # -(2a + b)
    (["trace", "-x.tanh()", "x=0"], {"x": "-1.0"}),  # -(1 - tanh(0)**2)
])
def test_trace_of_an_expression_starting_with_minus(capsys, argv, grads):
    assert main(argv) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    for name, grad in grads.items():
        assert f"{name}.grad = {grad}" in out, out


@pytest.mark.parametrize("before,after", [
    ([], ["-o", "{out}"]),
    (["-o", "{out}"], []),
    (["--output={out}"], []),
    (["-o{out}", "--rankdir", "TB"], []),
    ([], ["-o", "{out}", "--max-depth", "3"]),
])
def test_graph_of_an_expression_starting_with_minus(tmp_path, capsys, before, after):
    out = str(tmp_path / "g.mmd")
    fill = lambda args: [a.format(out=out) for a in args]  # noqa: E731
    assert main(["graph", *fill(before), "-x*y", "x=2", "y=3", *fill(after)]) == 0, \
        capsys.readouterr().err
    mermaid = (tmp_path / "g.mmd").read_text()
    assert "data -6.0000" in mermaid and "grad -3.0000" in mermaid  # -x*y and x's gradient


def test_misspelt_options_are_still_argparse_errors(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["graph", "--maxdepth", "3", "x", "x=1", "-o", "x.svg"])
    assert stop.value.code == 2 and "--maxdepth" in capsys.readouterr().err


# --- demo arguments are checked before training ------------------------------------------------

def test_demo_with_an_unwritable_output_folder_fails_before_training(tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for folder in (str(blocker), str(blocker / "plots")):
        assert main(["demo", "moons", "--out", folder]) == 2
        captured = capsys.readouterr()
        assert "step" not in captured.out  # no training happened
        assert captured.err.startswith(f"micrograd demo: error: cannot write the plots to "
                                       f"--out {folder!r}")
        assert "choose a folder" in captured.err and len(captured.err.splitlines()) == 1


@pytest.mark.parametrize("seed", ["-1", "4294967296", "1.5", "abc"])
def test_demo_seed_outside_numpys_range_is_a_clear_argument_error(capsys, seed):
    with pytest.raises(SystemExit) as stop:
        main(["demo", "moons", "--seed", seed])
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert f"the seed must be a whole number from 0 to {2**32 - 1}, got {seed!r}" in err
    assert "Traceback" not in err and "sklearn" not in err


def test_demo_seed_at_the_ends_of_the_range_is_accepted():
    from micrograd.cli import build_parser

    for seed in (0, 2**32 - 1):
        args = build_parser().parse_args(["demo", "tiny", "--seed", str(seed)])
        assert args.seed == seed
