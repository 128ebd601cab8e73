"""The demos: the moons notebook's published numbers, XOR below 0.01, PyTorch twins, the CLI."""

from __future__ import annotations

import random
import subprocess
import sys
import types
from pathlib import Path

import pytest
from conftest import require_demo_extra, require_module

from micrograd import demos
from micrograd.cli import main
from micrograd.nn import MLP

# the demo extra is what every demo runs with: without it, the module skips (the messages
# for a missing package are tested by blocking imports)
require_demo_extra()

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Printed by karpathy/micrograd demo.ipynb, cell "optimization" (commit 9fd9cc02): the loss
# and accuracy (%) of steps 0..99.
NOTEBOOK_LOSSES = [
    0.8958441028683222, 1.7235905336972022, 0.7429006313851131, 0.7705641260584198,
    0.3692793385976538, 0.313545481918522, 0.2814234349772435, 0.26888733313983904,
    0.2567147286057417, 0.2704862551637922, 0.24507023853658053, 0.2509905529791503,
    0.21560951851922952, 0.23090378446402726, 0.20152151227899445, 0.22574506279282217,
    0.19447987596204114, 0.21089496199246363, 0.159830773563036, 0.1845374874688392,
    0.18977522856087634, 0.19072704042579647, 0.11733695088756485, 0.12173524408232454,
    0.1261571261277045, 0.16049097780801674, 0.18747197705245805, 0.16741837891059408,
    0.09586583491455399, 0.0877878370742091, 0.11731297569011848, 0.09340146460619836,
    0.12454454903103446, 0.07984002652777272, 0.07727519232921673, 0.07661250143094483,
    0.10610492379198365, 0.09062808429265976, 0.10671887043036932, 0.05225659921975849,
    0.06016009895234464, 0.08596724533333942, 0.051121079431796, 0.052401424016428284,
    0.045306841790015734, 0.07211073370655095, 0.03334238651310234, 0.03143222795751122,
    0.03658536747111507, 0.04829139382390309, 0.09875114765619622, 0.05449063965875453,
    0.03392679435708309, 0.05261517263568441, 0.03250295251424923, 0.02888327387207822,
    0.04139151104027239, 0.018987407426128502, 0.0252383352388374, 0.02079656521341895,
    0.0325971115781023, 0.017863351693480307, 0.023008717832211683, 0.022079325463581503,
    0.029432917853529684, 0.01625151464409193, 0.02846853448326446, 0.013994365546208731,
    0.015552344843651405, 0.0338911994616017, 0.014229870065926908, 0.013255281583285504,
    0.012300277590022063, 0.012676052498355976, 0.020593811955954763, 0.011845398205364453,
    0.016012697472883086, 0.025458360239222128, 0.014382930289661911, 0.011698962425817985,
    0.012318500800515763, 0.014121117031464233, 0.011664591962446225, 0.011589314549188726,
    0.010990299347735226, 0.01098922672069161, 0.010988193757655071, 0.010987200447388707,
    0.010986246779084925, 0.010985332742365272, 0.010984458327280174, 0.010983623524308862,
    0.010982828324359073, 0.010982072718767003, 0.010981356699297042, 0.010980680258141723,
    0.010980043387921506, 0.010979446081684675, 0.010978888332907229, 0.010978370135492717,
]
NOTEBOOK_ACCURACIES = [
    50.0, 81.0, 77.0, 82.0, 84.0, 86.0, 89.0, 91.0, 91.0, 91.0,
    91.0, 92.0, 91.0, 93.0, 92.0, 93.0, 92.0, 93.0, 94.0, 93.0,
    91.0, 93.0, 97.0, 95.0, 95.0, 95.0, 92.0, 95.0, 97.0, 96.0,
    95.0, 97.0, 95.0, 97.0, 97.0, 98.0, 96.0, 99.0, 95.0, 98.0,
    100.0, 96.0, 99.0, 97.0, 100.0, 97.0, 99.0, 100.0, 99.0, 99.0,
    96.0, 99.0, 100.0, 97.0, 99.0, 100.0, 98.0, 100.0, 100.0, 100.0,
    99.0, 100.0, 100.0, 100.0, 99.0, 100.0, 99.0, 100.0, 100.0, 99.0,
    100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
    100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
    100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
]


