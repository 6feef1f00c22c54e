"""Zero annotation: drawings that show their own Q and K are checked with no ```vaultkit block.

Fixtures in tests/fixtures/handdrawn/: `<layout>.svg`, drawn with seeded wrong cells, and
`<layout>.expected`, the diagnostics `vaultkit check` must print for it. `people-<layout>.svg`
are drawn by `people.py` the way people draw (jitter, tilt, scaled groups, labels anywhere,
the textbook layout, shuffled elements, a drawing program's export); the same module draws
them right, and perturbed, for the property tests.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultkit import engine
from vaultkit.checks.drawings.handdrawn import check_handdrawn
from vaultkit.checks.drawings.inferred import infer
from vaultkit.checks.drawings.vocabulary import caption_role, row_role, stated_scales
from vaultkit.checks.examples.kinds import attention
from vaultkit.diagnostics import format_text
from vaultkit.model.vault import Vault
from vaultkit.numbers import fmt
from vaultkit.pipeline import Pipeline
from vaultkit.readers.svgtext import read_svg

FIXTURES = Path(__file__).parent / "fixtures" / "handdrawn"
LAYOUTS = sorted(p.stem for p in FIXTURES.glob("*.svg") if not p.stem.startswith("people-"))
_spec = importlib.util.spec_from_file_location("people", FIXTURES / "people.py")
people = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(people)
PEOPLE = sorted(people.DRAWINGS)


def run(root: Path):
    """(diagnostic lines of figures, changes fix would write) for a vault folder."""
    report, changes = Pipeline(Vault.load(root)).report()
    lines = [line for line in format_text(report).splitlines() if ": VK4" in line]
    return lines, changes


def vault_with(tmp_path: Path, name: str, svg: str, note: str | None = None) -> Path:
    root = tmp_path / "v"
    root.mkdir(exist_ok=True)
    (root / name).write_text(svg, encoding="utf-8")
    if note is not None:
        (root / "note.md").write_text(note, encoding="utf-8")
    return root


def test_there_are_four_layouts_drawn_aligned_and_twelve_drawn_as_people_draw():
    assert LAYOUTS == ["cards-caption-above", "cell-grid-groups", "transposed-masked", "tspan-rows-english"]
    assert PEOPLE == [
        "bracket-rows",
        "drawn-brackets",
        "export-nested",
        "jitter-cells",
        "labels-left",
        "legend",
        "pinned",
        "rotated-numbers",
        "scaled-groups",
        "shuffled",
        "stacked",
        "textbook",
    ]


# --- drawings made as people make them -------------------------------------------------------


def wrong_cells(svg: str):
    """(the cells found wrong, the findings that are not a wrong cell, the fixed text, doubts)."""
    model = read_svg(svg)
    derivation = infer(model, "d.svg")
    assert derivation is not None, "the drawing was passed over"
    if not derivation.spec:
        return set(), [], svg, derivation.doubts
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
    return found, others, report.fixed_text, derivation.doubts


@pytest.mark.parametrize("name", PEOPLE)
def test_people_drawings_name_every_seeded_cell_and_fix_exactly_those(tmp_path, name):
    svg = (FIXTURES / f"people-{name}.svg").read_text(encoding="utf-8")
    drawn, seeded = people.draw(name, 0, True)
    right, _ = people.draw(name, 0, False)
    assert svg == drawn  # the fixture is what people.py draws (python tests/fixtures/handdrawn/people.py)
    found, others, fixed, doubts = wrong_cells(svg)
    assert found == seeded and others == [] and doubts == []  # every wrong cell named, nothing else
    assert fixed == right  # exactly those numbers rewritten, every other byte kept

    root = vault_with(tmp_path, f"people-{name}.svg", svg)
    lines, changes = run(root)
    assert lines == (FIXTURES / f"people-{name}.expected").read_text(encoding="utf-8").splitlines()
    assert all(": VK402 " in line for line in lines)
    [change] = changes
    assert change.new.decode("utf-8") == right
    (root / f"people-{name}.svg").write_text(right, encoding="utf-8")  # the right drawing: silent
    assert run(root) == ([], [])


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(PEOPLE),
    seed=st.integers(0, 2**32 - 1),
    jitter=st.floats(0, 1),
    tilt=st.floats(0, 8),
    wrong=st.booleans(),
)
def test_perturbed_drawings_right_are_silent_and_wrong_are_found(name, seed, jitter, tilt, wrong):
    """Move every number by up to ±2 px and turn it by up to 8°: a right drawing never gives
    a finding, a wrong one always gives exactly its wrong cells."""
    svg, seeded = people.draw(name, seed, wrong, jitter, tilt)
    right, _ = people.draw(name, seed, False, jitter, tilt)
    found, others, fixed, doubts = wrong_cells(svg)
    assert (found, others, doubts) == (seeded, [], []), svg
    assert fixed == right


def test_watch_says_which_cells_it_fixed(tmp_path):
    from vaultkit.commands.sync import Syncer

    root = tmp_path / "v"
    (root / "assets").mkdir(parents=True)
    svg, seeded = people.draw("textbook", 0, True)
    (root / "assets" / "x.svg").write_text(svg, encoding="utf-8")
    result = Syncer(root).sync({"assets/x.svg"})
    assert result.written == ["assets/x.svg"]
    status = result.status().splitlines()
    fixed = [line.split("] ", 1)[1] for line in status if "] fixed " in line]
    assert seeded == {("scores", 0, 1), ("scores", 2, 2), ("weights", 1, 2)}
    assert fixed == [  # the seeded cells: -0.28 drawn as 0.02, -0.49 as -0.19, 0.28 as 0.58
        "fixed assets/x.svg scores[0]: 0.04 0.02 0.56 → 0.04 -0.28 0.56",
        "fixed assets/x.svg scores[2]: 0.13 0.28 -0.19 → 0.13 0.28 -0.49",
        "fixed assets/x.svg weights[1]: 0.42 0.30 0.58 → 0.42 0.30 0.28",
    ]
    assert status[-1].endswith(")") and "wrote assets/x.svg" in status[-1]


# --- never silent -----------------------------------------------------------------------------


def test_labels_of_q_and_k_near_numbers_that_form_no_block_are_one_warning(tmp_path):
    svg, _ = people.draw("jitter-cells", 0, False)
    broken = svg.replace(">0.8</text>", "></text>", 1)  # Q loses a number: its lines hold 2, 1 and 2
    lines, changes = run(vault_with(tmp_path, "d.svg", broken))
    assert len(lines) == 1 and ": VK403 " in lines[0] and changes == []
    assert "found a “Q” label and K 3×2, but the numbers near “Q” do not form a block: lines of 2, 1 and 2" in lines[0]


def test_a_derived_label_whose_numbers_form_no_block_of_its_shape_is_one_warning(tmp_path):
    svg, _ = people.draw("jitter-cells", 0, False)
    value = fmt(people.quantities()["scores"][1][1], 2)
    broken = svg.replace(f">{value}</text>", "></text>", 1)
    lines, _ = run(vault_with(tmp_path, "d.svg", broken))
    assert len(lines) == 1 and ": VK403 " in lines[0]  # the weights are right: nothing else to say
    assert (
        "found Q 3×2 and K 3×2, but the numbers under “Scores = Q·Kᵀ” do not form a 3×3 block: "
        "lines of 3, 2 and 3 numbers"
    ) in lines[0]
    column = (
        fmt(people.quantities()["scores"][0][2], 2),
        fmt(people.quantities()["scores"][1][2], 2),
        fmt(people.quantities()["scores"][2][2], 2),
    )
    narrow = svg
    for value in column:  # the last column of the scores is not drawn
        narrow = narrow.replace(f">{value}</text>", "></text>", 1)
    lines, changes = run(vault_with(tmp_path, "d.svg", narrow))
    assert len(lines) == 1 and "do not form a 3×3 block: they form a 3×2 block" in lines[0] and changes == []


def test_pins_settle_blocks_that_no_label_names(tmp_path):
    svg, seeded = people.draw("pinned", 0, True)
    found, others, _, doubts = wrong_cells(svg)
    assert found == seeded == {("weights", 0, 0)} and not others and not doubts
    unpinned = svg.replace('<g data-vk="Q">', "<g>").replace('<g data-vk="K">', "<g>")
    assert infer(read_svg(unpinned), "d.svg") is None  # no label says Q and K: not a derivation


def test_explain_lists_every_svg_and_why_it_was_not_read(tmp_path, capsys):
    from vaultkit.commands.cli import main

    root = vault_with(tmp_path, "arch.svg", NOT_DERIVATIONS[0])
    (root / "broken.svg").write_text("<svg><text>1</svg>", encoding="utf-8")
    (root / "t.svg").write_text((FIXTURES / "transposed-masked.svg").read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["check", "--explain", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "arch.svg:1: svg not read: no matrix of numbers drawn" in out
    assert "broken.svg:1: svg not read: not well-formed XML" in out
    assert out[0].startswith("t.svg:1: drawing error: example read from the drawing: Q 3×2")
    # arch.svg's `4096 → 1024` steps are claim-like lines --explain lists as skipped (issue 21)
    assert "arch.svg:1: claim skipped: K 投影 4096 → 1024  [a step from one value to another, no arithmetic]" in out
    assert "0 arithmetic claims read, 2 skipped; 1 drawings and figures read, 2 other SVGs not read" in out


@pytest.mark.parametrize("layout", LAYOUTS)
def test_seeded_wrong_cells_are_found_and_fixed(tmp_path, layout):
    svg = (FIXTURES / f"{layout}.svg").read_text(encoding="utf-8")
    root = vault_with(tmp_path, f"{layout}.svg", svg)
    lines, changes = run(root)
    assert lines == (FIXTURES / f"{layout}.expected").read_text(encoding="utf-8").splitlines()
    [change] = changes
    fixed = change.new.decode("utf-8")
    wrong_lines = {int(line.split(":")[1]) for line in lines}
    before, after = svg.split("\n"), fixed.split("\n")
    assert len(before) == len(after)
    assert {n + 1 for n, (a, b) in enumerate(zip(before, after)) if a != b} == wrong_lines
    assert all(len(a) == len(b) for a, b in zip(before, after))  # columns keep their width

    (root / f"{layout}.svg").write_text(fixed, encoding="utf-8")  # the right drawing
    assert run(root) == ([], [])


def test_a_block_naming_the_drawing_wins(tmp_path):
    svg = (FIXTURES / "cards-caption-above.svg").read_text(encoding="utf-8")
    note = """# 猫和狗

