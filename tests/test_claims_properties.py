"""Generated claims for the units people write: a unit only on the result, rates and times,
bits and bytes. Right claims are read and silent; a slip (a factor off, a 1000× unit slip, bits
taken for bytes) is an error on the line of its value."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from vaultkit.checks.claims import check_markdown
from vaultkit.checks.claims.compare import ELEMENT_BYTES

LAYOUTS = [
    "结果 {expr} {rel} {value}",
    "| 估算 | {expr} {rel} {value} |",
    "- total = `{expr}` {rel} {value}",
    "    'x': '{expr} {rel} {value}',",
    "总量 = {expr}\n     {rel} {value}",
]


def _text(expr: str, rel: str, value: str, layout: int) -> tuple[str, int]:
    template = LAYOUTS[layout]
    return template.format(expr=expr, rel=rel, value=value), template.split("{value}")[0].count("\n") + 1


def _sig(x: float, digits: int) -> str:
    decimals = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:.{decimals}f}"


def _read_and_silent(text: str) -> bool:
    report = check_markdown(text, "n.md")
    return report.verified >= 1 and report.diagnostics == []


def _errors(text: str) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in check_markdown(text, "n.md").diagnostics]


# -- a unit only on the result labels it ------------------------------------------------------

SIZE_UNITS = {"GB", "MB", "GiB", "KB"}
RESULT_UNITS = ["GB", " GB", "MB", "GiB", " TFLOP", "s", " ms", "KB", "M", "B", " 万", "Gbps", " GB/s", " tokens/s"]


@st.composite
def plain_expressions(draw):
    """An expression of plain numbers in one of the ways people write it, and its value."""
    a = draw(st.integers(2, 9_999))
    b = draw(st.integers(2, 999))
    style = draw(st.sampled_from(["×", "*", "/", "+", "/ 10**3", "/ 2**10", "× 1e3"]))
    if style in ("×", "*"):
        return f"{a} {style} {b}", a * b
    if style == "/":
        return f"{a} / {b}", a / b
    if style == "+":
        return f"{a} + {b}", a + b
    if style == "/ 10**3":
        return f"{a} * {b} / 10**3", a * b / 1e3
    if style == "/ 2**10":
        return f"{a} * {b} / 2**10", a * b / 2**10
    return f"{a} × {b} × 1e3", a * b * 1e3


@settings(max_examples=300, deadline=None)
@given(
    expr=plain_expressions(),
    unit=st.sampled_from(RESULT_UNITS),
    loose=st.booleans(),
    layout=st.integers(0, len(LAYOUTS) - 1),
)
def test_unit_only_on_the_result_labels_it(expr, unit, loose, layout):
    """`1.2 × 20 = 24 GB`: no operand has a unit, so the result's unit labels it."""
    text_expr, value = expr
    assume(value >= 0.01)
    exact = value == int(value) and "/" not in text_expr and "e3" not in text_expr
    written = str(int(value)) if exact else _sig(value, 4)
    text, _ = _text(text_expr, "≈" if loose else "=", written + unit, layout)
    assert _read_and_silent(text), text


@settings(max_examples=300, deadline=None)
@given(
    expr=plain_expressions(),
    unit=st.sampled_from(RESULT_UNITS),
    factor=st.sampled_from([0.5, 0.8, 1.25, 1.5, 2.0, 10.0, 0.1]),
    loose=st.booleans(),
    layout=st.integers(0, len(LAYOUTS) - 1),
)
def test_unit_only_on_the_result_wrong_is_an_error(expr, unit, factor, loose, layout):
    """A size from counts written 2, 4 or 8 times too large may leave the bytes of an element
    unwritten: a warning that says so (VK304), not an error."""
    text_expr, value = expr
    assume(value >= 0.01)
    written = _sig(value * factor, 3)
    text, line = _text(text_expr, "≈" if loose else "=", written + unit, layout)
    element = unit.strip() in SIZE_UNITS and factor in ELEMENT_BYTES
    assert _errors(text) == [(line, "VK304" if element else "VK301")], text


# -- rates and times -------------------------------------------------------------------------

WORK = [("T FLOPs", 1e12), ("TFLOP", 1e12), ("PFLOP", 1e15), ("G FLOPs", 1e9), ("GFLOP", 1e9)]
RATE = [("TFLOPS", 1e12), ("TFLOP/s", 1e12), ("TFLOPs", 1e12), ("PFLOP/s", 1e15)]
TIME = [("s", 1.0), ("ms", 1e-3), ("秒", 1.0), ("毫秒", 1e-3), ("分钟", 60.0), ("min", 60.0), ("h", 3600.0)]


