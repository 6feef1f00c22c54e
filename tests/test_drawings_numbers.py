"""The numbers a drawing states (dimensions, √d, weight counts, KV sizes, series, restated
results): read, listed, and a one-number slip in any of them is a finding on its line.

The slips are made in copies of the real vault's drawings (skipped when the corpus is absent);
the small drawings below are our own, made the way the person draws.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import CORPUS, needs_corpus
from vaultkit.checks import claims
from vaultkit.checks.drawings.numbers import check_numbers
from vaultkit.checks.examples.figures import check_drawing
from vaultkit.model.vault import Source
from vaultkit.readers.svgtext import read_svg

MHA = "Multi-Head-Attention.svg"
ARCH = "Transformer架构.svg"
DECODE = "推理两阶段PrefillDecode.svg"
RESIDUAL = "残差连接详解.svg"
SPLIT = "残差与主干的分工.svg"
DERIVED = "注意力矩阵推导.svg"
MOE = "MoE路由.svg"

# (drawing, text as drawn, the slip, fixed exactly): one number changed each time. `fixed`:
# True when one value is determined and `fix` must restore the drawing byte for byte; False
# when the finding must say so and leave the drawing alone (or the claims checker reports it).
SLIPS = [
    # shapes and head splits
    (MHA, "(S, 4096) → (S, 32, 128) → (32, S, 128)", "(S, 4096) → (S, 32, 64) → (32, S, 128)", True),
    (MHA, "(S, 4096) → (S, 32, 128) → (32, S, 128)", "(S, 4096) → (S, 32, 128) → (32, S, 64)", True),
    (MHA, "Head 16 (dim=128)", "Head 16 (dim=64)", True),
    (MHA, "32 个 Head 独立计算", "16 个 Head 独立计算", True),
    (MHA, "32 × (S,128) → 拼成 (S, 4096)", "32 × (S,128) → 拼成 (S, 2048)", True),
    (MHA, "32 × (S,128) → 拼成 (S, 4096)", "32 × (S,64) → 拼成 (S, 4096)", True),
    (MHA, "Attention 输出 (S, 4096)", "Attention 输出 (S, 1024)", True),
    (MHA, "为什么多头：32 个头", "为什么多头：16 个头", True),
    (ARCH, "Q(32,6,128) K(32,6,128)", "Q(32,6,64) K(32,6,128)", True),
    (ARCH, "Q(32,6,128) K(32,6,128)", "Q(32,6,128) K(32,8,128)", True),
    (ARCH, "Scores(32,6,6)", "Scores(32,6,8)", True),
    (ARCH, "Weights(32,6,6)", "Weights(16,6,6)", True),
    (ARCH, "↓ 合并 32 头", "↓ 合并 16 头", True),
    (ARCH, "输出 (6, 4096)", "输出 (6, 2048)", True),
    (ARCH, "4096→11008→4096", "4096→11008→2048", True),
    (ARCH, "4096→11008→4096", "4096→12008→4096", True),
    (ARCH, "LLaMA-7B: 32 层", "LLaMA-7B: 40 层", True),
    (ARCH, "重复 32 次", "重复 40 次", True),
    (DECODE, "Score(1,7)", "Score(1,6)", True),
    (DECODE, "Q(6,4096) × K^T(6,4096) → 6×6", "Q(6,4096) × K^T(6,4096) → 6×8", True),
    (DECODE, "Q_new(1,4096)", "Q_new(1,2048)", False),  # Q(6,4096) against Q_new(1,2048): which is meant?
    (DECODE, "输入 Prompt：6 个 token", "输入 Prompt：5 个 token", True),
    (DERIVED, "Q 矩阵 (4 token × 4 dim)", "Q 矩阵 (4 token × 3 dim)", True),
    (DERIVED, "这个 4×4 的注意力矩阵", "这个 4×3 的注意力矩阵", True),
    (DERIVED, "两个 4 维向量的点积", "两个 3 维向量的点积", True),
    (MOE, "选 Top-6 Expert", "选 Top-8 Expert", False),  # one against one: which is meant?
    # the scale
    (MHA, "Scores = Q₁₆K₁₆^T / √128", "Scores = Q₁₆K₁₆^T / √64", True),
    (ARCH, "Scores=QK^T/√128", "Scores=QK^T/√64", True),
    # weight counts
    (ARCH, "3×(4096→4096) = 50M", "3×(4096→4096) = 60M", True),
    (ARCH, "(11008→4096) = 45M", "(11008→4096) = 54M", True),
    (ARCH, "2×(4096→11008) = 90M", "2×(4096→11008) = 45M", True),
    (ARCH, "(4096→4096) = 17M", "(4096→4096) = 16M", True),
    # KV sizes: the claims reader's arithmetic, in the drawing's check; the model's dims here
    (DECODE, "(32 层, 32 头, 128 维, BF16)", "(32 层, 32 头, 64 维, BF16)", True),
    (DECODE, "(32 层, 32 头, 128 维, BF16)", "(32 层, 16 头, 128 维, BF16)", True),
    (DECODE, "× 2 bytes (BF16) = 16KB", "× 2 bytes (BF16) = 32KB", True),
    (DECODE, "32 × 16KB = 512KB", "32 × 16KB = 256KB", True),
    (DECODE, "512KB × 4096 ≈ 2.1 GB", "512KB × 4096 ≈ 4.2 GB", True),
    (DECODE, "32 头 × 128 维 × 2 (K+V)", "32 头 × 64 维 × 2 (K+V)", True),
    # series and restated results
    (RESIDUAL, "0.25 → 0.125 → 0.06", "0.25 → 0.135 → 0.06", True),
    (RESIDUAL, "2.25 → 3.38 → 5.06", "2.25 → 3.28 → 5.06", True),
    (RESIDUAL, "只剩 3%", "只剩 6%", True),
    (RESIDUAL, "5 层后", "6 层后", True),
    (RESIDUAL, "每层梯度缩放 0.5x", "每层梯度缩放 0.6x", True),
    (DERIVED, "注意力分数是 -0.10", "注意力分数是 -0.12", True),
    (SPLIT, "重新算出 13", "重新算出 14", True),
    (DERIVED, "[0.28 0.19 0.18 0.35]", "[0.28 0.19 0.18 0.31]", False),  # 每行加起来 = 1: which one is off?
    (SPLIT, "10 + 3 = 13", "10 + 3 = 14", True),  # the claims reader's, in the drawing's check
]


def _slipped(tmp_path, drawing: str, drawn: str, slip: str):
    original = (CORPUS / "assets" / drawing).read_text(encoding="utf-8")
    assert original.count(drawn) == 1, f"{drawn!r} is not once in {drawing}"
    path = tmp_path / drawing
    shutil.copy(CORPUS / "assets" / drawing, path)
    path.write_text(original.replace(drawn, slip), encoding="utf-8")
    first = next(i for i, (a, b) in enumerate(zip(drawn, slip)) if a != b)
    line = original[: original.index(drawn) + first].count("\n") + 1
    return original, path, line


def _check(path, rel: str):
    """The findings on a drawing (its numbers, its matrices and its arithmetic claims) and the text fix writes."""
    source = Source.read(path)
    model = read_svg(source.text)
    outcome = check_drawing(rel, path, source, model)
    found = list(outcome.diagnostics) if outcome else []
    found += claims.check_svg(model, rel).diagnostics
    fixed = outcome.new.decode("utf-8") if outcome and outcome.new is not None else source.text
    return found, fixed, outcome


@needs_corpus
@pytest.mark.parametrize(("drawing", "drawn", "slip", "fixed"), SLIPS, ids=[f"{s[0]}:{s[2]}" for s in SLIPS])
def test_a_one_number_slip_is_a_finding_on_its_line(tmp_path, drawing, drawn, slip, fixed):
    original, path, line = _slipped(tmp_path, drawing, drawn, slip)
    found, after, outcome = _check(path, f"assets/{drawing}")
    new = [d for d in found if d.code != "VK402"]  # the person's own wrong rows are reported apart
    assert any(d.line == line for d in new), [str(d) for d in found]
    slipped = original.replace(drawn, slip)
    unmodified = _check(CORPUS / "assets" / drawing, f"assets/{drawing}")[1]  # the person's wrong rows fixed
    said = [f for f in (outcome.fixes if outcome else []) if f.startswith("line ")]
    if fixed:
        assert after == unmodified, said
        assert said and all(f.startswith(f"line {line}: ") for f in said)
    else:  # several readings (or the claims checker's): the slip is left as written
        assert after == (slipped if unmodified == original else unmodified.replace(drawn, slip)) and not said


def test_there_are_thirty_slips_or_more():
    assert len(SLIPS) >= 30
    assert len({s[0] for s in SLIPS}) >= 7


@needs_corpus
@pytest.mark.parametrize(
    "drawing", sorted(p.name for p in (CORPUS / "assets").glob("*.svg")) if CORPUS.is_dir() else []
)
def test_the_unmodified_drawings_have_no_finding_on_their_numbers(drawing):
    source = Source.read(CORPUS / "assets" / drawing)
    report = check_numbers(read_svg(source.text), drawing)
    assert report.diagnostics == [] and report.edits == []


@needs_corpus
def test_every_kind_of_number_is_read_and_listed():
    """The inventory: each kind of number the person's drawings state is read and checked."""
    listed = {}
    for path in sorted((CORPUS / "assets").glob("*.svg")):
        model = read_svg(path.read_text(encoding="utf-8"))
        for entry in check_numbers(model, path.name).explained:
            listed.setdefault(path.name, []).append((entry.text.split(" in ")[0], entry.note))
    notes = [note for entries in listed.values() for _, note in entries]
    for kind in ("the heads", "the head dim", "the model width", "the tokens", "the layers", "the FFN width"):
        assert any(n.startswith(kind) for n in notes), kind
    assert any(n.startswith("weights 50,331,648 = 50M") for n in notes)
    assert any(n.startswith("decode step 1: 6 prompt tokens + 1 = 7") for n in notes)
    assert sum(n.startswith("step ") for n in notes) == 10  # the two series of five steps
    assert any("restates 13" in n for n in notes) and any("restates -0.10" in n for n in notes)
    assert sum(1 for entries in listed.values() for _ in entries) >= 110


