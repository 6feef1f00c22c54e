"""A finding is an error only when no fair reading makes the line right (issue 39).

Each case is a fixture line in our own words with the numbers and shape of a real line, cited
(repository, commit, path:line) where it was seen; each would fail without the change it pins:
symbols read as variables, scale words, a result followed by a step, a factor written with its
unit, a sentence end glued to Chinese, LaTeX spacing and fractions, a conversion done in the
head, carried rounding, `≈` within the precision written, a quotient floored by hand, odd
precedence (a warning, VK304), and the binary reading said in `--explain`."""

from __future__ import annotations

import pytest

from vaultkit.checks.claims import DESIGN_SIZE, check_markdown
from vaultkit.checks.claims.parser import SYMBOLIC

OK, SKIP = "ok", "skipped"


def _read(line: str) -> tuple[list[str], list[tuple[str, str]]]:
    report = check_markdown(line, "n.md")
    assert len(report.explained) == report.verified + report.skipped
    return [d.code for d in report.diagnostics], [(e.verdict, e.note) for e in report.explained]


@pytest.mark.parametrize(
    "line",
    [
        # wsm000/mlsys-learning-notes 3b366bdf task1_rmsnorm_swiglu_learning_notes.md:75 (`3dh = 8d²`)
        "两个矩阵相等时 8d² = 3dh，所以 h = 8d/3",
        # SDcodehub/SDcodehub.github.io 6496a437 _posts/2025-10-20-transformer-lm-resource-accounting.md:67
        "Projection FLOPs: $3 \\times (2T D^2) = 15,728,640,000$ per block",
        # issue 39's own examples
        "$4DH / (4DH + 8DH) = 1/3$",
        "$3 \\times 2sh^2 + 2sh^2 = 8sh^2$",
    ],
)
def test_symbols_are_variables_not_numbers(line):
    codes, entries = _read(line)
    assert codes == [] and (SKIP, SYMBOLIC) in entries


def test_a_unit_in_latex_text_is_still_a_unit():
    codes, entries = _read("$2 \\times 8 \\text{ GB} = 16 \\text{ GB}$")
    assert codes == [] and entries[0][0] == OK


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # bigscience-workshop/bigscience 9e64edec math/README.md:13 (~31 days)
        ("Time: `(200 billion)*(6*7 billion)/(128*50*1 trillion *60*60*24) ≈ 15 days`", []),
        ("Time: `(200 billion)*(6*7 billion)/(128*50*1 trillion *60*60*24) ≈ 45 days`", ["VK301"]),
    ],
)
def test_scale_words(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # bigscience-workshop/bigscience 9e64edec train/tr11-176B-ml/chronicles-prequel.md:75
        ("- word embeddings: `32000*8192 = 262_144_000 / 8` (TP=8) => 32_768_000 each", []),
        ("- word embeddings: `32000*8192 = 252_144_000 / 8` (TP=8) => 31_518_000 each", ["VK301"]),
    ],
)
def test_a_result_followed_by_a_step(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # SDcodehub/SDcodehub.github.io 6496a437 _posts/2025-10-20-transformer-lm-resource-accounting.md:58
        ("$1,073,741,824 \\times 4 \\text{ bytes} / (1024^3 \\text{ GB}) = 4 \\text{ GB}$ of weights", []),
        ("$1,073,741,824 \\times 4 \\text{ bytes} / (1024^3 \\text{ GB}) = 8 \\text{ GB}$ of weights", ["VK301"]),
    ],
)
def test_a_factor_written_with_the_unit_it_converts_to(line, codes):
    assert _read(line)[0] == codes


