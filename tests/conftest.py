"""Shared test helpers: running code in a fresh interpreter, micrograd 0.1.0, missing tools.

micrograd 0.1.0 (the original, on PyPI) shares our import name, so it never runs in the
pytest process: `make test`'s setup installs it (pinned with its hash) into `.venv/mg010`
and every comparison runs a snippet under it in a subprocess.
"""

from __future__ import annotations

import importlib
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MG010_DIR = pathlib.Path(os.environ.get("MICROGRAD_MG010", ROOT / ".venv" / "mg010"))

try:
    from hypothesis import settings as hypothesis_settings
except ImportError:  # the property tests then fail on their own import, under CI=true too
    pass
else:
    # Under CI the property tests draw the same examples every run, so a red CI always means
    # a change in the code, never a new random draw. (Recent Hypothesis does this by itself
    # when it sees CI; saying it here keeps it true for any version the extra allows.)
    hypothesis_settings.register_profile("ci", derandomize=True, database=None, deadline=None,
                                         print_blob=True)
    if os.environ.get("CI") == "true":
        hypothesis_settings.load_profile("ci")


def require(available: bool, what: str) -> None:
    """Skip a test whose tool is missing -- but under CI=true a missing tool is a failure."""
    if available:
        return
    if os.environ.get("CI") == "true":
        pytest.fail(f"{what} is required when CI=true but is not available")
    pytest.skip(f"{what} is not available (under CI=true this test fails instead)")


def require_module(name: str):
    """Import a test-only package (torch, numpy, ...): skip if missing, fail under CI=true."""
    try:
        return importlib.import_module(name)
    except ImportError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{name} is required when CI=true: {error}", pytrace=False)
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')",
                    allow_module_level=True)


def require_demo_extra() -> None:
    """The demos run with micrograd[demo] (tqdm, scikit-learn, matplotlib): skip a demo test
    without it (fail under CI=true)."""
    for name in ("tqdm", "sklearn", "matplotlib"):
        require_module(name)


class _MissingModule:
    """Stands for a test-only package that is not installed: the test that touches it skips
    (fails under CI=true), so the module's other tests still run."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):  # introspection (pytest, copy): not a use
            raise AttributeError(attribute)
        require_module(self._name)  # raises: skip, or fail under CI=true

    def __bool__(self) -> bool:
        return False


def optional_module(name: str):
    """The package if installed, else a stand-in that skips each test using it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        return _MissingModule(name)


def require_tool(executable: str) -> str:
    """Path of a command-line tool (dot, chromium): skip if missing, fail under CI=true."""
    path = shutil.which(executable)
    require(path is not None, f"the {executable!r} program")
    return path


def run_python(code: str, pythonpath: pathlib.Path, env: dict | None = None,
               timeout: float = 300) -> str:
    """Run `code` in a fresh interpreter with only `pythonpath` added; return its stdout."""
    full_env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    full_env["PYTHONPATH"] = str(pythonpath)
    full_env.update(env or {})
    # cwd is a neutral folder so that `import micrograd` finds exactly `pythonpath`'s copy.
    with tempfile.TemporaryDirectory() as cwd:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env=full_env, cwd=cwd, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError(f"subprocess failed ({proc.returncode}):\n{proc.stderr}")
    return proc.stdout


class Interpreter:
    """A way to run snippets against one copy of micrograd, in a subprocess."""

    def __init__(self, path: pathlib.Path):
        self.path = path

    def run(self, code: str, env: dict | None = None) -> str:
        return run_python(code, self.path, env)

    def run_unchecked(self, code: str) -> subprocess.CompletedProcess:
        """Run and return the finished process, whether or not it failed (for crashes)."""
        env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
        env["PYTHONPATH"] = str(self.path)
        with tempfile.TemporaryDirectory() as cwd:
            return subprocess.run([sys.executable, "-c", code], capture_output=True,
                                  text=True, env=env, cwd=cwd, timeout=300)


def _mg010_installed(target: pathlib.Path) -> bool:
    return (target / "micrograd" / "engine.py").is_file() and any(
        target.glob("micrograd-0.1.0.dist-info"))


@pytest.fixture(scope="session")
def mg010() -> Interpreter:
    """micrograd 0.1.0 from PyPI, installed by `make test`'s setup into .venv/mg010."""
    require(_mg010_installed(MG010_DIR),
            f"micrograd==0.1.0 in {MG010_DIR} (make test installs it: "
            "pip install --no-deps --require-hashes --target .venv/mg010 "
            "-r tests/mg010-requirements.txt)")
    return Interpreter(MG010_DIR)


@pytest.fixture(scope="session")
def ours() -> Interpreter:
    """This package (src/), run in a subprocess like mg010 so outputs are comparable."""
    return Interpreter(SRC)


