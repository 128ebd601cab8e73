"""The child program of `micrograd check --ninja`: the engine checker's child (same channel,
limits, cell-by-cell loading), running the learner's part-4 notebook or script with
`import torch` on micrograd.torch and a `Recorder` watching it.

    python -I -B ninja_child.py REQUEST_FD REPORT_FD

Unlike the engine checker's child it imports micrograd (from the folder the parent names):
the learner's code runs on it. It answers two requests: `ninja` (run the file, report the
events and the blobs' shapes) and `blobs` (the numbers of some blobs, base64).
"""

from __future__ import annotations

import base64
import functools
import importlib.util
import os
import sys
from collections.abc import Callable
from typing import Any


def _load_child() -> Any:
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "child.py")
    spec = importlib.util.spec_from_file_location("_micrograd_check_child", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_BASE = _load_child()


class NinjaChild(_BASE.Child):  # type: ignore[name-defined]
    recorder: Any = None

    def handlers(self) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
        return {"ninja": self.ninja, "blobs": self.blobs}

    def ninja(self, request: dict[str, Any]) -> dict[str, Any]:
        sys.path.insert(0, request["micrograd"])
        from micrograd.check.ninja_record import Recorder
        from micrograd.torch.runner import install

        install()  # the learner's `import torch` gets micrograd.torch
        self.recorder = Recorder()
        loaded = self.load(request)
        blobs = self.recorder.blobs
        return {"failures": loaded["failures"], "events": self.recorder.events,
                "blobs": {key: [a.dtype.name, list(a.shape)] for key, a in blobs.items()}}

    def blobs(self, request: dict[str, Any]) -> dict[str, Any]:
        stored = self.recorder.blobs if self.recorder is not None else {}
        return {"blobs": {key: base64.b64encode(stored[key].tobytes()).decode("ascii")
                          for key in request["keys"] if key in stored}}

    def limited(self, seconds: float, fn: Callable[[], Any]) -> Any:
        """Run one cell or statement, then let the recorder look at the namespace."""
        try:
            return super().limited(seconds, fn)
        finally:
            if self.recorder is not None and isinstance(fn, functools.partial) \
                    and fn.func is exec and fn.args:
                lines = [line for _, _, line in fn.args[0].co_lines() if line]
                self.recorder.after_unit(self.module.__dict__, max(lines, default=0))

    def find_class(self, wanted: str | None) -> tuple[type | None, str]:
        return None, "no engine class is looked for (--ninja)"


def main(argv: list[str]) -> None:
    _BASE.main(argv, NinjaChild)  # the engine checker's start-up: limits, namespace, channel


if __name__ == "__main__":
    try:
        main(sys.argv)
    finally:
        os._exit(0)  # skip atexit handlers and threads the learner's file may have started
