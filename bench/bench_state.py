"""A save applied to a kept `VaultState`, in a vault of 1 copy and of N copies of a real vault.

Run: .venv/bin/python bench/bench_state.py [VAULT] [--copies 16] [--saves 10]
Each vault is made by /work/shared/tools/make_large_vault.py (copy i in cNNN/, names and links
renamed so each copy resolves as the original). The state is loaded and every note checked, as
`watch` and `serve` start; then the most linked-to note of the first copy is edited `--saves`
times in its body and `--saves` times by a new heading (then the notes that link to it are
checked again); each save is applied and reported as a watch pass does (`apply`, then `report`
of what it affected). Prints the median time per save (the first save, which also fills the link
graph, left out) and the notes checked again, for both sizes: the time must not grow with the
vault, and the same notes are checked again in both.
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


EDITS = {
    "body": lambda i: f"\n\nEdited {i}: 2 × 3 = 6.\n",  # what links to the note sees nothing new
    "heading": lambda i: f"\n\n## Edited {i}\n",  # the notes that link to it are checked again
}


def bench(root: Path, saves: int) -> tuple[int, float, dict[str, tuple[list[float], set[str]]]]:
    """(notes, seconds to load and check, per kind of edit: seconds per save and the notes
    the last save checked again)."""
    started = time.perf_counter()
    state = VaultState.load(root)
    state.compute_notes()
    loaded = time.perf_counter() - started
    rel = hub(state)
    path = root / rel
    original = path.read_text(encoding="utf-8")
    found = {}
    for kind, edit in EDITS.items():
        times, checked = [], set()
        for i in range(saves):
            path.write_text(original + edit(i), encoding="utf-8")
            begun = time.perf_counter()
            affected = state.apply([rel])
            state.report(affected.rels)
            times.append(time.perf_counter() - begun)
            checked = affected.notes
        found[kind] = times[1:], checked  # the first save also fills the link graph
    return len(state.vault.readable_notes), loaded, found


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
    for copies, (notes, loaded, found) in results.items():
        print(f"{copies:>3} cop{'y' if copies == 1 else 'ies'}: {notes} notes, loaded and checked in {loaded:.2f} s")
        for kind, (times, checked) in found.items():
            print(
                f"     {kind} edit of the most linked-to note, applied and reported: median "
                f"{statistics.median(times) * 1000:.1f} ms, max {max(times) * 1000:.1f} ms; "
                f"{len(checked)} notes checked again"
            )
    for kind in EDITS:
        (small, small_checked), (large, large_checked) = results[1][2][kind], results[opts.copies][2][kind]
        print(
            f"{kind} edit, time per save {opts.copies} copies / 1 copy: "
            f"{statistics.median(large) / statistics.median(small):.2f}x; "
            f"notes checked again: {len(small_checked)} and {len(large_checked)}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
