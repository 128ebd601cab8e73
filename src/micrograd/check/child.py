"""The program the checker's child process runs: load the learner's file, answer requests.

    python -I -B child.py REQUEST_FD REPORT_FD

Standard library only, and no `micrograd` import: it runs beside the learner's code, which
may define its own `micrograd`. It decides nothing. For each request the parent sends (one
JSON line on REQUEST_FD) it writes exactly one report (one JSON line on REPORT_FD, an
inherited pipe, not stdout): what the learner's class did -- values, gradients, the
exception and its learner line, the order of `_backward` calls. Expected values and every
comparison live in the parent, which also validates each report (schema, request id, nonce,
this process's pid), so neither builtins tampering nor hand-written lines can turn into a
pass.

The probe expressions are small programs in a Python subset (`run_program`); the parent
imports this module to run the same programs on plain floats for its reference.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import functools
import inspect
import json
import os
import signal
import sys
import time
import traceback
import types
from collections.abc import Callable
from typing import Any

# Bind the builtins this file uses as module globals now, before any learner code runs:
# a global is found before a builtin, so `builtins.abs = ...` in the learner's file can't
# reach this code. (Not a security boundary; it keeps an accident or a prank out.)
globals().update({name: value for name, value in vars(builtins).items()
                  if not name.startswith("_")})


def _load_helpers(filename: str = "childlib.py") -> Any:
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), filename)
    spec = importlib.util.spec_from_file_location(f"_micrograd_check_{filename[:-3]}", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

# The probe-program language and the helpers that read a learner's objects live in
# childlib.py (standard library only too), loaded by path under a private name: a learner's
# own module called `childlib` can neither shadow it nor be shadowed by it.
_HELPERS = _load_helpers()
_CONFINE = _load_helpers("confine.py")  # namespaces, capabilities, limits
(parse_program, run_program, plain, number, safe_repr, safe_str, instance_state, is_two,
 is_zero, is_import, future_flags, source_span, own_attr, instrument_walk, summarize_walk,
 parameters_of, repeated_parameter, shared_neurons, graph_names, python_lines,
 is_method_name) = (
    getattr(_HELPERS, name) for name in (
        "parse_program", "run_program", "plain", "number", "safe_repr", "safe_str",
        "instance_state", "is_two", "is_zero", "is_import", "future_flags", "source_span",
        "own_attr", "instrument_walk", "summarize_walk", "parameters_of", "repeated_parameter",
        "shared_neurons", "graph_names", "python_lines", "is_method_name"))
LEAF_ARGS: tuple[tuple[Any, ...], ...] = ((), ((),), ((), ""))
ARITHMETIC = ("__add__", "__mul__", "__matmul__", "__sub__")
TENSOR_ONLY = ("__matmul__", "sum", "mean", "reshape", "T")
(BINARY_TENSOR_OPS, BACKWARD_NAMES, TENSOR_ATTRS, CAPABILITY_ATTRS) = (
    _HELPERS.BINARY_TENSOR_OPS, _HELPERS.BACKWARD_NAMES, _HELPERS.TENSOR_ATTRS,
    _HELPERS.CAPABILITY_ATTRS)


# --------------------------------------------------------------------------------------
# Reporting: one JSON line per request on the private pipe, tagged with nonce and pid.
# --------------------------------------------------------------------------------------

_write, _read, _getpid, _exit = os.write, os.read, os.getpid, os._exit
_dumps, _loads = json.dumps, json.loads
_setitimer, _signal = signal.setitimer, signal.signal
_extract_tb = traceback.extract_tb
MAX_TEXT = 300


def has_arithmetic(cls: type) -> bool:
    return any(callable(getattr(cls, op, None)) for op in ARITHMETIC)


class ProbeTimeout(BaseException):
    """Raised by the alarm; a BaseException so a learner's `except Exception` can't eat it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise ProbeTimeout()


