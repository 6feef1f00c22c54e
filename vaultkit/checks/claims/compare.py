"""Judging a written value against the computed one, at the precision it is written with.

- A written value's precision is one unit of its last significant digit: `0.5 MB` → 0.1 MB,
  `280 GB` → 10 GB (trailing zeros of an integer are not significant), `1600 万` → 100 万; an
  integer of seven digits or more (`2,097,150`) counts every digit.
- `=` passes when the value is a rounding (or a truncation) of the computed one at that
  precision; `≈ ~ ≅` pass within one full unit. `2 × 3 = 6`-style claims between plain
  integers must be exact. Trailing zeros widen what passes only up to 5 %: `100 亿` is not a
  rounding of 60 亿.
- A value written more precisely than its rounded inputs (`128 × 134M = 17,179,869,184`,
  `0.0294 × 4096 = 120.2`) was computed from what they round: the interval their rounding
  allows is its tolerance (inputs of one significant digit, `7B`, `1TB`, are taken as exact).
- Otherwise it is an error when it is off by more than 5 %, or by a whole unit of its
  precision or more (two for `≈`: `2 × 700B = 1401B` is wrong); else a warning (imprecise). `4096² = 1600 万` is a warning: 1677.7 万
  is 4.6 % off and within one unit; `512² = 100 亿` and `8KB × 1024 ≈ 6MB` are errors.
- Both sides must have one dimension (a time is not a size: `1GB / 50 ≈ 20ms` is skipped);
  with no unit or scale on any input the result's unit only labels it (`28 + 56 = 84GB`).
- A claim whose result has a dimension its inputs lack is not self-contained: what it lacks
  may be written near it (`context`: a unit, a clock's `GHz`, `fp32`, the unit written for the
  same number), and with it the claim holds or is judged. A size computed from counts that
  holds only at 2, 4 or 8 bytes an element not written near is a warning that says so, not an
  error; a slip of a prefix (1000×) or a factor no unit carries stays an error. A rate compared
  with a size (`× 4B × 40 = 4070GB/s`, a clock in MHz) leaves its per second as a label.
- Every reading of ambiguous units (GB as 10⁹ or 2³⁰, B as billion or bytes, % as /100 or as a
  label when only one side has it, FLOPs as a count or a rate) is tried, one reading for the
  whole claim (every `B` in it is bytes, or every one is billions); the best verdict wins: an
  error is reported only when the claim is wrong under every reading.
"""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass, replace

from vaultkit.checks.claims.expr import (
    CONVERSIONS,
    MAX_RATE_READINGS,
    Binary,
    Inconsistent,
    Neg,
    Node,
    Operand,
    Quantity,
    Reading,
    Uncertain,
    conversion_factors,
    has_bare_log,
    substituted,
    written_leaf,
)
from vaultkit.checks.claims.units import BYTE, NONE, PER_SECOND, UNITS, Near, sub

PASS, WARNING, ERROR = 0, 1, 2
BINARY = "K, M, G as powers of two (1 GB = 2³⁰ bytes)"
# A result written with few digits and no scale, from inputs with none (`768 x 768 = 0.59`):
# the author may have left its scale off, in thousands, millions, … or powers of 2¹⁰.
IMPLICIT = {
    "thousands": 1e3,
    "millions": 1e6,
    "billions": 1e9,
    "trillions": 1e12,
    "units of 2¹⁰": 2.0**10,
    "units of 2²⁰": 2.0**20,
    "units of 2³⁰": 2.0**30,
    "units of 2⁴⁰": 2.0**40,
}
MAX_IMPLICIT_DIGITS = 3
LOG_BASES = (math.e, 2.0, 10.0)  # `2*log(128) = 14` in bits: a bare log may be in any of them
CONTEXT = "in the unit "  # the mode of a reading in a unit written near the claim
RESULT_IN = "the result in "  # the mode of a bare result in a unit written near, its inputs in base units
IN_BITS = "in bits"  # the mode of bare inputs counted in bits for a result in bytes
RATE_LABEL = "a rate's /s as a label"  # the mode of a size compared with a rate (a clock's cycles unwritten)
ERROR_REL = 0.05
_EPS = 1e-12


