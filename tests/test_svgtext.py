"""The one SVG text reader: spans, decoded text, positions, ancestry."""

from __future__ import annotations

import pytest

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


def _stroke(shape: str):
    [stroke] = read_svg(f'<svg xmlns="http://www.w3.org/2000/svg">{shape}</svg>').strokes
    return (round(stroke.x, 6), round(stroke.y, 6), round(stroke.w, 6), round(stroke.h, 6)), stroke.closed


@pytest.mark.parametrize(
    "d, box, closed",
    [
        ("M10 20 L30 40", (10, 20, 20, 20), False),
        ("m10 20 l20 20 h10 v-5", (10, 20, 30, 20), False),  # relative: from the point before
        ("M10 20 H30 V45", (10, 20, 20, 25), False),
        ("M10 20 h-5 v-5", (5, 15, 5, 5), False),
        ("M0 0 C10 -5 20 -6 30 0", (0, -6, 30, 6), False),  # the control points are in the box
        ("M0 0 c10 5 20 6 30 0", (0, 0, 30, 6), False),
        ("M0 0 Q10 20 20 0 T40 0", (0, 0, 40, 20), False),
        ("M0 0 S10 7 20 0", (0, 0, 20, 7), False),
        ("M0 0 A5 5 0 0 1 10 12", (0, 0, 10, 12), False),  # an arc: its end point
        ("M0 0 a5 5 0 0 1 10 12 a5 5 0 0 1 3 3", (0, 0, 13, 15), False),
        ("M1 2 3 4 5 6", (1, 2, 4, 4), False),  # pairs after a moveto are linetos
        ("m1 2 3 4", (1, 2, 3, 4), False),  # relative ones too
        ("M0 0 L10 0 L10 10 Z", (0, 0, 10, 10), True),
        ("M10 10 L20 10 z l5 7", (10, 10, 10, 7), True),  # after Z the pen is back at the start
        ("M5 5 l10 0 l0 10 l-10 0 l0 -9.5", (5, 5, 10, 10), True),  # ends where it began: round
        ("M5 5 l10 0 l0 10 l-10 0 l0 -5", (5, 5, 10, 10), False),  # stops halfway up: open
        ("M5 5 L15 5 L5 5.5", (5, 5, 10, 0.5), False),  # three points: no area to go round
        ("M3 3 L3 3 L3 3 L3 3", (3, 3, 0, 0), False),  # a dot goes round nothing
        ("M10 10 L20 10 Z l-5 7", (5, 10, 15, 7), True),
        ("M0 0 L4 4 Z 9 9", (0, 0, 4, 4), True),  # numbers after a Z: the path ends there
        ("L5 5 L5 2 Z", (0, 0, 5, 5), True),  # no moveto: it starts at the origin
        ("M0 0 L20 0 L20 10 L0 10 L0 1.5", (0, 0, 20, 10), True),  # 1.5 from its start, 20 across
        ("M0 0 L10 0 L10 10 L0 10 L0 1", (0, 0, 10, 10), True),  # a tenth of its reach away
        ("M0 0 L0.5 0 L0.5 0.5 L0 0.5 L0 0.01", (0, 0, 0.5, 0.5), True),  # small, still round
    ],
)
def test_a_path_box_holds_its_points_and_says_whether_it_goes_round(d, box, closed):
    assert _stroke(f'<path d="{d}"/>') == (box, closed)


def test_polygons_polylines_and_lines_are_strokes_closed_as_they_are_drawn():
    assert _stroke('<polygon points="0,0 10,0 10,10"/>') == ((0, 0, 10, 10), True)
    assert _stroke('<polyline points="0 0 20 0 20 10 0 10 0 0.5"/>') == ((0, 0, 20, 10), True)
    assert _stroke('<line x2="5" y2="6"/>') == ((0, 0, 5, 6), False)
    assert _stroke('<line x1="1em" y1="2" x2="3" y2="1em"/>') == ((3, 2, 13, 14), False)
    bare = '<svg xmlns="http://www.w3.org/2000/svg"><path/><path d=""/><polyline/><polygon points=""/></svg>'
    assert read_svg(bare).strokes == []
    filled = (
        '<svg xmlns="http://www.w3.org/2000/svg"><g fill="#abc"><path d="M0 0 L1 1 L0 1 Z"/><line x2="1"/></g></svg>'
    )
    assert [s.fill for s in read_svg(filled).strokes] == ["#abc", "#abc"]
    assert _stroke('<polyline points="0 0 10 0 10 10 0 10"/>') == ((0, 0, 10, 10), False)
    assert _stroke('<line x1="4" y1="5" x2="4" y2="5"/>') == ((4, 5, 0, 0), False)
    assert _stroke('<path d="M0 0 L10 0 L10 10 L0 0" transform="translate(3 4) scale(2)"/>') == ((3, 4, 20, 20), True)


