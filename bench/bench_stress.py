"""Check a stress vault of N renamed copies of the real vault: errors and time for N = 1, 4, 16.

Run: .venv/bin/python bench/bench_stress.py [VAULT] [--copies 1 4 16] [-n RUNS]
Each vault is made under /tmp by ../shared/tools/make_large_vault.py (copy i renamed so it
resolves exactly as the original). For each N it runs `python -m vaultkit check --format json`
as a subprocess, in rounds that alternate the sizes so all see the same machine load, and prints:
errors by code (each must be at most N × one copy's: no link may resolve differently because
names now repeat across copies), warnings, and the median wall and CPU seconds, minus those of an empty
vault (interpreter start and imports), per note and relative to N = 1. Linear growth means the
per-note cost stays flat (ratio near 1); a quadratic step would double it with each ×4.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT = SHARED / "corpus" / "vault146"
MAKER = SHARED / "tools" / "make_large_vault.py"


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check(root: Path) -> tuple[float, float, dict]:
    """Wall and CPU seconds of one `vaultkit check --format json` process, and its report."""
    cpu, wall = children_cpu(), time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "vaultkit", "check", str(root), "--format", "json"], capture_output=True, text=True
    )
    wall, cpu = time.perf_counter() - wall, children_cpu() - cpu
    if done.returncode not in (0, 1):
        sys.exit(f"vaultkit check failed ({done.returncode}): {done.stderr}")
    return wall, cpu, json.loads(done.stdout)


def by_code(report: dict, severity: str) -> Counter:
    return Counter(d["code"] for d in report["diagnostics"] if d["severity"] == severity)


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("vault", nargs="?", type=Path, default=DEFAULT)
    args.add_argument("--copies", type=int, nargs="+", default=[1, 4, 16])
    args.add_argument("-n", "--runs", type=int, default=3)
    opts = args.parse_args()
    if not opts.vault.is_dir() or not MAKER.is_file():
        print(f"needs {opts.vault} and {MAKER}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="vk-stress-"))
    try:
        vaults = {0: work / "empty"}
        vaults[0].mkdir()
        for n in opts.copies:
            vaults[n] = work / f"x{n}"
            subprocess.run(
                [sys.executable, str(MAKER), str(opts.vault), str(vaults[n]), str(n)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        times: dict[int, list[tuple[float, float]]] = {n: [] for n in vaults}
        reports = {}
        for _ in range(opts.runs):
            for n, root in vaults.items():
                wall, cpu, reports[n] = check(root)
                times[n].append((wall, cpu))
        base_wall = statistics.median(w for w, _ in times[0])
        base_cpu = statistics.median(c for _, c in times[0])
        first = opts.copies[0]
        one, one_warnings = by_code(reports[first], "error"), by_code(reports[first], "warning")
        print(f"start-up (empty vault): wall {base_wall:.2f} s, cpu {base_cpu:.2f} s")
        print(
            f"{'N':>3} {'notes':>6} {'errors':>7} {'≤N×1?':>6} {'warnings':>9} {'wall s':>7} {'cpu s':>7} "
            f"{'ms/note wall':>13} {'ms/note cpu':>12} {'per-note vs N=' + str(first):>16}"
        )
        ok = True
        per_note_first = None
        for n in opts.copies:
            summary = reports[n]["summary"]
            errors, warnings = by_code(reports[n], "error"), by_code(reports[n], "warning")
            within = all(errors[code] <= n // first * one[code] for code in errors)
            ok &= within
            wall = statistics.median(w for w, _ in times[n]) - base_wall
            cpu = statistics.median(c for _, c in times[n]) - base_cpu
            notes = summary["notes"]
            per_note = cpu / notes * 1000
            per_note_first = per_note_first or per_note
            print(
                f"{n:>3} {notes:>6} {sum(errors.values()):>7} {'yes' if within else 'NO':>6} {sum(warnings.values()):>9} {wall:>7.2f} "
                f"{cpu:>7.2f} {wall / notes * 1000:>13.2f} {per_note:>12.2f} {per_note / per_note_first:>16.2f}"
            )
        print(f"N = {first}: errors", dict(sorted(one.items())), "warnings", dict(sorted(one_warnings.items())))
        return 0 if ok else 1
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