def test_a_sentence_end_glued_to_chinese():
    # SingularGuyLeBorn/Awesome-CS336-NoteForEveryone 8a7f438c NoteByHuman/Lecture2/Lecture2-Main.md:32
    codes, entries = _read("粗算 40*1024*1024/8≈40B.这里没算激活")
    assert codes == ["VK301"], entries


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # issue 39: inline math glued to Chinese text, `\times` with a space on one side only
        ("耗时为 $8\\times 4096^2\\times 256/312e12 = 110us$。", []),
        ("耗时为 $8\\times 4096^2\\times 256/312e12 = 344us$。", ["VK301"]),
        # display LaTeX with a fraction whose parts are products
        ("$$\\frac{2 \\times 7 \\times 10^9}{2 \\times 10^{12}} \\approx 0.007$$", []),
        ("$$\\frac{2 \\times 7 \\times 10^9}{2 \\times 10^{12}} \\approx 0.07$$", ["VK301"]),
        ("$$\\dfrac{6 \\cdot 4}{3} \\simeq 8$$", []),
    ],
)
def test_latex_is_read_as_written(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("训练要 3.15e8 s / 86400 / 365 ≈ 10 years", []),
        ("训练要 3.15e8 s / 86400 / 365 ≈ 30 years", ["VK301"]),
        ("94,608,000 s = 3 years", []),
    ],
)
def test_a_conversion_done_in_the_head(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # issue 39: an input rounded from the value written just before it
        ("每层 = 0.00043 → 0.0004 × 2 = 0.0009 GB", []),
        ("每层 = 0.00043 → 0.0004 × 2 = 0.0012 GB", ["VK301"]),
    ],
)
def test_carried_rounding(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("延迟 1.43 / 0.3 ≈ 4 us", ["VK302"]),  # 4.77: within a unit, not within its rounding
        ("延迟 1.43 / 0.3 ≈ 5 us", []),
        ("延迟 1.43 / 0.3 ≈ 7 us", ["VK301"]),
    ],
)
def test_approximately_means_within_the_precision_written(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("每组 256 / 144 = 1", ["VK304"]),  # floored by hand, but nothing says so
        ("每组 256 / 144 = 1（向下取整）", []),
        ("groups: floor(256 / 144) ... 256 / 144 = 1 whole number", []),
        ("每组 256 / 144 = 3", ["VK301"]),
    ],
)
def test_a_quotient_floored_by_hand(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # issue 39: the text says the divisor is 2 × 2
        ("切分后每卡 16*20*28 / 2*2 = 2240", ["VK304"]),
        ("切分后每卡 16*20*28 / 2*2 = 8960", []),
        ("切分后每卡 16*20*28 / 2*2 = 224", ["VK301"]),  # right under no reading
    ],
)
def test_odd_precedence_is_a_warning(line, codes):
    assert _read(line)[0] == codes


def test_the_binary_reading_is_said():
    codes, entries = _read("62 GB / 2 MB = 31,744 blocks")
    assert codes == [] and entries == [(OK, "computed 31,744; read with K, M, G as powers of two (1 GB = 2³⁰ bytes)")]
    assert _read("62 GB / 2 MB = 31,000 blocks")[1][0] == (OK, "computed 31,000")
    assert _read("62 GB / 2 MB = 25,088 blocks")[0] == ["VK301"]  # neither reading


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("Each card has 80GB, so a node holds `8 * 80 = 640GB`", []),  # the sentence's unit
        ("Each card has 80GB, so a node holds `8 * 80 = 6400GB`", ["VK301"]),
        ("2 × 3 = 6000 GB", ["VK301"]),  # a 1000× slip fails every reading
        ("2 h × 60^2 = 7200 s", []),
        ("2 h × 60^2 = 720 s", ["VK301"]),
        ("5 GiB × 2^30 = 5368709120 bytes", []),
        ("5 GiB × 2^30 = 5000000000 bytes", ["VK301"]),
        ("8 卡 (4 台) × 80 GB = 640 GB", []),
        ("8 卡 (4 台) × 80 GB = 320 GB", ["VK301"]),
        ("100/s × 60 s = 6000", []),
        ("100/s × 60 s = 600", ["VK301"]),
    ],
)
def test_pinned_units(line, codes):
    assert _read(line)[0] == codes