# ---------------------------------------------------------------------------------------
# The twin helper: one expression, evaluated by micrograd and by PyTorch float64
# ---------------------------------------------------------------------------------------

def run_ours(fn, xs):
    """Forward and backward of `fn` in micrograd at `xs`: (output, [d out / d x_i])."""
    from micrograd.engine import Value

    vs = [Value(x) for x in xs]
    out = fn(*vs)
    out.backward()
    return out.data, [v.grad for v in vs]


def run_torch(fn, xs):
    """The same expression in PyTorch float64: (output, [d out / d x_i])."""
    torch = require_module("torch")
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in xs]
    out = fn(*ts)
    out.backward()
    return out.item(), [0.0 if t.grad is None else t.grad.item() for t in ts]


def same_float(ours: float, expected: float, rel: float = 1e-12, floor: float = 0.0) -> bool:
    """Equal up to rounding: nan matches nan, inf matches inf of the same sign.

    `floor` is an absolute tolerance for results that are a small difference of numbers
    of size ~1, such as 1 - tanh(x)**2 near |x| = 8: one ulp of difference in tanh(x)
    (ours: math.tanh, torch: its own kernel) moves that tiny result by ~1e-9 relative,
    while its absolute error stays ~1e-17.
    """
    if math.isnan(expected):
        return math.isnan(ours)
    if math.isinf(expected):
        return ours == expected
    return math.isclose(ours, expected, rel_tol=rel, abs_tol=floor)


def assert_twin(fn, xs, rel: float = 1e-12):
    """Our forward value and gradients of `fn` at `xs` equal PyTorch's; returns ours."""
    out, grads = run_ours(fn, xs)
    t_out, t_grads = run_torch(fn, xs)
    assert same_float(out, t_out, rel), f"forward at {xs}: ours {out!r}, torch {t_out!r}"
    for i, (g, tg) in enumerate(zip(grads, t_grads, strict=True)):
        assert same_float(g, tg, rel, floor=1e-14), f"d/dx{i} at {xs}: ours {g!r}, torch {tg!r}"
    return out, grads


def central_difference(fn, xs, i: int, h: float = 1e-6) -> float:
    """(f(x + h e_i) - f(x - h e_i)) / 2h from forward passes only."""
    from micrograd.engine import Value

    up = [x + h if j == i else x for j, x in enumerate(xs)]
    down = [x - h if j == i else x for j, x in enumerate(xs)]
    return (fn(*map(Value, up)).data - fn(*map(Value, down)).data) / (2 * h)


def assert_matches_central_difference(fn, xs):
    """Our gradients of `fn` at `xs` equal central differences of our forward pass."""
    _, grads = run_ours(fn, xs)
    for i, g in enumerate(grads):
        numeric = central_difference(fn, xs, i)
        assert g == pytest.approx(numeric, rel=1e-6, abs=1e-6), f"d/dx{i} at {xs}"


# ---------------------------------------------------------------------------------------
# The lecture's two labelled graphs, shared by the trace, viz and HTML page tests
# ---------------------------------------------------------------------------------------

LECTURE_BIAS = 6.8813735870195432  # the lecture's b: makes n = 0.8814 and o = tanh(n) = 1/sqrt(2)


def _labelled(value, label: str):
    value.label = label
    return value


def lecture_expression(backward: bool = False):
    """L = (a*b + c) * f with the lecture's labels and numbers (a=2, b=-3, c=10, f=-2)."""
    from micrograd.engine import Value

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c, f = Value(10.0, label="c"), Value(-2.0, label="f")
    e = _labelled(a * b, "e")
    d = _labelled(e + c, "d")
    L = _labelled(d * f, "L")
    if backward:
        L.backward()
    return L


def lecture_neuron(backward: bool = False):
    """o = tanh(x1*w1 + x2*w2 + b), the lecture's neuron op by op, with its labels."""
    from micrograd.engine import Value

    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(LECTURE_BIAS, label="b")
    x1w1 = _labelled(x1 * w1, "x1*w1")
    x2w2 = _labelled(x2 * w2, "x2*w2")
    n = _labelled(_labelled(x1w1 + x2w2, "x1*w1 + x2*w2") + b, "n")
    o = _labelled(n.tanh(), "o")
    if backward:
        o.backward()
    return o


def nodes_by_label(root) -> dict:
    """Every node of root's graph, keyed by its label."""
    from micrograd.autograd import topological_order

    return {node.label: node for node in topological_order(root)}


def nodes_within(root, max_depth):
    """ids of the nodes at most max_depth ops from root (the test's own BFS)."""
    near, frontier = {id(root)}, [root]
    for _ in range(max_depth):
        frontier = [c for n in frontier for c in n._prev if id(c) not in near]
        near |= {id(c) for c in frontier}
    return near
