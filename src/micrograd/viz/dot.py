"""draw_dot: the lecture's graph picture, as Graphviz DOT.

A record per value (`label | data 2.0000 | grad 6.0000`) and a small node per op between
its inputs and its output. The picture is described once as plain node/edge lists, then
turned into a `graphviz.Digraph` (for notebooks and `.render()`) or into DOT text directly
(for the HTML page and `.dot` files, which then need no Python package).

A Tensor's record adds its shape and dtype and summarises big arrays (graph.array_text);
its parameters are filled light blue and its constants grey.
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from typing import Any

from micrograd.viz.graph import (
    GraphView,
    check_rankdir,
    fmt4,
    is_array_node,
    is_parameter,
    leaf_kinds,
    shown_grad,
    tensor_fields,
    view,
)

INSTALL_GRAPHVIZ = (
    "Graphviz's `dot` program is not installed: install it with `apt install graphviz`, "
    "`brew install graphviz`, `conda install graphviz` or from https://graphviz.org/download/ "
    "(the DOT text is still available as .source)"
)
PARAMETER_FILL = "lightblue"  # as torchviz colours a model's parameters
CONSTANT_FILL = "gray92"
FORMATS = ("svg", "png", "pdf", "dot")
# seconds before a Graphviz layout is stopped: a few hundred nodes with a shared input (a
# value used by every term of a long sum) already take `dot` minutes, and it shows no progress
DOT_TIMEOUT = 60.0


class DotTimeout(TimeoutError):
    """Graphviz's `dot` did not finish a layout within the time limit (it has been stopped)."""

    def __init__(self, nodes: int | None, seconds: float):
        size = f"the {nodes}-node graph" if nodes else "the graph"
        super().__init__(
            f"Graphviz's dot did not finish laying out {size} within {seconds:g} s and was "
            f"stopped. Draw part of it with max_depth=N (the nodes within N ops of the output), "
            f"use to_html() (it lays out big graphs itself), or allow more time with timeout=")
        self.nodes = nodes
        self.seconds = seconds


class GraphvizNotFound(OSError):
    """Graphviz's `dot` program is missing (an OSError, like the FileNotFoundError behind it)."""


def _check_timeout(timeout: Any) -> None:
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None (no limit), "
                         f"got {timeout!r}")


def _escape(text: str, record: bool = False) -> str:
    """Escape text for a quoted DOT string; in a record label also the field syntax."""
    specials = '\\"{}|<>' if record else '\\"'
    return "".join("\\" + ch if ch in specials else ch for ch in str(text))


def _number(x: Any) -> str:
    return fmt4(x) if isinstance(x, float) else str(x)


def describe(graph: GraphView, rankdir: str = "LR",
             fields: Callable[[Any], list] | None = None, grads: dict | None = None) -> tuple:
    """(graph attrs, [(node name, attrs)], [(tail, head, attrs)]) of the lecture picture.

    `fields(node)` may add record fields after `grad` (the HTML page's numerical check);
    `grads` (id(node) -> number) shows other gradients than `.grad` (the page starts at 0).
    """
    check_rankdir(rankdir)
    graph_attrs = {"rankdir": rankdir}
    nodes, edges = [], []
    kinds = leaf_kinds(graph)
    for node in graph.nodes:
        nid = graph.id(node)
        grad = shown_grad(node) if grads is None else grads[id(node)]
        array = is_array_node(node)
        if array:
            parts = tensor_fields(graph.name(node), node, grad)
        else:
            parts = [graph.name(node), f"data {_number(node.data)}", f"grad {_number(grad)}"]
        if fields is not None:
            parts += fields(node)
        label = "{ " + " | ".join(_escape(p, record=True) for p in parts) + " }"
        attrs = {"label": label, "shape": "record", "id": nid}
        if array and not node._prev:
            attrs.update(style="filled",
                         fillcolor=PARAMETER_FILL if is_parameter(node) else CONSTANT_FILL)
        elif not node._prev and kinds[id(node)] != "input":  # a Value: inputs stay white
            attrs.update(style="filled", fillcolor=PARAMETER_FILL
                         if kinds[id(node)] == "parameter" else CONSTANT_FILL)
        nodes.append((nid, attrs))
        if node._prev:
            op_id = nid + "_op"
            nodes.append((op_id, {"label": _escape(graph.op(node)), "id": op_id,
                                  "fontsize": "11", "margin": "0.02,0.02",
                                  "width": "0.3", "height": "0.3"}))
            edges.append((op_id, nid, {"id": f"{op_id}_to_{nid}"}))
    for node in graph.nodes:
        for child, edge_id in input_edges(graph, node):
            edges.append((graph.id(child), graph.id(node) + "_op", {"id": edge_id}))
    if graph.cut:
        nodes.append(("cut", {
            "label": _escape(f"... {graph.hidden} more nodes beyond max_depth={graph.max_depth}"),
            "shape": "note", "style": "dashed", "id": "cut"}))
        for node in graph.nodes:
            if id(node) in graph.cut:
                edges.append(("cut", graph.id(node) + "_op", {"style": "dashed"}))
    return graph_attrs, nodes, edges


