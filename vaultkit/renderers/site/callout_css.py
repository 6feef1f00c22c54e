"""The look of callouts as Obsidian's default theme has it: each type's colour and Lucide icon,
and what the vault's own CSS snippets set for a type (`.obsidian/snippets/*.css`, as read by
`readers.syntax.callouts.snippet_callouts`); and the Lucide icon of each property type.

`callout_css(snippets)` is the stylesheet the site adds to `vaultkit.css`. A callout's element
has its type's family as class and the type as written in `data-callout` (`callouts.py`); the
colour is `--vk-callout-color` (r, g, b, as Obsidian's `--callout-color`), the icon
`--vk-callout-icon` (an SVG mask). Icons: Lucide (ISC licence, lucide-static 1.62.0), only the
ones callouts use; a snippet's icon of another name keeps its family's icon.
"""

from __future__ import annotations

from urllib.parse import quote

ICONS = {
    "pencil": '<path d="M21.174 6.812a1 1 0 0 0-3.986-3.987L3.842 16.174a2 2 0 0 0-.5.83l-1.321 4.352a.5.5 0 0 0 .623.622l4.353-1.32a2 2 0 0 0 .83-.497z"/><path d="m15 5 4 4"/>',
    "clipboard-list": '<rect width="8" height="4" x="8" y="2" rx="1" ry="1"/><path d="M16 4h2a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2h2"/><path d="M12 11h4"/><path d="M12 16h4"/><path d="M8 11h.01"/><path d="M8 16h.01"/>',
    "info": '<circle cx="12" cy="12" r="10"/><path d="M12 16v-4"/><path d="M12 8h.01"/>',
    "circle-check": '<circle cx="12" cy="12" r="10"/><path d="m16 9-5.5 5.5L8 12"/>',
    "flame": '<path d="M12 3q1 4 4 6.5t3 5.5a1 1 0 0 1-14 0 5 5 0 0 1 1-3 1 1 0 0 0 5 0c0-2-1.5-3-1.5-5q0-2 2.5-4"/>',
    "check": '<path d="M20 6 9 17l-5-5"/>',
    "circle-help": '<circle cx="12" cy="12" r="10"/><path d="M9.09 9a3 3 0 0 1 5.83 1c0 2-3 3-3 3"/><path d="M12 17h.01"/>',
    "triangle-alert": '<path d="m21.73 18-8-14a2 2 0 0 0-3.48 0l-8 14A2 2 0 0 0 4 21h16a2 2 0 0 0 1.73-3"/><path d="M12 9v4"/><path d="M12 17h.01"/>',
    "x": '<path d="M18 6 6 18"/><path d="m6 6 12 12"/>',
    "zap": '<path d="M15.914 4a1.5 1.5 0 00-2.474-1.561l-9 9A1.5 1.5 0 005.5 14h4.002a.5.5 0 01.471.666L8.086 20a1.5 1.5 0 002.475 1.56l9-9A1.5 1.5 0 0018.5 10h-3.997a.5.5 0 01-.472-.667z"/>',
    "bug": '<path d="M12 20v-9"/><path d="M14 7a4 4 0 0 1 4 4v3a6 6 0 0 1-12 0v-3a4 4 0 0 1 4-4z"/><path d="M14.12 3.88 16 2"/><path d="M21 21a4 4 0 0 0-3.81-4"/><path d="M21 5a4 4 0 0 1-3.55 3.97"/><path d="M22 13h-4"/><path d="M3 21a4 4 0 0 1 3.81-4"/><path d="M3 5a4 4 0 0 0 3.55 3.97"/><path d="M6 13H2"/><path d="m8 2 1.88 1.88"/><path d="M9 7.13V6a3 3 0 1 1 6 0v1.13"/>',
    "list": '<path d="M3 5h.01"/><path d="M3 12h.01"/><path d="M3 19h.01"/><path d="M8 5h13"/><path d="M8 12h13"/><path d="M8 19h13"/>',
    "quote": '<path d="M16 3a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2 1 1 0 0 1 1 1v1a2 2 0 0 1-2 2 1 1 0 0 0-1 1v2a1 1 0 0 0 1 1 6 6 0 0 0 6-6V5a2 2 0 0 0-2-2z"/><path d="M5 3a2 2 0 0 0-2 2v6a2 2 0 0 0 2 2 1 1 0 0 1 1 1v1a2 2 0 0 1-2 2 1 1 0 0 0-1 1v2a1 1 0 0 0 1 1 6 6 0 0 0 6-6V5a2 2 0 0 0-2-2z"/>',
    "circle-alert": '<circle cx="12" cy="12" r="10"/><line x1="12" x2="12" y1="8" y2="12"/><line x1="12" x2="12.01" y1="16" y2="16"/>',
    # the icons of the properties' types
    "text": '<path d="M17 6.1H3"/><path d="M21 12.1H3"/><path d="M15.1 18H3"/>',
    "binary": '<path d="M6 20h4"/><path d="M14 10h4"/><path d="M6 14h2v6"/><path d="M14 4h2v6"/><rect x="6" y="4" width="4" height="6"/><rect x="14" y="14" width="4" height="6"/>',
    "calendar": '<path d="M8 2v3"/><path d="M16 2v3"/><rect width="18" height="18" x="3" y="3" rx="2"/><path d="M3 9h18"/>',
    "clock": '<circle cx="12" cy="12" r="10"/><path d="M12 6v6l4 2"/>',
    "square-check": '<rect width="18" height="18" x="3" y="3" rx="2"/><path d="m9 12 2 2 4-4"/>',
    "tags": '<path d="M10.827 2a2 2 0 0 0-1.414.586l-6.71 6.71a2.4 2.4 0 0 0 0 3.408l4.592 4.592a2.4 2.4 0 0 0 3.408 0l6.71-6.71A2 2 0 0 0 18 9.172V3a1 1 0 0 0-1-1z"/><path d="M22 7v6.172a2 2 0 0 1-.587 1.414l-6.71 6.71a2.4 2.4 0 0 1-3.19.193"/><circle cx="13.499" cy="6.5" r=".5" fill="black"/>',
    "forward": '<polyline points="15 17 20 12 15 7"/><path d="M4 18v-2a4 4 0 0 1 4-4h12"/>',
}
# Obsidian's older names of the same icons (its own stylesheet still uses them)
ICON_NAMES = {
    "check-circle-2": "circle-check",
    "help-circle": "circle-help",
    "alert-triangle": "triangle-alert",
    "alert-circle": "circle-alert",
    "check-square": "square-check",
}
# a property's type (`pages.property_type`) -> the Lucide icon Obsidian shows on its row
PROPERTY_ICONS = {
    "text": "text",
    "multitext": "list",
    "number": "binary",
    "checkbox": "check-square",
    "date": "calendar",
    "datetime": "clock",
    "tags": "tags",
    "aliases": "forward",
}

