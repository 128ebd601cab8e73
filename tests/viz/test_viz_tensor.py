"""Pictures and traces of Tensor graphs: draw_dot, to_mermaid and trace on a Tensor MLP's loss.

Oracles: PyTorch (float64) on the same weights and data for every gradient and loss shown;
the engine's own topological order for which nodes and arrows the picture must have; hand-
worked numbers for the text format of small arrays.
"""

from __future__ import annotations

import ast
import re
import warnings
import xml.etree.ElementTree as ET

import pytest
from conftest import require_module, require_tool

import micrograd
from micrograd.autograd import topological_order
from micrograd.tensors import functional as F
from micrograd.tensors import nn
from micrograd.viz import dot_source, draw_dot, html_page, to_mermaid, trace, trace_steps
from micrograd.viz.graph import SHOWN_ELEMENTS, array_text

np = require_module("numpy")
torch = require_module("torch")

X = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75], [0.1, 0.2, 0.3]]
TARGETS = [0, 2, 1, 2]
W1 = [[0.3, -0.2, 0.5], [-0.4, 0.6, 0.1]]  # Linear(3, 2): weight (out, in)
B1 = [0.1, -0.3]
W2 = [[0.7, -0.5], [0.2, 0.9], [-0.6, 0.4]]  # Linear(2, 3)
B2 = [0.05, -0.1, 0.2]


def micrograd_mlp(dtype="float64", fused=False):
    """The two-layer MLP's cross-entropy loss with fixed weights; returns (loss, names)."""
    model = nn.Sequential(nn.Linear(3, 2, dtype=dtype), nn.ReLU(), nn.Linear(2, 3, dtype=dtype))
    for layer, (w, b) in ((model[0], (W1, B1)), (model[2], (W2, B2))):
        layer.weight.data[...] = w
        layer.bias.data[...] = b
    x = micrograd.tensor(X, dtype=dtype)
    hidden = model(x) if fused else model[2](model[1](model[0](x)))
    loss = F.cross_entropy(hidden, micrograd.tensor(TARGETS))
    hidden.retain_grad()  # as torch_mlp does: the pictures show the logits' gradient
    loss.retain_grad()
    names = {**dict(model.named_parameters()), "x": x, "loss": loss}
    return loss, names


def torch_mlp():
    """The same network in PyTorch float64: loss, parameter grads by name, logits' grad."""
    params = {name: torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for name, v in (("0.weight", W1), ("0.bias", B1), ("2.weight", W2),
                              ("2.bias", B2))}
    x = torch.tensor(X, dtype=torch.float64)
    hidden = torch.relu(x @ params["0.weight"].T + params["0.bias"])
    logits = hidden @ params["2.weight"].T + params["2.bias"]
    logits.retain_grad()
    loss = torch.nn.functional.cross_entropy(logits, torch.tensor(TARGETS))
    loss.backward()
    return loss.item(), {k: p.grad.numpy() for k, p in params.items()}, logits.grad.numpy()


def records(source: str) -> dict:
    """node id -> the fields of its record, from DOT text."""
    found = re.findall(r'"?(n\d+)"? \[label="\{ (.*?) \}"', source)
    return {nid: [f.replace("\\", "") for f in text.split(" | ")] for nid, text in found}


def field(fields: list, key: str) -> str:
    (value,) = [f[len(key) + 1:] for f in fields if f.startswith(key + " ")]
    return value


def parse_shown(text: str):
    """What a record shows for an array: a nested list, or (count, low, high) for a summary."""
    summary = re.fullmatch(r"(\d+) values from (\S+) to (\S+)", text)
    if summary:
        return int(summary[1]), float(summary[2]), float(summary[3])
    return np.array(ast.literal_eval(text), dtype=float)


def close4(shown, expected) -> bool:
    """Shown to 4 significant digits: equal to the oracle within that rounding."""
    return np.allclose(shown, expected, rtol=6e-4, atol=1e-12)


# --- draw_dot -------------------------------------------------------------------------------

def test_dot_has_a_record_per_tensor_in_topological_order_with_shape_and_dtype():
    loss, names = micrograd_mlp()
    loss.backward()
    order = topological_order(loss)
    found = records(draw_dot(loss, names=names).source)
    assert list(found) == [f"n{k}" for k in range(len(order))]
    for k, node in enumerate(order):
        assert field(found[f"n{k}"], "shape") == f"{tuple(node.data.shape)} float64"
    expected_shapes = [(4, 3), (2, 3), (2,), (4, 2), (4, 2), (3, 2), (3,), (4, 3), ()]
    assert [node.shape for node in order] == expected_shapes  # the graph this test means
    assert found["n8"][0] == "loss"


