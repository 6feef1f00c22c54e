"""The claims evaluator (claims/expr.py) on its own: values, the interval the inputs' rounding
allows, dimensions, and what it refuses to compute and why (issue 39)."""

from __future__ import annotations

import math

import pytest

from vaultkit.checks.claims.expr import (
    BEYOND_FLOAT,
    BigO,
    Binary,
    Func,
    Inconsistent,
    Neg,
    Operand,
    Quantity,
    Reading,
    Sqrt,
    Symbol,
    Uncertain,
    conversion_factors,
    divisor_grouped,
    first_operand,
    has_operator,
    is_ratio,
    substituted,
    written_leaf,
)
from vaultkit.checks.claims.units import Suffix

PLAIN = Reading()
BINARY = Reading(binary=True)
BYTE, SECOND, RATE = (0, 1, 0, 0), (1, 0, 0, 0), (-1, 1, 0, 0)


def num(mantissa: float, unit_digit: float = 1.0, **kw) -> Operand:
    return Operand(str(mantissa), 0, 0, mantissa, unit_digit, False, **kw)


def q(node, reading: Reading = PLAIN) -> tuple:
    got = node.evaluate(reading)
    return (got.value, got.lo, got.hi, got.dims)


def interval(lo: float, hi: float, value: float | None = None) -> Operand:
    """An operand whose rounding allows [lo, hi] (two digits, written with a decimal point)."""
    mid = (lo + hi) / 2 if value is None else value
    return num(mid, hi - lo, digits=2, decimal=True)


def test_interval_arithmetic():
    a, b = interval(1.0, 3.0), interval(4.0, 6.0)
    assert q(Binary("+", a, b)) == (7.0, 5.0, 9.0, (0, 0, 0, 0))
    assert q(Binary("-", a, b)) == (-3.0, -5.0, -1.0, (0, 0, 0, 0))
    assert q(Binary("*", a, b)) == (10.0, 4.0, 18.0, (0, 0, 0, 0))
    assert q(Binary("/", b, a)) == (2.5, 4.0 / 3.0, 6.0, (0, 0, 0, 0))
    negative = interval(-3.0, -1.0)
    assert q(Binary("*", negative, b)) == (-10.0, -18.0, -4.0, (0, 0, 0, 0))
    assert q(Binary("/", b, negative)) == (-2.5, -6.0, -4.0 / 3.0, (0, 0, 0, 0))
    assert q(Binary("/", b, interval(-1.0, 3.0))) == (5.0, 5.0, 5.0, (0, 0, 0, 0))  # divisor spans 0
    assert q(Neg(a)) == (-2.0, -3.0, -1.0, (0, 0, 0, 0))


def test_an_exact_operand_has_no_interval():
    assert q(num(4096)) == (4096, 4096, 4096, (0, 0, 0, 0))
    assert q(num(7, digits=1, suffixes=[Suffix(scale="B")])) == (7e9, 7e9, 7e9, (0, 0, 0, 0))  # `7B`
    rounded = num(134, digits=3, suffixes=[Suffix(scale="M")])  # `134M`
    assert q(rounded) == (134e6, 133.5e6, 134.5e6, (0, 0, 0, 0))
    assert q(num(1600, 100, digits=2, rounded_zeros=True)) == (1600, 1600, 1600, (0, 0, 0, 0))


def test_units_and_dimensions():
    gb = num(2, suffixes=[Suffix(unit="GB")])
    per_s = num(100, per=[Suffix(seconds=1.0)])
    assert q(gb) == (2e9, 2e9, 2e9, BYTE)
    assert q(gb, BINARY) == (2 * 2.0**30, 2 * 2.0**30, 2 * 2.0**30, BYTE)
    assert q(Binary("/", gb, num(4, suffixes=[Suffix(seconds=1.0)]))) == (5e8, 5e8, 5e8, RATE)
    assert q(Binary("*", per_s, num(60, suffixes=[Suffix(seconds=1.0)]))) == (6000, 6000, 6000, (0, 0, 0, 0))
    with pytest.raises(Inconsistent):
        Binary("+", gb, num(1, suffixes=[Suffix(seconds=1.0)])).evaluate(PLAIN)
    with pytest.raises(Inconsistent):
        Binary("-", gb, num(1)).evaluate(PLAIN)
    ms = num(5, suffixes=[Suffix(seconds=1e-3)])
    assert q(ms) == (5e-3, 5e-3, 5e-3, SECOND)


