"""On the real vault, every published note's page has the block structure of markdown-it's
rendering of the same note: the same sequence of lists, items, tables, rows, quotes, callouts,
code blocks, diagrams and headings.

The vault (copied to a tmp dir) is built once with `vaultkit build`; each note is rendered with
vaultkit's own parser (`vaultkit.readers.markdown.make_parser()`: CommonMark + GFM + the Obsidian
plugins, front matter dropped) and markdown-it's HTML renderer. vault146 has no note embeds and
no vaultkit example blocks, so nothing on a page comes from another note. Without mermaid.js (npm)
a diagram is a code block on the site, and is expected as one. Skips when the vault
is absent.
"""

from __future__ import annotations

import difflib
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from vaultkit.commands.build import build_command
from vaultkit.model.vault import Vault
from vaultkit.readers.markdown import make_parser

from .conftest import CORPUS, needs_corpus, note_content

pytestmark = needs_corpus

BLOCKS = {"ul", "ol", "li", "table", "tr", "blockquote", "pre", "h1", "h2", "h3", "h4", "h5", "h6"}


class BlockStructure(HTMLParser):
    """The block elements of an HTML fragment, in order. A callout counts as `callout` (material's
    admonition `div` or a `details`, as the site and vaultkit's callout rule both write it); a
    mermaid diagram as `mermaid` (an element of class `mermaid` on the site, a code block of
    language mermaid from markdown-it)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if "mermaid" in classes:
            self.blocks.append("mermaid")
        elif tag == "code" and "language-mermaid" in classes and self.blocks[-1:] == ["pre"]:
            self.blocks[-1] = "mermaid"
        elif tag == "details" or (tag == "div" and "admonition" in classes):
            self.blocks.append("callout")
        elif tag in BLOCKS:
            self.blocks.append(tag)


def blocks(fragment: str) -> list[str]:
    parser = BlockStructure()
    parser.feed(fragment)
    parser.close()
    return parser.blocks


def page_of(site: Path, rel: str) -> Path:
    folder, _, name = rel[: -len(".md")].rpartition("/")
    return site / folder / ("" if name in ("README", "index") else name) / "index.html"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("structure")
    vault = root / "vault"
    shutil.copytree(CORPUS, vault)
    for path in [vault, *vault.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    site = root / "site"
    assert build_command(vault, str(site), strict=False) == 0
    return vault, site


def test_every_published_page_has_the_block_structure_of_its_markdown(built):
    vault, site = built
    model = Vault.load(vault)
    published = sorted(
        rel for rel, note in model.notes.items() if note.readable and note.published and not note.ignored
    )
    assert len(published) == 146
    md = make_parser()
    drawn = (site / "assets/vaultkit/mermaid.min.js").is_file()  # without mermaid.js a diagram stays code
    differing = []
    for rel in published:
        expected = blocks(md.render(model.notes[rel].text))
        expected = expected if drawn else ["pre" if block == "mermaid" else block for block in expected]
        shown = blocks(note_content(page_of(site, rel).read_text(encoding="utf-8")))
        if shown != expected:
            diff = [line for line in difflib.unified_diff(expected, shown, "markdown-it", "site", n=1, lineterm="")]
            differing.append(
                f"{rel}: {len(expected)} blocks in markdown-it, {len(shown)} on the site\n    " + " ".join(diff[2:14])
            )
    print(f"\n{len(differing)} of {len(published)} published notes differ in block structure")
    assert not differing, f"{len(differing)} of {len(published)} notes differ:\n" + "\n".join(differing)
