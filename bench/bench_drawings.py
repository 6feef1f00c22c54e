"""Reading every SVG of a vault (claims and drawings) next to the rest of `vaultkit check`.

Run: .venv/bin/python bench/bench_drawings.py [-n RUNS] [--copies 1 4 16]
For each size, makes N renamed copies of vault146 with ../shared/tools/make_large_vault.py
(under a temporary folder) and times, in this process, the SVG part of a check (read each SVG
once with expat, its arithmetic claims, and the example a drawing implies, checked) and the whole
report. Prints medians, the SVG share of the check, and the cost per copy against one copy:
reading drawings must grow with the vault, not faster.
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", "--runs", type=int, default=3)
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16])
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"the real vault is not at {CORPUS}")
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