BLUE, CYAN, GREEN, ORANGE, RED, PURPLE, GREY = (
    (8, 109, 221),
    (0, 191, 188),
    (8, 185, 78),
    (236, 117, 0),
    (233, 49, 71),
    (120, 82, 238),
    (158, 158, 158),
)
# family -> (colour, icon), Obsidian's defaults
STYLES = {
    "note": (BLUE, "pencil"),
    "abstract": (CYAN, "clipboard-list"),
    "info": (BLUE, "info"),
    "todo": (BLUE, "circle-check"),
    "tip": (CYAN, "flame"),
    "success": (GREEN, "check"),
    "question": (ORANGE, "circle-help"),
    "warning": (ORANGE, "triangle-alert"),
    "failure": (RED, "x"),
    "danger": (RED, "zap"),
    "bug": (RED, "bug"),
    "example": (PURPLE, "list"),
    "quote": (GREY, "quote"),
}

# The box as Obsidian's default theme draws it (its `--callout-*` defaults): no border, a 10%
# tint of the type's colour, 4px corners, padding 12px 12px 12px 24px, the text at the page's
# size; the title in the type's colour, weight 600, line height 1.3, after an 18px icon and a
# 4px gap, and a foldable callout's chevron right after the title (turned while folded).
_BASE = """\
.md-typeset .vk-callout[data-callout] {
  border: 0 none;
  border-radius: 4px;
  background-color: rgba(var(--vk-callout-color), .1);
  box-shadow: none;
  padding: 12px 12px 12px 24px;
  margin: 1em 0;
  font-size: inherit;
}
.md-typeset .vk-callout[data-callout]:focus-within { box-shadow: none; }
.md-typeset .vk-callout[data-callout] > :last-child { margin-bottom: 0; }
.md-typeset .vk-callout[data-callout] > .admonition-title,
.md-typeset .vk-callout[data-callout] > summary {
  margin: 0;
  padding: 0 0 0 22px;
  border-radius: 0;
  background-color: transparent;
  color: rgb(var(--vk-callout-color));
  font-weight: 600;
  line-height: 1.3;
}
.md-typeset .vk-callout[data-callout] > .admonition-title::before,
.md-typeset .vk-callout[data-callout] > summary::before {
  left: 0;
  top: calc((1.3em - 18px) / 2);
  width: 18px;
  height: 18px;
  background-color: rgb(var(--vk-callout-color));
  -webkit-mask-image: var(--vk-callout-icon);
  mask-image: var(--vk-callout-icon);
}
.md-typeset .vk-callout[data-callout] > summary::after {
  position: relative;
  display: inline-block;
  top: auto;
  right: auto;
  margin-left: 4px;
  width: 1em;
  height: 1em;
  vertical-align: -.15em;
  background-color: rgb(var(--vk-callout-color));
  transform: none;
}
.md-typeset details.vk-callout[data-callout][open] > summary::after { transform: rotate(90deg); }
.md-typeset .vk-callout[data-callout] > .admonition-title + *,
.md-typeset .vk-callout[data-callout] > summary + * { margin-top: 1em; }
"""


