"""The learners' corpus (tests/check/learners/) checked on its own, before any checker reads it.

The corpus is the specification that `micrograd check` is tested against (issue 12, item 9),
so it must be right itself: every file compiles, the manifest names every file and only
existing files, each fault points at a real line holding the code it names, and for the
numpy Tensor engines an independent oracle -- central differences of the engine's own
forward pass, and numpy's stable softmax / log-sum-exp for the two stability probes --
confirms that each buggy engine is wrong exactly where its manifest entry says, and right
on every other probe, while the correct engine is right on all of them.
"""

from __future__ import annotations
import __future__

import ast
import importlib.util
import json
import math
import pathlib
import sys
import types
from collections.abc import Callable
from typing import Any

import pytest
from conftest import require_module

np = require_module("numpy")

LEARNERS = pathlib.Path(__file__).resolve().parent / "learners"
MANIFEST = json.loads((LEARNERS / "expected.json").read_text(encoding="utf-8"))
ENGINES = MANIFEST["engines"]
VERDICTS = {"pass", "limits-only", "fail"}
# what a wrong engine raises in a probe: counted as a wrong result, anything else is a test bug
ENGINE_ERRORS = (ArithmeticError, ValueError, TypeError, AttributeError, IndexError,
                 RecursionError)
STATUSES = {"fail", "limit", "warn"}


def test_manifest_lists_exactly_the_engine_files() -> None:
    on_disk = {p.name for p in LEARNERS.glob("*.py")}
    assert set(ENGINES) == on_disk


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_file_compiles(name: str) -> None:
    source = (LEARNERS / name).read_text(encoding="utf-8")
    compile(source, name, "exec")
    assert source.startswith('"""'), f"{name}: needs a docstring naming its pattern"


def _verdict_from(diagnoses: dict[str, str]) -> str:
    statuses = set(diagnoses.values())
    if "fail" in statuses:
        return "fail"
    return "limits-only" if "limit" in statuses else "pass"


def _check_expectation(name: str, expect: dict, lines: list[str]) -> None:
    assert expect["verdict"] in VERDICTS, name
    assert set(expect["diagnoses"].values()) <= STATUSES, name
    assert expect["verdict"] == _verdict_from(expect["diagnoses"]), name
    # every fail or limit has a pointer; no pointer names a diagnosis that is not expected
    needs_line = {d for d, status in expect["diagnoses"].items() if status in ("fail", "limit")}
    lacking = needs_line - set(expect["lines"])
    assert not lacking, f"{name}: no line for {lacking}"
    assert set(expect["lines"]) <= set(expect["diagnoses"]), name
    for diagnosis, pointer in expect["lines"].items():
        number, code = pointer["line"], pointer["code"]
        assert 1 <= number <= len(lines), f"{name}: {diagnosis} points past the file"
        assert code and code in lines[number - 1], (
            f"{name}:{number} should hold {code!r} for {diagnosis}, has {lines[number - 1]!r}")


@pytest.mark.parametrize("name", sorted(ENGINES))
def test_expectations_are_consistent_and_point_at_real_lines(name: str) -> None:
    entry = ENGINES[name]
    lines = (LEARNERS / name).read_text(encoding="utf-8").splitlines()
    assert entry["kind"] in ("scalar", "tensor"), name
    api = entry["api"]
    assert {"class", "backward", "data", "grad"} <= set(api), name
    assert api["backward"]["kind"] in ("method", "function"), name
    source = "\n".join(lines)
    assert f"class {api['class']}" in source, name
    assert f"def {api['backward']['name']}(" in source, name
    assert f".{api['data']} = " in source and f".{api['grad']} = " in source, name
    _check_expectation(name, entry, lines)
    for variant in entry.get("variants", {}).values():
        _check_expectation(name, {**variant, "lines": variant.get("lines", {})}, lines)


# ---- tensor engines: an independent numerical oracle -------------------------------------