def test_operand_factors():
    gbit = num(10, suffixes=[Suffix(unit="Gb")])
    assert gbit.factor(PLAIN) == 1e9 / 8
    assert gbit.factor(PLAIN, bits_counted=True) == 1e9
    assert gbit.factor(PLAIN, mantissa_only=True) == 1.0
    assert gbit.has_bits and not num(1, suffixes=[Suffix(unit="GB")]).has_bits
    assert num(1, per=[Suffix(unit="Gbps")]).has_bits
    per_bit = num(1, suffixes=[Suffix(unit="GB")], per=[Suffix(unit="Gb")])
    assert per_bit.factor(PLAIN, bits_counted=True) == 1e9 / (1e9 / 8) / 8
    tflops = num(17.6, suffixes=[Suffix(scale="T"), Suffix(unit="FLOPs")])
    assert tflops.factor(BINARY) == 1e12  # T is 10¹² before FLOPs, in either reading
    assert num(1, suffixes=[Suffix(scale="T")]).factor(BINARY) == 2.0**40
    pct = num(50, percent=True)
    assert pct.factor(PLAIN) == 0.01 and pct.factor(Reading(percent_fraction=False)) == 1.0
    b = num(7, suffixes=[Suffix(scale="B")])
    assert b.factor(PLAIN) == 1e9 and b.factor(Reading(b_bytes=frozenset([id(b)]))) == 1.0
    assert b.dims(Reading(b_bytes=frozenset([id(b)]))) == BYTE and b.dims(PLAIN) == (0, 0, 0, 0)
    wan = num(3, suffixes=[Suffix(factor=1e4)])
    assert wan.factor(PLAIN) == 3e4 / 3 and wan.has_scale and not wan.has_unit
    per_gb = num(2, per=[Suffix(unit="GB")])
    assert per_gb.factor(PLAIN) == 1e-9 and per_gb.has_unit
    assert per_gb.value(PLAIN) == 2e-9


def test_scale_factor():
    tokens = num(60, suffixes=[Suffix(scale="K"), Suffix(label=True)])
    assert tokens.scale_factor(PLAIN) == 1e3 and tokens.scale_factor(BINARY) == 1024
    assert num(3, suffixes=[Suffix(factor=1e4)]).scale_factor(PLAIN) == 1e4
    assert num(3, suffixes=[Suffix(unit="GB")]).scale_factor(PLAIN) == 1.0
    b = num(7, suffixes=[Suffix(scale="B")])
    assert b.scale_factor(PLAIN) == 1e9 and b.scale_factor(Reading(b_bytes=frozenset([id(b)]))) == 1.0


def test_flops_as_a_rate():
    flops = num(5, suffixes=[Suffix(unit="TFLOPS")])
    assert flops.flop_ambiguous
    assert flops.dims(PLAIN) == (0, 0, 1, 0)
    assert flops.dims(Reading(rates=frozenset([id(flops)]))) == (-1, 0, 1, 0)


@pytest.mark.parametrize(
    ("digits", "decimal", "suffixes", "zeros", "rounded"),
    [
        (1, True, [], False, False),  # `0.1`: one digit allows anything
        (2, True, [], False, True),  # `0.0294`
        (3, False, [], False, False),  # `4096`
        (3, False, [Suffix(scale="M")], False, True),  # `134M`
        (3, False, [Suffix(scale="K")], True, False),  # `100K`
        (2, False, [Suffix(unit="GB")], False, True),  # `15 GB`
        (2, False, [Suffix(unit="bytes")], False, False),  # `16 bytes`
    ],
)
def test_rounded(digits, decimal, suffixes, zeros, rounded):
    assert num(1, digits=digits, decimal=decimal, suffixes=suffixes, rounded_zeros=zeros).rounded is rounded


def test_powers():
    assert q(Binary("^", num(2), num(10))) == (1024, 1024, 1024, (0, 0, 0, 0))
    assert q(Binary("^", num(4), num(0.5))) == (2.0, 2.0, 2.0, (0, 0, 0, 0))
    assert q(Binary("^", num(-2), num(3))) == (-8, -8, -8, (0, 0, 0, 0))
    assert q(Binary("^", num(2), num(-1))) == (0.5, 0.5, 0.5, (0, 0, 0, 0))
    assert q(Binary("^", interval(1.0, 3.0), num(2))) == (4.0, 1.0, 9.0, (0, 0, 0, 0))
    assert q(Binary("^", interval(-1.0, 3.0), num(2))) == (1.0, 1.0, 1.0, (0, 0, 0, 0))
    assert q(Binary("^", num(3, suffixes=[Suffix(seconds=1.0)]), num(2))) == (9, 9, 9, (2, 0, 0, 0))
    assert q(Binary("^", num(0), num(2))) == (0, 0, 0, (0, 0, 0, 0))
    assert q(Binary("^", num(10), num(300))) == (1e300, 1e300, 1e300, (0, 0, 0, 0))


