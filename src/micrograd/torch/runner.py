"""Run an unmodified PyTorch script on micrograd: `import torch` (and torch.nn,
torch.nn.functional, torch.optim, torch.utils.data, ...) resolve to micrograd.torch.

A meta-path finder placed first on sys.meta_path answers for `torch` and `torch.*` with
the micrograd.torch module of the same path. It is installed only by the runner (`micrograd
run`, `python -m micrograd.torch`, `%load_ext micrograd.torch`), never by an import, so a
program that uses real PyTorch next to micrograd keeps getting real PyTorch.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import runpy
import sys
import types
from collections.abc import Sequence

from micrograd.torch._facade import unsupported_module

_PREFIX = "micrograd."


def _is_torch(fullname: str) -> bool:
    return fullname == "torch" or fullname.startswith("torch.")


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system a module that is already loaded (micrograd.torch...)."""

    def __init__(self, module: types.ModuleType):
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        """Nothing to run: the module was executed when micrograd imported it."""


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """`torch.X.Y` -> `micrograd.torch.X.Y`; a torch module micrograd lacks is the one
    "not supported" error (an UnsupportedTorchModule, so a ModuleNotFoundError too)."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        if not _is_torch(fullname):
            return None
        real = _PREFIX + fullname
        try:
            module = importlib.import_module(real)
        except ModuleNotFoundError as error:
            if error.name is not None and error.name.startswith(_PREFIX + "torch"):
                raise unsupported_module(fullname) from None
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module),
                                               is_package=hasattr(module, "__path__"))


def _installed() -> TorchAliasFinder | None:
    for finder in sys.meta_path:
        if isinstance(finder, TorchAliasFinder):
            return finder
    return None


def install() -> None:
    """From now on, `import torch` in this process gives micrograd.torch."""
    if _installed() is not None:
        return
    real = [name for name, module in sys.modules.items()
            if _is_torch(name) and module is not None
            and not getattr(module, "__name__", "").startswith(_PREFIX)]
    if real:
        raise RuntimeError("the real torch is already imported in this process, so `import "
                           "torch` cannot be redirected to micrograd.torch: load micrograd's "
                           "runner first (restart the kernel, then %load_ext micrograd.torch)")
    sys.meta_path.insert(0, TorchAliasFinder())


def uninstall() -> None:
    """Undo install(): `import torch` finds the real PyTorch again (if installed)."""
    finder = _installed()
    if finder is not None:
        sys.meta_path.remove(finder)
    for name in [n for n in sys.modules if _is_torch(n)]:
        del sys.modules[name]


def run_script(path: str, args: Sequence[str] = ()) -> None:
    """Run the script at `path` as `python path args...` would, with torch aliased."""
    if not os.path.isfile(path):
        raise FileNotFoundError(f"no such script: {path!r}")
    install()
    sys.argv = [path, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))  # as python puts it first
    runpy.run_path(path, run_name="__main__")
