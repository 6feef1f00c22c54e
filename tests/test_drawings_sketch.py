"""Sketches read as a person sees them, and drawings read at a cost that grows with their size.

The sketches are drawn by `tests/fixtures/handdrawn/sketches.py` the way tools export them
(Excalidraw's rough cell paths, draw.io's foreignObject labels, Inkscape's tspans, matplotlib's
annotated heatmaps, a hand-written SVG); `HALF` says which tuned the readers and which were held
out (bench/bench_drawings_ground.py measures both apart).
"""

from __future__ import annotations

import importlib.util
import math
import random
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultkit.checks.drawings import layouts
from vaultkit.checks.drawings.handdrawn import caption_runs, check_handdrawn, name_matrices
from vaultkit.checks.drawings.inferred import NAMES, infer, why_not
from vaultkit.checks.drawings.vocabulary import caption_role
from vaultkit.checks.examples.kinds import attention
from vaultkit.readers.svgtext import read_svg

FIXTURES = Path(__file__).parent / "fixtures" / "handdrawn"
_spec = importlib.util.spec_from_file_location("sketches", FIXTURES / "sketches.py")
sketches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sketches)
SKETCHES = sorted(sketches.SKETCHES)


def read(svg: str):
    """(wrong cells, findings that are not a wrong cell, fixed text, doubts, the reports' findings)."""
    model = read_svg(svg)
    derivation = infer(model, "d.svg")
    assert derivation is not None, why_not(model)
    if not derivation.spec:
        return set(), [], svg, derivation.doubts, []
    run = attention.run(attention.parse(derivation.spec))
    report = check_handdrawn(
        model,
        run.quantities,
        digits=derivation.spec["digits"],
        tokens=derivation.spec.get("tokens", []),
        skip=derivation.skip,
    )
    found = {(f.quantity, *f.index) for f in report.findings if f.status == "wrong"}
    others = [f for f in report.findings if f.status != "wrong"]
    return found, others, report.fixed_text, derivation.doubts, report.findings


def test_every_sketch_is_in_a_half():
    assert set(sketches.HALF) == set(SKETCHES)
    assert set(sketches.HALF.values()) == {"tune", "held"}


@pytest.mark.parametrize("name", SKETCHES)
@pytest.mark.parametrize("seed", [0, 1])
def test_sketches_name_every_seeded_cell_and_fix_exactly_those(name, seed):
    svg, seeded = sketches.draw(name, seed, True)
    right, _ = sketches.draw(name, seed, False)
    assert seeded
    found, others, fixed, doubts, _ = read(svg)
    assert (found, others, doubts) == (seeded, [], [])
    assert fixed == right
    assert read(right)[:2] == (set(), []) and read(right)[3] == []  # the right drawing: silent


@settings(max_examples=25, deadline=None)
@given(name=st.sampled_from(SKETCHES), seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6))
def test_one_planted_slip_is_found_on_its_cell_and_fixed(name, seed, pick):
    cells = sketches.derived_cells(name, seed)
    cell = cells[pick % len(cells)]
    svg = sketches.one_slip(name, seed, cell)
    right, _ = sketches.draw(name, seed, False)
    found, others, fixed, doubts, _ = read(svg)
    assert found == {(cell[0].rstrip("·"), *cell[1:])} and others == [] and doubts == []
    assert fixed == right


def test_the_textbook_sketch_with_no_divider_reads_its_blocks_by_their_cells():
    svg, _ = sketches.draw("excalidraw-textbook-q", 0, False)
    shapes = sorted(m.shape for m in layouts.find_layout(read_svg(svg)).matrices)
    assert shapes == [(2, 3), (3, 2), (3, 3), (3, 3)]  # Kᵀ, Q, the scores and the weights
    assert "<line" not in svg and svg.count("Q") >= 2  # no divider; cells are rough curved paths


def test_a_label_that_says_what_a_matrix_is_is_honoured():
    assert caption_role("scores = Q·Kᵀ / √d") == "scaled"
    assert caption_role("Scores = Q·Kᵀ") == "scores"
    assert caption_role("out = weights · V") == "output"
    assert caption_role("weights = softmax(scores / √2)") == "weights"
    right, _ = sketches.draw("excalidraw-scaled-label", 0, False)
    assert read(right)[:2] == (set(), [])


