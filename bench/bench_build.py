#!/usr/bin/env python3
"""Site build time, as ratios measured in one run (the machine is shared and noisy).

    .venv/bin/python bench/bench_build.py [--vault V] [--copies 8] [--large N] [--bare] [--zensical EXE]

- scale: `vaultkit build` of VAULT (default ../shared/corpus/vault146) and of `--copies` renamed
  copies of it in one vault (../shared/tools/make_large_vault.py); target copies-vault / vault
  <= 1.075 × copies (8.6× for 8). `--large N` also times a vault of N copies (45 ≈ 6,500 notes)
  and prints its time per note against VAULT's.
- `--bare`: vaultkit against plain mkdocs-material with the same extensions on the same pages.
- `--zensical EXE`: vaultkit against `zensical build` (EXE from a separate venv) of a copy of
  VAULT with material, zh search and material's recommended markdown extensions.

Every vault is copied or generated under a temp dir; builds run in subprocesses.
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from vaultkit.site.plugin import EXTENSIONS

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "vault146"
MAKE_LARGE = SHARED / "tools" / "make_large_vault.py"

# Material's recommended markdown extensions (emoji left out: its index lives in material's package).
RECOMMENDED = [
    "abbr", "admonition", "attr_list", "def_list", "footnotes", "md_in_html", {"toc": {"permalink": True}},
    {"pymdownx.arithmatex": {"generic": True}}, "pymdownx.betterem", "pymdownx.caret", "pymdownx.details",
    {"pymdownx.highlight": {"anchor_linenums": True}}, "pymdownx.inlinehilite", "pymdownx.keys",
    "pymdownx.mark", "pymdownx.smartsymbols", "pymdownx.superfences",
    {"pymdownx.tabbed": {"alternate_style": True}}, {"pymdownx.tasklist": {"custom_checkbox": True}},
    "pymdownx.tilde",
]


def run(command: list[str], cwd: Path | None = None) -> float:
    """Wall-clock seconds of the command."""
    return timed(command, cwd)[0]


def timed(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of the command; CPU counts its worker processes too and is
    barely moved by other people's load on a shared machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def vaultkit_build(vault: Path, out: Path) -> float:
    return run([sys.executable, "-m", "vaultkit", "build", str(vault), "-o", str(out)])


def vaultkit_build_timed(vault: Path, out: Path) -> tuple[float, float]:
    return timed([sys.executable, "-m", "vaultkit", "build", str(vault), "-o", str(out)])


def notes_in(vault: Path) -> int:
    return sum(1 for _ in vault.rglob("*.md"))


def write_config(folder: Path, plugins: list[str], extensions: list) -> Path:
    config = {
        "site_name": "bench",
        "docs_dir": "vault",
        "theme": {"name": "material", "language": "zh", "font": False},
        "plugins": plugins,
        "markdown_extensions": extensions,
    }
    path = folder / f"{'-'.join(plugins)}.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


def scale(source: Path, tmp: Path, copies: int, large: int) -> None:
    small, big = tmp / "small" / "vault", tmp / f"x{copies}"
    shutil.copytree(source, small)
    subprocess.run([sys.executable, str(MAKE_LARGE), str(source), str(big), str(copies)], check=True,
                   stdout=subprocess.DEVNULL)
    t_small, cpu_small = vaultkit_build_timed(small, tmp / "site-small")
    t_big, cpu_big = vaultkit_build_timed(big, tmp / "site-big")
    n_small, n_big = notes_in(small), notes_in(big)
    print(f"vaultkit build, {n_small} notes: {t_small:.1f} s ({cpu_small:.1f} s CPU); "
          f"{n_big} notes: {t_big:.1f} s ({cpu_big:.1f} s CPU)")
    print(f"  {n_big / n_small:.0f}x the notes took {t_big / t_small:.2f}x the time, {cpu_big / cpu_small:.2f}x the CPU "
          f"(target <= {1.075 * copies:.1f}x)")
    if large:
        huge = tmp / f"x{large}"
        subprocess.run([sys.executable, str(MAKE_LARGE), str(source), str(huge), str(large)], check=True,
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(big)
        t_huge = vaultkit_build(huge, tmp / "site-huge")
        n_huge = notes_in(huge)
        print(f"vaultkit build, {n_huge} notes: {t_huge:.1f} s = {t_huge / t_small:.1f}x the time of "
              f"{n_small} notes for {n_huge / n_small:.1f}x the notes")


def bare(source: Path, tmp: Path) -> None:
    folder = tmp / "bare"
    shutil.copytree(source, folder / "vault")
    extensions = [{name: options} if options else name for name, options in EXTENSIONS.items()]
    plain = write_config(folder, ["search"], extensions)
    t_bare = run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(plain), "-d", str(folder / "site-bare")])
    t_vaultkit = vaultkit_build(folder / "vault", folder / "site-vaultkit")
    print(f"bare mkdocs-material: {t_bare:.1f} s; vaultkit build: {t_vaultkit:.1f} s; "
          f"vaultkit / bare = {t_vaultkit / t_bare:.2f}x")


def zensical(source: Path, tmp: Path, exe: str) -> None:
    folder = tmp / "zensical"
    shutil.copytree(source, folder / "vault")
    config = write_config(folder, ["search"], RECOMMENDED)
    t_zensical = run([exe, "build", "-c", "-f", str(config)], cwd=folder)
    t_vaultkit = vaultkit_build(folder / "vault", folder / "site-vaultkit")
    print(f"zensical build: {t_zensical:.1f} s; vaultkit build: {t_vaultkit:.1f} s; "
          f"vaultkit / zensical = {t_vaultkit / t_zensical:.2f}x (target <= 1)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=CORPUS)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--large", type=int, default=0, help="also time a vault of this many copies")
    parser.add_argument("--bare", action="store_true")
    parser.add_argument("--zensical", metavar="EXE")
    parser.add_argument("--no-scale", action="store_true")
    args = parser.parse_args()
    if not args.vault.is_dir():
        print(f"vault not found: {args.vault}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vaultkit-bench-") as tmp:
        if not args.no_scale:
            scale(args.vault, Path(tmp), args.copies, args.large)
        if args.bare:
            bare(args.vault, Path(tmp))
        if args.zensical:
            zensical(args.vault, Path(tmp), args.zensical)
    return 0


if __name__ == "__main__":
    sys.exit(main())
