"""Folding a network's graph for the step-through page: one box per neuron (or per layer).

A network's loss graph has a hundred nodes or more; drawn in full, "fit" shrinks its text
below reading size. The page therefore opens with each neuron folded into one box, named by
its parameters' path (`layers.1.neurons.2`), and a click on a box unfolds that neuron.

Membership comes from the parameter names `micrograd.nn` and `micrograd.lecture` give
(`layers.1.neurons.2.w.0`, `layers.1.neurons.2.b`): a parameter belongs to the neuron its
name leads to; an op belongs to a neuron if one of its inputs is that neuron's parameter
(`w*x`, the fused `w·x+b`) or if all its inputs belong to it (the sums, the `tanh`). So a
neuron's box holds its parameters and everything it computes, across every example the
graph runs through it; the network's inputs, the targets and the loss stay unfolded.

Each view (all folded, one neuron unfolded, none folded) is a Graphviz layout of its own:
the boxes take the room of one node, so the folded picture is small enough to read whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from micrograd.viz.dot import _escape
from micrograd.viz.graph import GraphView

FOLD_OVER = 60  # nodes: bigger graphs with named parameters open folded
MAX_BOXES = 24  # more neurons than this fold by layer instead (one layout per box)
BOX_FILL = "#eef3fb"


@dataclass
class Folding:
    """The groups a graph folds into and which drawn node belongs to which."""

    names: list[str]  # group names (`layers.1.neurons.2` or `layers.1`), first seen first
    member: dict[int, int]  # id(node) -> index into names, for the nodes of some group
    parameters: list[int]  # how many parameters each group holds

    def box(self, group: int) -> str:
        """The SVG id of a group's box."""
        return f"fold{group}"

    def size(self, group: int) -> int:
        return sum(1 for g in self.member.values() if g == group)


def neuron_of(label: str) -> str | None:
    """`layers.1.neurons.2` for `layers.1.neurons.2.w.0` or `...neurons.2.b`; None for a name
    without a module path (a lone Neuron's `w.0`, a learner's `a`)."""
    parts = label.split(".")
    if parts[-1].isdigit():
        parts = parts[:-1]
    return ".".join(parts[:-1]) if len(parts) >= 2 else None


def layer_of(neuron: str) -> str:
    """`layers.1` for `layers.1.neurons.2`; a shorter path is its own layer."""
    parts = neuron.split(".")
    return ".".join(parts[:-2]) if len(parts) >= 3 else neuron


def fold_groups(graph: GraphView, kinds: dict[int, str]) -> Folding | None:
    """The neurons (or layers, past MAX_BOXES neurons) of graph, or None if fewer than two."""
    group: dict[int, str] = {}
    for node in graph.nodes:  # topological: a node's inputs already have their group
        if not node._prev:
            if kinds.get(id(node)) == "parameter":
                neuron = neuron_of(str(getattr(node, "label", "") or ""))
                if neuron is not None:
                    group[id(node)] = neuron
            continue
        owners = [group.get(id(c)) for c in node._prev]
        by_parameter = [group[id(c)] for c in node._prev
                        if id(c) in group and kinds.get(id(c)) == "parameter"]
        if by_parameter:
            group[id(node)] = by_parameter[0]
        elif owners and owners[0] is not None and all(o == owners[0] for o in owners):
            group[id(node)] = owners[0]
    if len(set(group.values())) > MAX_BOXES:
        group = {k: layer_of(v) for k, v in group.items()}
    names = list(dict.fromkeys(group[id(n)] for n in graph.nodes if id(n) in group))
    if len(names) < 2:
        return None
    index = {name: k for k, name in enumerate(names)}
    member = {node: index[name] for node, name in group.items()}
    parameters = [0] * len(names)
    for node in graph.nodes:
        if id(node) in member and kinds.get(id(node)) == "parameter":
            parameters[member[id(node)]] += 1
    return Folding(names, member, parameters)


def folded_layout(graph: GraphView, described: tuple, folding: Folding,
                  unfolded: int | None) -> tuple:
    """describe()'s (graph attrs, nodes, edges) with every group but `unfolded` as one box.

    Arrows into or out of a box keep their ends outside it; arrows inside it go, and two
    arrows between the same pair of boxes become one.
    """
    graph_attrs, nodes, edges = described
    by_key: dict[str, Any] = {graph.id(n): n for n in graph.nodes}

    def shown(key: str) -> str:
        node = by_key.get(key.removesuffix("_op"))
        group = folding.member.get(id(node)) if node is not None else None
        return key if group is None or group == unfolded else folding.box(group)

    new_nodes, boxes = [], set()
    for key, attrs in nodes:
        target = shown(key)
        if target == key:
            new_nodes.append((key, attrs))
        elif target not in boxes:  # the box sits where its first member was
            boxes.add(target)
            group = int(target.removeprefix("fold"))
            parts = [folding.names[group],
                     f"{folding.size(group)} values, {folding.parameters[group]} parameters"]
            # no braces: the fields stack across the rank direction, so a box is narrow
            label = " | ".join(_escape(p, record=True) for p in parts)
            new_nodes.append((target, {"label": label, "shape": "record", "id": target,
                                       "style": "filled,rounded", "fillcolor": BOX_FILL}))
    new_edges, seen = [], set()
    for tail, head, attrs in edges:
        a, b = shown(tail), shown(head)
        if a == b or (a, b) in seen:
            continue
        seen.add((a, b))
        folded = (a, b) != (tail, head)
        new_edges.append((a, b, {"id": f"{a}_to_{b}"} if folded else attrs))
    return graph_attrs, new_nodes, new_edges
