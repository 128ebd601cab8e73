"""`micrograd check --ninja` (issue 21): makemore part 4's manual gradients, each wrong one
named by the mistake it equals, with its line.

Oracles: PyTorch 2.13's autograd for the checker's own gradient rules (every hypothesis is
measured against them), and the corpus files' `# expect:` headers, written from the mistake
planted in each file (tests/check/ninja/make_corpus.py), not from the checker's output.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from micrograd.check.ninja import check_ninja_file
from micrograd.check.ninja_judge import NinjaResult
from micrograd.check.ninja_rules import GRADIENTS, ORDER, Forward, close, true_gradients
from micrograd.check.ninja_source import is_ninja_file
from micrograd.check.report import Report, render_junit
from micrograd.cli import main

HERE = Path(__file__).parent
CORPUS = HERE / "corpus"
PLANTED = sorted(p.name for p in CORPUS.glob("*.py") if p.name != "correct.py")
EXPECT = re.compile(r"^# expect: (.+) (\S+) (\d+)$", re.M)


def _make_corpus():
    spec = importlib.util.spec_from_file_location("ninja_make_corpus", HERE / "make_corpus.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def checked(path: str) -> Report:
    return check_ninja_file(path)


def gradients(report: Report) -> list[NinjaResult]:
    return [p for p in report.probes if isinstance(p, NinjaResult)]


# ------------------------------------------------------------------------------------------
# The rules against PyTorch
# ------------------------------------------------------------------------------------------

def test_gradient_rules_equal_pytorch_autograd():
    """Every gradient the checker rebuilds equals torch's autograd on the lecture's forward."""
    torch = pytest.importorskip("torch")
    if not hasattr(torch, "manual_seed") or "micrograd" in getattr(torch, "__file__", ""):
        pytest.skip("needs the real PyTorch")
    g = torch.Generator().manual_seed(42)
    n, vocab, n_embd, hidden = 16, 27, 5, 12
    Xb = torch.randint(0, vocab, (n, 3), generator=g)
    Xb[1] = Xb[0]  # repeated rows: the embedding scatter must add them
    Yb = torch.randint(0, vocab, (n,), generator=g)
    C = torch.randn(vocab, n_embd, generator=g, dtype=torch.float64, requires_grad=True)
    W1 = torch.randn(3 * n_embd, hidden, generator=g, dtype=torch.float64, requires_grad=True)
    b1 = torch.randn(hidden, generator=g, dtype=torch.float64, requires_grad=True)
    W2 = torch.randn(hidden, vocab, generator=g, dtype=torch.float64, requires_grad=True)
    b2 = torch.randn(vocab, generator=g, dtype=torch.float64, requires_grad=True)
    bngain = (1 + 0.1 * torch.randn(1, hidden, generator=g, dtype=torch.float64)).requires_grad_()
    bnbias = (0.1 * torch.randn(1, hidden, generator=g, dtype=torch.float64)).requires_grad_()
    t = {"C": C, "Xb": Xb, "Yb": Yb, "W1": W1, "b1": b1, "W2": W2, "b2": b2,
         "bngain": bngain, "bnbias": bnbias}
    t["emb"] = C[Xb]
    t["embcat"] = t["emb"].view(n, -1)
    t["hprebn"] = t["embcat"] @ W1 + b1
    t["bnmeani"] = t["hprebn"].sum(0, keepdim=True) / n
    t["bndiff"] = t["hprebn"] - t["bnmeani"]
    t["bndiff2"] = t["bndiff"] ** 2
    t["bnvar"] = t["bndiff2"].sum(0, keepdim=True) / (n - 1)
    t["bnvar_inv"] = (t["bnvar"] + 1e-5) ** -0.5
    t["bnraw"] = t["bndiff"] * t["bnvar_inv"]
    t["hpreact"] = bngain * t["bnraw"] + bnbias
    t["h"] = torch.tanh(t["hpreact"])
    t["logits"] = t["h"] @ W2 + b2
    t["logit_maxes"] = t["logits"].max(1, keepdim=True).values
    t["norm_logits"] = t["logits"] - t["logit_maxes"]
    t["counts"] = t["norm_logits"].exp()
    t["counts_sum"] = t["counts"].sum(1, keepdim=True)
    t["counts_sum_inv"] = t["counts_sum"] ** -1
    t["probs"] = t["counts"] * t["counts_sum_inv"]
    t["logprobs"] = t["probs"].log()
    t["loss"] = -t["logprobs"][range(n), Yb].mean()
    for name in ORDER:
        if t[name[1:]].requires_grad and not t[name[1:]].is_leaf:
            t[name[1:]].retain_grad()
    t["loss"].backward()
    forward = Forward({k: v.detach().numpy() for k, v in t.items()})
    assert forward.bessel == n - 1
    mine = true_gradients(forward)
    for name in ORDER:
        assert np.allclose(mine[name], t[name[1:]].grad.numpy(), rtol=1e-9, atol=1e-12), name
    # the one-expression rules give the same gradients
    for gradient in GRADIENTS:
        if gradient.fused:
            assert np.allclose(gradient.rule(forward, mine), t[gradient.var].grad.numpy(),
                               rtol=1e-9, atol=1e-12), gradient.name


def test_every_mistake_differs_from_the_right_gradient():
    """A hypothesis that equals the right gradient could never name anything."""
    rng = np.random.default_rng(0)
    n, vocab = 8, 27
    arrays = {"Xb": rng.integers(0, vocab, (n, 3)), "Yb": rng.integers(0, vocab, n),
              "C": rng.normal(size=(vocab, 4)), "W1": rng.normal(size=(12, 6)),
              "b1": rng.normal(size=6), "W2": rng.normal(size=(6, vocab)),
              "b2": rng.normal(size=vocab), "bngain": 1 + rng.normal(size=(1, 6)) / 10,
              "bnbias": rng.normal(size=(1, 6)) / 10}
    a = arrays
    a["emb"] = a["C"][a["Xb"]]
    a["embcat"] = a["emb"].reshape(n, -1)
    a["hprebn"] = a["embcat"] @ a["W1"] + a["b1"]
    a["bnmeani"] = a["hprebn"].mean(0, keepdims=True)
    a["bndiff"] = a["hprebn"] - a["bnmeani"]
    a["bndiff2"] = a["bndiff"] ** 2
    a["bnvar"] = a["bndiff2"].sum(0, keepdims=True) / (n - 1)
    a["bnvar_inv"] = (a["bnvar"] + 1e-5) ** -0.5
    a["bnraw"] = a["bndiff"] * a["bnvar_inv"]
    a["hpreact"] = a["bngain"] * a["bnraw"] + a["bnbias"]
    a["h"] = np.tanh(a["hpreact"])
    a["logits"] = a["h"] @ a["W2"] + a["b2"]
    a["logit_maxes"] = a["logits"].max(1, keepdims=True)
    a["norm_logits"] = a["logits"] - a["logit_maxes"]
    a["counts"] = np.exp(a["norm_logits"])
    a["counts_sum"] = a["counts"].sum(1, keepdims=True)
    a["counts_sum_inv"] = 1 / a["counts_sum"]
    a["probs"] = a["counts"] * a["counts_sum_inv"]
    a["logprobs"] = np.log(a["probs"])
    forward = Forward(a)
    truth = true_gradients(forward)
    wrong = dict(truth, dW2=truth["dW2"] * 2, dW1=truth["dW1"] * 2)
    for gradient in GRADIENTS:
        for mistake in gradient.mistakes:
            value = mistake.value(forward, wrong)
            assert not close(np.asarray(value), truth[gradient.name]), \
                (gradient.name, mistake.diagnosis, mistake.says)


# ------------------------------------------------------------------------------------------
# The corpus
# ------------------------------------------------------------------------------------------

def test_corpus_files_are_what_make_corpus_writes():
    files = _make_corpus().corpus()
    assert sorted(files) == PLANTED
    for name, text in files.items():
        assert (CORPUS / name).read_text() == text, f"{name}: run make_corpus.py again"


def test_correct_solution_passes():
    report = checked(str(CORPUS / "correct.py"))
    results = gradients(report)
    assert report.ok and report.verdict == "pass", [(p.id, p.diagnosis) for p in results
                                                    if p.status != "pass"]
    # 26 step-by-step gradients plus the two one-expression exercises
    assert len(results) == 28
    assert {p.name for p in results} == set(ORDER)
    assert sum(p.fused for p in results) == 2
    assert all(p.cmp.startswith("exact: ") for p in results)  # against autograd's .grad


@pytest.mark.parametrize("name", PLANTED)
def test_each_planted_mistake_is_named_with_its_line(name):
    path = CORPUS / name
    expected = [(g, d, int(line)) for g, d, line in EXPECT.findall(path.read_text())]
    assert expected, f"{name} has no '# expect:' line"
    report = checked(str(path))
    by_id = {p.id: p for p in gradients(report)}
    for gradient, diagnosis, line in expected:
        result = by_id[gradient]
        assert (result.status, result.diagnosis, result.line, result.consequence_of) == \
            ("fail", diagnosis, line, None), result
        assert result.detail and result.fix
    planted = {g.split(" ")[0] for g, _, _ in expected}
    named = {g for g, _, _ in expected}
    for result in gradients(report):
        if result.status == "pass" or result.id in named:
            continue
        # everything else that is wrong is wrong because of a planted one
        assert result.consequence_of in planted, result
        assert result.diagnosis != "no-known-mistake"
    assert report.verdict == "fail"


def test_consequences_point_at_the_first_mistake():
    report = checked(str(CORPUS / "combo_mean_loss_and_tanh.py"))
    by_id = {p.id: p for p in gradients(report)}
    assert by_id["dprobs"].consequence_of == "dlogprobs"
    assert by_id["dprobs"].diagnosis == "mean-loss-missing-1/n"  # named after the first
    assert by_id["dh"].consequence_of == "dlogprobs"
    # dhpreact has its own mistake on top of a wrong dh: named, with the note
    assert by_id["dhpreact"].diagnosis == "tanh-grad-one-minus-h"
    assert "fix dlogprobs first" in by_id["dhpreact"].detail
    assert by_id["dbngain"].consequence_of == "dhpreact"


def test_keepdim_lost_shape_flows_downstream():
    report = checked(str(CORPUS / "keepdim_lost.py"))
    by_id = {p.id: p for p in gradients(report)}
    assert by_id["dcounts_sum_inv"].got["shape"] == [32]
    assert by_id["dcounts_sum"].got["shape"] == [32, 32]  # (32, 1) * (32,) broadcast
    assert by_id["dcounts_sum"].consequence_of == "dcounts_sum_inv"
    # the += of dcounts raised on that shape: said, and traced to the first mistake
    assert by_id["dcounts"].status == "error"
    assert by_id["dcounts"].own_diagnosis == "gradient-line-raised"
    assert by_id["dcounts"].consequence_of == "dcounts_sum_inv"


# ------------------------------------------------------------------------------------------
# Without cmp, in a notebook, from the command line, in Jupyter
# ------------------------------------------------------------------------------------------

def _without_cmp(source: str) -> str:
    return "\n".join("" if line.startswith("cmp(") else line for line in source.splitlines())


def test_without_cmp_gradients_are_paired_by_name(tmp_path):
    path = tmp_path / "no_cmp.py"
    path.write_text(_without_cmp((CORPUS / "overwrite_bndiff.py").read_text()))
    report = check_ninja_file(path)
    by_id = {p.id: p for p in gradients(report)}
    assert by_id["dbndiff"].diagnosis == "branch-overwritten"
    assert by_id["dbndiff"].line == 110
    assert by_id["dbnmeani"].consequence_of == "dbndiff"
    assert by_id["dlogprobs"].status == "pass"


def notebook(source: str, extra_first: list[str] = (), extra_last: list[str] = ()) -> dict:
    """A .ipynb with one cell per paragraph of `source` (blank-line separated)."""
    paragraphs = [p.strip("\n") for p in re.split(r"\n\s*\n", source) if p.strip()]
    cells = [*extra_first, *paragraphs, *extra_last]
    return {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {},
                       "outputs": [], "source": cell} for cell in cells],
            "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3",
                                        "language": "python"}},
            "nbformat": 4, "nbformat_minor": 5}


def test_a_notebook_is_checked_with_cells_and_lines(tmp_path):
    source = (CORPUS / "tanh_one_minus_h.py").read_text()
    path = tmp_path / "backprop.ipynb"
    path.write_text(json.dumps(notebook(source)))
    report = check_ninja_file(path)
    result = next(p for p in gradients(report) if p.id == "dhpreact")
    assert result.diagnosis == "tanh-grad-one-minus-h"
    assert re.fullmatch(r"cell \d+, line \d+", str(result.line))
    assert result.code == "dhpreact = dh * (1.0 - h)"


def test_cli_ninja_json_and_junit(tmp_path, capsys):
    junit = tmp_path / "ninja.xml"
    code = main(["check", "--ninja", str(CORPUS / "unsummed_broadcast.py"), "--json",
                 "--junit", str(junit)])
    assert code == 1
    data = json.loads(capsys.readouterr().out)
    assert data["schema"] == "micrograd-check/1" and data["verdict"] == "fail"
    wrong = [p for p in data["probes"] if p["status"] == "fail"]
    assert [(p["gradient"], p["diagnosis"]["id"]) for p in wrong] == \
        [("dbnbias", "unsummed-broadcast")]
    assert wrong[0]["diagnosis"]["title"] == "missing sum over a broadcast dimension"
    assert "dbnbias = dhpreact.sum(0, keepdim=True)" in wrong[0]["fix"]
    xml = junit.read_text()
    assert 'name="dbnbias"' in xml and 'type="unsummed-broadcast"' in xml


def test_cli_finds_a_ninja_file_by_itself(capsys):
    assert is_ninja_file(CORPUS / "correct.py")
    assert not is_ninja_file(Path(__file__).parents[1] / "corpus" / "correct_engine.py")
    assert main(["check", str(CORPUS / "correct.py")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("micrograd check --ninja")
    assert "28 of 28 gradients right" in out


def test_render_junit_is_the_engine_checkers(tmp_path):
    report = checked(str(CORPUS / "pow_sign.py"))
    xml = render_junit(report)
    assert xml.count("<testcase") == len(report.probes)
    assert 'type="power-rule-sign"' in xml


@pytest.mark.skipif(shutil.which("jupyter") is None and importlib.util.find_spec("nbclient")
                    is None, reason="needs nbclient")
def test_check_ninja_in_jupyter_shows_an_html_table(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    source = (CORPUS / "combo_bessel_and_scatter.py").read_text()
    nb = nbformat.from_dict(notebook(source, ["%load_ext micrograd.torch"], ["check_ninja()"]))
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    last = nb.cells[-1].outputs[-1]
    html = last["data"]["text/html"]
    assert "<table>" in html and "bessel-mismatch" in html
    assert "embedding-scatter-overwrite" in html
    text = last["data"]["text/plain"]
    assert "FAIL    dbndiff2" in text and "In [" in text
    assert sys.executable  # the kernel is this interpreter's (PYTHONPATH carries our src)


def _planted(tmp_path: Path, old: str, new: str) -> Path:
    source = (CORPUS / "correct.py").read_text()
    assert source.count(old) == 1
    path = tmp_path / "learner.py"
    path.write_text(source.replace(old, new))
    return path


def test_a_shape_that_cmp_accepts_by_broadcasting_is_a_warning(tmp_path):
    # (1, 27) for b2's (27,): cmp says True (it broadcasts), b2 -= lr * db2 would not
    path = _planted(tmp_path, "db2 = dlogits.sum(0)", "db2 = dlogits.sum(0, keepdim=True)")
    report = check_ninja_file(path)
    result = next(p for p in gradients(report) if p.id == "db2")
    assert (result.status, result.diagnosis) == ("warn", "keepdim-extra")
    assert result.got["shape"] == [1, 27] and result.expected["shape"] == [27]
    assert report.ok


def test_an_unknown_mistake_says_how_far_and_where(tmp_path):
    path = _planted(tmp_path, "dh = dlogits @ W2.T", "dh = dlogits @ W2.T * 2")
    report = check_ninja_file(path)
    result = next(p for p in gradients(report) if p.id == "dh")
    assert result.diagnosis == "no-known-mistake"
    line = path.read_text().splitlines().index("dh = dlogits @ W2.T * 2") + 1
    assert "largest difference" in result.detail and result.line == line
    assert next(p for p in gradients(report) if p.id == "dW2").status == "pass"


def test_a_cell_that_raises_midway_is_traced_to_the_first_mistake(tmp_path):
    """The lecture's exercise-1 cell holds the backward pass and the cmp calls: when a line
    raises, no cmp runs; the gradients before it are paired by name, the rest follow."""
    source = (CORPUS / "keepdim_lost.py").read_text()
    first, second = source.index("# exercise 1"), source.index("# exercise 2")
    nb = notebook(source[:first])
    nb["cells"].append(dict(nb["cells"][0], source=source[first:second]))  # one cell
    nb["cells"] += notebook(source[second:])["cells"]
    path = tmp_path / "raises.ipynb"
    path.write_text(json.dumps(nb))
    report = check_ninja_file(path)
    by_id = {p.id: p for p in gradients(report)}
    assert by_id["dcounts_sum_inv"].diagnosis == "keepdim-lost"
    assert "paired by name" in by_id["dcounts_sum_inv"].cmp
    for name in ("dcounts", "dnorm_logits", "dh", "dC"):
        assert by_id[name].status == "error"
        assert by_id[name].consequence_of == "dcounts_sum_inv", name
    assert any(p.diagnosis == "notebook-cell-raised" for p in report.probes)


def test_cli_refuses_engine_options_for_a_ninja_file(capsys):
    assert main(["check", "--ninja", str(CORPUS / "correct.py"), "--strict"]) == 2
    assert "--strict: for an engine file" in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("nbclient") is None, reason="needs nbclient")
def test_check_ninja_in_jupyter_traces_a_cell_that_raised():
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    source = (CORPUS / "keepdim_lost.py").read_text()
    first, second = source.index("# exercise 1"), source.index("# exercise 2")
    cells = ["%load_ext micrograd.torch", source[:first], source[first:second],
             "print(check_ninja())"]
    nb = nbformat.from_dict(notebook("", cells))
    nbclient.NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    text = nb.cells[-1].outputs[-1]["text"]
    assert re.search(r"ERROR +dcounts +.*follows from dcounts_sum_inv", text)
    assert re.search(r"ERROR +dC +follows from dcounts_sum_inv", text)
    assert "(In [3], line 5)" in text  # dcounts_sum_inv's line in the third cell


def test_a_file_without_part_4_gradients_is_an_error_not_a_pass():
    report = check_ninja_file(Path(__file__).parents[1] / "corpus" / "correct.py")
    assert report.verdict == "fail"
    assert [p.diagnosis for p in report.probes if p.status == "error"] == ["no-gradients-found"]