def test_dot_arrows_and_ops_are_the_engines_graph():
    loss, names = micrograd_mlp()
    order = topological_order(loss)
    source = dot_source(loss, names=names)
    ops = dict(re.findall(r'"(n\d+)_op" \[label="([^"]*)"', source))
    assert ops == {f"n{k}": node._op for k, node in enumerate(order) if node._prev}
    assert list(ops.values()) == ["linear", "relu", "linear", "cross_entropy"]
    arrows = re.findall(r'"(n\d+(?:_op)?)" -> "(n\d+(?:_op)?)"', source)
    index = {id(node): k for k, node in enumerate(order)}
    expected = {(f"n{k}_op", f"n{k}") for k, node in enumerate(order) if node._prev}
    expected |= {(f"n{index[id(c)]}", f"n{k}_op") for k, node in enumerate(order)
                 for c in node._prev}
    assert set(arrows) == expected and len(arrows) == len(expected)


def test_dot_grads_and_loss_equal_pytorch():
    loss, names = micrograd_mlp()
    loss.backward()
    torch_loss, torch_grads, torch_logits_grad = torch_mlp()
    found = records(dot_source(loss, names=names))
    by_name = {fields[0].split(" (")[0]: fields for fields in found.values()}
    assert float(field(by_name["loss"], "data")) == pytest.approx(torch_loss, abs=5e-5)
    assert field(by_name["loss"], "grad") == "1.0000"
    for name, grad in torch_grads.items():  # every parameter has <= 6 elements: shown whole
        shown = parse_shown(field(by_name[name], "grad"))
        assert shown.shape == grad.shape and close4(shown, grad), name
        assert close4(shown, names[name].grad)  # and it is the tensor's .grad
    count, low, high = parse_shown(field(found["n7"], "grad"))  # the logits: 12 elements
    assert (count, low, high) == (12, pytest.approx(torch_logits_grad.min(), rel=6e-4),
                                  pytest.approx(torch_logits_grad.max(), rel=6e-4))


def test_parameters_and_constants_are_told_apart():
    loss, names = micrograd_mlp()
    source = dot_source(loss, names=names)
    fills = dict(re.findall(r'\{ (\S+) \(\w+\) \|[^\n]*fillcolor="(\w+)"', source))
    assert fills == {"x": "gray92", "0.weight": "lightblue", "0.bias": "lightblue",
                     "2.weight": "lightblue", "2.bias": "lightblue"}
    assert "x (constant)" in source and "0.weight (parameter)" in source
    assert source.count("fillcolor") == 5  # op outputs are not filled


def test_unnamed_tensors_get_short_stable_names():
    loss, _ = micrograd_mlp()
    first = records(dot_source(loss))
    again = records(dot_source(micrograd_mlp()[0]))
    assert first == again
    assert [fields[0] for fields in first.values()] == [
        "v0 (constant)", "v1 (parameter)", "v2 (parameter)", "v3", "v4", "v5 (parameter)",
        "v6 (parameter)", "v7", "v8"]


def test_float32_graph_says_float32_and_a_grad_before_backward_is_none():
    loss, names = micrograd_mlp(dtype="float32", fused=True)
    found = records(dot_source(loss, names=names))
    assert all(field(f, "shape").endswith(" float32") for f in found.values())
    assert all(field(f, "grad") == "None" for f in found.values())
    assert "linear_relu" in dot_source(loss)  # Sequential's fused Linear+ReLU is one node


