"""`micrograd check` against files that misbehave on purpose (issue 13's hostile inputs).

Each payload in hostile/ is appended to a corpus engine with one known bug; the bug must
still be named, the payload must not change a verdict, and nothing it started may outlive
the check. The oracle is the corpus engine's known bug (textbook pitfall 1) and /proc.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from micrograd.check import check_engine, render_junit, render_text, run_check

pytestmark = pytest.mark.checker  # each test checks a hostile engine in the sandboxed subprocess

HERE = Path(__file__).parent
HOSTILE = HERE / "hostile"
CORPUS = HERE / "corpus"
SRC = HERE.parents[1] / "src"
BUGGY = "grad_overwritten"  # one bug: = instead of += (every verdict about it is known)
LINUX = sys.platform.startswith("linux")


def compose(tmp_path: Path, payload: str, base: str = BUGGY, name: str = "engine.py") -> Path:
    """The base engine with the payload appended, in tmp_path/learner/; {record} -> a file
    outside both the scratch folder and the learner's folder (which the child may not write)."""
    text = (CORPUS / f"{base}.py").read_text() + "\n" + (HOSTILE / f"{payload}.py").read_text()
    folder = tmp_path / "learner"
    folder.mkdir(exist_ok=True)
    engine = folder / name
    engine.write_text(text.replace("{record}", str(tmp_path / "record.txt")))
    return engine


def recorded(tmp_path: Path) -> list[str]:
    path = tmp_path / "record.txt"
    return path.read_text().splitlines() if path.exists() else []


def alive(record: str) -> bool:
    """The process a payload recorded as 'PID START' is still running (a zombie is dead: it
    only waits for its exit status to be read). PID is as the payload saw it, perhaps inside
    a PID namespace: a live process matches if the last pid of its NSpid line (its pid in its
    own namespace) and its start time are the recorded ones."""
    pid, start = record.split()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as file:
                fields = file.read().rpartition(")")[2].split()
            with open(f"/proc/{entry}/status") as file:
                ns_pids = next((line.split()[1:] for line in file if line.startswith("NSpid:")),
                               [entry])
        except (FileNotFoundError, ProcessLookupError):
            continue
        if ns_pids[-1] == pid and fields[19] == start and fields[0] not in ("Z", "X"):
            return True
    return False


def buggy_verdicts_hold(report) -> None:
    """The payload changed nothing: the engine's one bug is named, nothing else failed."""
    assert report.diagnoses[-1:] == ["grad-overwritten"] or "grad-overwritten" in report.diagnoses
    assert not report.ok
    assert report.by_id("reuse-add").status == "fail"
    assert report.by_id("reuse-add").diagnosis == "grad-overwritten"
    assert report.by_id("add").status == "pass" and report.by_id("mul").status == "pass"


@pytest.fixture(scope="module")
def buggy_baseline():
    report = check_engine(CORPUS / f"{BUGGY}.py")
    return {p.id: (p.status, p.diagnosis) for p in report.probes}


# --- verdicts the learner's code can't touch (13.1) -----------------------------------------

@pytest.mark.parametrize("payload", ["builtins_abs", "wrap_writer"])
def test_tampering_with_builtins_or_the_writer_changes_no_verdict(tmp_path, payload,
                                                                  buggy_baseline):
    report = check_engine(compose(tmp_path, payload))
    buggy_verdicts_hold(report)
    verdicts = {p.id: (p.status, p.diagnosis) for p in report.probes}
    assert {k: v for k, v in verdicts.items() if k in buggy_baseline} == buggy_baseline


def test_forged_lines_at_load_make_the_run_an_error_never_a_pass(tmp_path):
    report = check_engine(compose(tmp_path, "forged_lines", base="correct"))
    load = report.by_id("load")
    assert (load.status, load.diagnosis) == ("error", "untrusted-report"), render_text(report)
    assert not report.ok and "could not be trusted" in load.detail


def test_a_report_forged_inside_a_probe_is_an_error_for_that_probe(tmp_path):
    report = check_engine(compose(tmp_path, "forged_in_probe"))
    untrusted = [p for p in report.probes if p.diagnosis == "untrusted-report"
                 and not p.consequence_of]
    assert untrusted and all(p.status == "error" for p in untrusted)
    assert not report.ok
    # the forged "reuse-add passes" never counts as a pass
    assert report.by_id("reuse-add").status in ("fail", "error")