def _place(transform: str) -> tuple[float, float, float]:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><text x="10" y="20" transform="{transform}">1</text></svg>'
    [run] = read_svg(svg).runs
    return round(run.x, 6), round(run.y, 6), round(run.size, 6)


@pytest.mark.parametrize(
    "transform, place",
    [
        ("translate(5)", (15, 20, 16)),
        ("translate(5 -3)", (15, 17, 16)),
        ("scale(2)", (20, 40, 32)),
        ("scale(2 3)", (20, 60, round(16 * 6**0.5, 6))),
        ("rotate(90)", (-20, 10, 16)),
        ("rotate(90 10 20)", (10, 20, 16)),
        ("rotate(180 0 10)", (-10, 0, 16)),
        ("skewX(45)", (30, 20, 16)),
        ("skewY(45)", (10, 30, 16)),
        ("matrix(2 0 0 2 1 1)", (21, 41, 32)),
        ("translate(10 0) scale(2)", (30, 40, 32)),  # applied right to left, as SVG says
        ("scale(2) translate(10 0)", (40, 40, 32)),
        ("rotate(90) translate(1 2) scale(2 3)", (-62, 21, round(16 * 6**0.5, 6))),
        ("matrix(1 2 3 4 5 6) matrix(2 0 1 1 0 3)", (114, 178, round(16 * 2**0.5 * 2**0.5, 6))),
    ],
)
def test_each_transform_moves_the_anchor_and_scales_the_font(transform, place):
    assert _place(transform) == place


@pytest.mark.parametrize(
    "transform", ["rotate(1 2)", "matrix(1 0 0 1)", "matrix(1)", "translate()", "rotate()", "scale(1 2 3)"]
)
def test_a_transform_that_cannot_be_read_leaves_the_run_unplaced(transform):
    x, y, size = _place(transform)
    assert x != x and y != y and size != size  # NaN: no place


def test_units_classes_and_inheritance_give_the_font_size_anchor_and_fill():
    svg = """<svg xmlns="http://www.w3.org/2000/svg" font-size="10">
  <style>/* a comment {
  } */ text.k, .m { fill: #00f; text-anchor: middle } .s{font-size:8px} .u { fill: url(http://e/x#g) }</style>
  <g fill="#f00" text-anchor="end" font-size="2em">
    <text x="100" y="10">a</text>
    <text x="100" y="20" class="m">b</text>
    <text x="100" y="30" class="s m" style="fill: #0f0">c</text>
    <text x="100" y="40" font-size="50%">d</text>
  </g>
  <text x="0" y="50" class="k">e<tspan font-size="1.5em">f</tspan></text>
  <text x="0" y="60" class="u other" font-size="0.5" text-anchor="start"><tspan x="2em">g</tspan></text>
</svg>"""
    a, b, c, d, e, f, g = read_svg(svg).runs
    assert (g.fill(), g.size, g.x) == ("url(http://e/x#g)", 0.5, 1)  # a small font (millimetres), an em
    assert (a.size, a.anchor(), a.fill()) == (20, "end", "#f00")  # 2em of 10, from the group
    assert (b.size, b.anchor(), b.fill()) == (20, "middle", "#00f")
    assert (c.size, c.anchor(), c.fill()) == (8, "middle", "#0f0")  # the style attribute wins
    assert d.size == 20  # a percentage is not read: the inherited size stands
    assert (e.fill(), e.anchor(), f.size) == ("#00f", "middle", 15)


