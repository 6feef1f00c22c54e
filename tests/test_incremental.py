"""`reparse`: an edited note parsed again where the edit touches gives exactly the tokens a
full parse gives (type, map, content, attrs, meta, children: everything), after any edit of
real-looking notes and of the real vault's notes, and the note's diagnostics are the same."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS, needs_corpus
from vaultkit.commands.lsp import note_diagnostics
from vaultkit.readers.incremental import reparse
from vaultkit.readers.markdown import parse_document
from vaultkit.state import VaultState

BLOCKS = [
    "# Title",
    "## Part\n\nText with [[note|alias]], a #tag, ==marked== and `code`.",
    "## Part",
    "Setext heading\n---",
    "A paragraph\nthat goes on\nover lines ^para-id",
    "- one\n- two\n  - nested ^item\n- three",
    "1. first\n\n2. loose second\n\n   more of it",
    "- [ ] task\n- [x] done",
    "> quoted\nlazy line\n> more",
    "> [!note]+ A callout\n> with **body**\n>\n> > nested quote",
    "> [!tip]\n> only a title",
    "- a list\n- before an id\n\n^list-id",
    "| a | b |\n|---|---|\n| [[x\\|y]] | 2 |\n| 3 | 4 |\n^table-id",
    "```python\nx = 1\n\n# not a heading\n```",
    "~~~\nunclosed fence? no\n~~~",
    "    indented code\n\n    still code",
    "$$\nx^2 + y^2\n$$",
    "\\[\na = b\n\\]",
    "Inline $x$ and \\(y\\) math, 2 × 3 = 6.",
    "%%\na block comment\n\nwith a blank line\n%%",
    "Text %% inline comment %% and 0.5%%= ex.value %%.",
    "<div>\nhtml block\n</div>",
    "<!--\nhtml comment\n\n-->",
    "***",
    "---",
    "![[embed]] and ![[pic.svg]]",
    "Autolink https://example.com and <https://example.org>.",
]
FRONT = "---\ntitle: A note\ntags: [a]\n---"
FRAGMENTS = [
    "\n",
    "\n\n",
    "x",
    " ",
    "```",
    "~~~",
    "$$",
    "\\[",
    "\\]",
    "%%",
    "> ",
    ">",
    "- ",
    "1. ",
    "    ",
    "\t",
    "# ",
    "---",
    "===",
    "...",
    "^new-id",
    "\n^new-id",
    "[[a|b]]",
    "|",
    "| c | d |\n|---|---|",
    "<div>",
    "</div>",
    "<!--",
    "-->",
    "[ref]: /url",
    "[ref]",
    "[^1]",
    "[^1]: a footnote",
    "^[inline footnote]",
    "`",
    "*",
    "==",
    "#tag",
    "> [!note]",
    "## Part",
]


def tree(tokens) -> list:
    """Everything a token holds, its children's too."""
    return [
        (t.type, t.tag, t.nesting, t.map, t.level, t.content, t.markup, t.info, t.attrs, t.meta, t.block, t.hidden)
        + (tree(t.children) if t.children else t.children,)
        for t in tokens
    ]


def assert_same_parse(previous, text: str):
    """The incremental parse of `text` from `previous`, checked against a full parse."""
    full = parse_document(text)
    incremental = reparse(previous, text)
    assert incremental.text == text
    assert incremental.document_wide == full.document_wide
    assert tree(incremental.tokens) == tree(full.tokens)
    return incremental


notes = st.builds(
    lambda front, blocks, seps: (
        (FRONT + "\n" if front else "") + "".join(block + sep for block, sep in zip(blocks, seps))
    ),
    st.booleans(),
    st.lists(st.sampled_from(BLOCKS), min_size=1, max_size=12),
    st.lists(st.sampled_from(["\n\n", "\n", "\n\n\n"]), min_size=12, max_size=12),
)
edit = st.tuples(
    st.floats(0, 1),  # where, as a fraction of the text
    st.integers(0, 40),  # how many characters it removes there
    st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(BLOCKS), st.just("")),  # what it writes there
)


def edited(text: str, change: tuple[float, int, str]) -> str:
    where, removed, written = change
    at = int(where * len(text))
    return text[:at] + written + text[at + removed :]


@settings(max_examples=1500, deadline=None)
@given(text=notes, changes=st.lists(edit, min_size=1, max_size=5))
@example(text=FRONT + "\n\n# A\n\n---\n\ntext\n", changes=[(0.3, 6, "")])  # the front matter now closes far below
@example(text="- a\n- b\n\n\ntext\n\nmore\n", changes=[(0.99, 0, "\n^list-id")])  # an id names a list above
@example(text="$$ a\n# b\ntext\n\nmore\n", changes=[(0.55, 0, "$$")])  # math closes past a heading
@example(text="# A\n\ntext\n\n# A\n\nmore\n\n# A\n", changes=[(0.0, 0, "# A\n\n")])  # anchors renumbered below
@example(
    text="# A\n\n- [--> ] task\n- b\n\nend\n", changes=[(1.0, 0, "x")]
)  # a window starting `- [-->` reads front matter
@example(
    text="- [ ] task\n\n- [ ] task\n- \n", changes=[(0.5, 0, "\n\n")]
)  # a box ending its line, alone in the window
def test_reparse_after_edits_is_a_full_parse(text, changes):
    previous = parse_document(text)
    for change in changes:
        text = edited(text, change)
        previous = assert_same_parse(previous, text)


