"""Time the whole `vaultkit check` process on the real vault next to plain markdown-it-py.

Run: .venv/bin/python bench/bench_check.py [VAULT] [-n RUNS] [--large COPIES [--large-runs RUNS]] [--against REV]
Each round runs `python -m vaultkit check VAULT` as a subprocess (interpreter start, imports,
load, parse, every check, report, exit) and parses the same notes with plain markdown-it-py
(CommonMark + tables + strikethrough) in this process, alternating so both see the same machine
load, after one untimed run (the check runs with its bytecode cached, as an installed vaultkit
does, even where PYTHONDONTWRITEBYTECODE is set). Prints medians of wall and CPU time (CPU:
user+sys, all processes), their ratios, and the load average the rounds saw.
`--large 45` does the same on 45 renamed copies of the vault, made in a temporary folder by
the corpus tool `make_large_vault.py` (skipped when the tool is absent), and prints both ratios.
`--against REV` also runs, in each round, the check of vaultkit as it was at git revision REV
(its files from `git archive`, as bench_build's `--against`), and prints its figures and the
ratio of this check to that one: a change's effect, measured in one run.
Target (issue 26): the whole check within 1.3x the plain parse (wall), on both.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_build import files_at
from markdown_it import MarkdownIt

# The environment the bench was started with, for every check it runs: importing vaultkit (as
# `bench` does) sets OPENBLAS_NUM_THREADS, which a check at an older revision would inherit.
ENVIRONMENT = dict(os.environ)
SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT = SHARED / "corpus" / "vault146"
MAKE_LARGE = SHARED / "tools" / "make_large_vault.py"
TARGET = 1.3


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_check(root: Path, code: Path | None = None) -> tuple[float, float, int]:
    """Wall and CPU seconds of one `vaultkit check` process, and its exit code; by the vaultkit
    whose files are in `code` when given (else this one)."""
    env = {name: value for name, value in ENVIRONMENT.items() if name != "PYTHONDONTWRITEBYTECODE"}
    if code is not None:
        env["PYTHONPATH"] = str(code)  # run from `code` too: the working folder comes first on sys.path
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "vaultkit", "check", str(root.resolve())],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=code,
    )
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode not in (0, 1):
        sys.exit(f"vaultkit check failed ({done.returncode}): {done.stderr}")
    return wall, cpu, done.returncode


def time_plain(texts: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of plain markdown-it parsing every note once."""
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    cpu, wall = time.process_time(), time.perf_counter()
    for text in texts:
        md.parse(text)
    return time.perf_counter() - wall, time.process_time() - cpu


def bench(vault: Path, runs: int, old: tuple[str, Path] | None = None) -> float:
    """Print the figures of `runs` alternating rounds on `vault` (with the check at `old`'s
    revision too, when given); the wall ratio."""
    from vaultkit.model.vault import Vault  # imported here: after ENVIRONMENT was taken

    texts = [note.text for note in Vault.load(vault).readable_notes]
    checks, plains, olds, loads = [], [], [], []
    if old is not None:
        time_check(vault, old[1])  # untimed: writes its bytecode
    for _ in range(runs):
        checks.append(time_check(vault))
        plains.append(time_plain(texts))
        if old is not None:
            olds.append(time_check(vault, old[1]))
        loads.append(os.getloadavg()[0])
    check_wall = statistics.median(c[0] for c in checks)
    check_cpu = statistics.median(c[1] for c in checks)
    plain_wall = statistics.median(p[0] for p in plains)
    plain_cpu = statistics.median(p[1] for p in plains)
    print(
        f"{vault.name}: {len(texts)} notes, {sum(map(len, texts)):,} characters, {runs} runs, "
        f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} CPUs, "
        f"load average {statistics.median(loads):.2f} (median; {min(loads):.2f} to {max(loads):.2f})"
    )
    print(
        f"  vaultkit check (whole process): wall {check_wall:.3f} s  cpu {check_cpu:.3f} s  "
        f"(wall min {min(c[0] for c in checks):.3f} s, exit {checks[-1][2]})"
    )
    print(
        f"  plain markdown-it parse:        wall {plain_wall:.3f} s  cpu {plain_cpu:.3f} s  "
        f"(wall min {min(p[0] for p in plains):.3f} s)"
    )
    ratio = check_wall / plain_wall
    print(
        f"  ratio check / plain parse:      wall {ratio:.2f}x  cpu {check_cpu / plain_cpu:.2f}x  "
        f"(min/min {min(c[0] for c in checks) / min(p[0] for p in plains):.2f}x; target: wall <= {TARGET}x)"
    )
    if old is not None:
        old_wall = statistics.median(c[0] for c in olds)
        old_cpu = statistics.median(c[1] for c in olds)
        print(
            f"  vaultkit check at {old[0]}:{' ' * max(1, 13 - len(old[0]))}wall {old_wall:.3f} s  cpu {old_cpu:.3f} s  "
            f"(wall min {min(c[0] for c in olds):.3f} s, exit {olds[-1][2]})"
        )
        print(
            f"  this check / the one at {old[0]}: wall {check_wall / old_wall:.2f}x  cpu {check_cpu / old_cpu:.2f}x  "
            f"(that check / plain parse: {old_wall / plain_wall:.2f}x)"
        )
    return ratio


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("vault", nargs="?", type=Path, default=DEFAULT)
    args.add_argument("-n", "--runs", type=int, default=7)
    args.add_argument("--large", type=int, metavar="COPIES", help="also time a vault of this many copies")
    args.add_argument("--large-runs", type=int, default=3, help="rounds on the large vault (default 3)")
    args.add_argument("--against", metavar="REV", help="also time the check of vaultkit at this git revision")
    opts = args.parse_args()
    if not opts.vault.is_dir():
        print(f"vault not found: {opts.vault}")
        return 2
    with tempfile.TemporaryDirectory(prefix="vaultkit-bench-") as scratch:
        old = (opts.against, files_at(opts.against, Path(scratch) / "against")) if opts.against else None
        return run(opts, old)


def run(opts: argparse.Namespace, old: tuple[str, Path] | None) -> int:
    time_check(opts.vault)  # untimed: writes the bytecode (the large vault is in the page cache once made)
    ratios = {opts.vault.name: bench(opts.vault, opts.runs, old)}
    if opts.large and not MAKE_LARGE.is_file():
        print(f"--large skipped: {MAKE_LARGE} not found")
    elif opts.large:
        with tempfile.TemporaryDirectory(prefix="vaultkit-bench-") as scratch:
            large = Path(scratch) / f"{opts.vault.name}x{opts.large}"
            subprocess.run(
                [sys.executable, str(MAKE_LARGE), str(opts.vault), str(large), str(opts.large)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
            ratios[large.name] = bench(large, opts.large_runs, old)
    print("wall ratios: " + ", ".join(f"{name} {ratio:.2f}x" for name, ratio in ratios.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