def test_a_run_starts_after_the_width_of_the_runs_before_it():
    svg = '<svg xmlns="http://www.w3.org/2000/svg" font-size="10"><text x="0" y="0">ab<tspan>猫c</tspan></text></svg>'
    ab, cat = read_svg(svg).runs
    assert (ab.x, ab.width, ab.cx) == (0, 12, 6)  # 0.6 em a Latin letter
    assert (cat.x, cat.width) == (12, 16)  # a CJK glyph is 1 em
    narrow = '<svg xmlns="http://www.w3.org/2000/svg" font-size="10"><text>Kᵀ√→</text><text>（注）</text></svg>'
    assert [r.width for r in read_svg(narrow).runs] == [24, 30]  # ᵀ, √ and → are narrow; full-width ones wide
    lead = read_svg('<svg xmlns="http://www.w3.org/2000/svg" font-size="10"><text x="0" y="0">  7</text></svg>')
    assert lead.runs[0].cx == 12 + 3  # the leading spaces push the glyphs right
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" font-size="10"><text x="0" y="0" text-anchor="middle">  7</text></svg>'
    )
    assert read_svg(svg).runs[0].cx == 0  # centred: the spaces are not drawn before it
    svg = '<svg xmlns="http://www.w3.org/2000/svg" font-size="10"><text x="10" dx="5" y="0">ᄀ</text></svg>'
    [hangul] = read_svg(svg).runs
    assert (hangul.x, hangul.width) == (15, 10)  # dx after x; a Hangul jamo (U+1100) is 1 em
    scaled = '<svg xmlns="http://www.w3.org/2000/svg" font-size="10"><g transform="scale(2)"><text>ab</text></g></svg>'
    assert read_svg(scaled).runs[0].width == 24
    along = '<svg xmlns="http://www.w3.org/2000/svg"><text x="5" y="5"><textPath href="#p">7</textPath></text></svg>'
    assert read_svg(along).runs[0].x != read_svg(along).runs[0].x


def test_offsets_and_lines_count_characters_not_bytes():
    svg = '<svg xmlns="http://www.w3.org/2000/svg">\n<text x="1" y="2">猫猫</text>\n<text x="1" y="9">0.5</text></svg>'
    cats, half = read_svg(svg).runs
    assert svg[cats.start : cats.start + 2] == "猫猫" and svg[half.start : half.start + 3] == "0.5"
    model = read_svg(svg)
    assert model.where(half.start) == (3, 19) and model.where(0) == (1, 1) and model.where(cats.start) == (2, 19)


def test_titles_are_the_roots_own_and_hidden_shapes_are_not_cards():
    svg = """<svg xmlns="http://www.w3.org/2000/svg"><title> root </title>
  <g><title>inner</title><desc>inner too</desc></g>
  <defs><rect x="0" y="0" width="5" height="5"/><clipPath><rect width="9" height="9"/></clipPath></defs>
  <pattern><line x1="0" y1="0" x2="1" y2="1"/></pattern>
  <rect x="1" y="2" width="3" height="4" style="fill: #abc"/>
  <g><g><g><text x="0" y="0">7</text></g></g></g>
</svg>"""
    model = read_svg(svg)
    assert model.titles == ["root"] and model.strokes == []
    assert [(c.x, c.y, c.w, c.h, c.fill) for c in model.cards] == [(1, 2, 3, 4, "#abc")]
    assert model.depth == 5 and len(model.runs[0].groups()) == 3


DRAWIO = """<svg xmlns="http://www.w3.org/2000/svg"><g>
  <switch><foreignObject x="0" y="0" width="100%" height="100%"><div xmlns="http://www.w3.org/1999/xhtml"
    style="margin-left: 20px; padding-top: 30px; width: 40px;"><div>0.25</div></div></foreignObject>
    <text x="40" y="34">0.25</text></switch>
  <switch><foreignObject x="5" y="4" width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"
    style="padding-top: 99px;">Q</div></foreignObject>
    <text x="5" y="9"> </text></switch>
  <foreignObject x="100" y="10" width="40" height="20"><div xmlns="http://www.w3.org/1999/xhtml">0.5</div></foreignObject>
  <foreignObject width="40" height="20"><div xmlns="http://www.w3.org/1999/xhtml"
    style="margin-left: 200px; padding-top: 60px; width: 30px">0.7</div></foreignObject>
  <foreignObject x="1em" y="3"><div xmlns="http://www.w3.org/1999/xhtml">0.8</div></foreignObject>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml" style="margin-left: 20px; padding-top: 30px">0.9</div>
  </foreignObject>
  <switch><text x="1" y="2" systemLanguage="en">one</text><text x="1" y="2">eins</text></switch>
  <switch><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">0.3</div></foreignObject><text x="7" y="8">0.4</text>
  </switch>
</g></svg>"""