def test_a_line_ending_in_a_rate_slash():
    codes, entries = _read("每卡 80 GB，8 × 80 = 640 GB/")
    assert codes == [] and entries == [(SKIP, "value runs into more arithmetic")]


# chberclaz/MyPT dc62a0ca docs/model/TOKENIZATION_COMPARISON.md:32-37 (five parts, then `Total: ~40.0M`)
PARTS = """\
Small model (vocab 32,000):
├── embeddings:   32,000 × 512 = 16,384,000
├── positions:       1024 × 512 =    524,288
├── layers:   8 × 12 × 512² = 25,165,824
└── head:         512 × 32,000 = 16,384,000
    Total:                          ~{total} parameters
"""


@pytest.mark.parametrize(("total", "codes"), [("58.5M", []), ("40.0M", ["VK301"])])
def test_a_total_written_under_its_parts(total, codes):
    report = check_markdown(PARTS.format(total=total), "n.md")
    assert [(d.line, d.code) for d in report.diagnostics] == [(6, code) for code in codes]
    assert any(e.line == 6 and e.text.startswith("the sum of the 4 lines above") for e in report.explained)


def test_a_total_after_a_blank_line_and_not_after_a_gap():
    # chberclaz/MyPT dc62a0ca docs/training/PARAMETER_CALCULATION.md:148-155 (a blank line before `Total: =`)
    text = "a: 2 × 3 = 6\nb: 4 × 5 = 20\n\nTotal: = 26\n"
    assert check_markdown(text, "n.md").diagnostics == []
    assert check_markdown(text.replace("= 26", "= 36"), "n.md").diagnostics[0].line == 4
    gap = "a: 2 × 3 = 6\nb: 4 × 5 = 20\n\nsome words\n\nTotal: = 36\n"
    assert check_markdown(gap, "n.md").diagnostics == []  # not under its parts: not read


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # muarshad01/LLM f29076d5 Notes/lecture28_notes.md:28,30,37 (parameter counts in millions,
        # the word left off); :22 is 39.4 million written 38.4: wrong in millions too
        ("QKV weights: 3 x 768 x 768 = 1.77", []),
        ("output head: 768 x 768 = 0.59", []),
        ("feed-forward: 768 X (4 x 768) + 768 x (4 x 768) = 4.72", []),
        ("embeddings: (50,257 x 768) + (1,024 x 768) = 38.4", ["VK301"]),
        ("head: 768 x 768 = 0.89", ["VK301"]),
        # an integer claims what it says; a unit written everywhere fixes the scale
        ("pages: 1024 x 1024 = 1048", ["VK301"]),
        # jianbangzhang/AI_PARALLELS_5D 736a4856 docs/00-introduction.md:59 (1000× too small)
        ("训练时间: 3.14×10²³ / (312×10¹²) = 1,006,410 s", ["VK301"]),
    ],
)
def test_a_scale_left_off_a_bare_result(line, codes):
    assert _read(line)[0] == codes


