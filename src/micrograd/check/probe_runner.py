"""The child side of `micrograd check`: load a learner's engine and run the probes on it.

Run only as a separate process by `micrograd.check.check_engine`:

    python -I probe_runner.py CONFIG.json

This file is self-contained (standard library only) because it runs in isolated mode with
the learner's code: it must not import the learner's `micrograd` or ours. It writes one
JSON object per line to the results file named in the config, flushing after each, so the
parent keeps every result that was written even if this process is killed.

Oracles are independent of the learner's backward: the expected forward value comes from
the same expression evaluated on plain floats with `math`, and the expected gradient from
central differences of that float expression.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import io
import json
import math
import numbers
import os
import re
import resource
import signal
import sys
import time
import traceback
import types
from typing import Any, Callable

H_REL = 1e-6          # central-difference step, relative to |x| (at least this absolute)
RTOL, ATOL = 1e-4, 1e-6
OPTIONAL_MODULES = ("graphviz", "matplotlib", "IPython", "tqdm", "seaborn", "sklearn",
                    "torch", "numpy", "pandas")  # stubbed only when they are not installed


class ProbeTimeout(BaseException):
    """Raised by the alarm; a BaseException so a learner's `except Exception` can't eat it."""


# --------------------------------------------------------------------------------------
# Output channel and sandbox set-up
# --------------------------------------------------------------------------------------

class Channel:
    """One JSON object per line, flushed at once: what is written survives a kill."""

    def __init__(self, path: str):
        self.file = open(path, "a", encoding="utf-8")

    def emit(self, record: dict) -> None:
        self.file.write(json.dumps(record, default=_safe_repr) + "\n")
        self.file.flush()


class CappedText(io.TextIOBase):
    """Swallows what the learner prints, keeping only the first few thousand characters."""

    def __init__(self, cap: int = 4000):
        self.parts: list[str] = []
        self.size = 0
        self.cap = cap

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.size < self.cap:
            self.parts.append(text[: self.cap - self.size])
            self.size += len(self.parts[-1])
        return len(text)

    def text(self) -> str:
        return "".join(self.parts)


class _StubModule(types.ModuleType):
    """A harmless stand-in for a missing optional module: every attribute is callable."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _Anything()


class _Anything:
    def __call__(self, *args: Any, **kwargs: Any) -> "_Anything":
        return self

    def __getattr__(self, name: str) -> "_Anything":
        if name.startswith("__"):
            raise AttributeError(name)
        return self

    def __iter__(self):
        return iter(())


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Last on sys.meta_path: answers for optional packages no other finder could find.

    Only a top-level package that is not installed at all is stubbed, and then its
    submodules too. A submodule a real package cannot find is none of our business: numpy,
    for one, imports an optional internal module inside try/except ImportError, and a stub
    there would both break numpy's own logic and be reported as "not installed".
    """

    def __init__(self) -> None:
        self.stubbed: list[str] = []

    def find_spec(self, fullname, path, target=None):
        top, dot, _ = fullname.partition(".")
        if top not in OPTIONAL_MODULES:
            return None
        if dot and not isinstance(sys.modules.get(top), _StubModule):
            return None  # a submodule of a real package
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        if "." not in spec.name and spec.name not in self.stubbed:
            self.stubbed.append(spec.name)
        return module

    def exec_module(self, module) -> None:
        return None


def _on_alarm(signum, frame):
    raise ProbeTimeout()


class time_limit:
    """with time_limit(s): ... raises ProbeTimeout after s seconds of wall-clock time."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def __enter__(self):
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc):
        signal.setitimer(signal.ITIMER_REAL, 0)
        return False


def limit_resources(memory_mb: int, cpu_seconds: float) -> None:
    """Cap address space (a huge allocation becomes MemoryError) and CPU time (backstop)."""
    if memory_mb > 0:
        limit = memory_mb * 1024 * 1024
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    if cpu_seconds > 0:
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        cap = int(math.ceil(cpu_seconds))
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (cap, hard))


# --------------------------------------------------------------------------------------
# Errors -> (diagnosis id, line)
# --------------------------------------------------------------------------------------

LEARNER_FILE = ""


def _safe_repr(x: Any, limit: int = 80) -> str:
    try:
        text = repr(x)
    except BaseException:  # a learner's __repr__ can raise anything
        text = f"<{type(x).__name__} object>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def learner_line(tb, outermost: bool = False) -> int | None:
    """The line in the learner's file closest to where the error happened.

    For a timeout the outermost learner frame is the better guess: the alarm lands anywhere
    inside the endless loop's body, often in a function the loop calls.
    """
    lines = [frame.lineno for frame in traceback.extract_tb(tb)
             if os.path.abspath(frame.filename) == LEARNER_FILE]
    if not lines:
        return None
    return lines[0] if outermost else lines[-1]


def learner_frames(tb, limit: int = 4) -> list[str]:
    """The last few learner lines of a traceback, e.g. ['line 12: out = ...']."""
    lines = []
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == LEARNER_FILE:
            lines.append(f"line {frame.lineno} in {frame.name}: {(frame.line or '').strip()}")
    # collapse the repetition of infinite recursion to its last distinct entries
    unique: list[str] = []
    for text in reversed(lines):
        if text not in unique:
            unique.append(text)
        if len(unique) >= limit:
            break
    return list(reversed(unique))


def describe_exception(error: BaseException) -> dict:
    if isinstance(error, ProbeTimeout):
        message = "did not finish within the time limit (an endless loop?)"
    elif isinstance(error, RecursionError):
        message = "RecursionError: maximum recursion depth exceeded"
    elif isinstance(error, MemoryError):
        message = "MemoryError: the allocation exceeds the checker's memory limit"
    else:
        message = f"{type(error).__name__}: {error}"
    return {
        "exception": type(error).__name__,
        "message": message[:300],
        "line": learner_line(error.__traceback__, outermost=isinstance(error, ProbeTimeout)),
        "where": learner_frames(error.__traceback__),
    }


# --------------------------------------------------------------------------------------
# Loading the learner's file
# --------------------------------------------------------------------------------------