def test_an_inline_footnote_ending_like_a_block_id_names_nothing():
    tokens = parse_document("text ^[a note ^b]\n").tokens  # found by the test above: it raised TypeError
    assert not any(token.meta.get("block_id") for token in tokens)


def test_an_edit_in_a_long_note_reuses_the_blocks_it_cannot_change():
    blocks = [f"## Part {i}\n\nParagraph {i} with [[link {i}]].\n\n- item {i}\n" for i in range(200)]
    text = "\n".join(blocks)
    previous = parse_document(text)
    middle = text.index("Paragraph 100 ")
    again = assert_same_parse(previous, text[:middle] + "x" + text[middle:])
    kept = {id(t) for t in previous.tokens}
    assert sum(id(t) in kept for t in again.tokens) > 0.9 * len(previous.tokens)


def test_link_reference_definitions_make_every_edit_a_full_parse():
    text = "See [the docs].\n\n" + "".join(f"Paragraph {i}.\n\n" for i in range(50)) + "[the docs]: /docs\n"
    previous = parse_document(text)
    assert previous.document_wide
    at = text.index("Paragraph 25")
    assert_same_parse(previous, text[:at] + "x" + text[at:])
    assert_same_parse(previous, text.replace("[the docs]: /docs\n", ""))


CORPUS_NOTES = sorted(p.relative_to(CORPUS).as_posix() for p in CORPUS.rglob("*.md")) if CORPUS.is_dir() else []


@needs_corpus
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    rel=st.sampled_from(CORPUS_NOTES or ["none"]),
    changes=st.lists(edit, min_size=1, max_size=4),
)
def test_reparse_of_real_notes_is_a_full_parse(rel, changes):
    text = (CORPUS / rel).read_text(encoding="utf-8", errors="replace")
    previous = parse_document(text)
    for change in changes:
        text = edited(text, change)
        previous = assert_same_parse(previous, text)


@needs_corpus
def test_keystrokes_in_the_largest_real_note_give_a_full_parse_each():
    rel = max(CORPUS_NOTES, key=lambda r: (CORPUS / r).stat().st_size)
    text = (CORPUS / rel).read_text(encoding="utf-8")
    lines = text.split("\n")
    previous = parse_document(text)
    for n in range(0, len(lines), max(1, len(lines) // 20)):
        lines[n] += "x"
        previous = assert_same_parse(previous, "\n".join(lines))


def test_an_open_notes_diagnostics_after_edits_are_a_fresh_checks(tmp_path):
    text = "".join(
        f"## Part {i}\n\n2 × 3 = {6 + i % 2} and [[missing {i}]].\n\n> [!note]\n> 4 × 4 = 16\n\n" for i in range(30)
    )
    vault, fresh_vault = tmp_path / "vault", tmp_path / "fresh"
    vault.mkdir()
    fresh_vault.mkdir()
    (vault / "note.md").write_text(text, encoding="utf-8")
    state = VaultState.load(vault)
    note_diagnostics(state, "note.md")
    for change in [
        (0.5, 0, "x"),
        (0.5, 1, ""),
        (0.2, 0, "\n\n5 × 5 = 26\n"),
        (0.7, 30, "## Part 3\n"),
        (0.9, 0, "```"),
    ]:
        before = {id(token) for token in state.vault.notes["note.md"].tokens}
        text = edited(text, change)
        state.apply([], {"note.md": text})
        (fresh_vault / "note.md").write_text(text, encoding="utf-8")
        fresh = VaultState.load(fresh_vault)
        assert note_diagnostics(state, "note.md") == note_diagnostics(fresh, "note.md")
        assert any(id(token) in before for token in state.vault.notes["note.md"].tokens)  # parsed again in part


CHECKED_BLOCKS = [
    *BLOCKS,
    "2 × 3 = 7 and 4 × 4 = 16.",
    "> [!note]\n> 5 + 5 = 11",
    "- 3 × 3 = 9\n- 2 + 2 = 5",
    "| a | b |\n|---|---|\n| 2 × 3 | 6 |",
    "See [[note#Part]], [[note#^para-id]], [[note#Nowhere]] and [[missing]].",
]
checked_notes = st.builds(
    lambda blocks: "\n\n".join(blocks) + "\n", st.lists(st.sampled_from(CHECKED_BLOCKS), min_size=1, max_size=10)
)
checked_edit = st.tuples(
    st.floats(0, 1), st.integers(0, 20), st.one_of(st.sampled_from(FRAGMENTS), st.sampled_from(CHECKED_BLOCKS))
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=checked_notes, changes=st.lists(checked_edit, min_size=1, max_size=4))
def test_diagnostics_of_a_note_edited_in_a_buffer_are_a_fresh_checks(tmp_path_factory, text, changes):
    vault, fresh_vault = tmp_path_factory.mktemp("vault"), tmp_path_factory.mktemp("fresh")
    (vault / "note.md").write_text(text, encoding="utf-8")
    state = VaultState.load(vault)
    note_diagnostics(state, "note.md")
    for change in changes:
        text = edited(text, change)
        state.apply([], {"note.md": text})
        (fresh_vault / "note.md").write_text(text, encoding="utf-8")
        assert note_diagnostics(state, "note.md") == note_diagnostics(VaultState.load(fresh_vault), "note.md")