@dataclass
class Verdict:
    level: int
    computed: str  # the computed value, in the units the value is written with
    tolerated: bool = False  # it passes only within the rounding of its inputs
    factor: float = 1.0  # how many times too large or too small the written value is
    reading: str = ""  # the reading of the units that made it hold, when it is not the plain one
    value: float = math.nan  # the computed value, in the units the value is written with
    unstated: str = ""  # the reading, not written near the claim, under which it holds (a warning)


def _readings(nodes: list[Node], percent_label: bool) -> list[Reading]:
    """Every way to read the ambiguous units of a whole claim, the same way on both sides
    (but each `FLOPs` may be a count or a rate)."""
    leaves = [leaf for node in nodes for leaf in node.operands()]
    suffixes = [s for leaf in leaves for s in leaf.suffixes + leaf.per]
    binary = [False, True] if any(s.unit or s.scale not in ("", "B") for s in suffixes) else [False]
    b_bytes = _subsets([id(leaf) for leaf in leaves if any(s.scale == "B" for s in leaf.suffixes)])
    fraction = [True, False] if percent_label else [True]
    rates = _subsets([id(leaf) for leaf in leaves if leaf.flop_ambiguous])
    bases = LOG_BASES if any(has_bare_log(node) for node in nodes) else (math.e,)
    return [
        Reading(*combo[:3], rates=combo[3], log_base=combo[4])
        for combo in itertools.product(binary, b_bytes, fraction, rates, bases)
    ]


def _subsets(ids: list[int]) -> list[frozenset]:
    """Every choice of which of `ids` read the other way (`7B × 2B = 14 GB`: 7 billion
    parameters of 2 bytes); with more than a few, all of them or none."""
    if len(ids) <= MAX_RATE_READINGS:
        return [frozenset(itertools.compress(ids, mask)) for mask in itertools.product([False, True], repeat=len(ids))]
    return [frozenset(), frozenset(ids)]


def _has_percent(node: Node) -> bool:
    return any(leaf.percent for leaf in node.operands())


@dataclass
class _Written:
    value: float
    unit: float  # one unit of its precision
    factor: float  # of its units
    truncation: bool  # a truncation is a plausible way to have written it (not for 1600)
    zeros: bool  # the precision comes from an integer's trailing zeros
    dims: tuple


def _written(value: Node, reading: Reading, mode: str, loose: bool) -> _Written:
    """The written value under a reading; `mode`: "base" (in base units), "bits" (its bits
    counted as such: `10B × 2 = 20Gb`), "mantissa" (its unit and scale only label it:
    `134*2+1 = 269M`), "scaled" (its unit only: `1000 × 60 = 60K tokens/min`) or a key of
    `IMPLICIT` (a scale left off: `768 x 768 = 0.59` in millions)."""
    leaf = written_leaf(value)
    sign = -1.0 if isinstance(value, Neg) else 1.0
    if leaf is not None:
        if mode in IMPLICIT:
            factor = IMPLICIT[mode]
        elif mode == "scaled":
            factor = leaf.scale_factor(reading)
        else:
            factor = leaf.factor(reading, mode == "mantissa", mode == "bits")
        exact = leaf.exact_claim and not loose  # 2,097,150: every digit is written to count
        unit = 1.0 if exact else leaf.unit_digit
        zeros = leaf.rounded_zeros and not exact
        return _Written(sign * leaf.mantissa * factor, unit * factor, factor, not zeros, zeros, leaf.dims(reading))
    q = value.evaluate(reading)
    rel = max((x.unit_digit / abs(x.mantissa) for x in value.operands() if x.mantissa), default=0.0)
    # as precise as its inputs, or as the interval their rounding allows (`√(2.0964 - 2.0851)`)
    return _Written(q.value, max(rel * abs(q.value), q.hi - q.lo), 1.0, False, True, q.dims)


def _input_tolerance(expr: Node, value: Node, loose: bool) -> bool:
    """Whether the rounding of the inputs (`134M`, `0.0294`) gives the result its tolerance:
    only for a result written more precisely than every rounded input in digits, or than the
    coarsest relative to its size (`109M × 4 bytes = 437 MB`, `2039 GB/s × 0.083 = 169.7`), since it was then
    computed from values those inputs round (`128 × 134M = 17,179,869,184`). A 7-digit
    integer computed from the written numbers themselves (`65,536 × 268M = 17,563,713M`, in
    the inputs' own scale) must be exact."""
    rounded = [op for op in expr.operands() if op.rounded]
    leaf = written_leaf(value)
    if not rounded or leaf is None:
        return False
    if leaf.exact_claim and not loose:
        plain = Reading()
        unit = leaf.factor(plain)
        return all(unit < op.unit_digit * op.factor(plain) for op in rounded)
    coarsest = max(op.unit_digit / abs(op.mantissa) for op in rounded)
    finer = leaf.mantissa != 0 and leaf.unit_digit / abs(leaf.mantissa) < coarsest
    return leaf.digits > max(op.digits for op in rounded) or finer