@st.composite
def compute_times(draw):
    """`8.8T FLOPs / (312 TFLOPS × 8) ≈ 3.5 ms`: work over rate, in a time unit that shows it."""
    w = draw(st.integers(1, 999))
    work = draw(st.sampled_from(WORK))
    r = draw(st.integers(10, 999))
    rate = draw(st.sampled_from(RATE))
    n = draw(st.integers(1, 64))
    seconds = w * work[1] / (r * rate[1] * n)
    units = [t for t in TIME if 0.5 <= seconds / t[1] < 100_000]
    assume(units)
    unit = draw(st.sampled_from(units))
    expr = f"{w}{work[0]} / ({r} {rate[0]} × {n})"
    return expr, seconds / unit[1], unit


@settings(max_examples=300, deadline=None)
@given(claim=compute_times(), layout=st.sampled_from([0, 1, 3, 4]))
def test_compute_times_right_are_silent(claim, layout):
    expr, value, unit = claim
    text, _ = _text(expr, "≈", _sig(value, 3) + " " + unit[0], layout)
    assert _read_and_silent(text), text


@settings(max_examples=300, deadline=None)
@given(
    claim=compute_times(), slip=st.sampled_from([1000.0, 1e-3, 60.0, 2.0, 0.5]), layout=st.sampled_from([0, 1, 3, 4])
)
def test_compute_times_slips_are_errors(claim, slip, layout):
    """`10 TFLOP / (20 TFLOP/s × 0.5) = 1000 s`: the 1000× slips of FLOP and time units."""
    expr, value, unit = claim
    text, line = _text(expr, "≈", _sig(value * slip, 3) + " " + unit[0], layout)
    assert _errors(text) == [(line, "VK301")], text


@settings(max_examples=200, deadline=None)
@given(
    size=st.integers(1, 999),
    size_unit=st.sampled_from([("GB", 1e9), ("MB", 1e6), ("GiB", 2.0**30)]),
    bw=st.integers(10, 999),
    bw_unit=st.sampled_from([("GB/s", 1e9), ("GBps", 1e9)]),
    slip=st.sampled_from([1.0, 1000.0, 0.001, 3.0]),
)
def test_transfer_times(size, size_unit, bw, bw_unit, slip):
    """`4GiB / 50GBps = 85.9ms`: a size over a bandwidth is a time."""
    seconds = size * size_unit[1] / (bw * bw_unit[1])
    unit = ("ms", 1e-3) if seconds < 1 else ("s", 1.0)
    written = _sig(seconds / unit[1] * slip, 3)
    text = f"传输 {size}{size_unit[0]} / {bw}{bw_unit[0]} = {written}{unit[0]}"
    if slip == 1.0:
        assert _read_and_silent(text), text
    else:
        assert _errors(text) == [(1, "VK301")], text


# -- bits and bytes --------------------------------------------------------------------------

BITS = [("Gbps", 1e9 / 8), ("Gb/s", 1e9 / 8), ("Mbps", 1e6 / 8), ("Gbit/s", 1e9 / 8), ("Tbps", 1e12 / 8)]
BYTES = [("GB/s", 1e9), ("MB/s", 1e6), ("GBps", 1e9), ("TB/s", 1e12)]


@st.composite
def link_totals(draw):
    """`8 × 400 Gbps = 400 GB/s`: links times a bit rate, in a byte rate that shows it."""
    n = draw(st.integers(1, 64))
    r = draw(st.sampled_from([25, 50, 100, 200, 400, 800, 1600]))
    bits = draw(st.sampled_from(BITS))
    total = n * r * bits[1]  # bytes per second
    units = [b for b in BYTES if 0.1 <= total / b[1] < 100_000]
    assume(units)
    return n, r, bits, total, draw(st.sampled_from(units))


@settings(max_examples=300, deadline=None)
@given(claim=link_totals(), space=st.booleans())
def test_bits_to_bytes_right_are_silent(claim, space):
    n, r, bits, total, unit = claim
    gap = " " if space else ""
    text = f"带宽 {n} × {r}{gap}{bits[0]} = {_sig(total / unit[1], 4)}{gap}{unit[0]}"
    assert _read_and_silent(text), text


@settings(max_examples=300, deadline=None)
@given(claim=link_totals())
def test_bits_taken_for_bytes_are_errors(claim):
    """`4 × 100 Gbps = 400 GB/s`: the bits of the inputs written as bytes."""
    n, r, bits, total, unit = claim
    text = f"带宽 {n} × {r} {bits[0]} = {_sig(total * 8 / unit[1], 4)} {unit[0]}"
    assert _errors(text) == [(1, "VK301")], text


@settings(max_examples=200, deadline=None)
@given(x=st.integers(1, 9_999), bits=st.sampled_from(["Gb", "Mb", "Kb", "Gbit"]), wrong=st.booleans())
def test_bit_and_byte_conversions(x, bits, wrong):
    """`1 GB = 8 Gb`: a conversion between bytes and bits."""
    byte_unit = {"Gb": "GB", "Mb": "MB", "Kb": "KB", "Gbit": "GB"}[bits]
    value = x * (1 if wrong else 8)
    text = f"{x} {byte_unit} = {value} {bits}"
    if wrong:
        assert _errors(text) == [(1, "VK301")], text
    else:
        assert _read_and_silent(text), text
