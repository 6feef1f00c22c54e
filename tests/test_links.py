from pathlib import Path

import pytest

from vaultkit.checks.links import check_links, fix_links
from vaultkit.model.links import (
    LinkIndex,
    Resolution,
    extract_links,
    file_name,
    link_face,
    link_names,
    markdown_links,
    note_block_ids,
    relative_link_path,
    target_lines,
)
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


def make_vault(tmp_path: Path, files: dict[str, str]) -> Vault:
    for rel, text in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return Vault.load(tmp_path)


# --- standard markdown links ---------------------------------------------------


def test_a_standard_link_to_a_missing_note_is_reported(tmp_path):
    vault = make_vault(
        tmp_path,
        {
            "n.md": "# N\n\nsee [x](missing.md) and [y](other.md)\n\n[z](../../up.md)\n",
            "other.md": "o\n",
        },
    )
    diags, count = check_links(vault.notes["n.md"], LinkIndex(vault))
    assert count == 3
    assert [(d.line, d.col, d.code) for d in diags] == [(3, 1, "VK501"), (5, 1, "VK507")]
    assert "markdown link target missing.md" in diags[0].message
    assert "markdown link target ../../up.md" in diags[1].message


def test_markdown_links_lists_local_md_targets_only(tmp_path):
    text = (
        "# T\n\n[a](a%20b.md#Part) [b](https://example.com/x.md) [c](pic.png) [d](UP.MD)\n\n"
        "```\n[e](code.md)\n```\n\n- item [f](sub/f.md)\n"
    )
    vault = make_vault(tmp_path, {"t.md": text})
    note = vault.notes["t.md"]
    assert markdown_links(note) == ((3, "a b.md"), (3, "UP.MD"), (9, "sub/f.md"))
    assert markdown_links(note) is note.derived["markdown_links"]


# --- resolution ----------------------------------------------------------------


def test_resolution_of_written_forms(vault):
    index = LinkIndex(vault)
    assert index.resolve("topics\\alpha", "index.md").target == "topics/alpha.md"  # a Windows separator
    assert (index.resolve("/topics/alpha", "index.md").status, index.resolve("/topics/alpha", "x.md").target) == (
        "ok",
        "topics/alpha.md",
    )
    assert index.resolve("C:\\notes\\alpha", "index.md") == Resolution("outside", None)
    assert index.resolve("~/alpha", "index.md").status == "outside"
    assert index.resolve("deep/gamma", "index.md") == Resolution("ok", "topics/deep/gamma.md")  # a partial path
    assert index.resolve("TOPICS/ALPHA", "index.md") == Resolution("ok", "topics/alpha.md")  # case-insensitive path
    assert index.resolve("../Index", "topics/alpha.md") == Resolution("ok", "index.md")
    assert index.resolve("nowhere", "index.md") == Resolution("missing", None)
    assert index.resolve("../nowhere", "index.md") == Resolution("outside", None)  # climbs out of the vault
    assert index.resolve("x/beta", "index.md") == Resolution("moved", "topics/beta.md")
    assert index.resolve("x/BETA", "index.md") == Resolution("moved", "topics/beta.md")
    # a wrong path to a name two notes share: no guess, both named
    assert index.resolve("c/dup", "index.md") == Resolution("missing", None, ("a/dup.md", "b/dup.md"))


def test_an_ambiguous_partial_path_prefers_the_notes_own_folder(tmp_path):
    files = {"zz/x/dup.md": "1\n", "q/x/dup.md": "2\n", "zz/x/n.md": "n\n"}
    res = LinkIndex(make_vault(tmp_path, files)).resolve("x/dup", "zz/x/n.md")
    assert res == Resolution("ambiguous", "zz/x/dup.md", ("zz/x/dup.md", "q/x/dup.md"), "it is in this note's folder")


def test_ambiguous_names_rank_by_folders_then_length_then_name(tmp_path):
    files = {"n.md": "n\n", "x/dup.md": "1\n", "xx/dup.md": "2\n", "a/b/dup.md": "3\n", "w/dup.md": "4\n"}
    res = LinkIndex(make_vault(tmp_path, files)).resolve("dup", "n.md")
    assert res.candidates == ("w/dup.md", "x/dup.md", "xx/dup.md", "a/b/dup.md")
    assert res.target == "w/dup.md"