def _level(q, w: _Written, loose: bool, tolerance: bool, floor: bool = False) -> int:
    """PASS, WARNING or ERROR of a computed quantity `q` against a written value. `≈` passes
    within its rounding, or within one unit of it when that is not far (`4.77 ≈ 4` is imprecise);
    a truncation far from the value (`256 / 144 = 1`) passes only when `floor` (the text floors)."""
    computed, written, unit = q.value, w.value, w.unit
    diff = abs(computed - written)
    if tolerance:  # how far the written value is from what the rounded inputs allow
        diff = min(diff, max(q.lo - written, written - q.hi, 0.0))
    slack = _EPS * max(abs(computed), abs(written))
    far = diff > ERROR_REL * abs(computed) + slack
    if loose:
        passes = diff <= unit / 2 + slack or diff <= unit + slack and not far
        if not passes and diff <= unit + slack and not w.zeros:
            return WARNING
    else:
        truncated = w.truncation and computed * written >= 0 and abs(written) <= abs(computed) < abs(written) + unit
        passes = diff <= unit / 2 + slack or truncated and (floor or not far)
    if passes and not (w.zeros and far):
        return PASS
    if far or diff >= (2 * unit if loose else unit) - slack:
        return ERROR
    return WARNING


def _symbol_value(expr: Node, value: Node) -> float:
    """1 when named quantities (`× n_token`) cancel out of `expr / value`, 0 when there are none;
    raises Uncertain when they do not cancel."""
    if not expr.symbols() and not value.symbols():
        return 0.0
    ratios = []
    for symbol in (1.0, 7.3):
        reading = Reading(symbol=symbol)
        try:
            ratios.append(expr.evaluate(reading).value / value.evaluate(reading).value)
        except (OverflowError, ZeroDivisionError):
            raise Uncertain("a named quantity does not cancel out") from None
    if not math.isclose(*ratios, rel_tol=1e-9):
        raise Uncertain("a named quantity does not cancel out")
    return 1.0


def _unit_factors(node: Node) -> list[tuple[tuple, float, bool]]:
    """(dimension, factor to base units, in bits) of every unit written in a node, both readings."""
    out = []
    for leaf in node.operands():
        for s in leaf.suffixes + leaf.per:
            if s.seconds:
                out.append((s.dims, s.seconds, False))
            elif s.unit:
                unit = UNITS[s.unit]
                out += [(unit.dims, unit.decimal, unit.bits), (unit.dims, unit.binary, unit.bits)]
    return out


def _conversions(expr: Node, value: Node) -> list[frozenset]:
    """The plain factors of `expr` that convert between a unit written in it and one of the
    value: × 60 between minutes and seconds, / 8 between bits and bytes, / 1024 between MB
    and GB. Without them the units would convert twice (`5 min × 60 = 300 s`)."""
    ours, theirs = _unit_factors(expr), _unit_factors(value)
    ratios = {8.0} if {bits for _, _, bits in ours} ^ {bits for _, _, bits in theirs} else set()
    for dims, a, _ in ours:
        for other, b, _ in theirs:
            if dims == other and a != b:  # a bit's factor is already an eighth of a byte
                ratios |= {a / b, b / a}
    factors = conversion_factors(expr)
    found = [frozenset([id(node)]) for node, v in factors if any(math.isclose(v, r, rel_tol=1e-9) for r in ratios)]
    if len(factors) > 1 and any(math.isclose(math.prod(v for _, v in factors), r, rel_tol=1e-9) for r in ratios):
        found.append(frozenset(id(node) for node, _ in factors))  # `3.15e8 s / 86400 / 365 ≈ 10 years`
    return found


def _counts_only(expr: Node) -> bool:
    """No operand has a unit or a percent: numbers and their scales only."""
    return not any(op.has_unit or op.percent for op in expr.operands())