```vaultkit
id: pets
kind: attention
Q: [[0.2, 0.4, -0.1, 0.3], [-0.5, 0.1, 0.6, 0.2]]
K: [[0.3, -0.2, 0.5, 0.1], [0.0, 0.7, -0.3, 0.5]]
figure: cards-caption-above.svg
```
"""
    lines, _ = run(vault_with(tmp_path, "cards-caption-above.svg", svg, note))
    assert lines and all("example pets" in line for line in lines)  # computed from the block's K
    assert any("K[1]" in line for line in lines)


DOUBTFUL = """<svg xmlns="http://www.w3.org/2000/svg">
  <text x="10" y="20">Q</text>
  <text x="10" y="40">[0.5 0.1]</text>
  <text x="10" y="56">[0.2 0.3]</text>
  <text x="200" y="20">K</text>
  <text x="200" y="40">[0.4 0.2]</text>
  <text x="200" y="56">[0.1 0.6]</text>
  <text x="10" y="100">scores</text>
  <text x="10" y="120">[{s00} 0.11]</text>
  <text x="10" y="136">[0.14 0.20]</text>
  <text x="200" y="100">weights {caption}</text>
  <text x="200" y="120">[0.99 0.01]</text>
  <text x="200" y="136">[0.50 0.50]</text>