def load_module(cfg: dict, channel: Channel) -> types.ModuleType:
    path = cfg["path"]
    sys.path.insert(0, cfg["sys_path_root"])
    if cfg.get("cells"):
        return run_notebook_cells(path, cfg["cells"], channel, cfg["load_timeout"])
    if cfg.get("module_name"):  # a file inside a package: import it as package.module
        return importlib.import_module(cfg["module_name"])
    spec = importlib.util.spec_from_file_location("learner_engine", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["learner_engine"] = module
    spec.loader.exec_module(module)
    return module


def run_notebook_cells(path: str, cells: list, channel: Channel,
                       load_timeout: float) -> types.ModuleType:
    """Run a notebook's code cells one by one in one namespace, as Jupyter does.

    A cell that raises is reported (a warning: the lecture shows `2 * a` failing on purpose
    before it adds __rmul__) and the next cell runs. So is a cell that runs longer than a
    quarter of the load time (a training loop on a scalar engine takes minutes; the checks
    need only the class): it is stopped and the next cell runs. `path` holds all cells
    joined, and each cell is compiled at its own lines of it, so tracebacks and inspect
    point into that file. When the whole load's time is up, or on a KeyboardInterrupt,
    the load stops.
    """
    deadline = time.monotonic() + load_timeout
    cell_limit = load_timeout / 4
    module = types.ModuleType("learner_engine")
    module.__file__ = path
    sys.modules["learner_engine"] = module
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    for number, first, last in cells:
        text = "\n" * (first - 1) + "".join(lines[first - 1:last])
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise ProbeTimeout()
        limit = min(cell_limit, remaining)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            exec(compile(text, path, "exec"), module.__dict__)
        except ProbeTimeout as timeout:
            if limit == remaining:  # the whole load's time is up, not just this cell's
                raise
            info = describe_exception(timeout)
            channel.emit({"event": "result", "id": f"cell-{number}", "group": "load",
                          "status": "warn", "diagnosis": "notebook-cell-slow",
                          "detail": f"stopped after {limit:.0f} s", "line": info["line"],
                          "where": info["where"], "expression": f"run notebook cell {number}"})
            channel.emit({"event": "start", "id": "load"})
        except (Exception, SystemExit) as error:
            info = describe_exception(error)
            if isinstance(error, SyntaxError):  # its str() names our joined temporary file
                info.update(line=error.lineno, message=f"{type(error).__name__}: {error.msg}")
            channel.emit({"event": "result", "id": f"cell-{number}", "group": "load",
                          "status": "warn", "diagnosis": "notebook-cell-raised",
                          "detail": info["message"], "line": info["line"], "where": info["where"],
                          "expression": f"run notebook cell {number}"})
            channel.emit({"event": "start", "id": "load"})
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)  # the next cell sets its own
    return module


def find_value_class(module: types.ModuleType, wanted: str | None) -> tuple[type | None, str]:
    """By name (`Value` or the one asked for), else a class with data/grad and backward."""
    if wanted:
        cls = getattr(module, wanted, None)
        if isinstance(cls, type):
            return cls, f"class {wanted} (as asked)"
        return None, f"no class named {wanted!r} in the file"
    cls = getattr(module, "Value", None)
    if isinstance(cls, type):
        return cls, "class Value"
    candidates = []
    for name, obj in vars(module).items():
        if isinstance(obj, type) and callable(getattr(obj, "backward", None)):
            try:
                with time_limit(1.0):
                    sample = obj(2.0)
            except BaseException:
                continue
            if hasattr(sample, "data") and hasattr(sample, "grad"):
                candidates.append((name, obj))
    if candidates:
        name, cls = candidates[0]
        return cls, f"class {name} (it has data, grad and backward)"
    return None, "no class named Value, and no class with data, grad and backward()"


# --------------------------------------------------------------------------------------
# Expressions: one definition, evaluated on the learner's Values and on plain floats
# --------------------------------------------------------------------------------------

class FloatOps:
    """The reference: Python's math on plain floats."""

    exp = staticmethod(math.exp)
    log = staticmethod(math.log)
    tanh = staticmethod(math.tanh)

    @staticmethod
    def relu(x: float) -> float:
        return x if x > 0 else 0.0

    @staticmethod
    def sigmoid(x: float) -> float:
        return 1.0 / (1.0 + math.exp(-x))


class LearnerOps:
    """The learner's engine: o.exp(x) calls x.exp()."""

    def __getattr__(self, name: str) -> Callable[[Any], Any]:
        return lambda x: getattr(x, name)()


F, L = FloatOps(), LearnerOps()


def is_number(x: Any) -> bool:
    """int, float, or a numpy scalar; not bool, not a Value."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool)


def close(got: Any, want: float) -> bool:
    if not is_number(got):
        return False
    got = float(got)
    if math.isnan(want):
        return math.isnan(got)
    return abs(got - want) <= ATOL + RTOL * max(1.0, abs(want))


def central_differences(fn: Callable, xs: list[float]) -> list[float]:
    """d fn / d x_i ~ (fn(x + h e_i) - fn(x - h e_i)) / 2h, on plain floats."""
    grads = []
    for i, x in enumerate(xs):
        h = H_REL * max(1.0, abs(x))
        up, down = list(xs), list(xs)
        up[i], down[i] = x + h, x - h
        grads.append((fn(F, *up) - fn(F, *down)) / (2 * h))
    return grads


def _tidy(x: float) -> float:
    """An oracle value for display: central differences carry ~1e-10 of noise."""
    return float(f"{x:.7g}") if math.isfinite(x) else x


def stored_none_line(cls: type) -> int | None:
    """The line of `out._backward = _backward()` anywhere in the learner's class."""
    try:
        lines, start = inspect.getsourcelines(cls)
    except (TypeError, OSError):
        return None
    for offset, text in enumerate(lines):
        if re.search(r"_backward\s*=\s*_backward\s*\(\s*\)", text):
            return start + offset
    return None


def number_or_repr(x: Any) -> Any:
    if is_number(x):
        return float(x) if math.isfinite(x) else repr(float(x))
    return _safe_repr(x)


# capability -> the attribute the class must define for it
CAPABILITY = {
    "add": "__add__", "mul": "__mul__", "sub": "__sub__", "truediv": "__truediv__",
    "pow": "__pow__", "neg": "__neg__", "radd": "__radd__", "rmul": "__rmul__",
    "rsub": "__rsub__", "rtruediv": "__rtruediv__", "exp": "exp", "log": "log",
    "tanh": "tanh", "relu": "relu", "sigmoid": "sigmoid",
}


def has_capability(cls: type, cap: str) -> bool:
    attr = CAPABILITY[cap]
    return getattr(cls, attr, None) is not None and getattr(cls, attr, None) is not getattr(
        object, attr, None)