def _named_conversions(expr: Node, value: Node) -> list[frozenset]:
    """Factors written with the unit they convert to: `bytes / (1024^3 GB) = 7.92 GB` divides by
    one GB; read as 1, the bytes convert by the value's own unit."""
    units = {s.unit for op in value.operands() for s in op.suffixes if s.unit}
    found = []
    for node, number, unit in _factors_with_units(expr):
        if unit in units and any(
            math.isclose(number, f, rel_tol=1e-9) for f in (UNITS[unit].decimal, UNITS[unit].binary)
        ):
            found.append(frozenset([id(node)]))
    return found


def _factors_with_units(node: Node) -> list[tuple[Node, float, str]]:
    """(node, its number, its unit) of each factor of a product written as a number and one unit
    (`1024^3 GB`, `1e9 bytes`)."""
    if isinstance(node, Binary) and node.op in "*/":
        own = _factor_with_unit(node)
        return [own] if own else _factors_with_units(node.left) + _factors_with_units(node.right)
    own = _factor_with_unit(node)
    return [own] if own else []


def _factor_with_unit(node: Node) -> tuple[Node, float, str] | None:
    if isinstance(node, Operand):
        unit = _one_unit(node)
        return (node, node.mantissa, unit) if unit and node.mantissa in CONVERSIONS else None
    if isinstance(node, Binary) and node.op == "*" and isinstance(node.right, Operand) and node.right.mantissa == 1.0:
        unit = _one_unit(node.right)  # `1024^3 GB`: a unit written after a power
        numbers = [v for factor, v in conversion_factors(node.left) if factor is node.left] if unit else []
        if numbers:
            return node, numbers[0], unit
    return None


def _one_unit(op: Operand) -> str:
    """The unit of an operand written with exactly one (and per nothing), or ""."""
    units = [s.unit for s in op.suffixes if s.unit]
    return units[0] if len(units) == 1 and not op.per else ""


def judge(
    expr: Node,
    value: Node,
    *,
    loose: bool,
    inputs_rounded: bool = True,
    floor: bool = False,
    context: tuple[Near, ...] = (),
) -> Verdict:
    """The best verdict over all readings (see `_judge`); a claim wrong under them may still
    hold, and is then read as right, with its bare inputs in the units written for the same
    numbers near it (`context`), or as a link of a ladder of units (`1e3 TFlops = 1e3 GFlops` in
    `PFlops = 1e3 TFlops = 1e3 GFlops`: one TFlops is 1e3 GFlops, each link stepping by the
    factor both sides write)."""
    verdict = _judge(expr, value, loose=loose, inputs_rounded=inputs_rounded, floor=floor, context=context)
    if verdict.level != PASS and (same := _with_units_of_same_numbers(expr, context)) is not None:
        try:
            other = _judge(same[0], value, loose=loose, inputs_rounded=inputs_rounded, floor=floor)
        except Uncertain:
            other = None
        if other is not None and other.level == PASS:  # read only to pass
            reading = f"{same[1]}, the units written for the same numbers near it"
            return replace(other, reading=reading + (f"; {other.reading}" if other.reading else ""))
    if verdict.level == PASS or not _ladder_link(expr, value):
        return verdict
    one = replace(expr, mantissa=1.0, unit_digit=1.0, digits=1, decimal=False)
    try:
        link = _judge(one, value, loose=loose, inputs_rounded=False, floor=floor)
    except Uncertain:
        return verdict
    if link.level != PASS:
        return verdict
    return replace(link, reading=f"a ladder of units: one {_unit_name(expr)} is the value on the right")


def _unit_name(op: Operand) -> str:
    return " ".join(s.unit for s in op.suffixes if s.unit) or "unit of the left"


def _with_units_of_same_numbers(expr: Node, context: tuple[Near, ...]) -> tuple[Node, str] | None:
    """`expr` with each bare input given the unit its number is written with near the claim
    (`0.2606 MB` above `6.47 + (0.2606 × 50) × 1,200 = 21.7 GB`), and which; None if there is none."""
    units = {near.number: near for near in context if near.number}
    changed = []
    for op in expr.operands() if units else ():
        near = units.get(op.text)
        if near is not None and not (op.suffixes or op.per or op.percent):
            expr = substituted(expr, op, replace(op, suffixes=[near.suffix]))
            changed.append(near.name)
    return (expr, ", ".join(changed)) if changed else None


