"""Planted errors: every claim the checker reads as right on the real vault and on the public
notes, with its written value made wrong, must become an error on its line (recall ≥ 0.95).

A value is made wrong by scaling its number (×0.5, ×1.3, ×10), written with as many decimals
as before, so every planted error is off by 23 % or more: clearly wrong, never a rounding.
Skipped when the corpora are absent.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from vaultkit.checks.claims import check_markdown

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
FACTORS = (0.5, 1.3, 10.0)
NUMBER = re.compile(r"[-−]?\d[\d,]*(?:\.\d+)?")
RECALL = 0.95


def _mutated(number: str, factor: float) -> str | None:
    """`number` scaled by `factor`, written like it (decimals, thousands separators)."""
    plain = number.replace(",", "").replace("−", "-")
    decimals = len(plain.partition(".")[2])
    value = float(plain) * factor
    text = f"{value:,.{decimals}f}" if "," in number else f"{value:.{decimals}f}"
    if float(text.replace(",", "")) in (float(plain), 0.0):
        return None
    return text


def planted(notes: list[tuple[str, str]]) -> tuple[int, int, list[str]]:
    """(planted, found as errors, the misses) over every claim read as right in the notes."""
    total = found = 0
    misses = []
    for rel, text in notes:
        report = check_markdown(text, rel)
        lines = text.split("\n")
        flagged = {d.line for d in report.diagnostics}
        for entry in report.explained:
            if entry.verdict != "ok" or not entry.col or entry.line in flagged:
                continue
            line = lines[entry.line - 1]
            m = NUMBER.match(line, entry.col - 1)
            if m is None:
                continue
            for factor in FACTORS:
                wrong = _mutated(m.group(), factor)
                if wrong is None:
                    continue
                mutated = lines.copy()
                mutated[entry.line - 1] = line[: m.start()] + wrong + line[m.end() :]
                after = check_markdown("\n".join(mutated), rel)
                total += 1
                if any(d.line == entry.line and d.code == "VK301" for d in after.diagnostics):
                    found += 1
                else:
                    misses.append(f"{rel}:{entry.line}: {entry.text} → {wrong}")
    return total, found, misses


def _notes(root: Path) -> list[tuple[str, str]]:
    return [
        (path.relative_to(root).as_posix(), path.read_text(encoding="utf-8-sig").replace("\r\n", "\n"))
        for path in sorted(root.rglob("*.md"))
    ]


@pytest.mark.parametrize("ground", ["vault146", "public/ml-engineering", "public/LLM-from-scratch"])
def test_planted_errors_are_found(ground):
    root = CORPUS / ground
    if not root.is_dir():
        pytest.skip(f"corpus not found at {root}")
    total, found, misses = planted(_notes(root))
    assert total >= 100
    assert found / total >= RECALL, f"recall {found}/{total}; missed:\n" + "\n".join(misses[:40])
