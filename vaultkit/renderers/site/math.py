"""Math on the site: MathML written at build time (no script, no network at view time).

Each formula keeps its TeX in `data-tex`, for KaTeX to typeset when the site ships it (`katex`)."""

from __future__ import annotations

import html
import re

from latex2mathml.converter import convert

_MTEXT = re.compile(r"<mtext>(.*?)</mtext>", re.S)
_TEXT_ESCAPE = re.compile(r"\\([_%&#$])")  # \_ in \text{kv\_heads}: latex2mathml keeps the backslash


def _mathml(tex: str, display: str) -> str:
    try:
        mathml = convert(tex, display=display)
    except Exception:  # latex2mathml raises many types on TeX it does not know
        return f'<code class="vk-math-error">{html.escape(tex)}</code>'
    return _MTEXT.sub(lambda m: "<mtext>" + _TEXT_ESCAPE.sub(lambda e: html.escape(e[1]), m[1]) + "</mtext>", mathml)


def inline_math(tex: str) -> str:
    """A formula in running text."""
    tex = tex.strip()
    return f'<span class="vk-math-inline" data-tex="{html.escape(tex, quote=True)}">{_mathml(tex, "inline")}</span>'


def block_math(tex: str) -> str:
    """A displayed formula, a block of its own."""
    tex = tex.strip()
    return f'<div class="vk-math" data-tex="{html.escape(tex, quote=True)}">{_mathml(tex, "block")}</div>'