class Child:
    """The request loop. Holds the learner's file path and module: no mutable globals."""

    def __init__(self, request_fd: int, report_fd: int) -> None:
        self.request_fd, self.report_fd = request_fd, report_fd
        self.pid = _getpid()
        self.buffer = b""
        self.learner_file = ""
        self.root = ""
        self.module: Any = None  # the learner's module and class: anything at all
        self.cls: Any = None
        self.api: dict[str, Any] = {}  # the parent's --backward/--data/--grad overrides
        self.op_methods: list[str] = []  # the registry's op methods to look for (exp, ...)
        self.data_attr, self.grad_attr, self.kind = "data", "grad", "scalar"
        self.backward_entry: dict[str, str] | None = {"kind": "method", "name": "backward"}
        self.prev_attr, self.step_attr = "_prev", "_backward"  # the graph's attribute names
        self.leaf_args: tuple[Any, ...] = ()  # what the constructor needs after the number
        self.from_array = False  # the constructor takes only numpy arrays
        self.grad_store = "grad"  # the attribute behind the gradient (a grad() method's too)
        self.shadowed: str | None = None  # an instance attribute that hides the backward method

    # -- channel --------------------------------------------------------------------

    def receive(self) -> dict[str, Any]:
        while b"\n" not in self.buffer:
            chunk = _read(self.request_fd, 1 << 16)
            if not chunk:
                self.stop()
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        request: dict[str, Any] = _loads(line)
        return request

    def send(self, request: dict[str, Any], body: dict[str, Any]) -> None:
        self.stop_if_forked()
        message = dict(body, id=request["id"], nonce=request["nonce"], pid=self.pid)
        data = (_dumps(message, default=safe_repr) + "\n").encode("utf-8", "replace")
        while data:
            data = data[_write(self.report_fd, data):]

    def stop_if_forked(self) -> None:
        """A copy made by the learner's os.fork() must not answer: only the original may."""
        if _getpid() != self.pid:
            _exit(0)

    def stop(self) -> None:
        _exit(0)

    # -- learner lines -----------------------------------------------------------------

    def learner_frames(self, tb: Any) -> list[int]:
        return [f.lineno for f in _extract_tb(tb)
                if os.path.abspath(f.filename) == self.learner_file and f.lineno is not None]

    def describe(self, error: BaseException, outermost: bool = False) -> dict[str, Any]:
        """An exception as data: its type (and bases), message, learner line and frames."""
        lines = self.learner_frames(error.__traceback__)
        frames: list[str] = []
        for f in _extract_tb(error.__traceback__):
            if os.path.abspath(f.filename) == self.learner_file:
                text = f"line {f.lineno} in {f.name}: {(f.line or '').strip()}"
                frames = [t for t in frames if t != text] + [text]
        line = (lines[0] if outermost else lines[-1]) if lines else None
        if isinstance(error, SyntaxError) \
                and os.path.abspath(error.filename or "") == self.learner_file:
            line = error.lineno
            message = f"{type(error).__name__}: {error.msg}"
        elif isinstance(error, ProbeTimeout):
            message = "did not finish within the time limit (an endless loop?)"
        else:
            message = f"{type(error).__name__}: {safe_str(error)}"
        # `line` is where it raised (innermost learner frame); `statement`, the top-level
        # statement (or cell line) it raised from (outermost)
        return {"type": type(error).__name__,
                "types": [t.__name__ for t in type(error).__mro__][:8],
                "message": message[:MAX_TEXT], "line": line, "where": frames[-4:],
                "statement": lines[0] if lines else line}

    # -- requests ----------------------------------------------------------------------

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        """The requests this child answers (ninja_child.py adds its own)."""
        return {"load": self.load, "probe": self.probe, "construct": self.construct,
                "signature": self.signature, "nn": self.nn, "tensor": self.tensor}

    def serve(self) -> None:
        handlers = self.handlers()
        while True:
            request = self.receive()
            if request.get("do") == "stop":
                self.stop()
            handler = handlers[request["do"]]
            _signal(signal.SIGALRM, _on_alarm)  # in case the learner's code replaced it
            try:
                body = handler(request)
            except BaseException as error:  # anything the learner's code raised escaping
                _setitimer(signal.ITIMER_REAL, 0)
                body = {"error": self.describe(error, isinstance(error, ProbeTimeout))}
            self.send(request, body)

    def limited(self, seconds: float, fn: Callable[[], Any]) -> Any:
        _setitimer(signal.ITIMER_REAL, seconds)
        try:
            return fn()
        finally:
            _setitimer(signal.ITIMER_REAL, 0)

    # -- load: top-level statements (or notebook cells) one at a time, like cells --------

    def load(self, request: dict[str, Any]) -> dict[str, Any]:
        self.learner_file = os.path.abspath(request["path"])
        self.root = os.path.abspath(request["root"])
        self.op_methods = [str(m) for m in request.get("methods") or ()]
        self.api = {k: v for k, v in dict(request.get("api") or {}).items() if v}
        sys.path.insert(0, request["root"])
        name = request["module_name"]
        if "." in name:  # inside a package: Python imports the package first, as here
            package = name.rpartition(".")[0]
            # any failure (even SystemExit): the statements below show it where it happens
            with contextlib.suppress(BaseException):
                self.limited(request["load_timeout"], lambda: __import__(package))
            if isinstance(sys.modules.get(name), types.ModuleType):  # the package imported it
                self.module = sys.modules[name]
                self.cls, how = self.find_class(request.get("class_name"))
                return {"failures": [], "units": 0, "class": self.class_info(how)}
        module = types.ModuleType(name)
        module.__file__ = request["path"]
        module.__package__ = name.rpartition(".")[0]
        module.__dict__["__builtins__"] = builtins  # the real ones, not this file's copies
        sys.modules[name] = module
        self.module = module
        with open(request["path"], "rb") as file:
            source = file.read()
        failures: list[dict[str, Any]] = []
        deadline = time.monotonic() + request["load_timeout"]
        per_unit = request["load_timeout"] / 4
        units = self.units(source, request.get("cells"), failures)
        flags = 0
        for number, code_or_tree in units:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                failures.append({"unit": number, "timeout": "total", "error": None})
                break
            # an import (torch takes seconds on a busy machine) may use what is left
            limit = remaining if is_import(code_or_tree) else min(per_unit, remaining)
            _signal(signal.SIGALRM, _on_alarm)  # a statement before may have replaced it
            try:
                tree = code_or_tree if isinstance(code_or_tree, ast.Module) \
                    else ast.parse(code_or_tree, request["path"])  # a cell: may not parse
                flags |= future_flags(tree)  # `from __future__` carries on, as in IPython
                code = compile(tree, request["path"], "exec", flags=flags, dont_inherit=True)
                self.limited(limit, functools.partial(exec, code, module.__dict__))
            except ProbeTimeout as error:
                info = self.describe(error, outermost=True)
                failures.append({"unit": number, "timeout": "total" if limit == remaining
                                 else "unit", "seconds": limit, "error": info})
            except BaseException as error:  # SystemExit, KeyboardInterrupt too: a cell's error
                failures.append({"unit": number, "error": self.describe(error)})
            self.stop_if_forked()
        self.cls, how = self.find_class(request.get("class_name"))
        return {"failures": failures, "units": len(units), "class": self.class_info(how)}

    def units(self, source: bytes, cells: list[Any] | None,
              failures: list[Any]) -> list[tuple[int, Any]]:
        """(number, thing to compile): a notebook's cells by line range, else each statement."""
        if cells:
            lines = python_lines(source.decode("utf-8"), keepends=True)
            return [(n, "\n" * (first - 1) + "".join(lines[first - 1:last]))
                    for n, first, last in cells]
        tree = ast.parse(source, self.learner_file)  # the parent parsed it first: it parses
        return [(stmt.lineno, ast.Module(body=[stmt], type_ignores=[])) for stmt in tree.body]

    def find_class(self, wanted: str | None) -> tuple[type | None, str]:
        module = self.module
        if wanted:
            cls = getattr(module, wanted, None)
            if isinstance(cls, type):
                self.discover(cls)
                return cls, f"class {wanted} (as asked)"
            return None, f"no class named {wanted!r} in the file"
        # an engine has arithmetic and a backward entry: a helper class holding a number
        # (`ScaleBackwardFn(2.0)` with a `propagate` method) is not one; a class without any
        # arithmetic (a stub) only when nothing else holds a number. Classes defined in the
        # file before imported ones (`from engine import Value`).
        own = [obj for obj in list(vars(module).values()) if isinstance(obj, type)
               and not issubclass(obj, BaseException) and obj.__module__ != "builtins"]
        own.sort(key=lambda c: (not has_arithmetic(c), c.__module__ != module.__name__,
                                c.__name__ != "Value", c.__name__ != "Tensor"))
        fallback: type | None = None
        for cls in own:
            if self.discover(cls):
                if self.backward_entry is not None and has_arithmetic(cls):
                    return cls, f"class {cls.__name__} (it has arithmetic, a number, its " \
                                "gradient and a backward entry)"
                fallback = fallback or cls
        if fallback is not None and self.discover(fallback):
            return fallback, f"class {fallback.__name__} (it holds a number and its gradient)"
        return None, ("no class in the file with arithmetic (__add__, __mul__) that takes a "
                      "number or an array and keeps it with a gradient (like Value(2.0).data "
                      "and .grad)")

    def sample(self, cls: type) -> Any:
        """cls(2.0) (with the extra arguments a constructor without defaults needs), else,
        when the file uses numpy, cls(np.array(2.0)): a Tensor that takes only arrays."""
        for extra in LEAF_ARGS:
            try:
                made = self.limited(1.0, functools.partial(cls, 2.0, *extra))
                self.leaf_args, self.from_array = extra, False
                return made
            except BaseException:
                continue
        numpy = sys.modules.get("numpy")
        if numpy is not None:
            for array in (numpy.array(2.0), numpy.array([2.0])):
                try:
                    made = self.limited(1.0, functools.partial(cls, array))
                    self.leaf_args, self.from_array = (), True
                    return made
                except BaseException:
                    continue
        raise LookupError(cls)

    def discover(self, cls: type) -> bool:
        """The data and grad attributes and the backward entry of `cls` (overrides first)."""
        api = self.api
        try:
            sample = self.sample(cls)
            state = instance_state(sample)
        except BaseException:
            return False
        numeric = {k: v for k, v in state.items() if not callable(v)}
        data = api.get("data") or next(
            (k for k in ("data", "value", "val", "x", "v") if is_two(numeric.get(k))),
            next((k for k, v in numeric.items() if is_two(v)), None))
        grad = api.get("grad") or next(  # None before the first backward, as in PyTorch
            (k for k in ("grad", "g", "gradient", "dx")
             if k in numeric and (numeric[k] is None or is_zero(numeric[k]))),
            None) or self.grad_method(cls, sample) or next(
            (k for k, v in numeric.items() if k != data and is_zero(v)), None)
        if data is None or grad is None:
            return False
        self.data_attr, self.grad_attr = data, grad
        # where a grad() method keeps the number (for pointing at the lines that write it)
        self.grad_store = next((k for k, v in numeric.items() if k != data and is_zero(v)),
                               grad) if grad.startswith("call:") else grad
        # an ndarray alone does not make a Tensor engine (a scalar Value may keep a 0-d
        # array): it also needs an array op
        array_data = type(numeric.get(data)).__name__ == "ndarray"
        self.kind = "tensor" if array_data and (self.from_array or any(
            getattr(cls, op, None) is not None for op in TENSOR_ONLY)) else "scalar"

        names = [api["backward"]] if api.get("backward") else list(BACKWARD_NAMES) + ["grad"]
        self.shadowed = None
        for name in names:
            method = getattr(cls, name, None)
            if callable(method) and name != grad and f"call:{name}" != grad:
                self.backward_entry = {"kind": "method", "name": name}
                if name in state:  # `self.backward = lambda: None` in __init__ hides it
                    self.shadowed = name
                return True
        for name, obj in list(vars(self.module).items()):
            if isinstance(obj, types.FunctionType) and obj.__module__ == self.module.__name__ \
                    and (name == api.get("backward") or (not api.get("backward") and any(
                        w in name.lower() for w in ("backward", "backprop", "back_prop")))):
                self.backward_entry = {"kind": "function", "name": name}
                return True
        self.backward_entry = None  # a class without backward: its own diagnosis
        return True

    def grad_method(self, cls: type, sample: Any) -> str | None:
        """`v.grad()` returning 0 (or None) on a fresh leaf: the gradient is read by a call."""
        for name in ("grad", "gradient", "get_grad"):
            if isinstance(getattr(cls, name, None), types.FunctionType):
                try:
                    value = self.limited(1.0, getattr(sample, name))
                except BaseException:
                    continue
                if value is None or is_zero(value):
                    return f"call:{name}"
        return None

    def read_grad(self, node: Any) -> Any:
        """The gradient of a node: an attribute, or the value of `node.NAME()` (call:NAME)."""
        name = self.grad_attr
        if name.startswith("call:"):
            return getattr(node, name[len("call:"):])()
        return getattr(node, name, None)

    def make(self, value: Any) -> Any:
        """A leaf of the learner's class holding `value` (as an array if it takes only those)."""
        if self.from_array:
            value = sys.modules["numpy"].asarray(value, dtype="float64")
        return self.cls(value, *self.leaf_args)

    def run_backward(self, out: Any) -> Any:
        entry = self.backward_entry
        if entry is None:
            raise AttributeError("the class has no backward entry")
        if entry["kind"] == "function":
            return getattr(self.module, entry["name"])(out)
        if self.shadowed:  # the class's own method, past the instance attribute hiding it
            return getattr(type(out), entry["name"])(out)
        return getattr(out, entry["name"])()

    def call(self, obj: Any, name: str) -> Any:
        """A probe program's method call; `backward` is the engine's own backward entry."""
        return self.run_backward(obj) if name == "backward" else getattr(obj, name)()

    def class_info(self, how: str) -> dict[str, Any]:
        cls = self.cls
        if cls is None:
            return {"found": False, "how": how, "name": None, "methods": {}}
        methods: dict[str, list[int] | None] = {}
        op_methods = tuple(name for name in self.op_methods if is_method_name(name))
        for attr in CAPABILITY_ATTRS + op_methods + ("__init__",) + TENSOR_ATTRS:
            value = getattr(cls, attr, None)
            if value is None or value is getattr(object, attr, None):
                continue
            methods[attr] = source_span(getattr(value, "fget", value), self.learner_file)
        if self.kind == "tensor":
            for name, obj in list(vars(self.module).items()):
                if isinstance(obj, types.FunctionType) and name in TENSOR_ATTRS \
                        and name not in methods:  # cross_entropy(logits, targets)
                    methods[name] = source_span(obj, self.learner_file)
                elif isinstance(obj, type) and obj is not cls:  # class Add: forward, backward
                    step_back = getattr(obj, "backward", None)
                    if callable(step_back) and callable(getattr(obj, "forward", None)):
                        methods["class:" + name.lower()] = source_span(step_back,
                                                                       self.learner_file)
        entry = self.backward_entry
        helpers: list[list[Any]] = []
        if entry is not None:
            owner = self.module if entry["kind"] == "function" else cls
            found = getattr(owner, entry["name"], None)
            methods["backward"] = source_span(found, self.learner_file) if found else None
            helpers = self.helpers_of(found)
        return {"found": True, "how": how, "name": cls.__name__, "methods": methods,
                "shadowed": self.shadowed, "grad_store": self.grad_store, "helpers": helpers,
                "first_line": self.first_line(cls),
                "mlp": isinstance(getattr(self.module, "MLP", None), type),
                "api": {"class": cls.__name__, "backward": entry, "data": self.data_attr,
                        "grad": self.grad_attr, "kind": self.kind}}

    def first_line(self, cls: type) -> int | None:
        """The first line, in the learner's file, of a function written in the class body."""
        lines = [span[0] for value in list(vars(cls).values())
                 if (span := source_span(getattr(value, "fget", value), self.learner_file))]
        return min(lines) if lines else None

    def helpers_of(self, fn: Any) -> list[list[Any]]:
        """[file, first, last] of the functions `fn` calls by a global name that live in the
        learner's other files (a topological sort kept in graph.py), paths relative to root."""
        code = getattr(getattr(fn, "__func__", fn), "__code__", None)
        if code is None:
            return []
        names: list[str] = []
        codes = [code]
        while codes:  # the nested functions' names too (def visit(...) inside backward)
            current = codes.pop()
            names += current.co_names
            codes += [c for c in current.co_consts if isinstance(c, types.CodeType)]
        found: list[list[Any]] = []
        globals_ = getattr(fn, "__globals__", None) or vars(self.module)
        for name in dict.fromkeys(names):
            helper = globals_.get(name)
            helper_code = getattr(helper, "__code__", None)
            if not isinstance(helper, types.FunctionType) or helper_code is None:
                continue
            path = os.path.abspath(helper_code.co_filename)
            if path == self.learner_file or not path.startswith(self.root + os.sep):
                continue
            lines = [line for _, _, line in helper_code.co_lines() if line is not None]
            found.append([os.path.relpath(path, self.root).replace(os.sep, "/"),
                          helper_code.co_firstlineno, max(lines + [helper_code.co_firstlineno])])
        return found[:8]

    # -- probes ------------------------------------------------------------------------

    def probe(self, request: dict[str, Any]) -> dict[str, Any]:
        body = parse_program(request["program"])
        runs: list[dict[str, Any]] = []

        def all_runs() -> None:  # one alarm for the whole request; a run reports its timeout
            for inputs in request["points"]:
                runs.append(self.one_run(body, inputs, request))
                if runs[-1].get("error") is not None:
                    break

        self.limited(request["timeout"], all_runs)
        return {"runs": runs}

    def one_run(self, body: list[Any], inputs: dict[str, Any],
                request: dict[str, Any]) -> dict[str, Any]:
        cls = self.cls
        run: dict[str, Any] = {"stage": "forward", "error": None}
        try:
            leaves = {name: self.make(float(x)) for name, x in inputs.items()}
            step = self.step_attr
            before = {name: own_attr(leaf, step) for name, leaf in leaves.items()}
            out = run_program(body, dict(leaves), self.call)
            run["result_type"] = type(out).__name__
            if not isinstance(out, cls):
                run["result"] = safe_repr(out)
                return run
            run["data"] = number(getattr(out, self.data_attr, None))
            if request.get("backward_calls", 1) == 0:
                return run
            run["backward_is_none"] = getattr(out, step, 0) is None
            run["input_backward_replaced"] = any(
                own_attr(leaf, step) is not before[name] for name, leaf in leaves.items())
            if request.get("walk"):  # the children and closure names, read off this node
                self.prev_attr, self.step_attr = graph_names(out, cls)
            calls = instrument_walk(out, self.prev_attr, self.step_attr) \
                if request.get("walk") else None
            run["stage"] = "backward"
            for _ in range(request.get("backward_calls", 1)):
                self.run_backward(out)
            run["stage"] = "done"
            run["seed"] = number(self.read_grad(out))
            run["grads"] = {name: number(self.read_grad(leaf))
                            for name, leaf in leaves.items()}
            if calls is not None:
                run["walk"] = summarize_walk(*calls, prev=self.prev_attr)
        except BaseException as error:
            run["error"] = self.describe(error, isinstance(error, ProbeTimeout))
        return run

    def tensor(self, request: dict[str, Any]) -> dict[str, Any]:
        """Steps of array ops on Tensor leaves (nested lists), then backward(): the loss and
        every leaf's grad as nested lists. Ops come from a fixed table, never from text."""
        run: dict[str, Any] = {"stage": "forward", "error": None}

        def steps() -> None:
            env = {name: self.make(value) for name, value in request["inputs"].items()}
            leaves = dict(env)
            out = None
            for target, op, args, params in request["steps"]:
                out = env[target] = self.tensor_op(op, [env[a] for a in args], params)
            run["data"] = plain(getattr(out, self.data_attr, None))
            if request.get("backward_calls", 1) == 0:
                run["stage"] = "done"
                return
            run["stage"] = "backward"
            for _ in range(request.get("backward_calls", 1)):
                self.run_backward(out)
            run["stage"] = "done"
            run["grads"] = {name: plain(self.read_grad(leaf)) for name, leaf in leaves.items()}

        try:
            self.limited(request["timeout"], steps)
        except BaseException as error:
            run["error"] = self.describe(error, isinstance(error, ProbeTimeout))
        return {"runs": [run]}

    def tensor_op(self, op: str, args: list[Any], params: dict[str, Any]) -> Any:
        a = args[0]
        if op in BINARY_TENSOR_OPS:
            return BINARY_TENSOR_OPS[op](a, args[1])
        if op == "T":
            return a.T
        if op == "reshape":
            return a.reshape(*[int(n) for n in params["shape"]])
        if op in ("sum", "mean"):  # only the arguments asked for: `def sum(self)` is fine
            given = {k: params[k] for k in ("axis", "keepdims") if params.get(k) is not None}
            return getattr(a, op)(**given)
        extra: list[Any] = []
        if op == "cross_entropy":
            targets: list[Any] = [int(t) for t in params["targets"]]
            if params.get("one_hot"):  # targets as rows of 0/1, (N, C)
                classes = int(params["classes"])
                targets = [[1.0 if j == t else 0.0 for j in range(classes)] for t in targets]
            numpy = sys.modules.get("numpy")  # the learner's file imported it, not this one
            extra = [numpy.asarray(targets) if numpy is not None else targets]
        if op not in TENSOR_ATTRS + ("relu", "tanh", "exp", "log"):
            raise ValueError(f"not a tensor op: {op!r}")
        method = getattr(a, op, None)
        if callable(method):
            return method(*extra)
        return getattr(self.module, op)(a, *extra)  # a module function: cross_entropy(x, t)

    def construct(self, request: dict[str, Any]) -> dict[str, Any]:
        v = self.limited(request["timeout"], lambda: self.make(2.0))
        data, grad = self.data_attr, self.grad_attr
        has_grad = grad.startswith("call:") or hasattr(v, grad)
        return {"has_data": hasattr(v, data), "has_grad": has_grad,
                "data": number(getattr(v, data, None)),
                "grad": number(self.read_grad(v) if has_grad else None)}

    def signature(self, request: dict[str, Any]) -> dict[str, Any]:
        try:
            params = list(inspect.signature(self.cls.__init__).parameters.values())
        except (TypeError, ValueError):
            return {"mutable": []}
        return {"mutable": [[p.name, type(p.default).__name__, safe_repr(p.default)]
                            for p in params if isinstance(p.default, (list, dict, set, bytearray))]}

    # -- the learner's MLP: observations only; the parent has the reference MLP ----------

    def nn(self, request: dict[str, Any]) -> dict[str, Any]:
        report: dict[str, Any] = self.limited(request["timeout"], lambda: self.nn_stages(request))
        return report

    def nn_stages(self, request: dict[str, Any]) -> dict[str, Any]:
        mlp_cls = self.module.MLP
        report: dict[str, Any] = {"stage": "build"}
        try:
            mlp = mlp_cls(3, [4, 4, 1])
            params = parameters_of(mlp)
            report["count"] = len(params)
            report["distinct"] = len({id(p) for p in params})
            report["shared"] = shared_neurons(mlp) + repeated_parameter(params)
            if report["distinct"] < len(params) or len(params) != len(request["weights"]):
                return report
            for p, w in zip(params, request["weights"], strict=True):
                setattr(p, self.data_attr, w)
            report["stage"] = "forward"
            xs, ys = request["xs"], request["ys"]
            out = mlp([self.make(v) for v in xs[0]])
            report["output"] = number(getattr(out, self.data_attr, out))
            report["stage"] = "training-step"
            for p in params:
                if not self.grad_attr.startswith("call:"):  # a grad() method can't be set
                    setattr(p, self.grad_attr, 0.0)
            loss = self.make(0.0)
            for x, y in zip(xs, ys, strict=True):
                loss = loss + (mlp([self.make(v) for v in x]) - y) ** 2
            self.run_backward(loss)
            report["loss"] = number(getattr(loss, self.data_attr))
            report["grads"] = [number(self.read_grad(p)) for p in params]
            if callable(getattr(mlp, "zero_grad", None)):
                report["stage"] = "zero-grad"
                mlp.zero_grad()
                report["grads_after_zero_grad"] = [number(self.read_grad(p)) for p in params]
                report["zero_grad_span"] = source_span(type(mlp).zero_grad, self.learner_file)
            report["stage"] = "done"
        except BaseException as error:
            report["error"] = self.describe(error, isinstance(error, ProbeTimeout))
        return report


def main(argv: list[str], child_class: type[Child] | None = None) -> None:
    """Serve the parent's requests: the engine checker's Child, or a subclass of it
    (`ninja_child.py` passes its own) in the same confinement."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]  # not our package
    child = (child_class or Child)(int(argv[1]), int(argv[2]))
    start = child.receive()  # the limits come first, before any learner code
    isolated = bool(start.get("namespace")) and _CONFINE.enter_pid_namespace(
        [str(p) for p in start.get("read_only", [])])
    child.pid = _getpid()  # process 1 inside the namespace
    _CONFINE.apply_limits(start["limits"])
    sys.setrecursionlimit(start.get("recursion_limit", 1000))
    os.environ.setdefault("MPLBACKEND", "Agg")
    # the learner's code finds no way to this program through sys.modules['__main__']
    sys.modules["__main__"] = types.ModuleType("__main__")
    child.send(start, {"ready": True, "namespace": isolated})
    child.serve()


if __name__ == "__main__":
    try:
        main(sys.argv)
    finally:
        # skip atexit handlers and threads the learner's file may have started
        os._exit(0)
