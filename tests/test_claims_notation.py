"""What looks like decimal arithmetic and is not (issue 39): binary numerals, variables glued to
numbers, XOR, orders of growth and of magnitude, matrix dimensions written with ×, an expression
cut out of code, a quantity of a number. Each is skipped with its reason, never flagged, and the
same shape written as arithmetic still fails. Fixture lines are our own words with the numbers
and shape of a real line, cited (repository, commit, path:line)."""

from __future__ import annotations

import pytest

from vaultkit.checks.claims import check_markdown

LEAFOON = "Leafoon/cs-knowledge-platform 9cd1d6ba content/"


def _read(text: str) -> tuple[list[str], list[tuple[str, str]]]:
    report = check_markdown(text, "n.md")
    assert len(report.explained) == report.verified + report.skipped
    return [d.code for d in report.diagnostics], [(e.verdict, e.note) for e in report.explained]


@pytest.mark.parametrize(
    ("line", "why"),
    [
        # LEAFOON computer-organization/07-division.md:166, 03-number-system-and-coding.md:65,
        # 08-floating-point.md:735, computer-network/01-architecture.md:2156
        ("余数 1011+0011 = 1110", "numerals of 0s and 1s may be binary"),
        ("进位 1+1 = 10", "numerals of 0s and 1s may be binary"),
        ("11011 + 1 = 28", "numerals of 0s and 1s may be binary"),  # three runs of digits
        # LEAFOON computer-organization/04-fixed-point-representation.md:206, 01-system-introduction.md:1119
        ("反码: -0 = 11111111", "numerals of 0s and 1s may be binary"),
        ("1011 + 0110 = 10010", "numerals of 0s and 1s may be binary"),
        ("移位: 2×1011 = 10110", "numerals of 0s and 1s may be binary"),  # 06-multiplication.md:509
        ("$1.100 \\times 2^1 = 0.1100 \\times 2^2$", "numerals of 0s and 1s may be binary"),
        ("$10.0000 \\times 2^2 = 1.0000 \\times 2^3$", "numerals of 0s and 1s may be binary"),  # :739
        ("前导码 10101010 × 7 bytes = 56 bits", "numerals of 0s and 1s may be binary"),
        # LEAFOON computer-organization/03-number-system-and-coding.md:315 (a base as a subscript)
        ("8 + 4 + 1 = 1101_2", "not a number: 1101_2"),
    ],
)
def test_binary_numerals_are_skipped(line, why):
    codes, entries = _read(line)
    assert codes == [] and entries == [("skipped", why)]


@pytest.mark.parametrize(
    "line",
    [
        "1000 + 1000 = 3000",
        "100 + 100 = 300",
        "100 + 100 = 100",  # wrong in base 2 too
        "1 + 1 = 3",
        "`-1 ≈ -10.00`",
        "$3 \\times 2^2 = 13$",
        "555000 × 3 = 1110000",  # two runs of digits: a decimal number
        "0.11 + 0.11 = 0.5",  # a decimal fraction; in base 2 it is 1.5
        "`1 / 5 ≈ 0.1000`",  # zeros padding a decimal
    ],
)
def test_decimal_numerals_of_ones_and_zeros_still_fail(line):
    assert _read(line)[0] == ["VK301"]


