"""What `micrograd graph` and `micrograd trace` call: an expression in, a picture or trace out."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from micrograd.viz.dot import DOT_TIMEOUT, dot_source, run_dot
from micrograd.viz.expr import parse_expression
from micrograd.viz.graph import view
from micrograd.viz.html import to_html
from micrograd.viz.mermaid import to_mermaid
from micrograd.viz.trace import trace

SUFFIXES = (".svg", ".png", ".dot", ".mmd", ".html")


def trace_expression(expr: str, values: Mapping[str, float]) -> str:
    """The forward values and backward steps of `expr` at `values` (see trace)."""
    return trace(parse_expression(expr).evaluate(values))


def render_expression(expr: str, values: Mapping[str, float], output_path: str | Path,
                      rankdir: str = "LR", max_depth: int | None = None,
                      timeout: float | None = DOT_TIMEOUT) -> str:
    """Draw `expr` at `values`, after backward(), to .svg/.png/.dot/.mmd/.html; return the path.

    .svg and .png need Graphviz's `dot` program, which is stopped after `timeout` seconds
    (DotTimeout; None: no limit); .dot, .mmd and .html need nothing.
    max_depth: draw only the nodes within that many ops of the output.
    """
    path = Path(output_path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"cannot write {str(path)!r}: the output file must end in "
                         f"{', '.join(SUFFIXES)} (got {suffix or 'no suffix'!r})")
    expression = parse_expression(expr)
    if suffix == ".html":
        return to_html(expression, path, values=values, rankdir=rankdir, max_depth=max_depth)
    root = expression.evaluate(values)
    root.backward()
    if suffix == ".mmd":
        path.write_text(to_mermaid(root, rankdir=rankdir, max_depth=max_depth), encoding="utf-8")
    elif suffix == ".dot":
        path.write_text(dot_source(root, rankdir, max_depth), encoding="utf-8")
    else:
        graph = view(root, max_depth)
        picture = run_dot(dot_source(root, rankdir, graph=graph), suffix[1:], timeout=timeout,
                          nodes=len(graph.nodes))
        path.write_bytes(picture)
    return str(path)
