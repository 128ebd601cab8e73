"""The torch names micrograd.torch supports, found by walking the facade modules: the
docs page's list is generated from this, so it cannot drift from the code."""

from __future__ import annotations

import importlib
import inspect

_MODULES = ["micrograd.torch", "micrograd.torch.nn", "micrograd.torch.nn.functional",
            "micrograd.torch.nn.init", "micrograd.torch.optim",
            "micrograd.torch.optim.lr_scheduler", "micrograd.torch.utils.data",
            "micrograd.torch.autograd", "micrograd.torch.cuda", "micrograd.torch.cuda.amp",
            "micrograd.torch.amp", "micrograd.torch.backends", "micrograd.torch.backends.cuda",
            "micrograd.torch.backends.cudnn", "micrograd.torch.backends.mps",
            "micrograd.torch.accelerator", "micrograd.torch.distributed",
            "micrograd.torch.nn.parallel", "micrograd.torch.nn.utils",
            "micrograd.torch.utils.tensorboard"]
_OWN = {"load_ipython_extension", "unload_ipython_extension", "supported_names",
        "annotations"}


def supported_names() -> dict[str, list[str]]:
    """{"torch.nn": ["BatchNorm1d", ...], ...}: every public name each module resolves."""
    found: dict[str, list[str]] = {}
    for module_name in _MODULES:
        module = importlib.import_module(module_name)
        listed = set(getattr(module, "__all__", []))
        module_dir = vars(module).get("__dir__")
        if module_dir is not None:
            listed |= set(module_dir())
        names = []
        for name in listed:
            if name.startswith("_") or name in _OWN:
                continue
            try:
                value = getattr(module, name)
            except AttributeError:
                continue
            if inspect.ismodule(value) and not value.__name__.startswith("micrograd.torch"):
                continue  # numpy, types... imported for the module's own use
            names.append(name)
        # by lower case, then as written: `Tensor` before `tensor` in every run (a key of
        # str.lower alone left the pair in set order, which changes with the hash seed)
        found[module_name.replace("micrograd.", "", 1)] = sorted(
            names, key=lambda name: (name.lower(), name))
    return found


def format_markdown() -> str:
    """The supported names as Markdown, one section per torch module."""
    lines = []
    for module, names in supported_names().items():
        lines.append(f"### `{module}`\n")
        lines.append(", ".join(f"`{n}`" for n in names) + "\n")
    return "\n".join(lines)
