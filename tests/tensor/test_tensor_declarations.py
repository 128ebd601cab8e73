"""tensor.py declares the installed operators and methods for mypy under TYPE_CHECKING.

Those declarations are never executed, so nothing else would notice one that names a
method the ops never install (a typo, or an op that was removed): mypy would then accept
calls that fail at runtime. The oracle is the class itself after `micrograd.tensors`
has installed its ops.
"""

from __future__ import annotations

import ast
import inspect
import sys

import micrograd.tensors  # imported first: it installs the ops on Tensor
from micrograd.tensors.tensor import Tensor


def _declared_names() -> list[str]:
    # micrograd.tensors.tensor is also the factory function: take the module itself
    tree = ast.parse(inspect.getsource(sys.modules["micrograd.tensors.tensor"]))
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor"]
    blocks = [n for n in cls.body
              if isinstance(n, ast.If) and ast.unparse(n.test) == "TYPE_CHECKING"]
    assert len(blocks) == 1, "expected one `if TYPE_CHECKING:` block in class Tensor"
    return [f.name for f in blocks[0].body if isinstance(f, ast.FunctionDef)]


def test_every_declared_method_is_installed_at_runtime():
    names = _declared_names()
    assert "__add__" in names and "sum" in names  # the block was found and read
    missing = [n for n in names if n != "__getattr__" and n not in vars(Tensor)]
    assert missing == []


def test_declarations_do_not_exist_at_runtime():
    # the long-tail __getattr__ stub is for the type checker only; the runtime one only
    # raises (torch's names we lack get the "not supported" error): a misspelt method must
    # still raise a plain AttributeError
    from micrograd.tensors.unsupported import NotSupportedByMicrograd

    try:
        micrograd.tensors.tensor([1.0]).stride
    except NotSupportedByMicrograd as error:
        assert "torch.Tensor.stride is not supported" in str(error)
    else:
        raise AssertionError("a torch Tensor method we lack did not raise")
    try:
        micrograd.tensors.tensor([1.0]).no_such_method
    except AttributeError as error:
        assert "no_such_method" in str(error)
        assert not isinstance(error, NotSupportedByMicrograd)
    else:
        raise AssertionError("a misspelt Tensor method did not raise AttributeError")
