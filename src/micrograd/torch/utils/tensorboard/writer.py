"""SummaryWriter: scalars (and text) into TensorBoard event files, as torch's writes them.

The event-file format (tfrecord-framed `Event` protobufs) is the `tensorboard` package's;
it is imported only when a writer is made, and micrograd does not depend on it: without
it, making a writer is a clear error saying what to install (torch needs it too).
"""

from __future__ import annotations

import os
import socket
import time
from datetime import datetime
from typing import Any

from micrograd.torch import _facade

__all__ = ["SummaryWriter"]


def _default_log_dir(comment: str) -> str:
    """runs/<Mon>DD_HH-MM-SS_<host><comment>, torch's default."""
    stamp = datetime.now().strftime("%b%d_%H-%M-%S")
    return os.path.join("runs", f"{stamp}_{socket.gethostname()}{comment}")


def _event_modules() -> tuple[Any, Any, Any]:
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError as error:
        raise ModuleNotFoundError(
            "torch.utils.tensorboard.SummaryWriter writes TensorBoard event files through "
            "the `tensorboard` package, which is not installed: pip install tensorboard "
            f"(real torch needs it too). ({error})", name="tensorboard") from None
    return event_pb2, summary_pb2, EventFileWriter


class SummaryWriter:
    """Log scalars for TensorBoard: `writer.add_scalar("Loss/train", loss, step)`."""

    def __init__(self, log_dir: str | None = None, comment: str = "", purge_step: Any = None,
                 max_queue: int = 10, flush_secs: int = 120, filename_suffix: str = ""):
        self._event_pb2, self._summary_pb2, event_file_writer = _event_modules()
        self.log_dir = log_dir if log_dir is not None else _default_log_dir(comment)
        self._writer = event_file_writer(self.log_dir, max_queue, flush_secs,
                                         filename_suffix)
        # the first record of every event file: its version, as torch's FileWriter writes
        self._write(file_version="brain.Event:2")

    def _write(self, step: int | None = None, walltime: float | None = None,
               **fields: Any) -> None:
        event = self._event_pb2.Event(wall_time=time.time() if walltime is None else walltime,
                                      **fields)
        if step is not None:
            event.step = int(step)
        self._writer.add_event(event)

    def get_logdir(self) -> str:
        return self.log_dir

    def add_scalar(self, tag: str, scalar_value: Any, global_step: int | None = None,
                   walltime: float | None = None, new_style: bool = False,
                   double_precision: bool = False) -> None:
        """One point of the curve `tag` (a number or a one-element tensor)."""
        value = float(scalar_value.item() if hasattr(scalar_value, "item") else scalar_value)
        summary = self._summary_pb2.Summary(
            value=[self._summary_pb2.Summary.Value(tag=tag, simple_value=value)])
        self._write(global_step, walltime, summary=summary)

    def add_scalars(self, main_tag: str, tag_scalar_dict: dict[str, Any],
                    global_step: int | None = None, walltime: float | None = None) -> None:
        """Several curves under one chart: written as `main_tag/name` scalars."""
        for name, value in tag_scalar_dict.items():
            self.add_scalar(f"{main_tag}/{name}", value, global_step, walltime)

    def flush(self) -> None:
        self._writer.flush()

    def close(self) -> None:
        self._writer.close()

    def __enter__(self) -> SummaryWriter:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise _facade.unsupported("torch.utils.tensorboard.SummaryWriter", name)
