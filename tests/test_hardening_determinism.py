"""Determinism: the same vault gives the same bytes (site, search index, figures, fixed notes)
under different PYTHONHASHSEED values."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, needs_corpus

PYTHON = sys.executable
BUNDLED = Path(__file__).resolve().parents[1] / "vault"

EXTRA = {
    # set-like data whose order a hash seed could change: tags, aliases, backlinks, many links
    "x/集合.md": "---\ntags: [b, a, 中文, c/d, '', 3]\naliases: [z, y, 别名]\n---\n# 集合\n\n"
    + " ".join(f"[[n{i}]] #t{i % 7}" for i in range(30))
    + "\n",
    **{f"x/n{i}.md": f"# N{i}\n\n[[集合]] #t{i % 5}\n" for i in range(30)},
}


def tree(folder: Path) -> dict[str, bytes]:
    out = {}
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            data = path.read_bytes()
            out[path.relative_to(folder).as_posix()] = gzip.decompress(data) if path.suffix == ".gz" else data
    return out


def make_vault(tmp_path: Path) -> Path:
    if not BUNDLED.is_dir():
        pytest.skip(f"the bundled vault is not at {BUNDLED}")
    root = tmp_path / "vault"
    shutil.copytree(BUNDLED, root)
    for rel, text in EXTRA.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def vaultkit(args: list[str], seed: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run(
        [PYTHON, "-m", "vaultkit", *args], capture_output=True, text=True, timeout=180, env=env, cwd=cwd
    )


def assert_same_trees(a: dict[str, bytes], b: dict[str, bytes]) -> None:
    assert sorted(a) == sorted(b)
    differ = [rel for rel in a if a[rel] != b[rel]]
    assert differ == [], f"differ between runs: {differ[:10]}"


def test_two_builds_are_byte_identical(tmp_path):
    root = make_vault(tmp_path)
    for seed in ("1", "4242"):
        done = vaultkit(["build", str(root), "-o", str(tmp_path / f"site-{seed}")], seed, tmp_path)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    first, second = tree(tmp_path / "site-1"), tree(tmp_path / "site-4242")
    assert "search/search_index.json" in first and any(rel.endswith(".svg") for rel in first)
    assert_same_trees(first, second)


def test_two_fixes_write_byte_identical_notes_and_figures(tmp_path):
    original = make_vault(tmp_path)
    for path in original.rglob("*.svg"):  # figures drawn afresh by fix
        if b"vaultkit" in path.read_bytes():
            path.unlink()
    results = []
    for seed in ("7", "90001"):
        root = tmp_path / f"fix-{seed}"
        shutil.copytree(original, root)
        vaultkit(["fix", str(root)], seed, tmp_path)
        results.append(tree(root))
    assert results[0] != tree(original), "fix wrote nothing: the test would prove nothing"
    assert_same_trees(*results)


@pytest.mark.slow
@needs_corpus
def test_corpus_builds_are_byte_identical(tmp_path):
    for seed in ("3", "31337"):
        done = vaultkit(["build", str(CORPUS), "-o", str(tmp_path / f"site-{seed}")], seed, tmp_path)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert_same_trees(tree(tmp_path / "site-3"), tree(tmp_path / "site-31337"))
