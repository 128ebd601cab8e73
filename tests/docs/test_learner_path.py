"""The learner's path (issue 22): every demo and notebook is listed where a learner looks,
the PyTorch claims of the docs hold against torch 2.13, and each page says which import
serves which text."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT, SRC

from micrograd.demos import DEMOS, SUMMARIES

README = ROOT / "README.md"
DOCS = ROOT / "docs"
NOTEBOOKS = sorted(p.name for p in (ROOT / "examples").glob("*.ipynb"))


def test_every_demo_has_one_summary_line():
    assert list(SUMMARIES) == list(DEMOS)
    assert all(line and "\n" not in line for line in SUMMARIES.values())


def test_demo_help_lists_every_demo_with_its_line():
    out = subprocess.run([sys.executable, "-c", "from micrograd.cli import main; "
                          "main(['demo', '--help'])"], capture_output=True, text=True,
                         env={"PYTHONPATH": str(SRC)}, timeout=60).stdout
    listed = dict(re.findall(r"^  (\w+) +(.+)$", out, re.M))
    assert {name: listed.get(name) for name in DEMOS} == SUMMARIES


def test_readme_table_lists_every_demo_with_its_line():
    rows = dict(re.findall(r"^\| `(\w+)` \| (.+) \|$", README.read_text(encoding="utf-8"), re.M))
    assert {name: rows.get(name) for name in DEMOS} == SUMMARIES


@pytest.mark.parametrize("page", [README, DOCS / "demos.md", ROOT / "examples" / "README.md"],
                         ids=["README", "demos.md", "examples-README"])
def test_page_names_every_demo_and_notebook(page):
    text = page.read_text(encoding="utf-8")
    missing = [f"demo {name}" for name in DEMOS
               if not re.search(rf"`(micrograd demo )?{name}\b", text)]
    missing += [nb for nb in NOTEBOOKS if nb not in text]
    assert missing == []


@pytest.mark.parametrize("page", [README, DOCS / "index.md"], ids=["README", "index.md"])
def test_page_says_which_import_serves_which_text(page):
    text = page.read_text(encoding="utf-8")
    section = text[text.index("## Which import for which text"):]
    section = section[:section.index("\n## ", 4)]
    assert "`from micrograd.lecture import Value, MLP`" in section
    assert "`from micrograd.nn import MLP`" in section
    assert "lecture's notebooks" in section and "micrograd 0.1.0's repository" in section


def test_the_lecture_notebook_trains_the_lectures_classes():
    import json

    nb = json.loads((ROOT / "examples" / "01_lecture.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    assert "from micrograd.lecture import MLP" in code
    assert "from micrograd.nn import MLP" not in code


def test_backward_twice_is_as_the_docs_say_against_torch():
    """compatibility.md and scalar.md: ours accumulates (12 then 24); torch 2.13 does so with
    retain_graph=True and raises without it."""
    torch = pytest.importorskip("torch")
    from micrograd.engine import Value

    x = Value(3.0)
    z = (x * x) * 2
    z.backward()
    first = x.grad
    z.backward()
    assert (first, x.grad) == (12.0, 24.0)
    tx = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
    tz = (tx * tx) * 2
    tz.backward(retain_graph=True)
    tz.backward()
    assert tx.grad.item() == 24.0
    tx.grad = None
    tz = (tx * tx) * 2
    tz.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        tz.backward()
    for page in ("compatibility.md", "scalar.md"):
        text = (DOCS / page).read_text(encoding="utf-8")
        assert "without `retain_graph=True`" in text or "without it PyTorch 2.13 raises" in text


def test_torch_page_ported_names_are_the_facades_objects():
    """torch.md: the hand-ported imports give the same objects as micrograd.torch."""
    pytest.importorskip("numpy")
    import micrograd
    import micrograd.torch as mtorch
    from micrograd.tensors import data, nn

    assert micrograd.tensor is mtorch.tensor and micrograd.Tensor is mtorch.Tensor
    assert nn.Linear is mtorch.nn.Linear and data.DataLoader is mtorch.utils.data.DataLoader
    assert micrograd.optim.SGD is mtorch.optim.SGD and micrograd.no_grad is mtorch.no_grad


def test_torch_page_random_numbers_are_torchs_when_ported():
    torch = pytest.importorskip("torch")
    import micrograd

    micrograd.manual_seed(1)
    torch.manual_seed(1)
    assert micrograd.randn(3).tolist() == torch.randn(3).tolist()


def test_one_pytorch_page():
    assert not (DOCS / "porting.md").exists()
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "porting.md" not in nav
    for page in [README, *DOCS.rglob("*.md")]:
        assert "porting.md" not in page.read_text(encoding="utf-8"), page
