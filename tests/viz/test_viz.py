"""draw_dot, dot_source, to_mermaid, render_expression and the `micrograd graph/trace` commands."""

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from conftest import (
    lecture_expression,
    lecture_neuron,
    nodes_within,
    require_module,
    require_tool,
)

from micrograd.engine import Value
from micrograd.viz import (
    GraphvizNotFound,
    dot_source,
    render_expression,
    to_mermaid,
)
from micrograd.viz import draw_dot as _draw_dot

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def draw_dot(*args, **kwargs):
    """draw_dot, in a test that skips without the graphviz package (fails under CI=true)."""
    require_module("graphviz")
    return _draw_dot(*args, **kwargs)


SRC = str(Path(__file__).resolve().parents[2] / "src")


# label, data, grad of every value: the lecture's hand-worked table
LECTURE_TABLE = [("a", "2.0000", "6.0000"), ("b", "-3.0000", "-4.0000"),
                 ("c", "10.0000", "-2.0000"), ("f", "-2.0000", "4.0000"),
                 ("e", "-6.0000", "-2.0000"), ("d", "4.0000", "-2.0000"),
                 ("L", "-8.0000", "1.0000")]


NEURON_TABLE = [("x1", "2.0000", "-1.5000"), ("w1", "-3.0000", "1.0000"),
                ("x2", "0.0000", "0.5000"), ("w2", "1.0000", "0.0000"),
                ("b", "6.8814", "0.5000"), ("x1*w1", "-6.0000", "0.5000"),
                ("x2*w2", "0.0000", "0.5000"), ("x1*w1 + x2*w2", "-6.0000", "0.5000"),
                ("n", "0.8814", "0.5000"), ("o", "0.7071", "1.0000")]

# (build, values, ops, arrows: one op -> output per op plus one input -> op per input)
GRAPHS = [(lecture_expression, LECTURE_TABLE, ["*", "+", "*"], 3 + 6),
          (lecture_neuron, NEURON_TABLE, ["*", "*", "+", "+", "tanh"], 5 + 9)]


@pytest.mark.parametrize("build, table, ops, arrows", GRAPHS,
                         ids=["L=(a*b+c)*f", "tanh neuron"])
def test_draw_dot_has_every_value_with_data_and_grad(build, table, ops, arrows):
    graphviz = require_module("graphviz")

    picture = draw_dot(build(backward=True))
    assert isinstance(picture, graphviz.Digraph)
    source = picture.source
    for label, data, grad in table:
        assert f"{{ {label} | data {data} | grad {grad} }}" in source
    op_labels = ["".join(m) for m in
                 re.findall(r'_op \[.*?label=(?:"([^"]*)"|([^\s\]]+))', source)]
    assert sorted(op_labels) == sorted(ops)
    assert source.count("->") == arrows
    assert "rankdir=LR" in source
    assert picture.format == "svg"


@pytest.mark.parametrize("build, table, ops, arrows", GRAPHS,
                         ids=["L=(a*b+c)*f", "tanh neuron"])
def test_mermaid_has_every_value_with_data_and_grad(build, table, ops, arrows):
    text = to_mermaid(build(backward=True))
    assert text.startswith("flowchart LR\n")
    for label, data, grad in table:
        assert f'["{label} | data {data} | grad {grad}"]' in text
    assert sorted(re.findall(r'\(\("(.*?)"\)\)', text)) == sorted(ops)
    assert text.count("-->") == arrows


def test_dot_source_without_the_graphviz_package_matches_draw_dot_records():
    L = lecture_expression(backward=True)

    def records(s):
        return sorted(re.findall(r"\{ .*? \}", s))

    assert records(dot_source(L)) == records(draw_dot(L).source)


def test_svg_output_parses_as_xml_with_the_numbers():
    require_tool("dot")
    svg = draw_dot(lecture_expression(backward=True)).pipe(format="svg")
    root = ET.fromstring(svg)
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert "grad 6.0000" in texts and "data -8.0000" in texts