def test_the_scale_left_off_is_said():
    codes, entries = _read("QKV weights: 3 x 768 x 768 = 1.77")
    assert entries == [(OK, "computed 1.769472 (millions); read with the result in millions, its scale left off")]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # muarshad01/LLM f29076d5 Notes/lecture28_notes.md:47 (`= 38.4 Million` for 38.6 million)
        ("softmax layer: 50,257 x 768 = 38.4 Million", ["VK301"]),
        ("softmax layer: 50,257 x 768 = 38.6 Million", []),
        ("in all: 2 x 3 Billion = 6 Billion", []),
    ],
)
def test_scale_words_capitalised(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # XueSongTap/XueSongTap.github.io 145117fc _posts/2026/03/2026-03-22-amp-mixed-precision.md:113
        ("| 权重 | BF16 | 7B × 2B = **14 GB** |", []),
        ("| 权重 | BF16 | 7B × 2B = **28 GB** |", ["VK301"]),
        ("| 权重 | FP32 | 7B × 4B = 28 GB |", []),
    ],
)
def test_b_is_billions_on_one_operand_and_bytes_on_another(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        # bearbearyu1223/chinese-online-content-for-llm 3c2832d9
        # _cs336/2025-10-05-cs336-training-a-transformer-lm-part-1.md:708-709 (hours, then minutes)
        ("- on 100 GPUs: 109.2 / 100 ≈ 1.1 hours\n- on 1,000 GPUs: 109.2 / 1,000 ≈ 6.6 minutes\n", []),
        ("- on 100 GPUs: 109.2 / 100 ≈ 1.1 hours\n- on 1,000 GPUs: 109.2 / 1,000 ≈ 66 minutes\n", ["VK301"]),
        # no unit near the claim but its own: the inputs are not in hours
        ("- on 1,000 GPUs: 109.2 / 1,000 ≈ 6.6 minutes\n", ["VK301"]),
    ],
)
def test_a_unit_written_near_the_claim(text, codes):
    assert [d.code for d in check_markdown(text, "n.md").diagnostics] == codes


def test_a_fraction_glyph_before_a_bracket():
    # bearbearyu1223/chinese-online-content-for-llm 3c2832d9 (same note):862 (`½(1 + 0) = 0.5`)
    codes, entries = _read("**Step 3:** ½(1 + 0) = 0.5")
    assert codes == [] and entries[0][0] == SKIP
    assert _read("½ × 9 = 4.5")[0] == [] and _read("½ × 9 = 9")[0] == ["VK301"]


@pytest.mark.parametrize(
    ("second", "codes"),
    [
        # bushuyeu/LLM-from-scratch 0ed84975 ece405_assignment1/notebooks/ECE405_Assignment1_QA.md:388-389
        # (4,621 is 4,621.3 rounded on the line above; twice that is 9,242.6)
        ("$2 \\times 4{,}621 = 9{,}243$ TFLOPs", []),
        ("$2 \\times 4{,}621 = 9{,}842$ TFLOPs", ["VK301"]),
    ],
)
def test_latex_grouping_and_rounding_carried_from_a_line_above(second, codes):
    first = "- forward: $4{,}513 \\text{ GFLOPs/seq} \\times 1{,}024 = 4{,}621$ TFLOPs"
    report = check_markdown(f"{first}\n- backward: {second}\n", "n.md")
    assert [(d.line, d.code) for d in report.diagnostics] == [(2, code) for code in codes]
    assert [e.verdict for e in report.explained] == ["ok", "error" if codes else "ok"]
    # without the line above, 2 × 4,621 is 9,242
    assert [d.code for d in check_markdown(f"- backward: {second}\n", "n.md").diagnostics] == ["VK301"]


LEAFOON = "Leafoon/cs-knowledge-platform 9cd1d6ba content/"


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # LEAFOON computer-organization/02-development-and-applications.md:960, ai-agent/03-prompt-engineering.md:1452
        ("可用带宽 = 3938.4 × 80% = **3150.7 MB/s**", []),
        ("可用带宽 = 3938.4 × 80% = **3450.7 MB/s**", ["VK301"]),
        ("营收目标 = 1000 × (1 + 15%) = 1150 万元", []),
        ("营收目标 = 1000 × (1 + 15%) = 1350 万元", ["VK301"]),
    ],
)
def test_a_percent_is_a_number_the_result_unit_labels(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # LEAFOON computer-network/03-physical-transmission.md:1244 (squares rounded, then subtracted)
        ("$$NA = \\sqrt{1.4479^2 - 1.4440^2} = \\sqrt{2.0964 - 2.0851}$$", []),
        ("$$NA = \\sqrt{1.4479^2 - 1.4440^2} = \\sqrt{2.0964 - 2.0551}$$", ["VK301"]),
        # LEAFOON transformers/07-low-precision-quantization.md:479 (109M rounds 109.5M)
        ("BERT-base: 109M × 4 bytes = 437 MB", []),
        ("BERT-base: 109M × 4 bytes = 480 MB", ["VK301"]),
    ],
)
def test_the_rounding_of_the_inputs_as_far_as_it_goes(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes", "why"),
    [
        # LEAFOON tilelang/04-explicit-memory-management.md:974 (`33 × 2 = 64 + 2 bytes`)
        ("padding: 33 × 2 = 64 + 2 bytes", [], "the two sides are in different units"),
        # LEAFOON tvm/11-te-compute-at.md:1477 (a step, three thousand times smaller)
        (
            "缓冲区 1,568 KB → 448 字节",
            [],
            "a step from one value to another (`1,568 KB → 448 字节`), not a conversion",
        ),
    ],
)
def test_only_part_of_a_value_is_read_only_to_pass(line, codes, why):
    got, entries = _read(line)
    assert got == codes and entries == [("skipped", why)]


