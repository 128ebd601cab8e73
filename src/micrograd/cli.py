"""The `micrograd` command. Thin: it parses arguments and calls the library.

    micrograd demo {tiny,xor,moons,digits,mnist,names,gpt} [--out DIR] [--steps N]
                   [--seed S] [--engine E] [--data PATH]
    micrograd graph "EXPR" a=2 b=-3 ... -o FILE.{svg,png,dot,mmd,html} [--max-depth N]
                    [--timeout S]
    micrograd trace "EXPR" a=2 b=-3 ...
    micrograd check PATH[:ClassName] [--json] [--junit FILE] [--timeout S] [--require OPS]
                    [--strict] [--backward NAME] [--data ATTR] [--grad ATTR]
    micrograd check --ninja NOTEBOOK_OR_SCRIPT [--json] [--junit FILE] [--timeout S]
    micrograd run SCRIPT.py [ARGS...]    (a PyTorch script, its `import torch` on micrograd)
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import tempfile
import warnings
from collections.abc import Iterable, Mapping, Sequence

from micrograd.viz.dot import DOT_TIMEOUT  # imports no optional package

MAX_SEED = 2**32 - 1  # numpy's (and so scikit-learn's) seeds are 0 .. 2**32 - 1
# an expression may start with unary minus; argparse would take "-x*y" for an option
EXPRESSION_COMMANDS = ("graph", "trace")


def parse_assignments(items: Sequence[str]) -> dict[str, float]:
    """['a=2', 'b=-3'] -> {'a': 2.0, 'b': -3.0}; a clear error for anything else."""
    values: dict[str, float] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or not name.isidentifier():
            raise ValueError(f"expected NAME=NUMBER such as a=2, got {item!r}")
        if name in values:
            raise ValueError(f"{name} is given twice; give each variable one value")
        try:
            value = float(text)
        except ValueError:
            raise ValueError(f"{name}: expected a number after '=', got {text!r}") from None
        if not math.isfinite(value):
            raise ValueError(f"{name}: expected a finite number, got {text!r}")
        values[name] = value
    return values


def seed_number(text: str) -> int:
    """--seed: a whole number that numpy and scikit-learn accept (0 .. 2**32 - 1)."""
    try:
        seed = int(text)
    except ValueError:
        seed = None
    if seed is None or not 0 <= seed <= MAX_SEED:
        raise argparse.ArgumentTypeError(
            f"the seed must be a whole number from 0 to {MAX_SEED}, got {text!r}")
    return seed


def positive_seconds(text: str) -> float:
    """--timeout: a positive number of seconds."""
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not (math.isfinite(seconds) and seconds > 0):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return seconds


def protect_expression(argv: Sequence[str],
                       options: Mapping[str, Mapping[str, bool]]) -> list[str]:
    """argv with a graph/trace expression that starts with '-' (unary minus: "-x*y",
    "-2*x") made unmistakable for argparse, which would take it for an unknown option.

    The expression is the first argument after the command that is not one of its options
    (or an option's value); a leading space makes argparse see a positional argument, and
    main() strips it again. Anything after `--` is left alone. One reading is ambiguous:
    "-ofile" is taken for `-o file`, not for minus a variable named ofile (write "- ofile").
    `options` is build_parser's {command: {option: takes a value}} of graph and trace.
    """
    argv = list(argv)
    if not argv or argv[0] not in EXPRESSION_COMMANDS:
        return argv
    takes_value = options[argv[0]]
    k = 1
    while k < len(argv):
        arg = argv[k]
        if arg == "--" or not arg.startswith("-") or arg.startswith(" "):
            return argv
        if arg in takes_value or arg.startswith("--") or _attached_value(arg, takes_value):
            # an option, an option with its value attached (-ofile.svg), or a misspelt or
            # abbreviated long option (argparse's error names it)
            k += 2 if takes_value.get(arg) else 1
            continue
        argv[k] = " " + arg  # the expression, e.g. "-x*y"
        return argv
    return argv


def _attached_value(arg: str, options: Iterable[str]) -> bool:
    """Is `arg` a short option with its value attached, like -ofile.svg or -o/tmp/g.png?

    Such a value is a file name: it ends in an output suffix or has no operator in it;
    "-o*x" or "-o - 1" are expressions (a variable named o)."""
    for option in options:
        if len(option) == 2 and arg.startswith(option) and len(arg) > 2:
            value = arg[2:]
            return (value.lower().endswith((".svg", ".png", ".dot", ".mmd", ".html"))
                    or not set(value) & set("*+-/() "))
    return False


def build_parser(expression_options: dict[str, dict[str, bool]] | None = None
                 ) -> argparse.ArgumentParser:
    """The `micrograd` parser. If given, `expression_options` is filled with the options of
    the commands that take an expression ({command: {option: takes a value}}), which
    protect_expression needs."""
    known = {} if expression_options is None else expression_options

    def record(command: str, *actions: argparse.Action) -> None:
        options = known.setdefault(command, {"-h": False, "--help": False})  # argparse's own
        for action in actions:
            options.update(dict.fromkeys(action.option_strings, action.nargs != 0))

    parser = argparse.ArgumentParser(
        prog="micrograd", description="A tiny autograd engine for learning backpropagation."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    from micrograd.demos import SUMMARIES  # plain text: imports neither numpy nor tqdm

    demo = commands.add_parser(
        "demo", help="train a small network and report loss/accuracy",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="the demos:\n" + "\n".join(f"  {name:<7}{line}"
                                                for name, line in SUMMARIES.items()))
    demo.add_argument("name", choices=list(SUMMARIES), help="which demo (listed above)")
    demo.add_argument("--out", default="out", help="folder for plots (default: out)")
    demo.add_argument("--steps", type=int, default=None,
                      help="training steps (default: the demo's)")
    demo.add_argument("--seed", type=seed_number, default=None,
                      help=f"random seed, 0 to {MAX_SEED} (default: the demo's)")
    demo.add_argument("--engine", choices=["scalar", "tensor"], default=None,
                      help="Value (scalar) or Tensor engine (default: scalar; digits, "
                           "mnist, names, gpt: tensor)")
    demo.add_argument("--data", metavar="PATH", default=None,
                      help="mnist, names, gpt: your copy of the demo's data, a file or the "
                           "folder holding it (mnist: its four idx files, .gz or not; names: "
                           "names.txt, one name a line; gpt: tinyshakespeare.txt or input.txt, "
                           "any UTF-8 text); default: download once into $MICROGRAD_DATA or "
                           "the cache folder")

    # no abbreviated options (--max for --max-depth): protect_expression knows full names only
    graph = commands.add_parser("graph", help="draw an expression's graph with its gradients",
                                allow_abbrev=False)
    graph.add_argument("expr", help='an expression such as "(a*b + c)*f", "tanh(x1*w1 + b)" '
                                    'or "-x*y"')
    graph.add_argument("values", nargs="*", help="variable values: a=2 b=-3 ...")
    record("graph",
           graph.add_argument("-o", "--output", required=True,
                              help="output file: .svg, .png, .dot, .mmd or .html"),
           graph.add_argument("--rankdir", default="LR", choices=["LR", "TB", "RL", "BT"]),
           graph.add_argument("--max-depth", type=int, default=None, metavar="N",
                              help="draw only the nodes within N ops of the output "
                                   "(for big graphs)"),
           graph.add_argument("--timeout", type=positive_seconds, default=DOT_TIMEOUT,
                              metavar="S", help=f"seconds to give Graphviz for .svg/.png "
                                                f"before stopping it (default: {DOT_TIMEOUT:g})"))

    trace = commands.add_parser("trace", help="print the backward pass step by step",
                                allow_abbrev=False)
    trace.add_argument("expr")
    trace.add_argument("values", nargs="*", help="variable values: a=2 b=-3 ...")
    record("trace")

    check = commands.add_parser(
        "check", help="diagnose the bugs in your own micrograd engine",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status:\n"
               "  0  no probe failed or errored (LIMIT, WARN and MISSING are allowed)\n"
               "  1  at least one probe FAILED (a bug; also a missing op named in --require)\n"
               "     or hit an ERROR (the file could not be loaded, or a probe hung);\n"
               "     with --strict, also a LIMIT\n"
               "  2  bad path or option\n"
               "  130  interrupted (Ctrl-C); 143 terminated (SIGTERM): nothing is left running\n"
               "LIMIT is what the lecture's engine and micrograd 0.1.0 do too, by design: a\n"
               "recursive sort too deep for a 2,000-op chain, stale intermediate gradients on\n"
               "a second backward(), the tanh formula overflowing at large |x|. WARN is a note\n"
               "about the file, not the engine: a top-level statement or a notebook cell that\n"
               "raised or ran too long (the rest of the file still runs, as in a notebook).")
    check.add_argument("path", help="your engine: file.py or file.py:ClassName; with --ninja "
                                    "(or found by itself), your makemore part 4 notebook")
    check.add_argument("--ninja", action="store_true",
                       help="check the hand-written tensor gradients of makemore part 4 "
                            "(backprop ninja) in a .py or .ipynb; chosen by itself for a file "
                            "that defines cmp and writes dlogprobs, dprobs, ...")
    check.add_argument("--strict", action="store_true",
                       help="the lecture's design limits (LIMIT) fail too (exit 1)")
    check.add_argument("--backward", metavar="NAME", default=None,
                       help="the backward entry: a method name (root.NAME()) or a module "
                            "function NAME(root); default: found by name")
    check.add_argument("--data", metavar="ATTR", default=None,
                       help="the attribute that holds a node's number (default: found)")
    check.add_argument("--grad", metavar="ATTR", default=None,
                       help="the attribute that holds a node's gradient (default: found)")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    check.add_argument("--timeout", type=float, default=None, metavar="S",
                       help="seconds for the whole check, reading and scanning the file "
                            "included (a finite number above 0; default: 20, --ninja: 40)")
    check.add_argument("--require", metavar="OPS", default=None,
                       help="ops that must exist, e.g. exp,tanh,relu (missing ones then fail)")

    run = commands.add_parser(
        "run", help="run a PyTorch script on micrograd (its `import torch` gets micrograd.torch)")
    run.add_argument("script", help="the script: path/to/script.py")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    expression_options: dict[str, dict[str, bool]] = {}
    parser = build_parser(expression_options)
    args = parser.parse_args(protect_expression(sys.argv[1:] if argv is None else argv,
                                                expression_options))
    if args.command == "run":  # the script's own errors end it as they would under python
        return _run_script(args.script, args.args)
    try:
        if args.command == "demo":
            from micrograd.demos import run_demo

            # the demos that write plots
            if args.name in ("moons", "digits", "mnist", "names", "gpt"):
                check_output_folder(args.out)  # before training, not after it
            if args.data is not None and args.name not in ("mnist", "names", "gpt"):
                raise ValueError(f"--data is for the mnist demo (and names, gpt); {args.name} "
                                 f"has its data built in")
            return run_demo(args.name, out=args.out, steps=args.steps, seed=args.seed,
                            engine=args.engine, data=args.data)
        if args.command in ("graph", "trace"):
            return _graph_or_trace(args)
        if args.command == "check":
            from micrograd.check import run_check
            from micrograd.check.ninja_source import is_ninja_file

            if args.ninja or is_ninja_file(args.path):
                from micrograd.check.ninja import TIMEOUT as NINJA_TIMEOUT
                from micrograd.check.ninja import run_ninja

                engine_only = [f"--{name}" for name in ("require", "strict", "backward",
                                                        "data", "grad") if getattr(args, name)]
                if engine_only:
                    raise ValueError(f"{', '.join(engine_only)}: for an engine file; "
                                     f"{args.path} is checked as makemore part 4 (--ninja), "
                                     "which takes only --json, --junit and --timeout")

                return run_ninja(args.path, as_json=args.json, junit=args.junit,
                                 timeout=NINJA_TIMEOUT if args.timeout is None
                                 else args.timeout)

            return run_check(args.path, as_json=args.json, junit=args.junit,
                             timeout=20.0 if args.timeout is None else args.timeout,
                             require=args.require, strict=args.strict,
                             api={"backward": args.backward, "data": args.data,
                                  "grad": args.grad})
    except BrokenPipeError:  # e.g. `micrograd trace ... | head`: the reader has gone
        sys.stderr.close()
        return 0
    except (ValueError, TypeError, OSError) as error:
        print(f"micrograd {args.command}: error: {error}", file=sys.stderr)
        return 2
    except ImportError as error:  # an optional package is missing
        print(f"micrograd {args.command}: {error}", file=sys.stderr)
        return 3
    return 1


def _run_script(script: str, script_args: Sequence[str]) -> int:
    import os.path

    if not os.path.isfile(script):
        print(f"micrograd run: error: no such script: {script!r}", file=sys.stderr)
        return 2
    from micrograd.torch.runner import run_script

    run_script(script, script_args)
    return 0


def check_output_folder(folder: str) -> None:
    """Make sure the plots can be written to `folder` (creating it), or say why not."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        reason = error.strerror or str(error)
        raise OSError(f"cannot write the plots to --out {folder!r} ({reason}); "
                      f"choose a folder you can write to") from None


def _graph_or_trace(args: argparse.Namespace) -> int:
    from micrograd import viz

    command = f"micrograd {args.command}"
    values = parse_assignments(args.values)
    expr = args.expr.strip()  # protect_expression's leading space
    with warnings.catch_warnings():
        # our warnings as one line each, in the command's words, as soon as they happen
        warnings.simplefilter("always")
        warnings.showwarning = lambda message, category, *_: _warn(command, message, args)
        if args.command == "trace":
            print(viz.trace_expression(expr, values))
            return 0
        try:
            path = viz.render_expression(expr, values, args.output, rankdir=args.rankdir,
                                         max_depth=args.max_depth, timeout=args.timeout)
        except viz.DotTimeout as error:
            size = f"the {error.nodes}-node graph" if error.nodes else "the graph"
            print(f"{command}: error: Graphviz's dot did not finish laying out {size} in "
                  f"{error.seconds:g} s and was stopped. Draw part of it with --max-depth N "
                  f"(the nodes within N ops of the output), write .html (it lays out big "
                  f"graphs itself), or allow more time with --timeout SECONDS.",
                  file=sys.stderr)
            return 2
    print(f"wrote {path}")
    return 0


def _warn(command: str, message: Warning | str, args: argparse.Namespace) -> None:
    """Print a library warning as one line, with CLI options instead of keyword arguments."""
    from micrograd.viz import LargeGraphWarning

    if isinstance(message, LargeGraphWarning):
        text = f"the graph has {message.nodes} nodes"
        if args.command == "trace":
            text += "; its trace is long"
        else:
            text += "; drawing all of them is slow and hard to read"
            if args.output.lower().endswith((".svg", ".png")):
                text += f" (Graphviz is stopped after {args.timeout:g} s)"
            text += ". Use --max-depth N to draw only the nodes within N ops of the output"
            if not args.output.lower().endswith(".html"):
                text += ", or write .html, which lays out big graphs itself"
    else:
        text = str(message)
        for prefix in ("to_html: ", "draw_dot: "):
            text = text.removeprefix(prefix)
    print(f"{command}: warning: {text}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
