"""What the text demos (`names`, `gpt`) share: their text file, a progress bar, a loss plot.

The text comes from `--data PATH` when given, else from the data cache, downloaded on first
use with its SHA-256 checked (micrograd.datasets.fetch).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from micrograd import datasets


@dataclass(frozen=True)
class TextSource:
    """A public text file: where to download it, its checksum, its size and cache name."""

    name: str
    urls: tuple[str, ...]
    sha256: str
    filename: str
    size: int  # bytes, to tell the user what a first run downloads


def read_text(source: TextSource, path: str | os.PathLike[str] | None = None,
              data_dir: str | os.PathLike[str] | None = None) -> str:
    """The text of `path` (--data), else of the cached download of `source`.

    Raises FileNotFoundError for a missing --data file, ValueError for one that is empty
    or not UTF-8, and datasets.DownloadError (with what to do) when the download fails.
    """
    if path is not None:
        file = Path(path).expanduser()
        if not file.is_file():
            raise FileNotFoundError(f"--data {str(path)!r}: no such file (give the path of "
                                    f"a UTF-8 text file, such as {source.filename})")
    else:
        try:
            file = datasets.fetch(list(source.urls), source.sha256, source.filename, data_dir)
        except datasets.DownloadError as error:
            raise datasets.DownloadError(
                f"{error}\n{source.name}: download {source.urls[0]} "
                f"({source.size:,} bytes) yourself and pass --data PATH") from None
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{file}: not UTF-8 text ({error.reason} at byte {error.start})") \
            from None
    if not text.strip():
        raise ValueError(f"{file}: the file is empty; the demo needs some text to learn")
    return text


class ProgressBar:
    """tqdm's bar on a terminal when tqdm is installed (on stderr, so pipes stay clean),
    and a `step k/n  loss x` line every tenth of the run on stdout."""

    def __init__(self, name: str, total: int):
        self.total = total
        self.bar: Any = None
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, desc=name, unit="step", file=sys.stderr, disable=None,
                        leave=False)

    def __call__(self, step: int, loss: float) -> None:
        """Step `step` (1-based) ended with minibatch loss `loss`."""
        if self.bar is not None:
            if step % 20 == 0 or step == self.total:
                self.bar.set_postfix(loss=f"{loss:.4f}", refresh=False)
            self.bar.update(1)
        if step % max(1, self.total // 10) == 0 or step == self.total or step == 1:
            self.write(f"step {step:>{len(str(self.total))}}/{self.total}  loss {loss:.4f}")

    def write(self, line: str) -> None:
        if self.bar is not None:
            self.bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def save_loss_plot(losses: Sequence[float], out: str, stem: str, title: str) -> str | None:
    """The loss curve as `out/{stem}_loss.png`; None (and a note) without matplotlib."""
    try:
        from micrograd.viz import plots

        os.makedirs(out, exist_ok=True)
        return plots.save_loss_curve(losses, os.path.join(out, f"{stem}_loss.png"),
                                     title=title)
    except ImportError as error:
        print(f"(no loss plot: {error})")
        return None
