"""The twin harness: run the SAME script text under real PyTorch and under micrograd.torch
(`python -m micrograd.torch script.py`, which aliases `import torch`), each in a fresh
interpreter, and compare what they print: the text with numbers blanked must be identical,
and every number must agree within a tolerance."""

from __future__ import annotations

import math
import os
import pathlib
import re
import subprocess
import sys

from conftest import SRC

NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?\b(?:nan|inf)\b")


def run(script: pathlib.Path, *, micrograd: bool, cwd: pathlib.Path,
        args: tuple[str, ...] = ()) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["OMP_NUM_THREADS"] = "1"  # the machine is shared; also steadier float32 sums
    if micrograd:
        env["PYTHONPATH"] = str(SRC)
        command = [sys.executable, "-m", "micrograd.torch", str(script), *args]
    else:
        command = [sys.executable, str(script), *args]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=cwd,
                          timeout=600)
    side = "micrograd.torch" if micrograd else "torch"
    if proc.returncode != 0:
        raise AssertionError(f"{script.name} failed under {side}:\n{proc.stderr[-4000:]}")
    return proc.stdout


def numbers(text: str) -> list[float]:
    return [float(m) for m in NUMBER.findall(text)]


def shape(text: str) -> str:
    """The printed text with every number replaced by #: must match exactly."""
    return NUMBER.sub("#", text)


def assert_twins(script: pathlib.Path, tmp_path: pathlib.Path, rel: float, abs_: float = 0.0,
                 args: tuple[str, ...] = ()) -> tuple[str, str]:
    """Run both; assert same text and numbers within rel (relative) or abs_. Returns both
    outputs."""
    (tmp_path / "torch").mkdir()
    (tmp_path / "micrograd").mkdir()
    theirs = run(script, micrograd=False, cwd=tmp_path / "torch", args=args)
    ours = run(script, micrograd=True, cwd=tmp_path / "micrograd", args=args)
    assert shape(ours) == shape(theirs), (
        f"printed text differs:\n--- torch\n{theirs}\n--- ours\n{ours}")
    a, b = numbers(theirs), numbers(ours)
    assert a, f"{script.name} printed no numbers"
    for i, (x, y) in enumerate(zip(a, b, strict=True)):
        same = (math.isnan(x) and math.isnan(y)) or math.isclose(x, y, rel_tol=rel, abs_tol=abs_)
        assert same, (f"number {i} differs: torch {x!r}, micrograd {y!r}\n--- torch\n{theirs}"
                      f"\n--- ours\n{ours}")
    return theirs, ours
