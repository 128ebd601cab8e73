"""The step-through backprop page, end to end in headless Chromium (Debian's, via Playwright).

After every step the gradients shown on the page are compared with the engine's own: the
test runs the engine's backward functions one node at a time, in the engine's order.
"""

import math
import os
import random
import re
import shutil

import pytest
from conftest import LECTURE_BIAS, lecture_neuron, nodes_within, require

from micrograd.autograd import topological_order
from micrograd.engine import Value
from micrograd.viz import parse_expression, to_html

pytestmark = pytest.mark.browser

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
B = LECTURE_BIAS


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "the playwright Python package (pip install -e '.[test]')")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    require(os.path.exists(chromium), "Chromium (/usr/bin/chromium; scripts/system-deps.sh)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def open_page(browser, tmp_path):
    pages = []

    def open_(root, **kwargs):
        path = tmp_path / f"page{len(pages)}.html"
        to_html(root, path, **kwargs)
        page = browser.new_page(viewport={"width": 1300, "height": 800})
        errors, requests = [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda request: requests.append(request.url))
        page.goto(path.as_uri())
        page.errors, page.requests = errors, requests
        pages.append(page)
        return page

    yield open_
    for page in pages:
        page.close()


def engine_snapshots(root):
    """Gradients of every node after each page step, from the engine's own backward functions."""
    order = topological_order(root)
    for node in order:
        node.grad = 0.0
    snapshots = [[0.0] * len(order)]
    root.grad = 1.0
    snapshots.append([n.grad for n in order])
    active = [None, 0]
    for node in reversed(order):
        if node._grad_fn is not None:
            node._grad_fn(node)
            snapshots.append([n.grad for n in order])
            active.append(order.index(node))
    active[1] = len(order) - 1
    return order, snapshots, active


SHOWN_GRADS = """() => {
  const shown = {};
  for (const g of document.querySelectorAll('g.node')) {
    const t = Array.from(g.querySelectorAll('text')).map(e => e.textContent.trim())
                   .find(s => s.startsWith('grad '));
    if (t) shown[g.id] = t.slice(5);
  }
  return shown;
}"""


def assert_page_shows(page, snapshot):
    shown = page.evaluate(SHOWN_GRADS)
    assert len(shown) == len(snapshot)
    for k, expected in enumerate(snapshot):
        value = float(shown[f"n{k}"])
        assert abs(value - expected) <= 5.1e-5 + 1e-4 * abs(expected), (k, shown[f"n{k}"], expected)


def step_counter(page):
    return page.inner_text("#mg-counter")


def step_through_with_button(page, root):
    order, snapshots, active = engine_snapshots(root)
    total = len(snapshots) - 1
    assert step_counter(page) == f"step 0 of {total}"
    assert_page_shows(page, snapshots[0])
    for k in range(1, total + 1):
        page.click("#mg-next")
        assert step_counter(page) == f"step {k} of {total}"
        assert_page_shows(page, snapshots[k])
        highlighted = page.eval_on_selector_all("g.node.mg-active", "gs => gs.map(g => g.id)")
        assert f"n{active[k]}" in highlighted
    assert page.is_disabled("#mg-next")
    for node in order:  # leaf gradients accumulate across passes: start clean
        node.grad = 0.0
    root.backward()  # and the last step equals a plain backward()
    assert_page_shows(page, [n.grad for n in order])
    return order, snapshots


def test_lecture_neuron_every_step_matches_the_engine(open_page):
    root = lecture_neuron()
    page = open_page(root)
    order, _ = step_through_with_button(page, root)
    grads = {n.label: n.grad for n in order}
    assert grads["x1"] == pytest.approx(-1.5) and grads["w1"] == pytest.approx(1.0)
    assert page.errors == []
    assert all(url.startswith(("file:", "data:", "about:")) for url in page.requests)


def test_lecture_expression_shows_the_chain_rule_arithmetic(open_page):
    page = open_page("L = (d := (e := a*b) + c) * f", values=dict(a=2, b=-3, c=10, f=-2))
    page.click("#mg-next")  # L.grad = 1
    page.click("#mg-next")  # backward of L = d * f
    assert "backward of L = d * f" in page.inner_text("#mg-step-title")
    assert "f.grad += d.data * L.grad = 4.0 * 1.0 = 4.0" in page.inner_text("#mg-step-lines")


def test_numerical_check_beside_each_leaf_gradient(open_page):
    page = open_page("tanh(x1*w1 + x2*w2 + b)", values=dict(x1=2, x2=0, w1=-3, w2=1, b=B))
    page.keyboard.press("End")
    rows = page.eval_on_selector_all(
        "#mg-leaves tbody tr", "rs => rs.map(r => Array.from(r.children).map(c => c.textContent))")
    table = {row[0]: (float(row[2]), float(row[3])) for row in rows}
    lecture = dict(x1=-1.5, w1=1.0, x2=0.5, w2=0.0, b=0.5)  # hand-worked in the lecture
    assert set(table) == set(lecture)
    for name, expected in lecture.items():
        grad, numerical = table[name]
        assert grad == pytest.approx(expected, abs=1e-4)
        assert numerical == pytest.approx(expected, abs=1e-4)
    assert page.locator("#mg-leaves td.mg-ok").count() == 5
    assert page.locator("#mg-leaves td.mg-off").count() == 0


FIFTY = ("L = tanh(x*w1 + y*w2 + b) * relu(x - y) + sigmoid(x*y) / (1 + exp(-x)) "
         "+ log(abs(w1) + 1) * sin(w2) - cos(b)**2 + sqrt(x*x + y*y) + (x + w1)**2 * w2")
FIFTY_VALUES = dict(x=0.8, y=-0.6, w1=1.3, w2=-0.7, b=0.25)


def test_fifty_node_graph_every_step_matches_the_engine(open_page):
    expression = parse_expression(FIFTY)
    root = expression.evaluate(FIFTY_VALUES)
    assert 45 <= len(topological_order(root)) <= 70
    page = open_page(expression, values=FIFTY_VALUES)
    step_through_with_button(page, root)
    assert page.errors == []


def test_arrow_keys_step_forward_and_back(open_page):
    expression = parse_expression(FIFTY)
    root = expression.evaluate(FIFTY_VALUES)
    page = open_page(expression, values=FIFTY_VALUES)
    _, snapshots, _ = engine_snapshots(root)
    total = len(snapshots) - 1
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    assert step_counter(page) == f"step 3 of {total}"
    assert_page_shows(page, snapshots[3])
    page.keyboard.press("ArrowLeft")
    assert step_counter(page) == f"step 2 of {total}"
    assert_page_shows(page, snapshots[2])  # going back undoes exactly one step
    page.keyboard.press("End")
    assert_page_shows(page, snapshots[total])
    for _ in range(total + 2):  # past the first step stays at 0
        page.keyboard.press("ArrowLeft")
    assert step_counter(page) == f"step 0 of {total}"
    assert_page_shows(page, snapshots[0])


def mlp_loss(seed=0):
    """A few hundred nodes: a 3-8-8-1 tanh network's squared error, built from Values."""
    rng = random.Random(seed)
    xs = [Value(v, label=f"x{i}") for i, v in enumerate((0.5, -1.2, 2.0))]
    for width in (8, 8, 1):
        xs = [(sum((Value(rng.uniform(-1, 1)) * x for x in xs), Value(0.1))).tanh()
              for _ in range(width)]
    return (xs[0] - 1.0) ** 2


def test_a_few_hundred_nodes_stay_usable(open_page):
    root = mlp_loss()
    order, snapshots, _ = engine_snapshots(root)
    assert len(order) > 250
    page = open_page(root)

    def view_box():
        return page.get_attribute("#mg-graph svg", "viewBox")

    page.click("#mg-fit")
    fitted = view_box()
    page.mouse.move(400, 400)
    page.mouse.wheel(0, -500)  # zoom in
    zoomed = view_box()
    assert float(zoomed.split()[2]) < float(fitted.split()[2])
    page.keyboard.press("f")
    assert view_box() == fitted
    page.keyboard.press("End")
    assert_page_shows(page, snapshots[-1])
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    # follow mode zooms in to the active node so its text is readable
    assert float(view_box().split()[2]) < float(fitted.split()[2])
    assert page.errors == []


def test_page_without_graphviz_uses_its_own_layout(open_page, monkeypatch):
    import micrograd.viz.html as html_module

    monkeypatch.setattr(html_module, "has_dot", lambda: False)
    root = lecture_neuron()
    page = open_page(root)
    step_through_with_button(page, root)
    assert page.errors == []


def test_value_page_has_no_numerical_column(open_page):
    page = open_page(lecture_neuron())
    headers = page.eval_on_selector_all("#mg-leaves th", "hs => hs.map(h => h.textContent)")
    assert headers == ["value", "data", "grad", "kind"]  # no numerical column


def test_function_page_has_a_numerical_column(open_page):
    def neuron(x1, x2, w1, w2, b):
        return (x1 * w1 + x2 * w2 + b).tanh()

    page = open_page(neuron, values=dict(x1=2, x2=0, w1=-3, w2=1, b=B))
    page.keyboard.press("End")
    rows = page.eval_on_selector_all(
        "#mg-leaves tbody tr", "rs => rs.map(r => Array.from(r.children).map(c => c.textContent))")
    numerical = {row[0]: float(row[3]) for row in rows}
    assert numerical["x1"] == pytest.approx(-1.5, abs=1e-4)
    assert math.isclose(numerical["w2"], 0.0, abs_tol=1e-4)


def test_labels_cannot_inject_markup(open_page):
    x = Value(1.0, label="</script><script>window.hacked=1</script><b>")
    page = open_page(x * 2)
    assert page.evaluate("() => window.hacked === undefined")
    assert page.errors == []


def cut_snapshots(root, max_depth):
    """The drawn nodes' gradients after each page step of a max_depth page, from the engine:
    every backward function runs; a step is one that runs a drawn node or feeds one."""
    order = topological_order(root)
    near = nodes_within(root, max_depth)
    drawn = [n for n in order if id(n) in near]
    for node in order:
        node.grad = 0.0
    snapshots = [[0.0] * len(drawn)]
    root.grad = 1.0
    snapshots.append([n.grad for n in drawn])
    for node in reversed(order):
        if node._grad_fn is None:
            continue
        node._grad_fn(node)
        if id(node) in near or any(id(c) in near for c in node._prev):
            snapshots.append([n.grad for n in drawn])
    return drawn, snapshots


def deep_reuse():
    x = Value(0.5, label="x")
    y = x
    for _ in range(6):
        y = (y * 1.1).tanh()
    return x * y


@pytest.mark.parametrize("build, depth, dot", [
    (deep_reuse, 1, True), (deep_reuse, 1, False), (mlp_loss, 4, True), (mlp_loss, 4, False)],
    ids=["reuse-dot", "reuse-columns", "mlp-dot", "mlp-columns"])
def test_max_depth_page_every_step_matches_the_engine(open_page, monkeypatch, build, depth, dot):
    import micrograd.viz.html as html_module

    if not dot:
        monkeypatch.setattr(html_module, "has_dot", lambda: False)
    root = build()
    page = open_page(root, max_depth=depth)
    _, snapshots = cut_snapshots(root, depth)
    total = len(snapshots) - 1
    assert step_counter(page) == f"step 0 of {total}"
    for k in range(total + 1):
        if k:
            page.click("#mg-next")
        assert_page_shows(page, snapshots[k])
    assert page.is_disabled("#mg-next")
    page.keyboard.press("Home")
    assert_page_shows(page, snapshots[0])
    assert page.errors == []


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_network_page_names_every_parameter_and_tells_leaf_kinds(open_page, fused):
    """Issue 22: MLP(3, [4, 4, 1])'s loss had 174 nodes named v0...v173 and every leaf
    called a constant. The leaves table now names all 41 parameters and tells parameter,
    input and constant apart (read back from the page as Chromium renders it)."""
    from micrograd.nn import MLP

    random.seed(3)
    model = MLP(3, [4, 4, 1], activation="tanh", fused=fused)
    loss = (model([2.0, 3.0, -1.0]) - 1.0) ** 2
    page = open_page(loss, fold=False)
    rows = page.eval_on_selector_all(
        "#mg-leaves tbody tr", "rs => rs.map(r => Array.from(r.children).map(c => c.textContent))")
    kinds = {row[0]: row[-1] for row in rows}
    names = [name for name, _ in model.named_parameters()]
    assert [kinds.get(name) for name in names] == ["parameter"] * 41
    assert sorted(row[-1] for row in rows) == sorted(
        ["parameter"] * 41 + ["input"] * 12 + ["constant"] * (len(rows) - 53))
    assert not any(re.fullmatch(r"v\d+", name) for name in names)
    # the parameters' boxes are on the page (drawn, with their names as text)
    texts = page.eval_on_selector_all("svg text", "ts => ts.map(t => t.textContent.trim())")
    assert set(names) <= set(texts)
    assert page.errors == []


IN_VIEW = """ids => {
  const p = document.getElementById("mg-graph").getBoundingClientRect();
  return ids.filter(id => document.getElementById(id)).map(id => {
    const r = document.getElementById(id).getBoundingClientRect();
    return [id, r.left >= p.left - 1 && r.right <= p.right + 1 && r.top >= p.top - 1 &&
                r.bottom <= p.bottom + 1, r.height];
  });
}"""


@pytest.mark.parametrize("build", ["neuron", "mlp"])
def test_follow_keeps_the_active_op_its_inputs_and_output_in_view(open_page, build):
    """Issue 22: "follow" zoomed to 1:1 on the active node and its inputs fell off-screen.
    At every step, the node, its op and every input receiving a gradient are on screen;
    on the 12-node neuron they are also at a readable size (text boxes >= 9 px high)."""
    from micrograd.nn import MLP

    if build == "neuron":
        root = lecture_neuron()
    else:
        random.seed(3)
        root = (MLP(3, [4, 4, 1], activation="tanh")([2.0, 3.0, -1.0]) - 1.0) ** 2
    page = open_page(root, fold=False)  # every node drawn: the folded page is tested below
    steps = page.evaluate("() => JSON.parse(document.getElementById('mg-data').textContent).steps")
    for k in range(1, len(steps)):
        page.evaluate(f"() => window.micrograd.go({k})")
        step = steps[k]
        if not step["node"]:
            continue
        ids = [step["node"], step["node"] + "_op"] + [u["id"] for u in step["updates"]]
        seen = page.evaluate(IN_VIEW, ids)
        assert [i for i, inside, _ in seen if not inside] == [], f"step {k}"
        if build == "neuron":
            heights = page.evaluate(
                "id => Array.from(document.getElementById(id).querySelectorAll('text'))"
                ".map(t => t.getBoundingClientRect().height)", step["node"])
            assert min(heights) >= 9, f"step {k}: text {min(heights):.1f} px high"
    assert page.errors == []


ON_SCREEN = """() => {
  const p = document.getElementById("mg-graph").getBoundingClientRect();
  return Array.from(document.querySelectorAll("#mg-graph g.node")).map(g => {
    const r = g.getBoundingClientRect();
    const texts = Array.from(g.querySelectorAll("text"));
    return {id: g.id, texts: texts.map(t => t.textContent.trim()),
            inside: r.left >= p.left - 1 && r.right <= p.right + 1 && r.top >= p.top - 1 &&
                    r.bottom <= p.bottom + 1,
            textHeight: Math.min(...texts.map(t => t.getBoundingClientRect().height)),
            x: r.left + r.width / 2, y: r.top + r.height / 2};
  });
}"""


def network_loss(fused):
    from micrograd.nn import MLP

    random.seed(3)
    model = MLP(3, [4, 4, 1], activation="tanh", fused=fused)
    return model, (model([2.0, 3.0, -1.0]) - 1.0) ** 2


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "unfused"])
def test_network_page_opens_folded_by_neuron_and_a_click_unfolds_one(open_page, fused):
    """Issue 22: a network's page opens with one box per neuron, named by its parameters'
    path, readable after "fit"; a click on a box unfolds that neuron (more nodes on screen,
    its parameters by name), a click on one of its nodes folds it again, "unfold all"
    draws every node."""
    require(shutil.which("dot"), "Graphviz's dot (folding uses its layout)")
    model, loss = network_loss(fused)
    order = topological_order(loss)
    parameters = [name for name, _ in model.named_parameters()]
    neurons = sorted({name.rsplit(".", 2 if ".w." in name else 1)[0] for name in parameters})
    assert len(neurons) == 9
    page = open_page(loss)
    page.click("#mg-fit")
    folded = page.evaluate(ON_SCREEN)
    boxes = {n["texts"][0]: n for n in folded if n["id"].startswith("fold")}
    assert sorted(boxes) == neurons
    texts = {t for n in folded for t in n["texts"]}
    assert not texts & set(parameters)  # folded away
    assert all(n["inside"] for n in folded), "fit shows every box"
    # drawn in full, "fit" left the unfused graph's text 1 px high; folded, the boxes' and
    # values' text is >= 8 px (the op symbols are drawn smaller, 11 pt against 14)
    smallest = min(n["textHeight"] for n in folded if not n["id"].endswith("_op"))
    assert smallest >= 8, f"after fit the smallest text is {smallest:.1f} px high"

    target = boxes["layers.1.neurons.2"]
    page.mouse.click(target["x"], target["y"])
    unfolded = page.evaluate(ON_SCREEN)
    assert len(unfolded) > len(folded)
    shown = {t for n in unfolded for t in n["texts"]}
    own = [p for p in parameters if p.startswith("layers.1.neurons.2.")]
    assert len(own) == 5 and set(own) <= shown
    assert not (set(parameters) - set(own)) & shown  # the other neurons stay folded
    assert "layers.1.neurons.2" not in {n["texts"][0] for n in unfolded}

    member = next(n for n in unfolded if n["texts"][0] == own[0])
    page.mouse.click(member["x"], member["y"])  # a node of the open neuron: fold it again
    assert len(page.evaluate(ON_SCREEN)) == len(folded)

    page.click("#mg-unfold")
    every = page.evaluate(ON_SCREEN)
    ops = sum(1 for n in order if n._prev)
    assert len(every) == len(order) + ops  # a box per value and one per op
    assert set(parameters) <= {t for n in every for t in n["texts"]}
    page.click("#mg-unfold")
    assert len(page.evaluate(ON_SCREEN)) == len(folded)
    assert page.errors == []