def _ladder_link(expr: Node, value: Node) -> bool:
    """Two single values of one dimension, written with different prefixes of one unit and the
    same number other than 1 (`1e3 TFlops = 1e3 GFlops`): may be a link of a ladder of units."""
    if not (isinstance(expr, Operand) and isinstance(value, Operand)):
        return False
    if not (expr.has_unit and value.has_unit) or expr.percent or value.percent:
        return False
    plain = Reading()
    same = expr.mantissa == value.mantissa != 1.0 and expr.dims(plain) == value.dims(plain)
    return same and _in_bits(expr) == _in_bits(value)  # `8 GB = 8 Gb` is no ladder of prefixes


def _in_bits(op: Operand) -> bool:
    return any(s.unit and UNITS[s.unit].bits for s in op.suffixes + op.per)


def _judge(
    expr: Node,
    value: Node,
    *,
    loose: bool,
    inputs_rounded: bool = True,
    floor: bool = False,
    context: tuple[Near, ...] = (),
) -> Verdict:
    """The best verdict over all readings; raises Uncertain when no reading is certain (the
    two sides in different units, a named quantity that does not cancel out).

    When no operand carries a unit or a scale, a unit written on the result labels it: the
    numbers are compared as written (`2 * 2 * 32 * 4096 / 10**6 = 0.131MB`), as well as in
    base units (`524,288 × 4096 = 2 GiB`). `inputs_rounded=False`: the inputs are taken as
    written (a chain whose first value is their exact result, `= 2.8304 ≈ 2.924`). `context`:
    what is written near the claim (`units.Near`): inputs with no unit may be in one of its units,
    converted in the head (`109.2 / 1,000 ≈ 6.6 minutes` under `109 hours`), or in a clock's scale
    (`1.41 GHz`), and counts of elements of the bytes it names (`fp32`). A result with a dimension
    no input has (a size from counts) that holds only at 2, 4 or 8 bytes an element not written
    near it is a warning (`Verdict.unstated`), not an error."""
    ten = _power_of_ten(value) if loose else None
    if ten is not None and not any(op.has_unit or op.has_scale or op.percent for op in expr.operands()):
        return _order_of_magnitude(expr, ten)
    percent_label = _has_percent(expr) != _has_percent(value)
    exact = not loose and all(leaf.plain_int for leaf in expr.operands() + value.operands())
    symbol = _symbol_value(expr, value)
    plain_expr = not any(op.has_unit or op.has_scale or op.percent for op in expr.operands())
    labelled = any(op.has_unit or op.has_scale for op in value.operands())
    unitless = not any(op.has_unit or op.has_scale for op in expr.operands())  # a percent is a number
    modes = ["base"] + (["mantissa", "scaled"] if unitless and labelled else [])
    if not plain_expr and _counts_only(expr) and any(op.has_unit for op in value.operands()):
        modes.append("mantissa")  # `(300 billion)*(8*13 billion)/(… *60*60*24) ≈ 31 days`
    if any(op.has_bits for op in value.operands()):
        modes.append("bits")
    tolerance = inputs_rounded and _input_tolerance(expr, value, loose)
    bare = not any(op.has_unit or op.has_scale or op.percent for op in value.operands())
    no_units = not any(op.has_unit or op.percent for op in expr.operands())  # `2 × 129K × 7168 ≈ 1.9` (billions)
    if no_units and bare and _scale_left_off(value):
        modes += list(IMPLICIT)
    best: tuple[int, float, str, bool, float] | None = None
    levels: dict[bool, int] = {}  # the best level with decimal (False) and binary (True) prefixes
    bare_pass: str | None = None  # `… × 2字节 ≈ 16384 × n_token`: right in the inputs' unit
    rate_pass: str | None = None  # right with the result's `/s` (or the inputs') only a label
    open_ended: list[tuple[Quantity, _Written]] = []  # a result with a dimension its inputs lack
    stated: tuple[float, str, str] | None = None  # the closest wrong reading in a unit written near
    conversions = _conversions(expr, value) if any(op.has_unit for op in expr.operands()) else []
    conversions += _named_conversions(expr, value)
    for reading in _readings([expr, value], percent_label):
        reading = replace(reading, symbol=symbol)
        try:
            q = expr.evaluate(reading)
            written = [_written(value, reading, mode, loose) for mode in modes]
        except Inconsistent:
            continue
        except (OverflowError, ZeroDivisionError):
            raise Uncertain("too large, or a division by zero") from None
        candidates = [(q, mode, w) for mode, w in zip(modes, written)]
        for ones in conversions:  # `5 min × 60 = 300 s`, `400 Gbps / 8 = 50 GB/s`: the units convert already
            try:
                converted = expr.evaluate(replace(reading, ones=ones))
            except (Inconsistent, OverflowError, ZeroDivisionError):
                continue
            candidates.append((converted, "base", written[0]))
        if plain_expr and q.dims == NONE and written[0].dims == BYTE:  # `2^{16} × 8 = 64 KB`: 8 bits a word
            candidates.append((Quantity(q.value / 8, q.lo / 8, q.hi / 8, BYTE), IN_BITS, written[0]))
        for near in context if plain_expr and q.dims == NONE else ():
            factor, name = near.binary if reading.binary else near.decimal, near.name
            if near.element:
                continue  # the bytes of an element: see `_missing_element`
            if near.dims == written[0].dims or near.dims == NONE and factor != 1.0:  # `1.41 GHz`: a clock's scale
                scaled = Quantity(q.value * factor, q.lo * factor, q.hi * factor, near.dims)
                candidates.append((scaled, CONTEXT + name, written[0]))
            elif bare and near.dims != NONE and factor != 1.0:  # `10^{-5} + … = 0.03 + 0.75 = 0.78 ms`: s in ms
                w = written[0]
                candidates.append(
                    (
                        q,
                        RESULT_IN + name,
                        replace(w, value=w.value * factor, unit=w.unit * factor, factor=w.factor * factor),
                    )
                )
        for q, mode, w in candidates:
            if mode not in ("base", IN_BITS) and not mode.startswith(CONTEXT) and q.dims != NONE:
                continue  # only a result that no input unit fixes is labelled by its own
            if q.dims != NONE and q.dims != w.dims:
                # a size is not a time; with no unit on the inputs, the value's unit labels it;
                # a bare value may leave the unit out, but is then read only to pass
                if bare and w.dims == NONE and _level(q, w, loose, tolerance, floor) == PASS:
                    bare_pass = _show(q.value / w.factor)
                elif (
                    PER_SECOND in (sub(w.dims, q.dims), sub(q.dims, w.dims))
                    and _level(q, w, loose, tolerance, floor) == PASS
                ):
                    rate_pass = _show(q.value / w.factor)  # `… × 4B × 40 = 4070GB/s`: the clock's /s unwritten
                continue
            if mode in ("base", "mantissa", "scaled") and q.dims != w.dims and not reading.b_bytes:
                # a dimension no input has (not a `B` taken for bytes: it is billions as often)
                open_ended.append((q, replace(w)))
            if exact and q.value == int(q.value):
                w.unit = 0.0
            level = _level(q, w, loose, tolerance, floor)
            if level != PASS and mode.startswith(CONTEXT):
                ratio = abs(math.log(abs(q.value / w.value))) if q.value and w.value else math.inf
                if stated is None or ratio < stated[0]:  # `1.41 GHz` above a wrong peak: shown in it
                    stated = (ratio, _show(q.value / w.factor), mode[len(CONTEXT) :])
            if level != PASS and (mode in IMPLICIT or mode.startswith((CONTEXT, RESULT_IN)) or mode == IN_BITS):
                continue  # a reading that is only allowed because it makes the claim right
            tolerated = tolerance and level < _level(q, w, loose, False, floor)
            closeness = abs(q.value - w.value) / (w.unit or 1.0)
            levels[reading.binary] = min(levels.get(reading.binary, ERROR), level)
            if best is None or (level, closeness) < best[:2]:
                off = abs(q.value / w.value) if q.value and w.value else math.inf
                shown = _show(q.value / w.factor) + (f" ({mode})" if mode in IMPLICIT else "")
                off = max(off, 1 / off) if off else math.inf
                best = (level, closeness, shown, tolerated, off, mode, q.value / w.factor)
    if best is None and bare_pass is not None:
        best = (PASS, 0.0, bare_pass, False, 1.0, "base", math.nan)
    if rate_pass is not None and (best is None or best[0] != PASS):
        best = (PASS, 0.0, rate_pass, False, 1.0, RATE_LABEL, math.nan)
    if best is None:
        raise Uncertain("the two sides are in different units")
    if best[0] != PASS and _may_be_binary(expr, value):
        raise Uncertain(MAY_BE_BINARY)
    names = [symbol.name for symbol in value.symbols()]
    binary = levels.get(True, ERROR) < levels.get(False, ERROR)  # `5 GiB`, `1 GB = 2³⁰ bytes`: say so
    if best[5] in IMPLICIT:
        reading = f"the result in {best[5]}, its scale left off"
    elif best[5] == IN_BITS:
        reading = "the inputs counted in bits, 8 to a byte"
    elif best[5].startswith(CONTEXT):
        reading = f"the inputs in {best[5][len(CONTEXT) :]}, the unit written near it"
    elif best[5] == RATE_LABEL:
        reading = "a rate's per second left as a label (a count in one second, a clock's cycles unwritten)"
    elif best[5].startswith(RESULT_IN):
        reading = f"the inputs in base units, the result in {best[5][len(RESULT_IN) :]} (the unit written near it)"
    else:
        reading = BINARY if binary else ""
    verdict = Verdict(best[0], " × ".join([best[2], *names]), best[3], best[4], reading, best[6])
    if verdict.level == PASS:
        return verdict
    # not self-contained: the bytes of an element may be outside the line, written near it or not
    elements = {near.decimal: near.name for near in context if near.element}
    sizes = [(size, q, w) for q, w in open_ended if (size := _missing_element(q, w, loose, tolerance, floor))]
    for size, q, w in sorted(sizes, key=lambda found: found[0] not in elements):
        if size in elements:
            reading = f"counts of elements of {size:g} bytes ({elements[size]}, written near it)"
            return replace(verdict, level=PASS, reading=reading, computed=_show(q.value * size / w.factor))
        unstated = f"the inputs are counts of elements of {size:g} bytes, which is not written near it"
        return replace(verdict, level=WARNING, unstated=unstated)
    if (  # wrong in the unit written near too: shown in it
        verdict.level == ERROR
        and stated is not None
        and stated[0] < math.log(verdict.factor)
        and stated[1] != verdict.computed
    ):
        return replace(verdict, computed=stated[1], reading=f"the inputs in {stated[2]}, the unit written near it")
    return verdict


