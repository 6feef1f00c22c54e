"""Time link checking on the real vault: load, parse (once per note), links.

Run: .venv/bin/python bench/bench_check.py [VAULT]
Prints seconds per phase, the parse time relative to plain markdown-it (CommonMark + tables,
same notes, same run), and the whole process time so far. Target: the whole `vaultkit check`
process within 1.0 s on a 2-core machine for the 146-note vault.
"""

from __future__ import annotations

import time

START = time.perf_counter()

import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from markdown_it import MarkdownIt  # noqa: E402

from vaultkit.links import LinkIndex, check_links  # noqa: E402
from vaultkit.vault import Vault  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"


def main() -> int:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT
    if not root.is_dir():
        print(f"vault not found: {root}")
        return 2
    imported = time.perf_counter()
    vault = Vault.load(root)
    loaded = time.perf_counter()
    notes = vault.readable_notes
    for note in notes:
        note.tokens
    parsed = time.perf_counter()
    index = LinkIndex(vault)
    links = errors = warnings = 0
    for note in notes:
        diags, count = check_links(note, index)
        links += count
        errors += sum(d.severity == "error" for d in diags)
        warnings += sum(d.severity == "warning" for d in diags)
    checked = time.perf_counter()

    plain = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    t0 = time.perf_counter()
    for note in notes:
        plain.parse(note.text)
    plain_parse = time.perf_counter() - t0

    print(f"notes {len(notes)}, links {links}, errors {errors}, warnings {warnings}")
    print(f"imports {imported - START:.3f} s")
    print(f"load    {loaded - imported:.3f} s")
    print(f"parse   {parsed - loaded:.3f} s  ({(parsed - loaded) / plain_parse:.2f}x plain markdown-it: {plain_parse:.3f} s)")
    print(f"links   {checked - parsed:.3f} s")
    print(f"load+parse+links {checked - imported:.3f} s; process so far (excl. interpreter start) {checked - START:.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