def _drawing(*lines: str, cards: str = "") -> str:
    texts = "".join(f'<text x="20" y="{20 + 20 * i}">{line}</text>\n' for i, line in enumerate(lines))
    return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 600 400">\n{cards}{texts}</svg>\n'


def test_heads_times_head_dim_must_give_the_width():
    svg = _drawing("输入 (S, 1024)", "拆成 16 头，每头 dim=64", "16 × (S,64) → (S, 1024)", "输出 (S, 1024)")
    assert check_numbers(read_svg(svg), "a.svg").diagnostics == []
    wrong = svg.replace("每头 dim=64", "每头 dim=32").replace("16 × (S,64)", "16 × (S,32)")
    found = check_numbers(read_svg(wrong), "a.svg").diagnostics
    assert [d.code for d in found] == ["VK441"] and "16 heads × head dim 32 = 512" in found[0].message


def test_two_readings_are_reported_and_left_alone():
    svg = _drawing("Q(8,10,64)", "K(8,10,32)")
    report = check_numbers(read_svg(svg), "a.svg")
    assert [(d.code, d.line) for d in report.diagnostics] == [("VK440", 2), ("VK440", 3)] and report.edits == []
    assert all("does not settle" in d.message for d in report.diagnostics)


def test_a_model_the_drawing_names_settles_a_single_mention():
    svg = _drawing("LLaMA-7B: 40 层")
    report = check_numbers(read_svg(svg), "a.svg")
    assert [d.code for d in report.diagnostics] == ["VK440"]
    assert report.fixed(svg) == svg.replace("40 层", "32 层")
    assert check_numbers(read_svg(_drawing("LLaMA-70B: 80 层", "Llama-13B: 40 层")), "a.svg").diagnostics == []