@pytest.mark.parametrize(
    ("base", "exponent", "why"),
    [
        (num(2), num(2, suffixes=[Suffix(seconds=1.0)]), "an exponent with a unit, or a unit to a fractional power"),
        (num(2, suffixes=[Suffix(seconds=1.0)]), num(0.5), "an exponent with a unit, or a unit to a fractional power"),
        (num(2, suffixes=[Suffix(seconds=1.0)]), num(-1), "an exponent with a unit, or a unit to a fractional power"),
        (num(0), num(-1), "zero to a negative power"),
        (num(-8), num(0.5), "a negative number to a fractional power"),
        (num(10), num(301), BEYOND_FLOAT),
        (num(0.1), num(-301), BEYOND_FLOAT),
    ],
)
def test_powers_refused(base, exponent, why):
    with pytest.raises(Uncertain) as raised:
        Binary("^", base, exponent).evaluate(PLAIN)
    assert str(raised.value) == why and type(raised.value) is Uncertain


def test_beyond_float_and_division_by_zero():
    with pytest.raises(Uncertain, match="^a number beyond floating point range$"):
        Binary("*", num(1e300), num(1e300)).evaluate(PLAIN)
    with pytest.raises(Uncertain, match="^division by zero$"):
        Binary("/", num(1), num(0)).evaluate(PLAIN)


def test_roots_and_functions():
    assert q(Sqrt(interval(3.0, 5.0))) == (2.0, math.sqrt(3.0), math.sqrt(5.0), (0, 0, 0, 0))
    assert q(Sqrt(interval(-1.0, 3.0))) == (1.0, 0.0, math.sqrt(3.0), (0, 0, 0, 0))
    area = Binary("*", num(4, suffixes=[Suffix(seconds=1.0)]), num(9, suffixes=[Suffix(seconds=1.0)]))
    assert q(Sqrt(area)) == (6.0, 6.0, 6.0, SECOND)
    for bad in (num(-4), num(4, suffixes=[Suffix(seconds=1.0)])):
        with pytest.raises(Uncertain, match="^square root of a negative or of a unit$"):
            Sqrt(bad).evaluate(PLAIN)
    assert q(Func("log2", num(8))) == (3.0, 3.0, 3.0, (0, 0, 0, 0))
    assert q(Func("exp", num(0))) == (1.0, 1.0, 1.0, (0, 0, 0, 0))
    assert q(Func("exp", num(-1)))[0] == math.exp(-1)
    assert q(Func("log2", interval(2.0, 6.0))) == (2.0, 1.0, math.log2(6.0), (0, 0, 0, 0))
    for name, arg in (("log", num(0)), ("sqrt", num(-1)), ("exp", num(1, suffixes=[Suffix(unit="GB")]))):
        with pytest.raises(Uncertain, match=f"^{name} of a unit or of a number out of its range$"):
            Func(name, arg).evaluate(PLAIN)
    with pytest.raises(Uncertain, match="^too large$"):
        Func("exp", num(1000)).evaluate(PLAIN)
    assert q(BigO(num(5))) == (5, 5, 5, (0, 0, 0, 0))


def test_symbols():
    n = Symbol("n_token")
    with pytest.raises(Uncertain, match="^n_token has no value$"):
        n.evaluate(PLAIN)
    assert q(n, Reading(symbol=7.3)) == (7.3, 7.3, 7.3, (0, 0, 0, 0))
    product = Binary("*", num(2), n)
    assert product.symbols() == [n] and Neg(product).symbols() == [n] and num(1).symbols() == []
    assert product.operands() == [product.left]


