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
    """The base engine with the payload appended; {record} -> a file outside the scratch."""
    text = (CORPUS / f"{base}.py").read_text() + "\n" + (HOSTILE / f"{payload}.py").read_text()
    engine = tmp_path / name
    engine.write_text(text.replace("{record}", str(tmp_path / "record.txt")))
    return engine


def recorded(tmp_path: Path) -> list[str]:
    path = tmp_path / "record.txt"
    return path.read_text().splitlines() if path.exists() else []


def alive(pid: int) -> bool:
    """Running (a zombie is dead: it only waits for its exit status to be read)."""
    try:
        with open(f"/proc/{pid}/stat") as file:
            state = file.read().rpartition(")")[2].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


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
    pids = [int(line) for line in recorded(tmp_path)]
    assert len(pids) == started, recorded(tmp_path)
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
    pids = [int(lines[0]), int(lines[1])]
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
    (tmp_path / "notes.txt").write_text("my notes")
    (tmp_path / "helper_next_to_it.py").write_text((HOSTILE / "helper_next_to_it.py").read_text())
    report = check_engine(compose(tmp_path, "delete_outside"))
    assert (tmp_path / "notes.txt").read_text() == "my notes"
    assert not (tmp_path / "__pycache__").exists()
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
    assert set(report.diagnoses) == {"missing-rmul", "missing-radd", "stale-intermediate-grads"}


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
