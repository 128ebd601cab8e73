"""The `micrograd` command: argument parsing and the errors a user sees."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from micrograd.cli import main, parse_assignments

SRC = str(Path(__file__).resolve().parents[2] / "src")


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
    (["--max-depth", "2"], ["-o", "{out}"]),  # an option with a value before the expression
    (["--rankdir", "TB", "--timeout", "5", "-o", "{out}"], []),
])
def test_graph_of_an_expression_starting_with_minus(tmp_path, capsys, before, after):
    out = str(tmp_path / "g.mmd")

    def fill(args):
        return [a.format(out=out) for a in args]

    assert main(["graph", *fill(before), "-x*y", "x=2", "y=3", *fill(after)]) == 0, \
        capsys.readouterr().err
    mermaid = (tmp_path / "g.mmd").read_text()
    assert "data -6.0000" in mermaid and "grad -3.0000" in mermaid  # -x*y and x's gradient


@pytest.mark.parametrize("abbreviated", [["--max", "2"], ["--rank", "TB"], ["--time", "5"],
                                         ["--max=2"], ["--outp", "{out}"]])
def test_abbreviated_options_are_argparse_errors_that_name_them(tmp_path, capsys, abbreviated):
    """argparse would take --max for --max-depth; protect_expression knows full names only,
    so an abbreviation used to turn "-x*y" into 'unrecognized arguments: -x*y'."""
    out = str(tmp_path / "g.mmd")
    argv = ["graph", *[a.format(out=out) for a in abbreviated], "-x*y", "x=2", "y=3", "-o", out]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and abbreviated[0].split("=")[0] in err, err
    assert "unrecognized arguments" in err and not (tmp_path / "g.mmd").exists()


def test_protect_expression_knows_every_option_of_graph_and_trace(capsys):
    """build_parser records each graph/trace option (and if it takes a value) for
    protect_expression; the oracle is argparse's own --help text."""
    from micrograd.cli import build_parser

    recorded = {}
    build_parser(recorded)
    for command, with_value in (("graph", {"-o", "--output", "--rankdir", "--max-depth",
                                           "--timeout"}), ("trace", set())):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        options_part = capsys.readouterr().out.split("options:")[1]
        shown = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", options_part))
        assert set(recorded[command]) == shown
        assert {option for option, value in recorded[command].items() if value} == with_value


def test_graph_timeout_default_is_draw_dots(capsys):
    from micrograd.cli import build_parser
    from micrograd.viz.dot import DOT_TIMEOUT

    args = build_parser().parse_args(["graph", "x", "x=1", "-o", "g.svg"])
    assert args.timeout == DOT_TIMEOUT
    with pytest.raises(SystemExit):
        main(["graph", "--help"])
    assert f"(default: {DOT_TIMEOUT:g})" in " ".join(capsys.readouterr().out.split())


def test_help_imports_neither_numpy_nor_graphviz():
    code = ("import sys\nfrom micrograd.cli import main\ntry:\n    main(['--help'])\n"
            "except SystemExit:\n    pass\n"
            "print([m for m in ('numpy', 'graphviz', 'torch') if m in sys.modules])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=SRC), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("[]"), result.stdout


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