class Probe:
    """An expression on named inputs, with what a failure of it means."""

    def __init__(self, pid: str, group: str, text: str, fn: Callable, inputs: dict,
                 needs: tuple = (), op: str = "", on_mismatch: str = "",
                 depends: tuple = (), kind: str = "grad"):
        self.id, self.group, self.text, self.fn = pid, group, text, fn
        self.inputs, self.needs, self.op = inputs, needs, op
        self.on_mismatch = on_mismatch or (f"wrong-local-derivative:{op}" if op else "wrong-gradient")
        self.depends, self.kind = depends, kind

    def expression(self) -> str:
        values = ", ".join(f"{k} = {v:g}" for k, v in self.inputs.items())
        return f"{self.text}   with {values}" if values else self.text


def _chain50(o, a, b, use_tanh: bool):
    x = a
    for i in range(25):
        x = x * 0.9 + b * 0.1
        x = o.tanh(x) if use_tanh else x * 0.5 + 1.0
    return x


def _chain2000(o, a, b):
    x = a
    for _ in range(2000):
        x = x + b
    return x


def _diamond(o, a, b, c, d):
    t = a * b               # t feeds the output along a short path and a long one:
    return t + (t * c) * d  # a node must wait for all its consumers (topological order)


def _karpathy(o, x):
    z = 2 * x + 2 + x
    q = o.relu(z) + z * x
    h = o.relu(z * z)
    return h + q + q * x


def _neuron(o, x1, x2, w1, w2, b):
    return o.tanh(x1 * w1 + x2 * w2 + b)


def build_probes(cls: type) -> list[Probe]:
    a, b = 1.7, -0.6
    P = Probe
    unary_at = {"exp": 0.7, "log": 1.7, "tanh": 0.6, "relu": 0.8, "sigmoid": -0.4}
    walker = ("chain-2",)  # a failure here means the graph walk, not the op, is wrong
    probes = [
        P("add", "ops", "a + b", lambda o, a, b: a + b, {"a": a, "b": b}, ("add",), "add"),
        P("mul", "ops", "a * b", lambda o, a, b: a * b, {"a": a, "b": b}, ("mul",), "mul"),
        P("chain-2", "ops", "(a * b) + c", lambda o, a, b, c: (a * b) + c,
          {"a": a, "b": b, "c": 0.4}, ("add", "mul"), "", "wrong-topo-order", ("add", "mul")),
        P("pow-int", "ops", "a ** 3", lambda o, a: a ** 3, {"a": a}, ("pow",), "pow"),
        P("pow-float", "ops", "a ** 2.5", lambda o, a: a ** 2.5, {"a": a}, ("pow",), "pow"),
        P("pow-negative", "ops", "a ** -1", lambda o, a: a ** -1, {"a": a}, ("pow",), "pow"),
        P("add-number", "ops", "a + 2", lambda o, a: a + 2, {"a": a}, ("add",), "add"),
        P("mul-number", "ops", "a * 3.5", lambda o, a: a * 3.5, {"a": a}, ("mul",), "mul"),
        P("neg", "ops", "-a", lambda o, a: -a, {"a": a}, ("neg",), "neg",
          depends=("mul-number",) + walker),
        P("sub", "ops", "a - b", lambda o, a, b: a - b, {"a": a, "b": b}, ("sub",), "sub",
          depends=("add", "neg") + walker),
        P("truediv", "ops", "a / b", lambda o, a, b: a / b, {"a": a, "b": b}, ("truediv",),
          "truediv", depends=("mul", "pow-negative") + walker),
        P("sub-number", "ops", "a - 2", lambda o, a: a - 2, {"a": a}, ("sub",), "sub",
          depends=("add-number", "sub") + walker),
        P("truediv-number", "ops", "a / 4", lambda o, a: a / 4, {"a": a}, ("truediv",),
          "truediv", depends=("mul-number", "truediv") + walker),
        P("radd", "reflected", "2 + a", lambda o, a: 2 + a, {"a": a}, ("radd",), "radd",
          depends=("add-number",) + walker),
        P("rmul-int", "reflected", "3 * a", lambda o, a: 3 * a, {"a": a}, ("rmul",), "rmul",
          depends=("mul-number",) + walker),
        P("rmul-float", "reflected", "2.5 * a", lambda o, a: 2.5 * a, {"a": a}, ("rmul",),
          "rmul", depends=("mul-number",) + walker),
        P("rsub", "reflected", "2 - a", lambda o, a: 2 - a, {"a": a}, ("rsub",), "rsub",
          depends=("radd", "neg") + walker),
        P("rtruediv", "reflected", "4 / a", lambda o, a: 4 / a, {"a": a}, ("rtruediv",),
          "rtruediv", depends=("rmul-int", "pow-negative") + walker),
    ]
    for name, x in unary_at.items():
        probes.append(P(name, "ops", f"a.{name}()", lambda o, a, n=name: getattr(o, n)(a),
                        {"a": x}, (name,), name, depends=("chain-2",) if name == "sigmoid" else ()))
    probes.append(P("relu-negative", "ops", "a.relu()", lambda o, a: o.relu(a), {"a": -0.8},
                    ("relu",), "relu"))
    # accumulation: a node used twice must receive both contributions (+=, not =)
    probes += [
        P("reuse-add", "reuse", "a + a", lambda o, a: a + a, {"a": 3.0}, ("add",), "add",
          "grad-overwritten", ("add",) + walker),
        P("reuse-mul", "reuse", "a * a", lambda o, a: a * a, {"a": 3.0}, ("mul",), "mul",
          "grad-overwritten", ("mul",) + walker),
        P("reuse-mul-add", "reuse", "a * b + a", lambda o, a, b: a * b + a,
          {"a": 2.0, "b": 3.0}, ("add", "mul"), "mul", "grad-overwritten", ("add", "mul") + walker),
        P("reuse-pow", "reuse", "a ** 3 + a", lambda o, a: a ** 3 + a, {"a": 1.3},
          ("add", "pow"), "pow", "grad-assigned:pow", ("add", "pow-int") + walker),
    ]
    for name, x in unary_at.items():
        diag = "exp-grad-assigned" if name == "exp" else f"grad-assigned:{name}"
        probes.append(P(f"reuse-{name}", "reuse", f"a.{name}() + a",
                        lambda o, a, n=name: getattr(o, n)(a) + a, {"a": x},
                        ("add", name), name, diag, ("add", name) + walker))
    basic = ("add", "mul", "chain-2", "reuse-add", "reuse-mul", "reuse-mul-add")
    use_tanh = has_capability(cls, "tanh")
    probes += [
        P("diamond", "graph", "t = a*b;  y = t + (t*c)*d", _diamond,
          {"a": 2.0, "b": -3.0, "c": 1.5, "d": 0.5}, ("add", "mul"), "", "wrong-topo-order", basic),
        P("lecture-neuron", "graph", "(x1*w1 + x2*w2 + b).tanh()", _neuron,
          {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432},
          ("add", "mul", "tanh"), "", "wrong-topo-order", basic + ("tanh",)),
        P("micrograd-readme", "graph",
          "z = 2*x + 2 + x; q = z.relu() + z*x; h = (z*z).relu(); y = h + q + q*x", _karpathy,
          {"x": -4.0}, ("add", "mul", "radd", "rmul", "relu"), "", "wrong-topo-order",
          basic + ("relu", "relu-negative", "radd", "rmul-int")),
        P("chain-50", "graph",
          "x = a; 25 times: x = (x*0.9 + b*0.1).tanh()" if use_tanh
          else "x = a; 25 times: x = (x*0.9 + b*0.1)*0.5 + 1",
          lambda o, a, b: _chain50(o, a, b, use_tanh), {"a": 0.3, "b": -0.8},
          ("add", "mul") + (("tanh",) if use_tanh else ()), "", "wrong-topo-order",
          basic + (("tanh",) if use_tanh else ())),
        P("chain-2000", "graph", "x = a; 2000 times: x = x + b", _chain2000,
          {"a": 1.0, "b": 0.5}, ("add",), "", "wrong-topo-order", ("add", "reuse-add") + walker),
    ]
    return probes