def test_a_wrong_path_to_a_shared_name_finds_the_attachment_folders_file(tmp_path):
    files = {
        ".obsidian/app.json": '{"attachmentFolderPath": "files"}',
        "n.md": "![[old/pic.png]]\n",
        "files/pic.png": "",
        "other/pic.png": "",
        "other/deep/pic.png": "",
    }
    index = LinkIndex(make_vault(tmp_path, files))
    assert index.resolve("old/pic.png", "n.md") == Resolution("moved", "files/pic.png")
    (tmp_path / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "nowhere"}', encoding="utf-8")
    index = LinkIndex(Vault.load(tmp_path))
    missing = index.resolve("old/pic.png", "n.md")
    assert (missing.status, missing.candidates) == ("missing", ("files/pic.png", "other/deep/pic.png", "other/pic.png"))


def test_generated_files_resolve_before_they_are_drawn(vault):
    index = LinkIndex(vault, generated=["figures/attn.svg"])
    assert index.resolve("attn.svg", "index.md") == Resolution("ok", "figures/attn.svg")
    assert "figures/attn.svg" in index.attachments
    assert LinkIndex(vault).resolve("attn.svg", "index.md").status == "missing"


# --- the paths fix writes ------------------------------------------------------


@pytest.mark.parametrize(
    "style, shared, expected",
    [
        (None, "topics/beta", "topics/beta"),  # the written link's style: from the root
        ("relative", "../topics/beta", "../topics/beta"),
        ("absolute", "topics/beta", "topics/beta"),
        ("shortest", "beta", "beta"),
    ],
)
def test_link_path_follows_new_link_format(tmp_path, style, shared, expected):
    files = {"n/src.md": "[[old/beta]]\n", "topics/beta.md": "b\n", "a/dup.md": "1\n", "b/dup.md": "2\n"}
    if style:
        files[".obsidian/app.json"] = f'{{"newLinkFormat": "{style}"}}'
    index = LinkIndex(make_vault(tmp_path, files))
    assert index.link_path("old/beta", "topics/beta.md", "n/src.md") == shared == expected
    dup = index.link_path("c/dup", "a/dup.md", "n/src.md")
    assert dup == {None: "a/dup", "relative": "../a/dup", "absolute": "a/dup", "shortest": "a/dup"}[style]
    pic = index.link_path("x/pic.svg", "assets/pic.svg", "n/src.md")
    assert pic == {None: "assets/pic.svg", "relative": "../assets/pic.svg"}.get(style, "assets/pic.svg")


def test_relative_link_path_keeps_the_written_style():
    assert relative_link_path("../old/beta", "topics/beta.md", "topics/deep/n.md") == "../beta"
    assert relative_link_path("./beta", "topics/beta.md", "n.md") == "topics/beta"
    assert relative_link_path("old/beta.md", "topics/beta.md", "n.md") == "topics/beta.md"
    assert relative_link_path("old/beta.MD", "topics/beta.md", "n.md") == "topics/beta.md"
    assert relative_link_path("old/beta", "topics/beta.MD", "n.md") == "topics/beta"
    assert relative_link_path("old/pic.svg", "assets/pic.svg", "n.md") == "assets/pic.svg"


# --- what a link points into --------------------------------------------------


def test_target_lines_of_a_heading_a_block_and_the_whole_note(vault):
    beta = vault.notes["topics/beta.md"]
    assert target_lines(beta, None, None) == (0, 4)
    assert target_lines(beta, "Section B", None) == (0, 3)
    assert target_lines(beta, "Nope", None) is None
    assert target_lines(beta, None, "b1") == (2, 3)
    assert target_lines(beta, None, "zz") is None
    assert beta.derived[("lines", None, "b1")] == (2, 3)


def test_extract_links_reads_every_part_once(vault):
    note = vault.notes["topics/alpha.md"]
    links = extract_links(note)
    assert links is extract_links(note)
    assert [(link.line, link.col, link.path, link.heading, link.alias, link.embed) for link in links] == [
        (5, 1, "../index", None, None, False),
        (5, 14, "", "Sub heading", None, False),
        (5, 31, "gamma", None, None, False),
        (5, 41, "pic.svg", None, "300", True),
    ]
    assert links[3].raw == "![[pic.svg|300]]" and links[3].end_col == 57