</svg>
"""


@pytest.mark.parametrize(
    "caption, reason",
    [
        ("(mask applied)", "speaks of a mask but not of which cells"),
        ("(no causal mask here)", "may deny it"),
        ("÷ √2, ÷ 4", "different scales"),
    ],
)
def test_what_the_text_does_not_settle_is_one_warning_and_no_rewrite(tmp_path, caption, reason):
    root = vault_with(tmp_path, "d.svg", DOUBTFUL.format(s00="0.22", caption=caption))
    lines, changes = run(root)
    assert len(lines) == 1 and ": VK403 " in lines[0] and reason in lines[0] and "data-vk-" in lines[0]
    assert changes == []
    # what the doubt does not touch is still checked: the scores
    lines, changes = run(vault_with(tmp_path, "d.svg", DOUBTFUL.format(s00="0.90", caption=caption)))
    assert any(": VK402 error: scores[0]" in line for line in lines) and len(changes) == 1


def test_a_division_elsewhere_in_the_drawing_is_not_the_scale(tmp_path):
    right = (
        DOUBTFUL.format(s00="0.22", caption="")
        .replace("[0.99 0.01]", "[0.52 0.48]")
        .replace("[0.50 0.50]", "[0.49 0.51]")
    )  # the softmax at 1/√2; at 1/2 the first row would be [0.51 0.49]
    svg = right.replace("</svg>", '<text x="10" y="300">显存 ÷ 2 = 一半</text></svg>')
    assert run(vault_with(tmp_path, "d.svg", right)) == ([], [])
    assert run(vault_with(tmp_path, "d.svg", svg)) == ([], [])


def test_a_pin_settles_the_doubt(tmp_path):
    svg = DOUBTFUL.format(s00="0.22", caption="(mask applied)").replace("<svg ", '<svg data-vk-mask="none" ', 1)
    lines, _ = run(vault_with(tmp_path, "d.svg", svg))
    assert [line.split(" ")[1:4] for line in lines] == [
        ["VK402", "error:", "weights[0]"],
        ["VK402", "error:", "weights[1]"],
    ]


NOT_DERIVATIONS = [
    # an architecture diagram with sizes, a memory table, a flowchart with numbered steps
    '<svg xmlns="http://www.w3.org/2000/svg"><text x="10" y="20">Q 投影 4096 → 4096</text>'
    '<text x="10" y="40">K 投影 4096 → 1024</text><text x="10" y="60">32 层 × 8 KV 头</text></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><text x="10" y="20">显存 (GB)</text>'
    '<text x="10" y="40">7   13   70</text><text x="10" y="56">14  26  140</text></svg>',
    '<svg xmlns="http://www.w3.org/2000/svg"><g><text x="10" y="20">1</text><text x="60" y="20">2</text>'
    '<text x="10" y="40">3</text><text x="60" y="40">4</text></g><text x="10" y="80">Q&amp;A 流程</text></svg>',
    # projection weights are not Q and K
    '<svg xmlns="http://www.w3.org/2000/svg"><text x="10" y="20">W_Q</text><text x="10" y="40">[0.1 0.2]</text>'
    '<text x="10" y="56">[0.3 0.4]</text><text x="200" y="20">W_K</text><text x="200" y="40">[0.5 0.6]</text>'
    '<text x="200" y="56">[0.7 0.8]</text><text x="10" y="100">scores</text><text x="10" y="120">[9.9 9.9]</text>'
    '<text x="10" y="136">[9.9 9.9]</text></svg>',
]


@pytest.mark.parametrize("svg", NOT_DERIVATIONS)
def test_drawings_that_show_no_inputs_give_no_finding(tmp_path, svg):
    lines, changes = run(vault_with(tmp_path, "d.svg", svg))
    assert lines == [] and changes == []


# --- fuzz: random layouts drawn from right numbers never give an error --------------------


def cell(v: float, digits: int, minus: str) -> str:
    return ("−∞" if np.isneginf(v) else fmt(v, digits)).replace("-", minus)


def draw(layout: str, x: float, y: float, caption: str, m, digits: int, minus: str, labels=None) -> str:
    rows = [[cell(v, digits, minus) for v in row] for row in np.asarray(m)]
    label = (lambda i: f'  "{labels[i]}"') if labels else (lambda i: "")
    if layout == "brackets":
        body = "".join(
            f'<text x="{x}" y="{y + 18 * (i + 1)}">[{" ".join(r)}]{label(i)}</text>' for i, r in enumerate(rows)
        )
        return f'<text x="{x}" y="{y}">{caption}</text>{body}'
    if layout == "tspans":
        body = "".join(f'<tspan x="{x}" dy="1.3em">{"  ".join(r)}</tspan>' for r in rows)
        return f'<text x="{x}" y="{y}">{caption}</text><text x="{x}" y="{y}">{body}</text>'
    if layout == "grid":
        body = "".join(
            f'<text x="{48 * j}" y="{20 * (i + 1)}">{c}</text>' for i, r in enumerate(rows) for j, c in enumerate(r)
        )
        return f'<g transform="translate({x},{y})"><text x="0" y="0">{caption}</text>{body}</g>'
    body = "".join(f'<text x="{x + 10}" y="{y + 30 + 18 * i}">[{" ".join(r)}]</text>' for i, r in enumerate(rows))
    return (
        f'<text x="{x + 10}" y="{y}">{caption}</text>'
        f'<rect x="{x}" y="{y + 8}" width="200" height="{20 + 18 * len(rows)}"/>{body}'
    )


matrices = st.integers(2, 4).flatmap(
    lambda n: st.integers(2, 4).flatmap(
        lambda d: st.tuples(
            *(
                st.lists(
                    st.lists(st.integers(-9, 9).map(lambda v: v / 10), min_size=d, max_size=d), min_size=n, max_size=n
                )
                for _ in range(2)
            )
        )
    )
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    qk=matrices,
    layout=st.sampled_from(["brackets", "tspans", "grid", "cards"]),
    english=st.booleans(),
    causal=st.booleans(),
    scale=st.sampled_from([None, 2.0, 8.0]),
    digits=st.integers(2, 3),
    minus=st.sampled_from(["-", "−"]),
    transposed=st.booleans(),
)
def test_random_right_drawings_never_give_an_error(
    tmp_path, qk, layout, english, causal, scale, digits, minus, transposed
):
    q, k = (np.array(m) for m in qk)
    r = engine.attention(q, k, scale=None if scale is None else 1 / scale, causal=causal)
    words = (
        ["Query", "Key" + ("ᵀ" if transposed else ""), "Scores", "Weights"]
        if english
        else ["Q 矩阵", "K" + ("ᵀ" if transposed else "") + " 矩阵", "分数", "权重"]
    )
    how = "" if scale is None else (f" ÷ {scale:g}" if english else f"（除以 {scale:g}）")
    mask = (" causal" if english else "（因果掩码）") if causal else ""
    parts = [
        draw(layout, 20, 30, words[0], q, 1, minus),
        draw(layout, 300, 30, words[1], k.T if transposed else k, 1, minus),
        draw(layout, 20, 200, words[2], r.scores, digits, minus),
        draw(layout, 300, 200, words[3] + how + mask, r.weights, digits, minus),
    ]
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 400">{"".join(parts)}</svg>'
    shutil.rmtree(tmp_path / "v", ignore_errors=True)  # one folder for every example of the run
    lines, changes = run(vault_with(tmp_path, "d.svg", svg))
    assert not [line for line in lines if ": VK402 " in line], svg
    assert changes == []
    derivation = infer(read_svg(svg), "d.svg")  # the drawing was read, not passed over
    assert derivation.spec["mask"] == ("causal" if causal else "none") and not derivation.doubts, svg
    assert derivation.spec.get("scale", 1 / np.sqrt(q.shape[1])) == pytest.approx(r.scale)


# --- adopt: the implied example becomes a block in the note, on request only ---------------


def test_adopt_writes_the_implied_example_into_the_embedding_note(tmp_path, capsys):
    from vaultkit.commands.cli import main

    svg = (FIXTURES / "cards-caption-above.svg").read_text(encoding="utf-8")
    root = vault_with(
        tmp_path, "cards-caption-above.svg", svg, "# 两个词\n\n看图：\n![[cards-caption-above.svg]]\n\n## 下一节\n"
    )
    assert main(["fix", str(root)]) == 0
    assert "```vaultkit" not in (root / "note.md").read_text(encoding="utf-8")  # not without --adopt

    assert main(["fix", "--adopt", str(root)]) == 0
    note = (root / "note.md").read_text(encoding="utf-8")
    assert (
        "看图：\n![[cards-caption-above.svg]]\n\n```vaultkit\nid: cards-caption-above\nkind: attention\n"
        "tokens: [猫, 狗]\nQ: [[0.2, 0.4, -0.1, 0.3], [-0.5, 0.1, 0.6, 0.2]]\n" in note
    )
    assert "digits: 2\nfigure: cards-caption-above.svg\n```\n\n<!-- vaultkit:begin cards-caption-above -->" in note
    assert note.endswith("<!-- vaultkit:end cards-caption-above -->\n\n## 下一节\n")
    assert main(["check", str(root)]) == 0
    capsys.readouterr()

    # from now on the note is the source: a changed Q recomputes the drawing's numbers
    (root / "note.md").write_text(note.replace("Q: [[0.2, 0.4,", "Q: [[0.3, 0.4,"), encoding="utf-8")
    assert main(["check", str(root)]) == 1
    assert "example cards-caption-above" in capsys.readouterr().out
    assert main(["fix", str(root)]) == 0
    assert main(["check", str(root)]) == 0
    assert main(["fix", "--adopt", str(root)]) == 0  # a named drawing is not adopted twice
    assert (root / "note.md").read_text(encoding="utf-8").count("```vaultkit") == 1


def test_explain_lists_the_drawing_and_what_was_read(tmp_path, capsys):
    from vaultkit.commands.cli import main

    svg = (FIXTURES / "transposed-masked.svg").read_text(encoding="utf-8")
    root = vault_with(tmp_path, "t.svg", svg)
    assert main(["check", "--explain", str(root)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "t.svg:1: drawing error: example read from the drawing: Q 3×2, K 3×2, mask causal, "
        "scale 1/√d, 30 numbers checked, 2 wrong rows or numbers"
    )
    assert out[1] == "0 arithmetic claims read, 0 skipped; 1 drawings and figures read"


@pytest.mark.parametrize(
    "text, role",
    [
        ("Q", "Q"),
        ("**Q**", "Q"),
        ("K", "K"),
        ("Kᵀ", "K transposed"),
        ("K^T", "K transposed"),
        ("K 的转置", "K transposed"),
        ("V", "V"),
        ("W_Q", None),  # a weight matrix's name is no Q
        ("权重矩阵 W_Q", "other"),
        ("W_Q = 权重矩阵", "other"),
        ("softmax(QKᵀ/√d)", "weights"),
        ("weights = softmax(scores)", "weights"),
        ("scores", "scores"),
        ("logits", "scores"),
        ("Q·Kᵀ", "scores"),
        ("Scores = Q·Kᵀ", "scores"),
        ("W 权重矩阵 · scores", "scores"),
        ("QKᵀ / √d", "scaled"),
        ("scaled scores", "scaled"),
        ("scores = Q·Kᵀ / √d", "scaled"),
        ("masked scores", "masked"),
        ("no mask", None),
        ("causal", None),  # in a drawing it speaks of the whole derivation, not of one matrix
        ("output", "output"),
        ("context", "output"),
        ("out = weights · V", "output"),
        ("weights · V", "output"),
        ("softmax(QKᵀ/√d)·V", "output"),
        ("Q = X·W_Q", "Q"),
        ("scores = softmax(x)", "scores"),  # in `A = B` the A side is what is shown
        ("scores =/√2", "scaled"),
        ("权重矩阵 W_Q = scores", "scores"),  # a side that names model weights says nothing
    ],
)
def test_a_drawings_label_names_its_quantity(text, role):
    assert caption_role(text) == role


@pytest.mark.parametrize(
    "text, role",
    [
        ("Q：", "Q"),
        ("Kᵀ = …", "K transposed"),
        ("Keys (3×2)", "K"),
        ("Query (3×4)", "Q"),
        ("the Q matrix", None),  # in a note, the name opens the line
        ("权重", "plain weights"),
        ("注意力权重", "weights"),
        ("输出是", "output"),
        ("the output", None),
        ("causal mask", "masked"),
        ("因果", "masked"),
        ("scaled by /√d", None),
        ("weights · V", "plain weights"),  # a note: the line names weights, not a product it shows
        ("Output：", "output"),
        ("**Q：**", "Q"),
    ],
)
def test_a_notes_caption_line_names_its_quantity_only_from_its_start(text, role):
    assert caption_role(text, anchored=True) == role


def test_a_rows_own_label_is_a_derived_quantity_in_a_short_word():
    labels = ("分数", "weights", "scaled scores", "masked", "output", "我", "Q", None, "")
    assert [row_role(t) for t in labels] == ["scores", "weights", "scaled", "masked", "output", None, None, None, None]
    assert row_role("scores" + " " * 18) == "scores" and row_role("scores" + " " * 19) is None  # 24 characters at most


@pytest.mark.parametrize(
    "text, scales",
    [
        ("÷ √4", [0.5]),
        ("√(64)", [0.125]),
        ("除以 8", [0.125]),
        ("divided by 4", [0.25]),
        ("QKᵀ/√2 ÷ 2", [0.707106781187, 0.5]),
        ("√3", [0.57735026919]),
        ("√1 ÷ 1", [1.0, 1.0]),
        ("√0 ÷ 0", []),
    ],
)
def test_the_scales_a_text_states(text, scales):
    assert stated_scales(text) == scales


def _two_heads(scores_caption: str, scores) -> str:
    """Q and K of width 4 split into 2 heads of 2, and one block of scores (made like a hand-written note)."""
    q, k = [[1, 0, 2, 1], [0, 1, 1, 2]], [[1, 1, 0, 1], [2, 0, 1, 1]]
    parts = [
        draw("brackets", 20, 20, "Q", q, 0, "-"),
        draw("brackets", 220, 20, "K", k, 0, "-"),
        '<text x="20" y="110">split d = 4 into 2 heads of 2</text>',
        draw("brackets", 20, 150, scores_caption, scores, 0, "-"),
    ]
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 500 300">{"".join(parts)}</svg>'


def test_scores_of_a_named_head_are_computed_from_that_heads_columns(tmp_path):
    right = _two_heads("head 2 scores", [[1, 3], [2, 3]])  # columns 3–4 of Q and K
    assert [line for line in run(vault_with(tmp_path, "a.svg", right))[0] if " error: " in line] == []
    lines, _ = run(vault_with(tmp_path, "a.svg", _two_heads("head 2 scores", [[1, 4], [2, 3]])))
    assert [line.split(": ")[1].split()[0] for line in lines if " error: " in line] == ["VK402"]


def test_scores_of_heads_not_named_one_by_one_are_a_warning_not_an_error(tmp_path):
    lines, changes = run(vault_with(tmp_path, "a.svg", _two_heads("scores", [[1, 3], [2, 3]])))
    assert len(lines) == 1 and "VK403 warning" in lines[0] and "2 heads of 2" in lines[0] and not changes
