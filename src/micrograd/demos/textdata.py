"""What the text demos (`names`, `gpt`) share: their text file and a loss plot (the progress
bar is demos.common's, shared by every demo that trains for a while).

The text comes from `--data PATH` when given (the file, or a folder holding it under its
cache name), else from the data cache, downloaded on first use with its SHA-256 checked
(micrograd.datasets.fetch).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from micrograd import datasets
from micrograd.demos.common import ProgressBar

__all__ = ["ProgressBar", "TextSource", "data_file", "read_text", "save_loss_plot"]


@dataclass(frozen=True)
class TextSource:
    """A public text file: where to download it, its checksum, its size and cache name."""

    name: str
    urls: tuple[str, ...]
    sha256: str
    filename: str
    size: int  # bytes, to tell the user what a first run downloads
    # other names the file goes by in a --data folder (gpt's URL calls it input.txt)
    aliases: tuple[str, ...] = ()

    def offline_hint(self) -> str:
        """The one instruction that works without network: the file's URL and the command."""
        return (f"Download {self.urls[0]} ({self.size:,} bytes) and run "
                f"`micrograd demo {self.name} --data {self.filename}` (the path of the saved "
                f"file, or the folder that holds it)")


def read_text(source: TextSource, path: str | os.PathLike[str] | None = None,
              data_dir: str | os.PathLike[str] | None = None) -> str:
    """The text of `path` (--data: the file, or a folder holding `source.filename` or one
    of its aliases), else of the cached download of `source`. A --data file is used as
    given, whatever its checksum: the user asked for it.

    Raises FileNotFoundError for a missing --data file, ValueError for one that is empty
    or not UTF-8, and datasets.DownloadError (with what to do) when the download fails.
    """
    if path is not None:
        file = data_file(source, path)
    else:
        file = datasets.fetch(list(source.urls), source.sha256, source.filename, data_dir,
                              offline_hint=source.offline_hint())
    try:
        text = file.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise ValueError(f"{file}: not UTF-8 text ({error.reason} at byte {error.start})") \
            from None
    if not text.strip():
        raise ValueError(f"{file}: the file is empty; the demo needs some text to learn")
    return text


def data_file(source: TextSource, path: str | os.PathLike[str]) -> Path:
    """The file --data names: `path` itself, or the one under the source's name in a folder."""
    given = Path(path).expanduser()
    if given.is_dir():
        names = (source.filename, *source.aliases)
        for name in names:
            if (given / name).is_file():
                return given / name
        raise FileNotFoundError(f"--data {str(path)!r}: the folder holds no "
                                f"{' or '.join(names)} (give the file, or its folder)")
    if not given.is_file():
        raise FileNotFoundError(f"--data {str(path)!r}: no such file or folder (give the path "
                                f"of a UTF-8 text file such as {source.filename}, or its folder)")
    return given


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