def _load(name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(f"learner_{name[:-3]}", LEARNERS / name)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


Build = Callable[..., Any]   # (Tensor class, *input Tensors) -> scalar loss Tensor


def _gradients_agree(cls: type, build: Build, arrays: list) -> bool:
    """Backward's gradients of build(...) equal central differences of its own forward."""
    def forward(values: list) -> float:
        return float(np.asarray(build(cls, *[cls(v) for v in values]).data))

    leaves = [cls(a.copy()) for a in arrays]
    try:
        loss = build(cls, *leaves)
        loss.backward()
        got = [np.asarray(t.grad, dtype=float) for t in leaves]
    except ENGINE_ERRORS:  # a backward that raises is a wrong gradient too
        return False
    h = 1e-6
    for index, array in enumerate(arrays):
        expected = np.zeros_like(array)
        for position in np.ndindex(array.shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[index][position] += h
            minus[index][position] -= h
            expected[position] = (forward(plus) - forward(minus)) / (2 * h)
        if got[index].shape != array.shape or not np.allclose(got[index], expected,
                                                               rtol=1e-5, atol=1e-6):
            return False
    return True


def _stable_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


RNG = np.random.default_rng(12)


def _arr(*shape: int, low: float = -2.0, high: float = 2.0):
    return RNG.uniform(low, high, size=shape)


def _away_from_zero(*shape: int):
    values = _arr(*shape)
    return np.where(np.abs(values) < 0.1, 0.5, values)


W34, W33, W3, W4, W13 = _arr(3, 4), _arr(3, 3), _arr(3), _arr(4), _arr(1, 3)


def _probe_unbroadcast(cls: type) -> bool:
    return _gradients_agree(cls, lambda T, x, b: ((x + b) * T(W34)).sum(), [_arr(3, 4), _arr(4)])


def _probe_overwrite(cls: type) -> bool:
    def build(T, x, w):
        return ((x * w + x) * T(W34)).sum() + (((x + w) + x) * T(W34)).sum()
    return _gradients_agree(cls, build, [_arr(3, 4), _arr(3, 4)])


def _probe_matmul(cls: type) -> bool:
    return _gradients_agree(cls, lambda T, a, b: ((a @ b) * T(W34)).sum(),
                            [_arr(3, 2), _arr(2, 4)])


def _probe_sum_axis(cls: type) -> bool:
    def build(T, x):
        return ((x.sum(axis=1) * T(W3)).sum() + (x.sum(axis=0) * T(W3)).sum()
                + (x.sum(axis=0, keepdims=True) * T(W13)).sum() + x.sum() * T(2.0))
    rectangular = _gradients_agree(cls, lambda T, x: (x.sum(axis=1) * T(W3)).sum(), [_arr(3, 4)])
    return rectangular and _gradients_agree(cls, build, [_arr(3, 3)])


def _probe_mean(cls: type) -> bool:
    def build(T, x):
        return ((x.mean(axis=0) * T(W4)).sum()
                + (x.mean(axis=1, keepdims=True) * T(W3.reshape(3, 1))).sum()
                + x.mean() * T(3.0))
    return _gradients_agree(cls, build, [_arr(3, 4)])


def _probe_reshape(cls: type) -> bool:
    return _gradients_agree(cls, lambda T, x: (x.reshape(3, 4) * T(W34)).sum(), [_arr(2, 6)])


def _probe_transpose(cls: type) -> bool:
    square = _gradients_agree(cls, lambda T, x: (x.T * T(W33)).sum(), [_arr(3, 3)])
    return square and _gradients_agree(cls, lambda T, x: (x.T * T(W34)).sum(), [_arr(4, 3)])


def _probe_unary(op: str, **domain: float) -> Callable[[type], bool]:
    def probe(cls: type) -> bool:
        values = _away_from_zero(3, 4) if not domain else _arr(3, 4, **domain)
        return _gradients_agree(cls, lambda T, x: (getattr(x, op)() * T(W34)).sum(), [values])
    return probe


def _probe_softmax(cls: type) -> bool:
    large = np.array([[1000.0, 1001.0, 999.0], [-5.0, 0.0, 800.0]])
    with np.errstate(all="ignore"):
        try:
            forward = np.asarray(cls(large).softmax(axis=-1).data, dtype=float)
        except (OverflowError, FloatingPointError):
            return False
    stable = np.all(np.isfinite(forward)) and np.allclose(forward, _stable_softmax(large))
    return bool(stable) and _gradients_agree(
        cls, lambda T, x: (x.softmax(axis=-1) * T(W34)).sum(), [_arr(3, 4)])


def _probe_cross_entropy(cls: type) -> bool:
    logits = np.array([[0.0, -800.0, 5.0], [1000.0, 0.0, 1.0]])
    targets = np.array([1, 2])
    shifted = logits - logits.max(axis=1, keepdims=True)
    reference = float(np.mean(np.log(np.exp(shifted).sum(axis=1)) - shifted[[0, 1], targets]))
    with np.errstate(all="ignore"):
        try:
            loss = float(np.asarray(cls(logits).cross_entropy(targets).data))
        except (OverflowError, FloatingPointError):
            return False
    stable = np.isfinite(loss) and np.isclose(loss, reference, rtol=1e-9)
    return bool(stable) and _gradients_agree(
        cls, lambda T, x: x.cross_entropy(np.array([0, 3, 1])), [_arr(3, 4)])


# diagnosis -> (the op the probe needs, the probe); the correct engine must pass every probe
TENSOR_PROBES: dict[str, tuple[str, Callable[[type], bool]]] = {
    "missing-unbroadcast": ("__add__", _probe_unbroadcast),
    "tensor-grad-overwritten": ("__mul__", _probe_overwrite),
    "matmul-grad-not-transposed": ("__matmul__", _probe_matmul),
    "sum-axis-grad": ("sum", _probe_sum_axis),
    "mean-grad-not-divided": ("mean", _probe_mean),
    "reshape-grad-not-reshaped": ("reshape", _probe_reshape),
    "transpose-grad": ("T", _probe_transpose),
    "wrong-local-derivative:relu": ("relu", _probe_unary("relu")),
    "wrong-local-derivative:tanh": ("tanh", _probe_unary("tanh")),
    "wrong-local-derivative:exp": ("exp", _probe_unary("exp")),
    "wrong-local-derivative:log": ("log", _probe_unary("log", low=0.2, high=3.0)),
    "softmax-unstable": ("softmax", _probe_softmax),
    "cross-entropy-unstable": ("cross_entropy", _probe_cross_entropy),
}

TENSOR_ENGINES = sorted(n for n, e in ENGINES.items() if e["kind"] == "tensor")


def test_every_tensor_fault_has_an_oracle() -> None:
    for name in TENSOR_ENGINES:
        faults = {d for d, s in ENGINES[name]["diagnoses"].items() if s == "fail"}
        assert faults <= set(TENSOR_PROBES), f"{name}: no probe for {faults - set(TENSOR_PROBES)}"
        assert len(faults) <= 1, f"{name}: a corpus engine holds one fault"


@pytest.mark.parametrize("name", TENSOR_ENGINES)
def test_tensor_engine_is_wrong_exactly_where_the_manifest_says(name: str) -> None:
    entry = ENGINES[name]
    cls = getattr(_load(name), entry["api"]["class"])
    faults = {d for d, s in entry["diagnoses"].items() if s == "fail"}
    checked = 0
    for diagnosis, (op, probe) in TENSOR_PROBES.items():
        if not hasattr(cls, op):
            assert diagnosis not in faults, f"{name}: the fault's op {op} is missing"
            continue
        checked += 1
        right = probe(cls)
        if diagnosis in faults:
            assert not right, f"{name}: the oracle finds no {diagnosis}"
        else:
            assert right, f"{name}: the oracle finds a fault not in the manifest: {diagnosis}"
    assert checked >= 3, f"{name}: too few ops to probe"


def test_the_correct_tensor_engine_has_every_op_probed() -> None:
    cls = _load("tensor_correct.py").Tensor
    assert all(hasattr(cls, op) for op, _ in TENSOR_PROBES.values())
    assert ENGINES["tensor_correct.py"]["verdict"] == "pass"


def teardown_module() -> None:
    for key in [k for k in sys.modules if k.startswith("learner_")]:
        del sys.modules[key]


# ---- scalar engines: each named fault is real, and the clean engines are right -----------

def _run_like_a_notebook(name: str) -> tuple[dict, dict[int, str]]:
    """Run the corpus file's top-level statements one by one, as cells; go on past failures.

    Returns the namespace and {line: exception type} of the statements that raised. This
    executes our own test data (a corpus file), never a user's text.
    """
    path = LEARNERS / name
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    namespace: dict = {"__name__": f"learner_{name[:-3]}", "__file__": str(path)}
    raised: dict[int, str] = {}
    future_flags = 0  # a cell's `from __future__ import ...` holds for the cells after it
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and statement.module == "__future__":
            for alias in statement.names:
                future_flags |= getattr(__future__, alias.name).compiler_flag
        # dont_inherit: this test module's own __future__ imports must not leak in
        code = compile(ast.Module(body=[statement], type_ignores=[]), str(path), "exec",
                       flags=future_flags, dont_inherit=True)
        try:
            exec(code, namespace)  # a corpus file of this repo, run cell by cell
        except (ImportError, NameError) as error:
            raised[statement.lineno] = type(error).__name__
    return namespace, raised


# top-level statements that fail where the manifest expects a WARN for them
STATEMENT_DIAGNOSES = {"import-error": "ModuleNotFoundError", "load-exception": "NameError",
                       "annotation-name-error": "NameError"}


class _Scalar:
    """The engine under its learner's names: make, value, grad, backward."""

    def __init__(self, namespace: dict, api: dict) -> None:
        self.cls = namespace[api["class"]]
        self.data, self.grad_name = api["data"], api["grad"]
        entry = api["backward"]
        if entry["kind"] == "function":
            function = namespace[entry["name"]]
            self.backward: Callable[[object], None] = function
        else:
            self.backward = lambda root: getattr(root, entry["name"])()

    def value(self, node: object) -> float:
        return float(getattr(node, self.data))

    def grad(self, node: object) -> float:
        return float(getattr(node, self.grad_name))


def _grads_right(engine: _Scalar, build: Callable, reference: Callable, point: list[float]) -> bool:
    """Gradient of build(*Values) at point against central differences of math's reference."""
    leaves = [engine.cls(x) for x in point]
    try:
        root = build(*leaves)
        engine.backward(root)
        got = [engine.grad(leaf) for leaf in leaves]
        value = engine.value(root)
    except ENGINE_ERRORS:
        return False
    for index in range(len(point)):
        h = min(1e-6, abs(point[index]) / 1000) or 1e-6   # stay inside log's domain
        plus, minus = list(point), list(point)
        plus[index] += h
        minus[index] -= h
        expected = (reference(*plus) - reference(*minus)) / (2 * h)
        if not math.isclose(got[index], expected, rel_tol=1e-5, abs_tol=1e-6):
            return False
    return math.isclose(value, reference(*point), rel_tol=1e-9, abs_tol=1e-12)


def _twice_reached(h: Any) -> Any:
    return (h + h) + h


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x)) if x >= 0 else math.exp(x) / (1 + math.exp(x))


