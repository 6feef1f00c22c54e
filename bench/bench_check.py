"""Time the whole `vaultkit check` process on the real vault next to plain markdown-it-py.

Run: .venv/bin/python bench/bench_check.py [VAULT] [-n RUNS]
Each round runs `python -m vaultkit check VAULT` as a subprocess (interpreter start, imports,
load, parse, every check, report, exit) and parses the same notes with plain markdown-it-py
(CommonMark + tables + strikethrough) in this process, alternating so both see the same machine
load. Prints medians of wall and CPU time (CPU: user+sys, all processes) and their ratios.
Target (issue): the whole check within 1.0 s on 2 cores, where plain markdown-it takes about
0.55 s, i.e. a wall ratio of about 1.8 or less.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from markdown_it import MarkdownIt

from vaultkit.model.vault import Vault

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_check(root: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of one `vaultkit check` process, and its exit code."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "vaultkit", "check", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
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


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("vault", nargs="?", type=Path, default=DEFAULT)
    args.add_argument("-n", "--runs", type=int, default=7)
    opts = args.parse_args()
    if not opts.vault.is_dir():
        print(f"vault not found: {opts.vault}")
        return 2
    texts = [note.text for note in Vault.load(opts.vault).readable_notes]
    checks, plains = [], []
    for _ in range(opts.runs):
        checks.append(time_check(opts.vault))
        plains.append(time_plain(texts))
    check_wall = statistics.median(c[0] for c in checks)
    check_cpu = statistics.median(c[1] for c in checks)
    plain_wall = statistics.median(p[0] for p in plains)
    plain_cpu = statistics.median(p[1] for p in plains)
    print(
        f"{len(texts)} notes, {sum(map(len, texts)):,} characters, {opts.runs} runs, "
        f"{len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else os.cpu_count()} CPUs, "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"vaultkit check (whole process): wall {check_wall:.3f} s  cpu {check_cpu:.3f} s  "
        f"(wall min {min(c[0] for c in checks):.3f} s, exit {checks[-1][2]})"
    )
    print(f"plain markdown-it parse:        wall {plain_wall:.3f} s  cpu {plain_cpu:.3f} s")
    print(
        f"ratio check / plain parse:      wall {check_wall / plain_wall:.2f}x  cpu {check_cpu / plain_cpu:.2f}x"
        f"  (target: wall <= 1.0 s, about 1.8x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
