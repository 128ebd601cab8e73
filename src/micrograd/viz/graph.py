"""What every picture of a graph needs: its nodes in order, a name for each, a depth cut.

All pictures (DOT, Mermaid, the trace, the HTML page) describe a graph through `GraphView`,
so a value has the same name everywhere: its label, or `v0`, `v1`, ... numbered in the
engine's topological order when it has none. The order is deterministic (inputs are walked
in creation order), so the same code gives the same names on every run.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

from micrograd.autograd import topological_order

LARGE_GRAPH = 500  # nodes; above this pictures warn and suggest max_depth


@dataclass
class GraphView:
    """The nodes of `root`'s graph to draw, in topological order (inputs first)."""

    root: Any
    nodes: list  # the drawn nodes, inputs before outputs
    total: int  # nodes in the whole graph, drawn or not
    max_depth: int | None
    names: dict = field(default_factory=dict)  # id(node) -> unique display name
    ids: dict = field(default_factory=dict)  # id(node) -> "n<k>", safe for DOT/SVG/Mermaid
    cut: set = field(default_factory=set)  # id(node) of drawn nodes with undrawn inputs

    def name(self, node: Any) -> str:
        return self.names[id(node)]

    def id(self, node: Any) -> str:
        return self.ids[id(node)]

    def edges(self) -> list:
        """(input, output) pairs between drawn nodes, in creation order of the inputs."""
        drawn = self.ids
        return [(child, node) for node in self.nodes for child in node._prev
                if id(child) in drawn]

    @property
    def hidden(self) -> int:
        return self.total - len(self.nodes)


def view(root: Any, max_depth: int | None = None, warn_over: int = LARGE_GRAPH,
         what: str = "draw_dot") -> GraphView:
    """Collect `root`'s graph; keep only nodes within `max_depth` ops of root if given."""
    if max_depth is not None and (not isinstance(max_depth, int) or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer or None, got {max_depth!r}")
    order = topological_order(root)
    total = len(order)
    if max_depth is None:
        nodes = order
    else:
        depth = _depths(root, max_depth)
        nodes = [n for n in order if id(n) in depth]
    if max_depth is None and total > warn_over:
        warnings.warn(
            f"{what}: the graph has {total} nodes; drawing all of them is slow and hard to "
            f"read. Pass max_depth=N to draw only the nodes within N ops of the output.",
            stacklevel=3,
        )
    graph = GraphView(root=root, nodes=nodes, total=total, max_depth=max_depth)
    graph.ids = {id(n): f"n{k}" for k, n in enumerate(nodes)}
    graph.names = _unique_names(nodes)
    graph.cut = {id(n) for n in nodes if any(id(c) not in graph.ids for c in n._prev)}
    return graph


def _depths(root: Any, max_depth: int) -> dict:
    """id -> shortest number of ops from root, for nodes no deeper than max_depth (BFS)."""
    depth = {id(root): 0}
    frontier = [root]
    for d in range(1, max_depth + 1):
        following = []
        for node in frontier:
            for child in node._prev:
                if id(child) not in depth:
                    depth[id(child)] = d
                    following.append(child)
        frontier = following
    return depth


def _unique_names(nodes: list) -> dict:
    """id -> a name no other node has: the label, else v0, v1, ... in graph order."""
    taken = {str(getattr(n, "label", "") or "") for n in nodes} - {""}
    names: dict = {}
    used: set = set()
    counter = 0
    for node in nodes:
        label = str(getattr(node, "label", "") or "")
        if label:
            name, k = label, 2
            while name in used:  # two values share a label: a#2, a#3, ...
                name, k = f"{label}#{k}", k + 1
        else:
            while f"v{counter}" in taken or f"v{counter}" in used:
                counter += 1
            name = f"v{counter}"
            counter += 1
        used.add(name)
        names[id(node)] = name
    return names


def fmt4(x: float) -> str:
    """The lecture's '%.4f', switching to exponent form where 4 decimals would hide the number."""
    if math.isnan(x) or math.isinf(x):
        return str(x)
    if x == 0 or 1e-4 <= abs(x) < 1e9:
        return f"{x:.4f}"
    return f"{x:.4e}"


def num(x: float) -> str:
    """A float the way the lecture prints it (4.0, -1.5, 0.707107): up to 6 significant digits."""
    if isinstance(x, bool):
        x = int(x)
    if math.isnan(x) or math.isinf(x):
        return str(float(x))
    text = f"{x:.6g}"
    if all(ch.isdigit() or ch == "-" for ch in text):
        text += ".0"
    return text
