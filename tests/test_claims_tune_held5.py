"""Readings of claims that were false alarms on held5 (claims-tune3, issue 39): each fixture is a
line in our own words with the numbers and shape of the cited one, next to a slip that must still fail."""

from __future__ import annotations

import pytest

from vaultkit.checks.claims import check_markdown


def _codes(line: str) -> list[str]:
    return [d.code for d in check_markdown(line, "n.md").diagnostics]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # BBuf/how-to-optim-algorithm-in-cuda 10a3a8d2 large-language-model/moe/
        # moe_align_block_size_kernel优化详解.md:657 (a bare log in base 2: 2*log(128)=14 syncs)
        ("With a scan of 128, the syncs fall from 2*log(128)=14 to 3", []),
        ("With a scan of 128, the syncs fall from 2*log(128)=20 to 3", ["VK301"]),
        ("A decade takes log(1000)=3 digits", []),
    ],
)
def test_a_bare_log_may_be_in_any_fair_base(line, codes):
    assert _codes(line) == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # hzchenxiaobin/ai-infra-notes 6a8e7576 aiinfra/daily/week3/day3/README.md:429,509,510
        # (a 16×16 tile is 4 tiles of 8×8: a count, not a product)
        ("Tile A is 16×16 = 4 个 8×8, tile B is 16×8 = 2 个 8×8", []),
        ("Tile A (16×16 = 4 blocks of 8×8)", []),
        ("Tile A is 16×16 = 4 tiles", ["VK301"]),
        # a conjunction starts a second claim: no count of pieces
        ("2 × 3 = 7 and 4 × 4 = 16.", ["VK301"]),
        ("2 × 3 = 7 和 4 × 4 = 16", ["VK301"]),
    ],
)
def test_a_count_of_pieces_of_a_product_is_not_a_result(line, codes):
    assert _codes(line) == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # hzchenxiaobin/ai-infra-notes 6a8e7576 aiinfra/topics/LLM/day1.md:264 (the column is in
        # billions: 2 × 129K × 7168 ≈ 1.9)
        ("| embedding and head | $2 \\times 129K \\times 7168 \\approx 1.9$ |", []),
        ("| embedding and head | $2 \\times 129K \\times 7168 \\approx 3.7$ |", ["VK301"]),
    ],
)
def test_a_bare_result_may_leave_its_scale_off_when_the_inputs_have_one(line, codes):
    assert _codes(line) == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # prskid1000/micro-Omni 1749f81f study/17-mixture-of-experts.md:97 (2 of 8 experts is a
        # quarter of the cost: the label on the last input names the whole side)
        ("Compute: only 2 experts = 1/4 cost!", []),
        ("Compute: 4 × 2 experts = 9 experts", ["VK301"]),
    ],
)
def test_a_side_that_counts_something_else_is_no_result(line, codes):
    assert _codes(line) == codes


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        # prskid1000/micro-Omni 1749f81f study/17-mixture-of-experts.md:281-283 and
        # study/22-vision-encoder.md:111-113 (the total line computes its own sum or product)
        ("Gate: 256 × 8 = 2K\nBlocks: 8 × (256×512 + 512×256) = 2.1M each\nTotal: 2K + 8 × 2.1M = 16.8M weights", []),
        ("Across: 224 ÷ 16 = 14 patches\nDown: 224 ÷ 16 = 14 patches\nTotal: 14 × 14 = 196 patches", []),
        ("Gate: 2 × 3 = 6\nBlocks: 4 × 5 = 20\n\nTotal: = 36", ["VK301"]),  # a total under its parts still read
    ],
)
def test_a_total_line_with_its_own_arithmetic_is_no_sum_of_the_lines_above(text, codes):
    assert _codes(text + "\n") == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # kallisaysra1/ai-infra-learning 9a44017e specializations/performance-engineering/modules/
        # mod-001-gpu-fundamentals/lecture-notes/05-roofline-model.md:329 (0.083 is 1/12 rounded:
        # 169.7 is fair although 2039 has as many digits as the result)
        ("Peak: 2039 GB/s * 0.083 FLOP/byte = 169.7 GFLOPS", []),
        ("Peak: 2039 GB/s * 0.083 FLOP/byte = 172.7 GFLOPS", ["VK301"]),
    ],
)
def test_the_coarsest_rounded_input_gives_the_tolerance(line, codes):
    assert _codes(line) == codes
