"""Pictures of a graph: draw_dot (Graphviz), to_mermaid, a step-by-step trace, the HTML page
(show() puts it inside a Jupyter notebook).

Nothing here is imported by the engines, and importing it needs no optional package:
`draw_dot` imports the graphviz package only when called; `.svg`/`.png` files need the
Graphviz `dot` program; Mermaid, DOT text, the trace and the HTML page need nothing.
"""

from micrograd.viz.dot import DotTimeout, GraphvizNotFound, dot_source, draw_dot
from micrograd.viz.expr import (
    Expression,
    ExpressionError,
    evaluate_expression,
    parse_expression,
)
from micrograd.viz.graph import LargeGraphWarning
from micrograd.viz.html import html_page, to_html
from micrograd.viz.mermaid import to_mermaid
from micrograd.viz.render import render_expression, trace_expression
from micrograd.viz.show import show
from micrograd.viz.trace import Trace, trace, trace_steps

__all__ = [
    "draw_dot",
    "dot_source",
    "to_mermaid",
    "trace",
    "trace_steps",
    "Trace",
    "to_html",
    "html_page",
    "show",
    "parse_expression",
    "evaluate_expression",
    "Expression",
    "ExpressionError",
    "trace_expression",
    "render_expression",
    "GraphvizNotFound",
    "DotTimeout",
    "LargeGraphWarning",
]
