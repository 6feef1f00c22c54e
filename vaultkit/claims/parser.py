"""Tokens and the expression grammar of written arithmetic (no eval).

    expr    := term (('+' | '-') term)*
    term    := power (('×' | '*' | 'x' | '/' | '÷') power)*
    power   := unary ('^' unary | superscript)*
    unary   := ('-' | '√') unary | primary
    primary := operand | '(' expr ')' | name      (a name such as n_token only after × or /)
    operand := number [superscript] [scale] [unit] ['/s'] [label] [(annotation)]

A parse reads as much as it can; `Uncertain` means the text is arithmetic-like but cannot be
read with certainty (a date, a range `3-5`, `PCIe 4.0 ×16`, a bit rate, a k8s quantity, …).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .units import BYTE_UNITS, SCALE_LETTERS, TIME_UNITS, Suffix, read_cjk, read_word

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
MINUSES = "-−"

_TOKEN = re.compile(
    r"(?P<sp>[ \t\u3000]+)"
    r"|(?P<multi>={2,}|!=|<=|>=|=>|:=|\+=|-=|\*=|/=|%=|->|<-|=~|~=|~~|//|\.\.\.|[*_]{3,})"
    r"|(?P<bold>\*\*|__)"
    r"|(?P<rel>[=≈~≅≃])"
    r"|(?P<tex>\\(?:times|cdot|div)(?![A-Za-z]))"
    r"|(?P<hex>0[xX][0-9A-Fa-f]+)"
    r"|(?P<sci>\d+(?:\.\d+)?[ ]?[×xX*·][ ]?10(?:\^[-−]?\d+|\^\{[-−]?\d+\}|⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
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
# A currency sign or a leading `~` (about) glued to a number: `$500`, `~$4.1M`, `~20 GB`.
_NUMBER_PREFIX = re.compile(r"(?:~?[$¥￥€£]|~)(?=\d)")
_PREFIX_CHARS = frozenset("~$¥￥€£")
_OPENS_REMARK = re.compile(r"[(（][ ]?(?:[~≈]|[A-Za-z\u3400-\u4dbf\u4e00-\u9fff])")
_OPENS_NUMBER = re.compile(r"[(（][ ]?\d")
MAX_ANNOTATION = 80
# A named quantity: a lower-case identifier with an underscore, `n_token`, `seq_len`.
_SYMBOL = re.compile(r"[a-z][a-z0-9]*_[a-z0-9_]+")
_SCI = re.compile(r"(\d+(?:\.\d+)?)[ ]?[×xX*·][ ]?10\^?\{?([-−⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)")
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[eE][-+]?\d+)?\Z")
_UNDERSCORES = re.compile(r"\d+(?:_\d+)+(?:\.\d+)?\Z")
# An ASCII character glued to a number makes it part of something else: 1.2.3, 10:30, a@1, $5.
GLUE = set(".:@#$_/\\'\"!?&<>[]{}")
OPERAND_END = {"num", "pow", "rp", "pct", "annot"}
# Words a number can be "per": 16 KB / token.
PER_WORDS = {"token", "tokens", "GPU", "GPUs", "gpu", "node", "step", "layer", "head", "card", "request", "req", "batch", "seq", "item"}


class Uncertain(Exception):
    """Arithmetic-like text that cannot be read with certainty."""


class ParseFail(Exception):
    """Not arithmetic here."""


@dataclass
class Token:
    kind: str
    text: str
    start: int
    end: int


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
            return k + 1
    return None


def tokenize(line: str) -> list[Token]:
    tokens: list[Token] = []
    pos, n = 0, len(line)
    while pos < n:
        prev = _last_significant(tokens)
        if prev is not None and prev.kind in ("num", "rp", "pow") and _X_TIMES.match(line, pos):
            tokens.append(Token("op", "×", pos, pos + 1))
            pos += 1
            continue
        if line[pos] in _PREFIX_CHARS and (pos == 0 or not line[pos - 1].isalnum()) and (prefix := _NUMBER_PREFIX.match(line, pos)):
            tokens.append(Token("sp", prefix.group(), pos, prefix.end()))  # read as if not there
            pos = prefix.end()
            continue
        if line[pos] in "(（" and prev is not None and prev.kind != "op" and (end := _annotation_end(line, pos, tokens)):
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
        tokens.append(Token(kind, m.group(), pos, m.end()))
        pos = m.end()
    return tokens


def _last_significant(tokens: list[Token]) -> Token | None:
    for tok in reversed(tokens[-2:]):
        if tok.kind not in ("sp", "bold"):
            return tok
    return None


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
    percent: bool = False
    per_second: float = 0.0  # rate: divided by this many seconds

    @property
    def time_exp(self) -> int:
        return sum(1 for s in self.suffixes if s.seconds) - (1 if self.per_second else 0)

    def factor(self, reading: "Reading") -> float:
        """Everything after the mantissa, under a reading of ambiguous units."""
        f = 1.0
        for s in self.suffixes:
            f *= s.factor
            if s.scale:
                if s.scale == "B":
                    f *= 1.0 if reading.b_bytes else 1e9
                else:
                    f *= SCALE_LETTERS[s.scale][reading.binary]
            if s.byte_unit:
                f *= BYTE_UNITS[s.byte_unit][reading.binary]
            if s.seconds:
                f *= s.seconds
        if self.per_second:
            f /= self.per_second
        if self.percent and reading.percent_fraction:
            f *= 0.01
        return f

    def value(self, reading: "Reading") -> float:
        return self.mantissa * self.factor(reading)

    def evaluate(self, reading: "Reading") -> tuple[float, int]:
        return self.value(reading), self.time_exp

    def operands(self) -> list["Operand"]:
        return [self]

    def symbols(self) -> list["Symbol"]:
        return []


@dataclass(frozen=True)
class Reading:
    """One way to read ambiguous units: GB as 10⁹ or 2³⁰, B as billion or bytes, % as /100."""

    binary: bool = False
    b_bytes: bool = False
    percent_fraction: bool = True
    symbol: float = 0.0  # the value given to every named quantity (n_token); 0: none may appear


@dataclass
class Symbol:
    """A named quantity in a product, `n_token` or `seq_len`: read only when it cancels out."""

    name: str

    def evaluate(self, reading: Reading) -> tuple[float, int]:
        if not reading.symbol:
            raise Uncertain(f"{self.name} has no value")
        return reading.symbol, 0

    def operands(self) -> list[Operand]:
        return []

    def symbols(self) -> list["Symbol"]:
        return [self]


@dataclass
class Unary:
    """An operator on one argument: its operands and symbols are the argument's."""

    arg: "Node"

    def operands(self) -> list[Operand]:
        return self.arg.operands()

    def symbols(self) -> list[Symbol]:
        return self.arg.symbols()


