"""The README's porting promise, literally: a PyTorch training script, run once with torch and
once with only its import lines changed, gives the same loss at every step."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT, SRC, require_module

import micrograd
import micrograd.tensors as mt

torch = require_module("torch")  # twins of torch: the module skips without it

# A PyTorch script as a learner writes it: data in a DataLoader, a Sequential of Linear and
# ReLU, cross-entropy, an optimizer from torch.optim, a device chosen the usual way, the
# default dtype set so Python floats match. X, y, WEIGHTS and OPTIMIZER come from the test.
SCRIPT = '''
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.set_default_dtype(torch.float64)
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"

model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(),
                      nn.Linear(16, 3)).to(device)
model.load_state_dict({name: torch.tensor(w) for name, w in WEIGHTS.items()})
loader = DataLoader(TensorDataset(torch.tensor(X), torch.tensor(y)), batch_size=8,
                    shuffle=False)
if OPTIMIZER == "sgd":
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
else:
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

losses = []
model.train()
for epoch in range(3):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device)
        logits = model(xb)
        zeros = torch.zeros(len(yb), 3, device=device)
        loss = F.cross_entropy(logits, yb) + 0.01 * F.mse_loss(logits, zeros)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

model.eval()
with torch.no_grad():
    inputs = torch.tensor(X).to(device)
    accuracy = (model(inputs).argmax(dim=1) == torch.tensor(y)).float().mean().item()
'''

def readme_import_lines() -> dict[str, str]:
    """The porting block (docs/torch.md, "Changing the imports instead"): each line is
    `micrograd import  # the torch import`."""
    text = (ROOT / "docs" / "torch.md").read_text(encoding="utf-8")
    after = text.split("change its import lines, and only those:", 1)[1]
    block = after.split("```python", 1)[1].split("```", 1)[0]
    pairs = [line.split("#", 1) for line in block.strip().splitlines()]
    return {theirs.strip(): ours.strip() for ours, theirs in pairs}


# The import lines the README tells a learner to change, and nothing else.
PORTED_IMPORTS = readme_import_lines()


def port(script: str) -> str:
    """The script with its import lines swapped for micrograd's; every other line unchanged."""
    lines = [PORTED_IMPORTS.get(line, line) for line in script.splitlines()]
    changed = [a for a, b in zip(script.splitlines(), lines, strict=True) if a != b]
    assert changed == list(PORTED_IMPORTS), "only the import lines may change"
    return "\n".join(lines)


@pytest.fixture
def restore_default_dtypes():
    ours, theirs = mt.get_default_dtype(), torch.get_default_dtype()
    yield
    mt.set_default_dtype(ours)
    torch.set_default_dtype(theirs)


def run(script: str, optimizer: str) -> dict:
    rng = np.random.default_rng(1)
    X = rng.standard_normal((40, 4))
    y = (X[:, 0] > 0).astype(np.int64) + (X[:, 1] > 0.5).astype(np.int64)
    weights = {}
    for i, (n_out, n_in) in ((0, (16, 4)), (2, (16, 16)), (4, (3, 16))):
        bound = 1 / np.sqrt(n_in)
        weights[f"{i}.weight"] = rng.uniform(-bound, bound, (n_out, n_in))
        weights[f"{i}.bias"] = rng.uniform(-bound, bound, n_out)
    namespace = {"X": X, "y": y, "WEIGHTS": weights, "OPTIMIZER": optimizer}
    exec(compile(script, "<training script>", "exec"), namespace)  # the test's own text
    return namespace


@pytest.mark.parametrize("optimizer", ["sgd", "adam"])
def test_a_pytorch_script_runs_on_micrograd_with_only_its_imports_changed(
        optimizer, restore_default_dtypes):
    theirs = run(SCRIPT, optimizer)
    ours = run(port(SCRIPT), optimizer)
    assert isinstance(ours["model"], mt.nn.Module)  # it really ran on micrograd
    assert len(ours["losses"]) == len(theirs["losses"]) == 15
    np.testing.assert_allclose(ours["losses"], theirs["losses"], rtol=1e-10)
    assert ours["accuracy"] == theirs["accuracy"]
    assert theirs["losses"][-1] < theirs["losses"][0]  # it did train


