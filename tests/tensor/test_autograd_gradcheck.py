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


# Import every module of the package, noting the namespace of each module (and of each
# class it defines) the moment its own code has run. One that differs at the end was
# written into by a later import. Left out: the import system's own binding of a child
# module on its package, and what a package does to its own parts while it loads
# (micrograd.tensors' install() attaching the op methods to Tensor).
IMPORT_EVERYTHING = '''
import importlib, importlib.machinery, pkgutil, sys, types

seen = {}


def note(name):
    """The namespaces of module `name` and of the classes it defines, as they are now."""
    module = sys.modules[name]
    spaces = {name: module}
    for key, value in list(vars(module).items()):
        if isinstance(value, type) and value.__module__ == name:
            spaces[f"{name}.{key}"] = value
    for where, space in spaces.items():
        seen[where] = (space, {k: id(v) for k, v in vars(space).items()})


class NoteWhenLoaded:
    """Notes each micrograd module the moment its own code has run; when a package has
    run, notes again everything inside it (a package may assemble its own parts, as
    micrograd.tensors' install() does)."""

    def find_spec(self, name, path, target=None):
        if not name.startswith("micrograd"):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            for inside in [n for n in sys.modules if n == name or n.startswith(name + ".")]:
                note(inside)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, NoteWhenLoaded())
import micrograd  # noqa: E402

for info in sorted(pkgutil.walk_packages(micrograd.__path__, "micrograd."), key=lambda m: m.name):
    try:
        importlib.import_module(info.name)
    except ImportError:  # an optional extra that is not installed: nothing to compare
        pass
for where, (space, before) in seen.items():
    for key, value in vars(space).items():
        child = isinstance(value, types.ModuleType) and value.__name__ == f"{where}.{key}"
        if before.get(key) != id(value) and not child:
            print(f"{where}.{key}")
print("checked", len(seen))
'''


def test_no_module_writes_into_another_when_imported():
    result = _run(IMPORT_EVERYTHING)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stderr
    assert lines[-1].startswith("checked") and int(lines[-1].split()[1]) > 300, lines
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