def test_a_series_follows_the_factor_stated_above_it():
    svg = _drawing("每步乘 0.8x", "1.0 → 0.8 → 0.64 → 0.51 → 0.41")
    assert check_numbers(read_svg(svg), "a.svg").diagnostics == []
    report = check_numbers(read_svg(svg.replace("0.64", "0.66")), "a.svg")
    assert [d.code for d in report.diagnostics] == ["VK444"]
    assert report.fixed(svg.replace("0.64", "0.66")) == svg
    no_factor = _drawing("1.0 → 2.0 → 4.0 → 8.0 → 16.0")
    assert check_numbers(read_svg(no_factor), "a.svg").diagnostics == []
    assert (
        check_numbers(read_svg(no_factor.replace("8.0", "9.0")), "a.svg").fixed(no_factor.replace("8.0", "9.0"))
        == no_factor
    )


def test_numbers_that_are_not_a_drawings_dimensions_stay_quiet():
    """Counts of other things, hypothetical depths and a single new token are no mentions to compare."""
    svg = _drawing(
        "100 层网络训不了，1000 层也一样",
        "每次只生成 1 个 token",
        "输入 6 个 token",
        "Q_new(1,4096)",
        "(S, 4096)",
        "前 3 个缺陷，后 5 个缺陷",
    )
    report = check_numbers(read_svg(svg), "a.svg")
    assert report.diagnostics == []


