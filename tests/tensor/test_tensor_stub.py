"""The committed type stub of Tensor's attached methods (src/micrograd/tensors/_methods.pyi)
is what tools/tensor_stub.py generates from the installed class: adding an op and not
regenerating it fails here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_committed_tensor_stub_is_current():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "tensor_stub.py"), "--check"],
                            capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_the_stub_declares_every_registry_op():
    from micrograd import ops as registry

    stub = (ROOT / "src" / "micrograd" / "tensors" / "_methods.pyi").read_text(encoding="utf-8")
    for entry in registry.OPS.values():
        for name in entry.methods:
            assert f"    def {name}(" in stub, name
