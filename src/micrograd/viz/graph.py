"""What every picture of a graph needs: its nodes in order, a name for each, a depth cut.

All pictures (DOT, Mermaid, the trace, the HTML page) describe a graph through `GraphView`,
so a value has the same name everywhere: the name given in `names=`, else its label, else
`v0`, `v1`, ... numbered in the engine's topological order. The order is deterministic
(inputs are walked in creation order), so the same code gives the same names on every run.

Value graphs and Tensor graphs go through the same code; only a node's record differs. A
Tensor-like node (one with `.shape` and `.dtype`) is described by `tensor_fields`: its
shape and dtype, and its data and grad as the number itself (one element), every element
(up to SHOWN_ELEMENTS) or a count and range (bigger arrays: never a few elements passed
off as the whole array).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from micrograd.autograd import topological_order

RANKDIRS = ("LR", "TB", "RL", "BT")  # Graphviz's and Mermaid's four directions
LARGE_GRAPH = 500  # nodes; above this pictures warn and suggest max_depth
SHOWN_ELEMENTS = 6  # a tensor's data/grad with at most this many elements is shown in full
# characters of a label or op name a picture shows: a 20,000-character label would make one
# box wider than any screen (and Graphviz fails on such lines), so the middle is left out
MAX_LABEL = 60


class LargeGraphWarning(UserWarning):
    """More than LARGE_GRAPH nodes were to be drawn; `.nodes` is how many."""

    def __init__(self, message: str, nodes: int):
        super().__init__(message)
        self.nodes = nodes


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
    given: set = field(default_factory=set)  # id(node) of the nodes named in names=

    def name(self, node: Any) -> str:
        return self.names[id(node)]

    def op(self, node: Any) -> str:
        """The op that made node, as pictures show it (see display_text)."""
        return display_text(node._op or "?")

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

    def full_names(self, order: list) -> dict:
        """Names for every node of `order`: the drawn ones keep theirs, the rest get new ones."""
        return extend_names(order, self.names)


def check_rankdir(rankdir: str) -> None:
    if rankdir not in RANKDIRS:
        raise ValueError(f"rankdir must be one of {', '.join(RANKDIRS)}, got {rankdir!r}")


def view(root: Any, max_depth: int | None = None, warn_over: int = LARGE_GRAPH,
         what: str = "draw_dot", names: Mapping[str, Any] | None = None) -> GraphView:
    """Collect `root`'s graph; keep only nodes within `max_depth` ops of root if given.

    names: {name: node} for nodes that have no label of their own, e.g. a Tensor model's
    `dict(model.named_parameters())`; it wins over labels.
    """
    if max_depth is not None and (
            not isinstance(max_depth, int) or isinstance(max_depth, bool) or max_depth < 0):
        raise ValueError(f"max_depth must be a non-negative integer or None, got {max_depth!r}")
    if not hasattr(root, "_prev"):
        raise TypeError(f"{what} draws the graph of a Value or a Tensor (anything with _prev, "
                        f"_op, data and grad), got {type(root).__name__}")
    fixed = given_names(names, what)
    order = topological_order(root)
    total = len(order)
    if max_depth is None:
        nodes = order
    else:
        depth = _depths(root, max_depth)
        nodes = [n for n in order if id(n) in depth]
    if max_depth is None and total > warn_over:
        warnings.warn(LargeGraphWarning(
            f"{what}: the graph has {total} nodes; drawing all of them is slow and hard to "
            f"read. Pass max_depth=N to draw only the nodes within N ops of the output.",
            total), stacklevel=3)
    graph = GraphView(root=root, nodes=nodes, total=total, max_depth=max_depth)
    graph.ids = {id(n): f"n{k}" for k, n in enumerate(nodes)}
    graph.names = _unique_names(nodes, fixed)
    graph.given = set(fixed)
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


def given_names(names: Mapping[str, Any] | None, what: str) -> dict:
    """names= ({name: node}) as id(node) -> name, checked; the first name of a node wins."""
    if names is None:
        return {}
    if not isinstance(names, Mapping):
        raise TypeError(f"{what}: names must be a mapping {{name: tensor}}, e.g. "
                        f"dict(model.named_parameters()), got {type(names).__name__}")
    fixed: dict = {}
    for name, node in names.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"{what}: names must map non-empty strings to nodes, got key {name!r}")
        if not hasattr(node, "_prev"):
            raise TypeError(f"{what}: names[{name!r}] must be a Tensor or Value, "
                            f"got {type(node).__name__}")
        fixed.setdefault(id(node), name)
    return fixed


def _unique_names(
    nodes: list[Any], fixed: dict[int, str] | None = None, reserved: AbstractSet[str] = frozenset()
) -> dict[int, str]:
    """id -> a name no other node has: fixed[id] or the label, else v0, v1, ... in graph order.

    `reserved` names are already used by other nodes (drawn elsewhere) and are avoided.
    """
    fixed = fixed or {}
    labels = {id(n): display_text(fixed.get(id(n)) or str(getattr(n, "label", "") or ""))
              for n in nodes}
    taken = (set(labels.values()) - {""}) | set(reserved)
    names: dict = {}
    used: set = set(reserved)
    counter = 0
    for node in nodes:
        label = labels[id(node)]
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


def display_text(text: Any, limit: int | None = MAX_LABEL) -> str:
    """`text` as one short printable line for any picture.

    Control characters (newline, NUL, ESC, ...) are spelled out as `\\n`, `\\x00`, `\\x1b`
    -- Graphviz fails on some and Mermaid breaks its line on others -- and text longer than
    `limit` characters keeps its start and end around `...(N chars)...`. Quoting for each
    format (DOT, Mermaid, HTML) is still done by that format's writer.
    """
    text = str(text)
    if any(not ch.isprintable() for ch in text):
        text = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)
    if limit is not None and len(text) > limit:
        keep = (limit - 20) // 2
        text = f"{text[:keep]}...({len(text)} chars)...{text[-keep:]}"
    return text


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


def extend_names(order: list, names: dict) -> dict:
    """`names` (of the drawn nodes) plus a unique name for every other node of `order`."""
    hidden = [n for n in order if id(n) not in names]
    return {**names, **_unique_names(hidden, reserved=set(names.values()))}


# --- Tensor nodes ----------------------------------------------------------------------

def is_array_node(node: Any) -> bool:
    """Is this a Tensor-like node (it has .shape and .dtype), rather than a scalar Value?"""
    return hasattr(node, "shape") and hasattr(node, "dtype")


def shown_grad(node: Any) -> Any:
    """node.grad as a picture shows it. A non-leaf tensor's gradient is dropped once
    backward() has used it, as torch's is (call retain_grad() on the tensors whose gradient
    the picture should show): it shows as None, without the warning reading it gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return node.grad


