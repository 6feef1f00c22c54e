"""Math: `$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]` via mdit-py-plugins (dollarmath + texmath).

Dollar amounts stay text, following Obsidian/pandoc: an opening `$` is not followed by a
space, a closing `$` is not preceded by a space nor followed by a digit, so
`价格 $5 到 $10` has no math. Tokens: `math_inline`, `math_inline_double`, `math_block`
(and `math_block_eqno`) from dollarmath; `math_inline` / `math_block` from texmath for
the bracket forms.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.texmath import texmath_plugin


def math_plugin(md: MarkdownIt) -> None:
    texmath_plugin(md, delimiters="brackets")
    # second, so dollarmath's renderers (`<span class="math inline">`) serve both forms
    dollarmath_plugin(md, allow_space=False, allow_digits=False, double_inline=True)