def test_a_value_followed_by_a_step_is_still_checked():
    assert _read("`32000*8192 = 252_144_000 / 8` (TP=8)")[0] == ["VK301"]
    assert _read("86400s → 24h")[0] == []


@pytest.mark.parametrize(
    "line",
    [
        # LEAFOON computer-network/25-security-protocols.md:472, reinforcement-learning/33-reasoning-time-rl.md:120,
        # computer-organization/27-virtual-memory.md:693
        "│ length (2 bytes) = 2^14 (最大 16384 bytes) │",
        '{"step": "2x = 11 - 3"}',
        "| 7 | PS | Page Size，0=4KB，1=2MB/1GB |",
    ],
)
def test_a_number_left_of_an_expression_that_is_not_its_result(line):
    assert _read(line)[0] == []


def test_inputs_counted_in_bits():
    # LEAFOON computer-organization/01-system-introduction.md:620 (16-bit addresses, 8-bit words)
    codes, entries = _read("$$\\text{容量} = 2^{16} \\times 8 = 64\\text{KB}$$")
    assert codes == [] and entries[0][1].endswith("read with the inputs counted in bits, 8 to a byte")
    assert _read("$$\\text{容量} = 2^{16} \\times 8 = 32\\text{KB}$$")[0] == ["VK301"]


def test_exa():
    # LEAFOON computer-organization/01-system-introduction.md:967 (`$2^{64}$ = 16E`)
    assert _read("| 64 | $2^{64}$ = 16E | 16EB |")[0] == []
    assert _read("| 64 | $2^{64}$ = 18E | 16EB |")[0] == []  # 18.4E: decimal
    assert _read("| 64 | $2^{64}$ = 32E | 16EB |")[0] == ["VK301"]


def test_a_total_whose_first_part_was_not_read():
    # LEAFOON tvm/37-case-studies.md:1156-1159 (the first part not read: the total is not checked)
    text = "```\nW: [4096, 4096] × 0.5 bytes = 8MB\n+ scale: 131072 × 2 bytes = 256KB\n+ zp: 131072 × 0.5 bytes = 64KB\n总计: ~8.3MB\n```\n"
    report = check_markdown(text, "n.md")
    assert report.diagnostics == []
    assert report.explained[-1].note.startswith("a total under its parts, but the line above them")


