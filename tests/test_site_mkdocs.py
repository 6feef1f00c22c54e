"""`mkdocs build` with the vaultkit plugin gives the same site as `vaultkit build`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_mkdocs_build_equals_vaultkit_build(tmp_path):
    ours, theirs = tmp_path / "vaultkit", tmp_path / "mkdocs"
    run = dict(cwd=ROOT, capture_output=True, text=True, timeout=300)
    built = subprocess.run([sys.executable, "-m", "vaultkit", "build", "vault", "-o", str(ours)], **run)
    assert built.returncode == 0, built.stdout + built.stderr
    built = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", "mkdocs.yml", "-d", str(theirs)], **run
    )
    assert built.returncode == 0, built.stdout + built.stderr
    a, b = tree(ours), tree(theirs)
    assert sorted(a) == sorted(b)
    assert [name for name in a if a[name] != b[name]] == []
