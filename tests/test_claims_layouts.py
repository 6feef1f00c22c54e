"""Arithmetic claims laid out over several lines, matrix shapes, what `--explain` lists, and
generated claims: wrong by 10 % or a whole unit is an error, right is silent."""

from __future__ import annotations

import json
import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vaultkit.checks.claims import check_markdown, check_svg
from vaultkit.commands.cli import main


def _diagnostics(text: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in check_markdown(text, "n.md").diagnostics]


# -- derivations over several lines ----------------------------------------------------------

DERIVATION = """# 估算

```text
激活 = B × S × d × 2 (前向和反向) × dtype
     = 4 × 1024 × 2048 × 2 × 2 bytes
     ≈ {value}
```
"""


def test_a_wrong_derivation_is_an_error_on_the_line_of_its_value():
    assert _diagnostics(DERIVATION.format(value="90 MB")) == [(6, "VK301")]


def test_a_right_derivation_is_silent():
    report = check_markdown(DERIVATION.format(value="34 MB"), "n.md")
    assert report.diagnostics == [] and report.verified == 1


def test_continuations_in_prose_and_with_an_arrow():
    text = "每个 token 的缓存\n= 2 × 24 × 16 × 64 × 2\n→ 98,304 bytes\n≈ 96 KB\n"
    report = check_markdown(text, "n.md")
    assert report.diagnostics == [] and report.verified == 2
    assert _diagnostics(text.replace("96 KB", "64 KB")) == [(4, "VK301")]


def test_an_arrow_to_another_expression_or_between_two_values_is_no_claim():
    """Nothing is read, but the arrow between numbers is listed, with why."""
    for text in ["显存 2 × 80 GB\n→ 4 × 80 GB (加倍)", "输入 4096 tokens\n→ 32 层"]:
        report = check_markdown(text, "n.md")
        assert (report.verified, report.skipped, report.diagnostics) == (0, 1, []), text
        assert [e.line for e in report.explained] == [2] and "step" in report.explained[0].note


def test_a_line_starting_with_equals_after_a_gap_is_not_a_continuation():
    assert _diagnostics("3 × 4\n\n= 13\n") == []
    assert _diagnostics("3 × 4\n= 13\n") == [(2, "VK301")]


def test_setext_heading_underline_is_not_a_continuation():
    assert _diagnostics("结果 2 × 3\n===\n") == []


def test_column_of_a_continued_value():
    [diag] = check_markdown("x = 6 × 7\n  = 43\n", "n.md").diagnostics
    assert (diag.line, diag.col, diag.written, diag.computed) == (2, 5, "43", "42")


# -- shapes ----------------------------------------------------------------------------------


def test_shape_algebra():
    right = [
        "投影 (S, d) × (d, d_ff) → (S, d_ff)",
        "X(8, 512) × W(512, 64) → Q(8, 64)",
        "转置 (8, 64)ᵀ = (64, 8)",
        "分头 (S, 4096) → (S, 32, 128)",
        "(B, h, S, d) × (B, h, d, S) → (B, h, S, S)",
    ]
    for text in right:
        report = check_markdown(text, "n.md")
        assert report.diagnostics == [] and report.verified == 1, text
    wrong = [
        "投影 (S, d) × (d, d_ff) → (S, d)",
        "X(8, 512) × W(256, 64) → Q(8, 64)",
        "分头 (S, 4096) → (S, 32, 64)",
    ]
    for text in wrong:
        assert [d.code for d in check_markdown(text, "n.md").diagnostics] == ["VK303"], text


def test_a_shape_claim_with_equals_is_read_once():
    report = check_markdown("(4, 512) × (512, 64) = (4, 64)", "n.md")
    assert (report.verified, report.skipped, report.diagnostics) == (1, 0, [])


def test_shapes_not_all_given_are_skipped():
    for text in ["Q = X × W_Q → (4, 4096)", "(S, d) × (d_model, d_ff) → (S, d_ff)"]:
        report = check_markdown(text, "n.md")
        assert report.diagnostics == [] and report.verified == 0 and report.skipped == 1, text
    layer = check_markdown("lm_head (4, 4096) → (4, 32000)", "n.md")
    assert (layer.verified, layer.skipped, layer.diagnostics) == (0, 0, [])


def test_svg_shapes():
    svg = '<svg>\n<text x="1">(S, 512) × (512, 64) → (S, 32)</text>\n</svg>\n'
    assert [(d.line, d.code) for d in check_svg(svg, "a.svg").diagnostics] == [(2, "VK303")]


# -- explain ---------------------------------------------------------------------------------


