"""Hand-drawn figures: find the numbers, report the wrong ones, rewrite only those."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from vaultkit import engine
from vaultkit.checks.drawings.handdrawn import check_handdrawn
from vaultkit.figures import is_generated
from vaultkit.numbers import fmt

SHARED = Path(__file__).resolve().parents[2] / "shared"
REAL = SHARED / "corpus" / "vault146" / "assets" / "注意力矩阵推导.svg"
# the drawing's own inputs, as its Q and K boxes print them
REAL_Q = [[0.5, 0.3, -0.2, 0.8], [0.1, -0.4, 0.7, 0.2], [-0.3, 0.6, 0.1, -0.5], [0.7, -0.1, -0.3, 0.4]]
REAL_K = [[0.3, -0.5, 0.2, 0.1], [-0.2, 0.6, 0.2, -0.3], [0.4, -0.1, -0.4, 0.5], [0.1, 0.3, 0.6, -0.2]]
REAL_TOKENS = ["我", "爱", "吃", "苹果"]


def quantities(q, k, causal=True) -> dict:
    r = engine.attention(q, k, causal=causal)
    return {
        "Q": np.asarray(q),
        "K": np.asarray(k),
        "scores": r.scores,
        "scaled": r.scaled,
        "masked": r.masked,
        "weights": r.weights,
    }


@pytest.fixture
def real_copy(tmp_path) -> Path:
    if not REAL.exists():
        pytest.skip(f"the real vault is not available at {SHARED}")
    copy = tmp_path / "drawing.svg"
    shutil.copyfile(REAL, copy)
    return copy


def test_real_drawing_reports_exactly_the_wrong_rows(real_copy):
    svg = real_copy.read_text(encoding="utf-8")
    assert not is_generated(svg)
    report = check_handdrawn(svg, quantities(REAL_Q, REAL_K), digits=2, tokens=REAL_TOKENS)
    assert all(f.status == "wrong" for f in report.findings), report.findings
    wrong = {(f.quantity, f.index) for f in report.findings}
    every = {(i, j) for i in range(4) for j in range(4)}
    expected = (
        {("scores", c) for c in every - {(1, 2)}}  # only Scores[1][2] = -0.10 is right
        | {("scaled", c) for c in every - {(1, 2)}}  # -0.05 is its half
        | {("weights", c) for c in every}
    )  # the causal mask was never applied
    assert wrong == expected
    # Q, K, the worked dot product (4 factor pairs, 4 products, its total) were all checked
    assert report.checked == 16 * 5 + 8 + 4 + 1
    lines = svg.split("\n")
    for f in report.findings:
        assert lines[f.line - 1][f.col - 1 :].startswith(f.written)
    first = next(f for f in report.findings if f.quantity == "weights")
    assert (first.index, first.written, first.computed) == ((0, 0), "0.28", "1.00")


def test_real_drawing_fix_touches_only_the_wrong_numbers(real_copy):
    svg = real_copy.read_text(encoding="utf-8")
    qs = quantities(REAL_Q, REAL_K)
    fixed = check_handdrawn(svg, qs, digits=2, tokens=REAL_TOKENS).fixed_text
    before, after = svg.split("\n"), fixed.split("\n")
    assert len(before) == len(after)
    changed = [n + 1 for n, (a, b) in enumerate(zip(before, after)) if a != b]
    assert changed == [*range(83, 87), *range(96, 100), *range(109, 113)]
    for n in changed:  # only the bracketed row changed; markup and labels kept byte for byte
        a, b = before[n - 1], after[n - 1]
        assert a[: a.index("[")] == b[: b.index("[")] and a[a.index("]") :] == b[b.index("]") :]
        assert len(a) == len(b)  # the space-aligned columns keep their width
    assert after[82].endswith('>[ 0.04 -0.20  0.65 -0.14]  "我"</text>')
    assert after[108].endswith(">[1.00 0.00 0.00 0.00]</text>")
    again = check_handdrawn(fixed, qs, digits=2, tokens=REAL_TOKENS)
    assert again.findings == [] and again.fixed_text == fixed


def test_worked_dot_product_is_checked(real_copy):
    svg = real_copy.read_text(encoding="utf-8")
    svg = svg.replace("= 0.04 + 0.04 + (-0.28) + 0.10 = -0.10", "= 0.04 + 0.04 + (-0.28) + 0.12 = -0.08")
    report = check_handdrawn(svg, quantities(REAL_Q, REAL_K), digits=2, tokens=REAL_TOKENS)
    worked = [(f.quantity, f.index, f.written, f.computed) for f in report.findings if f.line == 73]
    assert worked == [("products", (1, 2, 3), "0.12", "0.10"), ("scores", (1, 2), "-0.08", "-0.10")]
    assert "= 0.04 + 0.04 + (-0.28) + 0.10 = -0.10" in report.fixed_text


# A drawing of a different layout: tables of one-number <text> nodes, `−` minus signs,
# no leading zeros, × for masked weights, a block pinned with data-vk, and one it cannot place.
Q = [[0.2, -0.6], [0.9, 0.3], [-0.5, 0.8]]
K = [[0.7, 0.1], [-0.3, 0.4], [0.6, -0.9]]


def table(x0: float, y0: float, values, style) -> str:
    cells = []
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            cells.append(f'<text x="{x0 + 50 * j}" y="{y0 + 18 * i}">{style(i, j, value)}</text>')
    return "\n    ".join(cells)


def own_drawing(scores_wrong=None, weight_wrong=None, scaled_wrong=None) -> str:
    qs = quantities(Q, K)

    def plain(i, j, v):
        return scores_wrong if (i, j) == (2, 1) and scores_wrong else fmt(v, 2)

    def weight(i, j, v):
        if j > i:
            return "×"
        if (i, j) == (1, 0) and weight_wrong:
            return weight_wrong
        return fmt(v, 2).replace("0.", ".", 1)

    def minus(i, j, v):
        text = scaled_wrong if (i, j) == (0, 1) and scaled_wrong else fmt(v, 3)
        return text.replace("-", "−")

    return f"""<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 680 320">
  <rect x="20" y="20" width="300" height="110" rx="6" fill="#EEEDFE"/>
  <text x="170" y="40" text-anchor="middle">打分表 Scores</text>
  <text x="30" y="70">a</text><text x="30" y="88">b</text><text x="30" y="106">c</text>
    {table(60, 70, qs["scores"], plain)}
  <rect x="360" y="20" width="300" height="110" rx="6" fill="#EAF3DE"/>
  <text x="510" y="40" text-anchor="middle">softmax 之后</text>
    {table(400, 70, qs["weights"], weight)}
  <g data-vk="scaled">
    {table(60, 180, qs["scaled"], minus)}
  </g>
  <rect x="360" y="160" width="300" height="60" rx="6" fill="#FAEEDA"/>
  <text x="510" y="180" text-anchor="middle">图例</text>
  <text x="400" y="200">1</text><text x="450" y="200">2</text>
  <text x="400" y="214">3</text><text x="450" y="214">4</text>
  <text x="300" y="300">42</text>
