"""Heading anchors.

Obsidian links `[[N#Heading]]` by the heading text; the site links by an anchor id. The core
rule puts on each `heading_open` token `meta["text"]` (the heading as written) and
`meta["anchor"]` (the site id, made unique within the note like Python-Markdown's `toc`),
and sets the `id` attribute.
"""

from __future__ import annotations

from markdown.extensions.toc import slugify_unicode
from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore


def heading_anchor(text: str) -> str:
    """The anchor id the site gives a heading: Python-Markdown `toc`'s `slugify_unicode`
    (unicode kept, lower case, punctuation dropped, runs of spaces and dashes become `-`);
    not made unique here (the core rule adds `_1`, `_2` like `toc`).
    E.g. `heading_anchor("第 3 步：算出分数")` is `"第-3-步算出分数"`."""
    return slugify_unicode(text, "-")


def plain_text(inline) -> str:
    """Text of an inline token as a reader sees it (markup and hidden comments dropped)."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "math_inline"):
            parts.append(child.content)
        elif child.type in ("wikilink", "wikiembed", "tag"):
            parts.append(child.content)
    return "".join(parts) if parts else inline.content


def anchors_rule(state: StateCore) -> None:
    seen: set[str] = set()
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        inline = tokens[i + 1]
        anchor = base = heading_anchor(plain_text(inline)) or "_"
        n = 0
        while anchor in seen:
            n += 1
            anchor = f"{base}_{n}"
        seen.add(anchor)
        token.meta = {**(token.meta or {}), "text": inline.content, "anchor": anchor}
        token.attrSet("id", anchor)


def headings_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("vk_heading_anchors", anchors_rule)
