"""The expression grammar of written arithmetic (no eval), over the tokens of `tokens`.

    expr    := term (('+' | '-') term)*
    term    := unary (('×' | '*' | 'x' | '/' | '÷' | '\\times' | '\\cdot') unary)*
    unary   := ('-' | '√') unary | power
    power   := primary superscript* [('^' | '**') unary]      (right-associative: 2**3**2 = 2**9)
    primary := operand | '(' expr ')' | 'O(' expr ')' | name   (a name such as n_token only after × or /)
    operand := number [scale] [unit] ['/' unit] [label] [(annotation)]

As in mathematics (and Python), a power binds tighter than a unary minus (`-2**2 = -4`), its
exponent may be negative or fractional (`2^-1`, `4^0.5`), and `/` chains to the left
(`64 / 4 / 2 = 8`). Numbers are written plainly (`524,288`, `0.5`), in Python (`1e9`, `2**30`)
or scientific notation (`1.67×10⁶`, `6 \\times 10^{6}`). A parse reads as much as it can;
`Uncertain` means the text is arithmetic-like but cannot be read with certainty (a date, a range
`3-5`, `PCIe 4.0 ×16`, a k8s quantity, a number beyond floating point, nesting too deep, …).
"""

from __future__ import annotations

import math
import re
from contextlib import contextmanager

from vaultkit.checks.claims.expr import (
    BEYOND_FLOAT,
    FUNCTIONS,
    MAX_LOG10,
    BigO,
    Binary,
    Func,
    Neg,
    Node,
    Operand,
    ParseFail,
    Sqrt,
    Symbol,
    Uncertain,
)
from vaultkit.checks.claims.tokens import FRACTIONS, MINUSES, SUPERSCRIPTS, Token
from vaultkit.checks.claims.units import (
    SCALE_LETTERS,
    SCALE_WORDS,
    TIME_UNITS,
    UNITS,
    Suffix,
    read_cjk,
    read_word,
)

# A named quantity: a lower-case identifier with an underscore, `n_token`, `seq_len`.
_SYMBOL = re.compile(r"[a-z][a-z0-9]*_[a-z0-9_]+")
_SCI = re.compile(
    r"(\d+(?:\.\d+)?)(?:[ ]?[×xX*·][ ]?|[ ]?\\(?:times|cdot)[ ]?)10(?:\*\*|\^)?\{?([-−⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
)
_THOUSANDS = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?:[eE][-+]?\d+)?\Z")
_UNDERSCORES = re.compile(r"\d{1,3}(?:_\d{3})+(?:\.\d+)?\Z")  # `262_144_000`, not `1101_2`
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
_EXPONENT = re.compile(r"-?\d+(?:\.\d+)?")
SYMBOLIC = "letters are variables: symbolic algebra, not arithmetic"
XOR = "`a ^ b` spaced may be XOR, as in code"
SHAPE_X = "a shape or a configuration (`2x2 MIMO`, `3x3 conv`), not a product"
MAX_VARIABLE = 3  # a word in math this short is a variable (`$4DH$`), a longer one a label (`$16 GPUs$`)
MAX_DEPTH = 60  # brackets, minuses and exponents nested deeper are not read
EXACT_DIGITS = 7  # an integer written with this many digits claims to be exact


_ARITHMETIC_INSIDE = re.compile(r"[A-Za-z][-+−*/×^]|[-+−*/×^][A-Za-z]")


def _multiple(node: Node) -> bool:
    """A number written as a multiple (`2x`), which a sum cannot hold: there `x` is a variable."""
    return isinstance(node, Operand) and node.times


def _significant_digits(digits: str) -> int:
    core = digits.lstrip("0")
    return max(1, len(core))


