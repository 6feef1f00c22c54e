"""Arithmetic claims: a table of claims written for these tests, properties, fuzz, and the vault."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from vaultkit.checks.claims import check_markdown, check_svg

OK, WARN, ERR, SKIP, NONE = "ok", "VK302", "VK301", "skip", "none"

CASES = [
    # correct
    ("一个 token 的缓存：2 × 16 × 16 × 64 × 2 = 65,536 bytes = 64 KB", OK),
    ("显存：13B × 2 bytes = 26 GB", OK),
    ("需要 600 / 80 ≈ 7.5 张卡", OK),
    ("The grid has 8 × 8 × 4 = 256 cells.", OK),
    ("| 优化器 | 30 × 4 = 120 | 120 / 16 = 7.5 |", OK),
    ("注意力矩阵 = 2048² = 419 万个元素", OK),
    ("总时间 100,000 × 6s ≈ 600,000s ≈ 7 天", OK),
    ("比例 5/40 = 12.5%", OK),
    ("传输 2GB / 20GB/s ≈ 100ms", OK),
    ("2⁻¹⁰ ≈ 9.77×10⁻⁴", OK),
    ("3600s = 1h", OK),
    ("层数 × 参数 = 24 层 × 10M ≈ 240M 参数", OK),
    # imprecise
    ("2048² = 410 万个元素", WARN),
    ("1000 / 3 = 340", WARN),
    # wrong
    ("显存：13B × 2 bytes = 31 GB", ERR),
    ("The grid has 8 × 8 × 4 = 290 cells.", ERR),
    ("总时间 100,000 × 6s ≈ 9 天", ERR),
    ("比例 5/40 = 25%", ERR),
    ("| 参数 | 30 × 4 = 150 |", ERR),
    # trailing zeros never hide a wrong magnitude
    ("注意力矩阵 256² = 100 亿个元素", ERR),
    ("注意力矩阵 2048² = 400 万个元素", OK),
    ("注意力矩阵 4096² = 1600 万个元素", WARN),
    ("注意力矩阵 4096² = 1500 万个元素", ERR),
    # one reading of scale letters per claim; sums off by more than 5 % are wrong
    ("4 × 3B = 2B", ERR),
    ("权重 13B × 2 bytes = 30 GB", ERR),
    ("3 × 9B = 28B", ERR),
    ("3 × 9B = 27B", OK),
    # a result more precise than its inputs: their rounding is its tolerance (13B may be 13.2B)
    ("3 × 13B = 39.6B", OK),
    ("3 × 13.0B = 39.6B", ERR),
    ("3 × 900B = 2701B", ERR),
    # ≈ forgives rounding, not a wrong result
    ("4KB × 2048 ≈ 6MB", ERR),
    ("4KB × 2048 ≈ 8MB", OK),
    ("1300 / 90 ≈ 15", OK),
    # words, remarks, rates, currency and a leading ~ inside expressions
    ("显存 = 3GB（权重）+ 1GB（缓存）= 5GB", ERR),
    ("显存 = 3GB（权重）+ 1GB（缓存）= 4GB", OK),
    ("40 GB × 8 = 320 GB (tree 2×(n-1)/n)", OK),
    ("40 GB × 8 = 320 TB (tree 2×(n-1)/n)", ERR),
    ("~$300/卡 × 1000 = $0.3M", OK),
    ("~$300/卡 × 1000 = $3M", ERR),
    ("¥20/个 × 50 = ¥1000", OK),
    ("3 × 8 GB = 24 GB / GPU / micro-batch", OK),
    ("3 × 8 GB = 42 GB / GPU / micro-batch", ERR),
    ("加载 13B × 2 bytes = 26 GB（权重）+ 激活", OK),
    ("集群 16 × 64 × 24h ≈ 25,000 GPU-hours", OK),
    ("集群 16 × 64 × 24h ≈ 45,000 GPU-hours", ERR),
    ("Leaf: 16×16/(32) ≈ 8 台 32 口交换机", OK),
    # a named quantity that cancels out, and one that does not
    ("每层 2 × 16 × 64 × n_token × 2 bytes ≈ 4096 × n_token bytes", OK),
    ("每层 2 × 16 × 64 × n_token × 2 bytes ≈ 8192 × n_token bytes", ERR),
    ("每层 2 × 16 × 64 × seq_len × 2 bytes = 4096 bytes", SKIP),
    # name=value options and glued ranges hold no claim
    ("fio --bs=4k --numjobs=16 --runtime=60", NONE),
    ("| T+0~5min | 备份 |", NONE),
    # ambiguous: skipped, never flagged
    ("周期 2024-03-01 ~ 2024-05-30", NONE),
    ("取值 1048576 ~ 2097152", NONE),
    ("ratio 64:32 = 2:1", OK),
    ("ratio 48:16 = 4:1", ERR),
    ("会议 9:30 = 10:30", SKIP),
    ("总线 PCIe 5.0 ×16 = 64 GB/s", SKIP),
    ("score pass@1 = 80.5%", SKIP),
    ("4 × 100 Gbps = 50 GB/s", OK),
    ("4 × 100 Gbps = 400 GB/s", ERR),
    ("8Gi = 8192Mi", SKIP),
    ("8 个专家 Expert × 5B = 40B", SKIP),
    ("f(3) = 9", SKIP),
    ("max_tokens = 4096", NONE),
    ("ip 10.0.0.1 = gateway", NONE),
    ("1 机柜 = 32 GPU", SKIP),
    ("- 第 1 步 x = 3", SKIP),
    ("带宽 1GB / 50 ≈ 20ms", SKIP),
]


def _result(text: str) -> str:
    report = check_markdown(text, "n.md")
    codes = {d.code for d in report.diagnostics}
    if codes:
        return max(codes)
    if report.verified:
        return OK
    return SKIP if report.skipped else NONE


@pytest.mark.parametrize("text, expected", CASES)
def test_claim_table(text, expected):
    assert _result(text) == expected


def test_diagnostic_fields_and_position():
    text = "---\ntitle: t\nvalue: 2 × 2 = 5\n---\n\n结果 2 × 3 = 7 个\n"
    report = check_markdown(text, "a/b.md")
    assert [(d.line, d.col, d.code, d.written, d.computed) for d in report.diagnostics] == [(6, 12, "VK301", "7", "6")]
    assert "2 × 3 = 7" in report.diagnostics[0].message


def test_excluded_places():
    text = (
        "```vaultkit\nid: x\nnote: 2 × 2 = 5\n```\n"
        "<!-- vaultkit:begin x -->\n2 × 2 = 5\n<!-- vaultkit:end x -->\n"
        "%% 2 × 2 = 5 %%\n"
        "%%\n2 × 2 = 5\n%%\n"
        "2 × 2 = 5 %%vk-ignore%%\n"
        "```python\nn = 2 * 2  # 2 * 2 = 5\n```\n"
    )
    report = check_markdown(text, "n.md")
    assert [d.line for d in report.diagnostics] == [14]


def test_svg_text_nodes():
    svg = '<svg>\n  <text x="1">说明</text>\n  <text x="5" y="2">16 × 4 = 60 KB</text>\n</svg>\n'
    report = check_svg(svg, "assets/a.svg")
    assert [(d.line, d.col, d.code) for d in report.diagnostics] == [(3, 30, "VK301")]


def _formatted(value: float, decimals: int) -> str:
    return f"{value:,.{decimals}f}"


@settings(max_examples=150, deadline=None)
@given(
    a=st.integers(1, 99_999),
    b=st.integers(1, 9_999),
    op=st.sampled_from(["×", "/", "+"]),
    decimals=st.integers(0, 4),
    loose=st.booleans(),
)
def test_correct_claims_pass(a, b, op, decimals, loose):
    exact = {"×": a * b, "/": a / b, "+": a + b}[op]
    written = _formatted(exact, decimals)
    if float(written.replace(",", "")) == 0:
        return
    text = f"结果 {a} {op} {b} {'≈' if loose else '='} {written}"
    report = check_markdown(text, "n.md")
    assert report.verified == 1 and report.diagnostics == [], text


@settings(max_examples=150, deadline=None)
@given(
    a=st.integers(1, 99_999),
    b=st.integers(1, 9_999),
    op=st.sampled_from(["×", "/", "+"]),
    factor=st.sampled_from([0.5, 0.8, 0.88, 1.12, 1.3, 3.0]),
)
@example(a=10001, b=1, op="×", factor=0.5)  # 10001 looks binary; the result 5000.5 does not
def test_perturbed_claims_fail(a, b, op, factor):
    exact = {"×": a * b, "/": a / b, "+": a + b}[op]
    wrong = f"{exact * factor:.6g}"
    assume("e" not in wrong)  # `1e+07` is written with one significant digit: 12.5M rounds to it
    decimals = len(wrong.partition(".")[2])
    assume(abs(float(wrong) - exact) > 10.0**-decimals)  # 0.4 for 0.357 is a rounding, not wrong
    text = f"结果 {a} {op} {b} = {wrong}"
    report = check_markdown(text, "n.md")
    assert [d.code for d in report.diagnostics] == ["VK301"], text


@settings(max_examples=300, deadline=None)
@given(st.text())
def test_never_raises(text):
    check_markdown(text, "n.md")
    check_svg(f"<svg><text>{text}</text></svg>", "a.svg")


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="0123456789,._ ×x*/+-=≈~²^()%KMBG万", max_size=300))
def test_never_raises_on_arithmetic_soup(text):
    check_markdown(text, "n.md")


@pytest.mark.timeout(20)
def test_long_lines_finish():
    """Regexes are linear: a 1 MB line of digits and operators is read without blowing up, and
    a line too long to read is listed as skipped, with why (a quadratic step fails the limit)."""
    line = ("12,345 × 6.5e3 + (7 - 8) / 9² = 10 ≈ " * 30_000)[:1_000_000]
    for text in (line, "1" * 1_000_000 + " = 1", "1," * 500_000 + " = 1"):
        report = check_markdown(text, "n.md")
        why = f"a line of {len(text):,} characters (over 5,000)"
        assert [(e.verdict, e.note) for e in report.explained] == [("skipped", why)]
        assert (report.verified, report.skipped, report.diagnostics) == (0, 1, [])