def _grid(boxed: bool, dx: float, dy: float) -> str:
    """A 3×3 grid of numbers (font 10), columns `dx` and rows `dy` apart, each number in a cell
    box of that size when `boxed`."""
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" font-size="10">']
    for i in range(3):
        for j in range(3):
            x, y = 20 + dx * j, 20 + dy * i
            if boxed:
                parts.append(f'<path d="M {x} {y} L {x + dx} {y} L {x + dx} {y + dy} L {x} {y + dy} z"/>')
            parts.append(f'<text x="{x + dx / 2}" y="{y + dy / 2}" text-anchor="middle">0.{i}{j}</text>')
    return "".join(parts) + "</svg>"


def _shapes(svg: str) -> list[tuple[int, int]]:
    return [m.shape for m in layouts.find_layout(read_svg(svg)).matrices]


def test_a_boxed_table_is_one_block_however_tall_its_cells():
    assert _shapes(_grid(True, 40, 80)) == [(3, 3)]
    assert _shapes(_grid(False, 40, 80)) == []  # lines further apart than their columns, unboxed: apart


def test_a_grid_whose_rows_stand_no_further_apart_than_its_columns_is_one_block():
    assert _shapes(_grid(False, 80, 60)) == [(3, 3)]  # 6 font sizes between rows: a grid, as its columns
    assert _shapes(_grid(False, 80, 100)) == []


def test_a_legend_colour_names_the_one_block_drawn_in_it():
    svg, _ = sketches.draw("excalidraw-textbook-legend", 0, False)
    assert read(svg)[:2] == (set(), [])

    def recolour(box: re.Match) -> str:  # the weights' cells (not their swatch) in the scores' colour
        inside = float(box.group(1)) < 440
        return box.group(0).replace('fill="#ffc9c9"', 'fill="#ffec99"') if inside else box.group(0)

    shared = re.sub(r'<g stroke-linecap="round" transform="translate\(([\d.]+) .*?</g>', recolour, svg)
    assert shared.count('fill="#ffc9c9"') == 1
    model = read_svg(shared)
    found = layouts.find_layout(model).matrices
    namings = name_matrices(model, found, caption_runs(model, found), NAMES)
    assert not any(n.said in ("Scores", "Weights") for n in namings)  # a shared colour names neither


def test_a_caption_names_the_block_it_is_centred_over_not_one_whose_corner_it_reaches():
    """A wide caption over the left block reaches over the corner of the right one, which is
    drawn a little higher: the caption is the left block's."""

    def block(x0: float, y0: float, values) -> str:
        return "".join(
            f'<text x="{x0 + 60 * j}" y="{y0 + 36 * i}" text-anchor="middle">{v}</text>'
            for i, row in enumerate(values)
            for j, v in enumerate(row)
        )

    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" font-size="20">'
        '<text x="430" y="48" text-anchor="middle">scores = Q·Kᵀ / √2</text>'
        + block(350, 100, [["0.03", "-0.20", "0.40"], ["0.42", "0.08", "0.01"]])
        + block(555, 94, [["0.31", "0.25", "0.45"], ["0.42", "0.30", "0.28"]])
        + "</svg>"
    )
    model = read_svg(svg)
    found = layouts.find_layout(model).matrices
    namings = name_matrices(model, found, caption_runs(model, found), NAMES)
    assert sorted((m.left < 500, n.name or "") for m, n in zip(found, namings)) == [(False, ""), (True, "scaled")]


def test_the_product_at_the_crossing_is_the_step_its_values_show_and_keeps_its_minus_sign():
    right, _ = sketches.draw("excalidraw-textbook-masked", 0, False)
    unlabelled = re.sub(r"<g [^>]*><text [^>]*>masked scores \(causal\)</text></g>", "", right)
    assert unlabelled != right and read(unlabelled)[:2] == (set(), [])  # at the crossing: masked, by its −∞
    slip = sketches.one_slip("excalidraw-textbook-masked", 0, ("masked", 2, 2))
    found, others, fixed, _, _ = read(slip)
    assert found == {("masked", 2, 2)} and not others
    assert fixed == right  # -0.35 as drawn: the −∞ beside it does not make the minus a U+2212


def test_a_label_to_the_right_of_a_block_level_with_its_rows_names_it():
    right, _ = sketches.draw("excalidraw-textbook-masked", 1, False)
    model = read_svg(right)
    found = layouts.find_layout(model).matrices
    said = {n.said for n in name_matrices(model, found, caption_runs(model, found), NAMES)}
    assert {"masked scores (causal)", "weights"} <= said