def test_stepping_through_a_folded_network_shows_where_the_gradient_is(open_page):
    """At every step of the folded page the active element is on screen and is the step's
    node, or the box of the neuron whose parameters the step's op reads; at the end the
    leaves table holds the engine's gradients."""
    require(shutil.which("dot"), "Graphviz's dot (folding uses its layout)")
    model, loss = network_loss(fused=True)
    page = open_page(loss)
    steps = page.evaluate("() => JSON.parse(document.getElementById('mg-data').textContent).steps")
    for k in range(1, len(steps)):
        page.evaluate(f"() => window.micrograd.go({k})")
        if not steps[k]["node"]:
            continue
        lit = page.eval_on_selector_all("g.node.mg-active", "gs => gs.map(g => g.id)")
        active = [n for n in page.evaluate(ON_SCREEN) if n["id"] in lit]
        assert active and all(n["inside"] for n in active), f"step {k}"
        reads = re.findall(r"(layers\.\d\.neurons\.\d)\.w\.0\b", steps[k]["title"])
        if reads:  # a neuron's w·x+b: its box (folded) is what lights up
            assert [n["texts"][0] for n in active if n["id"].startswith("fold")] == reads[:1]
    for p in model.parameters():
        p.grad = 0.0
    loss.backward()
    rows = page.eval_on_selector_all(
        "#mg-leaves tbody tr", "rs => rs.map(r => Array.from(r.children).map(c => c.textContent))")
    table = {row[0]: float(row[2]) for row in rows}
    for name, p in model.named_parameters():
        assert abs(table[name] - p.grad) <= 5.1e-5 + 1e-4 * abs(p.grad), name
    assert page.errors == []


def test_fold_is_refused_unless_a_bool_or_none():
    from micrograd.viz import html_page

    with pytest.raises(TypeError, match="fold must be True, False or None"):
        html_page(lecture_neuron(), fold="yes")