def test_bars_said_to_sum_to_one_must_within_their_rounding():
    bars = "".join(f'<text x="{40 + 60 * i}" y="200">{p}</text>' for i, p in enumerate(("0.42", "0.31", "0.25")))
    svg = f'<svg xmlns="http://www.w3.org/2000/svg"><text x="60" y="240">softmax: Σ = 1</text>{bars}</svg>'
    report = check_numbers(read_svg(svg), "a.svg")
    assert [d.code for d in report.diagnostics] == ["VK446"] and report.edits == []
    assert "0.42 + 0.31 + 0.25 = 0.98, not 1" in report.diagnostics[0].message
    assert check_numbers(read_svg(svg.replace("0.25", "0.27")), "a.svg").diagnostics == []
    four = svg.replace("</svg>", '<text x="220" y="200">0.02</text></svg>').replace("0.25", "0.23")
    assert check_numbers(read_svg(four), "a.svg").diagnostics == []  # 0.98 + 0.02: one more bar, still 1


def test_grouped_query_attention_shares_match_the_heads():
    svg = _drawing("32 query heads", "8 KV heads", "each KV head shared by 4")
    assert check_numbers(read_svg(svg), "a.svg").diagnostics == []
    found = check_numbers(read_svg(svg.replace("shared by 4", "shared by 2")), "a.svg").diagnostics
    assert [d.code for d in found] == ["VK441"] and "16 query heads, not 32" in found[0].message
    uneven = check_numbers(read_svg(_drawing("num_heads = 32", "num_kv_heads = 6")), "a.svg").diagnostics
    assert [d.code for d in uneven] == ["VK441"]


def test_named_dimensions_in_english():
    assert check_numbers(read_svg(_drawing("h = 12", "d_k = 64", "d_model = 768")), "a.svg").diagnostics == []
    found = check_numbers(read_svg(_drawing("h = 12", "d_k = 64", "d_model = 512")), "a.svg").diagnostics
    assert [d.code for d in found] == ["VK441"]
    assert check_numbers(read_svg(_drawing("h = 12", "d_k = 768/12 = 64")), "a.svg").diagnostics == []


RIGHT_DRAWINGS = [
    # a GPT-2 style block, in English
    _drawing(
        "GPT-2 small: n_layer = 12, n_head = 12, d_model = 768",
        "x: (B, T, 768) → qkv = Linear(768, 2304)",
        "q: (B, 12, T, 64), k: (B, 12, T, 64)",
        "att = q @ k.T / √64",
        "MLP: 768 → 3072 → 768",
        "c_fc weights: (768→3072) = 2.36M",
        "X (6, 768) → Q (6, 64) for one head",
    ),
    # decode steps: the cache grows by one each step
    _drawing("prompt: 5 tokens", "Step 1: Q_new × K^T → Score(1,6)", "Step 2: Score(1,7)", "Step 3: Score(1,8)"),
    # grouped-query attention of a 70B model
    _drawing("Llama-2-70B: 80 层, 64 query heads, 8 KV heads", "8 query heads share one KV head", "(S, 8192)"),
    # a softmax drawn as bars, a series without a stated factor, a count of things that is no dimension
    _drawing("1 → 2 → 4 → 8 → 16", "生成 10 个 token 后停止", "BERT-base：12 层，12 头，hidden 768")
    + "".join(f'<text x="{300 + 50 * i}" y="100">{p}</text>' for i, p in enumerate(("0.62", "0.23", "0.10", "0.05")))
    + '<text x="300" y="130">Σ = 1</text>',
    # a mixture of experts
    _drawing("256 个专家，每 token 激活 8 个", "Top-8 路由", "Expert 0 … Expert 255"),
]


