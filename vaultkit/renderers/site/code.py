"""Code blocks highlighted with Pygments, in the markup material styles (`.highlight`)."""

from __future__ import annotations

import html
from functools import cache

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import TextLexer, get_lexer_by_name
from pygments.util import ClassNotFound


@cache
def _formatter(language: str) -> HtmlFormatter:
    """One formatter per language class: making one per block costs more than highlighting
    most blocks."""
    css = f"language-{html.escape(language)} highlight" if language else "highlight"
    return HtmlFormatter(cssclass=css, wrapcode=True)


@cache
def _lexer(language: str) -> Lexer:
    """The lexer of a language name; blank lines at either end are kept, as written."""
    try:
        return get_lexer_by_name(language, stripnl=False) if language else TextLexer(stripnl=False)
    except ClassNotFound:
        return TextLexer(stripnl=False)


def highlight_code(code: str, language: str) -> str:
    """`<div class="language-X highlight"><pre><span></span><code>…</code></pre></div>` for a
    block of `language` (a name Pygments does not know is plain text)."""
    formatter = _formatter(language)
    if not code:
        return f'<div class="{formatter.cssclass}"><pre><span></span><code></code></pre></div>'
    try:
        return highlight(code, _lexer(language.lower()), formatter)
    except Exception:  # a lexer that fails on odd input: the code as plain text
        return f'<div class="{formatter.cssclass}"><pre><span></span><code>{html.escape(code)}</code></pre></div>'
