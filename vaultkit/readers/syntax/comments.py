"""Obsidian comments `%%…%%`, hidden from reading view and the site.

Inline: a `comment` token whose `content` is the text between the markers (inline values
such as `-0.10%%= attn-4tok.scores[1][2] %%` read it), with offsets/positions in `meta`.
Block: a line starting with `%%` opens a `comment_block` token that runs to the line ending
with the closing `%%` (or to the end of the note, as in Obsidian). Both render as nothing.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline

from vaultkit.readers.syntax.dispatch import InlineDispatch


def _inline_comment(state: StateInline, silent: bool) -> bool:
    src, start = state.src, state.pos
    if not src.startswith("%%", start):
        return False
    close = src.find("%%", start + 2, state.posMax)
    if close < 0:
        return False
    if not silent:
        token = state.push("comment", "", 0)
        token.content = src[start + 2 : close]
        token.markup = "%%"
        token.meta = {"offset": start, "end": close + 2}
    state.pos = close + 2
    return True


def _line(state: StateBlock, line: int) -> str:
    return state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]]


def _block_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    first = _line(state, start_line)
    if not first.startswith("%%"):
        return False
    rest = first[2:]
    if "%%" in rest and not rest.rstrip().endswith("%%"):
        return False  # `%% a %% text` is an inline comment inside a paragraph
    line = start_line
    if not rest.rstrip().endswith("%%"):
        line += 1
        while line < end_line and not _line(state, line).rstrip().endswith("%%"):
            line += 1
    last = min(line, end_line - 1)
    if silent:
        return True
    token = state.push("comment_block", "", 0)
    token.map = [start_line, last + 1]
    body = state.getLines(start_line, last + 1, state.sCount[start_line], False).strip()
    token.content = body[2:-2] if body.endswith("%%") and len(body) >= 4 else body[2:]
    token.markup = "%%"
    state.line = last + 1
    return True


def comments_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    md.block.ruler.before("paragraph", "comment_block", _block_comment)
    inline.add("%", _inline_comment)
    md.add_render_rule("comment", lambda *args: "")
    md.add_render_rule("comment_block", lambda *args: "")