def test_a_long_label_beside_a_block_reaching_its_edge_does_not_split_its_rows():
    def relabel(svg: str) -> str:
        return svg.replace(">Kᵀ</text>", ">键 Kᵀ</text>").replace(">Q</text>", ">查询 Q</text>")  # from where Kᵀ began

    right = relabel(sketches.draw("excalidraw-textbook-q", 0, False)[0])
    assert read(right)[:2] == (set(), []) and read(right)[3] == []
    slip = relabel(sketches.one_slip("excalidraw-textbook-q", 0, ("scores", 0, 1)))
    found, _, fixed, _, _ = read(slip)
    assert found == {("scores", 0, 1)} and fixed == right


def test_a_fix_keeps_padded_columns_or_else_the_spaces_written_before_the_number():
    right, _ = sketches.draw("hand-rows-signs", 0, False)
    slip = sketches.one_slip("hand-rows-signs", 0, ("scores", 0, 1))  # -0.28 slipped to 0.02
    assert "[ 0.04  0.02  0.56 ]" in slip and read(slip)[2] == right  # two spaces, then -0.28
    padded = (
        '<svg xmlns="http://www.w3.org/2000/svg" font-size="14">'
        '<text x="10" y="20">Q</text><text x="10" y="40">[0.6 -0.2]</text><text x="10" y="56">[0.1 0.8]</text>'
        '<text x="200" y="20">K</text><text x="200" y="40">[0.3 0.7]</text><text x="200" y="56">[-0.4 0.2]</text>'
        '<text x="10" y="120">Scores</text>'
        '<text x="10" y="140">[  0.04  {s01}]</text><text x="10" y="156">[  0.59   0.12]</text></svg>'
    )
    right = padded.format(s01="-0.28")
    assert read(right)[:2] == (set(), [])
    assert read(padded.format(s01=" 0.02"))[2] == right  # the columns stay lined up


def test_a_worked_line_with_a_wrong_k_factor_is_fixed_exactly():
    right, _ = sketches.draw("hand-weight-grid", 0, False)
    svg = sketches.one_slip("hand-weight-grid", 0, ("K·", 1, 0))
    found, others, fixed, doubts, findings = read(svg)
    assert found == {("K", 1, 0)} and not others and not doubts
    [finding] = findings
    line = svg.split("\n")[finding.line - 1]
    assert line[finding.col - 1 :].startswith(finding.written) and "×(" in line
    assert finding.computed == "-0.4"  # written with the decimals of the drawing's own K
    assert fixed == right


def test_a_worked_total_in_a_text_of_its_own_is_checked():
    svg = sketches.one_slip("hand-weight-grid", 1, ("scores", 0, 1))
    found, _, _, _, findings = read(svg)
    assert found == {("scores", 0, 1)}
    assert "= " in svg.split("\n")[findings[0].line - 1]


WORKED = """<svg xmlns="http://www.w3.org/2000/svg" font-size="14">
  <text x="10" y="20">Q</text>
  <text x="10" y="40">[0.6 -0.2]</text>
  <text x="10" y="56">[0.1 0.8]</text>
  <text x="10" y="72">[-0.5 0.4]</text>
  <text x="200" y="20">K</text>
  <text x="200" y="40">[0.3 0.7]</text>
  <text x="200" y="56">[-0.4 0.2]</text>
  <text x="200" y="72">[0.9 -0.1]</text>
  <text x="10" y="120">{caption}</text>
  <text x="10" y="140">(0.1)×({k0}) + (0.8)×(-0.1)</text>
  <text x="10" y="156">= 0.09 + -0.08 = 0.01</text>
</svg>
"""


@pytest.mark.parametrize("caption", ["Scores[1, 2]", "Scores[1][2]", "Scores[2, 3]"])
def test_a_cell_caption_says_which_cell_a_worked_line_is_about(caption):
    right = WORKED.format(caption=caption, k0="0.9")
    assert read(right)[0] == set() and read(right)[1] == []
    found, others, fixed, _, _ = read(WORKED.format(caption=caption, k0="0.5"))
    assert found == {("K", 2, 0)} and not others  # the caption settles the cell; the factor is K's
    assert fixed == right


def test_a_caption_below_the_matrix_it_names():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" font-size="14">'
        '<text x="10" y="20">Q</text><text x="10" y="40">[0.6 -0.2]</text><text x="10" y="56">[0.1 0.8]</text>'
        '<text x="200" y="20">K</text><text x="200" y="40">[0.3 0.7]</text><text x="200" y="56">[-0.4 0.2]</text>'
        '<text x="10" y="140">[0.04 -0.28]</text><text x="10" y="156">[0.59 {s11}]</text>'
        '<text x="10" y="180">↑ scores</text></svg>'
    )
    assert read(svg.format(s11="0.12"))[:2] == (set(), [])
    found, _, fixed, _, _ = read(svg.format(s11="0.42"))
    assert found == {("scores", 1, 1)} and fixed == svg.format(s11="0.12")


