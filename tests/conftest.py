"""Shared test helpers: running code in a fresh interpreter, micrograd 0.1.0, missing tools.

micrograd 0.1.0 (the original, on PyPI) shares our import name, so it never runs in the
pytest process: it is installed once per machine into `.pytest_cache/mg010` and every
comparison runs a snippet under it in a subprocess.
"""

from __future__ import annotations

import importlib
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
MG010_DIR = ROOT / ".pytest_cache" / "mg010"


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


def _install_mg010(target: pathlib.Path) -> str | None:
    """pip-install micrograd==0.1.0 into `target`; return an error message or None."""
    if _mg010_installed(target):
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix="mg010-", dir=target.parent))
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--disable-pip-version-check", "--target", str(staging), "micrograd==0.1.0"],
        capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        return proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "pip failed"
    try:  # atomic publish: with pytest-xdist two workers may race here; either copy is fine
        staging.rename(target)
    except OSError:
        shutil.rmtree(staging, ignore_errors=True)
    return None if _mg010_installed(target) else "installed files not found"


@pytest.fixture(scope="session")
def mg010() -> Interpreter:
    """micrograd 0.1.0 from PyPI, installed once into .pytest_cache/mg010 (pip --no-deps)."""
    error = _install_mg010(MG010_DIR)
    require(error is None, f"micrograd==0.1.0 from PyPI ({error})")
    return Interpreter(MG010_DIR)


@pytest.fixture(scope="session")
def ours() -> Interpreter:
    """This package (src/), run in a subprocess like mg010 so outputs are comparable."""
    return Interpreter(SRC)