ELEMENT_BYTES = (2.0, 4.0, 8.0)  # bytes an element (fp16/bf16, fp32, fp64) a count may leave unwritten


def _missing_element(q: Quantity, w: _Written, loose: bool, tolerance: bool, floor: bool) -> float:
    """The bytes of an element (2, 4 or 8) a size computed from counts leaves unwritten
    (`512 × 1024 = 2 MB`: 4 bytes), 0 if none makes it right. No other factor missing from a
    claim whose result has a dimension its inputs lack is a fair reading unless the note writes
    it near the claim (`1.41 GHz`, read as `context`): a slip of 1000× is an error, and so is a
    factor no unit carries (`2 × 32 × 32 × 128 × 2 = 262,144 bytes`: a half)."""
    if sub(w.dims, q.dims) != BYTE:
        return 0.0
    for size in ELEMENT_BYTES:
        if _level(Quantity(q.value * size, q.lo * size, q.hi * size, w.dims), w, loose, tolerance, floor) == PASS:
            return size
    return 0.0


MAY_BE_BINARY = "numerals of 0s and 1s may be binary"
BYTE_DIGITS = 8
_BINARY_DIGITS = re.compile(r"[01]+(?:\.[01]+)?")


def _numerals(node: Node) -> tuple[list[Operand], bool]:
    """The operands of a node but the powers of two it is scaled by (`1.100 × 2^1`), and
    whether there is one."""
    if isinstance(node, Binary) and node.op == "^" and isinstance(node.left, Operand) and node.left.mantissa == 2:
        return [], True
    if isinstance(node, Binary):
        (left, a), (right, b) = _numerals(node.left), _numerals(node.right)
        return left + right, a or b
    return node.operands(), False


def _right_in_binary(expr: Node, value: Node, operands: list[Operand]) -> bool:
    """The claim holds with every numeral read in base 2, in as many bits as its value is
    written with (`1101 + 0011 = 0000` overflows four bits, `1+1 = 0` one)."""
    for op in operands:
        whole, _, fraction = op.text.partition(".")
        number = int(whole + fraction, 2) / 2 ** len(fraction)
        expr, value = (
            substituted(expr, op, replace(op, mantissa=number)),
            substituted(value, op, replace(op, mantissa=number)),
        )
    try:
        ours, theirs = expr.evaluate(Reading()).value, value.evaluate(Reading()).value
    except (Uncertain, OverflowError, ZeroDivisionError):
        return False
    leaf = written_leaf(value)
    bits = len(leaf.text.partition(".")[0]) if leaf is not None else 0
    if bits and ours == int(ours) and theirs == int(theirs):
        return (ours - theirs) % 2**bits == 0
    return math.isclose(ours, theirs, rel_tol=1e-9, abs_tol=1e-12)


def _may_be_binary(expr: Node, value: Node) -> bool:
    """`0011 + 1 = 0100`, `2×1011 = 10110`, `1 + 1 = 10`: a bare numeral of 0s and 1s with a
    leading zero, or of five digits or more that change three times (not `1110000`) and hold a
    byte or make the claim right read in base 2 with the other 0-and-1 numerals, or both
    sides scaled by powers of two (`10.0000 × 2^2 = 1.0000 × 2^3`), may be binary; so may
    numerals all of 0s and 1s (whole, or one a binary fraction such as `1.010`) that are right
    read in base 2 or hold a byte (`-0 = 11111111`)."""
    (ours, scaled), (theirs, scaled_too) = _numerals(expr), _numerals(value)
    operands = ours + theirs
    if scaled and scaled_too and all(_BINARY_DIGITS.fullmatch(op.text) for op in operands):
        return True
    texts = [op.text for op in operands if op.text]
    binary = [op.text for op in operands if _BINARY_DIGITS.fullmatch(op.text) and not op.suffixes and not op.percent]
    fraction = any("1" in t.partition(".")[2] for t in binary)
    if len(texts) >= 2 and len(binary) == len(texts) and (fraction or not any("." in t for t in binary)):
        byte = any(len(t) >= BYTE_DIGITS for t in binary)  # `-0 = 10000000`: a byte's bits
        if byte or _right_in_binary(expr, value, operands):
            return True  # `1 + 1 = 10`, `1+1 = 0`, not `100 + 100 = 100`
    for t in binary:
        digits = t.replace(".", "").rstrip("0") if "." in t else t  # `0.1000` is 0.1
        runs = len(re.findall(r"0+|1+", digits))
        if len(t) > 1 and t[0] == "0" and t[1] != ".":
            return True  # a leading zero: bits, in a width or code the line may not say
        if len(digits) >= 5 and runs >= 3:
            looks = [op for op in operands if _BINARY_DIGITS.fullmatch(op.text)]
            if len(t) >= BYTE_DIGITS or _right_in_binary(expr, value, looks):
                return True  # `11011 + 1 = 28`; not `10001 × 1 = 5000.5`, wrong in either base
    return False


def _power_of_ten(value: Node) -> int | None:
    """k of a value written as a bare power of ten, `10^{30}` or `10¹⁵`; None otherwise."""
    if not (isinstance(value, Binary) and value.op == "^"):
        return None
    base, k = value.left, value.right
    if not (isinstance(base, Operand) and isinstance(k, Operand) and base.mantissa == 10 and not base.suffixes):
        return None
    return int(k.mantissa) if k.mantissa == int(k.mantissa) and not k.suffixes else None


def _order_of_magnitude(expr: Node, ten: int) -> Verdict:
    """`2^{100} ≈ 10^{30}`: a power of ten after `≈` gives an order of magnitude, right within
    half of one (a factor of √10 either way)."""
    try:
        q = expr.evaluate(Reading())
    except (OverflowError, ZeroDivisionError, Inconsistent):
        raise Uncertain("too large, or a division by zero") from None
    if q.dims != NONE:
        raise Uncertain("the two sides are in different units")
    right = q.value > 0 and abs(math.log10(q.value) - ten) <= 0.5
    return Verdict(PASS if right else ERROR, _show(q.value), reading=f"10^{ten} as an order of magnitude")


def _scale_left_off(value: Node) -> bool:
    """A bare result written with a decimal point and few digits (`0.59`, `4.72`) may be in a
    scale the author left off; an integer (`1048`) or a longer number claims what it says."""
    leaf = written_leaf(value)
    return leaf is not None and leaf.decimal and leaf.digits <= MAX_IMPLICIT_DIGITS


def _show(value: float) -> str:
    """Seven significant digits, with thousands separators when large."""
    if value == 0:
        return "0"
    if abs(value) >= 1e15 or abs(value) < 1e-4:
        return f"{value:.7g}"
    decimals = max(0, 6 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
