"""Expressions of written arithmetic and their evaluation under a reading of their units.

Evaluating a node gives a `Quantity`: its value, the interval the rounding of its written inputs
allows (`134M` stands for anything in [133.5M, 134.5M)), and its dimension (seconds, bytes,
FLOP, watts). `Inconsistent` is raised for a reading whose units do not add up (a time plus a
size), which the checker then drops; `Uncertain` for what cannot be computed with certainty.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from vaultkit.checks.claims import units as U
from vaultkit.checks.claims.units import NONE, SCALE_LETTERS, UNITS, Dims, Suffix

MAX_RATE_READINGS = 5  # FLOPs operands read either way; more are read one way for all


BEYOND_FLOAT = "a number beyond floating point range"
MAX_LOG10 = 300  # a power larger than 10**300 is beyond floating point


class Uncertain(Exception):
    """Arithmetic-like text that cannot be read with certainty."""


class Inconsistent(Uncertain):
    """A reading under which the units do not add up (a time plus a size)."""


class ParseFail(Exception):
    """Not arithmetic here."""


@dataclass(frozen=True)
class Reading:
    """One way to read ambiguous units: GB as 10⁹ or 2³⁰, which `B` are bytes rather than
    billions and which `FLOPs` are rates (by the id of their operand), % as /100."""

    binary: bool = False
    b_bytes: frozenset = frozenset()
    percent_fraction: bool = True
    symbol: float = 0.0  # the value given to every named quantity (n_token); 0: none may appear
    rates: frozenset = frozenset()
    ones: frozenset = frozenset()  # ids of conversion factors the units already carry (`5 min × 60`)
    log_base: float = math.e  # the base of a bare `log`: e, 2 (bits, complexity) or 10 are all fair


@dataclass
class Quantity:
    value: float
    lo: float  # what the rounding of the written inputs allows
    hi: float
    dims: Dims = NONE


def _point(value: float, dims: Dims = NONE) -> Quantity:
    return Quantity(value, value, value, dims)


@dataclass
class Operand:
    """A written number with what follows it."""

    text: str
    start: int
    end: int
    mantissa: float
    unit_digit: float  # value of one unit in the last significant written digit
    plain_int: bool  # an integer with no scale, unit or percent
    rounded_zeros: bool = False  # an integer ending in zeros: 1600, 280
    core_end: int = 0  # end of the number with its scale and unit, before any label
    suffixes: list[Suffix] = field(default_factory=list)
    per: list[Suffix] = field(default_factory=list)  # units it is per: `/s`, `/kWh`
    percent: bool = False
    times: bool = False  # `2x`, `3×`, `2 倍`: a multiple of something else
    digits: int = 1  # significant digits written
    decimal: bool = False  # written with a decimal point
    exact_claim: bool = False  # an integer written with 7 or more digits
    labels: list[str] = field(default_factory=list)  # what it counts: `层`, `tokens`, `GPUs`

    # -- what is written after the number
    @property
    def has_unit(self) -> bool:
        """A unit with a dimension (bytes, seconds, FLOP, a rate), not just a scale."""
        return any(s.has_unit for s in self.suffixes) or bool(self.per)

    @property
    def has_scale(self) -> bool:
        return any(s.scale or s.factor != 1.0 for s in self.suffixes)

    @property
    def flop_ambiguous(self) -> bool:
        return any(s.flop_ambiguous for s in self.suffixes)

    @property
    def rounded(self) -> bool:
        """Written rounded: `0.0294`, `134M`, `1.5 GB` (not `4096`, `100K`, `2 bytes`, and not
        a single digit, `1TB`, `7B`, `0.1`: a rounding that coarse would allow anything)."""
        if self.digits < 2:
            return False
        if self.decimal:
            return True
        scaled = self.has_scale or any(s.unit and UNITS[s.unit].decimal > 1 for s in self.suffixes)
        return scaled and not self.rounded_zeros

    @property
    def has_bits(self) -> bool:
        return any(s.unit and UNITS[s.unit].bits for s in self.suffixes + self.per)

    def factor(self, reading: Reading, mantissa_only: bool = False, bits_counted: bool = False) -> float:
        """Everything after the mantissa, under a reading of ambiguous units; `bits_counted`:
        a bit is one (not an eighth of a byte), for a result that only its unit labels."""
        if mantissa_only:
            return 1.0
        f = 1.0
        if bits_counted:
            f = 8.0 ** (
                sum(1 for s in self.suffixes if s.unit and UNITS[s.unit].bits)
                - sum(1 for s in self.per if s.unit and UNITS[s.unit].bits)
            )
        if reading.binary and any(s.unit and UNITS[s.unit].dims == U.FLOP for s in self.suffixes):
            reading = replace(reading, binary=False)  # `17.6T FLOPs`: T is 10¹² here
        for s in self.suffixes:
            f *= s.factor * _suffix_factor(s, reading, id(self) in reading.b_bytes)
        for s in self.per:
            f /= _suffix_factor(s, reading, False)
        if self.percent and reading.percent_fraction:
            f *= 0.01
        return f

    def scale_factor(self, reading: Reading) -> float:
        """The factor of its scale alone (`60K tokens/min` is 60,000 of something)."""
        f = 1.0
        for s in self.suffixes:
            if s.scale or s.factor != 1.0:
                f *= (
                    s.factor * _suffix_factor(Suffix(scale=s.scale), reading, id(self) in reading.b_bytes)
                    if s.scale
                    else s.factor
                )
        return f

    def dims(self, reading: Reading) -> Dims:
        d = NONE
        for s in self.suffixes:
            d = U.add(d, s.dims)
            if s.scale == "B" and id(self) in reading.b_bytes:
                d = U.add(d, U.BYTE)
            if s.flop_ambiguous and id(self) in reading.rates:
                d = U.add(d, U.PER_SECOND)
        for s in self.per:
            d = U.sub(d, s.dims)
        return d

    def value(self, reading: Reading) -> float:
        return self.mantissa * self.factor(reading)

    def evaluate(self, reading: Reading) -> Quantity:
        if id(self) in reading.ones:
            return _point(1.0)
        factor = self.factor(reading)
        v = self.mantissa * factor
        half = self.unit_digit * abs(factor) / 2 if self.rounded else 0.0
        return Quantity(v, v - half, v + half, self.dims(reading))

    def operands(self) -> list[Operand]:
        return [self]

    def symbols(self) -> list[Symbol]:
        return []


def _suffix_factor(s: Suffix, reading: Reading, b_bytes: bool) -> float:
    """The factor of one suffix; `b_bytes`: a `B` scale is bytes, not billions."""
    f = 1.0
    if s.scale:
        if s.scale == "B":
            f *= 1.0 if b_bytes else 1e9
        else:
            f *= SCALE_LETTERS[s.scale][reading.binary]
    if s.unit:
        unit = UNITS[s.unit]
        f *= unit.binary if reading.binary else unit.decimal
    if s.seconds:
        f *= s.seconds
    return f


@dataclass
class Symbol:
    """A named quantity in a product, `n_token` or `seq_len`: read only when it cancels out."""

    name: str

    def evaluate(self, reading: Reading) -> Quantity:
        if not reading.symbol:
            raise Uncertain(f"{self.name} has no value")
        return _point(reading.symbol)

    def operands(self) -> list[Operand]:
        return []

    def symbols(self) -> list[Symbol]:
        return [self]


@dataclass
class Unary:
    """An operator on one argument: its operands and symbols are the argument's."""

    arg: Node

    def operands(self) -> list[Operand]:
        return self.arg.operands()

    def symbols(self) -> list[Symbol]:
        return self.arg.symbols()


