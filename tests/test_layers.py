"""The stages of vaultkit import downward only, and no modules import each other in a circle.

The import graph is read from the source with `ast` (every import, also the ones inside functions
and under TYPE_CHECKING: each is a dependency). A module may import its own stage and the stages
below it; a package and its own modules may import each other (a package's __init__ gathering
its modules), any other circle between modules fails.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vaultkit

# Lowest first; each entry names modules by their path below the package ("" is the package).
STAGES = (
    ("ground", ("", "engine", "numbers", "figures", "diagnostics", "explain", "writer", "workers")),
    ("readers", ("readers",)),
    ("model", ("model",)),
    ("checks", ("checks",)),
    ("renderers", ("renderers",)),
    ("state", ("pipeline", "state")),
    ("commands", ("commands", "__main__", "rules")),
)

# Upward imports tolerated, each with why (none today: the test fails on an entry no longer needed).
ALLOWED_UPWARD: set[tuple[str, str]] = set()


def modules(package: Path) -> dict[str, Path]:
    """Every module of the package folder, by dotted name."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    """The modules of `known` that the module `name` imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                above = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(above + ([base] if base else []))
            for alias in node.names:  # `from package import module` imports the module
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return {module for module in found if module in known and module != name}


def graph(package: Path) -> dict[str, set[str]]:
    known = modules(package)
    return {name: imports(name, path, known) for name, path in known.items()}


def stage_of(name: str, stages=STAGES) -> int | None:
    """The stage of a module (None: no stage names it)."""
    below = name.partition(".")[2]
    for level, (_, prefixes) in enumerate(stages):
        if any(below == prefix or (prefix and below.startswith(prefix + ".")) for prefix in prefixes):
            return level
    return None


def upward(edges: dict[str, set[str]], stages=STAGES) -> set[tuple[str, str]]:
    """(importer, imported) where the imported module's stage is above the importer's."""
    return {
        (a, b)
        for a, bs in edges.items()
        for b in bs
        if None not in (stage_of(a, stages), stage_of(b, stages)) and stage_of(b, stages) > stage_of(a, stages)
    }


def unplaced(edges: dict[str, set[str]], stages=STAGES) -> list[str]:
    """The modules no stage names."""
    return sorted(name for name in edges if stage_of(name, stages) is None)


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Groups of modules that import each other in a circle (Tarjan's strongly connected
    components), leaving out the imports between a package and its own modules."""
    kept = {a: {b for b in bs if not (b.startswith(a + ".") or a.startswith(b + "."))} for a, bs in edges.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(kept[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while (w := stack.pop()) != v:
                group.append(w)
            if group:
                found.append(sorted([v, *group]))

    for v in sorted(kept):
        if v not in index:
            visit(v)
    return found


VAULTKIT = Path(vaultkit.__file__).parent


def test_every_module_has_a_stage():
    assert unplaced(graph(VAULTKIT)) == []


def test_no_import_runs_back_up():
    found = upward(graph(VAULTKIT))
    assert sorted(found - ALLOWED_UPWARD) == []
    assert sorted(ALLOWED_UPWARD - found) == [], "no longer imported: remove from ALLOWED_UPWARD"


def test_no_import_circle():
    assert cycles(graph(VAULTKIT)) == []


def test_the_walk_reports_an_upward_import_and_a_circle(tmp_path):
    """A tiny package laid out as vaultkit, with one import up and one circle: both are found."""
    files = {
        "__init__.py": "",
        "engine.py": "import math\n",
        "readers/__init__.py": "",
        "readers/text.py": "from pkg import engine\n\n\ndef read():\n    from pkg.commands import cli  # up\n",
        "commands/__init__.py": "",
        "commands/cli.py": "from . import check\nfrom pkg import engine\n",
        "commands/check.py": "from .cli import main\n",
    }
    for rel, text in files.items():
        (tmp_path / "pkg" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "pkg" / rel).write_text(text, encoding="utf-8")
    edges = graph(tmp_path / "pkg")
    assert edges["pkg.commands.cli"] == {"pkg.commands.check", "pkg.engine"}
    assert upward(edges) == {("pkg.readers.text", "pkg.commands.cli")}
    assert cycles(edges) == [["pkg.commands.check", "pkg.commands.cli"]]
    assert unplaced(edges) == []
    (tmp_path / "pkg" / "extra.py").write_text("", encoding="utf-8")
    assert unplaced(graph(tmp_path / "pkg")) == ["pkg.extra"]