@pytest.mark.parametrize("svg", RIGHT_DRAWINGS)
def test_right_drawings_in_other_styles_give_no_finding(svg):
    svg = svg.replace("</svg>\n<text", "<text").replace("Σ = 1</text>", "Σ = 1</text></svg>", 1)
    report = check_numbers(read_svg(svg), "a.svg")
    assert report.diagnostics == [] and report.read > 0, [e.note for e in report.explained]


def test_each_decode_step_attends_to_one_more_cached_token():
    svg = RIGHT_DRAWINGS[1]
    report = check_numbers(read_svg(svg.replace("Score(1,8)", "Score(1,9)")), "a.svg")
    assert [(d.code, d.line) for d in report.diagnostics] == [("VK441", 5)]
    assert report.fixed(svg.replace("Score(1,8)", "Score(1,9)")) == svg


def _weight_grid(rows: list[list[str]], caption: str = "注意力权重", dy: float = 50) -> str:
    """A weight grid the way people type one: a caption at the top left, the tokens as column and
    row headers, each number its own text, rows further apart than a few font sizes."""
    tokens = ["我", "爱", "吃", "鱼"]
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" font-size="12">', f'<text x="20" y="20">{caption}</text>']
    parts += [f'<text x="{100 + 90 * j}" y="50" text-anchor="middle">{t}</text>' for j, t in enumerate(tokens)]
    for i, row in enumerate(rows):
        y = 50 + dy * (i + 1)
        parts.append(f'<text x="50" y="{y}" text-anchor="middle">{tokens[i]}</text>')
        parts += [f'<text x="{100 + 90 * j}" y="{y}" text-anchor="middle">{v}</text>' for j, v in enumerate(row)]
    return "\n".join(parts + ["</svg>"])


WEIGHTS = [["1.00", "0.00", "0.00", "0.00"], ["0.40", "0.60", "0.00", "0.00"], ["0.20", "0.30", "0.50", "0.00"]]
WEIGHTS += [["0.10", "0.20", "0.30", "0.40"]]


def test_a_weight_grid_with_headers_is_read_as_the_weights_its_caption_names():
    from vaultkit.checks.drawings.inferred import why_not

    model = read_svg(_weight_grid(WEIGHTS))
    assert why_not(model) == "no matrix labelled Q and K (read: weights 4×4)"  # not 16 lone numbers
    report = check_numbers(model, "a.svg")
    assert report.diagnostics == [] and len(report.explained) == 4  # each row: a softmax, listed


def test_a_weight_row_that_does_not_sum_to_one_is_a_finding_on_its_row():
    rows = [list(r) for r in WEIGHTS]
    rows[2][1] = "0.40"
    svg = _weight_grid(rows)
    report = check_numbers(read_svg(svg), "a.svg")
    [d] = report.diagnostics
    assert d.code == "VK446" and "row 3 (吃) of the weights is 0.20 + 0.40 + 0.50 + 0.00 = 1.1, not 1" in d.message
    assert svg.split("\n")[d.line - 1].endswith(">0.20</text>") and report.edits == []  # which cell: not known


def test_a_grid_that_is_mostly_not_distributions_is_no_weight_rows_finding():
    rows = [["0.50", "0.50", "0.50", "0.50"]] * 3 + [WEIGHTS[3]]
    assert check_numbers(read_svg(_weight_grid(rows)), "a.svg").diagnostics == []
    assert check_numbers(read_svg(_weight_grid(WEIGHTS, caption="Scores")), "a.svg").explained == []


def _texts(*lines: str) -> str:
    body = "".join(f'<text x="10" y="{20 + 20 * i}">{t}</text>\n' for i, t in enumerate(lines))
    return f'<svg xmlns="http://www.w3.org/2000/svg">\n{body}</svg>'