def test_jupyter_shows_the_picture_inline():
    require_tool("dot")
    bundle = draw_dot(lecture_expression(backward=True))._repr_mimebundle_()
    assert "grad 6.0000" in bundle["image/svg+xml"]


def test_png_output_has_the_png_signature(tmp_path):
    require_tool("dot")
    path = draw_dot(lecture_neuron(backward=True), format="png").render(tmp_path / "neuron")
    assert Path(path).read_bytes()[:8] == PNG_SIGNATURE


def test_missing_dot_program_says_how_to_install_and_keeps_the_source(monkeypatch, tmp_path):
    graphviz = require_module("graphviz")

    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no `dot` anywhere
    picture = draw_dot(lecture_expression(backward=True))
    with pytest.raises(graphviz.ExecutableNotFound) as caught:
        picture.pipe()
    assert "apt install graphviz" in str(caught.value) and "\n" not in str(caught.value)
    assert isinstance(caught.value, GraphvizNotFound)  # render_expression's error too
    with pytest.raises(graphviz.ExecutableNotFound, match="apt install graphviz"):
        picture.render(tmp_path / "L")
    assert "digraph" in picture.source and "grad 6.0000" in picture.source
    assert "apt install graphviz" in picture._repr_mimebundle_()["text/plain"]
    with pytest.raises(GraphvizNotFound, match="apt install graphviz"):
        render_expression("a*b", dict(a=1, b=2), tmp_path / "x.svg")


def test_missing_graphviz_package_says_what_to_pip_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    with pytest.raises(ImportError, match="pip install graphviz"):
        _draw_dot(lecture_expression(backward=True))  # the real one: no skip


def test_unlabelled_values_get_short_stable_names():
    def build():
        x = Value(1.0)
        y = Value(2.0, label="v0")  # a label that looks like a generated name
        return (x * y + 3).tanh()

    first, second = dot_source(build()), dot_source(build())
    assert first == second
    names = re.findall(r"\{ (\S+) \|", first)
    assert len(names) == len(set(names)) == 6  # x, y, x*y, 3, +, tanh
    assert names.count("v0") == 1


def test_repeated_labels_are_told_apart():
    a, b = Value(1.0, label="w"), Value(2.0, label="w")
    names = re.findall(r"\{ (\S+) \|", dot_source(a * b))
    assert "w" in names and "w#2" in names


def test_record_syntax_in_labels_is_escaped():
    require_tool("dot")
    x = Value(1.0, label="a|b{c}<d>")
    svg = draw_dot(x * 2).pipe(format="svg").decode()
    assert "a|b{c}&lt;d&gt;" in svg


def chain(n):
    x = Value(1.0, label="x")
    for _ in range(n):
        x = x + 1
    return x  # 2n + 1 nodes


def test_large_graph_warns_with_its_size():
    with pytest.warns(UserWarning, match="601 nodes.*max_depth"):
        draw_dot(chain(300))


def test_max_depth_cuts_and_says_how_much_is_hidden():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a cut graph must not warn
        source = draw_dot(chain(300), max_depth=4).source
    records = re.findall(r"\{ .*? \}", source)
    assert len(records) == 1 + 2 * 4  # the root, then a sum and a constant per level
    assert "592 more nodes beyond max_depth=4" in source
    mermaid = to_mermaid(chain(300), max_depth=4)
    assert "592 more nodes beyond max_depth=4" in mermaid


def test_bad_arguments_are_clear_errors():
    L = lecture_expression(backward=True)
    with pytest.raises(ValueError, match="rankdir"):
        draw_dot(L, rankdir="XY")
    with pytest.raises(ValueError, match="format"):
        draw_dot(L, format="gif")
    with pytest.raises(ValueError, match="max_depth"):
        draw_dot(L, max_depth=-1)


