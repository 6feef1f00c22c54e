"""The tokens of a line of written arithmetic: numbers, operators, relation signs, units and
words, parenthesised remarks (`(ring 2×(n-1)/n)`), with whether each is inside a code span.

`x` is read as times after a number (`2x 3`, `256KiB x 132`), a currency sign or a leading `~`
glued to a number is dropped, `O(` opens an order of magnitude. Nothing here says what the
tokens mean: `parser` reads them into expressions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultkit.checks.claims.units import UNITS

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
# A fraction written as one character: `½(1 + 0)` is half of the bracket.
FRACTIONS = {"½": 1 / 2, "⅓": 1 / 3, "⅔": 2 / 3, "¼": 1 / 4, "¾": 3 / 4, "⅕": 1 / 5, "⅖": 2 / 5, "⅗": 3 / 5}
FRACTIONS |= {"⅘": 4 / 5, "⅙": 1 / 6, "⅚": 5 / 6, "⅛": 1 / 8, "⅜": 3 / 8, "⅝": 5 / 8, "⅞": 7 / 8}
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
    # `2 × 10^3` is one number; `2 × 10^0.5` and `2 × 10^2^-1` are a power the parser computes
    rf"|(?P<sci>\d+(?:\.\d+)?{_SCI_TIMES}10(?:\^[-−]?\d+|\^\{{[-−]?\d+\}}|⁻?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)(?![.,]?\d|\^|\*\*))"
    r"|(?P<num>\d+(?:(?:[,_]|\{,\})\d+)*(?:\.\d+)?(?:[eE][-+]?\d+)?)"  # `4{,}621`: LaTeX grouping
    rf"|(?P<frac>[{''.join(FRACTIONS)}])"
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
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")
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
# An ASCII character glued to a number makes it part of something else: 1.2.3, 10:30, a@1, $5.
GLUE = set(".:@#$_/\\'\"!?&<>[]{}")
OPERAND_END = {"num", "pow", "rp", "pct", "annot"}


@dataclass
class Token:
    kind: str
    text: str
    start: int
    end: int
    code: bool = False  # inside a code span: `8.87-7.45` is a subtraction
    math: bool = False  # inside LaTeX math (not `\\text{…}`): a letter is a variable


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


def tokenize(line: str, code: list[tuple[int, int]] = (), maths: list[tuple[int, int]] = ()) -> list[Token]:
    """The tokens of a line; `code` and `maths` are the (start, end) spans of code and of math in it."""
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
        elif kind in ("sci", "frac"):
            if kind == "sci" and (line.endswith("**", 0, pos) or line.endswith("^", 0, pos)):
                m = _PLAIN_NUMBER.match(line, pos)  # `0**2 × 10^2`: the exponent is 2, not 2 × 10²
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
    for spans, flag in ((code, "code"), (maths, "math")):
        if spans:
            _mark(tokens, sorted(spans), flag)
    return tokens


def _mark(tokens: list[Token], spans: list[tuple[int, int]], flag: str) -> None:
    """Set `flag` on the tokens that start inside one of the (sorted) spans."""
    k = 0
    for tok in tokens:
        while k < len(spans) and spans[k][1] <= tok.start:
            k += 1
        setattr(tok, flag, k < len(spans) and spans[k][0] <= tok.start)


def _last_significant(tokens: list[Token]) -> Token | None:
    for tok in reversed(tokens[-2:]):
        if tok.kind not in ("sp", "bold"):
            return tok
    return None
