"""show: the step-through page (to_html's) inside a Jupyter notebook.

The page goes into an `<iframe srcdoc="...">`: the whole page, escaped into one attribute,
so it is self-contained (nothing is loaded from the network or the notebook server) and
its script and styles cannot touch the notebook's. That works alike in JupyterLab, the
classic Notebook and VS Code, and in a notebook exported to HTML.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from micrograd.viz.html import H, html_page

__all__ = ["StepThroughPage", "iframe", "show"]

DEFAULT_HEIGHT = 640  # pixels: room for the graph, the buttons and the leaves table


class StepThroughPage:
    """An object Jupyter displays as the step-through page (it has `_repr_html_`);
    `.data` is the iframe's HTML, `.page` the page itself."""

    def __init__(self, page: str, height: int = DEFAULT_HEIGHT):
        self.page = page
        self.data = iframe(page, height)

    def _repr_html_(self) -> str:
        return self.data

    def __repr__(self) -> str:
        return (f"<StepThroughPage: {len(self.page)} characters of HTML; shown in Jupyter, "
                f"or write it with to_html>")


def iframe(page: str, height: int = DEFAULT_HEIGHT) -> str:
    """`page` inside an iframe's srcdoc attribute (in a div).

    html.escape with quote=True turns & < > " and ' into character references, so the
    attribute holds the page exactly and no text in it can end the attribute or the iframe
    element."""
    if not isinstance(height, int) or isinstance(height, bool) or height < 100:
        raise ValueError(f"height must be a whole number of pixels, at least 100, got {height!r}")
    # in a <div>: IPython's HTML() warns about markup that starts with an iframe
    return (f'<div class="micrograd-step-through"><iframe srcdoc="'
            f'{html.escape(page, quote=True)}" style="width: 100%; height: {height}px; '
            f'border: 1px solid #ddd;" sandbox="allow-scripts" '
            f'title="micrograd: step through backprop"></iframe></div>')


def show(root: Any, values: Mapping[str, float] | None = None, rankdir: str = "LR",
         title: str | None = None, h: float = H, max_depth: int | None = None,
         height: int = DEFAULT_HEIGHT, fold: bool | None = None) -> Any:
    """Show the step-through page for `root` in a notebook (make it a cell's last line).

    root, values, rankdir, title, h, max_depth, fold: as to_html. Returns IPython's HTML object
    when IPython is installed, else a StepThroughPage; both display as the page in Jupyter.
    """
    page = StepThroughPage(html_page(root, values=values, rankdir=rankdir, title=title, h=h,
                                     max_depth=max_depth, fold=fold), height)
    try:
        from IPython.display import HTML
    except ImportError:
        return page
    return HTML(page.data)
