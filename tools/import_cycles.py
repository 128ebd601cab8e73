"""List import cycles among micrograd's modules: `python tools/import_cycles.py [src/micrograd]`.

Every import counts, at the top of a module or inside a function (a lazy import is still an
arrow), and so does importlib.import_module("micrograd...") with a literal name. Exit 1 when
there is a cycle; the cycles are printed one per line.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_names(root: Path) -> dict[str, Path]:
    """{'micrograd.viz.trace': path} for every .py file under root (a package dir)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_type_checking(test: ast.expr) -> bool:
    """`TYPE_CHECKING` or `typing.TYPE_CHECKING`: a block only type checkers read."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node that can run: all of ast.walk's but the bodies of `if TYPE_CHECKING:`
    (an import there is never executed, so it is no arrow; its `else:` still runs)."""
    found: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return found


def imports_of(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The micrograd modules that module `name` imports, anywhere in its source."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str) -> None:
        while target and target not in known:  # `from a.b import c`: a.b, or a.b.c if a module
            target = target.rpartition(".")[0]
        if target and target != name:
            found.add(target)

    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                add(full if full in known else base)
        elif (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "import_module"
              and node.args and isinstance(node.args[0], ast.Constant)
              and isinstance(node.args[0].value, str)):
            add(node.args[0].value)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    result: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def import_graph(root: Path) -> dict[str, set[str]]:
    known = module_names(root)
    graph = {name: imports_of(name, path, known) for name, path in known.items()}
    # a package's __init__ importing its own submodules is how packages re-export: not an arrow
    # back up unless the submodule imports the package's __init__ by name
    return graph


def main(argv: list[str]) -> int:
    root = Path(argv[1] if len(argv) > 1 else "src/micrograd")
    found = cycles(import_graph(root))
    for component in found:
        print(" <-> ".join(component))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
