"""Code blocks highlighted with Pygments, in the markup material styles (`.highlight`)."""

from __future__ import annotations

import html
from functools import lru_cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound

# One formatter for every block: making one per block costs more than highlighting most blocks.
_FORMATTER = HtmlFormatter(cssclass="highlight", wrapcode=True)


@lru_cache(maxsize=None)
def _lexer(language: str) -> Lexer:
    try:
        return get_lexer_by_name(language) if language else TextLexer()
    except ClassNotFound:
        return TextLexer()


def highlight_code(code: str, language: str) -> str:
    """`<div class="highlight"><pre><span></span><code>…</code></pre></div>` for a block of
    `language` (a name Pygments does not know is plain text)."""
    if not code:
        return '<div class="highlight"><pre><span></span><code></code></pre></div>'
    try:
        return highlight(code, _lexer(language.lower()), _FORMATTER)
    except Exception:  # a lexer that fails on odd input: the code as plain text
        return f'<div class="highlight"><pre><span></span><code>{html.escape(code)}</code></pre></div>'
