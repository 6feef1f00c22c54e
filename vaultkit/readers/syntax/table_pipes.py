"""Let `[[target|alias]]` survive inside table rows.

markdown-it splits a table row on every unescaped `|` before inline parsing, so Obsidian's
`[[target|alias]]` in a cell would be cut in two. Before block parsing, every unescaped pipe
inside a `[[...]]` is swapped for PIPE, a private-use character of the same length (so no
offset moves); wikilinks read PIPE as `|`, and after inline parsing every other token gets its
`|` back (code spans and fences such as bash `[[ a || b ]]` are unchanged).
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

PIPE = "\ue000"
_BRACKETED = re.compile(r"\[\[[^\[\]\n]*\]\]")
_UNESCAPED_PIPE = re.compile(r"(?<!\\)\|")


def _protect(match: re.Match) -> str:
    return _UNESCAPED_PIPE.sub(PIPE, match.group(0))


def protect_rule(state: StateCore) -> None:
    if "[[" not in state.src or "|" not in state.src:
        return
    protected = _BRACKETED.sub(_protect, state.src)
    if protected != state.src:
        state.env["vk_source"], state.src = state.src, protected


def _restore(tokens) -> None:
    for token in tokens:
        if PIPE in token.content:
            token.content = token.content.replace(PIPE, "|")
        if token.children:
            _restore(token.children)


def restore_rule(state: StateCore) -> None:
    if "vk_source" in state.env:
        state.src = state.env.pop("vk_source")
        _restore(state.tokens)


def table_pipes_plugin(md: MarkdownIt) -> None:
    md.core.ruler.before("block", "vk_protect_pipes", protect_rule)
    md.core.ruler.after("inline", "vk_restore_pipes", restore_rule)
