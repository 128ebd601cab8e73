"""to_mermaid: the graph as a Mermaid flowchart, which Markdown renders with nothing installed.

The form of the seed notes: a box per value, a circle per op, arrows from inputs to op to
output (`a["a | data 2.0000 | grad 6.0000"] --> n2_op(("*"))`). A Tensor's box also shows
its shape and dtype; its parameters are filled light blue and constants grey, as in draw_dot.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from micrograd.viz.graph import (
    check_rankdir,
    display_text,
    fmt4,
    is_array_node,
    is_parameter,
    shown_grad,
    tensor_fields,
    view,
)


def _text(text: str) -> str:
    """Mermaid-escape text inside ["..."]: quotes, angle brackets and backticks (which would
    start a Markdown string) become entity codes; control characters are spelled out."""
    return (display_text(text, limit=None).replace("#", "#35;").replace('"', "#quot;")
            .replace("<", "#lt;").replace(">", "#gt;").replace("`", "#96;"))


def to_mermaid(root: Any, rankdir: str = "LR", max_depth: int | None = None,
               names: Mapping[str, Any] | None = None) -> str:
    """A Mermaid `flowchart` of `root`'s graph: value boxes with data and grad, op circles.

    root: a Value or a Tensor; names ({name: node}) names unlabelled nodes (see draw_dot).
    """
    check_rankdir(rankdir)
    graph = view(root, max_depth, what="to_mermaid", names=names)
    lines = [f"flowchart {rankdir}"]
    kinds: dict = {"parameter": [], "constant": []}
    for node in graph.nodes:
        nid = graph.id(node)
        if is_array_node(node):
            text = " | ".join(tensor_fields(graph.name(node), node, shown_grad(node)))
            lines.append(f'  {nid}["{_text(text)}"]')
            if not node._prev:
                kinds["parameter" if is_parameter(node) else "constant"].append(nid)
        else:
            data = fmt4(node.data) if isinstance(node.data, float) else node.data
            grad = fmt4(node.grad) if isinstance(node.grad, float) else node.grad
            lines.append(f'  {nid}["{_text(graph.name(node))} | data {data} | grad {grad}"]')
        if node._prev:
            lines.append(f'  {nid}_op(("{_text(graph.op(node))}")) --> {nid}')
    for child, node in graph.edges():
        lines.append(f"  {graph.id(child)} --> {graph.id(node)}_op")
    if graph.cut:
        lines.append(f'  cut["... {graph.hidden} more nodes beyond max_depth={graph.max_depth}"]')
        for node in graph.nodes:
            if id(node) in graph.cut:
                lines.append(f"  cut -.-> {graph.id(node)}_op")
    for kind, fill in (("parameter", "#add8e6"), ("constant", "#ebebeb")):
        if kinds[kind]:
            lines.append(f"  classDef {kind} fill:{fill}")
            lines.append(f"  class {','.join(kinds[kind])} {kind}")
    return "\n".join(lines) + "\n"
