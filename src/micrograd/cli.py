"""The `micrograd` command. Thin: it parses arguments and calls the library.

    micrograd demo {tiny,xor,moons,digits} [--out DIR] [--steps N] [--seed S] [--engine E]
    micrograd graph "EXPR" a=2 b=-3 ... -o FILE.{svg,png,dot,mmd,html}
    micrograd trace "EXPR" a=2 b=-3 ...
    micrograd check PATH[:ClassName] [--json] [--junit FILE] [--timeout S] [--require OPS]
"""

from __future__ import annotations

import argparse
import math
import sys
from typing import Sequence


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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="micrograd", description="A tiny autograd engine for learning backpropagation."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    demo = commands.add_parser("demo", help="train a small network and report loss/accuracy")
    demo.add_argument("name", choices=["tiny", "xor", "moons", "digits"])
    demo.add_argument("--out", default="out", help="folder for plots (default: out)")
    demo.add_argument("--steps", type=int, default=None, help="training steps (default: the demo's)")
    demo.add_argument("--seed", type=int, default=None, help="random seed (default: the demo's)")
    demo.add_argument("--engine", choices=["scalar", "tensor"], default=None,
                      help="Value (scalar) or Tensor engine (default: scalar; digits: tensor)")

    graph = commands.add_parser("graph", help="draw an expression's graph with its gradients")
    graph.add_argument("expr", help='an expression such as "(a*b + c)*f" or "tanh(x1*w1 + b)"')
    graph.add_argument("values", nargs="*", help="variable values: a=2 b=-3 ...")
    graph.add_argument("-o", "--output", required=True,
                       help="output file: .svg, .png, .dot, .mmd or .html")
    graph.add_argument("--rankdir", default="LR", choices=["LR", "TB", "RL", "BT"])
    graph.add_argument("--max-depth", type=int, default=None, metavar="N",
                       help="draw only the nodes within N ops of the output (for big graphs)")

    trace = commands.add_parser("trace", help="print the backward pass step by step")
    trace.add_argument("expr")
    trace.add_argument("values", nargs="*", help="variable values: a=2 b=-3 ...")

    check = commands.add_parser(
        "check", help="diagnose the bugs in your own micrograd engine",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="exit status:\n"
               "  0  no probe failed or errored (WARN results and MISSING ops are allowed)\n"
               "  1  at least one probe FAILED (a bug; also a missing op named in --require)\n"
               "     or hit an ERROR (the file could not be loaded, or a probe hung)\n"
               "  2  bad path or option\n"
               "WARN is advisory and never a bug: a recursive topological sort that is too\n"
               "deep for a 2,000-op chain, a second backward() on the same graph, a notebook\n"
               "cell that raises, an MLP the checker cannot compare.")
    check.add_argument("path", help="your engine: file.py or file.py:ClassName")
    check.add_argument("--json", action="store_true", help="print the report as JSON")
    check.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report")
    check.add_argument("--timeout", type=float, default=20.0, help="seconds for the whole check")
    check.add_argument("--require", metavar="OPS", default=None,
                       help="ops that must exist, e.g. exp,tanh,relu (missing ones then fail)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.command == "demo":
            from micrograd.demos import run_demo

            return run_demo(args.name, out=args.out, steps=args.steps, seed=args.seed,
                            engine=args.engine)
        if args.command in ("graph", "trace"):
            from micrograd import viz

            values = parse_assignments(args.values)
            if args.command == "trace":
                print(viz.trace_expression(args.expr, values))
            else:
                path = viz.render_expression(args.expr, values, args.output, rankdir=args.rankdir,
                                             max_depth=args.max_depth)
                print(f"wrote {path}")
            return 0
        if args.command == "check":
            from micrograd.check import run_check

            return run_check(args.path, as_json=args.json, junit=args.junit,
                             timeout=args.timeout, require=args.require)
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


if __name__ == "__main__":
    sys.exit(main())
