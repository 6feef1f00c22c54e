"""Server-side math: arithmatex's generic output -> MathML (no script, no network at view time)."""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

_INLINE = re.compile(r'<span class="arithmatex">\\\((?P<tex>.*?)\\\)</span>', re.S)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(?P<tex>.*?)\\\]</div>', re.S)


def _mathml(tex: str, display: str) -> str:
    source = html.unescape(tex).strip()
    try:
        return convert(source, display=display)
    except Exception:  # latex2mathml raises many types on TeX it does not know
        return f'<code class="vk-math-error">{html.escape(source)}</code>'


def render_math(page_html: str) -> str:
    """Replace every arithmatex span and div by MathML."""
    page_html = _BLOCK.sub(lambda m: f'<div class="vk-math">{_mathml(m["tex"], "block")}</div>', page_html)
    return _INLINE.sub(lambda m: _mathml(m["tex"], "inline"), page_html)