def test_a_value_counting_other_things_after_the_result():
    # chberclaz/MyPT dc62a0ca docs/training/PHASE1B_CONTEXT_EXTENSION.md:300 (`\*` escaped for Markdown)
    assert _read("| Effective batch: 4 \\* 4 = 16 sequences = 65,536 tokens/step. |")[0] == []
    assert _read("| Effective batch: 4 \\* 4 = 18 sequences = 65,536 tokens/step. |")[0] == ["VK301"]
    assert _read("2 × 8 = 16 GPUs = 16 GPUs")[0] == []


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # kipply/blog 1dd66d03 blog/content/endorsed/transformer_inference_arithmetic.md:290
        # (FLOPs over FLOP/s are seconds; the result is written in a smaller unit, spelled out)
        ("one matmul takes 512x4x5120^2x2/312e12 = 344 microseconds here", []),
        ("the projection takes 512x5120^2x2/312e12 = 86 microseconds", []),
        ("the projection takes 512x5120^2x2/312e12 = 86 milliseconds", ["VK301"]),
        ("a step of 3 x 10^6 x 2 / 1e12 = 6 nanoseconds", ["VK301"]),
    ],
)
def test_time_units_spelled_out(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # ttsugriy/distributed-training-book 31ba8245 docs/collectives/13-collective-cost-model.md:514
        # (the terms are seconds, written bare in the ms that ends the chain)
        (
            "$$T_1 = (4-1) \\times 10^{-5} + \\frac{3}{4} \\times \\frac{10^8}{10^{11}} = 0.03 + 0.75 = 0.78 \\text{ ms}$$",
            [],
        ),
        (
            "$$T_1 = (4-1) \\times 10^{-5} + \\frac{3}{4} \\times \\frac{10^8}{10^{11}} = 0.3 + 0.75 = 0.78 \\text{ ms}$$",
            ["VK301"],
        ),
        # no unit written near: bare values are compared as they are
        ("$$T_1 = (4-1) \\times 10^{-5} + \\frac{3}{4} \\times \\frac{10^8}{10^{11}} = 0.03 + 0.75$$", ["VK301"]),
    ],
)
def test_a_bare_result_in_the_unit_written_near_it(line, codes):
    assert _read(line)[0] == codes


def test_a_chain_middle_reading_is_said():
    line = "$$T = (4-1) \\times 10^{-5} + \\frac{3}{4} \\times \\frac{10^8}{10^{11}} = 0.03 + 0.75 = 0.78 \\text{ ms}$$"
    note = _read(line)[1][0][1]
    assert note.startswith("computed 0.78;") and "the result in ms" in note


# ttsugriy/distributed-training-book 31ba8245 docs/collectives/13-collective-cost-model.md:195 and :203
# (T₁ rounds 5.83 ms to 5.8 in its chain; T₃, the same expression, carries the 5.81 of T₁)
T1 = "$$T_1 = 7 \\times 10^{-6} + \\frac{7}{8} \\times \\frac{2 \\times 10^9}{3 \\times 10^{11}} = 7\\mu s + 5.8\\text{ms} = 5.81\\text{ms}$$"
T3 = "$$T_3 = 7 \\times 10^{-6} + \\frac{7}{8} \\times \\frac{2 \\times 10^9}{3 \\times 10^{11}} = 5.81\\text{ms}$$"


def test_the_value_written_for_the_same_expression_above():
    report = check_markdown(f"{T1}\n\nand again\n\n{T3}\n", "n.md")
    assert report.diagnostics == []
    assert "the same expression on line 1" in report.explained[-1].note
    assert [d.code for d in check_markdown(f"{T3}\n", "n.md").diagnostics] == ["VK301"]
    # another value than the one that held above is judged on its own
    other = T3.replace("5.81", "5.71")
    assert [d.code for d in check_markdown(f"{T1}\n\n{other}\n", "n.md").diagnostics] == ["VK301"]


