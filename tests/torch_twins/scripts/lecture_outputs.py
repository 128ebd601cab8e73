"""Run a lecture-style script and read its `name value` lines; compare two runs.

The scripts in this folder print one result per line as `name value`. These helpers run a
script with real torch (or, later, under `micrograd run`) and compare two outputs name by
name: numbers within a tolerance, everything else exactly.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = ("poly_tensors.py", "classifier_loader.py", "makemore_mlp.py",
           "makemore_batchnorm.py", "makemore_backprop.py", "makemore_wavenet.py",
           "gpt_char.py")


def run_script(name: str, command: list[str] | None = None, timeout: float = 300) -> str:
    """Stdout of `python SCRIPT` (or of `command + [SCRIPT]`), on one intra-op thread.

    Raises AssertionError with the script's stderr when it exits non-zero.
    """
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    argv = (command or [sys.executable]) + [str(HERE / name)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env,
                          cwd=HERE)
    if done.returncode != 0:
        raise AssertionError(f"{name} exited with {done.returncode}:\n{done.stderr[-3000:]}")
    return done.stdout


def parse_output(text: str) -> dict[str, str]:
    """{name: value text} from `name value` lines; a repeated name or a bare line is an error."""
    results: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        name, sep, value = line.partition(" ")
        if not sep or not name or not value:
            raise ValueError(f"line {number} is not `name value`: {line!r}")
        if name in results:
            raise ValueError(f"line {number} repeats the name {name!r}")
        results[name] = value
    return results


def as_number(value: str) -> float | None:
    """The float a value prints, or None when it is not a plain number (True, a shape, text)."""
    try:
        return float(value)
    except ValueError:
        return None


def compare_outputs(expected: dict[str, str], actual: dict[str, str],
                    rtol: float = 1e-5, atol: float = 1e-6) -> list[str]:
    """Human-readable differences between two parsed outputs (empty when they agree).

    Numbers agree when |a - e| <= atol + rtol * |e| (NaN and inf must match exactly);
    other values must be equal as text. Missing and extra names are differences too.
    """
    problems = [f"missing {name}" for name in expected if name not in actual]
    problems += [f"unexpected {name}" for name in actual if name not in expected]
    for name, want in expected.items():
        if name not in actual:
            continue
        got = actual[name]
        e, a = as_number(want), as_number(got)
        if e is None or a is None:
            if want != got:
                problems.append(f"{name}: expected {want}, got {got}")
        elif math.isfinite(e) and math.isfinite(a):
            if abs(a - e) > atol + rtol * abs(e):
                problems.append(f"{name}: expected {want}, got {got}")
        elif not (e == a or (math.isnan(e) and math.isnan(a))):
            problems.append(f"{name}: expected {want}, got {got}")
    return problems
