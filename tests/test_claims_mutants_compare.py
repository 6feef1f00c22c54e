"""How a written value is judged against the computed one (claims/compare.py), pinned to the
exact verdict and `--explain` line a user reads (issue 39: tests that catch a regression).

Each line is a made-up claim of a shape the checker reads; the cases sit on the edges the
comparison draws: the precision a value is written with, `≈` within one unit or two, 5 % off,
an order of magnitude within half of one, the readings of units (bits, binary prefixes, a scale
left off, conversions already written), and numerals that may be binary.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultkit.checks.claims import check_markdown
from vaultkit.checks.claims.compare import ERROR, PASS, WARNING, _level, _show, _subsets, _Written, judge
from vaultkit.checks.claims.expr import Quantity, Uncertain
from vaultkit.checks.claims.finder import find_claims
from vaultkit.checks.claims.units import NONE

BINARY = "read with K, M, G as powers of two (1 GB = 2³⁰ bytes)"
MAY_BE_BINARY = ("skipped", "numerals of 0s and 1s may be binary")


def _read(line: str) -> tuple[list[tuple[str, str | None, str | None]], list[tuple[str, str]]]:
    report = check_markdown(line, "n.md")
    assert len(report.explained) == report.verified + report.skipped
    return [(d.code, d.written, d.computed) for d in report.diagnostics], [
        (e.verdict, e.note) for e in report.explained
    ]


@pytest.mark.parametrize(
    ("line", "diagnostics", "note"),
    [
        # an order of magnitude: right within a factor of √10 either way, a bare count only
        ("2^{100} ≈ 10^{30}", [], ("ok", "computed 1.267651e+30; read with 10^30 as an order of magnitude")),
        (
            "2^{100} ≈ 10^{31}",
            [("VK301", "10^{31}", "1.267651e+30")],
            ("error", "computed 1.267651e+30; read with 10^31 as an order of magnitude"),
        ),
        (
            "2^{100} ≈ 10^{29}",
            [("VK301", "10^{29}", "1.267651e+30")],
            ("error", "computed 1.267651e+30; read with 10^29 as an order of magnitude"),
        ),
        ("2^{50} ≈ 10¹⁵", [], ("ok", "computed 1.1259e+15; read with 10^15 as an order of magnitude")),
        ("3 × 10 ≈ 10^1", [], ("ok", "computed 30; read with 10^1 as an order of magnitude")),
        ("4 × 10 ≈ 10^1", [("VK301", "10^1", "40")], ("error", "computed 40; read with 10^1 as an order of magnitude")),
        ("0 × 5 ≈ 10^1", [("VK301", "10^1", "0")], ("error", "computed 0; read with 10^1 as an order of magnitude")),
        ("3 GB × 10 ≈ 10^1", [], ("skipped", "the two sides are in different units")),
        # the precision written: `=` a rounding or a truncation, `≈` within one unit (imprecise) or two (wrong)
        ("0.5 × 3 = 1.6", [("VK301", "1.6", "1.5")], ("error", "computed 1.5")),
        ("0.5 × 3 ≈ 1.6", [("VK302", "1.6", "1.5")], ("warning", "computed 1.5")),
        ("0.5 × 3 ≈ 1.7", [("VK301", "1.7", "1.5")], ("error", "computed 1.5")),
        ("4.77 × 1 ≈ 4", [("VK302", "4", "4.77")], ("warning", "computed 4.77")),
        ("7 / 2 = 3", [], ("ok", "computed 3.5")),
        ("7 / 2 = 4", [], ("ok", "computed 3.5")),
        ("-7 / 2 = -3", [], ("ok", "computed -3.5")),
        (
            "256 / 144 = 1",
            [("VK304", None, "1.777778")],
            ("warning", "computed 1.777778; holds only if the quotient is floored by hand"),
        ),
        ("2 × 3 = 6", [], ("ok", "computed 6")),
        ("2 × 3 = 7", [("VK301", "7", "6")], ("error", "computed 6")),
        ("2 × 3 = 6.1", [("VK301", "6.1", "6")], ("error", "computed 6")),  # plain integers: exact
        ("4096² = 1600 万", [("VK302", "1600 万", "1,677.722 万")], ("warning", "computed 1,677.722 万")),
        ("512² = 100 亿", [("VK301", "100 亿", "0.00262144 亿")], ("error", "computed 0.00262144 亿")),
        ("8KB × 1024 ≈ 6MB", [("VK301", "6MB", "8MB")], ("error", "computed 8MB")),
        ("2 × 700B = 1401B", [("VK301", "1401B", "1,400B")], ("error", "computed 1,400B")),
        # the rounding of the inputs is the result's tolerance
        ("2.0 × 3 = 6.1", [], ("ok", "computed 6")),
        ("10.0 × 10.0 = 101", [], ("ok", "computed 100")),
        ("10.0 × 10.0 = 104", [("VK301", "104", "100")], ("error", "computed 100")),
        ("128 × 134M = 17,179,869,184", [], ("ok", "computed 17,152,000,000")),
        ("0.0294 × 4096 = 120.2", [], ("ok", "computed 120.4224")),
        ("109M × 4 bytes = 437 MB", [], ("ok", "computed 436 MB")),
        ("65,536 × 268M = 17,563,713M", [("VK301", "17,563,713M", "17,563,648M")], ("error", "computed 17,563,648M")),
        # readings of the units
        ("524,288 × 4096 = 2 GiB", [], ("ok", "computed 2 GiB")),
        (
            "768 x 768 = 0.59",
            [],
            ("ok", "computed 0.589824 (millions); read with the result in millions, its scale left off"),
        ),
        ("28 + 56 = 84GB", [], ("ok", "computed 84GB")),
        (
            "2 × 2 × 32 × 4096 / 10**6 = 0.131MB",
            [("VK301", "0.131MB", "0.524288MB")],
            ("error", "computed 0.524288MB; read with the inputs in MB, the unit written near it"),
        ),
        ("50% × 200 = 100", [], ("ok", "computed 100")),
        ("50% × 200 = 100%", [("VK301", "100%", "10,000%")], ("error", "computed 10,000%")),
        ("20% + 30% = 50%", [], ("ok", "computed 50%")),
        ("20 × 5 = 100%", [], ("ok", "computed 100%")),  # a percent on the result only labels it
        ("20% × 50% = 10%", [], ("ok", "computed 10%")),  # percents on both sides are fractions
        (
            "1,000,000 × 3 bytes = 3,000,001 bytes",
            [("VK301", "3,000,001 bytes", "3,000,000 bytes")],
            ("error", "computed 3,000,000 bytes"),
        ),
        ("5 min × 60 = 300 s", [], ("ok", "computed 300 s")),
        ("400 Gbps / 8 = 50 GB/s", [], ("ok", "computed 50 GB/s")),
        ("8 × 2 Gb = 2 GB", [], ("ok", "computed 2 GB")),
        ("16 Gb / 8 = 2 GB", [], ("ok", "computed 2 GB")),
        ("1 TB / 1024 = 1 GB", [], ("ok", "computed 1 GB")),
        ("2^{16} × 8 = 64 KB", [], ("ok", "computed 64 KB; read with the inputs counted in bits, 8 to a byte")),
        ("7B × 2B = 14 GB", [], ("ok", "computed 14 GB")),
        ("10B × 2 = 20Gb", [], ("ok", "computed 20Gb")),
        ("134*2+1 = 269M", [], ("ok", "computed 269M")),
        ("1000 × 60 = 60K tokens/min", [], ("ok", "computed 60K tokens/min")),
        ("3.15e8 s / 86400 / 365 ≈ 10 years", [], ("ok", "computed 9.988584 years")),
        ("8.5e9 bytes / (1024^3 GB) = 7.92 GB", [], ("ok", f"computed 7.916242 GB; {BINARY}")),
        ("8.5e9 bytes / (1e9 GB) = 8.5 GB", [], ("ok", "computed 8.5 GB")),
        ("1 GB / 50 ≈ 20ms", [], ("skipped", "the two sides are in different units")),
        # numerals that may be binary, and those that may not
        ("0011 + 1 = 0100", [], MAY_BE_BINARY),
        ("1 + 1 = 10", [], MAY_BE_BINARY),
        ("1101 + 0011 = 0000", [], MAY_BE_BINARY),
        ("11011 + 1 = 28", [], MAY_BE_BINARY),
        ("10.0000 × 2^2 = 1.0000 × 2^3", [], MAY_BE_BINARY),
        ("-0 = 11111111", [], MAY_BE_BINARY),
        ("1.010 + 1 = 10.01", [], MAY_BE_BINARY),
        ("10001 × 1 = 5000.5", [("VK301", "5000.5", "10,001")], ("error", "computed 10,001")),
        ("100 + 100 = 100", [("VK301", "100", "200")], ("error", "computed 200")),
        ("0.11 + 0.11 = 0.5", [("VK301", "0.5", "0.22")], ("error", "computed 0.22")),
        ("1.1 × 2^1 = 11 × 2^0", [], MAY_BE_BINARY),
        ("10100 - 1 = 10011", [], MAY_BE_BINARY),
        ("111 + 1 = 1000", [], MAY_BE_BINARY),
        ("111 + 1 = 112", [], ("ok", "computed 112")),
        ("1 + 0 = 1", [], ("ok", "computed 1")),
        ("10 + 1 = 11", [], ("ok", "computed 11")),
        ("101 × 10 = 1010", [], ("ok", "computed 1,010")),
        ("10110 + 1 = 10111", [], ("ok", "computed 10,111")),
        ("10000000 + 1 = 10000001", [], ("ok", "computed 10,000,001")),
        ("0.1 + 0.1 = 0.2", [], ("ok", "computed 0.2")),
        # a unit near the claim, conversions, FLOPs as a count or a rate, bytes per parameter
        (
            "总共 109 hours，109.2 / 1,000 ≈ 6.6 minutes",
            [],
            ("ok", "computed 6.552 minutes; read with the inputs in hours, the unit written near it"),
        ),
        ("每张卡 80 GB，8 × 80 = 650 GB", [("VK301", "650 GB", "640 GB")], ("error", "computed 640 GB")),
        ("1024 × 1024 × 1024 bytes = 1 GB", [], ("ok", "computed 1 GB")),
        ("1 GiB / 1 MB = 1024", [], ("ok", f"computed 1,024; {BINARY}")),
        ("1e9 bytes / (1 GB) = 1", [], ("ok", "computed 1")),
        ("7B × 2 bytes = 14 GB", [], ("ok", "computed 14 GB")),
        ("7B × 2 bytes = 15 GB", [("VK301", "15 GB", "14 GB")], ("error", "computed 14 GB")),
        ("5 TFLOPS × 2 s = 10 TFLOPs", [], ("ok", "computed 10 TFLOPs")),
        ("100 TFLOPs / 10 s = 10 TFLOPS", [], ("ok", "computed 10 TFLOPS")),
        ("2 h × 3 = 6 h", [], ("ok", "computed 6 h")),
        ("2 h × 3 = 6 GB", [], ("skipped", "the two sides are in different units")),
        ("1e400 * 2 = 2e400", [], ("skipped", "a number beyond floating point range")),
        # `≈`: within half a unit passes, within one unit if not 5 % off, two units are wrong
        ("7 / 2 ≈ 4", [], ("ok", "computed 3.5")),
        ("1.57 × 1 ≈ 1.5", [], ("ok", "computed 1.57")),
        ("0.7 × 0.2 ≈ 0.1", [], ("ok", "computed 0.14")),
        ("50.075 × 2 ≈ 100.0", [("VK302", "100.0", "100.15")], ("warning", "computed 100.15")),
        ("50.125 × 2 ≈ 100.0", [("VK301", "100.0", "100.25")], ("error", "computed 100.25")),
        # a quotient floored to 0 is a truncation; one a whole unit below is not
        (
            "7 / 10 = 0",
            [("VK304", None, "0.7")],
            ("warning", "computed 0.7; holds only if the quotient is floored by hand"),
        ),
        ("6.0 / 2.0 = 2", [("VK301", "2", "3")], ("error", "computed 3")),
        # named quantities: read only when they cancel out, shown beside the number
        ("每层 2 × 16 × 64 × n_token × 2 bytes ≈ 4096 × n_token bytes", [], ("ok", "computed 4,096 × n_token")),
        (
            "每层 2 × 16 × 64 × n_token × 2 bytes ≈ 8192 × n_token bytes",
            [("VK301", "8192 × n_token bytes", "4,096 × n_token")],
            ("error", "computed 4,096 × n_token"),
        ),
        ("每层 2 × 16 × 64 × seq_len × 2 bytes = 4096 bytes", [], ("skipped", "a named quantity does not cancel out")),
        ("每层 3 × 1e200 × seq_len = 3e200 × seq_len", [], ("ok", "computed 3e+200 × seq_len")),
        # the computed value as shown
        ("1/3 = 0.333", [], ("ok", "computed 0.3333333")),
        ("123456 × 10 = 1234560", [], ("ok", "computed 1,234,560")),
        ("3 × 0.00001 = 0.00003", [], ("ok", "computed 3e-05")),
        ("2 × 0.00005 = 0.0001", [], ("ok", "computed 0.0001")),
        ("1e15 × 1 = 1e15", [], ("ok", "computed 1e+15")),
        ("999 × 1e12 = 9.99e14", [], ("ok", "computed 999,000,000,000,000")),
        ("0 × 5 = 0", [], ("ok", "computed 0")),
        # one bit overflows (`1+1 = 0`); fractions read in base 2 that are wrong there too
        ("1 + 1 = 0", [], MAY_BE_BINARY),
        ("1.1 + 0.1 = 1.01", [("VK301", "1.01", "1.2")], ("error", "computed 1.2")),
        # a factor converts only between two different units: 8 between GB and GB is a number
        ("16 GB / 8 = 16 GB", [("VK301", "16 GB", "2 GB")], ("error", "computed 2 GB")),
        # the ratio of two units that are not base units: hours to minutes is 60
        ("2 h × 60 = 120 min", [], ("ok", "computed 120 min")),
        ("2 h × 60 = 121 min", [("VK301", "121 min", "120 min")], ("error", "computed 120 min")),
        # percents on both sides are fractions, never labels; a power of two is no order of magnitude
        ("20% × 50% = 1000%", [("VK301", "1000%", "10%")], ("error", "computed 10%")),
        ("4 × 8 ≈ 2^5", [], ("ok", "computed 32")),
        # trailing zeros of a decimal fraction are no bits: `0.1000000` is 0.1, not a byte
        ("0.1000000 + 0.1 = 0.3", [("VK301", "0.3", "0.2")], ("error", "computed 0.2")),
    ],
)
def test_verdict_and_explain_line(line, diagnostics, note):
    assert _read(line) == (diagnostics, [note])


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (0.0, "0"),
        (1 / 3, "0.3333333"),
        (-2 / 3, "-0.6666667"),
        (1234.5, "1,234.5"),
        (1e15, "1e+15"),
        (9.99e14, "999,000,000,000,000"),
        (1e-4, "0.0001"),
        (9.9e-5, "9.9e-05"),
        (-1e-5, "-1e-05"),
        (100.0, "100"),
        (2.5, "2.5"),
    ],
)
def test_show(value, shown):
    assert _show(value) == shown


def _w(value: float, unit: float, *, truncation: bool = True, zeros: bool = False) -> _Written:
    return _Written(value, unit, 1.0, truncation, zeros, NONE)


@pytest.mark.parametrize(
    ("computed", "written", "loose", "level"),
    [
        (1.5, _w(1.5, 0.1), False, PASS),
        (1.54, _w(1.5, 0.1), False, PASS),  # a rounding
        (1.56, _w(1.5, 0.1), False, PASS),  # a truncation, not far
        (1.6, _w(1.5, 0.1), False, ERROR),
        (1.56, _w(1.5, 0.1, truncation=False), False, WARNING),  # within one unit, 4 % off
        (1.5, _w(1.6, 0.1), True, WARNING),  # ≈ within one unit
        (1.5, _w(1.7, 0.1), True, ERROR),  # two units
        (1.5, _w(1.55, 0.1), True, PASS),  # half a unit
        (100.0, _w(94.0, 10.0, zeros=True), False, ERROR),  # 6 % off: a rounding of zeros only up to 5 %
        (100.0, _w(96.0, 10.0, zeros=True), False, PASS),
        (-1.56, _w(-1.5, 0.1), False, PASS),  # a truncation toward zero
        (-1.44, _w(1.5, 0.1), False, ERROR),  # not with the other sign
    ],
)
def test_level(computed, written, loose, level):
    assert _level(Quantity(computed, computed, computed, NONE), written, loose, False) == level


def test_level_with_the_inputs_rounding_and_a_floor():
    q = Quantity(100.0, 99.0, 101.0, NONE)
    assert _level(q, _w(101.0, 1.0), False, True) == PASS
    assert _level(q, _w(101.0, 1.0), False, False) == ERROR
    assert _level(q, _w(103.0, 1.0), False, True) == ERROR
    floored = Quantity(1.777, 1.777, 1.777, NONE)
    assert _level(floored, _w(1.0, 1.0), False, False, floor=True) == PASS
    assert _level(floored, _w(1.0, 1.0), False, False) == ERROR


def test_subsets():
    assert _subsets([]) == [frozenset()]
    assert sorted(map(sorted, _subsets([1, 2]))) == [[], [1], [1, 2], [2]]
    assert len(_subsets([1, 2, 3, 4, 5])) == 32  # up to five, every choice
    assert _subsets([1, 2, 3, 4, 5, 6]) == [frozenset(), frozenset([1, 2, 3, 4, 5, 6])]
    many = list(range(20))
    assert _subsets(many) == [frozenset(), frozenset(many)]


# what must hold on any text: each explained line is in the text, every finding has its line
# explained as an error or a warning, the counts agree and are never negative
SOUP = st.text(alphabet="0123456789,. ×*/+-=≈~²^()%KMGBbs万亿 \n", max_size=200)


@settings(max_examples=200, deadline=None)
@given(SOUP)
def test_what_holds_on_any_arithmetic(text):
    report = check_markdown(text, "n.md")
    lines = text.split("\n")
    assert report.verified >= 0 and report.skipped >= 0
    assert len(report.explained) == report.verified + report.skipped
    verdicts = {e.line: e.verdict for e in report.explained}
    for d in report.diagnostics:
        assert 1 <= d.line <= len(lines) and d.code.startswith("VK3")
        assert verdicts.get(d.line) in ("error", "warning"), (text, d)
        if d.written is not None:
            assert d.written in lines[d.line - 1]
    for e in report.explained:
        assert 1 <= e.line <= len(lines) and e.verdict in ("ok", "error", "warning", "skipped")
        assert (
            "=" in lines[e.line - 1] or "≈" in lines[e.line - 1] or "~" in lines[e.line - 1] or e.verdict == "skipped"
        )


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 10**6), st.integers(1, 10**6))
def test_a_product_is_right_and_its_double_wrong(a, b):
    assert _read(f"{a} × {b} = {a * b}")[0] == []
    assert [code for code, *_ in _read(f"{a} × {b} = {2 * a * b}")[0]] == ["VK301"]
    assert math.isfinite(a * b)


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("16000 Mb / 1000 / 8 = 2 GB", []),  # megabits to gigabytes: the two factors convert
        ("16000 Mb / 1000 = 2 GB", ["VK301"]),  # the / 8 forgotten
        ("16000 Mb / 1000 / 8 = 3 GB", ["VK301"]),
    ],
)
def test_a_conversion_between_bits_and_bytes_of_another_prefix(line, codes):
    assert [code for code, *_ in _read(line)[0]] == codes


def _judge(line: str, **options):
    """The verdict of the first claim of a line, judged directly (the fields `--explain` does not show)."""
    found = find_claims(line).found[0]
    side, value, loose = found.alternatives[0]
    return judge(side.node, value, loose=loose, **options)


@pytest.mark.parametrize(
    ("line", "level", "computed", "tolerated", "factor", "reading"),
    [
        # right only within the rounding of its inputs (`134M`): tolerated, and how far off it is
        ("128 × 134M = 17,179,869,184", PASS, "17,152,000,000", True, 17_179_869_184 / 17_152_000_000, ""),
        ("128 × 134M = 17,152,000,000", PASS, "17,152,000,000", False, 1.0, ""),
        ("65,536 × 268M ≈ 17,563,713M", PASS, "17,563,648", True, 17_563_713 / 17_563_648, ""),
        ("2 × 3 = 7", ERROR, "6", False, 7 / 6, ""),
        ("2 × 3 = 6", PASS, "6", False, 1.0, ""),
        # a bare value that leaves the inputs' unit out: read only to pass, in that unit
        ("2 s × 3 = 6", PASS, "6", False, 1.0, ""),
        ("10.03 s × 10 ≈ 101", PASS, "100.3", False, 1.0, ""),
        # bare inputs counted in bits, with the interval of their rounding
        ("65.5 × 8 = 65.54 bytes", PASS, "65.5", True, 65.54 / 65.5, "the inputs counted in bits, 8 to a byte"),
        # wrong in every reading: the bits reading and a scale left off are not shown for an error
        ("2^{16} × 8 = 68 KB", ERROR, "512", False, 512 / 68, ""),
        ("768 x 768 = 0.50", ERROR, "589,824", False, 589_824 / 0.5, ""),
        # `=` to a power of ten is a value, not an order of magnitude; nor is `≈` with a scale on an input
        ("2^{100} = 10^{30}", ERROR, "1.267651e+30", False, 2.0**100 / 1e30, ""),
        ("3K × 10 ≈ 10^4", ERROR, "30,000", False, 3.0, ""),
        # `≈` with a 7-digit integer: its trailing zero is not a digit that must be exact
        ("1,048,576 × 2 ≈ 2,097,150", PASS, "2,097,152", False, 2_097_152 / 2_097_150, ""),
        # a factor of 8 between bytes and bits written in the expression
        ("2 GB × 8 = 16 Gb", PASS, "16", False, 1.0, ""),
        # a numeral with a leading zero is only doubted when the claim fails
        ("0100 / 11 = 9", PASS, "9.090909", False, 9.090909090909092 / 9, ""),
    ],
)
def test_the_verdicts_fields(line, level, computed, tolerated, factor, reading):
    verdict = _judge(line)
    assert (verdict.level, verdict.computed, verdict.tolerated, verdict.reading) == (
        level,
        computed,
        tolerated,
        reading,
    )
    assert verdict.factor == pytest.approx(factor, rel=1e-9)


def test_a_bare_value_wrong_in_the_inputs_unit_is_not_read():
    with pytest.raises(Uncertain, match="different units"):
        _judge("2 s × 3 = 7")


def test_judges_defaults_take_the_inputs_as_rounded_and_do_not_floor():
    assert _judge("128 × 134M = 17,179,869,184").level == PASS
    assert _judge("128 × 134M = 17,179,869,184", inputs_rounded=False).level == ERROR
    assert _judge("256 / 144 = 1").level == ERROR
    assert _judge("256 / 144 = 1", floor=True).level == PASS
