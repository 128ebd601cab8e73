"""viz.show: the step-through page inside a notebook, as an <iframe srcdoc>.

The srcdoc is read back with Python's HTML parser (which decodes character references as a
browser does) and must be the page exactly. In Chromium, a notebook that calls show() is
executed, exported to HTML by nbconvert, opened, and stepped through inside the iframe:
the gradients the page shows are micrograd's own."""

from __future__ import annotations

import html.parser
import os
import shutil
import sys

import pytest
from conftest import require, require_module, require_tool
from learn_helpers import execute_notebook

from micrograd.engine import Value
from micrograd.viz import html_page, show
from micrograd.viz.show import StepThroughPage, iframe

LECTURE = {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}  # L = (a*b + c)*f = -8.0


class _Iframes(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[dict] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag == "iframe":
            self.found.append(dict(attrs))


def parse(markup: str) -> _Iframes:
    parser = _Iframes()
    parser.feed(markup)
    parser.close()
    return parser


def test_srcdoc_is_the_page_exactly():
    page = html_page("(a*b + c)*f", values=LECTURE)
    shown = show("(a*b + c)*f", values=LECTURE)
    parsed = parse(shown._repr_html_())
    assert parsed.tags == ["div", "iframe"]
    assert parsed.found[0]["srcdoc"] == page
    assert "allow-scripts" in parsed.found[0]["sandbox"]


def test_markup_in_labels_cannot_leave_the_iframe():
    x = Value(2.0, label='"></iframe><script>alert(1)</script>&amp;\'')
    y = x * x
    y.label = "y"
    markup = iframe(html_page(y))
    parsed = parse(markup)
    assert parsed.tags == ["div", "iframe"]  # one element: nothing escaped out of the attribute
    assert parsed.found[0]["srcdoc"] == html_page(y)


def test_without_ipython_an_object_jupyter_can_display(monkeypatch):
    monkeypatch.setitem(sys.modules, "IPython", None)
    monkeypatch.setitem(sys.modules, "IPython.display", None)
    shown = show("(a*b + c)*f", values=LECTURE)
    assert isinstance(shown, StepThroughPage)
    assert parse(shown._repr_html_()).found[0]["srcdoc"] == shown.page
    assert "StepThroughPage" in repr(shown)


def test_with_ipython_its_html_object():
    display = require_module("IPython.display")
    shown = show("(a*b + c)*f", values=LECTURE, height=400)
    assert isinstance(shown, display.HTML)
    assert 'height: 400px' in shown.data
    assert parse(shown.data).found[0]["srcdoc"] == html_page("(a*b + c)*f", values=LECTURE)


@pytest.mark.parametrize("height", [0, 99, 1.5, True, "600"])
def test_bad_height_is_refused(height):
    with pytest.raises(ValueError, match="height must be a whole number of pixels"):
        show("(a*b + c)*f", values=LECTURE, height=height)


# --- in a browser: a notebook exported to HTML --------------------------------------------

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync"]
SHOWN = """() => {
  const shown = {};
  for (const g of document.querySelectorAll('g.node')) {
    const texts = Array.from(g.querySelectorAll('text')).map(e => e.textContent.trim());
    const grad = texts.find(s => s.startsWith('grad '));
    if (grad) shown[texts[0]] = Number(grad.slice(5));
  }
  return shown;
}"""


def export_tools():
    """(nbformat, nbconvert, sync_playwright, Chromium's path), or skip saying what is missing."""
    nbformat = require_module("nbformat")
    require_module("nbclient")
    nbconvert = require_module("nbconvert")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "the playwright Python package (pip install -e '.[test]')")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    require(os.path.exists(chromium), "Chromium (/usr/bin/chromium; scripts/system-deps.sh)")
    return nbformat, nbconvert, sync_playwright, chromium


