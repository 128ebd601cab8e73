"""Running unmodified scripts: `micrograd run`, `python -m micrograd.torch`, the finder,
%load_ext, and the errors for torch names micrograd lacks."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import SRC, require_module

import micrograd.torch as mt


def run(args, cwd, input_script=None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(SRC)
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env,
                          cwd=cwd, timeout=300)


SCRIPT = """
import sys
import torch
import torch.nn as nn
from torch.nn import functional as F
from torch.utils.data import DataLoader, TensorDataset
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR
print(torch.__name__, nn.__name__, F.__name__, DataLoader.__module__, optim.SGD.__module__)
print("args", sys.argv[1:])
print(issubclass(nn.Linear, nn.Module), torch.cuda.is_available())
"""


@pytest.mark.parametrize("command", [["-m", "micrograd.cli", "run"], ["-m", "micrograd.torch"]],
                         ids=["micrograd-run", "python-m"])
def test_a_script_importing_torch_gets_micrograd_torch(command, tmp_path):
    (tmp_path / "script.py").write_text(SCRIPT)
    proc = run([*command, "script.py", "--lr", "0.1", "x"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == ("micrograd.torch micrograd.torch.nn micrograd.torch.nn.functional "
                        "micrograd.tensors.data micrograd.optim.algorithms")
    assert lines[1] == "args ['--lr', '0.1', 'x']" and lines[2] == "True False"


def test_a_missing_torch_name_or_module_is_named_with_the_supported_names_page(tmp_path):
    (tmp_path / "attr.py").write_text("import torch\nlayer = torch.nn.Conv2d(1, 1, 3)\n")
    (tmp_path / "module.py").write_text("import torch.distributions\n")
    proc = run(["-m", "micrograd.torch", "attr.py"], tmp_path)
    assert proc.returncode == 1
    assert ("UnsupportedTorchName: torch.nn.Conv2d is not supported by micrograd.torch (yet)"
            in proc.stderr and "docs/torch.md" in proc.stderr)
    proc = run(["-m", "micrograd.torch", "module.py"], tmp_path)
    assert ("UnsupportedTorchModule: torch.distributions is not supported by micrograd.torch"
            in proc.stderr)
    assert "docs/torch.md" in proc.stderr


def test_a_script_error_ends_the_run_as_under_python_and_a_bad_path_is_exit_2(tmp_path):
    (tmp_path / "boom.py").write_text("raise SystemExit(5)\n")
    assert run(["-m", "micrograd.cli", "run", "boom.py"], tmp_path).returncode == 5
    proc = run(["-m", "micrograd.cli", "run", "nowhere.py"], tmp_path)
    assert proc.returncode == 2 and "no such script: 'nowhere.py'" in proc.stderr


def test_importing_micrograd_torch_does_not_alias_torch_and_the_extension_does(tmp_path):
    code = ("import sys, micrograd.torch as mt\n"
            "assert 'torch' not in sys.modules\n"
            "mt.load_ipython_extension(None)\n"
            "import torch\n"
            "assert torch is mt, torch\n"
            "mt.unload_ipython_extension(None)\n"
            "assert 'torch' not in sys.modules\n"
            "print('ok')\n")
    proc = run(["-c", code], tmp_path)
    assert proc.returncode == 0 and proc.stdout == "ok\n", proc.stderr


def test_the_extension_refuses_when_real_torch_is_already_imported(tmp_path):
    require_module("torch")  # the subprocess imports the real one
    code = ("import torch, micrograd.torch as mt\n"
            "try:\n    mt.load_ipython_extension(None)\n"
            "except RuntimeError as e:\n    print(e)\n")
    proc = run(["-c", code], tmp_path)
    assert "the real torch is already imported" in proc.stdout, proc.stderr


def test_supported_names_are_generated_from_the_facade():
    names = mt.supported_names()
    assert {"Linear", "BatchNorm1d", "Module", "Parameter"} <= set(names["torch.nn"])
    assert {"SGD", "Adam", "RMSprop", "Adagrad"} <= set(names["torch.optim"])
    assert "OneCycleLR" in names["torch.optim.lr_scheduler"]
    assert {"tensor", "save", "load", "no_grad", "float32"} <= set(names["torch"])
    assert "cross_entropy" in names["torch.nn.functional"]
    for module, listed in names.items():  # every listed name resolves
        target = mt if module == "torch" else __import__(f"micrograd.{module}",
                                                         fromlist=["_"])
        for name in listed:
            assert getattr(target, name) is not None
    assert not hasattr(mt, "compile") and not hasattr(mt.nn, "Conv2d")


def test_list_names_prints_the_markdown_the_docs_page_embeds(tmp_path):
    proc = run(["-m", "micrograd.torch", "--list-names"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "### `torch.nn`" in proc.stdout and "`BatchNorm1d`" in proc.stdout
    page = (SRC.parent / "docs" / "torch.md").read_text()
    assert "<!-- supported-names:begin" in page and "<!-- supported-names:end -->" in page