# op -> (method it needs, build, math reference, point); all at easy points
SCALAR_OPS: dict[str, tuple[str, Callable, Callable, list[float]]] = {
    "add": ("__add__", lambda a, b: a + b, lambda a, b: a + b, [1.5, -0.5]),
    "mul": ("__mul__", lambda a, b: a * b, lambda a, b: a * b, [1.5, -0.5]),
    "reuse": ("__mul__", lambda a, b: a * b + a, lambda a, b: a * b + a, [1.5, -0.5]),
    "radd": ("__radd__", lambda a: 2 + a, lambda a: 2 + a, [0.7]),
    "rmul": ("__rmul__", lambda a: 3 * a, lambda a: 3 * a, [0.7]),
    "sub": ("__sub__", lambda a, b: a - b, lambda a, b: a - b, [1.5, -0.5]),
    "rsub": ("__rsub__", lambda a: 2 - a, lambda a: 2 - a, [0.7]),
    "neg": ("__neg__", lambda a: -a, lambda a: -a, [0.7]),
    "pow": ("__pow__", lambda a: a ** 3, lambda a: a ** 3, [1.3]),
    "pow-float": ("__pow__", lambda a: a ** 2.5, lambda a: a ** 2.5, [1.3]),
    "pow-negative-exponent": ("__pow__", lambda a: a ** -1, lambda a: a ** -1, [1.3]),
    "pow-negative-base": ("__pow__", lambda a: a ** 2, lambda a: a ** 2, [-3.0]),
    "truediv": ("__truediv__", lambda a, b: a / b, lambda a, b: a / b, [1.5, -0.5]),
    "rtruediv": ("__rtruediv__", lambda a: 4 / a, lambda a: 4 / a, [0.7]),
    "exp": ("exp", lambda a: a.exp() + a, lambda a: math.exp(a) + a, [0.7]),
    "log": ("log", lambda a: a.log() + a, lambda a: math.log(a) + a, [0.7]),
    "log-small": ("log", lambda a: a.log(), math.log, [1e-9]),
    "tanh": ("tanh", lambda a: a.tanh() + a, lambda a: math.tanh(a) + a, [0.7]),
    "tanh-large": ("tanh", lambda a: a.tanh(), math.tanh, [400.0]),
    "relu": ("relu", lambda a: a.relu() + a, lambda a: max(a, 0.0) + a, [0.7]),
    "sigmoid": ("sigmoid", lambda a: a.sigmoid() + a, lambda a: _sigmoid(a) + a, [0.7]),
    "sigmoid-large": ("sigmoid", lambda a: a.sigmoid(), _sigmoid, [-800.0]),
    # h = a + 1 reaches the root twice, directly and through h + h (add only, so a fault
    # in another op cannot show here)
    "shared-node": ("__add__", lambda a: _twice_reached(a + 1.0), lambda a: 3 * (a + 1.0), [0.5]),
}


