"""How much of `vaultkit check` the arithmetic claims take, on the real vault and on the
public notes nobody here wrote.

Run: .venv/bin/python bench/bench_claims.py [VAULT ...] [-n RUNS]
(default: vault146 and the two repositories of ../shared/corpus/public that are present)
Each round runs `python -m vaultkit check VAULT` as a subprocess (the whole command: start,
load, parse, every check, report) and, in this process, the claims checker alone over the same
notes and SVGs (already read), alternating so both see the same machine load. Prints the
medians and the share of the claims in the whole check (a ratio inside one run: the machine
is shared and noisy). Target: a small share, well under a quarter.
"""

from __future__ import annotations

import argparse
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vaults", nargs="*", type=Path)
    parser.add_argument("-n", "--runs", type=int, default=5)
    args = parser.parse_args()
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