def _number(tok: Token) -> tuple[float, float, bool, int, bool, bool]:
    """Value, unit of the last significant digit, whether it is a plain integer, its
    significant digits, whether it has a decimal point, and whether it claims exactness."""
    text = tok.text
    if text in FRACTIONS:
        return FRACTIONS[text], 0.0, False, 1, True, True
    text = text.replace("{,}", ",")  # `422{,}500{,}000` in LaTeX
    sci = _SCI.match(text)
    if sci:
        mantissa, exp = sci.group(1), int(sci.group(2).translate(SUPERSCRIPTS).replace("−", "-"))
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        digits = _significant_digits(mantissa.replace(".", ""))
        return float(mantissa) * _pow10(exp), _pow10(exp - decimals), False, digits, "." in mantissa, False
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
        unit = _pow10(exponent - decimals)
        digits = _significant_digits(mantissa.replace(".", ""))
    else:
        core = mantissa.lstrip("0")
        zeros = len(core) - len(core.rstrip("0")) if core else 0
        exact = not exp and len(core) >= EXACT_DIGITS and zeros < 3  # 2,097,150: every digit counts
        unit = _pow10(exponent + zeros)
        digits = max(1, len(core) - zeros)
    value = float(clean)
    if not math.isfinite(value) or value and abs(value) < 1e-300:
        raise Uncertain(BEYOND_FLOAT)
    return value, unit, "." not in mantissa and not exp, digits, "." in mantissa, exact


def _pow10(exponent: int) -> float:
    """10 to a whole power, within floating point (`1e400` is not read)."""
    if abs(exponent) > MAX_LOG10:
        raise Uncertain(BEYOND_FLOAT)
    return 10.0**exponent