@pytest.mark.parametrize("suffix", [".dot", ".mmd", ".html", ".svg", ".png"])
def test_render_expression_writes_each_format(tmp_path, suffix):
    if suffix in (".svg", ".png"):
        require_tool("dot")
    path = render_expression("L = (d := (e := a*b) + c)*f", dict(a=2, b=-3, c=10, f=-2),
                             tmp_path / f"graph{suffix}")
    data = Path(path).read_bytes()
    if suffix == ".png":
        assert data[:8] == PNG_SIGNATURE
    elif suffix == ".svg":
        texts = [t.text for t in ET.fromstring(data).iter("{http://www.w3.org/2000/svg}text")]
        assert "grad 6.0000" in texts
    elif suffix == ".html":
        assert b"<svg" in data and b"http" not in data.replace(b"http://www.w3.org", b"")
    else:
        assert "a | data 2.0000 | grad 6.0000" in data.decode()


def test_render_expression_refuses_other_suffixes(tmp_path):
    with pytest.raises(ValueError, match=r"\.svg, \.png, \.dot, \.mmd, \.html"):
        render_expression("a", dict(a=1), tmp_path / "graph.jpg")


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, "-m", "micrograd.cli", *args], capture_output=True,
                          text=True, env=env, timeout=60)


def test_cli_trace_prints_the_chain_rule():
    result = run_cli("trace", "L = (d := (e := a*b) + c)*f", "a=2", "b=-3", "c=10", "f=-2")
    assert result.returncode == 0, result.stderr
    assert "f.grad += d.data * L.grad = 4.0 * 1.0 = 4.0" in result.stdout


def test_cli_graph_errors_are_one_clear_message(tmp_path):
    result = run_cli("graph", "(a*b + c)*f", "a=2", "-o", str(tmp_path / "g.mmd"))
    assert result.returncode == 2
    assert "b, c, f" in result.stderr and "Traceback" not in result.stderr
    result = run_cli("graph", "a.__class__", "a=2", "-o", str(tmp_path / "g.mmd"))
    assert result.returncode == 2 and "attribute access" in result.stderr
    result = run_cli("graph", "a", "a=2", "-o", str(tmp_path / "g.gif"))
    assert result.returncode == 2 and ".html" in result.stderr


def test_cli_graph_writes_a_file(tmp_path):
    out = tmp_path / "g.mmd"
    result = run_cli("graph", "tanh(x*w + b)", "x=1", "w=2", "b=-1", "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "flowchart LR" in out.read_text()


def test_importing_viz_needs_no_graphviz_and_engines_do_not_import_viz():
    code = ("import sys; import micrograd, micrograd.nn; assert 'micrograd.viz' not in sys.modules;"
            "import micrograd.viz; assert 'graphviz' not in sys.modules; print('ok')")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=dict(os.environ, PYTHONPATH=SRC), timeout=60)
    assert result.stdout.strip() == "ok", result.stderr


def test_html_page_of_a_graph_too_big_for_graphviz_uses_the_column_layout(monkeypatch):
    require_tool("dot")
    import micrograd.viz.html as html_module

    monkeypatch.setattr(html_module, "DOT_LAYOUT_LIMIT", 5)
    with pytest.warns(UserWarning, match="column layout"):
        page = html_module.html_page(lecture_neuron(backward=True))
    assert '<g id="n0" class="node">' in page and "grad 0.0000" in page


# --- the HTML page with max_depth -----------------------------------------------------------

def page_data(page: str) -> dict:
    import json

    return json.loads(re.search(r'id="mg-data">(.*?)</script>', page, re.S).group(1))


def x_times_deep_x():
    """L = x * f(x), f six ops deep: x is drawn at depth 1 but also gets a gradient from the
    bottom of f, which max_depth=1 does not draw."""
    x = Value(0.5, label="x")
    y = x
    for _ in range(6):
        y = (y * 1.1).tanh()
    L = x * y
    L.label = "L"
    return x, L


@pytest.mark.parametrize("build, depth", [(x_times_deep_x, 1), (x_times_deep_x, 3),
                                          (lambda: (None, chain(40)), 5)])
