"""Wikilinks `[[target#Heading|alias]]` and embeds `![[file.svg|1000]]`.

One token per link, type `wikilink` or `wikiembed`, with `meta`:
`path` (target path as written, '' for `[[#Heading]]`), `heading`, `block` (for `#^id`),
`alias` (display text, or an image size such as "1000"), `embed`, plus the position keys
added by `positions` (`line`, `col`, `end_col`, `raw`).

In table cells the pipe is written `\\|`; markdown-it has already split cells on the
unescaped pipes and turned `\\|` into `|` before inline parsing, so the link sees `|`.
Code spans and fences are never parsed inline here, so bash `[[ $# -gt 0 ]]` stays code.
"""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from vaultkit.readers.syntax.dispatch import InlineDispatch
from vaultkit.readers.syntax.table_pipes import PIPE


def split_target(inner: str) -> dict:
    """Split the text between the brackets into path, heading, block and alias."""
    target, pipe, alias = inner.replace(PIPE, "|").replace("\\|", "|").partition("|")
    target = target.strip()
    path, _, anchor = target.partition("#")
    heading = block = None
    if anchor.startswith("^"):
        block = anchor[1:].strip() or None
    elif anchor:
        heading = anchor.strip()
    return {
        "path": path.strip(),
        "heading": heading,
        "block": block,
        "alias": alias.strip() if pipe else None,
    }


_IN_TEXT = re.compile(r"\[\[([^\[\]\n]+)\]\]")


def wikilinks_in(text: str) -> list[tuple[int, int, dict]]:
    """The `[[links]]` of a plain text that is no Markdown (a property's value): start, end and
    `split_target`'s parts of each."""
    return [(m.start(), m.end(), split_target(m.group(1))) for m in _IN_TEXT.finditer(text) if m.group(1).strip()]


def _wikilink(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("!", pos)
    start = pos + 1 if embed else pos
    if not src.startswith("[[", start):
        return False
    close = src.find("]]", start + 2, state.posMax)
    if close < 0:
        return False
    inner = src[start + 2 : close]
    if not inner.strip() or "\n" in inner or "[[" in inner:
        return False
    if not silent:
        token = state.push("wikiembed" if embed else "wikilink", "", 0)
        token.markup = "![[" if embed else "[["
        token.meta = {**split_target(inner), "embed": embed, "offset": pos, "end": close + 2}
        token.content = token.meta["alias"] or token.meta["path"]
    state.pos = close + 2
    return True


def _render_link(self, tokens, idx, options, env) -> str:
    meta = tokens[idx].meta
    href = escape(meta["path"] + (f"#{meta['heading']}" if meta["heading"] else ""))
    return f'<a class="wikilink" href="{href}">{escape(tokens[idx].content)}</a>'


def _render_embed(self, tokens, idx, options, env) -> str:
    return f'<span class="wikiembed" data-target="{escape(tokens[idx].meta["path"])}"></span>'


def wikilinks_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    inline.add("[!", _wikilink)
    md.add_render_rule("wikilink", _render_link)
    md.add_render_rule("wikiembed", _render_embed)
