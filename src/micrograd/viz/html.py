"""to_html: one self-contained page to step through backprop one node at a time.

The page holds the graph as inline SVG (laid out by Graphviz's `dot` when it is installed,
else by a simple built-in column layout), the steps as JSON and a small script; it loads
nothing from the network. Each step is one node's backward, in the engine's order: the node
is highlighted, the gradients it adds into its inputs fill in, and the chain-rule arithmetic
is shown. Leaves show a numerical check (L(x+h) - L(x))/h beside their gradient when the
page is made from an expression or a function (which can be re-run with x+h); a bare Value
cannot be re-run, so its page has no numerical column.

With max_depth=N the page draws only the nodes within N ops of the output, as draw_dot
does. Backprop still runs over the whole graph (a drawn node's gradient can come from an
undrawn one: a value used both near the output and deep in the graph), so the page keeps
every backward step that changes a drawn gradient -- those of undrawn nodes marked as
such -- and leaves out only the steps that change nothing on the page. The gradients shown
after each step are therefore exactly the engine's.
"""

from __future__ import annotations

import html
import json
import math
import re
import warnings
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from micrograd.engine import Value
from micrograd.viz.dot import (
    DotTimeout,
    describe,
    dot_source,
    dot_text,
    has_dot,
    input_edges,
    run_dot,
)
from micrograd.viz.expr import Expression, parse_expression
from micrograd.viz.fold import FOLD_OVER, Folding, fold_groups, folded_layout
from micrograd.viz.graph import GraphView, check_rankdir, fmt4, leaf_kinds, view
from micrograd.viz.trace import trace_steps

H = 1e-6  # step of the numerical check; forward difference as in the lecture
DOT_LAYOUT_LIMIT = 1500  # nodes; Graphviz takes minutes on bigger graphs, the columns a second
# seconds the page waits for Graphviz before it uses its own layout: some graphs of a few
# hundred nodes (one input shared by every term of a long sum) already take `dot` minutes
PAGE_DOT_TIMEOUT = 10.0


def to_html(root: Any, path: str | Path, values: Mapping[str, float] | None = None,
            rankdir: str = "LR", title: str | None = None, h: float = H,
            max_depth: int | None = None, fold: bool | None = None) -> str:
    """Write the step-through page for `root` to `path`; return the path.

    root: a Value (no numerical check), an expression string or Expression with `values`,
    or a function f(**values) -> Value called with one labelled Value per name in `values`.
    max_depth: draw only the nodes within that many ops of the output (see the module doc).
    fold: open a network's graph with one box per neuron, unfolded by a click (viz/fold.py);
    None folds graphs of more than FOLD_OVER nodes whose parameters have module names.
    """
    suffix = Path(path).suffix.lower()
    if suffix not in (".html", ".htm"):
        raise ValueError(f"to_html writes an HTML page, so the path must end in .html "
                         f"(got {str(path)!r}); for .svg/.png use draw_dot(...).render() or "
                         f"`micrograd graph`")
    page = html_page(root, values=values, rankdir=rankdir, title=title, h=h,
                     max_depth=max_depth, fold=fold)
    Path(path).write_text(page, encoding="utf-8")
    return str(path)