def test_svg_of_a_tensor_graph_parses_as_xml():
    require_tool("dot")
    loss, names = micrograd_mlp()
    loss.backward()
    svg = draw_dot(loss, names=names).pipe(format="svg")
    texts = [t.text for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")]
    assert "shape (2, 3) float64" in texts and "cross_entropy" in texts
    assert "0.weight (parameter)" in texts


def test_max_depth_cuts_a_tensor_graph():
    loss, names = micrograd_mlp()
    source = dot_source(loss, names=names, max_depth=1)
    assert len(records(source)) == 2  # the loss and the logits
    assert "7 more nodes beyond max_depth=1" in source


def test_mermaid_of_a_tensor_graph():
    loss, names = micrograd_mlp()
    loss.backward()
    text = to_mermaid(loss, names=names)
    order = topological_order(loss)
    boxes = re.findall(r'^  (n\d+)\["(.*?)"\]$', text, re.M)
    assert [nid for nid, _ in boxes] == [f"n{k}" for k in range(len(order))]
    assert boxes[1][1].startswith("0.weight (parameter) | shape (2, 3) float64 | data ")
    assert sorted(re.findall(r'\(\("(.*?)"\)\)', text)) == sorted(
        ["linear", "relu", "linear", "cross_entropy"])
    assert text.count("-->") == 4 + sum(len(n._prev) for n in order)
    assert "class n1,n2,n5,n6 parameter" in text and "class n0 constant" in text


def test_value_graphs_keep_the_lecture_look():
    from conftest import lecture_expression

    source = dot_source(lecture_expression(backward=True))
    assert "fillcolor" not in source and "shape (" not in source
    assert "classDef" not in to_mermaid(lecture_expression(backward=True))


# --- the text of an array ---------------------------------------------------------------------

@pytest.mark.parametrize("array, text", [
    (np.array(2.302585), "2.3026"),  # 0-d: the number, as a Value shows it
    (np.array([[-3.0]]), "-3.0000"),  # one element of any shape: the number
    (np.array([1.0, -2.5, 0.125]), "[1, -2.5, 0.125]"),
    (np.array([[0.123456, 2.0, 3.0], [4.0, 5.0, 6.0]]), "[[0.1235, 2, 3], [4, 5, 6]]"),
    (np.arange(7.0) - 3, "7 values from -3 to 3"),  # one more than SHOWN_ELEMENTS
    (np.array([1.0, np.nan, 2.0, np.inf, 5.0, 0.5, -1.0]), "7 values from -1 to 5, 2 nan/inf"),
    (np.full(8, np.nan), "8 values, 8 nan/inf"),
    (np.arange(10), "10 values from 0 to 9"),
    (np.array([3, 4], dtype=np.int64), "[3, 4]"),
    (np.zeros((0, 3)), "[]"),
    (None, "None"),
])
def test_array_text_shows_small_arrays_whole_and_summarises_big_ones(array, text):
    assert SHOWN_ELEMENTS == 6
    assert array_text(array) == text


# --- trace ----------------------------------------------------------------------------------

def test_trace_gradients_are_the_engines_bit_for_bit_and_pytorchs():
    loss, names = micrograd_mlp()
    run = trace_steps(loss, names=names)
    assert all(node._grad_array is None for node in run.order)  # tracing changed no .grad
    for node in run.order:  # every interior gradient kept, to compare with the trace's
        if node.requires_grad:
            node.retain_grad()
    loss.backward()
    for node in run.order:
        if node.requires_grad:
            assert np.array_equal(run.grad(node), node.grad)
        else:
            assert run.grad(node) is None
    _, torch_grads, _ = torch_mlp()
    for name, grad in torch_grads.items():
        np.testing.assert_allclose(run.grad(names[name]), grad, rtol=1e-12, atol=1e-15)


def test_trace_steps_run_in_the_engines_order_with_the_incoming_shapes():
    loss, names = micrograd_mlp()
    ran = []
    for node in topological_order(loss):
        if node._grad_fn is not None:
            node._grad_fn = _recording(node._grad_fn, ran)
    run = trace_steps(loss, names=names)
    ran.clear()  # the trace ran them too, on scratch gradients
    loss.backward()
    assert [step.node for step in run.steps] == ran
    for step in run.steps:
        assert step.incoming.shape == step.node.shape
        for c in step.contributions:
            assert c.added is None or c.added.shape == c.target.shape


def test_trace_text_of_an_mlp():
    loss, names = micrograd_mlp()
    text = trace(loss, names=names)
    torch_loss, _, _ = torch_mlp()
    assert f"loss = cross_entropy(v2) -> shape () float64: {torch_loss:.4f}" in text
    assert "step 1: loss = cross_entropy(v2)   (incoming loss.grad: shape ())" in text
    assert "step 3: v1 = relu(v0)   (incoming v1.grad: shape (4, 2))" in text
    assert "2.weight.grad += shape (3, 2): [[" in text
    assert "x: no gradient (a constant: requires_grad=False)" in text
    assert text.index("forward pass") < text.index("backward pass") < text.index(
        "gradients of the leaves")


def test_trace_shows_broadcast_sums_for_a_named_two_input_op():
    """maximum broadcasts like *: its gradients are summed back too, and the trace says so."""
    x = micrograd.tensor([[1.0], [2.0]], requires_grad=True)
    y = micrograd.tensor([0.5, 3.0, 1.0], requires_grad=True)
    text = trace(x.maximum(y).sum(), names={"x": x, "y": y})
    # d/dx: 1 where x wins, 1/2 at the tie x = y = 1 -> row 0: 1 + 1/2, row 1: 1 + 1
    assert "x.grad += shape (2, 1): [[1.5], [2]]   (summed from shape (2, 3)" in text
    assert "y.grad += shape (3,): [0, 2, 0.5]   (summed from shape (2, 3)" in text
    assert "= maximum(x, y)" in text


def test_trace_shows_broadcast_sums_and_accumulation():
    a = micrograd.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = micrograd.tensor(2.0, requires_grad=True)
    y = (a * b + b).sum()
    text = trace(y, names={"a": a, "b": b})
    # d/db of sum(a*b + b) = sum(a) + 3 = 9, added in two steps: 3 from +, then 6 from *
    assert "b.grad += shape (): 3.0000   (summed from shape (3,) to the input's shape)" in text
    assert "-> b.grad = 9.0000" in text
    y.backward()
    assert b.grad == 9.0


def test_trace_needs_a_single_element_output():
    x = micrograd.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(ValueError, match=r"shape \(1, 2\).*\.sum\(\)"):
        trace(x * 2)


def test_trace_of_a_graph_without_gradients_says_so():
    x = micrograd.tensor([1.0, 2.0])
    assert "nothing in this graph requires grad" in trace((x * x).sum())


def test_html_page_refuses_a_tensor_with_a_clear_error():
    loss, _ = micrograd_mlp()
    with pytest.raises(TypeError, match=r"for Value graphs.*draw_dot"):
        html_page(loss)


@pytest.mark.parametrize("names, message", [
    ([("x", 1)], "mapping"),
    ({"x": [1.0]}, r"names\['x'\] must be a Tensor or Value"),
    ({3: micrograd.tensor(1.0)}, "non-empty strings"),
])
def test_bad_names_are_clear_errors(names, message):
    loss, _ = micrograd_mlp()
    with pytest.raises(TypeError, match=message):
        dot_source(loss, names=names)


def test_drawing_something_that_is_not_a_graph_is_a_clear_error():
    with pytest.raises(TypeError, match="Value or a Tensor"):
        to_mermaid(np.ones(3))
    with pytest.raises(TypeError, match="Value or a Tensor"):
        trace(2.0)


def test_readme_tensor_graph_example_runs(tmp_path):
    require_tool("dot")
    import os
    import pathlib
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2]
    readme = (root / "docs" / "pictures.md").read_text(encoding="utf-8")
    section = readme[readme.index("**Tensor graphs**"):]
    start = section.index("```python\n") + len("```python\n")
    code = section[start:section.index("\n```", start)]
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            cwd=tmp_path, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(root / "src")})
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "mlp.svg").read_bytes().lstrip().startswith(b"<?xml")
    assert "0.weight (parameter) | shape (3, 2) float32" in result.stdout
    assert "step 3: v0 = linear_relu(x, 0.weight, 0.bias)" in result.stdout
    assert "loss = cross_entropy(" in result.stdout  # the label set with loss.label = ...


