"""The vault's diagram style: palette, fonts, cards, and number formatting.

The person's hand-drawn SVGs use rounded cards on a 680-px-wide viewBox, a purple/blue/amber/green
palette and small sans-serif labels; generated figures reuse the same classes so they sit next to
them without looking foreign.
"""

from __future__ import annotations

import hashlib
import html

import numpy as np

from vaultkit.numbers import fmt

WIDTH = 680

INK = "#26215C"
PURPLE = "#534AB7"
PURPLE_LIGHT = "#EEEDFE"
PURPLE_EDGE = "#AFA9EC"
BLUE = "#185FA5"
BLUE_LIGHT = "#E6F1FB"
BLUE_EDGE = "#85B7EB"
AMBER = "#854F0B"
AMBER_LIGHT = "#FAEEDA"
AMBER_EDGE = "#EF9F27"
GREEN = "#3B6D11"
GREEN_LIGHT = "#EAF3DE"
SAND = "#F1EFE8"
SAND_EDGE = "#D3D1C7"
GREY = "#888780"

CSS = """\
    .th { font-family: -apple-system, "PingFang SC", "Noto Sans CJK SC", sans-serif; font-size: 13px; font-weight: 500; fill: #26215C; }
    .ts { font-family: -apple-system, "PingFang SC", "Noto Sans CJK SC", sans-serif; font-size: 11px; fill: #5F5E5A; }
    .tb { font-family: -apple-system, "PingFang SC", "Noto Sans CJK SC", sans-serif; font-size: 10px; font-weight: 500; fill: #26215C; }
    .tc { font-family: -apple-system, "PingFang SC", "Noto Sans CJK SC", sans-serif; font-size: 9px; fill: #888780; }
    .tm { font-family: ui-monospace, Menlo, monospace; font-size: 10px; fill: #26215C; }
    .tp { font-family: ui-monospace, Menlo, monospace; font-size: 9px; fill: #534AB7; }
    .tv { font-family: ui-monospace, Menlo, monospace; font-size: 9px; fill: #26215C; }
    .tw { font-family: ui-monospace, Menlo, monospace; font-size: 9px; fill: #ffffff; }
    .tx { font-family: ui-monospace, Menlo, monospace; font-size: 9px; fill: #888780; }
    .edge { fill: none; stroke: #B4B2A9; stroke-width: 0.8; }"""

DEFS = """\
  <defs>
    <marker id="vk-arr" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" markerHeight="6" orient="auto-start-reverse">
      <path d="M2 1L8 5L2 9" fill="none" stroke="context-stroke" stroke-width="1.2" stroke-linecap="round" stroke-linejoin="round"/>
    </marker>
    <pattern id="vk-hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
      <rect width="5" height="5" fill="#F1EFE8"/>
      <line x1="0" y1="0" x2="0" y2="5" stroke="#D3D1C7" stroke-width="2"/>
    </pattern>
  </defs>"""


def num(value: float) -> str:
    """A coordinate or size: at most two decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def checksum(svg_text: str) -> str:
    """A short sha256 of a generated figure's text without its `data-vk-hash` (as cog's checksum
    of its output): a figure whose hash no longer matches was edited after vaultkit drew it."""
    return hashlib.sha256(svg_text.encode()).hexdigest()[:16]


def escape(text: str) -> str:
    """`&`, `<` and `>` escaped for XML text, as `xml.sax.saxutils.escape` does (that module
    imports urllib, http and ssl: a third of a check's figure imports)."""
    return html.escape(text, quote=False)


def quoteattr(value: str) -> str:
    """`value` as a quoted XML attribute, byte for byte as `xml.sax.saxutils.quoteattr` writes
    it, so the figures already in vaults keep their bytes and their hash."""
    value = escape(value).replace("\n", "&#10;").replace("\r", "&#13;").replace("\t", "&#9;")
    if '"' not in value:
        return f'"{value}"'
    if "'" not in value:
        return f"'{value}'"
    return '"' + value.replace('"', "&quot;") + '"'


def text(x: float, y: float, content: str, cls: str, anchor: str = "middle", **attrs) -> str:
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(str(v))}" for k, v in attrs.items())
    anchor_attr = f' text-anchor="{anchor}"' if anchor != "start" else ""
    return f'<text class="{cls}" x="{num(x)}" y="{num(y)}"{anchor_attr}{extra}>{escape(content)}</text>'


def rect(
    x: float,
    y: float,
    w: float,
    h: float,
    fill: str,
    stroke: str | None = None,
    rx: float = 6,
    stroke_width: float = 0.5,
    **attrs,
) -> str:
    extra = "".join(f" {k.replace('_', '-')}={quoteattr(str(v))}" for k, v in attrs.items())
    line = f' stroke="{stroke}" stroke-width="{num(stroke_width)}"' if stroke else ""
    return (
        f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" rx="{num(rx)}"'
        f' fill="{fill}"{line}{extra}/>'
    )


