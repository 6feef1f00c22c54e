"""Inline tags `#tag/nested`: a `tag` token with `meta["tag"]`.

Like Obsidian: the `#` starts a line or follows whitespace (so URLs' `#anchor`, `C#` and
heading markers are not tags), the name has letters (any script), digits, `_`, `-`, `/`, and
at least one character that is not a digit (`#123` is an issue number). Code is never parsed.
"""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from vaultkit.readers.syntax.dispatch import InlineDispatch

TAG_NAME = r"[\w/-]*[^\W\d][\w/-]*"  # shared with the site, which finds tags in fresh text
TAG = re.compile(rf"#({TAG_NAME})")


def _tag(state: StateInline, silent: bool) -> bool:
    pos = state.pos
    if pos > 0 and not state.src[pos - 1].isspace():
        return False
    match = TAG.match(state.src, pos, state.posMax)
    if not match:
        return False
    if not silent:
        token = state.push("tag", "", 0)
        token.content = match.group(0)
        token.meta = {"tag": match.group(1).strip("/"), "offset": pos, "end": match.end()}
    state.pos = match.end()
    return True


def _render(self, tokens, idx, options, env) -> str:
    return f'<span class="tag">{escape(tokens[idx].content)}</span>'


def inline_tags(tokens) -> list[str]:
    """The `#tags` of a note's tokens, in order, each once."""
    found = [child.meta["tag"] for token in tokens for child in token.children or () if child.type == "tag"]
    return list(dict.fromkeys(found))


def tags_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    inline.add("#", _tag)
    md.add_render_rule("tag", _render)