def test_a_q_box_holding_a_non_number_says_so():
    svg = WORKED.format(caption="", k0="0.9").replace("[0.1 0.8]", "[0.1 —]")
    found, others, fixed, doubts, _ = read(svg)
    assert not found and fixed == svg
    assert [d.reason for d in doubts] == ["Q or K holds a cell that is not a number"]


def test_draw_io_labels_are_read_from_their_html_and_fixed_in_both():
    svg, seeded = sketches.draw("drawio-side-by-side", 0, True)
    right, _ = sketches.draw("drawio-side-by-side", 0, False)
    model = read_svg(svg)
    twins = [r for r in model.runs if r.twins]
    assert twins and all(t.raw == r.raw for r in twins for t in r.twins)
    assert read(svg)[2] == right  # the foreignObject's number and its fallback, both rewritten
    only, _ = sketches.draw("drawio-foreign-only", 0, False)
    numbers = [r for r in read_svg(only).runs if r.text.strip() and r.text.strip()[0].isdigit()]
    assert numbers and all(math.isfinite(r.cx) and r.anchor() == "middle" for r in numbers)


def test_a_drawing_too_deep_to_read_says_why():
    deep = (
        '<svg xmlns="http://www.w3.org/2000/svg">'
        + "<g>" * 300
        + '<text x="1" y="2">Q</text><text x="1" y="20">[1 2]</text><text x="40" y="2">K</text>'
        + "</g>" * 300
        + "</svg>"
    )
    model = read_svg(deep)
    assert model.depth == 302
    assert why_not(model).startswith("not read: its elements are nested 302 deep")
    [doubt] = infer(model, "d.svg").doubts
    assert "nested 302 deep" in doubt.reason
    shallow = deep.replace("<g>" * 300, "").replace("</g>" * 300, "")
    assert layouts.too_large(read_svg(shallow)) == ""


def _line_ids_by_hand(xs, ys, sizes, bases):
    """`layouts._line_ids` as it was written first: every pair looked at (quadratic)."""
    n = len(xs)
    parent = list(range(n))

    def root(i):
        while parent[i] != i:
            i = parent[i]
        return i

    order = sorted(range(n), key=lambda i: xs[i])
    for at, a in enumerate(order):
        best, best_dx = None, math.inf
        for b in order[at + 1 :]:
            dx = xs[b] - xs[a]
            if dx >= best_dx:
                break
            tol = layouts.ROW_TOLERANCE * max(sizes[a], sizes[b], 1e-9)
            if abs(ys[b] - ys[a]) <= tol or abs(bases[b] - bases[a]) <= tol:
                best, best_dx = b, dx
        if best is not None:
            parent[root(best)] = root(a)
    roots = {}
    return [roots.setdefault(root(i), len(roots)) for i in range(n)]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60))
def test_lines_are_clustered_as_looking_at_every_pair_would(seed, n):
    rng = random.Random(seed)
    xs = [rng.choice([rng.uniform(0, 300), 20.0 * rng.randint(0, 10)]) for _ in range(n)]
    ys = [20.0 * rng.randint(0, 6) + rng.uniform(-6, 6) for _ in range(n)]
    sizes = [rng.choice([10.0, 14.0, 20.0]) for _ in range(n)]
    bases = [y + rng.uniform(-4, 4) for y in ys]
    assert layouts._line_ids(xs, ys, sizes, bases) == _line_ids_by_hand(xs, ys, sizes, bases)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_space_finds_every_box_that_meets_a_query(seed):
    rng = random.Random(seed)
    boxes = []
    for _ in range(rng.randint(0, 40)):
        x, y = rng.uniform(-100, 500), rng.uniform(-100, 500)
        boxes.append((x, y, x + rng.choice([0, rng.uniform(0, 50), rng.uniform(0, 900)]), y + rng.uniform(0, 60)))
    space = layouts.Space(boxes, lambda b: b, rng.choice([5.0, 20.0, 64.0]))
    for _ in range(10):
        x, y = rng.uniform(-100, 500), rng.uniform(-100, 500)
        query = (x, y, x + rng.uniform(0, 100), y + rng.uniform(0, 100))
        meets = [b for b in boxes if b[0] <= query[2] and b[2] >= query[0] and b[1] <= query[3] and b[3] >= query[1]]
        near = space.near(*query)
        assert all(any(m is b for b in near) for m in meets)
        assert len({id(b) for b in near}) == len(near)  # each once