class Neg(Unary):
    """`-x`"""

    def evaluate(self, reading: Reading) -> tuple[float, int]:
        v, t = self.arg.evaluate(reading)
        return -v, t


class Sqrt(Unary):
    """`√x`"""

    def evaluate(self, reading: Reading) -> tuple[float, int]:
        v, t = self.arg.evaluate(reading)
        if v < 0 or t % 2:
            raise Uncertain("square root of a negative or of a time")
        return math.sqrt(v), t // 2


@dataclass
class Binary:
    """`left op right` for op in + - * / ^."""

    op: str
    left: "Node"
    right: "Node"

    def evaluate(self, reading: Reading) -> tuple[float, int]:
        a, ta = self.left.evaluate(reading)
        b, tb = self.right.evaluate(reading)
        if self.op == "^":
            if tb != 0 or b != int(b) or abs(b) > 64 or (ta and b < 0):
                raise Uncertain("exponent")
            if a == 0 and b < 0:
                raise Uncertain("zero to a negative power")
            return a ** int(b), ta * int(b)
        if self.op in "+-":
            if ta != tb:
                raise Uncertain("adding a time to a non-time")
            return (a + b if self.op == "+" else a - b), ta
        if self.op == "*":
            return a * b, ta + tb
        if b == 0:
            raise Uncertain("division by zero")
        return a / b, ta - tb

    def operands(self) -> list[Operand]:
        return self.left.operands() + self.right.operands()

    def symbols(self) -> list[Symbol]:
        return self.left.symbols() + self.right.symbols()