class Parser:
    """Recursive descent over the tokens of one segment of a line."""

    def __init__(self, tokens: list[Token], line: str):
        self.toks = tokens
        self.line = line
        self.depth = 0  # how deep in brackets, minuses and exponents the parse is

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
        node, i = self.unary(i)
        return self.binary_loop(node, i, "×*/÷·\\", self.unary)

    def binary_loop(self, node, i, ops, operand_parser):
        additive = ops.startswith("+")
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
            if additive and _multiple(node) or additive and _multiple(right):
                raise Uncertain(SYMBOLIC)  # `2x + 3 = 11`: x is a variable, not times
            glued_x = self.line[tok.start] in "xX" and self.line[tok.start - 1 : tok.end + 1].isalnum()
            if glued_x and isinstance(right, Operand) and right.labels:
                raise Uncertain(SHAPE_X)
            op = tok.text[0]
            op = {"×": "*", "·": "*", "\\": "*" if tok.text != "\\div" else "/", "÷": "/", "−": "-"}.get(op, op)
            node, i = Binary(op, node, right), end

    def check_spacing(self, before: int, j: int) -> None:
        """`a ×b` or `a- b` (space on one side only) and `3-5` (a range) are not read (in code
        they are: `8.87-7.45`)."""
        tok = self.toks[j]
        if tok.code or tok.math:
            return  # in code and in LaTeX spaces mean nothing: `12\\times 5120^2`
        # a full-width bracket carries its own space: `2GB（读）+ 2GB（写）`
        space_before = j > before or (j > 0 and (self.toks[j - 1].kind == "sp" or self.toks[j - 1].text.endswith("）")))
        space_after = j + 1 < len(self.toks) and self.toks[j + 1].kind == "sp"
        if space_before != space_after:
            raise Uncertain("operator spaced on one side only")
        if tok.text in MINUSES and not space_before:
            raise Uncertain("a-b without spaces is a range or a date")

    def power(self, i: int) -> tuple[Node, int]:
        node, i = self.primary(i)
        while self.kind(i) == "pow":  # `2¹⁰`, `x^{2}`
            node, i = Binary("^", node, self.exponent(self.toks[i])), i + 1
            node, i = self.power_units(node, i)
        j = self.power_sign(i)
        if j is None:
            return node, i
        right, i = self.exponent_chain(j)
        return self.power_units(Binary("^", node, right), i)

    def power_sign(self, i: int) -> int | None:
        """The index after a `^` or a Python `**` at token i (spaces skipped), None if none."""
        k = i
        while self.kind(k) == "sp":
            k += 1
        kind = self.kind(k)
        if kind == "op" and self.toks[k].text == "^" and (k == i or self.toks[k].code or self.kind(k + 1) == "sp"):
            if k > i and self.kind(k + 1) == "sp" and not self.toks[k].math:
                raise Uncertain(XOR)  # `j' = 0 ^ 1 = 1`
            return k + 1
        if kind != "bold" or self.toks[k].text != "**":
            return None
        if not (self.toks[k].code or k == i and self.attached(k) and self.attached(k + 1)):
            return None  # `**bold**`
        after = self.skip(k + 1)
        if self.kind(after) == "op" and self.toks[after].text in MINUSES:
            after = self.skip(after + 1)
        return k + 1 if self.kind(after) in ("num", "lp") else None

    def exponent_chain(self, j: int) -> tuple[Node, int]:
        """The exponent after `^` or `**`: a power is right-associative (`2**3**2` is 2**9) and
        its exponent may be negative (`2^-1`); a number there carries no unit, so in
        `10^13 FLOP/s` the unit is the power's."""
        with self.deeper():
            j = self.skip(j)
            tok = self.toks[j] if j < len(self.toks) else None
            if tok is not None and tok.kind == "op" and tok.text in MINUSES:
                inner, end = self.exponent_chain(j + 1)
                return Neg(inner), end
            if tok is None or tok.kind != "num":
                return self.unary(j)
            base, end = self.exponent(tok), j + 1
            k = self.power_sign(end)
            if k is None:
                return base, end
            right, end = self.exponent_chain(k)
            return Binary("^", base, right), end

    @contextmanager
    def deeper(self):
        """One level deeper into a nested expression; too deep is not read (10,000 brackets)."""
        self.depth += 1
        try:
            if self.depth > MAX_DEPTH:
                raise Uncertain(f"nested deeper than {MAX_DEPTH} levels")
            yield
        finally:
            self.depth -= 1

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
        """A written exponent: a whole number, or a decimal after `^` (`4^0.5`)."""
        text = tok.text.strip("^{}").translate(SUPERSCRIPTS).replace("−", "-")
        if not _EXPONENT.fullmatch(text):
            raise ParseFail("not a plain exponent")
        value = float(text)
        if not math.isfinite(value):
            raise Uncertain("a number beyond floating point range")
        return Operand(tok.text, tok.start, tok.end, value, 1.0, value == int(value))

    def unary(self, i: int) -> tuple[Node, int]:
        """A minus or a root binds looser than a power: `-2**2` is -(2**2)."""
        i = self.skip(i)
        tok = self.toks[i] if i < len(self.toks) else None
        if tok is not None and tok.kind == "op" and tok.text in MINUSES + "√":
            with self.deeper():
                node, end = self.unary(i + 1)
            return (Neg(node) if tok.text in MINUSES else Sqrt(node)), end
        return self.power(i)

    def primary(self, i: int) -> tuple[Node, int]:
        kind = self.kind(i)
        if kind == "lp":
            with self.deeper():
                node, j = self.expr(i + 1)
            j = self.skip(j)
            if self.kind(j) != "rp":
                raise ParseFail("unclosed parenthesis")
            if self.toks[i].text == "O(" and isinstance(node, Operand) and not node.suffixes:
                raise Uncertain("an order of growth (`O(1)`), not a number")
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
                if self.variable(j) or not spaced and self.letter(word):
                    raise Uncertain(SYMBOLIC)
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
                if tok.text.startswith("的") and not op.suffixes:
                    raise Uncertain("a quantity of the number (`-82 的补码`), not the number")
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
                if not spaced and not op.suffixes and tok.text[0] == "(" and _ARITHMETIC_INSIDE.search(tok.text):
                    raise Uncertain(SYMBOLIC)  # `2(k+1)`: a number times a bracket of letters
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

    def variable(self, j: int) -> bool:
        """The word at token j is a variable, not a unit or a label: raised to a power (`8d²`,
        `2sh^2`), or a short word in LaTeX math (`$4DH$`, `$2 H T^2$`; `\\text{GB}` is a unit)."""
        word = self.toks[j].text
        if (
            word in UNITS
            or word in TIME_UNITS
            or word in SCALE_LETTERS
            or word.lower() in SCALE_WORDS
            or word in ("x", "X")
        ):
            return False
        powered = self.kind(j + 1) == "pow" or self.kind(j + 1) == "op" and self.toks[j + 1].text == "^"
        return powered or self.toks[j].math and len(word) <= MAX_VARIABLE

    @staticmethod
    def letter(word: str) -> bool:
        """A single letter glued to a number that is no unit, scale or `x`: a variable (`2k`
        aside, `4y`, `3a`, `4N`)."""
        return (
            len(word) == 1
            and word.isascii()
            and word not in UNITS
            and word not in TIME_UNITS
            and word not in SCALE_LETTERS
            and word not in "xXbm"
        )

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
