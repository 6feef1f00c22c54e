"""No false alarm: the walkthrough reader finds nothing to report in notes nobody wrote for it
(the real vault, the public study notes) nor in the bundled vault, whose KV-cache note it reads;
and its quick look at a note's text passes every note it has something to read in."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultkit.checks.walkthrough import check_markdown, reader
from vaultkit.readers.markdown import parse

from .conftest import CORPUS, SHARED

PUBLIC = SHARED / "corpus" / "public"
SEEDS = SHARED / "seeds"
BUNDLED = Path(__file__).resolve().parents[1] / "vault"


def findings(root: Path):
    out, verified = [], 0
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        report = check_markdown(text, parse(text), path.relative_to(root).as_posix())
        out += report.diagnostics
        verified += report.verified
    return out, verified


@pytest.mark.parametrize("root", [CORPUS, PUBLIC], ids=["vault146", "public"])
def test_no_finding_on_notes_nobody_wrote_for_it(root):
    if not root.is_dir():
        pytest.skip(f"{root} is absent (../shared is absent)")
    found, _ = findings(root)
    assert found == [], "\n".join(f"{d.path}:{d.line}: {d.code} {d.message}" for d in found)


def test_the_bundled_vault_reads_its_walkthroughs_and_is_silent():
    found, verified = findings(BUNDLED)
    assert found == []
    assert verified >= 8  # 08 KV Cache 逐步演算 states its cache step by step


def _read_without_a_quick_look(text: str, tokens) -> reader.Reading:
    lines, blocks = reader.note_lines(text, tokens)
    walkthroughs, unread_steps = reader.read_walkthroughs(lines)
    rounds, unread_rounds = reader.read_rounds(lines)
    unread = sorted(unread_steps + unread_rounds, key=lambda u: u.line)
    return reader.Reading(
        walkthroughs, reader.read_masks(lines), rounds, reader.read_promises(lines, blocks, tokens), unread
    )


def test_the_quick_look_skips_no_note_with_something_to_read():
    """`read` makes a note's lines only when a quick look at its text finds what a reader
    needs: it reads every note as the readers do on all of its lines (the bundled vault, and
    the real vault, the public notes and the seeds where ../shared is)."""
    read = 0
    for root in (root for root in (BUNDLED, CORPUS, PUBLIC, SEEDS) if root.is_dir()):
        for path in sorted([*root.rglob("*.md"), *root.rglob("*.txt")]):
            text = path.read_text(encoding="utf-8", errors="replace")
            tokens = parse(text)
            full = _read_without_a_quick_look(text, tokens)
            assert reader.read(text, tokens) == full, path
            read += bool(full.walkthroughs or full.masks or full.rounds or full.promises)
    assert read > 0  # the bundled vault's walkthrough, at least
