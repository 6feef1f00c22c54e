"""`==highlight==`: `mark_open` / `mark_close` tokens around the parsed inner text.
The opening `==` is not followed by a space and the closing one not preceded by one, so
`a == b` in prose stays text."""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from vaultkit.readers.syntax.dispatch import InlineDispatch


def _highlight(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if not src.startswith("==", start) or start + 2 >= state.posMax or src[start + 2] in " \t\n=":
        return False
    close = src.find("==", start + 3, state.posMax)
    while close > 0 and src[close - 1] in " \t\n":
        close = src.find("==", close + 2, state.posMax)
    if close < 0:
        return False
    if not silent:
        state.push("mark_open", "mark", 1).markup = "=="
        old_max = state.posMax
        state.pos, state.posMax = start + 2, close
        state.md.inline.tokenize(state)
        state.posMax = old_max
        state.push("mark_close", "mark", -1).markup = "=="
    state.pos = close + 2
    return True


def highlight_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    inline.add("=", _highlight)
