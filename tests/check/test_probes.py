"""The parent's half of the checker, without a child process: probe programs, the float
reference, the one follows-from rule, and the channel's validation of reports.

Oracles: numbers worked out by hand or published with the lecture and micrograd
(micrograd's test_sanity_check: y = -20, dy/dx = 46 at x = -4; the lecture's neuron:
dL/dx1 = -1.5, dL/dw1 = 1.0), and PyTorch for the graph probes' gradients.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from conftest import require_module

from micrograd.check.child import parse_program
from micrograd.check.probes import Probe, central_differences, engine_probes, evaluate
from micrograd.check.report import ProbeResult
from micrograd.check.sandbox import Limits, Sandbox, Untrusted
from micrograd.check.verdicts import follows_from

PROBES = {p.id: p for p in engine_probes(has_tanh=True)}


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')", "a.__class__", "a.exp(1)", "[a, b]", "lambda: 1",
    "a if b else c", "for _ in range(10**9): a", "for _ in range(100000): a", "a.data",
    "open('x')", "x = y = a", "a, b = 1, 2", "'text'", "True + a", "import os",
])
def test_probe_programs_outside_the_subset_are_refused(text):
    with pytest.raises(ValueError, match="probe program"):
        parse_program(text)


def test_every_probe_program_parses_and_shows_as_one_line():
    for probe in PROBES.values():
        parse_program(probe.program)
        assert "\n" not in probe.expression()


def test_reference_values_are_the_published_ones():
    readme = PROBES["micrograd-readme"]
    assert evaluate(readme.program, readme.inputs) == -20.0
    assert central_differences(readme.program, readme.inputs)["x"] == pytest.approx(46.0)
    neuron = PROBES["lecture-neuron"]
    grads = central_differences(neuron.program, neuron.inputs)
    assert evaluate(neuron.program, neuron.inputs) == pytest.approx(0.7071067, abs=1e-6)
    assert grads["x1"] == pytest.approx(-1.5, abs=1e-6)
    assert grads["w1"] == pytest.approx(1.0, abs=1e-6)
    diamond = PROBES["diamond"]
    assert evaluate(diamond.program, diamond.inputs) == -10.5  # t = -6; -6 + (-6)(1.5)(0.5)
    chain = PROBES["chain-2000"]
    assert evaluate(chain.program, chain.inputs) == 1001.0
    assert central_differences(chain.program, chain.inputs)["b"] == pytest.approx(2000.0)


@pytest.mark.parametrize("pid", ["diamond", "lecture-neuron", "micrograd-readme", "chain-50",
                                 "reuse-sigmoid", "reuse-mul-add", "pow-float", "rtruediv"])
def test_reference_gradients_agree_with_pytorch(pid):
    torch = require_module("torch")
    probe = PROBES[pid]
    leaves = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
              for k, v in probe.inputs.items()}
    methods = {"exp": torch.exp, "log": torch.log, "tanh": torch.tanh, "relu": torch.relu,
               "sigmoid": torch.sigmoid}
    from micrograd.check.child import run_program

    out = run_program(parse_program(probe.program), dict(leaves),
                      lambda x, name: methods[name](x))
    out.backward()
    want = central_differences(probe.program, probe.inputs)
    for name, leaf in leaves.items():
        assert want[name] == pytest.approx(leaf.grad.item(), rel=1e-5, abs=1e-7), name


def test_probes_take_keyword_fields_only():
    make: Any = Probe  # typed Any: the call a type checker would reject is the test
    with pytest.raises(TypeError):
        make("add", "ops", "a + b")


def _failed(pid, diagnosis, status="fail"):
    return ProbeResult(pid, "ops", status, "", diagnosis)


def test_one_rule_names_a_failure_after_the_earlier_one_it_follows_from():
    failed: dict[str, str] = {}
    follows_from(_failed("add", "grad-overwritten"), (), failed)
    sub = _failed("sub", "wrong-local-derivative:sub")
    follows_from(sub, ("neg", "add"), failed)  # the first failed probe in `after` wins
    assert (sub.diagnosis, sub.consequence_of, sub.own_diagnosis) == (
        "grad-overwritten", "add", "wrong-local-derivative:sub")
    own = _failed("radd", "missing-radd")  # a mistake of its own keeps its name
    follows_from(own, ("add",), failed)
    assert (own.diagnosis, own.consequence_of) == ("missing-radd", None)
    passing = ProbeResult("mul", "ops", "pass", "")
    follows_from(passing, ("add",), failed)
    assert passing.consequence_of is None and "mul" not in failed
    assert failed == {"add": "grad-overwritten", "sub": "grad-overwritten",
                      "radd": "missing-radd"}


class FakeChild:
    """A Sandbox whose 'child' is this test: it writes the report lines itself."""

    def __init__(self) -> None:
        self.box = Sandbox(Limits())
        self.box.process = subprocess.Popen([sys.executable, "-c", "pass"])
        self.box.process.wait()
        self.box.child_pid = self.box.process.pid  # as its "ready" report would have said
        self.box._reports, self.writer = os.pipe()
        request_read, self.box._requests = os.pipe()
        self.requests = os.fdopen(request_read, "rb")

    def next_nonce(self) -> str:
        return json.loads(self.requests.readline())["nonce"]

    def write(self, *messages: object) -> None:
        for message in messages:
            line = message if isinstance(message, bytes) else json.dumps(message).encode()
            os.write(self.writer, line + b"\n")

    def close(self) -> None:
        os.close(self.writer)
        self.requests.close()
        self.box.process = None
        self.box.close()


@pytest.fixture
def fake():
    child = FakeChild()
    yield child
    child.close()


def _report(pid, nonce, probe_id="add", **body):
    return dict(body, id=probe_id, nonce=nonce, pid=pid)


def test_the_channel_accepts_one_report_per_request_from_the_child_it_started(fake):
    pid = fake.box.process.pid
    fake.write({"id": "add", "nonce": "x", "pid": pid + 1})  # a fork's line: ignored
    os.write(fake.box._requests, b"")  # nothing; the request comes from ask()
    import threading

    got: dict = {}
    thread = threading.Thread(target=lambda: got.update(fake.box.ask({"do": "probe"}, 5, "add")))
    thread.start()
    nonce = fake.next_nonce()
    fake.write(_report(pid, nonce, runs=[]))
    thread.join()
    assert got["nonce"] == nonce and fake.box.ignored_forks == 1
    fake.write(_report(pid, nonce, runs=[]))  # the same report again: a duplicate
    fake.box.drain(0.2)
    assert fake.box.spoiled == {"add"}


@pytest.mark.parametrize("line", [
    b"not json", b"[1, 2]", b'{"id": "add"}', b'{"id": 3, "nonce": "n", "pid": 1}',
    b'{"id": "mul", "nonce": "forged", "pid": PID}', b"\xff\xfe",
])
def test_a_malformed_or_forged_report_is_untrusted_never_a_crash(fake, line):
    import threading

    errors: list = []

    def ask() -> None:
        try:
            fake.box.ask({"do": "probe"}, 5, "add")
        except Untrusted as error:
            errors.append(error)

    thread = threading.Thread(target=ask)
    thread.start()
    fake.next_nonce()
    fake.write(line.replace(b"PID", str(fake.box.process.pid).encode()))
    thread.join()
    assert len(errors) == 1


def test_a_report_line_too_long_is_untrusted(fake):
    import threading

    errors: list = []

    def ask() -> None:
        try:
            fake.box.ask({"do": "probe"}, 10, "add")
        except Untrusted as error:
            errors.append(error)

    thread = threading.Thread(target=ask)
    thread.start()
    fake.next_nonce()
    writer = threading.Thread(target=lambda: os.write(fake.writer, b"x" * (2 * 1024 * 1024)))
    writer.daemon = True
    writer.start()
    thread.join(timeout=30)
    assert len(errors) == 1 and "too long" in str(errors[0])


def test_the_child_program_imports_only_the_standard_library():
    """It runs beside the learner's code, which may define its own `micrograd`."""
    import ast
    from pathlib import Path

    import micrograd.check.child as child

    for path in (Path(child.__file__), Path(child.__file__).with_name("childlib.py")):
        tree = ast.parse(path.read_text())
        imported = {alias.name.split(".")[0] for node in ast.walk(tree)
                    if isinstance(node, ast.Import) for alias in node.names}
        imported |= {node.module.split(".")[0] for node in ast.walk(tree)
                     if isinstance(node, ast.ImportFrom) and node.module}
        assert imported <= set(sys.stdlib_module_names), imported - set(sys.stdlib_module_names)
