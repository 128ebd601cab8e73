"""The learner's file as Python reads it: encoding, notebooks, size and nesting limits, and
the copy of it (with the files next to it that it imports) into the scratch folder.

Every problem with the input itself is a `ValueError` with one line saying what was wrong.
"""

from __future__ import annotations

import ast
import io
import json
import shutil
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from micrograd.check.childlib import PARSE_LOCK, python_lines

MAX_SOURCE_BYTES = 1024 * 1024         # Python source (learners' engines are a few KB): parsing
                                       # and scanning it must fit well inside --timeout
MAX_NOTEBOOK_BYTES = 16 * 1024 * 1024  # a .ipynb carries outputs and pictures
MAX_COPIED_FILES = 400
MAX_COPIED_BYTES = 32 * 1024 * 1024


@dataclass
class Learner:
    """The file to check, read and (for a notebook) joined into one script."""

    path: Path                 # the file the user named
    text: str                  # the Python source (a notebook's code cells joined)
    raw: bytes                 # what the child compiles (the .py bytes, or the joined text)
    origin: list[str] | None   # a notebook: where each line of `text` came from
    cells: list[tuple[int, int, int]] | None  # (cell number, first line, last line)
    package_root: Path | None  # a file inside a package: the folder holding the package
    module_name: str           # 'learner_engine', or 'pkg.module' inside a package

    def place(self, line: object) -> int | str | None:
        """A script line -> 'cell 3, line 2' for a notebook; unchanged for a .py."""
        if self.origin and isinstance(line, int) and 1 <= line <= len(self.origin):
            return self.origin[line - 1]
        return line if isinstance(line, (int, str)) else None


def read_learner(path: Path) -> Learner:
    """Read and decode the file; ValueError for anything Python could not read."""
    if not path.is_file():
        raise ValueError(f"{path}: no such file (expected a .py file or a .ipynb notebook)")
    if path.suffix not in (".py", ".ipynb"):
        raise ValueError(f"{path}: expected a .py file or a .ipynb notebook, got '{path.suffix}'")
    limit = MAX_NOTEBOOK_BYTES if path.suffix == ".ipynb" else MAX_SOURCE_BYTES
    size = path.stat().st_size
    if size > limit:
        raise ValueError(f"{path}: {size:,} bytes is too large to check (the limit is "
                         f"{limit:,} bytes for a {path.suffix} file)")
    raw = path.read_bytes()[:limit + 1]
    if path.suffix == ".ipynb":
        text, origin, cells = notebook_to_source(decode_notebook(raw, path), path)
        if len(text.encode("utf-8")) > MAX_SOURCE_BYTES:
            raise ValueError(f"{path}: its code cells hold {len(text.encode('utf-8')):,} bytes, "
                             f"too large to check (the limit is {MAX_SOURCE_BYTES:,} bytes)")
        return Learner(path, text, text.encode("utf-8"), origin, cells, None, "learner_engine")
    text = decode_python(raw, path)
    root, name = package_module(path.resolve())
    return Learner(path, text, raw, None, None, root, name or "learner_engine")


def decode_python(raw: bytes, path: Path) -> str:
    """As the interpreter decodes source: a UTF-8 BOM, a PEP 263 coding line, else UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding)
    except (SyntaxError, LookupError) as error:
        raise ValueError(f"{path}: cannot read the source: {error}") from None
    except UnicodeDecodeError as error:
        raise ValueError(f"{path}: not valid {error.encoding} text at byte {error.start} "
                         "(save it as UTF-8, or declare its encoding: # -*- coding: latin-1 -*-)"
                         ) from None


def decode_notebook(raw: bytes, path: Path) -> list[dict[str, Any]]:
    """The notebook's cells, checked to be what Jupyter writes (ValueError otherwise)."""
    try:
        notebook = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise ValueError(f"{path}: not a Jupyter notebook (expected JSON): "
                         f"{str(error).splitlines()[0][:200]}") from None
    if not isinstance(notebook, dict) or "cells" not in notebook:
        raise ValueError(f"{path}: not a Jupyter notebook (expected a JSON object with 'cells')")
    cells = notebook["cells"]
    if not isinstance(cells, list):
        raise ValueError(f"{path}: not a Jupyter notebook: 'cells' is a "
                         f"{type(cells).__name__}, expected a list of cells")
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise ValueError(f"{path}: not a Jupyter notebook: cell {number} is a "
                             f"{type(cell).__name__}, expected an object")
        source = cell.get("source", "")
        if not (isinstance(source, str) or (isinstance(source, list)
                                            and all(isinstance(s, str) for s in source))):
            raise ValueError(f"{path}: not a Jupyter notebook: the source of cell {number} is "
                             "not text or a list of text")
    return cells