def test_a_switch_keeps_its_text_with_the_html_twin_and_html_alone_is_placed():
    runs = [r for r in read_svg(DRAWIO).runs if r.text.strip()]
    assert [r.text for r in runs] == ["0.25", "Q", "0.5", "0.7", "0.8", "0.9", "one", "eins", "0.4"]
    fallback, html_only, boxed, margins, em, unsized, *_, other = runs
    assert (em.x, em.y) == (16, 3) and (unsized.x, unsized.y) == (20, 30)  # no width: its margin alone
    assert other.twins == () and boxed.element == DRAWIO.index('<foreignObject x="100"')
    assert (fallback.x, fallback.y) == (40, 34) and [t.raw for t in fallback.twins] == ["0.25"]
    assert fallback.twins[0].start > DRAWIO.index("<div>") and fallback.twins[0].anchor() == "middle"
    assert html_only.twins == () and (html_only.x, html_only.y) == (10, 9)  # a blank fallback: the HTML is drawn
    assert (boxed.x, boxed.y, boxed.cx, boxed.cy, boxed.anchor()) == (120, 20, 120, 20, "middle")
    assert (margins.x, margins.y) == (215, 60)  # draw.io: margin-left + width / 2, padding-top


def test_text_offsets_shifts_and_breaks_between_runs():
    svg = """<svg:svg xmlns:svg="http://www.w3.org/2000/svg" font-size="10">
<svg:text dx="5" dy="7">a<svg:tspan dy="3">b</svg:tspan></svg:text>
<svg:text x="0" y="20">1<!-- a note -->2<?pi x?>3</svg:text>
<svg:text><svg:tspan dy="4">c</svg:tspan></svg:text>
</svg:svg>"""
    a, b, one, two, three, c = read_svg(svg).runs
    assert (a.x, a.y, round(a.cy, 6)) == (5, 7, 3.5) and (b.x, b.y) == (11, 10)  # dx, dy from 0 on a <text>
    assert a.element == b.element == svg.index("<svg:text dx")
    assert [r.raw for r in (one, two, three)] == ["1", "2", "3"]  # a comment or instruction ends a run
    assert (one.x, two.x, three.x) == (0, 6, 12)
    assert c.x != c.x and c.y != c.y  # a tspan's dy with no y before it: no place


def test_an_unfinished_document_is_not_read():
    assert read_svg('<svg xmlns="http://www.w3.org/2000/svg"><text>1</text>') is None


def test_titles_and_style_sheets_read_in_pieces_are_read_whole():
    svg = """<svg xmlns="http://www.w3.org/2000/svg"><title>a &amp; b</title><metadata>.n { fill: #f00 }</metadata>
  <style>.n { fill: #111 }&#10;.m { font-size: 5px }</style>
  <style><![CDATA[.k { text-anchor: end }]]></style>
  <text class="n m k" x="10" y="10">7</text>
</svg>"""
    model = read_svg(svg)
    assert model.titles == ["a & b"]
    [run] = model.runs
    assert (run.fill(), run.size, run.anchor()) == ("#111", 5, "end")


def test_shapes_after_html_are_drawn_again():
    svg = """<svg xmlns="http://www.w3.org/2000/svg"><foreignObject x="0" y="0" width="9" height="9">
  <div xmlns="http://www.w3.org/1999/xhtml">1</div></foreignObject>
  <rect x="1" y="2" width="3" height="4"/><text x="5" y="6">7</text>
  <switch><foreignObject x="0" y="0" width="9" height="9"><div xmlns="http://www.w3.org/1999/xhtml">8</div></foreignObject>
  <text x="1" y="1">8</text></switch><text x="3" y="3">9</text>
</svg>"""
    model = read_svg(svg)
    assert [(c.x, c.y) for c in model.cards] == [(1, 2)]
    assert [(r.text, r.anchor(), r.x) for r in model.runs if r.text.strip()] == [
        ("1", "middle", 4.5),
        ("7", "start", 5),
        ("8", "start", 1),
        ("9", "start", 3),
    ]


def test_an_image_covers_its_box_as_a_rect_does():
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><g transform="translate(5 5)"><image x="1" y="2" width="30" height="20"/></g></svg>'
    assert [(c.x, c.y, c.w, c.h) for c in read_svg(svg).cards] == [(6, 7, 30, 20)]