@pytest.mark.parametrize(
    "right, wrong, fixed_to",
    [
        (("0.45 × [1, 0] = [0.45, 0]",), ("0.45 × [1, 0] = [0.55, 0]",), "0.45"),
        (
            ("0.45 × [1, 0] + 0.55 × [0, 2]", "= [0.45, 1.10]"),
            ("0.45 × [1, 0] + 0.55 × [0, 2]", "= [0.45, 1.20]"),
            "1.10",
        ),
        (
            ("0.45×[1,0] + 0.55×[0,2] = [0.45, 0] + [0, 1.10]",),
            ("0.45×[1,0] + 0.55×[0,2] = [0.45, 0] + [0, 1.30]",),
            "1.10",
        ),
        (("0.45 × [1, 0] + 0.55 × [0, 2] = [0.45, 1.10]",), ("0.45 × [1, 0] + 0.55 × [0, 2] = [0, 1.10]",), "0.45"),
    ],
)
def test_a_weighted_sum_written_as_vectors_is_checked_component_by_component(right, wrong, fixed_to):
    report = check_numbers(read_svg(_texts(*right)), "a.svg")
    assert report.diagnostics == [] and report.explained
    svg = _texts(*wrong)
    report = check_numbers(read_svg(svg), "a.svg")
    [d] = report.diagnostics
    changed = [n for n, (a, b) in enumerate(zip(svg.split("\n"), _texts(*right).split("\n")), 1) if a != b]
    assert d.code == "VK445" and [d.line] == changed  # on the line of the wrong number
    assert report.fixed(svg) == _texts(*right) and report.fixes[0].endswith(f"→ {fixed_to}")


def test_a_wrong_product_does_not_make_the_result_after_it_wrong():
    svg = _texts("0.45×[1,0] + 0.55×[0,2] = [0.45, 0] + [0, 1.30] = [0.45, 1.10]")
    [d] = check_numbers(read_svg(svg), "a.svg").diagnostics
    assert "written 1.30; 0.55 × [0, 2] gives [0, 1.1]" in d.message  # the total [0.45, 1.10] is right
    wrong_sum = _texts("[0.45, 0] + [0, 1.10] = [0.45, 1.30]")
    assert check_numbers(read_svg(wrong_sum), "a.svg").diagnostics == []  # no weight: not a weighted sum


@pytest.mark.parametrize("right", ["−log(0.7) = 0.357", "loss = -ln 0.25 = 1.386", "−log₂ 0.5 = 1", "-log(0.01) = 2"])
def test_a_cross_entropy_term_that_fits_a_reading_of_its_log_stands(right):
    report = check_numbers(read_svg(_texts(right)), "a.svg")
    assert report.diagnostics == [] and len(report.explained) == 1


@pytest.mark.parametrize(
    "wrong, right",
    [
        ("−log(0.7) = 0.367", "−log(0.7) = 0.357"),
        ("−ln 0.25 = 1.286", "−ln 0.25 = 1.386"),
        ("−log₂ 0.5 = 2", "−log₂ 0.5 = 1"),
    ],
)
def test_a_cross_entropy_term_off_in_a_digit_is_found_and_fixed(wrong, right):
    svg = _texts(wrong)
    report = check_numbers(read_svg(svg), "a.svg")
    [d] = report.diagnostics
    assert d.code == "VK445" and d.line == 2 and report.fixed(svg) == _texts(right)


def test_a_cross_entropy_term_far_from_every_reading_is_reported_and_left_alone():
    report = check_numbers(read_svg(_texts("-log(0.42) = 0.97")), "a.svg")
    [d] = report.diagnostics
    assert "−ln 0.42 is 0.87 (log₂: 1.25, log₁₀: 0.38)" in d.message and report.edits == []


# KV sizes as drawings write them (the lines of tests/fixtures/drawings-held2's excalidraw-gqa,
# inkscape-kv-cache and hand-memory-zh, in other words): `2 B` is two bytes in a size, a line that
# opens with `×` multiplies the result above it, a count's label may run to several words.
KV_RIGHT = (
    "GQA: 32 query heads, 8 KV heads",
    "KV per layer: 2 × 8 × 128 × 2 B = 4 KB",
    "× 32 layers = 128 KB per token",
    "× 4096 tokens of context = 512 MB",
    "so the cache costs 128 KB for every token",
)


@pytest.mark.parametrize(
    "line, wrong",
    [
        (1, "KV per layer: 2 × 8 × 128 × 2 B = 8 KB"),
        (2, "× 32 layers = 256 KB per token"),
        (3, "× 4096 tokens of context = 1024 MB"),
        (4, "so the cache costs 1 MB for every token"),
    ],
)
def test_a_kv_size_slip_in_a_drawing_is_found_on_its_line_and_fixed(line, wrong):
    right = _texts(*KV_RIGHT)
    assert check_numbers(read_svg(right), "a.svg").diagnostics == []
    svg = _texts(*(wrong if n == line else t for n, t in enumerate(KV_RIGHT)))
    report = check_numbers(read_svg(svg), "a.svg")
    [d] = report.diagnostics  # the line after a wrong one is not judged by its wrong result
    assert d.code == ("VK445" if line == 4 else "VK447") and d.line == line + 2
    assert report.fixed(svg) == right