def html_page(root: Any, values: Mapping[str, float] | None = None, rankdir: str = "LR",
              title: str | None = None, h: float = H, max_depth: int | None = None,
              fold: bool | None = None) -> str:
    """The page's HTML text (see to_html)."""
    check_rankdir(rankdir)
    if fold not in (None, True, False):
        raise TypeError(f"fold must be True, False or None (fold big networks), got {fold!r}")
    value, build, text = _resolve(root, values)
    graph = view(value, max_depth, what="to_html")
    # _resolve gives a builder only with values (an expression or a function)
    numerical = (_numerical_check(build, dict(values), h)
                 if build is not None and values is not None else None)
    steps, leaves, nodes, skipped = _page_data(graph, numerical)
    variable_leaf = {}
    if numerical is not None:
        for leaf in leaves:
            if leaf.label in numerical and leaf.label not in variable_leaf:
                variable_leaf[leaf.label] = graph.id(leaf)
        for name, nid in variable_leaf.items():
            nodes[nid]["numerical"] = _json_number(numerical[name])

    def fields(node: Any) -> list:
        if numerical is not None and variable_leaf.get(node.label) == graph.id(node):
            return [f"num {fmt4(numerical[node.label])}"]
        return []

    zero = {id(n): 0.0 for n in graph.nodes}
    folding = _folding(graph, fold)
    views = _folded_views(graph, rankdir, fields, zero, folding) if folding else None
    if views is None:
        folding = None
    svg = views["folded"] if views else _svg(graph, rankdir, fields, zero)
    groups = []
    if folding is not None:
        for node in graph.nodes:
            nodes[graph.id(node)]["group"] = folding.member.get(id(node))
        groups = [{"id": folding.box(k), "name": name} for k, name in enumerate(folding.names)]
    data = {
        "title": title or text or graph.name(value),
        "numerical": numerical is not None,
        "h": h,
        "root": graph.id(value),
        "nodes": nodes,
        "leaves": [graph.id(n) for n in leaves],
        "steps": steps,
        "groups": groups,
    }
    page_title = html.escape(title or text or f"the graph of {graph.name(value)}")
    replacements = {
        "TITLE": page_title,
        "STYLE": _asset("page.css"),
        "SCRIPT": _asset("page.js"),
        "SVG": svg,
        # JSON inside <script>: escape '<' so no text can close the script element
        "DATA": json.dumps(data, allow_nan=False).replace("<", "\\u003c"),
        "NUMERICAL_HEAD": "<th>(L(x+h)&#8722;L(x))/h</th>" if numerical is not None else "",
        "NUMERICAL_NOTE": (f"The last column is the numerical check with h = {h:g}: the change in "
                           f"the output when only that leaf moves by h. " if numerical else ""),
        "CUT_NOTE": _cut_note(graph, skipped),
        "FOLD_NOTE": ("The network is folded: one box per neuron (or layer), named by its "
                      "parameters' path. Click a box to unfold it, a node of the unfolded "
                      "neuron to fold it again, or use “unfold all”. " if views else ""),
        "VIEWS": "\n".join(f'<template id="mg-view-{name}">{view_svg}</template>'
                           for name, view_svg in (views or {}).items()),
    }
    # one pass, so text inserted for one placeholder is never scanned for another
    return re.sub(r"\{\{([A-Z_]+)\}\}", lambda m: replacements[m.group(1)], _asset("page.html"))


def _resolve(root: Any, values: Mapping[str, float] | None) -> tuple:
    """(output Value, builder values -> Value or None, expression text or '')."""
    if hasattr(root, "_prev") and hasattr(root, "shape") and hasattr(root, "dtype"):
        raise TypeError("to_html: the step-through page is for Value graphs, whose backward "
                        "steps are scalar arithmetic; for a Tensor graph use draw_dot, "
                        "to_mermaid or trace")
    if isinstance(root, Value):
        if values is not None:
            raise ValueError("to_html: values= is for an expression or a function, "
                             "not a Value (its graph is already built)")
        return root, None, ""
    if not isinstance(root, (str, Expression)) and not callable(root):
        raise TypeError(f"to_html takes a Value, an expression string such as \"(a*b + c)*f\" "
                        f"(with values=) or a function f(**values) -> Value, "
                        f"got {type(root).__name__}")
    if isinstance(root, str):
        root = parse_expression(root)
    if values is None:
        if isinstance(root, Expression):
            wanted = ", ".join(f"{name!r}: 1.0" for name in root.variables)
            raise ValueError(f"to_html: the expression {root.text!r} needs a number for each "
                             f"variable: values={{{wanted}}}")
        raise ValueError("to_html: a function needs values={'a': 2.0, ...}: it is called with "
                         "one labelled Value per name, f(a=Value(2.0, label='a'), ...)")
    if isinstance(root, Expression):
        expression = root
        return expression.evaluate(values), expression.evaluate, expression.text
    if callable(root):
        function = root

        def build(numbers: Mapping[str, float]) -> Value:
            result = function(**{k: Value(float(v), label=k) for k, v in numbers.items()})
            if not isinstance(result, Value):
                raise TypeError(f"to_html: the function must return a Value, "
                                f"got {type(result).__name__}")
            return result

        return build(values), build, getattr(function, "__name__", "")
    raise TypeError(f"to_html takes a Value, an expression string or a function, "
                    f"got {type(root).__name__}")