@pytest.mark.browser
def test_notebook_export_steps_through_the_embedded_page(tmp_path):
    nbformat, nbconvert, sync_playwright, chromium = export_tools()

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from micrograd.engine import Value\n"
        "from micrograd.viz import show\n"
        "a, b, c, f = Value(2.0, label='a'), Value(-3.0, label='b'), "
        "Value(10.0, label='c'), Value(-2.0, label='f')\n"
        "e = a*b; e.label = 'e'\n"
        "d = e + c; d.label = 'd'\n"
        "L = d * f; L.label = 'L'\n"
        "show(L)")])
    execute_notebook(nb, tmp_path)
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    exported = tmp_path / "notebook.html"
    exported.write_text(body, encoding="utf-8")

    # micrograd's gradients for the same graph: the oracle
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    e = a * b
    d = e + c
    L = d * f
    L.backward()
    expected = {"a": a.grad, "b": b.grad, "c": c.grad, "f": f.grad, "e": e.grad, "d": d.grad,
                "L": L.grad}

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 900})
            # the export's own scripts (MathJax, require.js) come from the network: refuse
            # them at once; the step-through page itself must need nothing from outside
            requests = []

            def route(request_route):
                requests.append(request_route.request)
                if request_route.request.url.startswith(("file:", "about:", "data:")):
                    request_route.continue_()
                else:
                    request_route.abort()

            page.route("**/*", route)
            page.goto(exported.as_uri(), wait_until="domcontentloaded")
            handle = page.wait_for_selector(".micrograd-step-through iframe")
            frame = handle.content_frame()
            frame.wait_for_selector("#mg-next")
            assert frame.inner_text("#mg-counter") == "step 0 of 4"
            assert set(frame.evaluate(SHOWN).values()) == {0.0}
            frame.click("#mg-next")  # L.grad = 1
            assert frame.evaluate(SHOWN)["L"] == 1.0
            frame.click("#mg-next")  # backward of L = d * f: d.grad = f, f.grad = d
            shown = frame.evaluate(SHOWN)
            assert (shown["d"], shown["f"]) == (expected["d"], expected["f"]) == (-2.0, 4.0)
            assert shown["a"] == 0.0  # not reached yet
            while not frame.is_disabled("#mg-next"):
                frame.click("#mg-next")
            assert frame.evaluate(SHOWN) == expected
            assert [r.url for r in requests if r.frame == frame] == []  # self-contained
        finally:
            browser.close()


@pytest.mark.browser
def test_a_wide_draw_dot_picture_fits_in_the_notebook_export(tmp_path):
    """Issue 22: in an nbconvert export, draw_dot's picture was cut off on the right. A
    40-op chain drawn left to right is far wider than the page: it must be scaled to fit."""
    require_tool("dot")
    require_module("graphviz")
    nbformat, nbconvert, sync_playwright, chromium = export_tools()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "from micrograd.engine import Value\n"
        "from micrograd.viz import draw_dot\n"
        "x = Value(0.5, label='x')\n"
        "y = x\n"
        "for k in range(40):\n"
        "    y = (y * 1.01).tanh()\n"
        "y.backward()\n"
        "draw_dot(y)")])
    execute_notebook(nb, tmp_path)
    body, _ = nbconvert.HTMLExporter().from_notebook_node(nb)
    exported = tmp_path / "notebook.html"
    exported.write_text(body, encoding="utf-8")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 800})
            page.route("**/*", lambda r: r.continue_() if r.request.url.startswith("file:")
                       else r.abort())
            page.goto(exported.as_uri(), wait_until="domcontentloaded")
            # the export shows the SVG as an <img> (a data: URL) in the output area
            page.wait_for_selector(".jp-RenderedSVG img", state="attached")
            box = page.evaluate("""() => {
              const img = document.querySelector('.jp-RenderedSVG img');
              const r = img.getBoundingClientRect();
              const area = img.closest('.jp-RenderedSVG').getBoundingClientRect();
              return {right: r.right, width: r.width, areaRight: area.right,
                      height: r.height};
            }""")
            assert box["height"] > 20  # a picture, not a collapsed box
            assert box["right"] <= min(box["areaRight"], 1000) + 1
        finally:
            browser.close()
