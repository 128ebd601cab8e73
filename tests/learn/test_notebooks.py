"""The example notebooks: committed without outputs, and run top to bottom in a fresh kernel.

Each is run from a copy in a temporary folder (the check notebook writes my_engine.py next
to itself), and what it prints is compared with independent numbers: the lecture's worked
gradients, micrograd's published demo output, central differences (via the checker)."""

from __future__ import annotations

import math
import pathlib
import random
import re
import shutil

import pytest
from conftest import require_module
from learn_helpers import execute_notebook, separable_digits, write_mnist

pytestmark = pytest.mark.notebook  # each example notebook runs top to bottom in a Jupyter kernel

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.ipynb"))
nbformat = require_module("nbformat")


def test_there_are_the_example_notebooks():
    assert [p.name for p in EXAMPLES] == ["01_lecture.ipynb", "02_moons.ipynb",
                                          "03_tensors.ipynb", "04_check_your_engine.ipynb",
                                          "05_makemore.ipynb"]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [], f"{path.name}: a cell has outputs; clear them"
            assert cell.execution_count is None, f"{path.name}: a cell has an execution count"


def run(name: str, tmp_path, env: dict | None = None, monkeypatch=None) -> list[str]:
    """Execute examples/name in tmp_path; every cell's text output (stream and plain text)."""
    require_module("nbclient")
    require_module("ipykernel")
    shutil.copy(ROOT / "examples" / name, tmp_path / name)
    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    nb = execute_notebook(nbformat.read(tmp_path / name, as_version=4), tmp_path)
    texts = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        parts = []
        for output in cell.outputs:
            if output.output_type == "stream":
                parts.append(output.text)
            elif output.output_type in ("execute_result", "display_data"):
                parts.append(output.data.get("text/plain", ""))
                parts.append(output.data.get("text/html", ""))
        texts.append("".join(parts))
    return texts


def numbers_after(label: str, text: str) -> float:
    return float(re.search(re.escape(label) + r"\s*=?\s*(-?[\d.]+)", text).group(1))


@pytest.mark.slow
def test_lecture_notebook(tmp_path):
    require_module("matplotlib")
    cells = run("01_lecture.ipynb", tmp_path)
    assert abs(float(cells[1]) - 14.0) < 1e-3  # f'(3) = 14
    out = "\n".join(cells)
    grads = {name: numbers_after(f"{name}.grad =", out) for name in "abcf"}
    assert grads == {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}  # the lecture's by-hand values
    neuron = {name: numbers_after(f"{name}.grad =", out) for name in ("x1", "w1", "x2", "w2")}
    assert neuron == {"x1": -1.5, "w1": 1.0, "x2": 0.5, "w2": 0.0}  # the lecture's
    assert out.count('class="micrograd-step-through"') == 2  # both pages shown
    losses = [float(m) for m in re.findall(r"^\d+ (\d+\.\d+)$", out, flags=re.MULTILINE)]
    assert len(losses) == 20 and losses[-1] < 0.1 * losses[0]


@pytest.mark.slow
def test_moons_notebook_prints_micrograds_published_numbers(tmp_path):
    require_module("matplotlib")
    out = "\n".join(run("02_moons.ipynb", tmp_path))
    # micrograd's demo.ipynb, as published: its last step
    assert "step 99 loss 0.010978370135492717, accuracy 100.0%" in out
    assert "number of parameters 337" in out


@pytest.mark.slow
def test_tensors_notebook_without_mnist_skips_with_a_message(tmp_path, monkeypatch):
    require_module("sklearn")
    out = run("03_tensors.ipynb", tmp_path, {"MICROGRAD_MNIST_DIR": str(tmp_path / "none")},
              monkeypatch)
    joined = "\n".join(out)
    assert "Value:  [2.0, 4.0, 6.0, 8.0]" in joined and "Tensor: [2.0, 4.0, 6.0, 8.0]" in joined
    assert numbers_after("digits test accuracy:", joined) >= 90.0
    assert "skipping the MNIST training" in out[-1]


@pytest.mark.slow
def test_tensors_notebook_trains_on_mnist_files_when_present(tmp_path, monkeypatch):
    require_module("sklearn")
    train_x, train_y = separable_digits(30, seed=1)
    test_x, test_y = separable_digits(5, seed=2)
    write_mnist(tmp_path / "mnist", train_x, train_y, test_x, test_y, compress=False)
    out = run("03_tensors.ipynb", tmp_path, {"MICROGRAD_MNIST_DIR": str(tmp_path / "mnist")},
              monkeypatch)
    assert "300 training images, 50 test images" in out[-1]
    assert "MNIST test accuracy" in out[-1] and "100.00%" in out[-1]


@pytest.mark.slow
def test_check_notebook_finds_the_bugs_then_passes(tmp_path):
    out = run("04_check_your_engine.ipynb", tmp_path)
    assert out[1].strip() == "3.0"  # b = a*3 + 1: right even with the bug
    assert out[2].startswith("1.0 ")  # a + a: the bug (should be 2.0)
    assert "FAIL grad-overwritten" in out[3] and "exit status 1" in out[3]
    # the bug fixed: only the lecture's design limits are left (issue 12: LIMIT, exit 0)
    limits = re.findall(r"^LIMIT (\S+)", out[4], flags=re.MULTILINE)
    assert limits == ["tanh-overflow", "recursion-limit", "stale-intermediate-grads"], out[4]
    assert "FAIL" not in out[4] and "exit status 0" in out[4], out[4]
    assert "LIMIT" not in out[5] and "FAIL" not in out[5] and "exit status 0" in out[5], out[5]
    assert (tmp_path / "my_engine.py").exists()


@pytest.mark.slow
def test_makemore_notebook_learns_and_samples_from_its_vocabulary(tmp_path, monkeypatch):
    syllables = ["ka", "lo", "mi", "ra", "na", "el", "is", "an", "jo", "ve", "qu", "zy"]
    rng = random.Random(5)
    words = ["".join(rng.choice(syllables) for _ in range(rng.randint(1, 3)))
             for _ in range(600)]
    names_file = tmp_path / "names.txt"
    names_file.write_text("\n".join(words) + "\n", encoding="utf-8")
    out = "\n".join(run("05_makemore.ipynb", tmp_path, {"MICROGRAD_NAMES": str(names_file)},
                        monkeypatch))
    letters = sorted(set("".join(words)))
    vocab = len(letters) + 1
    assert f"{vocab} tokens: .{''.join(letters)}" in out
    # 10-d embeddings of 3 characters, 200 hidden units, one logit per token
    assert numbers_after("parameters:", out) == vocab * 10 + 30 * 200 + 200 + 200 * vocab + vocab
    by_hand, fused = numbers_after("by hand", out), numbers_after("cross_entropy", out)
    assert by_hand == pytest.approx(fused, rel=1e-5)
    assert numbers_after("uniform baseline", out) == pytest.approx(math.log(vocab), abs=1e-4)
    assert numbers_after("dev loss", out) < 0.8 * math.log(vocab)
    samples = out.split("samples:")[1].split()
    assert len(samples) >= 6 and set("".join(samples)) <= set(letters)
