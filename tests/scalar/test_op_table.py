"""engine.OPS: the op table's formula texts are right (checked against PyTorch's gradients),
every op the engine makes is in it, and the package has no import cycle."""

from __future__ import annotations

import math
import operator
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import require_module

from micrograd import ops as registry
from micrograd.engine import OPS, Value, define_op, op_info, weighted_sum
from micrograd.ops.floats import FLOATS

ROOT = Path(__file__).resolve().parents[2]
registry_labels = {entry.label: entry for entry in registry.scalar_ops()}


class _Num:
    """Fills a template with Python numbers: {0.data} -> 0.7, {out.grad} -> 1.3."""

    def __init__(self, data: float, grad: float = 0.0):
        self.data, self.grad = repr(float(data)), repr(float(grad))

    def __format__(self, spec: str) -> str:
        return self.data


# name in OPS, how to build the node from leaves, the same in torch, inputs
CASES = [
    ("+", lambda v: v[0] + v[1], lambda t: t[0] + t[1], [0.7, -1.3]),
    ("*", lambda v: v[0] * v[1], lambda t: t[0] * t[1], [0.7, -1.3]),
    ("**k", lambda v: v[0] ** 3, lambda t: t[0] ** 3, [0.7]),
    ("**", lambda v: v[0] ** v[1], lambda t: t[0] ** t[1], [0.7, 2.5]),
    ("w·x+b", lambda v: weighted_sum([v[0], v[1]], [v[2], v[3]], v[4]),
     lambda t: t[0] * t[2] + t[1] * t[3] + t[4], [0.5, -1.0, 2.0, 0.3, 0.1]),
]


def _torch_spelling(entry):
    """The op as PyTorch spells it: torch.NAME, else torch.nn.functional.NAME."""
    torch = require_module("torch")
    if entry.torch.function:
        return getattr(torch, entry.torch.function)
    return getattr(torch.nn.functional, entry.torch.functional)


# relu, tanh, exp, ...: every registry op Value has, at a point inside its domain
CASES += [(entry.label, lambda v, e=entry: getattr(v[0], e.methods[0])(),
           lambda t, e=entry: _torch_spelling(e)(t[0]), [0.7]) for entry in registry.scalar_ops()]


def test_every_builtin_op_has_a_case():
    assert {case[0] for case in CASES} == set(OPS)


@pytest.mark.parametrize("name, build, torch_build, xs", CASES, ids=[c[0] for c in CASES])
def test_formula_texts_evaluate_to_torchs_gradients(name, build, torch_build, xs):
    torch = require_module("torch")
    leaves = [Value(x) for x in xs]
    out = build(leaves)
    info = op_info(out)
    assert info is OPS[name] and info.backward is not None
    g = 1.3  # an output gradient that is not 1, so a missing `* out.grad` shows
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    torch_build(ts).backward(torch.tensor(g, dtype=torch.float64))
    k = out._op[2:] if name == "**k" else ""
    texts = info.derivative_texts(len(xs))
    assert len(texts) == len(xs)
    # Our own formula texts (not user input), filled with numbers and evaluated as Python.
    functions = {"log": math.log, "sin": math.sin, "cos": math.cos, "sigmoid": FLOATS.sigmoid,
                 "sign": lambda x: (x > 0) - (x < 0)}
    for i, text in enumerate(texts):
        filled = text.format(*(_Num(x) for x in xs), out=_Num(out.data, g), k=k)
        value = eval(filled, {"__builtins__": {}}, functions)
        assert value == pytest.approx(ts[i].grad.item(), rel=1e-12), (name, i, filled)
    forward = info.forward_text(len(xs)).format(*(_Num(x) for x in xs), k=k)
    functions.update(tanh=math.tanh, exp=math.exp, sqrt=math.sqrt, abs=abs,
                     relu=lambda x: max(x, 0.0), sigmoid=lambda x: 1 / (1 + math.exp(-x)))
    if name in registry_labels:  # the op's own name in its forward text: its float rule
        entry = registry_labels[name]
        functions[entry.methods[0]] = entry.rule(FLOATS).forward
    assert eval(forward, {"__builtins__": {}}, functions) == pytest.approx(out.data, rel=1e-12)


def test_op_table_is_read_only():
    with pytest.raises(TypeError):
        operator.setitem(OPS, "tanh", OPS["exp"])


def test_op_info_ignores_a_hand_written_backward_and_names_define_op_ops():
    x = Value(0.5)
    out = Value(math.tanh(0.5), (x,), "tanh")  # says tanh, but its backward is the learner's
    out._backward = lambda: None
    assert op_info(out) is None
    assert op_info(x) is None  # a leaf
    cube = define_op("tanh", lambda v: v**3, lambda v: 3 * v**2)  # a custom op named like one
    info = op_info(cube(x))
    assert info is not None and info is not OPS["tanh"] and info.derivatives == ()


def test_the_package_has_no_import_cycle():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "import_cycles.py"),
                             str(ROOT / "src" / "micrograd")],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, "import cycles:\n" + result.stdout


def test_the_cycle_finder_finds_a_lazy_import_cycle(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("def f():\n    import pkg.a\n")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "import_cycles.py"),
                             str(package)], capture_output=True, text=True, check=False)
    assert result.returncode == 1 and "pkg.a <-> pkg.b" in result.stdout


def test_an_import_only_type_checkers_read_is_no_cycle(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    from pkg import a\nelse:\n    x = 1\n")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "import_cycles.py"),
                             str(package)], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout
    (package / "b.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                  "    pass\nelse:\n    from pkg import a\n")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "import_cycles.py"),
                             str(package)], capture_output=True, text=True, check=False)
    assert result.returncode == 1 and "pkg.a <-> pkg.b" in result.stdout