# --- aliases and Obsidian's excluded files --------------------------------------


def test_alias_of_names_one_note_only(tmp_path):
    files = {
        "a.md": "---\naliases: [Attention, 注意力]\n---\na\n",
        "b.md": "---\naliases: [Shared]\n---\nb\n",
        "c.md": "---\naliases: [shared]\n---\nc\n",
    }
    index = LinkIndex(make_vault(tmp_path, files))
    assert index.alias_of("attention") == "a.md"
    assert index.alias_of("注意力") == "a.md"
    assert index.alias_of("Shared") is None  # two notes
    assert index.alias_of("x/Attention") is None  # a path is no alias
    assert index.alias_of("") is None
    assert index.alias_of("nothing") is None


def test_ignored_says_why_for_notes_and_attachments(tmp_path):
    files = {
        ".obsidian/app.json": '{"userIgnoreFilters": ["Archive/"]}',
        "Archive/old.md": "o\n",
        "Archive/pic.png": "",
        "n.md": "[[old]] ![[pic.png]]\n",
    }
    index = LinkIndex(make_vault(tmp_path, files))
    assert "Archive/" in index.ignored("Archive/old.md")
    assert "Archive/" in index.ignored("Archive/pic.png")
    assert index.ignored("n.md") is None


# --- the link graph and embed cycles ------------------------------------------


def test_the_graph_knows_names_targets_and_embeds(vault):
    index = LinkIndex(vault)
    graph = index.links()
    assert graph.filled and index.links() is graph
    assert graph.naming({"beta"}) == {"index.md", "topics/deep/gamma.md"}
    assert graph.naming({"nowhere"}) == {"topics/deep/gamma.md"}
    assert graph.targets({"topics/alpha.md"}) == {
        "index.md",
        "topics/alpha.md",
        "topics/deep/gamma.md",
        "assets/pic.svg",
    }
    assert graph.linking_to({"assets/pic.svg"}) == {"topics/alpha.md"}
    assert graph.embedders() == {"topics/alpha.md"}
    assert graph.embedding({"assets/pic.svg"}) == {"topics/alpha.md"}
    graph.drop("topics/alpha.md")
    assert graph.embedders() == set() and graph.embedding({"assets/pic.svg"}) == set()
    assert graph.naming({"gamma"}) == set() and graph.targets({"topics/alpha.md"}) == set()


def test_link_names_are_every_name_a_path_can_lead_to():
    assert link_names("Sub/Name.md", "a/n.md") == {"sub/name.md", "name"}
    assert link_names("../x\\Y", "a/n.md") == {"../x/y", "y"}
    assert link_names("", "a/n.md") == {"", ".", "a"}
    assert file_name("Topics/Alpha.md") == "alpha" and file_name("assets/Pic.SVG") == "pic.svg"


def test_embed_cycles(tmp_path):
    files = {
        "a.md": "# A\n\n![[b]]\n",
        "b.md": "# B\n\n![[a]]\n",
        "self.md": "# S\n\n![[self]]\n",
        "parts.md": "# One\n\n![[parts#Two]]\n\n# Two\n\ntwo\n",
        "loop.md": "# One\n\n![[loop#One]]\n",
        "c.md": "![[d]]\n",
        "d.md": "plain\n",
    }
    index = LinkIndex(make_vault(tmp_path, files))
    assert index.embed_cycles() == {("a.md", 3, 1), ("b.md", 3, 1), ("self.md", 3, 1), ("loop.md", 3, 1)}
    codes_of_a = [d.code for d in check_links(index.vault.notes["a.md"], index)[0]]
    assert codes_of_a == ["VK509"]
    index.links()  # with the graph filled, the notes that embed are taken from it
    index.forget_cycles()
    assert index.embed_cycles() == {("a.md", 3, 1), ("b.md", 3, 1), ("self.md", 3, 1), ("loop.md", 3, 1)}


def test_link_face_changes_with_headings_and_block_ids_only(tmp_path):
    vault = make_vault(tmp_path, {"n.md": "# H\n\ntext ^b1\n", "draft.md": "---\npublish: false\n---\nx\n"})
    assert link_face(vault.notes["n.md"]) == (True, True, None, ("H",), frozenset({"b1"}), frozenset())
    assert link_face(vault.notes["draft.md"])[:3] == (True, False, None)