def line(
    x1: float, y1: float, x2: float, y2: float, stroke: str = "#B4B2A9", width: float = 0.8, arrow: bool = False
) -> str:
    end = ' marker-end="url(#vk-arr)"' if arrow else ""
    return (
        f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}"'
        f' stroke="{stroke}" stroke-width="{num(width)}"{end}/>'
    )


def card(x: float, y: float, w: float, h: float, title: str, fill: str, stroke: str) -> list[str]:
    """A rounded card with a bold caption and a thin rule under it."""
    return [
        rect(x, y, w, h, fill, stroke),
        text(x + w / 2, y + 17, title, "tb"),
        line(x + 10, y + 24, x + w - 10, y + 24, stroke, 0.3),
    ]


def document(spec: dict, kind: str, height: float, title: str, desc: str, body: list[str]) -> str:
    """The complete SVG, marked as generated with the example id and the checksum of the rest."""
    head = (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {num(height)}" width="100%"'
        f' role="img" data-vaultkit="generated" data-vk-kind="{kind}"'
        f" data-vk-id={quoteattr(str(spec.get('id', '')))}>"
    )
    lines = [
        head,
        f"  <title>{escape(title)}</title>",
        f"  <desc>{escape(desc)}</desc>",
        DEFS,
        "  <style>",
        CSS,
        "  </style>",
    ]
    lines += ["  " + item for item in body]
    lines.append("</svg>")
    svg = "\n".join(lines) + "\n"
    return svg.replace(">", f' data-vk-hash="{checksum(svg)}">', 1)  # the root tag's end: ids are quoted


def heat_fill(value: float, vmax: float, signed: bool) -> tuple[str, str]:
    """(fill color, fill-opacity) of a heatmap cell: purple for positive, amber for negative."""
    color = AMBER_EDGE if signed and value < 0 else PURPLE
    strength = abs(value) / vmax if vmax > 0 else 0.0
    return color, num(0.08 + 0.8 * strength)


def matrix(
    x: float,
    y: float,
    width: float,
    values,
    digits: int,
    *,
    rows: list[str],
    cols: list[str],
    signed: bool = True,
    masked=None,
    highlight=None,
    max_cell: float = 46,
) -> tuple[list[str], float]:
    """A labelled heatmap of `values` fitting `width`; returns (elements, height).

    Numbers are written in the cells while they fit; past that the heatmap stands alone.
    Masked cells are hatched and marked ×. `highlight` = (i, j) outlines one cell.
    """
    values = np.asarray(values, dtype=float)
    n_rows, n_cols = values.shape
    label_w = min(36, 8 + 6 * max((len(r) for r in rows), default=1))
    cell_w = min(max_cell, (width - label_w) / n_cols)
    finite = values[np.isfinite(values)]
    texts = [[fmt(v, digits) for v in row] for row in values]
    widest = max((len(t) for row in texts for t in row), default=1)
    show_numbers = cell_w >= widest * 5.6 + 4
    cell_h = 16 if show_numbers else min(16.0, max(cell_w, 6.0))
    vmax = float(np.max(np.abs(finite))) if finite.size else 0.0
    top = y + (12 if cols else 0)
    out = []
    for j, label in enumerate(cols):
        if cell_w >= 14 or j % 4 == 0:
            out.append(text(x + label_w + (j + 0.5) * cell_w, y + 8, label, "tc"))
    for i in range(n_rows):
        cy = top + i * cell_h
        if cell_h >= 9 or i % 4 == 0:
            out.append(text(x + label_w - 4, cy + cell_h / 2 + 3, rows[i], "tc", "end"))
        for j in range(n_cols):
            cx = x + label_w + j * cell_w
            is_masked = masked is not None and masked[i][j]
            if is_masked:
                out.append(
                    f'<rect x="{num(cx)}" y="{num(cy)}" width="{num(cell_w)}" '
                    f'height="{num(cell_h)}" fill="url(#vk-hatch)"/>'
                )
            else:
                color, opacity = heat_fill(values[i, j], vmax, signed)
                out.append(
                    f'<rect x="{num(cx)}" y="{num(cy)}" width="{num(cell_w)}" '
                    f'height="{num(cell_h)}" fill="{color}" fill-opacity="{opacity}"/>'
                )
            if show_numbers:
                if is_masked:
                    out.append(text(cx + cell_w / 2, cy + 11, "×", "tx"))
                else:
                    dark = float(heat_fill(values[i, j], vmax, signed)[1]) > 0.55
                    out.append(text(cx + cell_w / 2, cy + 11, texts[i][j], "tw" if dark else "tv"))
    grid_w, grid_h = n_cols * cell_w, n_rows * cell_h
    out.append(rect(x + label_w, top, grid_w, grid_h, "none", SAND_EDGE, rx=2))
    if highlight is not None:
        i, j = highlight
        out.append(
            rect(x + label_w + j * cell_w, top + i * cell_h, cell_w, cell_h, "none", INK, rx=1, stroke_width=1.5)
        )
    return out, top - y + grid_h
