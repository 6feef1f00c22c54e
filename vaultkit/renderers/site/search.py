"""What material's search indexes of a page, read from the note's tokens (no HTML is parsed).

A page is cut into sections at its headings, as material's search cuts the HTML: the text
before the first heading (unless the page starts with an `h1`), then one section per heading,
with the tags material keeps in the text (`p`, `li`, `ul`, `ol`, `pre`, `code`). Comments,
raw HTML and front matter are not text; a formula is its TeX; a link or tag its text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape

from markdown_it.token import Token

_KEPT = {"paragraph": "p", "bullet_list": "ul", "ordered_list": "ol", "list_item": "li", "callout_title": "p"}
_SILENT = {"comment", "html_inline", "front_matter", "image", "wikiembed"}


@dataclass
class SearchSection:
    id: str | None  # the heading's anchor; None for the page's first section
    title: str  # "" for the text before the first heading: the page title stands for it
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts).split())


def search_sections(tokens: list[Token], heading_ids: list[str]) -> list[SearchSection]:
    """The sections of a note's tokens; `heading_ids` are the page's heading anchors in order."""
    found: list[SearchSection] = []
    ids = iter(heading_ids)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        kind = token.type
        if kind == "heading_open":
            anchor = next(ids)
            if not found and token.tag != "h1":
                found.append(SearchSection(None, ""))
            title = inline_text(tokens[i + 1].children or [], markup=False)
            found.append(SearchSection(anchor if found else None, title))
            i += 3
            continue
        if not found:
            found.append(SearchSection(None, ""))
        parts = found[-1].parts
        base = kind.rsplit("_", 1)[0]
        if base in _KEPT and not token.hidden:
            parts.append(f"<{'/' if token.nesting < 0 else ''}{_KEPT[base]}>")
        elif kind == "inline":
            parts.append(inline_text(token.children or []) + " ")
        elif kind in ("fence", "code_block") and token.info.strip().split(" ")[:1] != ["vaultkit"]:
            parts.append(f"<pre><code>{escape(token.content)}</code></pre>")
        elif kind == "math_block":
            parts.append(escape(token.content) + " ")
        i += 1
    return found


def inline_text(children: list[Token], markup: bool = True) -> str:
    """An inline token's text, escaped, with `<code>` around code when `markup`."""
    out = []
    for child in children:
        kind = child.type
        if kind in ("text", "math_inline", "math_inline_double", "tag"):
            out.append(escape(child.content, quote=False))
        elif kind == "code_inline":
            code = escape(child.content, quote=False)
            out.append(f"<code>{code}</code>" if markup else code)
        elif kind in ("softbreak", "hardbreak"):
            out.append(" ")
        elif kind == "wikilink":
            out.append(escape(child.content, quote=False))
        elif kind not in _SILENT and child.children:
            out.append(inline_text(child.children, markup))
    return "".join(out)