@pytest.mark.slow
def test_moons_demo_reproduces_the_notebooks_published_numbers_through_the_cli(
    tmp_path, capsys, monkeypatch
):
    runs = []

    def recording_train_moons(**kwargs):
        runs.append(demos.train_moons(**kwargs))
        return runs[-1]

    monkeypatch.setitem(demos.DEMOS, "moons",
                        demos.DEMOS["moons"]._replace(train=recording_train_moons))
    assert main(["demo", "moons", "--out", str(tmp_path)]) == 0  # what `make demo` runs
    [run] = runs
    assert len(run.model.parameters()) == 337  # "number of parameters 337"
    # every step: loss to 1e-12 (the largest difference measured is 6e-15, from summation
    # order), accuracy exactly; steps 0 and 99 also print the very same digits.
    assert run.losses == pytest.approx(NOTEBOOK_LOSSES, rel=1e-12)
    assert [a * 100 for a in run.accuracies] == NOTEBOOK_ACCURACIES
    assert (repr(run.losses[0]), repr(run.losses[99])) == ("0.8958441028683222",
                                                           "0.010978370135492717")
    stdout = capsys.readouterr().out
    assert "step  0  loss 0.895844  accuracy  50.0%" in stdout
    assert "step 99  loss 0.010978  accuracy 100.0%" in stdout
    assert "final  loss 0.010978  accuracy 100.0%" in stdout
    for png in ("moons_decision_boundary.png", "moons_loss.png"):
        assert (tmp_path / png).read_bytes()[:8] == PNG_SIGNATURE


# --- PyTorch twins of the tanh demos --------------------------------------------------------


def torch_twin_losses(model: MLP, X, Y, steps: int, lr: float) -> list[float]:
    require_module("torch")
    """The same network and plain SGD in PyTorch float64, from the model's initial weights."""
    import torch

    layers = [
        (
            torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64,
                         requires_grad=True),
            torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64,
                         requires_grad=True),
        )
        for layer in model.layers
    ]
    params = [p for layer in layers for p in layer]
    x = torch.tensor(X, dtype=torch.float64)
    y = torch.tensor(Y, dtype=torch.float64)
    opt = torch.optim.SGD(params, lr=lr)
    out = []
    for _ in range(steps):
        h = x
        for W, b in layers:
            h = torch.tanh(h @ W.T + b)
        loss = ((h[:, 0] - y) ** 2).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        out.append(loss.item())
    return out


@pytest.mark.slow  # importing torch and 300 PyTorch steps take a few seconds
def test_xor_demo_gets_below_0_01_within_300_steps_as_pytorch_does():
    run = demos.train_xor()  # the textbook's setup: random.Random(42), lr 0.1, 300 steps
    assert len(run.losses) == 300
    assert run.losses[-1] < 0.01
    assert run.accuracies[-1] == 1.0
    start = MLP(2, [4, 1], activation="tanh", output_activation="tanh", rng=random.Random(42))
    X, Y = demos.datasets.xor()
    reference = torch_twin_losses(start, X, Y, steps=300, lr=0.1)
    assert run.losses == pytest.approx(reference, rel=1e-9)


def test_tiny_demo_is_the_lectures_training_and_matches_pytorch():
    run = demos.train_tiny()
    start = MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh", rng=random.Random(42))
    xs, ys = demos.datasets.tiny()
    assert run.losses == pytest.approx(torch_twin_losses(start, xs, ys, steps=20, lr=0.1), rel=1e-9)
    assert run.losses[-1] < run.losses[0] / 10 and run.accuracies[-1] == 1.0


def test_step_callback_sees_every_step():
    seen = []
    run = demos.train_xor(steps=5, on_step=lambda k, loss, acc: seen.append((k, loss, acc)))
    assert seen == list(zip(range(5), run.losses, run.accuracies, strict=True))


# --- through the command line ------------------------------------------------------------------


def test_cli_moons_prints_readable_lines_and_writes_two_pngs(tmp_path, capsys):
    out = tmp_path / "plots"
    assert main(["demo", "moons", "--out", str(out), "--steps", "3"]) == 0
    stdout = capsys.readouterr().out
    assert "step 0  loss 0.895844  accuracy  50.0%" in stdout  # the notebook's step 0
    assert "step 2  loss " in stdout and "final  loss " in stdout
    for png in ("moons_decision_boundary.png", "moons_loss.png"):
        path = out / png
        assert f"wrote {path}" in stdout
        assert path.read_bytes()[:8] == PNG_SIGNATURE


def test_cli_xor_reports_final_loss_below_0_01(capsys):
    assert main(["demo", "xor"]) == 0
    lines = capsys.readouterr().out.splitlines()
    final = next(line for line in lines if line.startswith("final"))
    assert float(final.split()[2]) < 0.01 and final.endswith("accuracy 100.0%")
    assert any(line.startswith("step 299  loss ") for line in lines)


def test_cli_custom_seed_and_steps_are_used(capsys):
    assert main(["demo", "tiny", "--steps", "4", "--seed", "7"]) == 0
    stdout = capsys.readouterr().out
    assert "4 steps, seed 7" in stdout and "step 3  loss" in stdout and "step 4" not in stdout


def test_cli_bad_steps_is_an_error_with_exit_code_2(capsys):
    assert main(["demo", "xor", "--steps", "0"]) == 2
    assert "steps must be a positive integer, got 0" in capsys.readouterr().err