def test_a_report_forged_with_the_right_nonce_is_caught_as_a_second_report(tmp_path):
    """Code that digs the request out of the child's frames can answer first; the child's
    own report then arrives as a second one, and the probe is an ERROR, never a pass."""
    report = check_engine(compose(tmp_path, "forged_with_nonce"))
    forged = report.by_id("reuse-add")
    assert (forged.status, forged.diagnosis) == ("error", "untrusted-report")
    assert "more than one report" in forged.detail
    assert not report.ok


def test_a_fork_at_top_level_does_not_multiply_the_results(tmp_path):
    plain = check_engine(CORPUS / f"{BUGGY}.py")
    report = check_engine(compose(tmp_path, "fork_results"))
    assert len(report.probes) == len(plain.probes) + 0  # one result per probe, as without it
    assert report.counts == plain.counts
    buggy_verdicts_hold(report)


# --- nothing left running (13.2) ------------------------------------------------------------

@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize("payload, started", [("popen_sleep", 1), ("setsid_daemon", 2),
                                              ("fork_bomb", 30)])
def test_no_process_started_by_the_file_outlives_the_check(tmp_path, payload, started):
    report = check_engine(compose(tmp_path, payload), timeout=30.0)
    pids = recorded(tmp_path)
    assert len(pids) == started, pids
    assert [pid for pid in pids if alive(pid)] == []
    buggy_verdicts_hold(report)


