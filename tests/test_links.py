from pathlib import Path

import pytest

from vaultkit.checks.links import check_links, fix_links
from vaultkit.model.links import LinkIndex, extract_links, note_block_ids
from vaultkit.model.vault import Vault
from vaultkit.readers.syntax.headings import sections

FILES = {
    "index.md": "# Home\n\n[[topics/alpha]] [[Alpha]] [[alpha.md]] [[beta#Section B]] [[beta#^b1]]\n",
    "topics/alpha.md": "# Alpha\n\n## Sub, heading!\n\n[[../index]] [[#Sub heading]] [[gamma]] ![[pic.svg|300]]\n",
    "topics/beta.md": "## Section B\n\ntext ^b1\n",
    "topics/deep/gamma.md": "[[../../../topics/beta|B]] [[../alpha#Alpha]] [[nowhere]] ![[missing.png]]\n"
    "![[../../../../etc/passwd]] [[/etc/passwd]] [[topics]] [[beta#Nope]] [[beta#^zz]]\n",
    "a/dup.md": "x\n",
    "b/dup.md": "x\n",
    "b/sub/near.md": "[[dup]] [[draft]]\n",
    "draft.md": "---\ndraft: true\n---\nsecret\n",
    "assets/pic.svg": "<svg/>",
}


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    for rel, text in FILES.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Vault.load(tmp_path)


def codes(vault, rel):
    diags, count = check_links(vault.notes[rel], LinkIndex(vault))
    return [(d.col, d.code) for d in diags], count


def test_resolution_order(vault):
    index = LinkIndex(vault)
    assert index.resolve("topics/alpha", "index.md").target == "topics/alpha.md"
    assert index.resolve("Alpha", "index.md").status == "ok"  # case-insensitive name
    assert index.resolve("alpha.md", "index.md").target == "topics/alpha.md"
    assert index.resolve("../index", "topics/alpha.md").status == "ok"
    assert index.resolve("pic.svg", "topics/alpha.md").target == "assets/pic.svg"
    assert index.resolve("", "index.md").target == "index.md"
    moved = index.resolve("../../../topics/beta", "topics/deep/gamma.md")
    assert (moved.status, moved.target) == ("moved", "topics/beta.md")
    assert index.resolve("topics", "index.md").status == "missing"  # a folder, not a note
    assert index.resolve("/etc/passwd", "index.md").status == "outside"
    assert index.resolve("../../../../etc/passwd", "topics/deep/gamma.md").status == "outside"


def test_ambiguous_name_resolves_as_obsidian_does(vault):
    """Own folder first, else the shortest path (not the nearest: b/dup.md is nearer here)."""
    index = LinkIndex(vault)
    res = index.resolve("dup", "b/sub/near.md")
    assert res.status == "ambiguous"
    assert res.target == "a/dup.md" and res.candidates == ("a/dup.md", "b/dup.md")
    assert res.why == "it has the shortest path"
    assert index.resolve("dup", "index.md").target == "a/dup.md"  # tie: by name
    assert index.resolve("dup", "b/x.md").status == "ok"  # exact relative path first


def test_clean_notes_have_no_diagnostics(vault):
    assert codes(vault, "index.md") == ([], 5)
    assert codes(vault, "topics/alpha.md") == ([], 4)


def test_every_kind_of_broken_link(vault):
    diags, count = codes(vault, "topics/deep/gamma.md")
    assert count == 9
    assert [code for _, code in diags] == [
        "VK502",
        "VK501",
        "VK506",
        "VK507",
        "VK507",
        "VK501",
        "VK504",
        "VK505",
    ]
    assert codes(vault, "b/sub/near.md")[0] == [(1, "VK503"), (9, "VK508")]


def test_headings_and_block_ids(vault):
    headings = [(s.level, s.text) for s in sections(vault.notes["topics/alpha.md"].tokens)]
    assert headings == [(1, "Alpha"), (2, "Sub, heading!")]
    assert note_block_ids(vault.notes["topics/beta.md"]) == {"b1"}


def test_fix_rewrites_only_the_path_of_moved_links(vault):
    note = vault.notes["topics/deep/gamma.md"]
    fixed = fix_links(note.text, note, LinkIndex(vault))
    assert fixed == note.text.replace("[[../../../topics/beta|B]]", "[[../beta|B]]")


def test_fix_in_table_keeps_escaped_alias(tmp_path):
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "target.md").write_text("t\n")
    text = "| a |\n|---|\n| [[../../x/target#H \\| shown]] |\n"
    (tmp_path / "x" / "src.md").write_text(text)
    vault = Vault.load(tmp_path)
    note = vault.notes["x/src.md"]
    (link,) = extract_links(note)
    assert link.raw == "[[../../x/target#H \\| shown]]" and link.alias == "shown"
    fixed = fix_links(note.text, note, LinkIndex(vault))
    assert fixed == text.replace("../../x/target", "target")


def test_backlinks(vault):
    index = LinkIndex(vault)
    assert index.backlinks("topics/beta.md") == ["index.md", "topics/deep/gamma.md"]
    assert index.backlinks("assets/pic.svg") == ["topics/alpha.md"]
