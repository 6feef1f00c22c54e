"""`vaultkit check --explain`: every claim read, with its verdict, and every claim-like span
skipped, with the reason — one greppable line each:

    07-Knowledge/x.md:12: claim ok: 2 × 3 = 6  [computed 6]
    07-Knowledge/x.md:14: claim skipped: 1 柜 = 64 GPU  [two values and no arithmetic]
"""

from __future__ import annotations

from pathlib import Path
from typing import TextIO

from ..vault import MAX_NOTE_BYTES, Source, Vault
from . import ClaimReport, check_markdown, check_svg


def explain_vault(root: Path) -> ClaimReport:
    """The claims of every note and SVG of the vault, as `vaultkit check` reads them."""
    vault = Vault.load(root)
    total = ClaimReport()
    for note in vault.readable_notes:
        total.add(check_markdown(note.text, note.rel))
    for rel in vault.attachments:
        path = vault.root / rel
        if rel.lower().endswith(".svg") and path.stat().st_size <= MAX_NOTE_BYTES:
            source = Source.read(path)
            if source.error is None:
                total.add(check_svg(source.text, rel))
    return total


def print_explained(root: Path, out: TextIO) -> None:
    report = explain_vault(root)
    for entry in report.explained:
        print(entry, file=out)
    print(f"{report.verified} arithmetic claims read, {report.skipped} skipped", file=out)
