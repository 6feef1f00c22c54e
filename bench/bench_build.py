#!/usr/bin/env python3
"""Site build time: vaultkit (mkdocs build with the vaultkit plugin) vs a bare mkdocs-material
build of the same pages, as a ratio measured in one run. Target: ratio <= 1.2.

    .venv/bin/python bench/bench_build.py [VAULT]     (default: ../shared/corpus/vault146)

The vault is copied to a temp dir first; both builds use the same theme, search (jieba) and
markdown extensions, so the ratio is the cost of the vaultkit plugin itself.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from vaultkit.site.plugin import EXTENSIONS

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "vault146"
ROUNDS = 3


def write_config(folder: Path, with_vaultkit: bool) -> Path:
    config = {
        "site_name": "bench",
        "docs_dir": "vault",
        "theme": {"name": "material", "language": "zh", "font": False},
        "plugins": ["search", "vaultkit"] if with_vaultkit else ["search"],
        "markdown_extensions": [{name: options} if options else name for name, options in EXTENSIONS.items()],
    }
    path = folder / ("vaultkit.yml" if with_vaultkit else "bare.yml")
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


def timed_build(config: Path, out: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(config), "-d", str(out)],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> int:
    source = Path(sys.argv[1]) if len(sys.argv) > 1 else CORPUS
    if not source.is_dir():
        print(f"vault not found: {source}")
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        shutil.copytree(source, folder / "vault")
        configs = {"bare mkdocs-material": write_config(folder, False), "vaultkit": write_config(folder, True)}
        times: dict[str, list[float]] = {name: [] for name in configs}
        for _ in range(ROUNDS):  # alternate, so load on the machine hits both alike
            for name, config in configs.items():
                times[name].append(timed_build(config, folder / f"site-{config.stem}"))
    pages = sum(1 for _ in source.rglob("*.md"))
    for name, values in times.items():
        print(f"{name:>22}: best {min(values):.2f} s of {ROUNDS} ({', '.join(f'{v:.2f}' for v in values)})")
    ratio = min(times["vaultkit"]) / min(times["bare mkdocs-material"])
    print(f"{pages} notes; vaultkit / bare = {ratio:.2f}x (target <= 1.2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