def test_missing_optional_package_gives_one_line_saying_what_to_install(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `import tqdm` now fails
    assert main(["demo", "xor"]) == 3
    err = capsys.readouterr().err.strip()
    assert err == "micrograd demo xor needs tqdm: pip install 'micrograd[demo]'"


def test_moons_without_scikit_learn_and_matplotlib_names_both(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert demos.run_demo("moons") == 3
    err = capsys.readouterr().err
    assert "needs scikit-learn, matplotlib: pip install 'micrograd[demo]'" in err


# --- the Tensor engine's demos are delegated ----------------------------------------------------


def test_tensor_engine_and_digits_are_delegated_to_the_tensor_demos(monkeypatch):
    calls = []
    fake = types.ModuleType("micrograd.demos.tensor")
    fake.run_demo = lambda name, **kwargs: calls.append((name, kwargs)) or 0
    monkeypatch.setitem(sys.modules, "micrograd.demos.tensor", fake)
    assert main(["demo", "moons", "--engine", "tensor", "--steps", "5", "--out", "x"]) == 0
    assert main(["demo", "digits", "--seed", "3"]) == 0
    assert calls == [
        ("moons", {"out": "x", "steps": 5, "seed": None}),
        ("digits", {"out": "out", "steps": None, "seed": 3}),
    ]


def test_missing_tensor_demos_give_a_message_and_nonzero_exit(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "micrograd.tensors", None)
    monkeypatch.delitem(sys.modules, "micrograd.demos.tensor", raising=False)
    assert main(["demo", "digits"]) == 1
    assert "Tensor engine's demos" in capsys.readouterr().err


def test_digits_on_the_scalar_engine_is_refused(capsys):
    assert main(["demo", "digits", "--engine", "scalar"]) == 2
    assert "Tensor engine only" in capsys.readouterr().err


# --- what `make demo` relies on ------------------------------------------------------------------


def test_demos_need_neither_torch_nor_numpy_for_xor(tmp_path):
    # `make demo` installs only the demo extra (no torch); tiny/xor need only tqdm.
    code = BLOCK_IMPORTS.format(blocked=("torch", "numpy")) + (
        "from micrograd.cli import main\n"
        "status = main(['demo', 'xor', '--steps', '3'])\n"
        "assert 'torch' not in sys.modules and 'numpy' not in sys.modules\n"
        "sys.exit(status)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=_env_with_src(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert "final  loss" in result.stdout


@pytest.mark.slow  # a fresh interpreter imports scikit-learn and matplotlib
def test_moons_demo_runs_without_torch(tmp_path):
    code = BLOCK_IMPORTS.format(blocked=("torch",)) + (
        "from micrograd.cli import main\n"
        f"status = main(['demo', 'moons', '--steps', '2', '--out', {str(tmp_path)!r}])\n"
        "assert 'torch' not in sys.modules\n"
        "sys.exit(status)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=_env_with_src(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "moons_loss.png").read_bytes()[:8] == PNG_SIGNATURE


# Makes `import torch` (etc.) fail in a subprocess, as on a machine without the package.
BLOCK_IMPORTS = """
import sys
class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in {blocked!r}:
            raise ModuleNotFoundError('No module named ' + repr(name), name=name)
sys.meta_path.insert(0, Blocker())
"""


def _env_with_src() -> dict:
    import os

    import micrograd

    src = os.path.dirname(os.path.dirname(micrograd.__file__))
    return {**os.environ, "PYTHONPATH": src}


# --- the plot helpers ---------------------------------------------------------------------------


def test_plot_helpers_write_pngs_and_reject_bad_shapes(tmp_path):
    import numpy as np

    from micrograd.viz import plots

    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    y = np.array([-1, 1, 1])
    path = plots.save_decision_boundary(lambda p: p[:, 0] + p[:, 1] - 0.5, X, y,
                                        tmp_path / "sub" / "b.png", step=0.1)
    assert Path(path).read_bytes()[:8] == PNG_SIGNATURE  # the folder was created
    curve = plots.save_loss_curve([1.0, 0.5, 0.0], tmp_path / "c.png", accuracies=[0.5, 1.0, 1.0])
    assert Path(curve).read_bytes()[:8] == PNG_SIGNATURE  # a zero loss: linear axis, no crash
    with pytest.raises(ValueError, match=r"X of shape \(n, 2\); got \(3, 1\)"):
        plots.save_decision_boundary(lambda p: p[:, 0], X[:, :1], y, tmp_path / "x.png")
    with pytest.raises(ValueError, match="3 losses but 2 accuracies"):
        plots.save_loss_curve([1.0, 0.5, 0.2], tmp_path / "y.png", accuracies=[0.5, 1.0])