def _numerical_check(build: Callable, values: dict, h: float) -> dict:
    """{name: (L(x+h) - L(x)) / h} for each input, each computed from a fresh graph."""
    base = build(values).data
    result = {}
    for name in values:
        shifted = dict(values)
        shifted[name] = values[name] + h
        result[name] = (build(shifted).data - base) / h
    return result


def _json_number(x: float) -> float | str:
    """JSON has no nan/inf: send those as the strings the page prints."""
    return x if math.isfinite(x) else str(x)


def _page_data(graph: GraphView, numerical: dict | None) -> tuple:
    """(steps, leaf nodes, node info, steps left out) for the page's script, from the trace.

    Only drawn nodes appear; on a cut graph the backward steps that change no drawn
    gradient are left out (and counted), the others kept in the engine's order.
    """
    root = graph.root
    run = trace_steps(root, graph)
    drawn = graph.ids
    ids = graph.id
    kinds = leaf_kinds(graph)
    nodes = {ids(n): {"name": graph.name(n), "op": graph.op(n) if n._prev else "",
                      "data": _json_number(n.data), "leaf": not n._prev, "numerical": None,
                      "kind": kinds.get(id(n), "")}
             for n in graph.nodes}
    leaves = [n for n in graph.nodes if not n._prev]
    root_name = graph.name(root)
    forward = [line for node, line in zip(run.order, run.forward, strict=True) if id(node) in drawn]
    if graph.hidden:
        forward.append(f"... and {graph.hidden} values beyond max_depth={graph.max_depth}, "
                       f"not drawn")
    steps = [
        {"node": None, "title": "Forward pass: every value computed, inputs first",
         "lines": forward + ["", "Press → (or next) to run backward one node at a time."],
         "updates": [], "edges": []},
        {"node": ids(root), "title": f"{root_name}.grad = 1.0",
         "lines": [f"d{root_name}/d{root_name} = 1: the output's gradient with respect to "
                   f"itself starts the chain rule."],
         "updates": [{"id": ids(root), "before": 0.0, "after": 1.0}], "edges": []},
    ]
    skipped = 0
    for step in run.steps:
        shown = [c for c in step.contributions if id(c.target) in drawn]
        updates = [{"id": ids(c.target), "before": _json_number(c.before),
                    "after": _json_number(c.after)} for c in shown]
        lines = [c.line(run.name(c.target)) for c in step.contributions]
        if id(step.node) in drawn:
            nid = ids(step.node)
            edges = [f"{nid}_op_to_{nid}"] + [edge for _, edge in input_edges(graph, step.node)]
            steps.append({"node": nid, "title": f"backward of {step.equation}",
                          "lines": lines, "updates": updates, "edges": edges})
        elif shown:  # an undrawn node adds into a drawn one: the step must be on the page
            steps.append({"node": None,
                          "title": f"backward of {step.equation} (not drawn: beyond "
                                   f"max_depth={graph.max_depth})",
                          "lines": lines, "updates": updates, "edges": []})
        else:
            skipped += 1
    return steps, leaves, nodes, skipped


