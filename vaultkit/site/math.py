"""Math on the site: MathML written at build time (no script, no network at view time).

Each formula keeps its TeX in `data-tex`, for KaTeX to typeset when the site ships it (`katex`)."""

from __future__ import annotations

import html

from latex2mathml.converter import convert


def _mathml(tex: str, display: str) -> str:
    try:
        return convert(tex, display=display)
    except Exception:  # latex2mathml raises many types on TeX it does not know
        return f'<code class="vk-math-error">{html.escape(tex)}</code>'


def inline_math(tex: str) -> str:
    """A formula in running text."""
    tex = tex.strip()
    return f'<span class="vk-math-inline" data-tex="{html.escape(tex, quote=True)}">{_mathml(tex, "inline")}</span>'


def block_math(tex: str) -> str:
    """A displayed formula, a block of its own."""
    tex = tex.strip()
    return f'<div class="vk-math" data-tex="{html.escape(tex, quote=True)}">{_mathml(tex, "block")}</div>'
