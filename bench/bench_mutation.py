"""Mutation testing of chosen modules with chosen tests: mutmut 3.8.1 in a temporary copy of a tree.

    python bench/bench_mutation.py --root TREE --paths vaultkit/engine.py --tests tests/test_engine.py

mutmut is a dev tool, not a dependency: `pip install 'vaultkit[dev]'` or `pip install mutmut==3.8.1`.

mutmut 3 reads its settings from `[tool.mutmut]` in pyproject.toml and writes `mutants/` beside it,
so the tree is copied to a temporary directory first (without .git), the settings are written into
the copy's pyproject.toml only (with a pytest plugin that lifts hypothesis's deadline: a slow
test is no kill), and the copy is removed at the end (`--keep` leaves it, to browse
it with `mutmut browse`). The checkout is never written. Prints each status's count, the score
(killed, timeouts included, over all mutants: a mutant no test reaches counts as not killed) and
every mutant not killed with its diff (`mutmut show NAME`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections import Counter
from pathlib import Path

MUTMUT = "3.8.1"
LEFT_OUT = (".git", "mutants", "__pycache__", ".venv", ".pytest_cache", ".hypothesis", ".ruff_cache", "site", "shared")
DETECTED = ("killed", "timeout", "caught by type check")
# A pytest plugin written into the copy: hypothesis without its 200 ms deadline and its health
# checks (too slow, too much filtered), so a test slowed by a loaded machine (or mutmut's tracing)
# does not fail and pass for a killed mutant.
PLUGIN = "mutation_settings"
PLUGIN_TEXT = """from hypothesis import HealthCheck, settings

settings.register_profile("mutation", deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile("mutation")
"""


def mutmut_config(tree: Path, paths: list[str], tests: list[str]) -> str:
    """The `[tool.mutmut]` table: mutate `paths` only, run `tests` only, copy the rest of the tree."""
    sources = sorted({Path(path).parts[0] for path in paths})
    others = sorted(
        entry.name
        for entry in tree.iterdir()
        if entry.name not in sources and entry.name not in LEFT_OUT and not entry.is_symlink()
    )
    settings = {
        "source_paths": sources,
        "only_mutate": paths,
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", PLUGIN],
        "also_copy": others,
    }
    return "\n[tool.mutmut]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in settings.items())


def copy_tree(root: Path, work: Path, paths: list[str], tests: list[str]) -> Path:
    """A copy of `root` in `work` with the mutmut settings in its pyproject.toml."""
    tree = work / "tree"
    shutil.copytree(root, tree, symlinks=True, ignore=shutil.ignore_patterns(*LEFT_OUT))
    pyproject = tree / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8") if pyproject.exists() else ""
    if "mutmut" in tomllib.loads(text).get("tool", {}):
        raise SystemExit(f"{root}/pyproject.toml already has [tool.mutmut]; this script writes its own")
    pyproject.write_text(text + mutmut_config(tree, paths, tests), encoding="utf-8")
    # mutmut copies what a link points to (node_modules: 150 MB); the tests run in mutants/, so
    # links go there as links. tests/conftest.py finds the corpus at <tree>/../shared, which for
    # tests in <copy>/mutants/tests is <copy>/shared.
    (tree / "mutants").mkdir()
    (tree / "mutants" / f"{PLUGIN}.py").write_text(PLUGIN_TEXT, encoding="utf-8")
    for entry in tree.iterdir():
        if entry.is_symlink():
            (tree / "mutants" / entry.name).symlink_to(entry.resolve())
    shared = (root / ".." / "shared").resolve()
    if shared.is_dir():
        (tree / "shared").symlink_to(shared)
    return tree


def mutmut(tree: Path, *args: str, code: str | None = None) -> str:
    """Run `mutmut ARGS` in the copy (or the Python `code` with ARGS, mutmut importable); the
    mutated copy (mutants/) comes first on the import path, also for the subprocesses tests start."""
    env = {**os.environ, "PYTHONPATH": str(tree / "mutants")}
    command = [sys.executable, "-c", code, *args] if code else [sys.executable, "-m", "mutmut", *args]
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"mutmut {' '.join(args)} exited with {done.returncode}")
    return done.stdout


# `mutmut show NAME` for many names in one process (each `mutmut show` loads mutmut anew)
SHOW = "import sys\nfrom mutmut.__main__ import show\nfor name in sys.argv[1:]:\n    show.callback(name)\n    print()\n"


def statuses(tree: Path) -> dict[str, str]:
    """Each mutant's status, from `mutmut results --all true` (lines `    NAME: STATUS`)."""
    found = {}
    for line in mutmut(tree, "results", "--all", "true").splitlines():
        name, sep, status = line.strip().rpartition(": ")
        if sep:
            found[name] = status
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path.cwd(), help="the tree to copy (default: here)")
    parser.add_argument("--paths", nargs="+", required=True, help="modules to mutate, relative to the root")
    parser.add_argument("--tests", nargs="+", required=True, help="test files or node ids to run, relative to the root")
    parser.add_argument("--max-children", type=int, default=1, help="mutants run at once (default 1)")
    parser.add_argument("--keep", action="store_true", help="leave the temporary copy and print where it is")
    args = parser.parse_args()
    root = args.root.resolve()
    for path in args.paths + [test.split("::")[0] for test in args.tests]:
        if not (root / path).is_file():
            raise SystemExit(f"{root / path} is not a file")
    try:
        from importlib.metadata import version

        if version("mutmut") != MUTMUT:
            print(f"warning: mutmut {version('mutmut')} installed, this script was written for {MUTMUT}")
    except ImportError:
        raise SystemExit(f"mutmut is not installed: pip install mutmut=={MUTMUT}") from None

    work = Path(tempfile.mkdtemp(prefix="vaultkit-mutation-"))
    try:
        tree = copy_tree(root, work, args.paths, args.tests)
        print(f"mutmut run in {tree} ...", flush=True)
        start = time.perf_counter()
        mutmut(tree, "run", "--max-children", str(args.max_children))
        seconds = time.perf_counter() - start
        found = statuses(tree)
        counts = Counter(found.values())
        killed = sum(counts[status] for status in DETECTED)
        total = len(found)
        print(f"mutmut {MUTMUT} over {' '.join(args.paths)} with {' '.join(args.tests)} ({seconds:.0f} s)")
        print("  " + ", ".join(f"{status} {count}" for status, count in sorted(counts.items())))
        print(
            f"killed {killed} survived {total - killed} total {total} score {killed / total:.1%}"
            if total
            else "no mutants"
        )
        alive = [name for name, status in sorted(found.items()) if status not in DETECTED]
        if alive:
            print("\n" + mutmut(tree, *alive, code=SHOW).rstrip())
    finally:
        if args.keep:
            print(f"\nthe copy: {work / 'tree'} (mutmut browse there)")
        else:
            shutil.rmtree(work)


if __name__ == "__main__":
    main()