def test_explained_lines_name_every_claim_and_every_skip():
    text = "a 2 × 3 = 6\nb 2 × 3 = 7\n周期 1 柜 = 64 GPU\nQ = X × W → (4, 8)\n"
    report = check_markdown(text, "x/n.md")
    lines = [str(e) for e in report.explained]
    assert lines == [
        "x/n.md:1: claim ok: 2 × 3 = 6  [computed 6]",
        "x/n.md:2: claim error: 2 × 3 = 7  [computed 6]",
        "x/n.md:3: claim skipped: 周期 1 柜 = 64 GPU  [two values and no arithmetic]",
        "x/n.md:4: claim skipped: Q = X × W → (4, 8)  [a factor has no written shape]",
    ]
    assert report.verified == 2 and report.skipped == 2


def test_check_explain_prints_claims_then_the_report(tmp_path, capsys):
    (tmp_path / "n.md").write_text("# n\n\n结果 2 × 3 = 7\n总线 PCIe 5.0 ×16 = 64 GB/s\n", encoding="utf-8")
    assert main(["check", "--explain", str(tmp_path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "n.md:3: claim error: 2 × 3 = 7  [computed 6]"
    assert out[1] == "n.md:4: claim skipped: 总线 PCIe 5.0 ×16 = 64 GB/s  [expression is cut off]"
    assert out[2] == "1 arithmetic claims read, 1 skipped; 0 drawings and figures read"
    assert any(line.startswith("n.md:3:12: VK301") for line in out)


def test_check_explain_with_json_keeps_stdout_machine_readable(tmp_path, capsys):
    (tmp_path / "n.md").write_text("# n\n\n结果 2 × 3 = 6\n", encoding="utf-8")
    assert main(["check", "--explain", "--format", "json", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["summary"]["claims"] == 1
    assert captured.err.splitlines() == [
        "n.md:3: claim ok: 2 × 3 = 6  [computed 6]",
        "1 arithmetic claims read, 0 skipped; 0 drawings and figures read",
    ]


# -- generated claims ------------------------------------------------------------------------

# (written suffix, factor, family): the counts are read one way, bytes either way (GB or GiB)
SCALES = [
    ("", 1.0, "count"),
    ("K", 1e3, "count"),
    ("M", 1e6, "count"),
    ("B", 1e9, "count"),
    (" 万", 1e4, "count"),
    (" 亿", 1e8, "count"),
    (" KB", 1e3, "bytes"),
    (" MB", 1e6, "bytes"),
    (" GB", 1e9, "bytes"),
]
LAYOUTS = [
    "结果 {expr} {rel} {value}",
    "| 估算 | {expr} {rel} {value} |",
    "总量 = {expr}\n     {rel} {value}",
    "```text\n总量 = {expr}\n  {rel} {value}\n```",
]


def _sig(x: float, digits: int) -> str:
    """x to `digits` significant digits, plainly written (no exponent)."""
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def _binary(scale: tuple[str, float, str]) -> float:
    """The factor of a scale when K, M and G are read as 2¹⁰, 2²⁰, 2³⁰."""
    return {"K": 2.0**10, "M": 2.0**20, "G": 2.0**30}.get(scale[0].strip()[:1], scale[1])


@st.composite
def claims(draw):
    """(text, computed value in base units, scale of the written value, layout index)."""
    left = draw(st.sampled_from(SCALES))
    family = [s for s in SCALES if s[2] == left[2]]
    right = draw(st.sampled_from(family))
    a = draw(st.integers(2, 9_999))
    b = draw(st.integers(2, 999))
    op = draw(st.sampled_from(["×", "/", "+"]))
    if op == "+":
        expr, computed = f"{a}{left[0]} + {b}{left[0]}", (a + b) * left[1]
    else:
        expr = f"{a}{left[0]} {op} {b}"
        computed = a * left[1] * b if op == "×" else a * left[1] / b
    assume(1e-2 <= computed / right[1] < 1e7)
    layout = draw(st.integers(0, len(LAYOUTS) - 1))
    return expr, computed, left, right, layout


def _text(expr: str, rel: str, value: str, layout: int) -> tuple[str, int]:
    """The claim in a layout, and the line its written value is on."""
    template = LAYOUTS[layout]
    return template.format(expr=expr, rel=rel, value=value), template.split("{value}")[0].count("\n") + 1


@settings(max_examples=300, deadline=None)
@given(claim=claims(), loose=st.booleans())
def test_generated_right_claims_are_silent(claim, loose):
    expr, computed, left, right, layout = claim
    exact = computed / right[1]
    plain = left[0] == right[0] == "" and exact == int(exact)  # plain integers: exact
    value = (str(int(exact)) if plain else _sig(exact, 4)) + right[0]
    text, _ = _text(expr, "≈" if loose else "=", value, layout)
    report = check_markdown(text, "n.md")
    assert report.diagnostics == [] and report.verified == 1, text


def _off_under_every_reading(written: float, computed: float, left, right) -> float:
    """How far off the written value is under the best reading (decimal or binary bytes)."""
    readings = [1.0, _binary(right) / right[1] / (_binary(left) / left[1])]
    return min(abs(written * r - computed) / abs(computed) for r in readings)


def _input_rounding(expr: str, left) -> float:
    """The relative rounding of a scaled input written with a non-zero last digit (`12K`)."""
    if not left[0]:
        return 0.0
    numbers = [int(n) for n in expr.replace(left[0], " ").replace("+", " ").replace("×", " ").replace("/", " ").split()]
    scaled = numbers if "+" in expr else numbers[:1]
    return sum(0.5 for n in scaled if n % 10) / max(sum(scaled), 1) * (len(scaled) if "+" in expr else 1)


@settings(max_examples=300, deadline=None)
@given(
    claim=claims(), factor=st.sampled_from([0.1, 0.5, 0.75, 0.85, 0.9, 1.1, 1.2, 1.5, 2.0, 10.0]), loose=st.booleans()
)
def test_generated_claims_off_by_ten_percent_are_errors(claim, factor, loose):
    """Off by 10 % or more, beyond what the rounding of the inputs allows (`12K` is 11.5K–12.5K)."""
    expr, computed, left, right, layout = claim
    value = _sig(computed * factor / right[1], 3)
    off = _off_under_every_reading(float(value) * right[1], computed, left, right)
    assume(off >= 0.10 + _input_rounding(expr, left))
    text, value_line = _text(expr, "≈" if loose else "=", value + right[0], layout)
    assert _diagnostics(text) == [(value_line, "VK301")], text


@settings(max_examples=300, deadline=None)
@given(
    a=st.integers(2, 999),
    b=st.integers(2, 99),
    scale=st.sampled_from(["K", "M", "B", " 万", " 亿"]),
    units=st.sampled_from([1, 2, 3, -1, -2, -3]),
    loose=st.booleans(),
    layout=st.integers(0, len(LAYOUTS) - 1),
)
def test_generated_claims_off_by_whole_units_are_errors(a, b, scale, units, loose, layout):
    """`3 × 700B = 2101B`: the right value is a whole number of its scale; off by one unit
    (two for `≈`) is wrong, however small a share that is (700B is read as written: its
    zeros say it is not a rounding)."""
    assume(not loose or abs(units) >= 2)
    value = a * 10 * b + units
    assume(value > 0 and value % 10)  # 2100 may be a rounding of 2101: its zeros are not significant
    text, value_line = _text(f"{a * 10}{scale} × {b}", "≈" if loose else "=", f"{value}{scale}", layout)
    assert _diagnostics(text) == [(value_line, "VK301")], text


@settings(max_examples=200, deadline=None)
@given(
    exact=st.integers(10_000_001, 99_999_999),
    b=st.integers(2, 999),
    scale=st.sampled_from([("K", 1e3), ("M", 1e6), ("B", 1e9)]),
    layout=st.integers(0, len(LAYOUTS) - 1),
)
def test_generated_results_of_unrounded_inputs_are_silent(exact, b, scale, layout):
    """`128 × 134M = 17,179,869,184`: the input was written rounded (134M for 134,217,728) and
    the result computed from the value it rounds; the inputs' rounding is its tolerance."""
    letter, factor = scale
    rounded = round(exact / 10**5)  # three digits: 123K for 123.45678K
    assume(rounded % 10)
    product = round(exact * factor * b / 10**5)  # every digit of the unrounded product
    assume(product % 1000)
    text, _ = _text(f"{b} × {rounded}{letter}", "=", f"{product:,}", layout)
    report = check_markdown(text, "n.md")
    assert report.diagnostics == [] and report.verified == 1, text


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(2, 999), b=st.integers(2, 999), scale=st.sampled_from(["K", "M", "B", " 万"]), off=st.integers(1, 3)
)
def test_generated_exact_results_in_the_inputs_scale_are_exact(a, b, scale, off):
    """`65,536 × 268M = 17,563,713M`: an integer of 7 or more digits in the scale of the
    inputs is the product of the numbers written; off in its last digits is an error."""
    product = a * 10_000 * b
    text = f"结果 {a * 10_000:,} × {b}{scale} = {product + off:,}{scale}"
    assume(len(str(product + off)) >= 7)
    assert _diagnostics(text) == [(1, "VK301")], text


def test_long_shape_and_ratio_lines_finish():
    """Shape products and ratios are found in time linear in the line (200 KB lines; a
    quadratic search takes minutes here)."""
    check_markdown(("(1, 2) × " * 25_000)[:200_000] + " = (1, 2)", "n.md")
    check_markdown(("(1, 2) × (2, 3) = (1, 3) " * 9_000)[:200_000], "n.md")
    check_markdown(("16:9 = 4:3 " * 20_000)[:200_000], "n.md")