def test_a_tensor_label_names_it_like_a_values_label():
    x = micrograd.tensor([1.0, 2.0], requires_grad=True)
    assert x.label == ""
    x.label = "inputs"
    y = (x * x).sum()
    assert y.label == "" and x.label == "inputs"
    assert '["inputs (parameter) |' in to_mermaid(y) and '{ inputs (parameter) |' in dot_source(y)


def test_trace_of_a_leaf_output_is_its_seed():
    p = micrograd.tensor(3.0, requires_grad=True)
    text = trace(p, names={"p": p})
    assert "p.grad = 1.0   (the output is a leaf" in text and "p.grad = shape (): 1.0000" in text
    p.backward()
    assert p.grad == 1.0


def test_trace_shows_the_python_number_of_an_op_in_written_order():
    t = micrograd.tensor([1.0, 2.0], requires_grad=True)
    parts = [t * 2.5, 3 - t, t ** 2, 1 / t, t / 4, 0.1 + t]
    total = parts[0].sum()
    for part in parts[1:]:
        total = total + part.sum()
    text = trace(total, names={"t": t})
    for written in ["t * 2.5", "3 - t", "t ** 2", "1 / t", "t / 4", "0.1 + t"]:
        assert f"= {written} -> shape (2,)" in text, (written, text)
        assert f"= {written}   (incoming" in text
    assert "a number" not in text
    # the number is read from the graph, not recomputed: the steps still add PyTorch's grads
    ref = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    (ref * 2.5 + (3 - ref) + ref ** 2 + 1 / ref + ref / 4 + (0.1 + ref)).sum().backward()
    total.backward()
    np.testing.assert_allclose(t.grad, ref.grad.numpy(), rtol=1e-12)


def _recording(grad_fn, ran):
    """grad_fn, wrapped to append its node to `ran` before running it."""
    def recorded(n):
        ran.append(n)
        return grad_fn(n)
    return recorded


def test_a_picture_after_backward_shows_dropped_gradients_as_none_quietly():
    model = nn.Sequential(nn.Linear(3, 2, dtype="float64"), nn.ReLU())
    loss = model(micrograd.tensor(X, dtype="float64")).sum()
    loss.backward()  # no retain_grad(): as in torch, op outputs keep no gradient
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # reading .grad of a non-leaf would warn
        found = records(dot_source(loss, names={"loss": loss}))
    by_name = {fields[0].split(" (")[0]: fields for fields in found.values()}
    assert field(by_name["loss"], "grad") == "None"
    assert all(field(fields, "grad") != "None" for fields in found.values()
               if "(parameter)" in fields[0])
