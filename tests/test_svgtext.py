"""The one SVG text reader: spans, decoded text, positions, ancestry."""

from __future__ import annotations

from vaultkit.checks.claims import check_svg
from vaultkit.readers.svgtext import read_svg

SVG = """<svg xmlns="http://www.w3.org/2000/svg" data-vk-mask="causal">
  <title>标题</title><desc>说明</desc>
  <!-- <text x="1" y="1">2 × 3 = 7</text> -->
  <g transform="translate(100, 50) scale(2)" data-vk="scores">
    <text x="10" y="5">a &amp; b</text>
  </g>
  <text x="5" y="20">x<tspan x="40" dy="1em">0.5</tspan><tspan dx="3">0.6</tspan></text>
  <text><textPath href="#p">2 × 3 = 7</textPath></text>
  <text x="1" y="90"><![CDATA[1 < 2]]></text>
  <rect x="10" y="10" width="30" height="20" transform="translate(5,5)"/>
</svg>
"""


def test_runs_have_spans_text_positions_and_ancestry():
    model = read_svg(SVG)
    assert model.root["data-vk-mask"] == "causal" and model.titles == ["标题", "说明"]
    texts = [r.text for r in model.runs if r.text.strip()]
    assert texts == ["a & b", "x", "0.5", "0.6", "2 × 3 = 7", "1 < 2"]  # the comment is not text
    amp = next(r for r in model.runs if r.text == "a & b")
    assert amp.raw == "a &amp; b" and SVG[amp.start : amp.start + len(amp.raw)] == amp.raw
    assert (amp.x, amp.y) == (120.0, 60.0)  # translate(100, 50) scale(2) of (10, 5)
    assert amp.pin() == "scores" and len(amp.groups()) == 1
    assert model.where(amp.start) == (5, 24)
    x, first, second = (next(r for r in model.runs if r.text == t) for t in ("x", "0.5", "0.6"))
    assert (x.x, x.y) == (5.0, 20.0) and (first.x, first.y) == (40.0, 36.0)
    assert second.y == first.y and second.x > first.x and first.element == second.element
    along = next(r for r in model.runs if r.text == "2 × 3 = 7")
    assert along.x != along.x  # on a path: no place (NaN)
    assert [(c.x, c.y, c.w, c.h) for c in model.cards] == [(15.0, 15.0, 30.0, 20.0)]


def test_not_well_formed_is_none_and_has_no_claims():
    assert read_svg("<svg><text>2 × 3 = 7</svg>") is None
    assert check_svg("<svg><text>2 × 3 = 7</svg>", "x.svg").verified == 0


def test_claims_in_svg_text_are_read_through_the_model():
    report = check_svg(SVG, "x.svg")
    # the claim on a path is read (its text is known, its place is not); the commented one is not
    assert [(d.line, d.code) for d in report.diagnostics] == [(8, "VK301")]


def test_every_transform_is_applied_nested_and_rotation_keeps_the_place():
    import math

    svg = """<svg xmlns="http://www.w3.org/2000/svg">
  <g transform="translate(10 20)"><g transform="scale(2)">
    <text x="5" y="5" transform="rotate(7 5 5)">0.5</text>
    <text x="5" y="5" transform="rotate(90)">0.6</text>
    <text x="5" y="5" transform="matrix(1 0 0 1 3 4) skewX(10)">0.7</text>
  </g></g>
</svg>"""
    turned, quarter, skewed = (r for r in read_svg(svg).runs if r.text.strip())
    assert (round(turned.x, 9), round(turned.y, 9)) == (20.0, 30.0)  # turned about its own anchor
    assert (round(quarter.x, 9), round(quarter.y, 9)) == (0.0, 30.0)  # (5, 5) → (−5, 5), scaled, shifted
    assert (round(skewed.x, 6), round(skewed.y, 6)) == (round(10 + 2 * (8 + 5 * math.tan(math.radians(10))), 6), 38.0)
    assert round(turned.size, 9) == 32.0  # 16 px, scaled twice


def test_text_anchor_and_css_classes_place_the_middle_of_the_glyphs():
    svg = """<svg xmlns="http://www.w3.org/2000/svg">
  <style>.n { font-size: 10px; text-anchor: end; fill: #123456 } .big { font-size: 20px }</style>
  <text class="n" x="100" y="50">0.25</text>
  <text x="100" y="80" style="text-anchor:middle">0.25</text>
  <text x="100" y="110" font-size="30" class="big">0.25</text>
</svg>"""
    end, middle, sized = (r for r in read_svg(svg).runs if r.text.strip())
    assert end.anchor() == "end" and end.fill() == "#123456" and end.size == 10
    assert end.right == 100 and end.cx == 100 - end.width / 2 and end.cy < end.y
    assert middle.anchor() == "middle" and middle.cx == 100 and middle.size == 16
    assert sized.size == 20  # the class rule beats the presentation attribute, as CSS says


def test_lines_and_paths_are_strokes_and_markers_are_not_drawn_there():
    svg = """<svg xmlns="http://www.w3.org/2000/svg">
  <defs><marker id="m"><path d="M0 0 L10 10"/></marker></defs>
  <path d="M 50 10 h -5 v 60 h 5"/>
  <line x1="0" y1="100" x2="200" y2="100"/>
  <rect x="0" y="0" width="10" height="10" fill="#eee"/>
</svg>"""
    model = read_svg(svg)
    assert [(s.x, s.y, s.w, s.h) for s in model.strokes] == [(45.0, 10.0, 5.0, 60.0), (0.0, 100.0, 200.0, 0.0)]
    assert [c.fill for c in model.cards] == ["#eee"]