def test_submodules_are_attributes_of_micrograd_without_importing_numpy():
    code = (
        "import sys, micrograd\n"
        "assert 'numpy' not in sys.modules\n"
        "assert micrograd.optim.SGD and micrograd.losses and micrograd.gradcheck\n"
        "assert micrograd.nn.MLP and micrograd.datasets and micrograd.autograd.no_grad\n"
        "assert 'numpy' not in sys.modules, 'the scalar side must stay numpy-free'\n"
        "assert micrograd.tensors.nn.Linear and micrograd.tensors.functional.cross_entropy\n"
        "assert micrograd.tensors.data.DataLoader and micrograd.tensors.gradcheck.gradcheck\n"
        "assert micrograd.viz.draw_dot\n"
        "from micrograd.nn import MLP\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PYTHONPATH": str(SRC)})
    assert result.stdout.strip() == "ok", result.stderr


def test_torch_paths_that_live_elsewhere_say_where():
    with pytest.raises(AttributeError, match=r"micrograd\.tensors\.data"):
        micrograd.utils
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        micrograd.nonsense


def readme_table_names() -> list[str]:
    """Every micrograd name in the README's PyTorch table: dotted names (`a/b` lists
    expanded), bare names after one (`micrograd.optim.SGD`, `Adam`), and `module.*` rows
    expanded with the names in the PyTorch column."""
    import re

    text = (ROOT / "docs" / "torch.md").read_text(encoding="utf-8")
    table = text.split("## PyTorch name → micrograd name", 1)[1].split("Differences to know", 1)[0]
    names = []
    for line in table.splitlines()[3:]:
        if not line.startswith("|"):
            continue
        theirs, ours = line.split("|")[1:3]
        module = None
        for token in re.findall(r"`([^`]*)`", ours):
            dotted = re.match(r"micrograd(?:\.\w+)+(?:/\w+)*(?:\.\*)?", token)
            if dotted:
                module, _, last = dotted.group().rpartition(".")
                if last == "*":
                    stripped = re.sub(r"torch\.(nn\.)?(functional\.)?", "", theirs)
                    names += [f"{module}.{w}" for w in re.findall(r"`?([A-Za-z_]\w*)", stripped)
                              if w not in ("torch", "F", "reduction", "target", "logits")]
                else:
                    names += [f"{module}.{name}" for name in last.split("/")]
            elif module and re.match(r"[A-Za-z_]\w*(\(|$)", token) and \
                    not token.endswith("()"):  # `parameters()` etc. are Module methods
                names.append(module + "." + token.split("(")[0])
    return names


def test_every_name_in_the_readme_table_resolves_after_a_bare_import_micrograd():
    names = readme_table_names()
    assert len(names) > 40 and "micrograd.optim.AdamW" in names
    code = (
        "import functools, micrograd\n"
        f"for name in {names!r}:\n"
        "    functools.reduce(getattr, name.split('.')[1:], micrograd)\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={"PYTHONPATH": str(SRC)})
    assert result.stdout.strip() == "ok", result.stderr


def test_torch_autograd_gradcheck_of_a_ported_script_is_the_tensor_gradcheck():
    import micrograd as torch_like  # what `import micrograd as torch` gives a ported script
    from micrograd.tensors.function import unary as _unary
    from micrograd.tensors.gradcheck import GradcheckError

    x = micrograd.tensor([0.3, -1.2], dtype=np.float64, requires_grad=True)
    assert torch_like.autograd.gradcheck(lambda t: (t * t).tanh().sum(), (x,))
    wrong_sin = lambda t: _unary(t, np.sin(t.numpy()), "sin", lambda g: g * np.sin(t.numpy()))  # noqa: E731
    with pytest.raises(GradcheckError):
        torch_like.autograd.gradcheck(wrong_sin, (x,))
