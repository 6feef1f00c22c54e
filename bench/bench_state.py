"""A save applied to a kept `VaultState`, in a vault of 1 copy and of N copies of a real vault.

Run: .venv/bin/python bench/bench_state.py [VAULT] [--copies 16] [--saves 10]
Each vault is made by /work/shared/tools/make_large_vault.py (copy i in cNNN/, names and links
renamed so each copy resolves as the original). The state is loaded and every note checked, as
`watch` and `serve` start; then the most linked-to note of the first copy is edited `--saves`
times and each save is applied and reported as a watch pass does (`apply`, then `report` of what
it affected). Prints the median time per save and the notes checked again, for both sizes:
the time must not grow with the vault, and the same notes are checked again in both.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from vaultkit.state import VaultState

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"
MAKE = Path(__file__).resolve().parents[2] / "shared" / "tools" / "make_large_vault.py"


def hub(state: VaultState) -> str:
    """The note of the first copy most notes link to."""
    first = [note.rel for note in state.vault.readable_notes if note.rel.startswith("c000/")]
    return max(first, key=lambda rel: (len(state.index.backlinks(rel)), rel))


def bench(root: Path, saves: int) -> tuple[int, float, list[float], set[str]]:
    """(notes, seconds to load and check, seconds per save, notes checked again by the last save)."""
    started = time.perf_counter()
    state = VaultState.load(root)
    state.compute_notes()
    loaded = time.perf_counter() - started
    rel = hub(state)
    path = root / rel
    original = path.read_text(encoding="utf-8")
    times, checked = [], set()
    for i in range(saves):
        path.write_text(original + f"\n\nEdited {i}: 2 × 3 = 6.\n", encoding="utf-8")
        begun = time.perf_counter()
        affected = state.apply([rel])
        state.report(affected.rels)
        times.append(time.perf_counter() - begun)
        checked = affected.notes
    return len(state.vault.readable_notes), loaded, times, checked


def main() -> int:
    args = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args.add_argument("vault", nargs="?", type=Path, default=CORPUS)
    args.add_argument("--copies", type=int, default=16)
    args.add_argument("--saves", type=int, default=10)
    opts = args.parse_args()
    if not opts.vault.is_dir() or not MAKE.is_file():
        print(f"vault or {MAKE.name} not found", file=sys.stderr)
        return 2
    results = {}
    with tempfile.TemporaryDirectory(prefix="vaultkit-bench-state-") as tmp:
        for copies in (1, opts.copies):
            root = Path(tmp) / f"x{copies}"
            subprocess.run([sys.executable, str(MAKE), str(opts.vault), str(root), str(copies)], check=True)
            results[copies] = bench(root, opts.saves)
    for copies, (notes, loaded, times, checked) in results.items():
        print(
            f"{copies:>3} cop{'y' if copies == 1 else 'ies'}: {notes} notes, loaded and checked in {loaded:.2f} s; "
            f"save applied and reported: median {statistics.median(times) * 1000:.1f} ms, "
            f"max {max(times) * 1000:.1f} ms; {len(checked)} notes checked again"
        )
    (_, _, small, small_checked), (_, _, large, large_checked) = results[1], results[opts.copies]
    print(
        f"time per save {opts.copies} copies / 1 copy: {statistics.median(large) / statistics.median(small):.2f}x; "
        f"notes checked again: {len(small_checked)} and {len(large_checked)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