# --------------------------------------------------------------------------------------
# Running one probe
# --------------------------------------------------------------------------------------

def _source_line_of(cls: type, op: str, pattern: str) -> int | None:
    """The line of `pattern` inside the learner's method for `op` (for a precise pointer)."""
    attr = CAPABILITY.get(op, op)
    method = getattr(cls, attr, None)
    try:
        lines, start = inspect.getsourcelines(method)
    except (TypeError, OSError):
        return None
    for offset, text in enumerate(lines):
        if re.search(pattern, text):
            return start + offset
    return None


def classify_exception(error: BaseException, probe: Probe, cls: type, stage: str) -> tuple[str, str]:
    """(diagnosis id, status) for an exception raised while running a probe."""
    text = str(error)
    if isinstance(error, ProbeTimeout):
        return "probe-timeout", "error"
    if isinstance(error, RecursionError):
        if probe.id == "chain-2000" and stage == "backward":  # deep but finite graph
            return "recursion-limit", "fail"
        return "infinite-recursion", "fail"
    if isinstance(error, MemoryError):
        return "memory-limit", "error"
    if isinstance(error, TypeError) and "'NoneType' object is not callable" in text:
        return "backward-stored-none", "fail"
    if isinstance(error, TypeError) and "unhashable type" in text:
        return "eq-without-hash", "fail"
    if stage == "forward" and isinstance(error, TypeError) and "unsupported operand" in text:
        if probe.op in ("radd", "rmul"):
            return f"missing-{probe.op}", "fail"
        if "NoneType" in text:  # an op that forgot `return out`
            return f"op-returns-non-value:{probe.op or probe.id}", "fail"
        if probe.op in ("rsub", "rtruediv"):
            return f"missing-{probe.op}", "missing"
    if stage == "forward" and isinstance(error, AttributeError) and re.search(
            r"'(int|float)' object has no attribute", text):
        return "number-not-wrapped", "fail"
    if probe.op == "pow" and isinstance(error, TypeError) and (
            "**" in text or "pow" in text or cls.__name__ in text):
        return "exponent-as-value", "fail"
    if stage == "forward" and isinstance(error, AttributeError) and probe.op in CAPABILITY:
        return f"missing-{probe.op}", "missing"
    if probe.op == "tanh" and isinstance(error, OverflowError):
        return "tanh-overflow", "fail"
    if stage == "backward":
        return "backward-raised", "fail"
    return f"exception-in-op:{probe.op or probe.id}", "fail"


# mistakes of their own, named even when an earlier probe failed too
KEEP_OWN_DIAGNOSIS = ("missing-", "rmul-returns-float", "radd-returns-float", "tanh-overflow",
                      "backward-stored-none", "backward-on-wrong-node", "infinite-recursion",
                      "recursion-limit", "eq-without-hash")


def run_probe(probe: Probe, cls: type, failed: dict) -> dict:
    """Run a probe; a failure that follows from an earlier failed probe is named after it."""
    record = _run_probe(probe, cls)
    if record["status"] == "fail" and record.get("line") is None and record.get("diagnosis"):
        record["line"] = op_line(cls, record["diagnosis"], probe.op)
    own = record.get("diagnosis") or ""
    if record["status"] in ("fail", "error") and not own.startswith(KEEP_OWN_DIAGNOSIS):
        for dep in probe.depends:
            if dep in failed:
                record["consequence_of"] = dep
                record["own_diagnosis"] = record["diagnosis"]
                record["diagnosis"] = failed[dep]
                break
    return record


