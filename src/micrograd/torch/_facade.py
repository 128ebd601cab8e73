"""What every facade module shares: the error for a torch name micrograd lacks, and the
lookup that lets a facade module follow the library it fronts (names added to
micrograd.tensors later appear in micrograd.torch without touching it)."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from typing import Any

# the one error for a missing torch name, module or keyword lives with the engine, which
# raises it too (Tensor methods, backward's keywords); the facade re-exports it
from micrograd.tensors.unsupported import (
    SUPPORTED_NAMES_PAGE,
    NotSupportedByMicrograd,
    UnsupportedTorchArgument,
    UnsupportedTorchModule,
    UnsupportedTorchName,
    unsupported_module,
)
from micrograd.tensors.unsupported import unsupported_name as unsupported

__all__ = ["SUPPORTED_NAMES_PAGE", "NotSupportedByMicrograd", "UnsupportedTorchArgument",
           "UnsupportedTorchModule", "UnsupportedTorchName", "unsupported",
           "unsupported_module", "module_getattr", "from_module"]


def module_getattr(module: types.ModuleType | str, sources: Iterable[Callable[[str], Any]]
                   ) -> Callable[[str], Any]:
    """A module-level __getattr__ that asks each source in turn (each returns the object
    or raises LookupError/AttributeError) and caches what it finds in the module."""
    name_of = module if isinstance(module, str) else module.__name__
    finders = list(sources)

    def __getattr__(name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # dunders: plain AttributeError
            raise AttributeError(f"module {name_of!r} has no attribute {name!r}")
        import sys

        owner = sys.modules[name_of]
        for find in finders:
            try:
                value = find(name)
            except (LookupError, AttributeError):
                continue
            setattr(owner, name, value)
            return value
        raise unsupported(name_of, name)

    return __getattr__


def from_module(module: Any, names: Iterable[str] | None = None) -> Callable[[str], Any]:
    """A source: public attributes of `module` (only `names` if given)."""
    allowed = None if names is None else frozenset(names)

    def find(name: str) -> Any:
        if name.startswith("_") or (allowed is not None and name not in allowed):
            raise LookupError(name)
        return getattr(module, name)

    return find