@pytest.mark.parametrize(
    ("line", "codes", "skipped"),
    [
        # Tongyun1/from-minimind-to-more dce47755 架构篇：混合专家模型（MoE）…md:166 (a hidden size
        # chosen as 43 × 256 near two thirds of 16384)
        ("中间层维度是 11008 —— 因为 $11008 \\approx \\frac{2}{3} \\times 16384$。", [], True),
        # CCODING04/diy-llm-notes e230ae4c docs/chapter5/c/数值理解.md:172 (1.999 taken as 2)
        ("  最大值 ≈ 2¹⁶ × 1.999 ≈ 131072  → 比 65504 大一倍", [], True),
        # further off than a few %, or not a multiple of 256, or `=`: judged as written
        ("因为 $12800 \\approx \\frac{2}{3} \\times 16384$。", ["VK301"], False),
        ("因为 $10950 \\approx \\frac{2}{3} \\times 16384$。", ["VK301"], False),
        ("因为 $11008 = \\frac{2}{3} \\times 16384$。", ["VK301"], False),
    ],
)
def test_approximately_a_size_chosen_by_design(line, codes, skipped):
    found, entries = _read(line)
    assert found == codes
    assert ((SKIP, DESIGN_SIZE) in entries) == skipped


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # kipply/blog 1dd66d03 blog/content/endorsed/transformer_inference_arithmetic.md:102 (MathJax
        # delimiters escaped for Markdown; 56 / 0.002 is 28,000) and :197 (`312\text{e}12`)
        ("With four cards we'd get \\\\(56/0.002 \\approx 23000\\\\) tokens.", ["VK301"]),
        ("With four cards we'd get \\\\(56/0.002 \\approx 28000\\\\) tokens.", []),
        ("\\\\(312\\text{e}12 \\div 300\\text{e}9 = 1040\\\\), the flops per byte", []),
        ("\\\\(312\\text{e}12 \\div 300\\text{e}9 = 1400\\\\), the flops per byte", ["VK301"]),
        ("and \\(2 \\times 24 = 48\\) here", []),
        ("or \\[2 \\times 24 = 46\\]", ["VK301"]),
        # an escaped bracket is no arithmetic
        ("see \\[1\\] and \\[2\\]", []),
    ],
)
def test_mathjax_delimiters_and_exponents(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("body", "codes"),
    [
        # kipply/blog 1dd66d03 (same note):86, LaTeX in a Zola `katex` block (no `$`): 104e12 bytes
        # are 104 TB, not 104 GB
        ("52\\text{e}12 \\cdot 2 = 104\\text{e}12 \\text{bytes} \\approx 104\\text{GB}\\\\", ["VK301"]),
        ("52\\text{e}9 \\cdot 2 = 104\\text{e}9 \\text{bytes} \\approx 104\\text{GB}\\\\", []),
    ],
)
def test_latex_without_delimiters(body, codes):
    text = f"{{% katex(block=true) %}}\n{body}\n{{% end %}}\n"
    assert [(d.line, d.code) for d in check_markdown(text, "n.md").diagnostics] == [(2, c) for c in codes]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # joqk12345/llm-inference-optimization 7770ad10 docs/table-of-contents-v7.0-detailed.md:334
        # (144,000 TFLOPS are 144 PFLOPS, 0.144 exaFLOPS)
        ("- 72 cards × ~2000 TFLOPS: ~144,000 TFLOPS = 144 exaFLOPS", ["VK301"]),
        ("- 72 cards × ~2000 TFLOPS: ~144,000 TFLOPS = 144 petaFLOPS", []),
        ("- 2 × 1.5 gigabytes = 3 gigabytes, or 3000 megabytes = 3 gigabytes", []),
        ("- 2 × 1.5 gigabytes = 3 terabytes", ["VK301"]),
    ],
)
def test_spelled_out_prefixes(line, codes):
    assert _read(line)[0] == codes


# chberclaz/MyPT dc62a0ca docs/model/TOKENIZATION_COMPARISON.md:15-16 (a total column after its
# parts: 19.3 + 19.3 + 10.7 is 49.3, not ~40); ttsugriy/distributed-training-book 31ba8245
# docs/memory/19-memory-equation.md:989 (the unit in the headers; the first column is a label)
PARTS_TABLE = """| Tokenizer | vocab | Token Emb | LM Head | Other | **Total** |
|---|---|---|---|---|---|
| **BPE** | 50,304 | 19.3M | 19.3M | 10.7M | **~{total}** |
"""
GB_TABLE = """| Seq Len | Linear (GB) | Quadratic (GB) | Total (GB) | Quad % |
|---------|-------------|----------------|------------|--------|
| 512 | 4.56 | 0.54 | {total} | 10.5% |
"""