@pytest.mark.parametrize(
    "line",
    [
        # EthanAlgoX/LLM-Core b21cc657 modules/03_alignment/grpo/grpo.md:93 (`2x + 3 = 11`)
        "解方程 2x + 3 = 11",
        # LEAFOON ai-agent/03-prompt-engineering.md:1043 (`2x + 4y = 94`)
        "鸡兔同笼: 2x + 4y = 94",
        # LEAFOON data-structures/35-amortized-analysis.md:230 (`2(k+1) - 2k = 2`)
        "$$\\Phi = 2(k+1) - 2k = 2$$",
        # LEAFOON triton/14-memory-model.md:1567 (`10 N / (4N + 8)`)
        "intensity = 10 N / (4N + 8) ≈ 2.5 FLOPs/Byte",
    ],
)
def test_letters_glued_to_numbers_are_variables(line):
    codes, entries = _read(line)
    assert codes == [] and entries[0] == ("skipped", "letters are variables: symbolic algebra, not arithmetic")


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("speedup 2x × 1.5 = 3", []),  # a multiple times a number is still read
        ("time 3s + 2s = 5s", []),
        ("time 3s + 2s = 6s", ["VK301"]),
        ("8 GPU × 80 GB = 640 GB", []),
    ],
)
def test_units_glued_to_numbers_are_still_units(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "why"),
    [
        # LEAFOON tilelang/06-layout-inference.md:399 (a swizzle written with XOR)
        ("# i=1, j=0: j' = 0 ^ 1 = 1", "`a ^ b` spaced may be XOR, as in code"),
        # LEAFOON data-structures/03-arrays-and-dynamic-arrays.md:202 (`O(1) = 2`)
        ("摊还代价 O(1) = 3", "an order of growth (`O(1)`), not a number"),
        # LEAFOON data-structures/00-introduction-and-math.md:279, 05-stack-and-queue.md:1104
        ("| 保留最低 1 位 | `12 & (-12) = 4` |", "expression is cut off"),
        ("# 整除向下取整，-7//2=-4", "expression is cut off"),
        # LEAFOON data-structures/06-string-fundamentals.md:393 (`m - 1 = 4`)
        ("# 内循环走到 m - 1 = 4 步", "expression is cut off"),
        # LEAFOON computer-network/00-introduction.md:1339 (`log₂(1+1000)`)
        ("C = 4000 × log₂(1+1000) ≈ 40 kbps", "expression glued to a word: a function call or a name"),
        # LEAFOON computer-organization/06-multiplication.md:748 (`= 5 << 3 = 40`)
        ("$5 \\times 2^3 = 5 << 3$", "value runs into more arithmetic"),
        # LEAFOON computer-organization/04-fixed-point-representation.md:749 (`-82 的补码 = 2^8 - 82`)
        ("$-82$ 的补码 = $2^8 - 82$", "a quantity of the number (`-82 的补码`), not the number"),
        # LEAFOON tilelang/15-warp-level-operations.md:611 (an MMA tile: `16×16 × 16×16 = 16×16`)
        ("# 16×16 × 16×16 = 16×16", "matrix dimensions written with ×, not a product"),
    ],
)
def test_notation_that_is_not_arithmetic(line, why):
    codes, entries = _read(line)
    assert codes == [] and entries == [("skipped", why)]


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("2^10 = 1024", []),
        ("2^10 = 1000", ["VK301"]),
        ("`2**10 = 1000`", ["VK301"]),
        ("2 × 3 × 4 × 5 = 2 × 60", []),
        ("| a || 2 × 3 = 7 |", ["VK301"]),  # a table's pipes do not cut an expression off
    ],
)
def test_arithmetic_next_to_that_notation_is_still_read(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # LEAFOON data-structures/41-complexity-theory.md:133, reinforcement-learning/01-mdp.md:70
        ("$2^{100} \\approx 10^{30}$", []),
        ("$3^{361} \\approx 10^{172}$", []),
        ("$2^{-100} \\approx 10^{-30}$", []),
        ("$2^{100} \\approx 10^{33}$", ["VK301"]),
        ("$3^{2} \\approx 10^{1}$", []),  # 9: within half an order
        ("$2^{5} \\approx 10^{1}$", ["VK301"]),  # 32: just over half an order
        ("$2^{10} \\approx 10^{2}$", ["VK301"]),
    ],
)
def test_a_power_of_ten_after_approximately_is_an_order_of_magnitude(line, codes):
    assert _read(line)[0] == codes


def test_latex_sim_is_a_range_and_mu_a_prefix():
    # LEAFOON transformers/11-mixed-precision-training.md:31 (`$10^{-38} \sim 10^{38}$`)
    assert _read("| FP32 | $10^{-38} \\sim 10^{38}$ |")[0] == []
    # LEAFOON computer-network/06-datalink-mac.md:221 (`= 12.5 \mu s`)
    assert _read("$$\\tau = \\frac{2500}{2 \\times 10^8} = 12.5 \\mu s$$")[1][0][0] == "ok"
    assert _read("$$\\tau = \\frac{2500}{2 \\times 10^8} = 125 \\mu s$$")[0] == ["VK301"]


WENER = "wenerme/wener 4b8a8365 notes/"


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # WENER std/latency.md:81 (`2x2 MIMO = 300Mbps`: an antenna configuration)
        ("- 40MHz 信道, 2x2 MIMO = 300Mbps", []),
        ("a 3x3 conv = 9 weights", []),
        ("2x3 = 7", ["VK301"]),  # glued, but nothing names a shape
        ("4 x 8 GPU = 32 GPU", []),
        ("4 x 8 GPU = 36 GPU", ["VK301"]),
    ],
)
def test_a_shape_written_with_a_glued_x(line, codes):
    assert _read(line)[0] == codes


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        # WENER db/relational/postgresql/postgresql-faq.md:86 (`2^32 = 4 十亿`)
        ("- oid 最多 2^32 = 4 十亿 条记录", []),
        ("- oid 最多 2^32 = 6 十亿 条记录", ["VK301"]),
        ("- 预算 3 × 5 百亿 = 15 百亿", []),
        # WENER hardware/gadgets/nanya.md:45 (`Depth (64M) \* Width (16 bits) = 1Gb`)
        ("| 64M \\* 16 bits = 1Gb total |", []),
        ("| 64M \\* 16 bits = 4Gb total |", ["VK301"]),
    ],
)
def test_cjk_scales_and_a_star_escaped_for_markdown(line, codes):
    assert _read(line)[0] == codes