def test_conversion_factors_and_ones():
    sixty, minutes = num(60), num(5, suffixes=[Suffix(seconds=60.0)])
    product = Binary("*", minutes, sixty)
    assert conversion_factors(product) == [(sixty, 60.0)]
    assert q(product, Reading(ones=frozenset([id(sixty)])))[0] == 300.0
    assert q(product, Reading(ones=frozenset([id(product)])))[0] == 1.0
    power = Binary("^", num(2), num(30))
    assert conversion_factors(Binary("/", num(7), power)) == [(power, 2.0**30)]
    assert conversion_factors(Binary("^", num(2), num(3))) == [(Binary("^", num(2), num(3)), 8.0)]
    assert conversion_factors(Binary("^", num(10), num(400))) == []  # an overflow is no factor
    assert conversion_factors(Binary("^", num(2), num(5))) == []
    assert conversion_factors(num(60, suffixes=[Suffix(unit="GB")])) == []
    assert conversion_factors(num(60, percent=True)) == []
    assert conversion_factors(Binary("+", sixty, num(24))) == []
    assert conversion_factors(Neg(sixty)) == []


def test_tree_helpers():
    a, b, c = num(16), num(2), num(3)
    chain = Binary("*", Binary("/", a, b), c)  # `16 / 2 * 3`
    grouped = divisor_grouped(chain)
    assert grouped == Binary("/", a, Binary("*", b, c)) and q(grouped)[0] == 16 / 6
    assert divisor_grouped(Binary("/", a, b)) is None  # nothing after the `/`
    assert divisor_grouped(Binary("/", Binary("/", a, b), c)) is None  # two `/`
    four = Binary("*", Binary("*", Binary("/", Binary("*", c, a), b), c), a)  # `3 × 16 / 2 × 3 × 16`
    assert divisor_grouped(four) == Binary("/", Binary("*", c, a), Binary("*", Binary("*", b, c), a))
    assert first_operand(chain) is a and first_operand(Binary("^", a, b)) == Binary("^", a, b)
    assert first_operand(Neg(a)) == Neg(a)
    assert has_operator(chain) and not has_operator(a)
    assert written_leaf(Neg(a)) is a and written_leaf(a) is a and written_leaf(chain) is None
    assert is_ratio(Binary("/", a, b)) and not is_ratio(Binary("*", a, b))
    assert is_ratio(Binary("*", num(2, times=True), b)) and not is_ratio(BigO(Binary("/", a, b)))
    new = num(5)
    swapped = substituted(Binary("+", Neg(a), Func("log2", Sqrt(a))), a, new)
    assert swapped.left.arg is new and swapped.right.name == "log2" and swapped.right.arg.arg is new
    assert type(swapped.right.arg) is Sqrt and q(swapped)[0] == -5 + math.log2(math.sqrt(5))
    assert substituted(b, a, new) is b


def test_a_quantity_is_plain_data():
    assert Quantity(1.0, 0.5, 1.5) == Quantity(1.0, 0.5, 1.5, (0, 0, 0, 0))


def test_edges_of_powers_roots_and_signs():
    """Survivors of the first run: zero and fractional bases, a unit to the power 0, the root of
    zero and of less than one, dimensions kept through + − and a sign, an overflow below zero."""
    assert q(Binary("^", num(0), num(0))) == (1, 1, 1, (0, 0, 0, 0))
    assert q(Binary("^", num(0), num(0.5))) == (0, 0, 0, (0, 0, 0, 0))
    assert q(Binary("^", num(0.25), num(0.5))) == (0.5, 0.5, 0.5, (0, 0, 0, 0))
    assert q(Binary("^", num(3, suffixes=[Suffix(seconds=1.0)]), num(0))) == (1, 1, 1, (0, 0, 0, 0))
    assert q(Binary("^", interval(0.0, 2.0), num(2))) == (1.0, 1.0, 1.0, (0, 0, 0, 0))  # lo at 0: no ends
    assert q(Sqrt(num(0))) == (0.0, 0.0, 0.0, (0, 0, 0, 0))
    assert q(Sqrt(interval(0.04, 0.36)))[:3] == pytest.approx((math.sqrt(0.2), 0.2, 0.6))
    gb = num(2, suffixes=[Suffix(unit="GB")])
    assert q(Neg(gb))[3] == BYTE
    assert q(Binary("+", gb, gb))[3] == BYTE and q(Binary("-", gb, gb))[3] == BYTE
    assert q(Binary("/", gb, interval(-1.0, 3.0)))[3] == BYTE  # a divisor spanning 0 keeps the units
    with pytest.raises(Uncertain, match="^a number beyond floating point range$"):
        Binary("*", num(-1e300), num(1e300)).evaluate(PLAIN)
    assert conversion_factors(Binary("^", Binary("+", num(1), num(1)), num(10))) == []
    assert conversion_factors(Binary("^", num(2, suffixes=[Suffix(unit="GB")]), num(3))) == []