def _cut_note(graph: GraphView, skipped: int) -> str:
    """The page's sentence about what max_depth left out ('' when everything is drawn)."""
    if not graph.hidden:
        return ""
    return (f"This page draws the {len(graph.nodes)} nodes within max_depth={graph.max_depth} "
            f"ops of the output; {graph.hidden} more are not drawn, and the {skipped} backward "
            f"steps that change no drawn gradient are left out. ")


def _folding(graph: GraphView, fold: bool | None) -> Folding | None:
    """How the page folds graph (None: drawn in full); folding needs Graphviz's layout."""
    if fold is False or (fold is None and len(graph.nodes) <= FOLD_OVER):
        return None
    if not has_dot() or len(graph.nodes) > DOT_LAYOUT_LIMIT:
        return None
    return fold_groups(graph, leaf_kinds(graph))


def _folded_views(graph: GraphView, rankdir: str, fields: Callable, grads: dict,
                  folding: Folding) -> dict[str, str] | None:
    """{view name: SVG}: "folded" (every group a box), "0", "1", ... (that group unfolded)
    and "full"; None if Graphviz runs out of time on one of them."""
    described = describe(graph, rankdir, fields, grads)
    layouts: dict[str, tuple] = {"folded": folded_layout(graph, described, folding, None)}
    for k in range(len(folding.names)):
        layouts[str(k)] = folded_layout(graph, described, folding, k)
    layouts["full"] = described
    views = {}
    for name, layout in layouts.items():
        try:
            svg = run_dot(dot_text(*layout), "svg", timeout=PAGE_DOT_TIMEOUT,
                          nodes=len(layout[1])).decode("utf-8")
        except DotTimeout:
            warnings.warn(f"to_html: Graphviz did not lay out a folded view of {len(graph.nodes)} "
                          f"nodes within {PAGE_DOT_TIMEOUT:g} s; the page is not folded",
                          stacklevel=4)
            return None
        views[name] = svg[svg.index("<svg"):]
    return views


def _asset(name: str) -> str:
    return resources.files("micrograd.viz").joinpath(name).read_text(encoding="utf-8")


def _svg(graph: GraphView, rankdir: str, fields: Callable, grads: dict) -> str:
    """The graph as inline SVG: Graphviz's layout if `dot` is installed and finishes within
    PAGE_DOT_TIMEOUT seconds, else a simple built-in one."""
    if has_dot() and len(graph.nodes) <= DOT_LAYOUT_LIMIT:
        source = dot_source(graph.root, rankdir, fields=fields, graph=graph, grads=grads)
        try:
            svg = run_dot(source, "svg", timeout=PAGE_DOT_TIMEOUT,
                          nodes=len(graph.nodes)).decode("utf-8")
        except DotTimeout:
            warnings.warn(f"to_html: Graphviz did not lay out {len(graph.nodes)} nodes within "
                          f"{PAGE_DOT_TIMEOUT:g} s; using the simple column layout instead",
                          stacklevel=4)
            return _column_layout(graph, fields, grads)
        return svg[svg.index("<svg"):]  # drop the XML declaration and DOCTYPE
    if has_dot():
        warnings.warn(f"to_html: {len(graph.nodes)} nodes would take Graphviz minutes to lay "
                      f"out; using the simple column layout instead", stacklevel=4)
    return _column_layout(graph, fields, grads)


