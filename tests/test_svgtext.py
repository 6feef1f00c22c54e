"""The one SVG text reader: spans, decoded text, positions, ancestry."""

from __future__ import annotations

from vaultkit.claims import check_svg
from vaultkit.svgtext import read_svg

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
    assert amp.raw == "a &amp; b" and SVG[amp.start:amp.start + len(amp.raw)] == amp.raw
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
