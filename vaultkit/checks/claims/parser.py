"""Tokens and the expression grammar of written arithmetic (no eval).

    expr    := term (('+' | '-') term)*
    term    := power (('×' | '*' | 'x' | '/' | '÷' | '\\times' | '\\cdot') power)*
    power   := unary ('^' unary | '**' unary | superscript)*
    unary   := ('-' | '√') unary | primary
    primary := operand | '(' expr ')' | 'O(' expr ')' | name   (a name such as n_token only after × or /)
    operand := number [superscript] [scale] [unit] ['/' unit] [label] [(annotation)]

Numbers are written plainly (`524,288`, `0.5`), in Python (`1e9`, `2**30`) or scientific
notation (`1.67×10⁶`, `6 \\times 10^{6}`). A parse reads as much as it can; `Uncertain` means
the text is arithmetic-like but cannot be read with certainty (a date, a range `3-5`,
`PCIe 4.0 ×16`, a k8s quantity, …).

Evaluating a node gives a `Quantity`: its value, the interval the rounding of its written inputs
allows (`134M` stands for anything in [133.5M, 134.5M)), and its dimension (seconds, bytes,
FLOP, watts). `Inconsistent` is raised for a reading whose units do not add up (a time plus a
size), which the checker then drops.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace

from vaultkit.checks.claims import units as U
from vaultkit.checks.claims.units import NONE, SCALE_LETTERS, TIME_UNITS, UNITS, Dims, Suffix, read_cjk, read_word

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
MINUSES = "-−"

_SCI_TIMES = r"(?:[ ]?[×xX*·][ ]?|[ ]?\\(?:times|cdot)[ ]?)"
_TOKEN = re.compile(
    r"(?P<sp>[ \t\u3000]+)"
    r"|(?P<approx>=[ ]?~(?=[ ]?[\d$¥]))"
    r"|(?P<multi>={2,}|!=|<=|>=|=>|:=|\+=|-=|\*=|/=|%=|->|<-|=~|~=|~~|//|\.\.\.|[*_]{3,})"
    r"|(?P<bold>\*\*|__)"
    r"|(?P<rel>[=≈~≅≃→])"
    r"|(?P<tex>\\(?:times|cdot|div)(?![A-Za-z]))"
    r"|(?P<hex>0[xX][0-9A-Fa-f]+)"
    rf"|(?P<sci>\d+(?:\.\d+)?{_SCI_TIMES}10(?:\^[-−]?\d+|\^\{{[-−]?\d+\}}|⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
    r"|(?P<num>\d+(?:[,_]\d+)*(?:\.\d+)?(?:[eE][-+]?\d+)?)"
    r"|(?P<pow>⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|\^\{[-−]?\d+\})"
    r"|(?P<annot>[(（](?:[^()（）\d\n]|(?<=[A-Za-z_0-9])\d){1,40}[)）])"
    r"|(?P<op>[×*/÷+\-−^√·])"
    r"|(?P<lp>\()"
    r"|(?P<rp>\))"
    r"|(?P<pct>%)"
    r"|(?P<word>[A-Za-z_µμ][A-Za-z0-9_]*)"
    r"|(?P<cjk>[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)"
    r"|(?P<other>.)"
)
_X_TIMES = re.compile(r"[xX](?=[ ]?[\d(])")
_TIMES_AFTER = ("num", "rp", "pow", "annot")
_X_AFTER_UNIT = re.compile(r"[ ][xX×][ ](?=\d)")  # `256KiB x 132`: times, after a unit
# A currency sign or a leading `~` (about) glued to a number: `$500`, `~$4.1M`, `~20 GB`.
_NUMBER_PREFIX = re.compile(r"(?:~?[$¥￥€£]|~)(?=\d)")
_PREFIX_CHARS = frozenset("~$¥￥€£")
_OPENS_REMARK = re.compile(r"[(（][ ]?(?:[~≈]|[A-Za-z\u3400-\u4dbf\u4e00-\u9fff])")
_OPENS_NUMBER = re.compile(r"[(（][ ]?\d")
_HOLDS_CLAIM = re.compile(r"\d[^()（）]*?[ ]?(?:=|≈)[ ]?\d")
_BIG_O = re.compile(r"O\((?=[ ]?\d)")
MAX_ANNOTATION = 80
# A named quantity: a lower-case identifier with an underscore, `n_token`, `seq_len`.
_SYMBOL = re.compile(r"[a-z][a-z0-9]*_[a-z0-9_]+")
_SCI = re.compile(
    r"(\d+(?:\.\d+)?)(?:[ ]?[×xX*·][ ]?|[ ]?\\(?:times|cdot)[ ]?)10(?:\*\*|\^)?\{?([-−⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[eE][-+]?\d+)?\Z")
_UNDERSCORES = re.compile(r"\d+(?:_\d+)+(?:\.\d+)?\Z")
# An ASCII character glued to a number makes it part of something else: 1.2.3, 10:30, a@1, $5.
GLUE = set(".:@#$_/\\'\"!?&<>[]{}")
OPERAND_END = {"num", "pow", "rp", "pct", "annot"}
# Words a number can be "per": 16 KB / token.
PER_WORDS = {
    "token",
    "tokens",
    "GPU",
    "GPUs",
    "gpu",
    "node",
    "step",
    "layer",
    "head",
    "card",
    "request",
    "req",
    "batch",
    "seq",
    "item",
    "param",
    "params",
    "parameter",
    "sample",
    "user",
    "query",
}
EXACT_DIGITS = 7  # an integer written with this many digits claims to be exact
MAX_RATE_READINGS = 5  # FLOPs operands read either way; more are read one way for all


class Uncertain(Exception):
    """Arithmetic-like text that cannot be read with certainty."""


class Inconsistent(Uncertain):
    """A reading under which the units do not add up (a time plus a size)."""


class ParseFail(Exception):
    """Not arithmetic here."""


@dataclass
class Token:
    kind: str
    text: str
    start: int
    end: int
    code: bool = False  # inside a code span: `8.87-7.45` is a subtraction


def _annotation_end(line: str, pos: int, tokens: list[Token]) -> int | None:
    """End of a parenthesised remark at `pos`, with whatever arithmetic inside; None when it
    does not close soon. A remark opens with a word or `~` (`(ring 2×(n-1)/n)`, `（读）`,
    `(~524 MB in fp32)`), or with a number right after a labelled one (`384 端口 (256 给 GPU)`)."""
    significant = [tok for tok in tokens[-4:] if tok.kind not in ("sp", "bold")]
    after_label = len(significant) >= 2 and significant[-1].kind in ("word", "cjk") and significant[-2].kind == "num"
    if not (_OPENS_REMARK.match(line, pos) or after_label and _OPENS_NUMBER.match(line, pos)):
        return None
    depth = 0
    for k in range(pos, min(len(line), pos + MAX_ANNOTATION)):
        depth += line[k] in "(（"
        depth -= line[k] in ")）"
        if depth == 0:
            return None if _HOLDS_CLAIM.search(line, pos, k) else k + 1  # `(每台 4×32/4=32 上行)`
    return None


def _after_unit(tokens: list[Token]) -> bool:
    """The last tokens are a number with a unit glued to it: `256KiB`, `4 GB`."""
    sig = [tok for tok in tokens[-3:] if tok.kind != "sp"]
    return len(sig) >= 2 and sig[-1].kind == "word" and sig[-2].kind == "num" and sig[-1].text in UNITS


def tokenize(line: str, code: list[tuple[int, int]] = ()) -> list[Token]:
    """The tokens of a line; `code` are the (start, end) spans of code in it."""
    tokens: list[Token] = []
    pos, n = 0, len(line)
    while pos < n:
        prev = _last_significant(tokens)
        if (
            prev is not None
            and prev.kind in _TIMES_AFTER
            and _X_TIMES.match(line, pos)
            and (prev.kind != "annot" or line[pos - 1] == " ")
        ):
            tokens.append(Token("op", "×", pos, pos + 1))
            pos += 1
            continue
        if (
            line[pos] == " "
            and prev is not None
            and prev.kind == "word"
            and _X_AFTER_UNIT.match(line, pos)
            and _after_unit(tokens)
        ):
            tokens.append(Token("sp", " ", pos, pos + 1))
            tokens.append(Token("op", "×", pos + 1, pos + 2))
            pos += 2
            continue
        if (
            line[pos] in _PREFIX_CHARS
            and (pos == 0 or not line[pos - 1].isalnum())
            and (prefix := _NUMBER_PREFIX.match(line, pos))
        ):
            tokens.append(Token("sp", prefix.group(), pos, prefix.end()))  # read as if not there
            pos = prefix.end()
            continue
        if (
            line[pos] == "O"
            and (pos == 0 or not (line[pos - 1].isalnum() or line[pos - 1] == "_"))
            and _BIG_O.match(line, pos)
        ):
            tokens.append(Token("lp", "O(", pos, pos + 2))  # O(100K × 512²): the order of a number
            pos += 2
            continue
        if (
            line[pos] in "(（"
            and prev is not None
            and prev.kind != "op"
            and (end := _annotation_end(line, pos, tokens))
        ):
            tokens.append(Token("annot", line[pos:end], pos, end))
            pos = end
            continue
        m = _TOKEN.match(line, pos)
        kind = m.lastgroup
        if kind == "tex":
            kind = "op"
        elif kind == "hex":
            kind = "word"
        elif kind == "sci":
            kind = "num"
        elif kind == "multi":
            kind = "other"
        elif kind == "approx":
            kind = "rel"
        elif kind == "annot" and prev is not None and prev.kind == "op":
            tokens.append(Token("lp", "(", pos, pos + 1))  # `3 × (d × d)`: a factor, not a remark
            pos += 1
            continue
        tokens.append(Token(kind, m.group(), pos, m.end()))
        pos = m.end()
    if code:
        spans, k = sorted(code), 0
        for tok in tokens:
            while k < len(spans) and spans[k][1] <= tok.start:
                k += 1
            tok.code = k < len(spans) and spans[k][0] <= tok.start
    return tokens


def _last_significant(tokens: list[Token]) -> Token | None:
    for tok in reversed(tokens[-2:]):
        if tok.kind not in ("sp", "bold"):
            return tok
    return None


@dataclass(frozen=True)
class Reading:
    """One way to read ambiguous units: GB as 10⁹ or 2³⁰, B as billion or bytes, % as /100,
    and which `FLOPs` are rates (by the id of their operand)."""

    binary: bool = False
    b_bytes: bool = False
    percent_fraction: bool = True
    symbol: float = 0.0  # the value given to every named quantity (n_token); 0: none may appear
    rates: frozenset = frozenset()
    ones: frozenset = frozenset()  # ids of conversion factors the units already carry (`5 min × 60`)


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
            f *= s.factor * _suffix_factor(s, reading)
        for s in self.per:
            f /= _suffix_factor(s, reading)
        if self.percent and reading.percent_fraction:
            f *= 0.01
        return f

    def scale_factor(self, reading: Reading) -> float:
        """The factor of its scale alone (`60K tokens/min` is 60,000 of something)."""
        f = 1.0
        for s in self.suffixes:
            if s.scale or s.factor != 1.0:
                f *= s.factor * _suffix_factor(Suffix(scale=s.scale), reading) if s.scale else s.factor
        return f

    def dims(self, reading: Reading) -> Dims:
        d = NONE
        for s in self.suffixes:
            d = U.add(d, s.dims)
            if s.scale == "B" and reading.b_bytes:
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


def _suffix_factor(s: Suffix, reading: Reading) -> float:
    f = 1.0
    if s.scale:
        if s.scale == "B":
            f *= 1.0 if reading.b_bytes else 1e9
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
        a = self.left.evaluate(reading)
        b = self.right.evaluate(reading)
        if self.op == "^":
            k = b.value
            if b.dims != NONE or k != int(k) or abs(k) > 1024 or (a.dims != NONE and k < 0):
                raise Uncertain("exponent")
            if a.value == 0 and k < 0:
                raise Uncertain("zero to a negative power")
            k = int(k)
            v = a.value**k
            ends = [a.lo**k, a.hi**k] if a.lo > 0 else [v]
            return Quantity(v, min(ends + [v]), max(ends + [v]), U.times(a.dims, k))
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
        try:
            return Quantity(f(q.value), f(q.lo), f(q.hi))
        except OverflowError:
            raise Uncertain("too large") from None


@dataclass
class BigO(Unary):
    """`O(100K × 512²)`: the order of magnitude of its argument, read as its value."""

    def evaluate(self, reading: Reading) -> Quantity:
        return self.arg.evaluate(reading)


Node = Operand | Symbol | Neg | Sqrt | Binary | BigO | Func


CONVERSIONS = {8.0, 24.0, 60.0, 1000.0, 1024.0, 3600.0, 86400.0, 1e6, 1e9, 1e12, 2.0**20, 2.0**30, 2.0**40}


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


def _significant_digits(digits: str) -> int:
    core = digits.lstrip("0")
    return max(1, len(core))


def _number(tok: Token) -> tuple[float, float, bool, int, bool, bool]:
    """Value, unit of the last significant digit, whether it is a plain integer, its
    significant digits, whether it has a decimal point, and whether it claims exactness."""
    text = tok.text
    sci = _SCI.match(text)
    if sci:
        mantissa, exp = sci.group(1), int(sci.group(2).translate(SUPERSCRIPTS).replace("−", "-"))
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        digits = _significant_digits(mantissa.replace(".", ""))
        return float(mantissa) * 10.0**exp, 10.0 ** (exp - decimals), False, digits, "." in mantissa, False
    if "," in text and not _THOUSANDS.match(text):
        raise Uncertain(f"not a number: {text}")
    if "_" in text and not _UNDERSCORES.match(text):
        raise Uncertain(f"not a number: {text}")
    clean = text.replace(",", "").replace("_", "")
    mantissa, _, exp = clean.lower().partition("e")
    exponent = int(exp) if exp else 0
    exact = False
    if "." in mantissa:
        decimals = len(mantissa.split(".")[1])
        unit = 10.0 ** (exponent - decimals)
        digits = _significant_digits(mantissa.replace(".", ""))
    else:
        core = mantissa.lstrip("0")
        zeros = len(core) - len(core.rstrip("0")) if core else 0
        exact = not exp and len(core) >= EXACT_DIGITS and zeros < 3  # 2,097,150: every digit counts
        unit = 10.0 ** (exponent + zeros)
        digits = max(1, len(core) - zeros)
    return float(clean), unit, "." not in mantissa and not exp, digits, "." in mantissa, exact


class Parser:
    """Recursive descent over the tokens of one segment of a line."""

    def __init__(self, tokens: list[Token], line: str):
        self.toks = tokens
        self.line = line

    # -- token helpers ------------------------------------------------------
    def skip(self, i: int) -> int:
        while i < len(self.toks) and self.toks[i].kind in ("sp", "bold"):
            i += 1
        return i

    def kind(self, i: int) -> str | None:
        return self.toks[i].kind if i < len(self.toks) else None

    def attached(self, i: int) -> bool:
        """Token i follows token i-1 with no space."""
        return 0 < i < len(self.toks) and self.toks[i - 1].end == self.toks[i].start

    # -- grammar ------------------------------------------------------------
    def expr(self, i: int) -> tuple[Node, int]:
        node, i = self.term(i)
        return self.binary_loop(node, i, "+-−", self.term)

    def term(self, i: int) -> tuple[Node, int]:
        node, i = self.power(i)
        return self.binary_loop(node, i, "×*/÷·\\", self.power)

    def binary_loop(self, node, i, ops, operand_parser):
        while True:
            j = self.skip(i)
            tok = self.toks[j] if j < len(self.toks) else None
            if tok is None or tok.kind != "op" or tok.text[0] not in ops:
                return node, i
            self.check_spacing(i, j)
            try:
                right, end = operand_parser(j + 1)
            except ParseFail:
                return node, i
            op = tok.text[0]
            op = {"×": "*", "·": "*", "\\": "*" if tok.text != "\\div" else "/", "÷": "/", "−": "-"}.get(op, op)
            node, i = Binary(op, node, right), end

    def check_spacing(self, before: int, j: int) -> None:
        """`a ×b` or `a- b` (space on one side only) and `3-5` (a range) are not read (in code
        they are: `8.87-7.45`)."""
        tok = self.toks[j]
        if tok.code:
            return
        # a full-width bracket carries its own space: `2GB（读）+ 2GB（写）`
        space_before = j > before or (j > 0 and (self.toks[j - 1].kind == "sp" or self.toks[j - 1].text.endswith("）")))
        space_after = j + 1 < len(self.toks) and self.toks[j + 1].kind == "sp"
        if space_before != space_after:
            raise Uncertain("operator spaced on one side only")
        if tok.text in MINUSES and not space_before:
            raise Uncertain("a-b without spaces is a range or a date")

    def power(self, i: int) -> tuple[Node, int]:
        node, i = self.unary(i)
        while True:
            kind = self.kind(i)
            k = i
            while self.kind(k) == "sp":
                k += 1
            if k > i and self.kind(k) == "bold" and self.toks[k].code:
                i, kind = k, "bold"  # in code `2 ** 16` is a power too
            python_power = (  # 2**16, not **bold**
                kind == "bold"
                and self.toks[i].text == "**"
                and self.kind(self.skip(i + 1)) == "num"
                and (self.attached(i) and self.attached(i + 1) or self.toks[i].code)
            )
            if kind == "pow":
                node, i = Binary("^", node, self.exponent(self.toks[i])), i + 1
            elif python_power or kind == "op" and self.toks[i].text == "^":
                j = self.skip(i + 1)
                if self.kind(j) == "num":  # `10^13 FLOP/s`: the unit is the power's, not the exponent's
                    right, i = self.exponent(self.toks[j]), j + 1
                else:
                    right, i = self.unary(i + 1)
                node = Binary("^", node, right)
            else:
                return node, i
            node, i = self.power_units(node, i)

    def power_units(self, node: Node, i: int) -> tuple[Node, int]:
        """A unit written after a power (`2²⁰ bytes`, `10^13 FLOP/s`) multiplies it."""
        unit = Operand("", self.toks[i - 1].end, self.toks[i - 1].end, 1.0, 0.0, True)
        end = self.suffixes(unit, i)
        if end == i or not (unit.suffixes or unit.per or unit.percent):
            return node, i
        if any(s.uncertain for s in unit.suffixes):
            raise Uncertain(f"unit not read with certainty: {self.line[self.toks[i].start : self.toks[end - 1].end]}")
        if all(s.label for s in unit.suffixes) and not unit.per and not unit.percent:
            return node, end  # `2¹⁰ 个`: a label
        return Binary("*", node, unit), end

    def exponent(self, tok: Token) -> Operand:
        text = tok.text.strip("^{}").translate(SUPERSCRIPTS).replace("−", "-")
        try:
            return Operand(tok.text, tok.start, tok.end, float(int(text)), 1.0, True)
        except ValueError:
            raise ParseFail("not an integer exponent") from None

    def unary(self, i: int) -> tuple[Node, int]:
        i = self.skip(i)
        tok = self.toks[i] if i < len(self.toks) else None
        if tok is not None and tok.kind == "op" and tok.text in MINUSES + "√":
            node, end = self.unary(i + 1)
            return (Neg(node) if tok.text in MINUSES else Sqrt(node)), end
        return self.primary(i)

    def primary(self, i: int) -> tuple[Node, int]:
        kind = self.kind(i)
        if kind == "lp":
            node, j = self.expr(i + 1)
            j = self.skip(j)
            if self.kind(j) != "rp":
                raise ParseFail("unclosed parenthesis")
            return (BigO(node) if self.toks[i].text == "O(" else node), j + 1
        if kind == "num":
            return self.operand(i)
        if kind == "word" and self.toks[i].text in FUNCTIONS and self.kind(i + 1) == "lp" and self.attached(i + 1):
            node, j = self.primary(i + 1)
            return Func(self.toks[i].text, node), j
        if kind == "word" and _SYMBOL.fullmatch(self.toks[i].text) and self.after_operator(i):
            return self.power_units(Symbol(self.toks[i].text), i + 1)  # `n_token bytes`
        raise ParseFail("no operand")

    def starts_factor(self, k: int) -> bool:
        """Token k can begin the next factor of a product: a number, `(`, a sign, a name."""
        kind = self.kind(k)
        return kind in ("num", "lp", "op") or kind == "word" and _SYMBOL.fullmatch(self.toks[k].text) is not None

    def after_operator(self, i: int) -> bool:
        """Token i follows `×` or `/`, or `(` after one (a named quantity is never the first factor)."""
        j = i - 1
        while j >= 0 and self.toks[j].kind in ("sp", "bold"):
            j -= 1
        if j >= 0 and self.toks[j].kind == "lp" and self.toks[j].text == "(":
            return self.after_operator(j)
        return j >= 0 and self.toks[j].kind == "op" and self.toks[j].text in "×*/·"

    def operand(self, i: int) -> tuple[Operand, int]:
        tok = self.toks[i]
        mantissa, unit, plain, digits, decimal, exact = _number(tok)
        op = Operand(
            tok.text, tok.start, tok.end, mantissa, unit, plain, digits=digits, decimal=decimal, exact_claim=exact
        )
        op.rounded_zeros = plain and unit > 1
        op.core_end = tok.end
        i = self.suffixes(op, i + 1)
        op.plain_int = (
            op.plain_int and all(s.label and not s.scale for s in op.suffixes) and not op.percent and not op.per
        )
        if op.suffixes and any(s.uncertain for s in op.suffixes):
            raise Uncertain(f"unit not read with certainty: {self.line[op.start : op.end]}")
        return op, i

    def suffixes(self, op: Operand, i: int) -> int:
        """Scale, unit, rate, label and annotation after a number; returns the next index."""
        labelled = rated = False  # rated: `/ GPU` seen, so `/ micro-batch` is a rate too
        while True:
            j = self.skip(i)
            spaced = j > i
            kind = self.kind(j)
            tok = self.toks[j] if kind else None
            if tok is not None and i > 0 and self.toks[i - 1].code and not tok.code:
                return i  # a number in a code span ends with it
            if kind == "pct" and not op.percent and not labelled and (j == i or j == i + 1):
                op.percent = True
                op.core_end = tok.end
            elif kind == "word" and not labelled and not (spaced and j > i + 1):
                word = tok.text
                per_time = self.per_time(j) if spaced and word == "per" and op.suffixes else None
                if per_time is not None:  # `10**9 Bytes per second`
                    op.per.append(Suffix(seconds=TIME_UNITS[self.toks[per_time].text]))
                    op.core_end = self.toks[per_time].end
                    i = per_time + 1
                    continue
                if word in ("x", "X") or (spaced and word in ("per", "in", "of", "and", "or", "to", "vs")):
                    if word in ("x", "X") and not spaced:
                        labelled = op.times = True  # "0.5x": times, a label
                    else:
                        return i
                elif spaced and any(s.has_unit for s in op.suffixes):
                    labelled = True  # `2.1 GB KV Cache`: after a unit, a word is a label
                    op.suffixes.append(Suffix(label=True))
                elif spaced and op.suffixes and not (word in UNITS and any(s.scale for s in op.suffixes)):
                    labelled = True  # `7B params`, `8 个 GPU` (but `17.6T FLOPs` is a unit)
                    op.suffixes.append(Suffix(label=True))
                    op.labels.append(word)
                else:
                    suffix = read_word(word, attached=not spaced)
                    if suffix.label:
                        labelled = True
                        op.labels.append(word[1:] if suffix.scale else word)
                    if not suffix.label or suffix.scale:
                        op.core_end = tok.end
                    op.suffixes.append(suffix)
            elif kind == "cjk" and not labelled and not (spaced and j > i + 1):
                suffix, rest = read_cjk(tok.text)
                op.suffixes.append(suffix)
                labelled = suffix.label or bool(rest)
                if labelled:
                    op.labels.append(tok.text if suffix.label else rest)
                if labelled and self.kind(j + 1) == "word" and self.attached(j + 1):
                    j += 1  # `8个experts`: one label
                    op.labels[-1] += self.toks[j].text
                if suffix.label and tok.text.startswith("倍"):
                    op.times = True
                if not suffix.label:
                    op.core_end = tok.start + len(tok.text) - len(rest)
            elif kind == "op" and tok.text == "/" and (per := self.per_word(j, rated, bool(op.suffixes))) is not None:
                k = self.skip(j + 1)
                per_unit = self.per_unit(per) if not spaced and k == j + 1 else None
                if per_unit is not None:  # `50 GB/s`, `tokens/s`, `$0.1/kWh`: written with its unit
                    op.per.append(per_unit)
                    op.core_end = self.toks[k].end
                elif per in TIME_UNITS or per.startswith(("秒", "小时", "分钟", "天")):
                    raise Uncertain("rate per unit of time")  # `8 GB / s`
                else:
                    labelled = rated = True
                    k = self.hyphenated(k)
                i = k + 1
                continue
            elif kind == "op" and tok.text in ("×", "x") and not self.starts_factor(self.skip(j + 1)):
                labelled = op.times = True  # "8×": times
            elif kind == "annot" and (not spaced or j == i + 1):
                labelled = True
            elif (
                kind == "op"
                and tok.text == "-"
                and not spaced
                and self.kind(j + 1) in ("word", "cjk")
                and self.attached(j + 1)
            ):
                unit = self.toks[j + 1].text
                if not (labelled or op.suffixes and op.suffixes[-1].label):
                    raise Uncertain("hyphenated unit")  # `4-bit`, `8GB-ish`
                if unit in TIME_UNITS and op.suffixes and op.suffixes[-1].label:
                    op.suffixes.append(Suffix(seconds=TIME_UNITS[unit]))  # 640,000 GPU-hours
                j += 1  # `24 cpu-cores`, `24.75MiB distributed-capacity`: a longer label
            else:
                return i
            i = j + 1

    def per_time(self, j: int) -> int | None:
        """Index of the time word of `per second` at token j, if that is what follows."""
        k = self.skip(j + 1)
        if k == j + 2 and self.kind(k) == "word" and self.toks[k].text in TIME_UNITS:
            return k
        return None

    @staticmethod
    def per_unit(word: str) -> Suffix | None:
        """`s` of `GB/s`, `kWh` of `$0.1/kWh`: a unit a number is per; None for a label."""
        if word in TIME_UNITS:
            return Suffix(seconds=TIME_UNITS[word])
        if word in ("秒", "小时", "分钟", "天"):
            return Suffix(seconds=TIME_UNITS[word])
        if word in UNITS:
            return Suffix(unit=word)
        return None

    def per_word(self, j: int, rated: bool = False, after_unit: bool = False) -> str | None:
        """The word of `/word` at token j when it names what a number is per (GB/s, d/层,
        KB / token, $500/卡, and after a unit any glued word: `bytes/param`); after one such
        word (`rated`) any word is."""
        spaced = j + 1 < len(self.toks) and self.toks[j + 1].kind == "sp"
        k = self.skip(j + 1)
        glued = not spaced and self.attached(j) and k == j + 1
        if (
            self.kind(k) == "cjk"
            or self.kind(k) == "word"
            and (
                rated
                or not spaced
                and (self.toks[k].text in TIME_UNITS or self.toks[k].text in UNITS)
                or self.toks[k].text in PER_WORDS
                or glued
                and after_unit
            )
        ):
            return self.toks[k].text
        return None

    def hyphenated(self, k: int) -> int:
        """The last token of a hyphenated word starting at k: `micro-batch`."""
        while (
            self.kind(k + 2) in ("word", "cjk")
            and self.toks[k + 1].text == "-"
            and self.attached(k + 1)
            and self.attached(k + 2)
        ):
            k += 2
        return k