def _column_layout(graph: GraphView, fields: Callable, grads: dict) -> str:
    """A left-to-right layout without Graphviz: a column per depth, straight arrows."""
    char, row_h, gap_x, gap_y = 7.2, 30.0, 40.0, 14.0
    level: dict = {}
    for node in graph.nodes:  # topological: inputs already have their level
        level[id(node)] = 1 + max((level[id(c)] for c in node._prev if id(c) in level),
                                  default=-1)
    boxes: list[tuple[str, int, float, Any]] = []  # (key, column, width, texts or op)
    for node in graph.nodes:
        texts = [graph.name(node), f"data {fmt4(node.data)}",
                 f"grad {fmt4(grads.get(id(node), node.grad))}"] + fields(node)
        widths = [len(t) * char + 14 for t in texts]
        # a value at level L sits in column 2L, its op just before it in column 2L-1
        boxes.append((graph.id(node), 2 * level[id(node)], sum(widths),
                      list(zip(texts, widths, strict=True))))
        if node._prev:
            boxes.append((graph.id(node) + "_op", 2 * level[id(node)] - 1,
                          max(44.0, len(graph.op(node)) * char + 16), graph.op(node)))
    if graph.cut:  # the undrawn rest of the graph: one note left of everything
        note = f"... {graph.hidden} more nodes beyond max_depth={graph.max_depth}"
        first = min(b[1] for b in boxes)
        boxes.append(("cut", first - 1, len(note) * char + 14, [(note, len(note) * char + 14)]))
    columns: dict = {}
    for box in boxes:
        columns.setdefault(box[1], []).append(box)
    x, place = 10.0, {}
    height = max(len(c) for c in columns.values()) * (row_h + gap_y) + 20
    for col in sorted(columns):
        members = columns[col]
        width = max(b[2] for b in members)
        top = (height - len(members) * (row_h + gap_y)) / 2
        for k, (key, _, w, content) in enumerate(members):
            place[key] = (x + (width - w) / 2, top + k * (row_h + gap_y), w, content)
        x += width + gap_x
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {x:.0f} {height:.0f}" '
             f'font-family="Times,serif" font-size="14">',
             '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
             'markerHeight="7" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>']

    def anchor(key: str, right: bool) -> tuple:
        bx, by, w, _ = place[key]
        return (bx + w if right else bx, by + row_h / 2)

    def edge(edge_id: str, tail: str, head: str) -> None:
        (x1, y1), (x2, y2) = anchor(tail, True), anchor(head, False)
        parts.append(f'<g id="{edge_id}" class="edge"><path d="M{x1:.1f},{y1:.1f} '
                     f'L{x2:.1f},{y2:.1f}" stroke="black" marker-end="url(#arrow)"/></g>')

    for node in graph.nodes:
        nid = graph.id(node)
        if node._prev:
            edge(f"{nid}_op_to_{nid}", nid + "_op", nid)
            for child, edge_id in input_edges(graph, node):
                edge(edge_id, graph.id(child), nid + "_op")
            if "cut" in place and id(node) in graph.cut:
                edge(f"cut_to_{nid}_op", "cut", nid + "_op")
    for key, (bx, by, w, content) in place.items():
        parts.append(f'<g id="{key}" class="node">')
        if isinstance(content, str):  # an op
            parts.append(f'<ellipse cx="{bx + w / 2:.1f}" cy="{by + row_h / 2:.1f}" '
                         f'rx="{w / 2:.1f}" ry="{row_h / 2:.1f}" fill="white" stroke="black"/>')
            parts.append(f'<text text-anchor="middle" x="{bx + w / 2:.1f}" '
                         f'y="{by + row_h / 2 + 5:.1f}">{html.escape(content)}</text>')
        else:
            parts.append(f'<polygon fill="white" stroke="black" points="{bx:.1f},{by:.1f} '
                         f'{bx + w:.1f},{by:.1f} {bx + w:.1f},{by + row_h:.1f} '
                         f'{bx:.1f},{by + row_h:.1f}"/>')
            fx = bx
            for k, (text, fw) in enumerate(content):
                if k:
                    parts.append(f'<polyline fill="none" stroke="black" '
                                 f'points="{fx:.1f},{by:.1f} {fx:.1f},{by + row_h:.1f}"/>')
                parts.append(f'<text text-anchor="middle" x="{fx + fw / 2:.1f}" '
                             f'y="{by + row_h / 2 + 5:.1f}">{html.escape(text)}</text>')
                fx += fw
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts)
