"""How much of `vaultkit check` the arithmetic claims take, on the real vault and on the
public notes nobody here wrote.

Run: .venv/bin/python bench/bench_claims.py [VAULT ...] [-n RUNS] [--against TREE] [--stress]
(default: vault146 and the two repositories of ../shared/corpus/public that are present)
Each round runs `python -m vaultkit check VAULT` as a subprocess (the whole command: start,
load, parse, every check, report) and, in this process, the claims checker alone over the same
notes and SVGs (already read), alternating so both see the same machine load. Prints the
medians and the share of the claims in the whole check (a ratio inside one run: the machine
is shared and noisy). Target: a small share, well under a quarter.

`--against TREE` (another checkout, e.g. /work/main) times the claims checker of this tree and
of that one over the same notes, alternating in subprocesses, and prints the ratio of their
medians (target ≤ 1.1). `--stress` times the notes the checker must bound (a 100,000-character
line, `9**9**9`, `1e400`, 10,000 nested brackets, a 5,000-row table): each ≤ 1 s.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from vaultkit.checks.claims import ClaimReport, check_markdown, check_svg
from vaultkit.model.vault import Source, Vault

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
DEFAULT = CORPUS / "vault146"
DEFAULTS = [DEFAULT, CORPUS / "public" / "ml-engineering", CORPUS / "public" / "LLM-from-scratch"]


def texts(root: Path) -> list[tuple[str, str]]:
    """(rel, text) of every readable note and SVG, as `vaultkit check` reads them."""
    vault = Vault.load(root)
    found = [(note.rel, note.text) for note in vault.readable_notes]
    for rel in vault.attachments:
        if rel.lower().endswith(".svg"):
            source = Source.read(vault.root / rel)
            if source.error is None:
                found.append((rel, source.text))
    return found


def time_claims(files: list[tuple[str, str]]) -> tuple[float, ClaimReport]:
    start = time.perf_counter()
    total = ClaimReport()
    for rel, text in files:
        total.add(check_svg(text, rel) if rel.lower().endswith(".svg") else check_markdown(text, rel))
    return time.perf_counter() - start, total


def time_check(root: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "vaultkit", "check", str(root)], stdout=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


_TIME_CLAIMS = """
import sys, time
from vaultkit.checks.claims import check_markdown, check_svg
from vaultkit.model.vault import Source, Vault
vault = Vault.load(sys.argv[1])
files = [(n.rel, n.text) for n in vault.readable_notes]
files += [(r, Source.read(vault.root / r).text) for r in vault.attachments if r.lower().endswith(".svg")]
start = time.perf_counter()
for rel, text in files:
    check_svg(text, rel) if rel.lower().endswith(".svg") else check_markdown(text, rel)
print(time.perf_counter() - start)
"""


def time_tree(tree: Path, vault: Path) -> float:
    """Seconds the claims checker of `tree` takes over the notes of `vault` (a fresh process)."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", _TIME_CLAIMS, str(vault)], env=env, capture_output=True, text=True)
    return float(out.stdout.strip().splitlines()[-1])


def against(vault: Path, other: Path, runs: int) -> None:
    ours, theirs = [], []
    for _ in range(runs):
        ours.append(time_tree(Path(__file__).resolve().parents[1], vault))
        theirs.append(time_tree(other, vault))
    a, b = statistics.median(ours), statistics.median(theirs)
    print(f"{vault.name}: claims {a:.3f} s here, {b:.3f} s in {other} (median of {runs}): ratio {a / b:.2f}")


STRESS = {
    "a 100,000-character line": ("2 × 3 = 6, " * 10_000)[:100_000],
    "9**9**9": "`9**9**9 = 5`",
    "1e400 * 2": "1e400 * 2 = 2e400",
    "10,000 nested brackets": "x = " + "(" * 10_000 + "2" + ")" * 10_000 + " = 2",
    "a table of 5,000 rows": "| a | b |\n|---|---|\n" + "\n".join(f"| {i} × 2 = {2 * i} | {i} |" for i in range(5_000)),
}


def stress() -> None:
    for name, text in STRESS.items():
        start = time.perf_counter()
        report = check_markdown(text, "n.md")
        seconds = time.perf_counter() - start
        why = report.explained[-1].note if report.explained else ""
        print(f"{name}: {seconds:.3f} s, {report.verified} read, {report.skipped} skipped [{why}]")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vaults", nargs="*", type=Path)
    parser.add_argument("-n", "--runs", type=int, default=5)
    parser.add_argument("--against", type=Path, help="another checkout to compare the claims checker with")
    parser.add_argument("--stress", action="store_true", help="time the notes the checker must bound")
    args = parser.parse_args()
    if args.stress:
        stress()
        return
    if args.against:
        for vault in args.vaults or [DEFAULT]:
            against(vault, args.against, args.runs)
        return
    for vault in args.vaults or [path for path in DEFAULTS if path.is_dir()]:
        files = texts(vault)
        claims, checks = [], []
        for _ in range(args.runs):
            seconds, report = time_claims(files)
            claims.append(seconds)
            checks.append(time_check(vault))
        claim, check = statistics.median(claims), statistics.median(checks)
        print(
            f"{vault.name}: {len(files)} files: {report.verified} claims read, {report.skipped} skipped, "
            f"{len(report.diagnostics)} diagnostics"
        )
        print(
            f"  median of {args.runs}: claims {claim:.3f} s, whole check {check:.3f} s, "
            f"claims share {claim / check:.0%}"
        )


if __name__ == "__main__":
    main()
