"""`micrograd.autograd.gradcheck` (torch.autograd.gradcheck for `import micrograd as torch`)
is autograd's own name, not one the Tensor engine writes in when imported; and no module of
the package writes into another module as a side effect of being imported."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import SRC

import micrograd
import micrograd.autograd
import micrograd.torch.autograd
from micrograd.gradcheck import GradcheckError
from micrograd.tensors.function import unary


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(SRC)}, timeout=120)


# Import every module of the package one after another; after each import, note the
# namespace of every micrograd module loaded so far. A module whose namespace differs at
# the end was written into by a later import (the import system's own binding of a
# subpackage's child module on its parent is not a write by us, so it is left out).
IMPORT_EVERYTHING = '''
import importlib, pkgutil, sys, types
import micrograd
names = ["micrograd"] + sorted(m.name for m in pkgutil.walk_packages(micrograd.__path__,
                                                                     "micrograd."))
seen = {}
for name in names:
    try:
        importlib.import_module(name)
    except ImportError:  # an optional extra that is not installed: nothing to compare
        pass
    for loaded, module in list(sys.modules.items()):
        if loaded.startswith("micrograd") and loaded not in seen:
            seen[loaded] = {k: id(v) for k, v in vars(module).items()}
for loaded, before in seen.items():
    now = vars(sys.modules[loaded])
    for key, value in now.items():
        child = isinstance(value, types.ModuleType) and value.__name__ == f"{loaded}.{key}"
        if before.get(key) != id(value) and not child:
            print(f"{loaded}.{key}")
print("checked", len(seen))
'''


def test_no_module_writes_into_another_when_imported():
    result = _run(IMPORT_EVERYTHING)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert lines[-1].startswith("checked") and int(lines[-1].split()[1]) > 100, lines
    assert lines[:-1] == [], "written into by a later import: " + ", ".join(lines[:-1])


def test_autograd_gradcheck_is_there_after_a_bare_import_without_loading_numpy():
    result = _run("import sys, micrograd as torch\n"
                  "print(callable(torch.autograd.gradcheck), 'numpy' in sys.modules)\n")
    assert result.stdout.split() == ["True", "False"], result.stderr


def test_a_ported_script_checks_tensor_gradients_with_it():
    result = _run(
        "import micrograd as torch\n"
        "x = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)\n"
        "print(torch.autograd.gradcheck(lambda t: (t * t).tanh().sum(), (x,)))\n")
    assert result.stdout.strip() == "True", result.stderr


def _wrong_sin(t):  # sin with the derivative of -cos: gradcheck must refuse it
    return unary(t, np.sin(t.numpy()), "sin", lambda g: g * np.sin(t.numpy()))


def test_wrong_gradients_raise_or_give_false_as_torchs_raise_exception_says():
    x = micrograd.tensor([0.3, -1.2], dtype=np.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="central difference"):
        micrograd.autograd.gradcheck(_wrong_sin, (x,))
    assert micrograd.autograd.gradcheck(_wrong_sin, x, raise_exception=False) is False
    assert micrograd.autograd.gradcheck(lambda t: t.sin(), x, raise_exception=False) is True


def test_value_inputs_are_pointed_to_the_scalar_gradcheck():
    with pytest.raises(TypeError, match=r"Value.*micrograd\.gradcheck\.gradcheck"):
        micrograd.autograd.gradcheck(lambda v: v * v, (micrograd.Value(0.5),))


def test_torch_autograd_gradcheck_is_the_same_one_function():
    assert micrograd.torch.autograd.gradcheck is micrograd.autograd.gradcheck