def is_parameter(node: Any) -> bool:
    """A leaf that requires grad: what backward() fills in and an optimizer updates."""
    return not node._prev and bool(getattr(node, "requires_grad", False))


def leaf_kinds(graph: GraphView) -> dict[int, str]:
    """id(leaf) -> "parameter", "input" or "constant" for every drawn leaf (see kinds_of)."""
    return kinds_of(graph.nodes, graph.given)


def kinds_of(nodes: list, given: AbstractSet[int] = frozenset()) -> dict[int, str]:
    """id(leaf) -> "parameter", "input" or "constant" for every leaf among `nodes`.

    The one rule the page's leaves table, the pictures' colours and the text trace share.
    parameter: a Tensor that requires grad, a Value a module made (micrograd.nn, .lecture)
    or one named in names= (`given`: their ids). input: a labelled Value (the learner named
    it), or a Value that meets a parameter at an op (the x of w*x, the inputs of a neuron's
    w·x+b). constant: any other leaf (the 1.0 of y - 1.0, the 2 of **2).
    """
    from micrograd.nn import PARAMETERS

    def parameter(node: Any) -> bool:
        if is_array_node(node):
            return is_parameter(node)
        return node in PARAMETERS or id(node) in given

    kinds: dict[int, str] = {}
    for node in nodes:
        if not node._prev:
            kinds[id(node)] = ("parameter" if parameter(node) else
                               "input" if getattr(node, "label", "") else "constant")
    for node in nodes:  # a leaf next to a parameter at an op is that op's input
        children = node._prev
        if any(id(c) in kinds and kinds[id(c)] == "parameter" for c in children):
            for child in children:
                if kinds.get(id(child)) == "constant":
                    kinds[id(child)] = "input"
    return kinds


def tensor_kind(node: Any) -> str:
    """' (parameter)' or ' (constant)' for a leaf tensor, '' for an op's output."""
    if node._prev:
        return ""
    return " (parameter)" if is_parameter(node) else " (constant)"


def tensor_fields(name: str, node: Any, grad: Any) -> list:
    """The record of a Tensor node: name and kind, shape and dtype, data, grad."""
    dtype = str(node.dtype).removeprefix("torch.")  # pictures say float32, not torch.float32
    return [name + tensor_kind(node), f"shape {tuple(node.shape)} {dtype}",
            f"data {array_text(node.data)}", f"grad {array_text(grad)}"]


def _element(x: Any) -> str:
    """One array element, compactly: 4 significant digits for a float, ints as they are."""
    if isinstance(x, float):
        return f"{x:.4g}"
    return str(x)


def _nested(items: Any) -> str:
    if isinstance(items, list):
        return "[" + ", ".join(_nested(i) for i in items) + "]"
    return _element(items)


def array_text(array: Any) -> str:
    """A tensor's data or grad as short text.

    One element: the number, as a Value shows it (%.4f for floats). Up to SHOWN_ELEMENTS:
    every element, nested like the array, to 4 significant digits. More: the element count
    and the range, `48 values from -0.5712 to 0.5699`, plus how many are nan/inf -- a
    summary that says it is one, never some elements passed off as the whole array.
    """
    if array is None:
        return "None"
    array = getattr(array, "_array", array)  # a Tensor (its .data, .grad): its values
    if not hasattr(array, "size"):  # a plain number
        return fmt4(array) if isinstance(array, float) else str(array)
    if array.size == 1:
        x = array.reshape(-1)[0].item()
        return fmt4(x) if isinstance(x, float) else str(x)
    if array.size <= SHOWN_ELEMENTS:
        return _nested(array.tolist())
    import numpy as np

    finite = array[np.isfinite(array)] if array.dtype.kind in "fc" else array.reshape(-1)
    bad = array.size - finite.size
    text = f"{array.size} values"
    if finite.size:
        lo, hi = finite.min().item(), finite.max().item()
        text += f" from {_element(lo)} to {_element(hi)}"
    if bad:
        text += f", {bad} nan/inf"
    return text
