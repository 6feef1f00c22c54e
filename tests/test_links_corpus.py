"""Links on the real vault (counts only; skipped when ../shared is absent)."""

import shutil
from collections import Counter

import pytest

from tests.conftest import CORPUS, needs_corpus
from vaultkit.checks.links import check_links, fix_links
from vaultkit.model.links import LinkIndex, extract_links
from vaultkit.model.vault import Vault

pytestmark = needs_corpus


@pytest.fixture(scope="module")
def vault():
    return Vault.load(CORPUS)


def test_links_and_embeds_outside_code(vault):
    assert len(vault.readable_notes) == 146
    links = [link for note in vault.readable_notes for link in extract_links(note)]
    embeds = [link for link in links if link.embed]
    assert len(links) - len(embeds) == 614
    assert sum(link.path.endswith(".svg") for link in embeds) == 9
    for note in vault.readable_notes:
        code_lines = {
            line
            for t in note.tokens
            if t.type in ("fence", "code_block") and t.map
            for line in range(t.map[0] + 1, t.map[1] + 1)
        }
        lines = note.text.split("\n")
        for link in extract_links(note):
            assert link.line not in code_lines
            assert lines[link.line - 1][link.col - 1 : link.end_col - 1] == link.raw


def test_broken_links_counts(vault):
    index = LinkIndex(vault)
    counts = Counter(d.code for note in vault.readable_notes for d in check_links(note, index)[0])
    assert counts["VK501"] + counts["VK506"] == 15  # notes or folders not in the vault
    assert counts["VK502"] == 23  # wrong ../ depth, unique file name
    assert counts["VK507"] == 0 and counts["VK503"] == 0


def test_fix_resolves_every_moved_link(vault, tmp_path):
    copy = tmp_path / "vault"
    shutil.copytree(CORPUS, copy)
    index = LinkIndex(vault)
    changed = 0
    for note in vault.readable_notes:
        fixed = fix_links(note.text, note, index)
        if fixed != note.text:
            changed += 1
            (copy / note.rel).write_text(fixed, encoding="utf-8")
    assert changed > 0
    fixed_vault = Vault.load(copy)
    fixed_index = LinkIndex(fixed_vault)
    counts = Counter(d.code for note in fixed_vault.readable_notes for d in check_links(note, fixed_index)[0])
    assert counts["VK502"] == 0 and counts["VK501"] == 15