def _op_right(engine: _Scalar, op: str) -> bool:
    method, build, reference, point = SCALAR_OPS[op]
    if not hasattr(engine.cls, method):
        return False
    # ops whose graph order can depend on set order run on many fresh graphs
    return all(_grads_right(engine, build, reference, point) for _ in range(10))


def _deep_chain_works(engine: _Scalar) -> bool:
    x = engine.cls(0.5)
    y = x
    for _ in range(2000):
        y = y + 0.0
    try:
        engine.backward(y)
    except RecursionError:
        return False
    return math.isclose(engine.grad(x), 1.0)


def _second_backward_accumulates(engine: _Scalar) -> bool:
    """PyTorch's rule: a second backward() on one graph doubles the leaves' gradients."""
    a, b = engine.cls(1.5), engine.cls(-0.5)
    y = (a + b) + a   # add only: the intermediate a + b must start the second pass from 0
    engine.backward(y)
    first = engine.grad(a), engine.grad(b)
    engine.backward(y)
    return all(math.isclose(engine.grad(v), 2 * g) for v, g in zip((a, b), first, strict=True))


# diagnosis -> what must go wrong in the engine for the manifest to be right
SCALAR_FAULT_PROBES: dict[str, Callable[[_Scalar], bool]] = {
    "grad-assigned:relu": lambda e: _op_right(e, "relu"),
    "grad-assigned:mul": lambda e: _op_right(e, "reuse"),
    "node-visited-twice": lambda e: _op_right(e, "shared-node"),
    "div-no-backward": lambda e: _op_right(e, "truediv"),
    "pow-negative-base": lambda e: _op_right(e, "pow-negative-base"),
    "pow-negative-exponent": lambda e: _op_right(e, "pow-negative-exponent"),
    "sigmoid-overflow": lambda e: _op_right(e, "sigmoid-large"),
    "tanh-overflow": lambda e: _op_right(e, "tanh-large"),
    "wrong-forward:log": lambda e: _op_right(e, "log-small"),
    "missing-radd": lambda e: _op_right(e, "radd"),
    "missing-rsub": lambda e: _op_right(e, "rsub"),
    "recursion-limit": _deep_chain_works,
    "stale-intermediate-grads": _second_backward_accumulates,
}

