"""Writing numbers the way a person does, and judging numbers a person wrote.

Rounding is half away from zero on the float taken to 12 significant digits, so float noise
(0.32499999999999996 for a decimal 0.325) does not decide a tie: 0.145 → 0.15, 0.325 → 0.33,
as a person would round them. Tables, inline values and figures all round through here. A written number is right when it is a correct rounding of the
computed value at the precision it is written with; a tie may round either way.
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal

MINUS = "−"  # U+2212, as some notes and drawings write it
NUMBER = r"[-−+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?"  # as written: 1,024  −0.5  1e9


def round_half_away(value: float, digits: int) -> Decimal:
    return Decimal(f"{float(value):.12g}").quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)


def fmt(value: float, digits: int, *, thousands: bool = False) -> str:
    """`value` rounded to `digits` decimals; never `-0.00`; `−∞` for -inf."""
    if math.isinf(value):
        return "−∞" if value < 0 else "∞"
    if math.isnan(value):
        return "NaN"
    rounded = round_half_away(value, digits)
    if rounded == 0:
        rounded = abs(rounded)
    return f"{rounded:,.{digits}f}" if thousands else f"{rounded:.{digits}f}"


def parse_written(text: str) -> tuple[float, int]:
    """The value of a written number and its number of decimals."""
    clean = text.replace(MINUS, "-").replace(",", "")
    mantissa = re.split(r"[eE]", clean)[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return float(clean), decimals


def written_matches(text: str, computed: float) -> bool:
    """Is `text` a correct rounding of `computed` at its written precision?"""
    if not math.isfinite(computed):
        return False
    value, decimals = parse_written(text)
    if re.search(r"[eE]", text):
        exponent = math.floor(math.log10(abs(value))) if value else 0
        half = 0.5 * 10.0 ** (exponent - decimals)
    else:
        half = 0.5 * 10.0**-decimals
    return abs(computed - value) <= half * (1 + 1e-9) + 1e-12 * abs(computed)


def rewrite_like(text: str, computed: float) -> str:
    """`computed` written with the precision and style of `text` (separators, minus sign)."""
    _, decimals = parse_written(text)
    if re.search(r"[eE]", text):
        out = f"{computed:.{decimals}e}"
    else:
        out = fmt(computed, decimals, thousands="," in text)
    if out.startswith("-") and MINUS in text:
        out = MINUS + out[1:]
    if text.startswith("+") and not out.startswith("-"):
        out = "+" + out
    return out