def icon_svg(icon: str) -> str | None:
    """The SVG of a Lucide icon name (`lucide-x` or `x`, old names too) or of an `<svg>` as
    written; None for a name not shipped."""
    if icon.lstrip().startswith("<svg"):
        return icon.strip()
    name = icon.strip().removeprefix("lucide-")
    name = ICON_NAMES.get(name, name)
    if name not in ICONS:
        return None
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="lucide lucide-{name}" viewBox="0 0 24 24" fill="none" '
        f'stroke="black" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">{ICONS[name]}</svg>'
    )


def _url(svg: str) -> str:
    return f'url("data:image/svg+xml,{quote(svg, safe=" =:/,;")}")'


def _rule(selector: str, color, icon: str | None) -> str:
    lines = []
    if color:
        lines.append(f"--vk-callout-color: {', '.join(str(c) for c in color)};")
    svg = icon_svg(icon) if icon else None
    if svg:
        lines.append(f"--vk-callout-icon: {_url(svg)};")
    return f"{selector} {{ {' '.join(lines)} }}\n" if lines else ""


def property_css() -> str:
    """The icon of each property type, on its row's name (`.vk-properties dt[data-type]`)."""
    return "".join(
        f'.md-typeset .vk-properties dt[data-type="{kind}"] {{ --vk-property-icon: {_url(icon_svg(icon))}; }}\n'
        for kind, icon in PROPERTY_ICONS.items()
    )


def callout_css(snippets=()) -> str:
    """The callouts' stylesheet: Obsidian's defaults, then each (type, colour, icon) of the
    vault's snippets (`ObsidianSettings.callout_styles`)."""
    out = [_BASE]
    for kind, (color, icon) in STYLES.items():
        out.append(_rule(f".md-typeset .vk-callout.{kind}", color, icon))
    for kind, color, icon in snippets:
        out.append(_rule(f'.md-typeset .vk-callout[data-callout="{kind}"]', color, icon))
    return "".join(out)