def notebook_to_source(cells: list[dict[str, Any]],
                       path: Path) -> tuple[str, list[str], list[tuple[int, int, int]]]:
    """The code cells joined into one script, where each line came from, and the cells as
    (cell number, first line, last line). IPython magics (%, !) become `pass  # magic`, so the
    script is plain Python and an indented block keeps its body. Nothing is run."""
    lines: list[str] = []
    origin: list[str] = []
    code_cells: list[tuple[int, int, int]] = []
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else source
        lines.append(f"# %% cell {number}")
        origin.append(f"cell {number}")
        body = python_lines(source)  # U+2028 inside a string is not a line break
        for offset, line in enumerate(body, start=1):
            stripped = line.lstrip()
            if stripped.startswith(("%", "!")):
                line = line[: len(line) - len(stripped)] + "pass  # " + stripped
            lines.append(line)
            origin.append(f"cell {number}, line {offset}")
        if body:
            code_cells.append((number, len(lines) - len(body) + 1, len(lines)))
    return "\n".join(lines) + "\n", origin, code_cells


def parse(text: str, filename: str = "<unknown>") -> ast.Module:
    """ast.parse, one thread at a time (see childlib.PARSE_LOCK)."""
    with PARSE_LOCK:
        return ast.parse(text, filename)


def parse_for_checks(learner: Learner) -> tuple[str, ast.Module]:
    """The source for the source checks (a notebook: cells that don't parse blanked), parsed.

    Raises SyntaxError (reported as the file's error), or ValueError when the source is
    nested too deeply for Python's compiler (Python itself could not run the file).
    """
    text = learner.text
    if learner.cells is not None:
        text = parsable_cells_only(text, learner.cells)
    try:
        return text, parse(text)
    except (RecursionError, MemoryError):
        raise ValueError(f"{learner.path}: the source is nested too deeply for Python's "
                         "compiler (a very long expression?); Python could not run it either"
                         ) from None


def parsable_cells_only(source: str, cells: list[tuple[int, int, int]]) -> str:
    """The joined notebook with each cell that does not parse blanked (line numbers kept)."""
    lines = source.split("\n")
    for _, first, last in cells:
        try:
            parse("\n".join(lines[first - 1:last]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            lines[first - 1:last] = [""] * (last - first + 1)
    return "\n".join(lines)


def package_module(path: Path) -> tuple[Path | None, str | None]:
    """For a file inside a package (folders with __init__.py): (folder holding the top
    package, dotted module name); (None, None) for a loose file."""
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").exists():
        parts.insert(0, folder.name)
        folder = folder.parent
    if len(parts) == 1:
        return None, None
    if parts[-1] == "__init__":
        parts.pop()
    return folder, ".".join(parts)


def copy_into(learner: Learner, work: Path, tree: ast.Module | None = None,
              skipped: list[str] | None = None, texts: dict[str, str] | None = None) -> Path:
    """Copy what the child needs into `work`; return the path the child loads. Files left out
    (past MAX_COPIED_FILES / MAX_COPIED_BYTES) are named in `skipped`. `texts` receives the
    copied .py files' text by their path in `work` (the pointers into another of the learner's
    files are read from it, never from the copy the learner's code could change).

    A loose file: it and the .py/.ipynb files next to it (and the packages next to it that it
    imports). A file inside a package: that package's .py files. A notebook: its joined
    script. Nothing is read from, or written to, the learner's folder after this.
    """
    budget = [MAX_COPIED_FILES, MAX_COPIED_BYTES]

    def copy(source: Path, target: Path) -> None:
        size = source.stat().st_size
        if budget[0] <= 0 or size > budget[1]:
            if skipped is not None:
                skipped.append(source.name)
            return
        budget[0] -= 1
        budget[1] -= size
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        if texts is not None and target.suffix == ".py":
            texts[target.relative_to(work).as_posix()] = \
                target.read_bytes().decode("utf-8", "replace")

    if learner.package_root is not None:
        top = learner.package_root / learner.module_name.split(".")[0]
        for file in sorted(top.rglob("*.py")):
            if "__pycache__" not in file.parts:
                copy(file, work / file.relative_to(learner.package_root))
        target = work / learner.path.resolve().relative_to(learner.package_root)
        target.write_bytes(learner.raw)
        return target
    folder = learner.path.resolve().parent
    for file in sorted(folder.iterdir()):
        if file.is_file() and file.suffix in (".py", ".ipynb") \
                and file.resolve() != learner.path.resolve():
            copy(file, work / file.name)
    for name in imported_names(tree):
        package = folder / name
        if (package / "__init__.py").is_file():
            for file in sorted(package.rglob("*.py")):
                if "__pycache__" not in file.parts:
                    copy(file, work / file.relative_to(folder))
    stem = learner.path.stem
    if learner.cells is not None:  # not to be confused with a .py of the same name beside it
        stem = stem.replace("-", "_").replace(" ", "_") + "__notebook"
    target = work / f"{stem}.py"
    target.write_bytes(learner.raw)
    return target


def imported_names(tree: ast.Module | None) -> set[str]:
    """Top-level names of the modules a (parsed) file imports without a relative dot."""
    if tree is None:
        return set()
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return {n for n in names if n.isidentifier()}
