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
import shutil
import subprocess
import sys
from typing import Any, Callable, Mapping

from micrograd.viz.graph import (GraphView, check_rankdir, fmt4, is_array_node, is_parameter,
                                  tensor_fields, view)

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


def _check_timeout(timeout: Any) -> None:
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float))
                                or not timeout > 0):
        raise ValueError(f"timeout must be a positive number of seconds or None (no limit), "
                         f"got {timeout!r}")


def _run_layout(command: list, source: bytes | None, timeout: float | None,
                nodes: int | None) -> subprocess.CompletedProcess:
    """Run a Graphviz command, stopping it after `timeout` seconds (None: no limit)."""
    try:
        return subprocess.run(command, input=source, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:  # subprocess.run has already killed it
        raise DotTimeout(nodes, timeout) from None


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
    for node in graph.nodes:
        nid = graph.id(node)
        grad = node.grad if grads is None else grads[id(node)]
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
        nodes.append((nid, attrs))
        if node._prev:
            op_id = nid + "_op"
            nodes.append((op_id, {"label": _escape(node._op or "?"), "id": op_id,
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


def input_edges(graph: GraphView, node: Any) -> list:
    """[(input, edge id)] of the drawn arrows into node's op; a repeated input gets _2, _3."""
    result, seen = [], {}
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
    graph_attrs, nodes, edges = describe(graph, rankdir, fields, grads)

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
    (None: no limit); both also take `timeout=` for one call.
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
    for name, attrs in nodes:
        picture.node(name, **attrs)
    for tail, head, attrs in edges:
        picture.edge(tail, head, **attrs)
    picture.timeout = timeout
    picture.drawn_nodes = len(graph.nodes)
    return picture


_DIGRAPH = None
_UNSET = object()


def _digraph_class(graphviz: Any) -> type:
    """graphviz.Digraph whose layouts stop after a time limit and whose errors for a
    missing `dot` say how to install it."""
    global _DIGRAPH
    if _DIGRAPH is not None:
        return _DIGRAPH
    try:  # graphviz's internals that the hooks below use (graphviz 0.20 and 0.21)
        from graphviz.backend import dot_command, rendering
    except ImportError:  # a graphviz laid out otherwise: pictures still work, without a limit
        dot_command = rendering = None

    class GraphvizNotInstalled(graphviz.ExecutableNotFound):
        def __str__(self) -> str:
            return INSTALL_GRAPHVIZ

    def explained(method: Callable) -> Callable:
        def wrapper(self, *args, timeout: Any = _UNSET, **kwargs):
            saved = self.timeout
            if timeout is not _UNSET:
                _check_timeout(timeout)
                self.timeout = timeout
            try:
                return method(self, *args, **kwargs)
            except graphviz.ExecutableNotFound as error:
                raise GraphvizNotInstalled(error.args) from None
            finally:
                self.timeout = saved
        wrapper.__name__ = method.__name__
        wrapper.__doc__ = method.__doc__
        return wrapper

    def run(self, command: list, source: bytes | None, quiet: bool) -> bytes:
        """What graphviz's own runner does (errors included), plus the time limit."""
        try:
            done = _run_layout(command, source, self.timeout, self.drawn_nodes or None)
        except FileNotFoundError:
            raise graphviz.ExecutableNotFound(command) from None
        if done.returncode != 0:
            raise graphviz.CalledProcessError(done.returncode, command, output=done.stdout,
                                              stderr=done.stderr)
        if not quiet and done.stderr:
            sys.stderr.write(done.stderr.decode(errors="replace"))
        return done.stdout

    class Digraph(graphviz.Digraph):
        """A graphviz.Digraph; `dot` is stopped after `timeout` seconds (DotTimeout), and
        without `dot` it says how to install Graphviz."""

        timeout: float | None = DOT_TIMEOUT
        drawn_nodes: int = 0  # values in the picture, for DotTimeout's message

        render = explained(graphviz.Digraph.render)
        pipe = explained(graphviz.Digraph.pipe)

        # graphviz runs `dot` through these three hooks (meant for mocking); ours add the limit
        if dot_command is not None:
            @property
            def _pipe_lines(self) -> Callable:
                def pipe_lines(engine, format, input_lines, *, input_encoding, renderer=None,
                               formatter=None, neato_no_op=None, quiet=False) -> bytes:
                    command = dot_command.command(engine, format, renderer=renderer,
                                                  formatter=formatter, neato_no_op=neato_no_op)
                    source = "".join(input_lines).encode(input_encoding)
                    return run(self, command, source, quiet)
                return pipe_lines

            @property
            def _pipe_lines_string(self) -> Callable:
                def pipe_lines_string(engine, format, input_lines, *, encoding, **options) -> str:
                    return self._pipe_lines(engine, format, input_lines, input_encoding=encoding,
                                            **options).decode(encoding)
                return pipe_lines_string

            @property
            def _render(self) -> Callable:
                def render(engine, format, filepath, renderer=None, formatter=None,
                           neato_no_op=None, quiet=False, *, outfile=None,
                           raise_if_result_exists=False, overwrite_filepath=False) -> str:
                    if outfile is None:
                        outfile = rendering.get_outfile(filepath, format=format, renderer=renderer,
                                                        formatter=formatter)
                    elif (not overwrite_filepath
                          and os.path.abspath(outfile) == os.path.abspath(filepath)):
                        raise ValueError(f"outfile {os.fspath(outfile)!r} must be different from "
                                         f"the DOT source file it is made from")
                    if raise_if_result_exists and os.path.exists(outfile):
                        raise graphviz.FileExistsError(f"output file exists: {os.fspath(outfile)!r}")
                    command = dot_command.command(engine, format, renderer=renderer,
                                                  formatter=formatter, neato_no_op=neato_no_op)
                    run(self, command + ["-o", os.fspath(outfile), os.fspath(filepath)], None, quiet)
                    return os.fspath(outfile)
                return render

        def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
            try:
                return super()._repr_mimebundle_(include, exclude, **kwargs)
            except graphviz.ExecutableNotFound:
                return {"text/plain": INSTALL_GRAPHVIZ + "\n\n" + self.source}
            except DotTimeout as error:  # Jupyter: say why there is no picture
                return {"text/plain": str(error)}

    Digraph.__module__ = __name__
    _DIGRAPH = Digraph
    return Digraph


class GraphvizNotFound(OSError):
    """Graphviz's `dot` program is missing (an OSError, like the FileNotFoundError behind it)."""


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
    result = _run_layout(["dot", f"-T{format}"], source.encode(), timeout, nodes)
    if result.returncode != 0:
        raise OSError(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout
