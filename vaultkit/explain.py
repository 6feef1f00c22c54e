"""Entries of `vaultkit check --explain`: what each check read at a place and how it fared.

Claims, text matrices, walkthroughs, drawings and unread SVGs each give `Explained` entries;
they are formatted only when printed, and counted by their fields: every count a summary
gives is the sum of its entries' counts (never a difference of totals made elsewhere).
"""

from __future__ import annotations

from dataclasses import dataclass

CLAIM, MATRIX_ROWS, WALKTHROUGH, DRAWING, DRAWING_NUMBER, SVG_NOT_READ = (
    "claim",
    "matrix rows",
    "walkthrough",
    "drawing",
    "drawing number",  # a number a drawing states (a dimension, a weight count, a series step), read and checked
    "svg not read",
)


@dataclass
class Explained:
    """One entry: a claim read and its verdict, a span skipped, or a part of a note or an SVG read."""

    path: str
    line: int
    verdict: str  # ok | warning | error | skipped; "" when the entry has none (svg not read, matrix rows)
    text: str  # the claim as written (whitespace collapsed), the skipped span, or what was read
    note: str = ""  # the computed value, or why it was skipped
    col: int = 0  # of the written value of a claim read (1-based; 0 when skipped)
    kind: str = CLAIM  # one of the kinds above
    counts: tuple[int, int] = (0, 0)  # (read, skipped): rows of a `matrix rows` entry, statements of a walkthrough part

    def claims(self) -> tuple[int, int]:
        """(read, skipped): how many of the summary's claims the entry stands for."""
        if self.kind == MATRIX_ROWS:
            return self.counts
        if self.kind == CLAIM:
            return (0, 1) if self.verdict == "skipped" else (1, 0)
        return 0, 0

    def __str__(self) -> str:
        verdict = f" {self.verdict}" if self.verdict else ""
        note = f"  [{self.note}]" if self.note else ""
        return f"{self.path}:{self.line}: {self.kind}{verdict}: {self.text}{note}"


def matrix_rows(rel: str, line: int, verified: int, skipped: int) -> Explained:
    """The entry of the rows of a note's text matrices (checked as worked examples, counted as
    claims): how many were read and how many skipped."""
    return Explained(
        rel,
        line,
        "",
        f"{verified} read, {skipped} skipped",
        "text matrices of a worked example",
        kind=MATRIX_ROWS,
        counts=(verified, skipped),
    )


def statements(entries: list[Explained]) -> tuple[int, int]:
    """(read, skipped) statements of the walkthrough parts: with `totals`' claims they make
    the summary's claims and skipped claims."""
    read = skipped = 0
    for entry in entries:
        if entry.kind == WALKTHROUGH:
            read += entry.counts[0]
            skipped += entry.counts[1]
    return read, skipped


def totals(entries: list[Explained]) -> tuple[int, int, int]:
    """(claims read, claims skipped, other entries): the first two equal the summary's claims
    and skipped claims."""
    read = skipped = other = 0
    for entry in entries:
        if entry.kind in (CLAIM, MATRIX_ROWS):
            entry_read, entry_skipped = entry.claims()
            read += entry_read
            skipped += entry_skipped
        else:
            other += 1
    return read, skipped, other
