"""Hostile labels and op names (issue 22, item 8): every picture quotes them for its own
format, and long or control-character text is shortened and spelled out, never a failure.

The oracles are the formats' own readers: Graphviz's `dot` (the SVG it writes is parsed as
XML and searched for links), Python's XML parser for the page's SVG, and the Mermaid rules
(a line break ends a statement; `"` ends a quoted label).
"""

import xml.etree.ElementTree as ET

import pytest
from conftest import require_tool

from micrograd.engine import Value
from micrograd.viz import dot_source, draw_dot, html_page, to_mermaid
from micrograd.viz.graph import MAX_LABEL, display_text

HTML_LABEL_OP = "<<table><tr><td href='javascript:alert(1)'>x</td></tr></table>>"
LONG = "a" * 20_000
CONTROL = "nul\x00esc\x1b[31mline\nbreak\rtab\t"


def with_op(op: str) -> Value:
    """A value made by an op named `op` from two labelled leaves."""
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    out = Value(6.0, (a, b), op, label="out")
    return out


def links(svg: bytes | str) -> list[str]:
    """Every link target in an SVG document (xlink:href or href on any element)."""
    root = ET.fromstring(svg)
    found = []
    for element in root.iter():
        for key, value in element.attrib.items():
            if key.endswith("href"):
                found.append(value)
    return found


def test_html_shaped_op_name_is_text_in_draw_dot():
    require_tool("dot")
    svg = draw_dot(with_op(HTML_LABEL_OP)).pipe(format="svg")
    assert links(svg) == []
    assert b"&lt;&lt;table" in svg  # the op name is shown as the text it is


def test_html_shaped_label_is_text_in_draw_dot():
    require_tool("dot")
    x = Value(1.0, label=HTML_LABEL_OP)
    svg = draw_dot(x * 2).pipe(format="svg")
    assert links(svg) == []


@pytest.mark.parametrize("text", [LONG, CONTROL, "\x00", "\x1b", "a\nb"],
                         ids=["20000-chars", "mixed-control", "NUL", "ESC", "newline"])
def test_long_or_control_labels_draw(text):
    require_tool("dot")
    x = Value(1.0, label=text)
    y = Value(2.0, (x,), text, label="y")
    svg = draw_dot(y).pipe(format="svg")
    ET.fromstring(svg)  # well-formed: dot accepted the source
    shown = display_text(text)
    assert len(shown) <= MAX_LABEL + 20 and all(ch.isprintable() for ch in shown)


@pytest.mark.parametrize("text", [LONG, CONTROL, HTML_LABEL_OP])
def test_to_html_never_fails_on_a_label(text):
    x = Value(1.0, label=text)
    page = html_page(Value(2.0, (x,), text, label=text))
    svg = page[page.index("<svg"):page.index("</svg>") + len("</svg>")]
    assert links(svg) == []
    assert "\x00" not in page and "\x1b" not in page


def test_display_text_spells_out_control_characters():
    assert display_text("a\nb\x00c\x1bd") == "a\\nb\\x00c\\x1bd"
    shortened = display_text(LONG)
    assert len(shortened) <= MAX_LABEL + 20 and "(20000 chars)" in shortened


@pytest.mark.parametrize("text", ["line\nbreak", 'quote " here', "back`tick`", "<b>x</b>"])
def test_mermaid_statements_stay_one_line_each(text):
    x = Value(1.0, label=text)
    chart = to_mermaid(Value(2.0, (x,), text, label="y"))
    lines = chart.splitlines()
    # one line per box, op and arrow: 2 boxes, 1 op, 1 arrow, plus the header
    assert len(lines) == 5
    for line in lines[1:]:
        if '["' in line:  # a box: exactly one quoted string, nothing raw inside it
            inner = line[line.index('["') + 2:line.rindex('"]')]
            assert '"' not in inner and "<" not in inner and "`" not in inner


def test_dot_source_quotes_html_shaped_op():
    source = dot_source(with_op(HTML_LABEL_OP))
    assert 'label="<<table' in source  # a quoted string, not an HTML-like <...> label
