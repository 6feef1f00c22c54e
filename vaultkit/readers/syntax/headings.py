"""Heading anchors.

Obsidian links `[[N#Heading]]` by the heading text; the site links by an anchor id. The core
rule puts on each `heading_open` token `meta["text"]` (the heading as written),
`meta["plain"]` (as a reader sees it) and `meta["anchor"]` (its id, made unique within the
note like Python-Markdown's `toc`), and sets the `id` attribute. `sections` and
`find_section` are how `check` and the site find the heading a link names.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

_NOT_IN_ANCHOR = re.compile(r"[^\w\s-]")
_ANCHOR_GAPS = re.compile(r"[-\s]+")


def heading_anchor(text: str) -> str:
    """The anchor id the site gives a heading, as Python-Markdown `toc`'s `slugify_unicode`
    makes it (a test holds them equal; importing Python-Markdown for it cost each check 25
    ms): unicode kept, punctuation dropped, lower case, runs of spaces and dashes one `-`;
    not made unique here (the core rule adds `_1`, `_2` like `toc`).
    E.g. `heading_anchor("第 3 步：算出分数")` is `"第-3-步算出分数"`."""
    return _ANCHOR_GAPS.sub("-", _NOT_IN_ANCHOR.sub("", text).strip().lower())


def plain_text(inline) -> str:
    """Text of an inline token as a reader sees it (markup and hidden comments dropped)."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
        elif child.type in ("wikilink", "wikiembed", "tag"):
            parts.append(child.content)
    return "".join(parts) if parts else inline.content


def unique_anchors(texts: list[str], slugify: Callable[[str], str] = heading_anchor) -> list[str]:
    """The anchor of each heading text of a note, in order, made unique like `toc` does
    (`intro`, `intro_1`, ...). The site passes its own slugify (mkdocs.yml may set one)."""
    seen: set[str] = set()
    anchors = []
    for text in texts:
        anchor = base = slugify(text) or "_"
        n = 0
        while anchor in seen:
            n += 1
            anchor = f"{base}_{n}"
        seen.add(anchor)
        anchors.append(anchor)
    return anchors


def anchors_rule(state: StateCore) -> None:
    tokens = state.tokens
    heads = [i for i, token in enumerate(tokens) if token.type == "heading_open"]
    plains = [plain_text(tokens[i + 1]) for i in heads]
    for i, plain, anchor in zip(heads, plains, unique_anchors(plains)):
        token = tokens[i]
        token.meta = {**(token.meta or {}), "text": tokens[i + 1].content, "plain": plain, "anchor": anchor}
        token.attrSet("id", anchor)


@dataclass(frozen=True)
class Section:
    """A heading and the 0-based lines [start, end) up to the next heading of its level or higher."""

    level: int
    text: str  # as written
    plain: str  # as a reader sees it (what the site's anchor is made from)
    start: int
    end: int


def sections(tokens: list[Token]) -> list[Section]:
    """Every heading of a note with its section, in order."""
    heads = [(int(t.tag[1]), t) for t in tokens if t.type == "heading_open" and t.map]
    last = max((t.map[1] for t in tokens if t.map), default=0)
    out = []
    for n, (level, token) in enumerate(heads):
        end = next((t.map[0] for lv, t in heads[n + 1 :] if lv <= level), last)
        out.append(Section(level, token.meta.get("text", ""), token.meta.get("plain", ""), token.map[0], end))
    return out


def loose(text: str) -> str:
    """Heading text as Obsidian compares it in links: case, spaces and punctuation ignored."""
    return re.sub(r"[\W_]+", "", text).casefold()


def find_section(tokens: list[Token], heading: str) -> Section | None:
    """The section `[[N#heading]]` names in a note's tokens, or None."""
    return named_section(sections(tokens), heading)


def named_section(outline: list[Section], heading: str) -> Section | None:
    """The section of `outline` that `[[N#heading]]` names (Obsidian's `#A#B`, a heading under
    a heading, is matched by its last part), or None."""
    wanted = loose(heading.split("#")[-1])
    return next((s for s in outline if loose(s.text) == wanted), None)


def headings_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("vk_heading_anchors", anchors_rule)