def _run_probe(probe: Probe, cls: type) -> dict:
    record = _record(probe.id, probe.group, probe.expression(), op=probe.op, got=None,
                     expected=None)
    # __add__ without __radd__ is the textbook's pitfall 4, a failure: run it, show the TypeError
    lacking = [c for c in probe.needs if not has_capability(cls, c)
               and not (c in ("radd", "rmul") and has_capability(cls, c[1:]))]
    if lacking:
        return _missing(record, lacking[0], ", ".join(CAPABILITY[c] for c in lacking))
    names, xs = list(probe.inputs), list(probe.inputs.values())
    want = probe.fn(F, *xs)
    want_grads = central_differences(probe.fn, xs)
    record["expected"] = {"data": _tidy(want), "grads": {n: _tidy(g) for n, g in zip(names, want_grads)}}
    stage = "forward"
    try:
        leaves = [cls(x) for x in xs]
        before = [_backward_of(leaf) for leaf in leaves]
        out = probe.fn(L, *leaves)
        if not isinstance(out, cls):
            record["got"] = {"result": f"{_safe_repr(out)} (a {type(out).__name__})"}
            diag = ("rmul-returns-float" if probe.op == "rmul" else
                    "radd-returns-float" if probe.op == "radd" else
                    f"op-returns-non-value:{probe.op or probe.id}")
            return _fail(record, diag, f"the result is a {type(out).__name__}, not a {cls.__name__}:"
                         " the graph is cut here and backward() never reaches the inputs")
        record["got"] = {"data": number_or_repr(out.data)}
        if not close(out.data, want):
            return _fail(record, f"wrong-forward:{probe.op or probe.id}",
                         f"forward value {number_or_repr(out.data)}, expected {want:.6g}")
        if getattr(out, "_backward", 0) is None:
            line = _source_line_of(cls, probe.op, r"_backward\s*=\s*_backward\s*\(\s*\)") \
                or stored_none_line(cls)
            return _fail(record, "backward-stored-none",
                         "out._backward is None right after the op", line)
        if probe.group == "ops" and any(
                _backward_of(leaf) is not old for leaf, old in zip(leaves, before)):
            line = _source_line_of(cls, probe.op, r"(self|other)\._backward\s*=")
            return _fail(record, "backward-on-wrong-node",
                         "building the expression replaced an input's _backward", line)
        stage = "backward"
        out.backward()
    except BaseException as error:  # the learner's code can raise anything at all
        info = describe_exception(error)
        diag, status = classify_exception(error, probe, cls, stage)
        if diag == "backward-stored-none":
            info["line"] = _source_line_of(cls, probe.op, r"_backward\s*=\s*_backward\s*\(\s*\)") \
                or stored_none_line(cls) or info["line"]
        record.update(status=status, diagnosis=diag, detail=info["message"], line=info["line"],
                      where=info["where"], got=dict(record["got"] or {}, error=info["message"]))
        if status == "missing":
            record["detail"] = f"{info['message']} (the engine has no such op)"
        return record
    seed = out.grad
    grads = [leaf.grad for leaf in leaves]
    record["got"] = {"data": number_or_repr(out.data), "output_grad": number_or_repr(seed),
                     "grads": {n: number_or_repr(g) for n, g in zip(names, grads)}}
    if any(isinstance(g, cls) or not is_number(g) for g in grads + [seed]):
        diag = "exponent-as-value" if probe.op == "pow" else "grad-not-a-number"
        return _fail(record, diag, "a .grad holds a " + ", ".join(
            sorted({type(g).__name__ for g in grads + [seed] if not is_number(g)}))
            + " instead of a number")
    if seed == 0 and all(g == 0 for g in grads):
        return _fail(record, "no-seed-gradient", "after backward() every grad is 0, the output's too")
    if not close(seed, 1.0):
        return _fail(record, "wrong-seed-gradient", f"the output's grad is {seed!r}, not 1")
    if all(close(g, w) for g, w in zip(grads, want_grads)):
        return record
    diag = probe.on_mismatch
    if diag == "wrong-topo-order":
        walk = observe_backward_walk(probe, cls)
        if walk:
            diag, detail = walk
            return _fail(record, diag, detail)
    if probe.group == "reuse" and diag.startswith("grad-assigned") or diag == "exp-grad-assigned":
        # got exactly the op's own derivative: the `+ a` path's 1.0 was overwritten
        if not all(close(g, w - 1.0) for g, w in zip(grads, want_grads)):
            diag = f"wrong-local-derivative:{probe.op}"
    return _fail(record, diag, "gradients differ from central differences")


def observe_backward_walk(probe: Probe, cls: type) -> tuple[str, str] | None:
    """Rebuild the probe's graph, count and order the _backward calls backward() makes.

    Tells a walk that runs a node twice (no visited set) from one that runs a node before
    all of its consumers (not a reverse topological order). Needs `_prev` and a per-node
    `_backward` attribute, as in the lecture; otherwise returns None.
    """
    try:
        out = probe.fn(L, *[cls(x) for x in probe.inputs.values()])
        consumers: dict[int, list] = {}
        nodes, stack, seen = [], [out], {id(out)}
        while stack:
            node = stack.pop()
            nodes.append(node)
            for child in list(node._prev):
                consumers.setdefault(id(child), []).append(node)
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append(child)
        calls: list[int] = []
        for node in nodes:
            original = object.__getattribute__(node, "__dict__").get("_backward")
            if not callable(original):
                return None

            def counted(node_id=id(node), fn=original):
                calls.append(node_id)
                return fn()

            node.__dict__["_backward"] = counted
        out.backward()
    except BaseException:
        return None
    inner = [n for n in nodes if list(n._prev)]
    twice = [n for n in inner if calls.count(id(n)) > 1]
    if twice:
        return ("node-visited-twice",
                f"{len(twice)} node(s) had their _backward run more than once")
    position = {node_id: i for i, node_id in enumerate(calls)}
    for node in inner:
        for consumer in consumers.get(id(node), []):
            if id(node) in position and id(consumer) in position \
                    and position[id(node)] < position[id(consumer)]:
                return ("wrong-topo-order", f"a '{getattr(node, '_op', '?')}' node ran its "
                        f"_backward before the '{getattr(consumer, '_op', '?')}' node that uses it")
    return None


def _backward_of(node: Any) -> Any:
    """The node's _backward as stored (a property may build a new object per access)."""
    try:
        return object.__getattribute__(node, "__dict__").get("_backward")
    except AttributeError:  # __slots__ classes (ours): the op cannot have replaced it either
        return None


def _record(pid: str, group: str, expression: str, **fields: Any) -> dict:
    """A probe's result, passing until one of its checks says otherwise."""
    return {"id": pid, "group": group, "expression": expression, "status": "pass",
            "diagnosis": None, "detail": "", "line": None, **fields}


def _missing(record: dict, capability: str, needs: str) -> dict:
    """The probe cannot run: the engine lacks an op (a failure only under --require)."""
    record.update(status="missing", diagnosis=f"missing-{capability}", detail=f"needs {needs}")
    return record


def _fail(record: dict, diag: str, detail: str, line: int | None = None) -> dict:
    record.update(status="fail", diagnosis=diag, detail=detail, line=line)
    return record


GRAD_WRITE = r"\.grad\s*\+?=(?!=)"


def op_line(cls: type, diag: str, op: str) -> int | None:
    """Where in the learner's class the op behind a diagnosis is written."""
    base = diag.partition(":")[0]
    if base in ("wrong-local-derivative", "grad-assigned", "exp-grad-assigned",
                "grad-overwritten"):
        return _source_line_of(cls, op, GRAD_WRITE if base != "grad-overwritten"
                               else r"\.grad\s*=(?!=)") or _source_line_of(cls, op, r"def ")
    if base in ("exponent-as-value", "rmul-returns-float", "radd-returns-float",
                "op-returns-non-value", "wrong-forward"):
        return _source_line_of(cls, op, r"def ")
    return None