def test_a_size_of_binary_and_decimal_readings_is_fixed_to_the_one_its_digits_need():
    right = _texts(
        "每层 KV：32 头 × 128 维 × 2 × 2 bytes = 16KB", "32 层 × 16KB = 512KB / token", "512KB × 4096 ≈ 2.1 GB"
    )
    for wrong in ("= 32KB", "= 256KB", "≈ 4.2 GB"):
        old = {"= 32KB": "= 16KB", "= 256KB": "= 512KB", "≈ 4.2 GB": "≈ 2.1 GB"}[wrong]
        svg = right.replace(old, wrong)
        report = check_numbers(read_svg(svg), "a.svg")
        assert [d.code for d in report.diagnostics] == ["VK447"] and report.fixed(svg) == right


def test_a_shape_product_and_a_count_in_a_drawing_are_the_claims_readers():
    right = _texts("decode step: 6 tokens cached + 1 new = 7", "weights (1, 7) · V (7, 128) = out (1, 128)")
    assert check_numbers(read_svg(right), "a.svg").diagnostics == []
    for old, new in (("= 7", "= 8"), ("out (1, 128)", "out (1, 7)")):
        svg = right.replace(old, new)
        report = check_numbers(read_svg(svg), "a.svg")
        assert [d.code for d in report.diagnostics] == ["VK447"] and report.fixed(svg) == right


def test_a_named_dim_without_a_sign_and_the_width_the_heads_give_settle_a_slip():
    svg = _texts("Llama-2-7B: 32 layers, d_model 4096, 32 heads, head_dim 64")
    report = check_numbers(read_svg(svg), "a.svg")
    assert [d.code for d in report.diagnostics] == ["VK440"] and "head_dim 128" in report.fixed(svg)
    svg = _texts("Q(32,6,128) → 拼成 (6, 2048)", "FFN 上投影：(4096→11008) = 45M 参数")
    report = check_numbers(read_svg(svg), "a.svg")
    assert [d.line for d in report.diagnostics] == [2] and "(6, 4096)" in report.fixed(svg)


def test_a_drawings_wrong_arithmetic_is_one_finding(tmp_path):
    from vaultkit.model.vault import Vault
    from vaultkit.pipeline import Pipeline

    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "x.svg").write_text(_texts("KV: 32 头 × 128 维 × 2 × 2 bytes = 32KB"), encoding="utf-8")
    (tmp_path / "note.md").write_text("# N\n\n![[x.svg]]\n", encoding="utf-8")
    found = [d for d in Pipeline(Vault.load(tmp_path)).report()[0].diagnostics if d.path == "assets/x.svg"]
    assert [d.code for d in found] == ["VK447"]


# A halving series, two running sums and a restatement (tests/fixtures/drawings-held2's
# hand-series-zh, in other words).
SERIES_RIGHT = (
    "1.0 → 0.5 → 0.25 → 0.125",
    "10 + 3 = 13",
    "13 + 3 = 16",
    "最后重新算出 16 个",
    "只剩 12.5%（0.125 / 1.0）",
)


@pytest.mark.parametrize(
    "line, wrong, code",
    [
        (0, "1.0 → 0.5 → 0.3 → 0.125", "VK444"),
        (3, "最后重新算出 17 个", "VK445"),
        (1, "10 + 3 = 14", "VK447"),
        (4, "只剩 25%（0.125 / 1.0）", "VK445"),
    ],
)
def test_an_exact_series_and_the_last_of_several_sums_are_held_to_what_they_restate(line, wrong, code):
    right = _texts(*SERIES_RIGHT)
    assert check_numbers(read_svg(right), "a.svg").diagnostics == []
    svg = _texts(*(wrong if n == line else t for n, t in enumerate(SERIES_RIGHT)))
    report = check_numbers(read_svg(svg), "a.svg")
    assert [(d.code, d.line) for d in report.diagnostics] == [(code, line + 2)]
    assert report.fixed(svg) == right