SCALAR_ENGINES = sorted(n for n, e in ENGINES.items() if e["kind"] == "scalar")


@pytest.mark.parametrize("name", SCALAR_ENGINES)
def test_scalar_engine_faults_are_real_and_clean_engines_are_right(name: str) -> None:
    entry = ENGINES[name]
    namespace, raised = _run_like_a_notebook(name)
    if "torch-missing" in entry.get("variants", {}) and importlib.util.find_spec("torch") is None:
        entry = entry["variants"]["torch-missing"]
    # the statements that fail are exactly those the manifest warns about (the annotation's
    # NameError surfaces at its class statement, the line `class-not-found` points at)
    expected_raised = {pointer["line"]: STATEMENT_DIAGNOSES[d]
                       for d, pointer in entry["lines"].items()
                       if d in STATEMENT_DIAGNOSES and d != "annotation-name-error"}
    if "annotation-name-error" in entry["diagnoses"]:
        expected_raised[entry["lines"]["class-not-found"]["line"]] = "NameError"
    assert raised == expected_raised, name
    if ENGINES[name]["api"]["class"] not in namespace:  # a variant keeps the api
        assert "class-not-found" in entry["diagnoses"] and sys.version_info < (3, 14), name
        return
    engine = _Scalar(namespace, ENGINES[name]["api"])
    probed = {d for d in entry["diagnoses"] if d in SCALAR_FAULT_PROBES}
    for diagnosis in probed:
        assert not SCALAR_FAULT_PROBES[diagnosis](engine), f"{name}: {diagnosis} is not real"
    for diagnosis in set(SCALAR_FAULT_PROBES) - probed:
        if diagnosis.startswith(("missing-", "grad-assigned", "div-", "wrong-forward")):
            continue  # only meaningful for the op the file is about; covered below
        method = {"sigmoid-overflow": "sigmoid", "tanh-overflow": "tanh",
                  "pow-negative-base": "__pow__", "pow-negative-exponent": "__pow__"}.get(diagnosis)
        if method and not hasattr(engine.cls, method):
            continue
        assert SCALAR_FAULT_PROBES[diagnosis](engine), f"{name}: unlisted {diagnosis}"
    if entry["verdict"] != "fail":  # no fault: every op it has is right at easy points
        for op, (method, *_rest) in SCALAR_OPS.items():
            if hasattr(engine.cls, method) and op not in ("tanh-large", "sigmoid-large"):
                assert _op_right(engine, op), f"{name}: {op} is wrong but no fault is listed"