# --------------------------------------------------------------------------------------
# Structural probes: construction, mutable default, seed, backward twice, tanh range
# --------------------------------------------------------------------------------------

def probe_construct(cls: type) -> dict:
    record = _record("construct", "basics", f"{cls.__name__}(2.0)")
    v = cls(2.0)
    got = {"data": number_or_repr(getattr(v, "data", "<missing>")),
           "grad": number_or_repr(getattr(v, "grad", "<missing>"))}
    record.update(got=got, expected={"data": 2.0, "grad": 0.0})
    if not hasattr(v, "data") or not hasattr(v, "grad"):
        return _fail(record, "missing-data-or-grad", "the object needs .data and .grad")
    if v.data != 2.0:
        return _fail(record, "wrong-forward:construct", "data is not the number given")
    if v.grad != 0:
        return _fail(record, "grad-not-zero-initially", "a fresh Value's grad must be 0")
    return record


def probe_mutable_default(cls: type) -> dict:
    record = _record("default-children", "basics", f"inspect.signature({cls.__name__}.__init__)")
    try:
        params = inspect.signature(cls.__init__).parameters.values()
    except (TypeError, ValueError):
        record.update(status="pass", detail="signature not inspectable")
        return record
    for p in params:
        if isinstance(p.default, (list, dict, set, bytearray)):
            line = None
            try:
                lines, start = inspect.getsourcelines(cls.__init__)
                line = start
            except (TypeError, OSError):
                pass
            record.update(got={p.name: _safe_repr(p.default)}, expected={p.name: "()"})
            return _fail(record, "mutable-default-children",
                         f"parameter {p.name} defaults to a {type(p.default).__name__}", line)
    return record


def probe_backward_twice(cls: type, same_graph: bool) -> dict:
    pid = "backward-same-graph-twice" if same_graph else "backward-fresh-graphs"
    text = ("t = a*b; y = t + c; y.backward(); y.backward()" if same_graph else
            "(a*b).backward(); (a*b).backward()   (two fresh graphs, same leaves)")
    record = _record(pid, "backward", text + "   with a = 2, b = -3, c = 1")
    if not (has_capability(cls, "mul") and has_capability(cls, "add")):
        return _missing(record, "mul", "__add__, __mul__")
    a, b, c = cls(2.0), cls(-3.0), cls(1.0)
    if same_graph:
        y = a * b + c
        y.backward()
        y.backward()
    else:
        y = a * b
        y.backward()
        (a * b).backward()
    want = {"a": -6.0, "b": 4.0}  # PyTorch: leaf gradients accumulate, twice d/da(a*b) = 2b
    got = {"a": number_or_repr(a.grad), "b": number_or_repr(b.grad)}
    record.update(got=got, expected=want)
    if close(a.grad, -6.0) and close(b.grad, 4.0):
        return record
    if close(a.grad, -3.0) and close(b.grad, 2.0):
        record.update(status="fail", diagnosis="backward-resets-grads",
                      detail="the second backward() replaced the gradient instead of adding to it")
        return record
    if same_graph and close(a.grad, -9.0) and close(b.grad, 6.0):
        record.update(status="fail", diagnosis="stale-intermediate-grads",
                      detail="the second backward() reused the intermediate node's old grad")
        return record
    if y.grad == 0 and a.grad == 0 and b.grad == 0:
        return _fail(record, "no-seed-gradient", "every gradient is 0 after backward()")
    return _fail(record, "backward-twice-wrong", "unexpected gradients after two backward() calls")


def probe_tanh_range(cls: type) -> dict:
    record = _record("tanh-range", "ops", "a.tanh() for a in (30, -30, 400, -400)")
    if not has_capability(cls, "tanh"):
        return _missing(record, "tanh", "tanh")
    got = {}
    for x in (30.0, -30.0, 400.0, -400.0):
        try:
            value = cls(x).tanh().data
        except BaseException as error:
            info = describe_exception(error)
            record.update(got={f"tanh({x:g})": info["message"]},
                          expected={f"tanh({x:g})": math.tanh(x)}, where=info["where"])
            if isinstance(error, (OverflowError, ZeroDivisionError, ValueError)):
                return _fail(record, "tanh-overflow", info["message"], info["line"])
            raise
        got[f"tanh({x:g})"] = number_or_repr(value)
        if not (isinstance(value, (int, float)) and -1.0 <= value <= 1.0 and close(value, math.tanh(x))):
            record.update(got=got, expected={f"tanh({x:g})": math.tanh(x)})
            return _fail(record, "tanh-range", f"tanh({x:g}) gave {number_or_repr(value)}")
    record.update(got=got, expected={k: math.tanh(float(k[5:-1])) for k in got})
    return record


def probe_seed(cls: type) -> dict:
    record = _record("seed-gradient", "backward",
                     "y = a * b; y.backward(); y.grad   with a = 2, b = -3")
    if not has_capability(cls, "mul"):
        return _missing(record, "mul", "__mul__")
    a, b = cls(2.0), cls(-3.0)
    y = a * b
    y.backward()
    record.update(got={"y.grad": number_or_repr(y.grad), "a.grad": number_or_repr(a.grad)},
                  expected={"y.grad": 1.0, "a.grad": -3.0})
    if close(y.grad, 1.0):
        return record
    if y.grad == 0:
        return _fail(record, "no-seed-gradient", "backward() left the output's own grad at 0")
    return _fail(record, "wrong-seed-gradient", f"the output's grad is {number_or_repr(y.grad)}")


# --------------------------------------------------------------------------------------
# The learner's nn: MLP(3, [4, 4, 1]) as in the lecture
# --------------------------------------------------------------------------------------

XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]
ACTS = {"tanh": math.tanh, "relu": lambda x: x if x > 0 else 0.0, "linear": lambda x: x}


def reference_mlp(weights: list[float], x: list[float], hidden: str, output: str,
                  sizes=(3, 4, 4, 1)) -> float:
    """The lecture's MLP on floats; weights in the lecture's order (per neuron: w..., b)."""
    k = 0
    for layer in range(len(sizes) - 1):
        act = ACTS[output if layer == len(sizes) - 2 else hidden]
        outs = []
        for _ in range(sizes[layer + 1]):
            w = weights[k:k + sizes[layer]]
            bias = weights[k + sizes[layer]]
            k += sizes[layer] + 1
            outs.append(act(sum(wi * xi for wi, xi in zip(w, x)) + bias))
        x = outs
    return x[0]