Node = Operand | Symbol | Neg | Sqrt | Binary


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


def _number(tok: Token) -> tuple[float, float, bool]:
    """Value, unit of the last significant digit, and whether it is a plain integer."""
    text = tok.text
    sci = _SCI.match(text)
    if sci:
        mantissa, exp = sci.group(1), int(sci.group(2).translate(SUPERSCRIPTS).replace("−", "-"))
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        return float(mantissa) * 10.0**exp, 10.0 ** (exp - decimals), False
    if "," in text and not _THOUSANDS.match(text):
        raise Uncertain(f"not a number: {text}")
    if "_" in text and not _UNDERSCORES.match(text):
        raise Uncertain(f"not a number: {text}")
    clean = text.replace(",", "").replace("_", "")
    mantissa, _, exp = clean.lower().partition("e")
    exponent = int(exp) if exp else 0
    if "." in mantissa:
        decimals = len(mantissa.split(".")[1])
        unit = 10.0 ** (exponent - decimals)
    else:
        digits = mantissa.lstrip("0")
        zeros = len(digits) - len(digits.rstrip("0")) if digits else 0
        unit = 10.0 ** (exponent + zeros)
    return float(clean), unit, "." not in mantissa and not exp


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
        """`a ×b` or `a- b` (space on one side only) and `3-5` (a range) are not read."""
        tok = self.toks[j]
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
            python_power = (  # 2**16, not **bold**
                kind == "bold" and self.kind(i + 1) == "num" and self.attached(i) and self.attached(i + 1)
            )
            if kind == "pow":
                node, i = Binary("^", node, self.exponent(self.toks[i])), i + 1
            elif python_power or kind == "op" and self.toks[i].text == "^":
                right, i = self.unary(i + 1)
                node = Binary("^", node, right)
            else:
                return node, i

    def exponent(self, tok: Token) -> Operand:
        text = tok.text.strip("^{}").translate(SUPERSCRIPTS).replace("−", "-")
        return Operand(tok.text, tok.start, tok.end, float(int(text)), 1.0, True)

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
            return node, j + 1
        if kind == "num":
            return self.operand(i)
        if kind == "word" and _SYMBOL.fullmatch(self.toks[i].text) and self.after_operator(i):
            return Symbol(self.toks[i].text), i + 1
        raise ParseFail("no operand")

    def starts_factor(self, k: int) -> bool:
        """Token k can begin the next factor of a product: a number, `(`, a sign, a name."""
        kind = self.kind(k)
        return kind in ("num", "lp", "op") or kind == "word" and _SYMBOL.fullmatch(self.toks[k].text) is not None

    def after_operator(self, i: int) -> bool:
        """Token i follows `×` or `/` (a named quantity is never the first factor)."""
        j = i - 1
        while j >= 0 and self.toks[j].kind in ("sp", "bold"):
            j -= 1
        return j >= 0 and self.toks[j].kind == "op" and self.toks[j].text in "×*/·"

    def operand(self, i: int) -> tuple[Operand, int]:
        tok = self.toks[i]
        mantissa, unit, plain = _number(tok)
        op = Operand(tok.text, tok.start, tok.end, mantissa, unit, plain)
        op.rounded_zeros = plain and unit > 1
        op.core_end = tok.end
        i = self.suffixes(op, i + 1)
        op.plain_int = op.plain_int and all(s.label and not s.scale for s in op.suffixes) and not op.percent
        if op.suffixes and any(s.uncertain for s in op.suffixes):
            raise Uncertain(f"unit not read with certainty: {self.line[op.start:op.end]}")
        return op, i

    def suffixes(self, op: Operand, i: int) -> int:
        """Scale, unit, rate, label and annotation after a number; returns the next index."""
        labelled = rated = False  # rated: `/ GPU` seen, so `/ micro-batch` is a rate too
        while True:
            j = self.skip(i)
            spaced = j > i
            kind = self.kind(j)
            tok = self.toks[j] if kind else None
            if kind == "pct" and not op.percent and not labelled and (j == i or j == i + 1):
                op.percent = True
                op.core_end = tok.end
            elif kind == "word" and not labelled and not (spaced and j > i + 1):
                word = tok.text
                if word in ("x", "X") or (spaced and word in ("per", "in", "of", "and", "or", "to")):
                    if word in ("x", "X") and not spaced:
                        labelled = True  # "0.5x": times, a label
                    else:
                        return i
                elif spaced and any(s.byte_unit or s.seconds for s in op.suffixes):
                    labelled = True  # `2.1 GB KV Cache`: after a unit, a word is a label
                else:
                    suffix = read_word(word, attached=not spaced)
                    if suffix.label:
                        labelled = True
                    if not suffix.label or suffix.scale:
                        op.core_end = tok.end
                    op.suffixes.append(suffix)
            elif kind == "cjk" and not labelled and not (spaced and j > i + 1):
                suffix, rest = read_cjk(tok.text)
                op.suffixes.append(suffix)
                labelled = suffix.label or bool(rest)
                if not suffix.label:
                    op.core_end = tok.start + len(tok.text) - len(rest)
            elif kind == "op" and tok.text == "/" and (per := self.per_word(j, rated)) is not None:
                if per in ("s", "sec", "秒") and op.suffixes and not labelled and not spaced:
                    op.per_second = 1.0
                    op.core_end = self.toks[self.skip(j + 1)].end  # `50 GB/s` is written with its `/s`
                elif per in TIME_UNITS or per.startswith(("秒", "小时", "分钟", "天")):
                    raise Uncertain("rate per unit of time")
                labelled = rated = True
                i = self.hyphenated(self.skip(j + 1)) + 1
                continue
            elif kind == "op" and tok.text in ("×", "x") and not self.starts_factor(self.skip(j + 1)):
                labelled = True  # "8×": times
            elif kind == "annot" and (not spaced or j == i + 1):
                labelled = True
            elif kind == "op" and tok.text == "-" and not spaced and self.kind(j + 1) in ("word", "cjk"):
                unit = self.toks[j + 1].text
                if not (unit in TIME_UNITS and self.attached(j + 1) and op.suffixes and op.suffixes[-1].label):
                    raise Uncertain("hyphenated unit")
                op.suffixes.append(Suffix(seconds=TIME_UNITS[unit]))  # 640,000 GPU-hours
                j += 1
            else:
                return i
            i = j + 1

    def per_word(self, j: int, rated: bool = False) -> str | None:
        """The word of `/word` at token j when it names what a number is per (GB/s, d/层,
        KB / token, $500/卡); after one such word (`rated`) any word is."""
        spaced = j + 1 < len(self.toks) and self.toks[j + 1].kind == "sp"
        k = self.skip(j + 1)
        if self.kind(k) == "cjk" or self.kind(k) == "word" and (
            rated or not spaced and self.toks[k].text in TIME_UNITS or self.toks[k].text in PER_WORDS
        ):
            return self.toks[k].text
        return None

    def hyphenated(self, k: int) -> int:
        """The last token of a hyphenated word starting at k: `micro-batch`."""
        while self.kind(k + 2) in ("word", "cjk") and self.toks[k + 1].text == "-" and self.attached(k + 1) and self.attached(k + 2):
            k += 2
        return k