@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize("how, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_ctrl_c_and_sigterm_stop_everything_and_remove_the_scratch_folder(tmp_path, how, code):
    engine = compose(tmp_path, "sleep_forever", base="correct")
    cli = subprocess.Popen([sys.executable, "-m", "micrograd.cli", "check", str(engine),
                            "--timeout", "120"], env=dict(os.environ, PYTHONPATH=str(SRC)),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for _ in range(600):  # until the payload has recorded its processes (a hang guard: 60 s)
        if len(recorded(tmp_path)) >= 3:
            break
        time.sleep(0.1)
    lines = recorded(tmp_path)
    assert len(lines) >= 3, lines
    cli.send_signal(how)
    _, err = cli.communicate(timeout=60)
    assert cli.returncode == code
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    pids = [lines[0], lines[1]]
    assert [pid for pid in pids if alive(pid)] == []
    scratch = Path(lines[2].removeprefix("cwd="))
    assert not scratch.exists() and not scratch.parent.exists()


# --- hard limits (13.3) ---------------------------------------------------------------------

@pytest.mark.skipif(not LINUX, reason="RLIMIT_* semantics")
def test_limits_are_hard_so_the_file_cannot_lift_them(tmp_path):
    check_engine(compose(tmp_path, "setrlimit_raise"), memory_mb=1024, timeout=20.0)
    limits = {line.split()[0]: line.split()[1:] for line in recorded(tmp_path)}
    assert limits["RLIMIT_AS"][:2] == [str(1024 * 1024 * 1024)] * 2
    assert limits["RLIMIT_FSIZE"][:2] == [str(16 * 1024 * 1024)] * 2
    assert limits["RLIMIT_CORE"][:2] == ["0", "0"]
    assert limits["RLIMIT_CPU"][0] == limits["RLIMIT_CPU"][1] != "-1"
    # refused for root too: the child gives up CAP_SYS_RESOURCE before loading the file
    assert {outcome for _, _, outcome in limits.values()} == {"refused"}


def test_raw_writes_to_stdout_are_capped_and_the_report_says_so(tmp_path):
    report = check_engine(compose(tmp_path, "write_flood"), timeout=30.0)
    assert "[output cut" in report.stdout and len(report.stdout) < 10_000
    flood = next(p for p in report.probes if p.id.startswith("line-") and p.status == "warn")
    assert "File too large" in flood.detail or "OSError" in flood.detail
    buggy_verdicts_hold(report)


@pytest.mark.parametrize("value", [float("inf"), float("nan"), -1.0, 0.0])
def test_bad_timeouts_are_refused_with_one_line(value):
    with pytest.raises(ValueError, match="finite number of seconds above 0"):
        check_engine(CORPUS / "correct.py", timeout=value)


def test_a_file_too_large_to_scan_gets_a_clear_error(tmp_path):
    big = tmp_path / "big.py"
    big.write_text("x = 1\n" * 300_000)  # 1.8 MB
    with pytest.raises(ValueError, match=r"too large to check \(the limit is 1,048,576 bytes"):
        check_engine(big)


# --- scratch folder and clean environment (13.4) ------------------------------------------

def test_the_source_scan_stays_within_its_share_of_the_timeout(tmp_path):
    """--timeout covers the parent's own work: a big file's scan is cut, and said to be."""
    big = tmp_path / "big.py"
    loop = "for step in range(10):\n" + "    loss.backward()\n    p.data -= 0.1\n" * 20_000
    big.write_text((CORPUS / "correct.py").read_text() + loop)  # ~0.8 MB, 80,000 statements
    # a limit already spent when the scan starts, on any machine however fast: a limit of
    # 0.4 s (the scan's share 0.1 s) passed only where parsing the file took longer
    report = check_engine(big, timeout=1e-6)
    scan = report.by_id("source-scan")
    assert (scan.status, scan.diagnosis) == ("error", "total-timeout")


def test_the_file_sees_a_clean_environment_and_a_scratch_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MICROGRAD_TEST_SECRET", "hunter2")
    check_engine(compose(tmp_path, "env_secret"))
    seen = dict(line.split("=", 1) for line in recorded(tmp_path))
    assert seen["secret"] == "None"
    assert seen["home"] == seen["cwd"] and seen["home"] != str(Path.home())
    assert not seen["cwd"].startswith(str(tmp_path))
    allowed = {"PATH", "LANG", "LANGUAGE", "TZ", "HOME", "TMPDIR", "PYTHONHASHSEED",
               "PYTHONDONTWRITEBYTECODE", "MPLBACKEND", "OMP_NUM_THREADS",
               "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MICROGRAD_CHECK_RUN"}
    keys = set(seen["keys"].split(","))
    assert {k for k in keys if not k.startswith("LC_")} <= allowed


def test_nothing_is_deleted_or_written_in_the_learners_folder(tmp_path):
    folder = tmp_path / "learner"
    folder.mkdir()
    (folder / "notes.txt").write_text("my notes")
    (folder / "helper_next_to_it.py").write_text((HOSTILE / "helper_next_to_it.py").read_text())
    report = check_engine(compose(tmp_path, "delete_outside"))
    assert (folder / "notes.txt").read_text() == "my notes"
    assert not (folder / "__pycache__").exists()
    removal = next(p for p in report.probes if p.id.startswith("line-"))
    assert removal.detail.startswith("FileNotFoundError"), removal  # the import worked
    buggy_verdicts_hold(report)


def test_files_past_the_copy_limits_are_named_not_silently_dropped(tmp_path, monkeypatch):
    from micrograd.check import source

    monkeypatch.setattr(source, "MAX_COPIED_FILES", 2)
    for name in ("a_helper.py", "b_helper.py", "c_helper.py"):
        (tmp_path / name).write_text("X = 1\n")
    engine = tmp_path / "z_engine.py"
    engine.write_text((CORPUS / "correct.py").read_text())
    report = check_engine(engine)
    note = report.by_id("scratch-copy")
    assert (note.status, note.diagnosis) == ("warn", "files-not-copied")
    assert note.detail.endswith("not copied: c_helper.py")
    assert report.ok


# --- inputs as Python reads them (13.5) ----------------------------------------------------

@pytest.mark.parametrize("name", ["bom", "latin1_coding"])
def test_a_bom_or_a_coding_line_is_read_as_python_reads_it(name):
    report = check_engine(HOSTILE / f"{name}.py")
    assert report.by_id("load").status == "pass" and report.class_name == "Value"
    assert report.by_id("add").status == "pass" and report.by_id("diamond").status == "pass"
    # the tiny engine (+ and * only) has the lecture's known gaps, and nothing about reading it
    assert set(report.diagnoses) == {"stale-intermediate-grads"}
    assert {report.by_id(p).status for p in ("radd", "rmul-int")} == {"missing"}


@pytest.mark.parametrize("name, what", [
    ("bad_notebook_cells_string", "'cells' is a str, expected a list of cells"),
    ("bad_notebook_cells_numbers", "cell 1 is a int, expected an object"),
    ("bad_notebook_null", "expected a JSON object with 'cells'"),
    ("bad_notebook_source_number", "the source of cell 1 is not text or a list of text"),
])
def test_malformed_notebooks_get_a_one_line_error(name, what):
    with pytest.raises(ValueError, match="not a Jupyter notebook") as raised:
        check_engine(HOSTILE / f"{name}.ipynb")
    assert what in str(raised.value) and "\n" not in str(raised.value)


def test_source_too_deep_for_the_compiler_gets_a_one_line_error():
    with pytest.raises(ValueError, match="nested too deeply for Python's compiler"):
        check_engine(HOSTILE / "deep_expression.py")


@pytest.mark.parametrize("argument", ["inf", "nan", "-3", "0"])
def test_cli_bad_timeout_and_bad_input_exit_2_with_one_line(argument):
    env = dict(os.environ, PYTHONPATH=str(SRC))
    done = subprocess.run([sys.executable, "-m", "micrograd.cli", "check",
                           str(CORPUS / "correct.py"), "--timeout", argument],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "Traceback" not in done.stderr


def test_control_characters_are_escaped_on_the_terminal_and_in_junit(tmp_path, capsys):
    engine = compose(tmp_path, "nul_esc_exception", base="correct")
    report = check_engine(engine)
    warning = next(p for p in report.probes if p.id.startswith("line-"))
    assert warning.status == "warn" and "\\x00" in warning.detail and "\\x1b" in warning.detail
    text = render_text(report)
    assert "\x00" not in text and "\x1b" not in text and "\x07" not in text
    ET.fromstring(render_junit(report))  # well-formed XML 1.0
    json.loads(report.to_json())
    junit = tmp_path / "report.xml"
    assert run_check(str(engine), junit=str(junit)) == 0
    ET.parse(junit)
    assert "\x1b" not in capsys.readouterr().out


# --- issue 20: the last ways out of the sandbox ---------------------------------------------

ROOT = LINUX and os.geteuid() == 0


@pytest.mark.slow
@pytest.mark.skipif(not LINUX, reason="reads /proc")
@pytest.mark.parametrize("namespace", [True, False], ids=["namespace", "subreaper-scan"])
def test_a_double_forked_process_with_an_empty_environment_does_not_survive(
        tmp_path, monkeypatch, namespace):
    """fork(); setsid(); fork(); execve(python, ..., {}) at load and inside a probe's __add__:
    no session, token or parent ties it to the run. Both ways of finding it hold: the PID
    namespace (as root) and, without one, the subreaper's scan of its adopted orphans."""
    from micrograd.check import sandbox

    monkeypatch.setattr(sandbox, "NAMESPACE", namespace)
    started = time.monotonic()
    report = check_engine(compose(tmp_path, "double_fork_execve"), timeout=30.0)
    assert time.monotonic() - started < 30.0 + 5.0
    pids = recorded(tmp_path)
    assert len(pids) == 2, pids
    assert [pid for pid in pids if alive(pid)] == []
    buggy_verdicts_hold(report)


@pytest.mark.skipif(not LINUX, reason="FIFOs and /proc")
def test_a_fifo_in_place_of_the_output_file_neither_hangs_nor_leaves_the_scratch(tmp_path):
    started = time.monotonic()
    report = check_engine(compose(tmp_path, "output_fifo"), timeout=15.0)
    assert time.monotonic() - started < 15.0 + 5.0
    scratch = Path(recorded(tmp_path)[0].removeprefix("cwd="))
    assert not scratch.parent.exists()
    buggy_verdicts_hold(report)


def _cli_report(engine: Path, secret: str, **extra: str) -> subprocess.CompletedProcess[str]:
    """`micrograd check --json` in a process whose own environment holds a secret (the
    environment of a process, as /proc shows it, is the one it was started with)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), MICROGRAD_TEST_SECRET=secret,
               HOME=str(engine.parent), **extra)
    return subprocess.run([sys.executable, "-m", "micrograd.cli", "check", str(engine),
                           "--json", "--timeout", "30"], env=env, capture_output=True,
                          text=True, timeout=90)


@pytest.mark.skipif(not LINUX, reason="/proc")
@pytest.mark.parametrize("payload", ["output_symlink_environ", "parent_environ"])
def test_the_checkers_environment_never_reaches_the_report(tmp_path, payload):
    engine = compose(tmp_path, payload)
    ssh = engine.parent / ".ssh"
    ssh.mkdir()
    (ssh / "id_rsa").write_text("PRIVATE-KEY-CONTENT")
    done = _cli_report(engine, "hunter2-secret")
    assert done.returncode == 1, done.stderr  # the engine's own bug, nothing else
    assert "hunter2-secret" not in done.stdout and "PRIVATE-KEY-CONTENT" not in done.stdout
    assert "MICROGRAD_TEST_SECRET" not in done.stdout
    data = json.loads(done.stdout)
    assert "grad-overwritten" in data["diagnoses"][0]["id"]


@pytest.mark.skipif(not ROOT, reason="as root the child is process 1 of its own namespace")
def test_as_root_the_file_can_neither_signal_the_checker_nor_write_the_learners_folder(
        tmp_path):
    marker = f"target-{os.getpid()}-{time.monotonic_ns()}"  # only this test's checker
    engine = compose(tmp_path, "signal_the_checker")
    engine.write_text(engine.read_text().replace("{learner}", str(engine.parent))
                      .replace("{marker}", marker))
    # finishes: nothing stopped or killed the checker
    done = _cli_report(engine, "x", MICROGRAD_SIGNAL_TARGET=marker)
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert [d["id"] for d in data["diagnoses"]] == ["load-exception", "grad-overwritten"]
    write = next(p for p in data["probes"] if p["id"].startswith("line-"))
    assert "Read-only file system" in write["detail"]
    assert not (engine.parent / "planted.py").exists()


def test_patching_the_childs_class_finder_through_main_finds_nothing_to_patch(tmp_path):
    engine = compose(tmp_path, "patch_the_finder")
    report = check_engine(engine)
    buggy_verdicts_hold(report)  # the file's own Value, with its bug
    line = next(n for n, text in enumerate(engine.read_text().splitlines(), 1)
                if text.startswith("class Value"))
    assert report.class_found_how.endswith(f"(line {line})")
    patch = next(p for p in report.probes if p.id.startswith("line-") and p.status == "warn")
    assert "AttributeError" in patch.detail


def test_a_gradient_named_with_a_lone_surrogate_gets_a_report_json_and_junit(tmp_path):
    grad = "getattr(NODE, 'g\\udcff')"
    odd = tmp_path / "odd.py"  # an engine whose gradient attribute is named 'g\udcff'
    odd.write_text(
        "class Value:\n"
        "    def __init__(self, data, _children=()):\n"
        "        self.data = data\n"
        "        setattr(self, 'g\\udcff', 0.0)\n"
        "        self._prev, self._backward = _children, lambda: None\n"
        "    def __add__(self, other):\n"
        "        out = Value(self.data + other.data, (self, other))\n"
        "        def _backward():\n"
        f"            setattr(self, 'g\\udcff', {grad.replace('NODE', 'out')})\n"
        f"            setattr(other, 'g\\udcff', {grad.replace('NODE', 'out')})\n"
        "        out._backward = _backward\n"
        "        return out\n"
        "    def backward(self):\n"
        "        setattr(self, 'g\\udcff', 1.0)\n"
        "        self._backward()\n", encoding="utf-8")
    report = check_engine(odd)
    assert report.api["grad"].startswith("g") and "\udcff" not in report.api["grad"]
    render_text(report).encode("utf-8")  # no lone surrogate left: printable anywhere
    ET.fromstring(render_junit(report))
    json.loads(report.to_json())
    done = subprocess.run([sys.executable, "-m", "micrograd.cli", "check", str(odd)],
                          env=dict(os.environ, PYTHONPATH=str(SRC)), capture_output=True,
                          timeout=90)
    assert done.returncode in (0, 1), done.stderr  # a report, not exit 2


def test_a_notebook_string_holding_u2028_is_one_line_as_python_reads_it(tmp_path):
    code = (CORPUS / "correct.py").read_text() + '\nlabel = "first\u2028second"\n'
    notebook = {"cells": [{"cell_type": "code", "source": code, "metadata": {},
                           "outputs": [], "execution_count": None}],
                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "engine.ipynb"
    path.write_text(json.dumps(notebook), encoding="utf-8")
    report = check_engine(path)
    assert report.by_id("load").status == "pass"
    assert not [p for p in report.probes if p.status == "warn" and p.id.startswith("cell-")]
    assert report.by_id("add").status == "pass" and report.ok


def test_a_sibling_inspect_py_does_not_replace_the_checkers_own(tmp_path):
    engine = compose(tmp_path, "nul_esc_exception", base="mutable_default")
    (engine.parent / "inspect.py").write_text((HOSTILE / "sibling_inspect.py").read_text())
    report = check_engine(engine)
    assert report.by_id("default-children").status == "fail"  # the signature probe ran
    assert report.by_id("default-children").diagnosis == "mutable-default-children"


def test_a_hidden_class_swapped_in_for_the_files_own_is_never_a_pass(tmp_path):
    """The file rebinds Value to a correct class made by exec: the file's own class Value
    (read by ast before the file ran) is not what the child found, so the run can't be
    trusted: an ERROR naming the file's class and line, exit 1."""
    engine = compose(tmp_path, "swap_in_hidden_class", base="correct")
    report = check_engine(engine)
    line = next(n for n, text in enumerate(engine.read_text().splitlines(), 1)
                if text.startswith("class Value"))
    found = report.by_id("find-class")
    assert (found.status, found.diagnosis) == ("error", "untrusted-report"), render_text(report)
    assert f"class Value (line {line})" in found.detail
    assert not report.ok and report.verdict == "fail"