def reference_loss(weights, hidden, output) -> float:
    return sum((reference_mlp(weights, x, hidden, output) - y) ** 2 for x, y in zip(XS, YS))


def _params(model) -> list:
    for name in ("parameters", "params"):
        method = getattr(model, name, None)
        if callable(method):
            return list(method())
    raise AttributeError("the MLP has no parameters() method")


def _repeated_parameter(params: list) -> str:
    """Where the first repeated object is, e.g. 'parameters()[4] is parameters()[0]'."""
    first: dict[int, int] = {}
    for i, p in enumerate(params):
        if id(p) in first:
            return f"parameters()[{i}] is parameters()[{first[id(p)]}]"
        first[id(p)] = i
    return ""


def _shared_neurons(mlp) -> str:
    """'layer 0 holds one Neuron object 4 times' when a layer repeats a neuron (if visible)."""
    for k, layer in enumerate(getattr(mlp, "layers", None) or []):
        neurons = getattr(layer, "neurons", None)
        if isinstance(neurons, list) and len(neurons) > len({id(n) for n in neurons}):
            return (f"layers[{k}].neurons holds {len(neurons)} entries but only "
                    f"{len({id(n) for n in neurons})} distinct Neuron object(s)")
    return ""


def nn_probes(module, cls, emit_start, emit) -> None:
    mlp_cls = getattr(module, "MLP", None)
    if not isinstance(mlp_cls, type):
        return
    emit_start("nn-parameter-count")
    record = _record("nn-parameter-count", "nn", "ps = MLP(3, [4, 4, 1]).parameters(); "
                     "len(ps), len({id(p) for p in ps})")
    try:
        mlp = mlp_cls(3, [4, 4, 1])
        params = _params(mlp)
    except BaseException as error:
        info = describe_exception(error)
        record.update(status="warn", diagnosis="nn-not-probed", detail=info["message"],
                      line=info["line"], where=info["where"])
        emit(record)
        return
    distinct = len({id(p) for p in params})
    record.update(got={"parameters": len(params), "distinct_objects": distinct},
                  expected={"parameters": 41, "distinct_objects": 41})
    if distinct < len(params):  # the count alone looks right: 41 entries, 14 objects
        _fail(record, "shared-parameters", "; ".join(filter(None, [
            f"{len(params)} parameters but only {distinct} distinct objects",
            _shared_neurons(mlp), _repeated_parameter(params)])))
        emit(record)
        return
    if len(params) != 41:
        _fail(record, "wrong-parameter-count", f"{len(params)} parameters instead of 41")
        emit(record)
        return
    emit(record)

    weights = [round(0.1 * (((7 * i) % 13) - 6), 2) for i in range(41)]
    for p, w in zip(params, weights):
        p.data = w
    emit_start("nn-forward")
    record = _record("nn-forward", "nn",
                     "MLP(3, [4, 4, 1]) with fixed weights, on x = [2.0, 3.0, -1.0]")
    out = mlp([cls(v) for v in XS[0]])
    got = getattr(out, "data", out)
    arch = None
    for hidden in ("tanh", "relu", "linear"):
        for output in ("tanh", "linear", "relu"):
            if close(got, reference_mlp(weights, XS[0], hidden, output)):
                arch = (hidden, output)
                break
        if arch:
            break
    record.update(got=number_or_repr(got),
                  expected={f"{h}/{o}": reference_mlp(weights, XS[0], h, o)
                            for h, o in (("tanh", "tanh"), ("relu", "linear"))})
    if arch is None:
        record.update(status="warn", diagnosis="nn-not-probed",
                      detail="the output matches no standard MLP (tanh/ReLU hidden layers, "
                             "tanh/linear output, lecture parameter order); training step skipped")
        emit(record)
        return
    record["detail"] = f"matches hidden={arch[0]}, output={arch[1]}"
    emit(record)

    emit_start("nn-training-step")
    record = _record("nn-training-step", "nn",
                     "loss = sum((mlp(x) - y)**2 over the lecture's 4 examples); "
                     "loss.backward(); p.data -= 0.05 * p.grad")
    for p in params:
        p.grad = 0.0
    loss = sum(((mlp([cls(v) for v in x]) - y) ** 2 for x, y in zip(XS, YS)), cls(0.0))
    loss.backward()
    want = central_differences(lambda o, *w: reference_loss(list(w), *arch), weights)
    grads = [p.grad for p in params]
    bad = [i for i, (g, w) in enumerate(zip(grads, want)) if not close(g, w)]
    for p in params:
        p.data -= 0.05 * p.grad
    new_loss = reference_loss([p.data for p in params], *arch)
    want_new = reference_loss([w - 0.05 * g for w, g in zip(weights, want)], *arch)
    record.update(got={"loss": number_or_repr(loss.data), "loss_after_step": new_loss,
                       "wrong_grads": len(bad)},
                  expected={"loss": reference_loss(weights, *arch), "loss_after_step": want_new,
                            "wrong_grads": 0})
    if bad:
        i = bad[0]
        _fail(record, "nn-wrong-gradient",
              f"{len(bad)} of 41 parameter gradients differ; parameter {i}: got "
              f"{number_or_repr(grads[i])}, expected {want[i]:.6g}")
    emit(record)

    if callable(getattr(mlp, "zero_grad", None)):
        emit_start("nn-zero-grad")
        record = _record("nn-zero-grad", "nn", "loss.backward(); mlp.zero_grad()")
        loss = sum(((mlp([cls(v) for v in x]) - y) ** 2 for x, y in zip(XS, YS)), cls(0.0))
        loss.backward()
        mlp.zero_grad()
        left = [p.grad for p in params if p.grad != 0]
        record.update(got={"nonzero_grads_after_zero_grad": len(left)},
                      expected={"nonzero_grads_after_zero_grad": 0})
        if left:
            line = None
            try:
                line = inspect.getsourcelines(type(mlp).zero_grad)[1]
            except (TypeError, OSError):
                pass
            _fail(record, "zero-grad-broken",
                  f"{len(left)} of {len(params)} gradients are not 0 after zero_grad()", line)
        emit(record)


# --------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------

