"""Math: `$…$`, `$$…$$` (mdit-py-plugins dollarmath), `\\(…\\)` and `\\[…\\]` (here).

Dollar amounts stay text, following Obsidian/pandoc: an opening `$` is not followed by a
space, a closing `$` is not preceded by a space nor followed by a digit, so
`价格 $5 到 $10` has no math. `\\[placeholder\\]` is also common markdown for literal
brackets, so bracket math whose content reads as prose (CJK text or three plain words in a
row, outside `\\text{…}`) stays text. Tokens: `math_inline`, `math_inline_double`,
`math_block`, `math_block_label` with the delimiters in `markup`.
"""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.rules_inline import StateInline
from mdit_py_plugins.dollarmath import dollarmath_plugin

from vaultkit.readers.syntax.dispatch import InlineDispatch

_TEXT_GROUP = re.compile(r"\\(?:text|mathrm|textrm|operatorname|mbox)\{[^{}]*\}")
_PROSE = re.compile(r"[\u3000-\u9fff\uff00-\uffef]|(?<![\\\w])[A-Za-z]{2,} [A-Za-z]{2,} [A-Za-z]{2,}")


def reads_as_prose(content: str) -> bool:
    return bool(_PROSE.search(_TEXT_GROUP.sub("", content)))


def _inline_paren(state: StateInline, silent: bool) -> bool:
    start = state.pos
    if not state.src.startswith("\\(", start):
        return False
    close = state.src.find("\\)", start + 2, state.posMax)
    if close < 0 or not state.src[start + 2 : close].strip() or reads_as_prose(state.src[start + 2 : close]):
        return False
    if not silent:
        token = state.push("math_inline", "math", 0)
        token.content, token.markup = state.src[start + 2 : close], "\\("
    state.pos = close + 2
    return True


def _block_bracket(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    if state.sCount[start_line] - state.blkIndent >= 4:
        return False
    begin = state.bMarks[start_line] + state.tShift[start_line]
    if not state.src.startswith("\\[", begin):
        return False
    line = start_line
    while line < end_line:
        text = state.src[state.bMarks[line] + state.tShift[line] : state.eMarks[line]].rstrip()
        if text.endswith("\\]") and (line > start_line or len(text) >= 4):
            break
        if line > start_line and not text:
            return False  # a blank line ends the paragraph before the math closes
        line += 1
    else:
        return False
    content = state.src[begin + 2 : state.eMarks[line]].rstrip()[:-2]
    if reads_as_prose(content):
        return False
    if not silent:
        token = state.push("math_block", "math", 0)
        token.block, token.content, token.markup = True, content, "\\["
        token.map = [start_line, line + 1]
    state.line = line + 1
    return True


def math_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    dollarmath_plugin(md, allow_space=False, allow_digits=False, double_inline=True)
    inline.add("\\", _inline_paren)
    md.block.ruler.before("fence", "math_block_brackets", _block_bracket)
