"""Reading every SVG of a vault (claims and drawings) next to the rest of `vaultkit check`.

Run: .venv/bin/python bench/bench_drawings.py [-n RUNS] [--copies 1 4 16] [--against TREE]
For each size, makes N renamed copies of vault146 with ../shared/tools/make_large_vault.py
(under a temporary folder) and times, in this process, the SVG part of a check (read each SVG
once with expat, its arithmetic claims, and the example a drawing implies and the numbers it
states, checked) and the whole report. Prints medians, the SVG share of the check, and the cost
per copy against one copy: reading drawings must grow with the vault, not faster.

`--against TREE` (e.g. /work/main) times the SVG part of vault146 with this tree and with TREE,
each in a fresh process, in turns (A B A B …), and prints both medians and their ratio: the
drawings of vault146 must cost no more than 1.2× what TREE's code costs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vaultkit.checks import claims
from vaultkit.model.vault import Vault
from vaultkit.pipeline import Pipeline

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus" / "vault146"
MAKER = SHARED / "tools" / "make_large_vault.py"


def svg_part(pipeline: Pipeline) -> int:
    """What a check does with SVGs; returns the number of drawings checked."""
    for rel in pipeline.vault.attachments:
        read = pipeline.svg(rel)
        if read is not None and read[1] is not None:
            claims.check_svg(read[1], rel)
    return sum(1 for f in pipeline.figures() if f.implied is not None)


def measure(root: Path, runs: int) -> tuple[float, float, int]:
    svg_times, all_times, drawings = [], [], 0
    for _ in range(runs):
        vault = Vault.load(root)
        start = time.perf_counter()
        drawings = svg_part(Pipeline(vault))
        svg_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        pipeline = Pipeline(Vault.load(root))
        pipeline.compute_notes(jobs=1)
        pipeline.report()
        all_times.append(time.perf_counter() - start)
    return statistics.median(svg_times), statistics.median(all_times), drawings


# Timed in a fresh process of a tree: the SVG part of a check of vault146, REPEATS times, best of them.
TIMED = """
import sys, time
from vaultkit.checks import claims
from vaultkit.model.vault import Vault
from vaultkit.pipeline import Pipeline
best = float("inf")
for _ in range({repeats}):
    pipeline = Pipeline(Vault.load(sys.argv[1]))  # the notes' examples are collected here, before the clock
    start = time.perf_counter()
    for rel in pipeline.vault.attachments:
        read = pipeline.svg(rel)
        if read is not None and read[1] is not None:
            claims.check_svg(read[1], rel)
    pipeline.figures()
    best = min(best, time.perf_counter() - start)
print(best)
"""


def time_tree(tree: Path, repeats: int) -> float:
    """The best time of the SVG part of a check of vault146 with the code of `tree`."""
    env = {"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        [sys.executable, "-c", TIMED.format(repeats=repeats), str(CORPUS)], env=env, check=True, capture_output=True
    )
    return float(out.stdout.decode().split()[-1])


def against(tree: Path, runs: int) -> None:
    here = Path(__file__).resolve().parents[1]
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(time_tree(here, 5))
        theirs.append(time_tree(tree, 5))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"vault146 drawings: this tree {a * 1000:.1f} ms, {tree} {b * 1000:.1f} ms, ratio {a / b:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--against", type=Path, help="another tree of vaultkit to compare vault146's drawings with")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"the real vault is not at {CORPUS}")
    if args.against:
        against(args.against, args.runs)
        return
    base = None
    print(f"{'copies':>6} {'drawings':>8} {'svg s':>8} {'check s':>8} {'svg share':>9} {'svg per copy':>12}")
    with tempfile.TemporaryDirectory() as tmp:
        for copies in args.copies:
            root = Path(tmp) / f"v{copies}"
            subprocess.run(
                [sys.executable, str(MAKER), str(CORPUS), str(root), str(copies)], check=True, stdout=subprocess.DEVNULL
            )
            svg, whole, drawings = measure(root, args.runs)
            per_copy = svg / copies
            base = base or per_copy
            print(f"{copies:>6} {drawings:>8} {svg:>8.3f} {whole:>8.2f} {svg / whole:>9.1%} {per_copy / base:>11.2f}x")


if __name__ == "__main__":
    main()