def test_html_page_with_max_depth_keeps_every_step_that_changes_a_drawn_gradient(build, depth):
    from micrograd.autograd import topological_order
    from micrograd.viz import html_page

    _, root = build()
    data = page_data(html_page(root, max_depth=depth))
    order = topological_order(root)
    near = nodes_within(root, depth)
    drawn = [n for n in order if id(n) in near]
    assert len(data["nodes"]) == len(drawn) < len(order)
    expected_steps = [n for n in reversed(order) if n._grad_fn is not None
                      and (id(n) in near or any(id(c) in near for c in n._prev))]
    assert len(data["steps"]) == 2 + len(expected_steps)  # + the forward pass and the seed
    root.backward()
    final = {}
    for step in data["steps"]:
        for update in step["updates"]:
            assert update["id"] in data["nodes"]
            final[update["id"]] = update["after"]
    for k, node in enumerate(drawn):
        assert final.get(f"n{k}", 0.0) == node.grad  # the engine's gradient, exactly


def test_html_page_marks_the_steps_of_undrawn_nodes():
    from micrograd.viz import html_page

    _, L = x_times_deep_x()
    page = html_page(L, max_depth=1)
    data = page_data(page)
    hidden = [s for s in data["steps"] if s["node"] is None and s["updates"]]
    assert len(hidden) == 1 and "not drawn: beyond max_depth=1" in hidden[0]["title"]
    assert hidden[0]["updates"][0]["id"] == "n0"  # x: its second share comes from deep down
    assert "19 more are not drawn" not in page  # 20 nodes: 3 drawn, 17 not
    assert "17 more are not drawn" in page and "17 more nodes beyond max_depth=1" in page


def test_html_page_with_max_depth_without_graphviz_draws_the_cut_note(monkeypatch):
    import micrograd.viz.html as html_module

    monkeypatch.setattr(html_module, "has_dot", lambda: False)
    _, L = x_times_deep_x()
    page = html_module.html_page(L, max_depth=1)
    svg = page[page.index("<svg"):page.index("</svg>") + 6]
    ET.fromstring(svg)  # well-formed
    assert '<g id="cut" class="node">' in svg and "17 more nodes beyond max_depth=1" in svg
    drawn = re.findall(r'<g id="(n\d+(?:_op)?)" class="node">', svg)
    assert sorted(drawn) == ["n0", "n1", "n1_op", "n2", "n2_op"]  # x, tanh, L and their ops


def test_html_page_max_depth_is_checked():
    from micrograd.viz import html_page

    with pytest.raises(ValueError, match="max_depth"):
        html_page(lecture_neuron(), max_depth=-2)


def test_cli_graph_html_with_max_depth(tmp_path):
    out = tmp_path / "g.html"
    result = run_cli("graph", "tanh(x1*w1 + x2*w2 + b)", "x1=2", "x2=0", "w1=-3", "w2=1",
                     "b=6.8813735870195432", "--max-depth", "2", "-o", str(out))
    assert result.returncode == 0, result.stderr
    data = page_data(out.read_text())
    # o = tanh(n), n = s + b, s = x1*w1 + x2*w2: o, n, s and b are within 2 ops
    assert sorted(node["name"] for node in data["nodes"].values()) == ["b", "v0", "v1", "v2"]
    assert "6 more are not drawn" in out.read_text()


def test_names_argument_overrides_labels_in_pictures_and_trace():
    from micrograd.viz import trace

    a, b = Value(2.0), Value(-3.0, label="b")
    c = a * b
    names = {"alpha": a, "beta": b, "product": c}
    assert "{ alpha | data 2.0000 | grad 0.0000 }" in dot_source(c, names=names)
    assert '["beta | data -3.0000 | grad 0.0000"]' in to_mermaid(c, names=names)
    assert "alpha.grad += beta.data * product.grad = (-3.0) * 1.0 = -3.0" in trace(c, names=names)


# --- big graphs: a count in the warning, and Graphviz never runs without a time limit --------

def slow_dot(tmp_path, monkeypatch):
    """Put a `dot` that never answers first on PATH (it sleeps; `exec` so that stopping it
    stops the sleep too and no orphan keeps the pipes open)."""
    folder = tmp_path / "slow-bin"
    folder.mkdir()
    fake = folder / "dot"
    fake.write_text("#!/bin/sh\nexec sleep 60\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")