def main(config_path: str) -> int:
    global LEARNER_FILE
    with open(config_path, encoding="utf-8") as f:
        cfg = json.load(f)
    LEARNER_FILE = os.path.abspath(cfg["path"])
    channel = Channel(cfg["results_path"])
    signal.signal(signal.SIGALRM, _on_alarm)
    limit_resources(cfg.get("memory_mb", 1024), cfg.get("cpu_seconds", 0))
    captured = CappedText()
    real_stdout = sys.stdout
    sys.stdout = sys.stderr = captured
    sys.setrecursionlimit(1000)
    stubs = StubFinder()
    sys.meta_path.append(stubs)
    # a notebook exported with `jupyter nbconvert --to script` calls these without importing
    import builtins
    for name in ("get_ipython", "display"):
        if not hasattr(builtins, name):
            setattr(builtins, name, _Anything())
    os.environ.setdefault("MPLBACKEND", "Agg")

    channel.emit({"event": "start", "id": "load"})
    try:
        with time_limit(cfg["load_timeout"]):
            module = load_module(cfg, channel)
    except BaseException as error:
        info = describe_exception(error)
        diag = {"ProbeTimeout": "load-timeout", "RecursionError": "load-recursion",
                "MemoryError": "load-memory", "ModuleNotFoundError": "import-error",
                "ImportError": "import-error", "SyntaxError": "syntax-error",
                "IndentationError": "syntax-error", "TabError": "syntax-error",
                }.get(type(error).__name__, "load-exception")
        if isinstance(error, SyntaxError) and os.path.abspath(error.filename or "") == LEARNER_FILE:
            info["line"] = error.lineno
        channel.emit({"event": "result", "id": "load", "group": "load", "status": "error",
                      "diagnosis": diag, "detail": info["message"], "line": info["line"],
                      "where": info["where"], "expression": "import the file"})
        channel.emit({"event": "end", "stdout": captured.text(), "stubbed": stubs.stubbed})
        return 0
    signal.signal(signal.SIGALRM, _on_alarm)  # in case the learner's file replaced it
    channel.emit({"event": "result", "id": "load", "group": "load", "status": "pass",
                  "diagnosis": None, "detail": "", "line": None, "expression": "import the file"})

    cls, how = find_value_class(module, cfg.get("class_name"))
    channel.emit({"event": "class", "found": cls is not None, "how": how,
                  "name": getattr(cls, "__name__", None)})
    if cls is None:
        channel.emit({"event": "end", "stdout": captured.text(), "stubbed": stubs.stubbed})
        return 0

    failed: dict[str, str] = {}
    timeout = cfg["probe_timeout"]

    timeouts = []

    def guarded(pid: str, group: str, expression: str, body: Callable[[], dict],
                depends: tuple = ()) -> None:
        if len(timeouts) >= 2:  # an engine that hangs would hang every probe: stop early
            channel.emit({"event": "result", "id": pid, "group": group, "status": "skipped",
                          "diagnosis": "not-run", "expression": expression, "line": None,
                          "detail": "not run: probes " + ", ".join(timeouts) + " timed out"})
            return
        channel.emit({"event": "start", "id": pid})
        try:
            with time_limit(timeout):
                record = body()
        except BaseException as error:
            info = describe_exception(error)
            probe = Probe(pid, group, expression, lambda o: None, {}, op="")
            diag, status = classify_exception(error, probe, cls, "structure")
            if diag == "backward-stored-none":
                info["line"] = stored_none_line(cls) or info["line"]
            record = {"id": pid, "group": group, "expression": expression, "status": status,
                      "diagnosis": diag, "detail": info["message"], "line": info["line"],
                      "where": info["where"]}
        if record["status"] in ("fail", "error", "warn"):
            for dep in depends:
                if dep in failed:
                    record.update(status="fail", consequence_of=dep, diagnosis=failed[dep],
                                  own_diagnosis=record.get("diagnosis"))
                    break
        if record["status"] in ("fail", "error") and record.get("diagnosis"):
            failed[pid] = record["diagnosis"]
        if record.get("diagnosis") == "probe-timeout" or (
                record.get("own_diagnosis") == "probe-timeout"):
            timeouts.append(pid)
        channel.emit(dict(record, event="result"))

    tasks = [("construct", "basics", f"{cls.__name__}(2.0)", lambda: probe_construct(cls)),
             ("default-children", "basics", "signature", lambda: probe_mutable_default(cls)),
             ("seed-gradient", "backward", "y = a * b; y.backward()", lambda: probe_seed(cls))]
    for probe in build_probes(cls):
        tasks.append((probe.id, probe.group, probe.expression(),
                      lambda p=probe: run_probe(p, cls, failed)))
        if probe.id == "tanh":
            tasks.append(("tanh-range", "ops", "a.tanh() for large a", lambda: probe_tanh_range(cls)))
    engine_basics = ("add", "mul", "chain-2", "reuse-add", "reuse-mul", "reuse-mul-add")
    tasks += [("backward-fresh-graphs", "backward", "(a*b).backward() twice",
               lambda: probe_backward_twice(cls, same_graph=False), engine_basics),
              ("backward-same-graph-twice", "backward", "y.backward() twice",
               lambda: probe_backward_twice(cls, same_graph=True), engine_basics)]
    channel.emit({"event": "plan", "ids": [t[0] for t in tasks]})
    for task in tasks:
        guarded(*task)

    def emit_start(pid: str) -> None:
        channel.emit({"event": "start", "id": pid})

    def emit(record: dict) -> None:
        if record["status"] in ("fail", "error") and failed:
            # the nn is built on the engine: an engine failure explains an nn failure
            first = next(iter(failed))
            record.update(consequence_of=first, own_diagnosis=record.get("diagnosis"),
                          diagnosis=failed[first])
        channel.emit(dict(record, event="result"))

    if timeouts:
        channel.emit({"event": "end", "stdout": captured.text(), "stubbed": stubs.stubbed})
        return 0
    channel.emit({"event": "start", "id": "nn"})
    try:
        with time_limit(max(timeout * 3, 5.0)):
            nn_probes(module, cls, emit_start, emit)
    except BaseException as error:
        info = describe_exception(error)
        diag, status = classify_exception(error, Probe("nn", "nn", "", None, {}), cls, "backward")
        emit({"id": "nn-error", "group": "nn", "status": status,
              "diagnosis": diag if diag != "backward-raised" else "nn-exception",
              "detail": info["message"], "line": info["line"], "where": info["where"],
              "expression": "MLP(3, [4, 4, 1]) probes"})
    channel.emit({"event": "end", "stdout": captured.text(), "stubbed": stubs.stubbed})
    sys.stdout = real_stdout
    return 0


if __name__ == "__main__":
    code = main(sys.argv[1])
    # skip atexit handlers and non-daemon threads the learner's file may have started
    os._exit(code)