@pytest.mark.parametrize(
    ("table", "total", "codes"),
    [
        (PARTS_TABLE, "40M", ["VK301"]),
        (PARTS_TABLE, "49M", []),
        (GB_TABLE, "5.10", []),
        (GB_TABLE, "6.10", ["VK301"]),
        # a total that is the product of the cells before it is no sum
        ("| run | GPUs | hours | total |\n|---|---|---|---|\n| a | 8 | 20 | {total} |\n", "160", []),
        # cells in other units than the total are not its parts
        ("| run | GPUs | per GPU | total |\n|---|---|---|---|\n| a | 8 | 80 GB | {total} |\n", "640 GB", []),
    ],
)
def test_a_total_column_after_its_parts(table, total, codes):
    report = check_markdown(table.format(total=total), "n.md")
    assert [(d.line, d.code) for d in report.diagnostics] == [(3, code) for code in codes]
    assert len(report.explained) == report.verified + report.skipped


@pytest.mark.parametrize(
    "line",
    [
        "结果 1110K × 3 ≈ 3328K",  # a scale: no hidden size (the layouts' property test found it)
        "结果 1110 × 3 ≈ 3328",  # a whole number computed: no size chosen near it
    ],
)
def test_a_multiple_of_256_is_no_design_size_by_itself(line):
    assert _read(line)[0] == ["VK301"]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # joqk12345/llm-inference-optimization 7770ad10 docs/table-of-contents-v7.0-detailed.md:651,
        # :605, :649 and :5294 (a step and the change it makes)
        ("- compute 4 → 10 PFLOPS, 2.5×", []),
        ("- memory 80 GB → 141 GB, +76%", []),
        ("- bandwidth 3.35 → 8 TB/s, 2.4×", []),
        ("- hit rate 30% → 60% (+30%)", []),
        # aaronzhfeng/llm_TII f5147975 docs/45_mfu_gold_standard_refactoring.md:236 (2.5 / 0.5 is 5)
        ("the ratio went 2.50 → 0.50 (8× reduction)", ["VK301"]),
        ("the ratio went 2.50 → 0.50 (5× reduction)", []),
        # bearbearyu1223/chinese-online-content-for-llm 3c2832d9 _cs336/…tinystories-transformer.md:482
        # (an unsigned percent on a fall is how much it fell)
        ("loss 8.58 → 3.11 (63.8%)", []),
        ("cost 100 → 70, -30%", []),
        ("cost 100 → 70, -50%", ["VK301"]),
        # a multiple of another quantity is read only to pass; a ratio after a colon is no change
        ("seq 2K → 4K, 4× attention FLOPs", []),
        ("weight=90 + weight=10 → 90% : 10%", []),
    ],
)
def test_the_change_a_step_makes(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes", "skipped"),
    [
        # CurryTang/MLSYS_tutorial 635f4f7f notes/Mlsys/MLSYS10 parallelism.md:1066 (entries of
        # 2 bytes, bf16, not written: near but off as a count of bytes)
        ("> Embedding 表 $[V, D]$ 很大（LLaMA-3：128K × 8K ≈ 2GB）。", ["VK304"], True),
        ("the table 128K × 8K ≈ 1GB here", [], False),
        ("the table 128K × 8K ≈ 5GB here", ["VK301"], False),
        ("bf16 weights: the table 128K × 8K ≈ 2GB here", [], False),  # written on the line: it holds
    ],
)
def test_a_count_of_elements_written_as_a_size(line, codes, skipped):
    found, entries = _read(line)
    assert found == codes and any("elements of 2 bytes, which is not written" in note for _, note in entries) == skipped
