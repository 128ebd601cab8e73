"""The docs site works opened from disk (site/index.html) as well as over HTTP (issue 22,
item 3): every link is a file, nothing is loaded from the network, and search finds pages
in Chromium reading file:// URLs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import ROOT, SRC, require

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    require(shutil.which("mkdocs") or _has_mkdocs(), "MkDocs (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "PYTHONPATH": str(SRC), "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir",
                             str(out)], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    return out


def _has_mkdocs() -> bool:
    try:
        import mkdocs  # noqa: F401
    except ImportError:
        return False
    return True


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag: str, attrs: list) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append((tag, name, value))


def links_of(page: Path) -> list[tuple[str, str, str]]:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.links


def test_every_link_of_every_page_is_a_file(site):
    # 404.html is for a web server (its links are absolute, from the server's root)
    pages = sorted(p for p in site.rglob("*.html") if p.name != "404.html")
    assert len(pages) >= 30
    broken = []
    for page in pages:
        for tag, _, value in links_of(page):
            parts = urlsplit(value)
            if parts.scheme or value.startswith(("#", "mailto:", "data:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            # a folder would open as a directory listing from disk: every link must be a file
            if not target.is_file():
                broken.append(f"{page.relative_to(site)}: <{tag}> {value}")
    assert broken == []


def test_nothing_is_loaded_from_the_network(site):
    remote = []
    for page in sorted(site.rglob("*.html")):
        for tag, attr, value in links_of(page):
            loads = tag in ("script", "img", "iframe") or (tag == "link" and attr == "href")
            if loads and urlsplit(value).scheme in ("http", "https"):
                remote.append(f"{page.relative_to(site)}: <{tag}> {value}")
    assert remote == []
    assert (site / "search" / "search_index.js").is_file()  # the index as a script


@pytest.mark.browser
def test_opened_from_disk_search_and_navigation_work(site):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        require(False, "the playwright Python package (pip install -e '.[test]')")
    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    require(os.path.exists(chromium), "Chromium (/usr/bin/chromium; scripts/system-deps.sh)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium,
                                             args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        errors, remote = [], []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("request", lambda r: remote.append(r.url) if not r.url.startswith("file:")
                else None)
        page.goto((site / "index.html").as_uri())
        # search: a word only the Compatibility page has in its headings
        page.fill("input.md-search__input", "stale")
        page.wait_for_selector(".md-search-result__link", timeout=20_000)
        hits = [a.get_attribute("href") for a in page.query_selector_all(".md-search-result__link")]
        assert any("compatibility.html" in hit for hit in hits), hits
        # navigation: the Demos link opens the page itself, not a folder listing
        page.goto((site / "index.html").as_uri())
        page.click("nav.md-nav--primary a[href$='demos.html']")
        assert page.url.endswith("demos.html")
        assert re.search(r"^Demos", page.inner_text("article h1"))
        browser.close()
    assert errors == [] and remote == []


API_PAGES = {"micrograd.engine": "engine", "micrograd.nn": "nn", "micrograd.lecture": "lecture",
             "micrograd.viz": "viz", "micrograd.demos": "demos", "micrograd.torch": "torch"}


def public_names(module_name: str) -> list[str]:
    import importlib

    module = importlib.import_module(module_name)
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_")
                 and getattr(v, "__module__", None) == module_name]
    return list(names)


@pytest.mark.parametrize("module_name", list(API_PAGES))
def test_every_public_name_has_an_api_entry(site, module_name):
    """Each name a module exports has an entry (an anchor) on its API page."""
    if module_name == "micrograd.torch":
        pytest.importorskip("numpy")
    html = (site / "api" / f"{API_PAGES[module_name]}.html").read_text(encoding="utf-8")
    anchors = set(re.findall(r'id="(micrograd\.[\w.]+)"', html))
    # its own entry, or the entry of the object it re-exports (micrograd.viz.show.show)
    missing = [name for name in public_names(module_name)
               if not any(a == f"{module_name}.{name}" or a.endswith(f".{name}")
                          for a in anchors)]
    assert missing == []


@pytest.mark.parametrize("cls_path", ["micrograd.engine.Value", "micrograd.lecture.Value",
                                      "micrograd.lecture.MLP", "micrograd.nn.MLP"])
def test_every_public_method_has_a_docstring_and_an_entry(site, cls_path):
    import importlib
    import inspect

    module_name, _, cls_name = cls_path.rpartition(".")
    cls = getattr(importlib.import_module(module_name), cls_name)
    methods = [name for name, member in inspect.getmembers(cls)
               if not name.startswith("_") and callable(member) and name != "abs"]
    assert methods
    assert [m for m in methods if not inspect.getdoc(getattr(cls, m))] == []
    # inherited methods are documented where they are defined: the base class's page
    pages = {API_PAGES[k.__module__] for k in cls.__mro__ if k.__module__ in API_PAGES}
    anchors = {a for page in pages for a in re.findall(
        r'id="(micrograd\.[\w.]+)"', (site / "api" / f"{page}.html").read_text(encoding="utf-8"))}
    missing = [m for m in methods
               if not any(a.endswith(f".{m}") for a in anchors)]
    assert missing == []