</svg>
"""


def test_own_layout_right_numbers_pass_and_a_legend_of_another_shape_is_not_read():
    report = check_handdrawn(own_drawing(), quantities(Q, K), digits=2, tokens=["a", "b", "c"])
    assert report.findings == []
    assert report.checked == 27
    assert report.fixed_text == own_drawing()


def test_an_unplaced_block_of_a_quantity_shape_is_uncertain():
    legend = '<text x="400" y="200">1</text><text x="450" y="200">2</text>'
    unplaced = "".join(
        f'<text x="{400 + 50 * j}" y="{250 + 18 * i}">{i + j + 7}</text>' for i in range(3) for j in range(2)
    )
    drawn = own_drawing().replace(legend, legend + unplaced)
    report = check_handdrawn(drawn, quantities(Q, K), digits=2, tokens=["a", "b", "c"])
    assert [(f.status, f.quantity, f.written) for f in report.findings] == [("uncertain", "?", "7")]
    assert report.fixed_text == drawn


def test_own_layout_wrong_numbers_are_fixed_in_the_drawings_style():
    qs = quantities(Q, K)
    drawn = own_drawing(scores_wrong="0.99", weight_wrong=".70", scaled_wrong="−0.900")
    report = check_handdrawn(drawn, qs, digits=2, tokens=["a", "b", "c"])
    wrong = [(f.quantity, f.index, f.written, f.computed) for f in report.findings if f.status == "wrong"]
    assert wrong == [
        ("scores", (2, 1), "0.99", fmt(qs["scores"][2, 1], 2)),
        ("weights", (1, 0), ".70", fmt(qs["weights"][1, 0], 2)),
        ("scaled", (0, 1), "−0.900", fmt(qs["scaled"][0, 1], 2)),
    ]
    assert report.fixed_text == own_drawing()  # same style: `.xx`, `−`, three decimals


def test_masked_weights_written_as_numbers_are_wrong():
    qs = quantities(Q, K)
    drawn = own_drawing().replace(">×<", ">.25<", 1)
    report = check_handdrawn(drawn, qs, digits=2, tokens=["a", "b", "c"])
    wrong = [(f.quantity, f.index, f.computed) for f in report.findings if f.status == "wrong"]
    assert wrong == [("weights", (0, 1), "0.00")]
    assert ">.00<" in report.fixed_text


def test_bracket_rows_with_a_pin_and_no_caption():
    qs = quantities(Q, K, causal=False)
    rows = "\n".join(
        f'  <text x="100" y="{40 + 16 * i}">[{", ".join(fmt(v, 2) for v in row)}]</text>'
        for i, row in enumerate(qs["weights"])
    )
    drawn = f'<svg xmlns="http://www.w3.org/2000/svg">\n <g data-vk="weights">\n{rows}\n </g>\n</svg>\n'
    assert check_handdrawn(drawn, qs, digits=2, tokens=[]).findings == []
    bad = drawn.replace(f"[{fmt(qs['weights'][0, 0], 2)},", "[0.5,", 1)
    report = check_handdrawn(bad, qs, digits=2, tokens=[])
    assert [(f.quantity, f.index, f.line) for f in report.findings] == [("weights", (0, 0), 3)]
    assert report.fixed_text == drawn


def shaken(svg: str, seed: int) -> str:
    """Every number's <text> moved by up to ±2 px both ways and turned up to 5° about itself."""
    import random

    rng = random.Random(seed)

    def move(m):
        x, y = float(m.group(1)) + rng.uniform(-2, 2), float(m.group(2)) + rng.uniform(-2, 2)
        return (
            f'<text x="{x:.2f}" y="{y:.2f}" transform="rotate({rng.uniform(-5, 5):.1f} {x:.2f} {y:.2f})">{m.group(3)}<'
        )

    import re

    return re.sub(r'<text x="([\d.]+)" y="([\d.]+)">([−\-.\d×]+)<', move, svg)


@pytest.mark.parametrize("seed", range(12))
def test_a_shaken_drawing_reads_as_the_aligned_one(seed):
    qs = quantities(Q, K)
    right = shaken(own_drawing(), seed)
    assert right != own_drawing()
    report = check_handdrawn(right, qs, digits=2, tokens=["a", "b", "c"])
    assert report.findings == [] and report.checked == 27 and report.fixed_text == right
    wrong = shaken(own_drawing(scores_wrong="0.99", weight_wrong=".70", scaled_wrong="−0.900"), seed)
    report = check_handdrawn(wrong, qs, digits=2, tokens=["a", "b", "c"])
    assert [(f.quantity, f.index) for f in report.findings] == [
        ("scores", (2, 1)),
        ("weights", (1, 0)),
        ("scaled", (0, 1)),
    ]
    assert report.fixed_text == right  # only the three numbers change; the shaken places stay