def sum_of_products(terms):
    """x*1 + x*2 + ... + x*terms: x, `terms` constants, `terms` products and terms-1 sums,
    so 3*terms values; x feeds every product, the shape that makes `dot` slowest."""
    return " + ".join(f"x*{k}" for k in range(1, terms + 1))


def test_large_graph_warning_is_a_large_graph_warning_with_the_count():
    from micrograd.viz import LargeGraphWarning

    with pytest.warns(LargeGraphWarning, match="601 nodes") as caught:
        draw_dot(chain(300))
    assert caught[0].message.nodes == 601


def test_draw_dot_pipe_and_render_stop_a_slow_dot_and_say_how_big_and_what_to_do(
        tmp_path, monkeypatch):
    from micrograd.viz import DotTimeout

    slow_dot(tmp_path, monkeypatch)
    L = lecture_expression(backward=True)  # 7 values
    picture = draw_dot(L, timeout=0.5)
    with pytest.raises(DotTimeout, match=r"7-node graph within 0.5 s.*max_depth=N.*to_html"):
        picture.pipe()
    with pytest.raises(DotTimeout, match=r"0\.2 s"):  # a per-call limit
        picture.pipe(format="png", timeout=0.2)
    with pytest.raises(DotTimeout, match="7-node"):
        picture.render(outfile=tmp_path / "L.svg")
    with pytest.raises(DotTimeout, match="7-node"):
        picture.render("L", directory=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["slow-bin"]  # no half-made files
    assert picture.timeout == 0.5  # the per-call limit was for that call only
    assert DotTimeout.__mro__[1] is TimeoutError
    # in Jupyter the cell says why there is no picture instead of hanging
    shown = picture._repr_mimebundle_()
    assert list(shown) == ["text/plain"] and "did not finish" in shown["text/plain"]


def test_draw_dot_has_a_time_limit_by_default_and_checks_it():
    from micrograd.viz.dot import DOT_TIMEOUT

    L = lecture_expression(backward=True)
    assert draw_dot(L).timeout == DOT_TIMEOUT and 0 < DOT_TIMEOUT <= 120
    assert draw_dot(L, timeout=None).timeout is None
    for bad in (0, -1, "10", True):
        with pytest.raises(ValueError, match="timeout must be a positive number"):
            draw_dot(L, timeout=bad)


def test_render_with_the_time_limit_still_writes_real_pictures(tmp_path):
    """render()/pipe() run `dot` through run_dot: the usual calls must still work."""
    require_tool("dot")
    picture = draw_dot(lecture_expression(backward=True))
    default_name = Path(picture.render("L", directory=tmp_path))
    assert default_name == tmp_path / "L.svg" or default_name.name == "L.svg"
    ET.fromstring(default_name.read_bytes())
    png = Path(picture.render(outfile=tmp_path / "out" / "L.png"))
    assert png.read_bytes().startswith(PNG_SIGNATURE)
    assert picture.pipe(encoding="utf-8").lstrip().startswith("<?xml")
    pdf = Path(picture.render(tmp_path / "L2", format="pdf", cleanup=True))
    assert pdf.read_bytes().startswith(b"%PDF") and not (tmp_path / "L2").exists()


def files_under(folder):
    return {str(path.relative_to(folder)): path.read_bytes()
            for path in sorted(folder.rglob("*")) if path.is_file()}


RENDER_CALLS = [((), {}), (("mlp",), {}), (("name",), {"format": "png"}),
                ((), {"outfile": "x.png"}), (("c",), {"cleanup": True}),
                (("d",), {"directory": "sub"}), ((), {"outfile": "sub2/y.svg"}),
                ((), {"outfile": "z.png", "directory": "dd"}),
                (("mlp",), {"format": "pdf", "cleanup": True}),
                ((), {"outfile": "s.gv"}),  # the picture would overwrite its source: an error
                ((), {"outfile": "noext"})]  # no format to be had: an error


@pytest.mark.parametrize("args, kwargs", RENDER_CALLS,
                         ids=[f"{a}{k}" for a, k in RENDER_CALLS])
def test_render_writes_the_files_graphviz_itself_writes(tmp_path, monkeypatch, args, kwargs):
    """The oracle is graphviz's own render() of the same DOT source, in a folder beside."""
    require_tool("dot")
    graphviz = require_module("graphviz")

    ours = draw_dot(lecture_expression(backward=True))
    plain = graphviz.Digraph(body=list(ours.body), graph_attr=dict(ours.graph_attr),
                             format=ours.format)
    assert type(plain) is not type(ours) and plain.source == ours.source
    results = []
    for picture, folder in ((plain, tmp_path / "graphviz"), (ours, tmp_path / "ours")):
        folder.mkdir()
        monkeypatch.chdir(folder)
        try:
            results.append(picture.render(*args, **kwargs))
        except Exception as error:
            results.append(type(error))
        results.append((os.fspath(picture.filename), picture.directory, picture.format))
        results.append(files_under(folder))
    assert results[:3] == results[3:]


def test_render_view_opens_the_picture_with_graphvizs_viewer(tmp_path, monkeypatch):
    require_tool("dot")
    graphviz = require_module("graphviz")

    opened = []
    monkeypatch.setattr(graphviz, "view", lambda path, quiet=False: opened.append((path, quiet)))
    picture = draw_dot(lecture_expression(backward=True))
    path = picture.render("L", directory=tmp_path, view=True)
    assert opened == [(path, False)] and Path(path) == tmp_path / "L.svg"
    path = picture.view("L2", directory=tmp_path, cleanup=True, quiet_view=True)  # graphviz's
    assert opened[1] == (path, True) and Path(path).exists()
    assert not (tmp_path / "L2").exists()


def test_copy_keeps_the_time_limit(tmp_path, monkeypatch):
    from micrograd.viz import DotTimeout

    picture = draw_dot(lecture_expression(backward=True), timeout=0.3)
    twin = picture.copy()
    assert twin is not picture and twin.source == picture.source
    assert (twin.timeout, twin.drawn_nodes) == (0.3, 7)
    slow_dot(tmp_path, monkeypatch)
    with pytest.raises(DotTimeout, match=r"7-node graph within 0\.3 s"):
        twin.pipe()


@pytest.mark.parametrize("call, named", [
    (lambda p: p.render("x", renderer="cairo"), "renderer="),
    (lambda p: p.pipe(formatter="cairo", neato_no_op=1), "formatter=, neato_no_op="),
    (lambda p: p.render(outfile="x.png", overwrite_source=True), "overwrite_source="),
    (lambda p: p.pipe(engine="neato"), "'neato'"),
])
def test_graphviz_options_it_cannot_time_limit_are_refused_by_name(tmp_path, monkeypatch,
                                                                   call, named):
    monkeypatch.chdir(tmp_path)
    picture = draw_dot(lecture_expression(backward=True))
    with pytest.raises(TypeError, match=re.escape(named) + ".*graphviz.Source"):
        call(picture)
    assert not (tmp_path / "x.png").exists()


def test_engine_and_format_are_checked_before_dot_runs(tmp_path, monkeypatch):
    slow_dot(tmp_path, monkeypatch)  # reaching `dot` would be a DotTimeout, not these errors
    picture = draw_dot(lecture_expression(backward=True), timeout=5)
    picture.engine = "neato"
    with pytest.raises(TypeError, match="laid out by dot only, not 'neato'"):
        picture.pipe()
    picture.engine = "dot"
    with pytest.raises(ValueError, match="unknown format 'gif2'"):
        picture.pipe(format="gif2")
    with pytest.raises(ValueError, match="timeout must be a positive number"):
        picture.pipe(timeout=0)


def test_jupyter_display_offers_the_formats_asked_for():
    require_tool("dot")
    picture = draw_dot(lecture_expression(backward=True))
    assert picture._repr_mimebundle_(include=[]) == {}
    bundle = picture._repr_mimebundle_(include=["image/png", "image/svg+xml"],
                                       exclude=["image/svg+xml"])
    assert list(bundle) == ["image/png"] and bundle["image/png"].startswith(PNG_SIGNATURE)


def test_render_expression_stops_a_slow_dot(tmp_path, monkeypatch):
    from micrograd.viz import DotTimeout

    slow_dot(tmp_path, monkeypatch)
    # -x*y is (x * -1) * y, as the lecture's __neg__: x, -1, x*-1, y and the product
    with pytest.raises(DotTimeout, match=r"5-node graph within 0\.3 s"):
        render_expression("-x*y", {"x": 2, "y": 3}, tmp_path / "g.svg", timeout=0.3)


def test_html_page_falls_back_to_its_own_layout_when_dot_is_too_slow(tmp_path, monkeypatch):
    import micrograd.viz.html as html_module

    slow_dot(tmp_path, monkeypatch)
    monkeypatch.setattr(html_module, "PAGE_DOT_TIMEOUT", 0.3)
    with pytest.warns(UserWarning, match="did not lay out 10 nodes within 0.3 s.*column layout"):
        page = html_module.html_page(lecture_neuron(backward=True))
    assert '<g id="n0" class="node">' in page and "grad 0.0000" in page


def test_cli_big_graph_warns_in_one_line_then_stops_dot_with_a_clear_error(
        tmp_path, monkeypatch, capsys):
    from micrograd.cli import main

    slow_dot(tmp_path, monkeypatch)
    out = tmp_path / "big.svg"
    code = main(["graph", sum_of_products(200), "x=1", "-o", str(out), "--timeout", "0.5"])
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert code == 2 and not out.exists()
    assert len(lines) == 2, err  # one warning line, one error line: no Python traceback/source
    assert lines[0].startswith("micrograd graph: warning: the graph has 600 nodes")
    assert "--max-depth N" in lines[0] and ".html" in lines[0]
    assert "max_depth=" not in err and "UserWarning" not in err and "warn(" not in err
    assert lines[1].startswith("micrograd graph: error: ")
    assert "600-node graph in 0.5 s" in lines[1]
    assert "--max-depth N" in lines[1] and "--timeout" in lines[1] and ".html" in lines[1]


def test_cli_big_graph_to_html_warns_in_cli_words_and_writes_the_page(
        tmp_path, monkeypatch, capsys):
    import micrograd.viz.html as html_module
    from micrograd.cli import main

    monkeypatch.setattr(html_module, "PAGE_DOT_TIMEOUT", 0.5)  # this shape takes dot minutes
    out = tmp_path / "big.html"
    assert main(["graph", sum_of_products(200), "x=1", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("micrograd graph: warning: the graph has 600 nodes")
    assert "--max-depth N" in err and "max_depth=" not in err and "UserWarning" not in err
    assert out.read_text().count('class="node"') >= 600


def test_cli_timeout_must_be_positive(capsys):
    from micrograd.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["graph", "x", "x=1", "-o", "x.svg", "--timeout", "0"])
    assert stop.value.code == 2
    assert "positive number of seconds" in capsys.readouterr().err


# --- to_html's arguments ---------------------------------------------------------------------

def test_to_html_says_what_it_takes_for_a_wrong_root(tmp_path):
    from micrograd.viz import to_html

    for wrong in (3.0, [1, 2], None):
        with pytest.raises(TypeError, match=r"a Value, an expression string .* or a function"):
            to_html(wrong, tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()
    with pytest.raises(ValueError, match=r"needs a number for each variable: values=\{'a': 1.0, "
                                         r"'b': 1.0\}"):
        to_html("a*b", tmp_path / "x.html")


@pytest.mark.parametrize("name", ["x.svg", "x.png", "x", "x.html.txt"])
def test_to_html_refuses_a_path_that_is_not_html(tmp_path, name):
    from micrograd.viz import to_html

    with pytest.raises(ValueError, match=r"must end in \.html"):
        to_html(lecture_expression(backward=True), tmp_path / name)
    assert not (tmp_path / name).exists()
    assert Path(to_html(lecture_expression(backward=True), tmp_path / "X.HTML")).exists()
