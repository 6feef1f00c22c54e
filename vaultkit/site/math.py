"""Server-side math: arithmatex's generic output -> MathML (no script, no network at view time).

Each formula keeps its TeX in `data-tex`, for KaTeX to typeset when the site ships it (`katex`)."""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

_INLINE = re.compile(r'<span class="arithmatex">\\\((?P<tex>.*?)\\\)</span>', re.S)
_BLOCK = re.compile(r'<div class="arithmatex">\\\[(?P<tex>.*?)\\\]</div>', re.S)


_MTEXT = re.compile(r"<mtext>(.*?)</mtext>", re.S)
_TEXT_ESCAPE = re.compile(r"\\([_%&#$])")  # \_ in \text{kv\_heads}: latex2mathml keeps the backslash


def _mathml(tex: str, display: str) -> str:
    source = html.unescape(tex).strip()
    try:
        mathml = convert(source, display=display)
    except Exception:  # latex2mathml raises many types on TeX it does not know
        return f'<code class="vk-math-error">{html.escape(source)}</code>'
    return _MTEXT.sub(lambda m: "<mtext>" + _TEXT_ESCAPE.sub(lambda e: html.escape(e[1]), m[1]) + "</mtext>", mathml)


def _tex_attribute(tex: str) -> str:
    return html.escape(html.unescape(tex).strip(), quote=True)


def render_math(page_html: str) -> str:
    """Replace every arithmatex span and div by MathML, keeping the TeX in `data-tex`."""
    page_html = _BLOCK.sub(
        lambda m: f'<div class="vk-math" data-tex="{_tex_attribute(m["tex"])}">{_mathml(m["tex"], "block")}</div>',
        page_html)
    return _INLINE.sub(
        lambda m: f'<span class="vk-math-inline" data-tex="{_tex_attribute(m["tex"])}">{_mathml(m["tex"], "inline")}</span>',
        page_html)