class Neg(Unary):
    """`-x`"""

    def evaluate(self, reading: Reading) -> Quantity:
        q = self.arg.evaluate(reading)
        return Quantity(-q.value, -q.hi, -q.lo, q.dims)


class Sqrt(Unary):
    """`√x`"""

    def evaluate(self, reading: Reading) -> Quantity:
        q = self.arg.evaluate(reading)
        if q.value < 0 or any(d % 2 for d in q.dims):
            raise Uncertain("square root of a negative or of a unit")
        lo = math.sqrt(max(q.lo, 0.0))
        return Quantity(math.sqrt(q.value), lo, math.sqrt(max(q.hi, 0.0)), tuple(d // 2 for d in q.dims))


@dataclass
class Binary:
    """`left op right` for op in + - * / ^."""

    op: str
    left: Node
    right: Node

    def evaluate(self, reading: Reading) -> Quantity:
        if id(self) in reading.ones:
            return _point(1.0)
        q = self._evaluate(reading)
        if not (math.isfinite(q.value) and math.isfinite(q.lo) and math.isfinite(q.hi)):
            raise Uncertain(BEYOND_FLOAT)
        return q

    def _evaluate(self, reading: Reading) -> Quantity:
        a = self.left.evaluate(reading)
        b = self.right.evaluate(reading)
        if self.op == "^":
            return _power(a, b)
        if self.op in "+-":
            if a.dims != b.dims:
                raise Inconsistent("adding quantities of different units")
            if self.op == "+":
                return Quantity(a.value + b.value, a.lo + b.lo, a.hi + b.hi, a.dims)
            return Quantity(a.value - b.value, a.lo - b.hi, a.hi - b.lo, a.dims)
        if self.op == "*":
            ends = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
            return Quantity(a.value * b.value, min(ends), max(ends), U.add(a.dims, b.dims))
        if b.value == 0:
            raise Uncertain("division by zero")
        v = a.value / b.value
        if b.lo <= 0 <= b.hi:
            return Quantity(v, v, v, U.sub(a.dims, b.dims))
        ends = [a.lo / b.lo, a.lo / b.hi, a.hi / b.lo, a.hi / b.hi]
        return Quantity(v, min(ends), max(ends), U.sub(a.dims, b.dims))

    def operands(self) -> list[Operand]:
        return self.left.operands() + self.right.operands()

    def symbols(self) -> list[Symbol]:
        return self.left.symbols() + self.right.symbols()


def _power(a: Quantity, b: Quantity) -> Quantity:
    """`a ^ b`: a whole exponent of a unit, any exponent of a positive number."""
    k = b.value
    whole = k == int(k)
    if b.dims != NONE or a.dims != NONE and (not whole or k < 0):
        raise Uncertain("an exponent with a unit, or a unit to a fractional power")
    if a.value == 0 and k < 0:
        raise Uncertain("zero to a negative power")
    if a.value < 0 and not whole:
        raise Uncertain("a negative number to a fractional power")
    if a.value != 0 and k * math.log10(abs(a.value)) > MAX_LOG10:
        raise Uncertain(BEYOND_FLOAT)
    v = a.value**k
    ends = [a.lo**k, a.hi**k] if a.lo > 0 else [v]
    return Quantity(v, min(ends + [v]), max(ends + [v]), U.times(a.dims, int(k)))


FUNCTIONS = {
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "ln": math.log,
    "log2": math.log2,
    "log10": math.log10,
}


class Func(Unary):
    """`sqrt(x)`, `exp(x)`, `log(x)` of a number (with no unit)."""

    def __init__(self, name: str, arg: Node):
        super().__init__(arg)
        self.name = name

    def evaluate(self, reading: Reading) -> Quantity:
        q = self.arg.evaluate(reading)
        if q.dims != NONE or (self.name != "exp" and q.lo <= 0):
            raise Uncertain(f"{self.name} of a unit or of a number out of its range")
        f = FUNCTIONS[self.name]
        scale = math.log(reading.log_base) if self.name == "log" else 1.0  # log base b = ln / ln b
        try:
            return Quantity(f(q.value) / scale, f(q.lo) / scale, f(q.hi) / scale)
        except OverflowError:
            raise Uncertain("too large") from None


@dataclass
class BigO(Unary):
    """`O(100K × 512²)`: the order of magnitude of its argument, read as its value."""

    def evaluate(self, reading: Reading) -> Quantity:
        return self.arg.evaluate(reading)


Node = Operand | Symbol | Neg | Sqrt | Binary | BigO | Func


def has_bare_log(node: Node) -> bool:
    """Whether the node takes a `log` with no base written, which the readings give each fair base."""
    if isinstance(node, Func) and node.name == "log":
        return True
    if isinstance(node, Unary):
        return has_bare_log(node.arg)
    if isinstance(node, Binary):
        return has_bare_log(node.left) or has_bare_log(node.right)
    return False


CONVERSIONS = {8.0, 24.0, 60.0, 365.0, 1000.0, 1024.0, 3600.0, 86400.0, 1e6, 1e9, 1e12, 2.0**20, 2.0**30, 2.0**40}


def conversion_factors(node: Node) -> list[tuple[Node, float]]:
    """The plain factors of a product that may convert units (`× 60`, `/ 8`, `/ 2**30`), with
    their values."""
    if isinstance(node, Binary) and node.op in "*/":
        return conversion_factors(node.left) + conversion_factors(node.right)
    if isinstance(node, Operand):
        plain = not (node.suffixes or node.per or node.percent)
        return [(node, node.mantissa)] if plain and node.mantissa in CONVERSIONS else []
    if (
        isinstance(node, Binary)
        and node.op == "^"
        and all(isinstance(x, Operand) and not x.suffixes for x in (node.left, node.right))
    ):
        try:
            value = node.left.mantissa**node.right.mantissa
        except OverflowError:
            return []
        return [(node, value)] if value in CONVERSIONS else []
    return []


def substituted(node: Node, old: Operand, new: Operand) -> Node:
    """A copy of `node` with the operand `old` replaced by `new` (the rest shared)."""
    if node is old:
        return new
    if isinstance(node, Binary):
        return Binary(node.op, substituted(node.left, old, new), substituted(node.right, old, new))
    if isinstance(node, Func):
        return Func(node.name, substituted(node.arg, old, new))
    if isinstance(node, Unary):
        return type(node)(substituted(node.arg, old, new))
    return node


def divisor_grouped(node: Node) -> Node | None:
    """`16*20*28 / 2*2` read as `16*20*28 / (2*2)`: every factor after the one `/` of a product
    taken into the divisor; None for a product with no `×` after its `/` (or more than one `/`)."""
    factors: list[tuple[str, Node]] = []
    while isinstance(node, Binary) and node.op in "*/":
        factors.append((node.op, node.right))
        node = node.left
    factors.reverse()
    ops = [op for op, _ in factors]
    if ops.count("/") != 1 or "*" not in ops[ops.index("/") + 1 :]:
        return None
    k = ops.index("/")
    for op, factor in factors[:k]:
        node = Binary(op, node, factor)
    divisor = factors[k][1]
    for _, factor in factors[k + 1 :]:
        divisor = Binary("*", divisor, factor)
    return Binary("/", node, divisor)


def first_operand(node: Node) -> Node:
    """The leftmost operand of a top-level chain of + - * /."""
    while isinstance(node, Binary) and node.op != "^":
        node = node.left
    return node


def has_operator(node: Node) -> bool:
    return not isinstance(node, Operand)


def written_leaf(node: Node) -> Operand | None:
    """The number a value is written as: `12 GB` or `-0.10`; None for an expression."""
    if isinstance(node, Neg):
        node = node.arg
    return node if isinstance(node, Operand) else None


def is_ratio(node: Node) -> bool:
    """A division at the top (`1745 / 794.5`), or a product of multiples (`2x × 1.5`)."""
    if isinstance(node, BigO):
        return False
    if isinstance(node, Binary) and node.op == "/":
        return True
    return any(op.times for op in node.operands())