def input_edges(graph: GraphView, node: Any) -> list[tuple[Any, str]]:
    """[(input, edge id)] of the drawn arrows into node's op; a repeated input gets _2, _3."""
    result: list[tuple[Any, str]] = []
    seen: dict[str, int] = {}
    for child in node._prev:
        if id(child) in graph.ids:
            base = f"{graph.id(child)}_to_{graph.id(node)}_op"
            seen[base] = seen.get(base, 0) + 1
            result.append((child, base if seen[base] == 1 else f"{base}_{seen[base]}"))
    return result


def dot_source(root: Any, rankdir: str = "LR", max_depth: int | None = None,
               fields: Callable[[Any], list] | None = None, graph: GraphView | None = None,
               grads: dict | None = None, names: Mapping[str, Any] | None = None) -> str:
    """The DOT text of draw_dot's picture, made without the graphviz Python package."""
    graph = graph or view(root, max_depth, what="dot_source", names=names)
    return dot_text(*describe(graph, rankdir, fields, grads))


def dot_text(graph_attrs: dict, nodes: list, edges: list) -> str:
    """DOT text of describe()'s (graph attrs, nodes, edges); attribute values already escaped."""

    def attrs(a: dict) -> str:
        return ", ".join(f'{k}="{v}"' for k, v in a.items())

    lines = ["digraph {", f"\tgraph [{attrs(graph_attrs)}]"]
    lines += [f'\t"{name}" [{attrs(a)}]' for name, a in nodes]
    lines += [f'\t"{tail}" -> "{head}"' + (f" [{attrs(a)}]" if a else "")
              for tail, head, a in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


def draw_dot(root: Any, rankdir: str = "LR", format: str = "svg",
             max_depth: int | None = None, names: Mapping[str, Any] | None = None,
             timeout: float | None = DOT_TIMEOUT) -> Any:
    """The lecture's picture of `root`'s graph (a Value or a Tensor) as a graphviz.Digraph.

    `.render()` / `.pipe()` need Graphviz's `dot` program; in Jupyter the result shows
    inline. Graphs over 500 nodes warn with their size; `max_depth=N` draws only nodes
    within N ops of root (the rest is summarised in one dashed note, not dropped silently).
    `names` ({name: node}, e.g. `dict(model.named_parameters())`) names unlabelled nodes.
    `timeout`: seconds `.render()`/`.pipe()` give `dot` before stopping it with DotTimeout
    (None: no limit); both also take `timeout=` for one call. They take graphviz's usual
    arguments except renderer=/formatter=/neato_no_op= and other engines (a TypeError:
    use `graphviz.Source(picture.source)` for those, without a time limit).
    """
    if format not in FORMATS:
        raise ValueError(f"format must be one of {', '.join(FORMATS)}, got {format!r}")
    _check_timeout(timeout)
    try:
        import graphviz
    except ImportError:
        raise ImportError(
            "draw_dot needs the graphviz Python package: pip install graphviz "
            "(or pip install 'micrograd[viz]'); to_mermaid() and dot_source() need nothing"
        ) from None
    graph = view(root, max_depth, names=names)
    graph_attrs, nodes, edges = describe(graph, rankdir)
    picture = _digraph_class(graphviz)(format=format, graph_attr=graph_attrs)
    # nohtml: the graphviz package leaves a value shaped like <...> unquoted, as an HTML-like
    # label, so an op named "<<table href='javascript:...'>...>" would become a link
    for name, attrs in nodes:
        picture.node(name, **{k: graphviz.nohtml(v) for k, v in attrs.items()})
    for tail, head, attrs in edges:
        picture.edge(tail, head, **{k: graphviz.nohtml(v) for k, v in attrs.items()})
    picture.timeout = timeout
    picture.drawn_nodes = len(graph.nodes)
    return picture


_DIGRAPH = None
_UNSET = object()  # "no timeout= given" (None already means "no limit")
# Jupyter mimetype -> (format, encoding) of the picture, as graphviz's own display offers
JUPYTER_FORMATS = {"image/svg+xml": ("svg", "utf-8"), "image/png": ("png", None),
                   "image/jpeg": ("jpeg", None)}


def _digraph_class(graphviz: Any) -> type:
    """graphviz.Digraph whose pipe(), render() and Jupyter display run `dot` through run_dot:
    with a time limit, and with an install hint when `dot` is missing.

    Only graphviz's public API is used. Options that need graphviz's own runner (renderer=,
    formatter=, neato_no_op=, an engine other than dot, ...) are a TypeError naming them:
    `graphviz.Source(picture.source)` takes them all, without a time limit.
    """
    global _DIGRAPH
    if _DIGRAPH is not None:
        return _DIGRAPH

    class GraphvizNotInstalled(GraphvizNotFound, graphviz.ExecutableNotFound):
        """No `dot`: graphviz's error and ours at once, with the install hint as message."""

    def layout(picture: Any, format: str | None, timeout: Any, engine: str | None) -> bytes:
        format = format or picture.format
        if (engine or picture.engine) != "dot":
            raise TypeError(f"draw_dot's picture is laid out by dot only, not "
                            f"{engine or picture.engine!r}; graphviz.Source(picture.source, "
                            f"engine=...) takes other engines (without a time limit)")
        if format not in graphviz.FORMATS:
            raise ValueError(f"unknown format {format!r}: expected one of "
                             f"{', '.join(sorted(graphviz.FORMATS))}")
        try:
            return run_dot(picture.source, format,
                           picture.timeout if timeout is _UNSET else timeout,
                           picture.drawn_nodes or None)
        except GraphvizNotFound:
            raise GraphvizNotInstalled(INSTALL_GRAPHVIZ) from None

    def refuse(options: dict, method: str) -> None:
        if options:
            named = ", ".join(f"{name}=" for name in sorted(options))
            raise TypeError(f"draw_dot's picture does not take {named} in .{method}() (it runs "
                            f"Graphviz's dot itself, with a time limit); "
                            f"graphviz.Source(picture.source) takes every graphviz option, "
                            f"without a time limit")

    class Digraph(graphviz.Digraph):
        """A graphviz.Digraph; `dot` is stopped after `timeout` seconds (DotTimeout), and
        without `dot` it says how to install Graphviz."""

        timeout: float | None = DOT_TIMEOUT
        drawn_nodes: int = 0  # values in the picture, for DotTimeout's message

        def pipe(self, format: str | None = None, *, encoding: str | None = None,
                 timeout: Any = _UNSET, quiet: bool = False, engine: str | None = None,
                 **unsupported: Any) -> bytes | str:
            """The picture laid out by dot (bytes; str if `encoding` is given).

            `timeout` overrides the picture's time limit for this call; dot's own messages
            are never printed (`quiet` is accepted for graphviz's signature)."""
            refuse(unsupported, "pipe")
            output = layout(self, format, timeout, engine)
            return output if encoding is None else output.decode(encoding)

        def render(self, filename: Any = None, directory: Any = None, view: bool = False,
                   cleanup: bool = False, format: str | None = None, *, outfile: Any = None,
                   timeout: Any = _UNSET, quiet: bool = False, quiet_view: bool = False,
                   engine: str | None = None, **unsupported: Any) -> str:
            """Save the DOT source, then the picture next to it; return the picture's path.

            Files are named as graphviz names them: render("mlp") writes mlp and mlp.svg,
            render(outfile="x.png") writes x.gv and x.png (the format from the suffix);
            cleanup=True deletes the DOT file, view=True opens the picture.
            """
            refuse(unsupported, "render")
            if outfile is not None:
                outfile = os.fspath(outfile)
                if format is None:  # from the suffix, as graphviz does: x.png -> png
                    format = os.path.splitext(outfile)[1][1:].lower()
                    if format not in graphviz.FORMATS:
                        raise graphviz.RequiredArgumentError(
                            f"cannot tell the picture's format from outfile {outfile!r}: "
                            f"give format= or an outfile ending in .svg, .png, ...")
                if directory is None:
                    outfile = os.path.join(self.directory, outfile)
                if filename is None:
                    filename = os.fspath(pathlib.Path(outfile).with_suffix(".gv"))
            format = format or self.format
            picture = layout(self, format, timeout, engine)  # first: no files if dot fails
            source_path = self.save(filename, directory=directory)
            if outfile is None:
                outfile = f"{source_path}.{format}"
            elif os.path.abspath(outfile) == os.path.abspath(source_path):
                raise ValueError(f"outfile {outfile!r} must be different from the DOT source "
                                 f"file it is made from")
            outfile = os.fspath(pathlib.Path(outfile))
            with open(outfile, "wb") as file:
                file.write(picture)
            if cleanup:
                os.remove(source_path)
            if view or quiet_view:
                graphviz.view(outfile, quiet=quiet_view)
            return outfile

        def _repr_mimebundle_(self, include: Any = None, exclude: Any = None,
                              **_: Any) -> dict:
            """Jupyter's display: the SVG picture, or text saying why there is none."""
            wanted = set(include) if include is not None else {"image/svg+xml"}
            wanted -= set(exclude or ())
            try:
                bundle = {mime: self.pipe(format=format, encoding=encoding)
                          for mime, (format, encoding) in JUPYTER_FORMATS.items()
                          if mime in wanted}
                svg = bundle.get("image/svg+xml")
                if isinstance(svg, str):  # piped with encoding="utf-8": text
                    bundle["image/svg+xml"] = fit_width(svg)
                return bundle
            except graphviz.ExecutableNotFound:
                return {"text/plain": INSTALL_GRAPHVIZ + "\n\n" + self.source}
            except DotTimeout as error:  # say why there is no picture instead of hanging
                return {"text/plain": str(error)}

        def copy(self) -> Any:
            """An independent copy, with the same time limit."""
            twin = super().copy()
            twin.timeout, twin.drawn_nodes = self.timeout, self.drawn_nodes
            return twin

    Digraph.__module__ = __name__
    _DIGRAPH = Digraph
    return Digraph


def fit_width(svg: str) -> str:
    """The SVG at most as wide as the cell it is shown in, never wider than dot made it.

    dot gives the picture a fixed size in points; a wide graph in a notebook (and in its
    HTML export) was cut off on the right. With width 100%, a max-width of its own size and
    no fixed height, the browser scales it down to fit, keeping its proportions (viewBox).
    """
    match = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if match is None:
        return svg
    return (svg[:match.start()] + f'<svg width="100%" style="max-width: {match.group(1)}pt; '
            f'height: auto"' + svg[match.end():])


def has_dot() -> bool:
    """Is Graphviz's `dot` program on PATH?"""
    return shutil.which("dot") is not None


def run_dot(source: str, format: str, timeout: float | None = DOT_TIMEOUT,
            nodes: int | None = None) -> bytes:
    """Lay out DOT text with the `dot` program; a one-line install hint if it is missing.

    `dot` is stopped after `timeout` seconds (None: no limit) with DotTimeout, whose message
    names the graph's size (`nodes`) and how to draw less of it.
    """
    _check_timeout(timeout)
    if not has_dot():
        raise GraphvizNotFound(INSTALL_GRAPHVIZ)
    try:
        result = subprocess.run(["dot", f"-T{format}"], input=source.encode(),
                                capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:  # subprocess.run has already killed it
        raise DotTimeout(nodes, expired.timeout) from None
    if result.returncode != 0:
        raise OSError(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout
