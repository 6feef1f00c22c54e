"""Judging a written value against the computed one, at the precision it is written with.

- A written value's precision is one unit of its last significant digit: `0.5 MB` → 0.1 MB,
  `280 GB` → 10 GB (trailing zeros of an integer are not significant), `1600 万` → 100 万.
- `=` passes when the value is a rounding (or a truncation) of the computed one at that
  precision; `≈ ~ ≅` pass within one full unit. `2 × 3 = 6`-style claims between plain
  integers must be exact. Trailing zeros widen what passes only up to 5 %: `100 亿` is not a
  rounding of 60 亿.
- Otherwise it is an error when it is off by more than 5 %, or by a whole unit of its
  precision or more (two for `≈`: `2 × 700B = 1401B` is wrong); else a warning (imprecise). `4096² = 1600 万` is a warning: 1677.7 万
  is 4.6 % off and within one unit; `512² = 100 亿` and `8KB × 1024 ≈ 6MB` are errors.
- Every reading of ambiguous units (GB as 10⁹ or 2³⁰, B as billion or bytes, % as /100 or as a
  label when only one side has it) is tried, one reading for the whole claim (every `B` in it
  is bytes, or every one is billions); the best verdict wins: an error is reported only when
  the claim is wrong under every reading.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace

from .parser import Neg, Node, Reading, Uncertain, written_leaf

PASS, WARNING, ERROR = 0, 1, 2
ERROR_REL = 0.05
_EPS = 1e-9


@dataclass
class Verdict:
    level: int
    computed: str  # the computed value, in the units the value is written with


def _readings(nodes: list[Node], percent_label: bool) -> list[Reading]:
    """Every way to read the ambiguous units of a whole claim, the same way on both sides."""
    leaves = [leaf for node in nodes for leaf in node.operands()]
    suffixes = [s for leaf in leaves for s in leaf.suffixes]
    binary = [False, True] if any(s.byte_unit or s.scale not in ("", "B") for s in suffixes) else [False]
    b_bytes = [False, True] if any(s.scale == "B" for s in suffixes) else [False]
    fraction = [True, False] if percent_label else [True]
    return [Reading(*combo) for combo in itertools.product(binary, b_bytes, fraction)]


def _has_percent(node: Node) -> bool:
    return any(leaf.percent for leaf in node.operands())


def _written(value: Node, reading: Reading) -> tuple[float, float, float, bool, bool]:
    """Written value, one unit of its precision, the factor of its units, whether a truncation
    is a plausible way to have written it (not for 1600: its zeros are rounded), and whether
    the precision comes from trailing zeros."""
    leaf = written_leaf(value)
    sign = -1.0 if isinstance(value, Neg) else 1.0
    if leaf is not None:
        factor = leaf.factor(reading)
        zeros = leaf.rounded_zeros
        return sign * leaf.mantissa * factor, leaf.unit_digit * factor, factor, not zeros, zeros
    written, _ = value.evaluate(reading)
    rel = max((x.unit_digit / abs(x.mantissa) for x in value.operands() if x.mantissa), default=0.0)
    return written, rel * abs(written), 1.0, False, True


def _level(computed: float, written: float, unit: float, loose: bool, truncation: bool, zeros: bool) -> int:
    """PASS, WARNING or ERROR; `zeros`: the precision comes from an integer's trailing zeros."""
    diff = abs(computed - written)
    slack = _EPS * max(abs(computed), abs(written))
    far = diff > ERROR_REL * abs(computed) + slack
    if loose:
        passes = diff <= unit + slack
    else:
        truncated = truncation and computed * written >= 0 and abs(written) <= abs(computed) < abs(written) + unit
        passes = diff <= unit / 2 + slack or truncated
    if passes and not (zeros and far):
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
            ratios.append(expr.evaluate(reading)[0] / value.evaluate(reading)[0])
        except (OverflowError, ZeroDivisionError):
            raise Uncertain("a named quantity does not cancel out") from None
    if not math.isclose(*ratios, rel_tol=1e-9):
        raise Uncertain("a named quantity does not cancel out")
    return 1.0


def judge(expr: Node, value: Node, *, loose: bool) -> Verdict:
    """The best verdict over all readings; raises Uncertain when no reading is certain (a time
    on one side only, a named quantity that does not cancel out)."""
    percent_label = _has_percent(expr) != _has_percent(value)
    exact = not loose and all(leaf.plain_int for leaf in expr.operands() + value.operands())
    symbol = _symbol_value(expr, value)
    best: tuple[int, float, str] | None = None
    for reading in _readings([expr, value], percent_label):
        reading = replace(reading, symbol=symbol)
        try:
            computed, t_expr = expr.evaluate(reading)
            written, unit, factor, truncation, zeros = _written(value, reading)
            _, t_value = value.evaluate(reading)
        except (OverflowError, ZeroDivisionError):
            raise Uncertain("too large, or a division by zero") from None
        if t_expr != t_value:
            raise Uncertain("a time on one side only")
        if exact and computed == int(computed):
            unit = 0.0
        level = _level(computed, written, unit, loose, truncation, zeros)
        closeness = abs(computed - written) / (unit or 1.0)
        if best is None or (level, closeness) < best[:2]:
            best = (level, closeness, _show(computed / factor))
    names = [symbol.name for symbol in value.symbols()]
    return Verdict(best[0], " × ".join([best[2], *names]))


def _show(value: float) -> str:
    """Seven significant digits, with thousands separators when large."""
    if value == 0:
        return "0"
    if abs(value) >= 1e15 or abs(value) < 1e-4:
        return f"{value:.7g}"
    decimals = max(0, 6 - math.floor(math.log10(abs(value))))
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