@pytest.mark.parametrize("series", ["1 → 0.5 → 0.25 → 0.13", "2.25 → 3.38 → 5.06 → 7.59", "0.25 → 0.125 → 0.06"])
def test_a_series_rounded_as_written_stands(series):
    assert check_numbers(read_svg(_texts(series)), "a.svg").diagnostics == []


def _drawio(*labels: str) -> str:
    """Labels as draw.io exports them: an HTML div in a foreignObject, a `<text>` fallback beside it."""
    cells = "".join(
        f'<switch><foreignObject width="100%" height="100%"><div xmlns="http://www.w3.org/1999/xhtml" '
        f'style="width: 158px; padding-top: {30 + 40 * i}px; margin-left: 11px;"><div>{t}</div></div>'
        f'</foreignObject><text x="90" y="{34 + 40 * i}" font-size="12px">{t}</text></switch>\n'
        for i, t in enumerate(labels)
    )
    return f'<svg xmlns="http://www.w3.org/2000/svg">\n{cells}</svg>'


def test_a_fix_in_a_drawio_label_rewrites_both_of_its_copies():
    right = _drawio("Q (32, 6, 128)", "K (32, 6, 128)", "V (32, 6, 128)")
    svg = right.replace("Q (32, 6, 128)", "Q (32, 6, 64)")
    report = check_numbers(read_svg(svg), "a.svg")
    assert [d.code for d in report.diagnostics] == ["VK440"] and report.fixed(svg) == right


CACHE_AFTER_STEPS = _drawing(
    "prefill: 4 prompt tokens",
    "decode step 1: Score (1, 5)",
    "decode step 2: Score (1, 6)",
    "after step 2 the cache holds 6 tokens",
)


def test_the_cache_after_a_step_holds_the_prompt_and_the_steps():
    """A count after a decode step is the prompt's tokens plus the steps, not the prompt's count
    (a draw.io decode drawing, tests/fixtures/drawings-held3/drawio-decode-steps.svg: 5 + 3 = 8 was
    reported as "the drawing says 5" and `fix` rewrote the right 8)."""
    report = check_numbers(read_svg(CACHE_AFTER_STEPS), "a.svg")
    assert report.diagnostics == []
    assert any("decode step 2: 4 prompt tokens + 2 = 6 cached" in e.note for e in report.explained)
    wrong = CACHE_AFTER_STEPS.replace("holds 6 tokens", "holds 7 tokens")
    report = check_numbers(read_svg(wrong), "a.svg")
    [d] = report.diagnostics
    assert "has 6 cached tokens, written 7" in d.message
    assert report.fixed(wrong) == CACHE_AFTER_STEPS
    lower = CACHE_AFTER_STEPS.replace("Score (1, 6)", "Score (1, 7)")  # a lower-case `step` is a step
    assert [d.code for d in check_numbers(read_svg(lower), "a.svg").diagnostics] == ["VK441"]


def test_a_decode_steps_single_query_token_is_not_the_prompts_length():
    svg = _drawing(
        "prompt: 5 tokens",
        "step 1: q (8, 1, 64)",
        "scores (8, 1, 6)",
        "step 2: q (8, 1, 64)",
        "scores (8, 1, 7)",
        "after step 2 the cache holds 7 tokens",
    )
    assert check_numbers(read_svg(svg), "a.svg").diagnostics == []
    wrong = svg.replace("holds 7 tokens", "holds 8 tokens")
    report = check_numbers(read_svg(wrong), "a.svg")
    assert [d.code for d in report.diagnostics] == ["VK441"] and report.fixed(wrong) == svg


def test_a_group_of_query_heads_is_a_group_size_not_the_head_count():
    svg = _drawing(
        "6 query heads of dim 4, one token",
        "GQA: 3 groups of 2 query heads → 2 × 3 × 4 = 24 numbers",
    )
    assert check_numbers(read_svg(svg), "a.svg").diagnostics == []


def test_heads_of_a_stated_size_give_the_head_dim_the_scale_must_use():
    svg = _drawing("split d = 8 into 2 heads of 4", "each head's scores / √4")
    assert check_numbers(read_svg(svg), "a.svg").diagnostics == []
    wrong = check_numbers(read_svg(svg.replace("√4", "√8")), "a.svg").diagnostics
    assert wrong and all(d.code in ("VK440", "VK442") for d in wrong)
