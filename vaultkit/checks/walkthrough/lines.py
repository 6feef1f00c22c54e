"""A logical line of a note as the walkthrough reader and the promise reader see it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Line:
    number: int  # 1-based line in the note
    col: int  # 1-based column where `text` starts
    text: str
    heading: int = 0  # heading level, 0 for other lines
    block: int = 0  # index of the top-level block holding it
    code: bool = False  # inside a plain fence
