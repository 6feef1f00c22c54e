"""Finding claims `expr = value [≈ value …]` in a line (made readable by `prose`).

A (logical) line is split at its relation signs (= ≈ ~ ≅ →). The expression is the longest
arithmetic suffix before a sign, the value the longest arithmetic prefix after it. A claim is
read only when both ends are clean: an operand cut off by a word (`8 个 Expert × 7B = 56B`), a
number glued to something else (`pass@1 = 71%`, `1.2.3`), a range or date (`3-5`,
`2025-01-13`), or a unit we do not read (`8Gi`, a bare `b`) make it skipped with the reason,
never flagged. What follows a result is not taken for it: a multiple (`= 100.5M → 2x dense`),
a value of another quantity (`= 640 GB ≈ 8 张卡`), a step from one value to another
(`48GB → 12GB`), a range (`= 5~8 GB`). `name=value` options and glued ranges (`0~5min`) are no
claims; a ratio equal to a ratio (`64:32 = 2:1`) is a division. Signs between numbers that hold
no claim are kept in `quiet`, so `--explain` can account for every such line.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from vaultkit.checks.claims.expr import (
    BEYOND_FLOAT,
    FUNCTIONS,
    Binary,
    Neg,
    Node,
    ParseFail,
    Reading,
    Uncertain,
    first_operand,
    has_operator,
    is_ratio,
    substituted,
    written_leaf,
)
from vaultkit.checks.claims.parser import SHAPE_X, SYMBOLIC, XOR, Parser
from vaultkit.checks.claims.tokens import GLUE, MINUSES, OPERAND_END, Token, tokenize
from vaultkit.checks.claims.units import BYTE

if TYPE_CHECKING:
    from vaultkit.readers.svgtext import SvgText

_MAY_HAVE_CLAIM = re.compile(r"[=≈~≅≃→]")
MAX_LHS_TOKENS = 48


@dataclass
class Side:
    """One side of a relation sign: an expression or a value, and where it is written."""

    node: Node
    start: int  # character offsets in the line
    end: int
    whole: bool  # it is all there is between the two relation signs


@dataclass
class Found:
    """A claim read from a line: `expr rel value`."""

    rel: str
    value: Side
    alternatives: list[tuple[Side, Node, bool]]  # (expression, value, loose) readings of it
    pass_only: str = ""  # why it is read only to pass: wrong, it is skipped with this reason
    not_far: str = ""  # why it is read only to be close: off by a factor over 100, it is skipped
    partial: set[int] = field(default_factory=set)  # ids of values cut from a longer one: read only to pass


@dataclass
class Skipped:
    """A claim-like span not read with certainty, and why."""

    start: int
    end: int
    reason: str
    sign: int = -1  # where its relation sign is


@dataclass
class LineClaims:
    found: list[Found]
    skipped: list[Skipped]
    quiet: list[Skipped] = field(default_factory=list)  # signs between numbers that hold no claim


_CONTINUATION = re.compile(r"[ \t]*(?:>[ \t]*)*(?:=(?![=>])|≈|→)")
_SIGN = re.compile(r"[=≈~≅≃→＝]|->|\\(?:approx|sim)")
_DIGIT = re.compile(r"\d")
# A line with `=`, `≈` or `→` between numbers: what --explain accounts for, read or skipped.
_LINE_SIGN = re.compile(r"(?<![=!<>:+\-*/%])(?:=[ ]?~|=|＝|≈|→)(?![=>])")
_NUMBER_BEFORE = re.compile(
    r"(?<![A-Za-z_\d.,])\d+(?:[.,]\d+)*"  # a number
    r"(?:[A-Za-z/]{1,8}|[ ][A-Za-z\u4e00-\u9fff/]{1,8}(?=[ \t(（]))?"  # its unit: `8GB`, `11 sec ` (not `80 weight=`)
    r"(?:[ ]?[(（][^()（）]{0,40}[)）])?[%²³⁰¹⁴⁵⁶⁷⁸⁹)`*]*[ \t]*\Z"
)
_CLOSING_RUN = 200  # closing brackets looked through before a sign
_DIGIT_BEFORE = re.compile(r"\d[ \t]*\Z")
_NUMBER_AFTER = re.compile(r"[ \t]*[`*~$¥(\-−]*[ \t]*\d")


def continues_above(line: str) -> bool:
    """A line starting with `=`, `≈` or `→` (in a quote too) continues the expression of the
    line above."""
    return _CONTINUATION.match(line) is not None


def has_sign(line: str) -> bool:
    """Whether a line has a relation sign or an arrow (most lines have not)."""
    return _SIGN.search(line) is not None


def may_have_claim(line: str) -> bool:
    """Whether a line with a sign has a number or a shape too."""
    return "(" in line or _DIGIT.search(line) is not None


def claim_signs(line: str) -> Iterator[int]:
    """Offsets of the `=`, `≈` and `→` signs between numbers (`` `16/300` = 0.053 secs ``)."""
    if _DIGIT.search(line) is None:
        return
    for m in _LINE_SIGN.finditer(line):
        if not _NUMBER_AFTER.match(line, m.end()):
            continue
        before = m.start()
        while before > 0 and m.start() - before < _CLOSING_RUN and line[before - 1] in ") \t":
            before -= 1  # `((((2)))) = 2`: the brackets close a number
        before = m.start() if before > m.start() - 4 else before + 1
        digit_before = _DIGIT_BEFORE.search(line, max(0, before - 8), before)  # `avg10=0.00`, `GPU1 = 900`
        if (
            digit_before
            or _NUMBER_BEFORE.search(line, max(0, before - 80), before)
            and not between_shapes(line, m.start())
        ):
            yield m.start()


_SHAPE_BEFORE = re.compile(r"\(\s*\w+(?:\s*,\s*\w+)+\s*\)(?:ᵀ|\^T|\.T)?\s*\Z")
_SHAPE_AFTER = re.compile(r"\s*[A-Za-z_]*\(\s*\w+\s*,")


def between_shapes(line: str, sign: int) -> bool:
    """The sign at `sign` stands between two matrix shapes: `(4, 4096) → (4, 32000)`."""
    return (
        _SHAPE_BEFORE.search(line, max(0, sign - 80), sign) is not None
        and _SHAPE_AFTER.match(line, sign + 1) is not None
    )


def claim_like(line: str) -> bool:
    """Whether a line has `=`, `≈` or `→` between numbers."""
    return next(claim_signs(line), None) is not None


def _span(left: list[Token], right: list[Token]) -> tuple[int, int]:
    """Where the text around a relation sign starts and ends (at most 60 characters each way)."""
    first = _significant(left, 0, 1)
    last = _significant(right, len(right) - 1, -1)
    start = left[first].start if first is not None else (right[0].start if right else 0)
    end = right[last].end if last is not None else (left[-1].end if left else start)
    rel_at = left[-1].end if left else start
    return max(start, rel_at - 60), min(end, rel_at + 61)


def _significant(tokens: list[Token], i: int, step: int) -> int | None:
    while 0 <= i < len(tokens):
        if tokens[i].kind not in ("sp", "bold"):
            return i
        i += step
    return None


def _starts_operand(tokens: list[Token], i: int) -> bool:
    tok = tokens[i]
    if tok.kind in ("num", "lp"):
        return True
    if (
        tok.kind == "word"
        and tok.text in FUNCTIONS
        and i + 1 < len(tokens)
        and tokens[i + 1].kind == "lp"
        and tokens[i + 1].start == tok.end
    ):
        return True
    if tok.kind == "op" and tok.text in MINUSES + "√":
        j = _significant(tokens, i + 1, 1)
        while j is not None and j - i < MAX_LHS_TOKENS and tokens[j].kind == "op" and tokens[j].text in MINUSES:
            j = _significant(tokens, j + 1, 1)  # `--2`: a minus of a minus
        return j is not None and tokens[j].kind in ("num", "lp")
    return False


def _left_numeric(seg: list[Token]) -> bool:
    i = _significant(seg, len(seg) - 1, -1)
    if i is None:
        return False
    if seg[i].kind in OPERAND_END:
        return True
    for _ in range(4):  # a unit or label after a number: 12GB/s, 3 个
        if seg[i].kind not in ("word", "cjk", "op"):
            return False
        i = _significant(seg, i - 1, -1)
        if i is None:
            return False
        if seg[i].kind in OPERAND_END:
            return True
    return False


def _right_numeric(seg: list[Token]) -> bool:
    i = _significant(seg, 0, 1)
    return i is not None and _starts_operand(seg, i)


MAX_COUNTED_WORDS = 2  # words between a count and what it counts: `4 个 8×8`, `4 blocks of 8×8`
# the word just before the size of the pieces: a Chinese measure word (or English `of`)
MEASURE_WORDS = frozenset("个块组张片份条段次轮")


def _counts_a_product(seg: list[Token], k: int, labelled: bool) -> bool:
    """Whether the tokens from `k` after a value (`labelled`: its own words read already) are a
    few words ending in a counting word, then a product (`个 8×8`, `blocks of 8×8`): the value is
    a number of pieces of that size, and the equation before it is not a computation
    (`= 7 and 4 × 4` is a second claim)."""
    words = int(labelled)
    while k is not None and seg[k].kind in ("word", "cjk") and words <= MAX_COUNTED_WORDS:
        words += 1
        k = _significant(seg, k + 1, 1)
    if words == 0 or k is None or seg[k].kind != "num":
        return False
    last = seg[_significant(seg, k - 1, -1)].text  # the value's own label when no other word follows
    if last[-1:] not in MEASURE_WORDS and last.lower() != "of":
        return False
    op = _significant(seg, k + 1, 1)
    return op is not None and seg[op].kind == "op" and seg[op].text in ("×", "*", "·", "\\times", "\\cdot")


def _check_after(seg: list[Token], end: int, labelled: bool) -> bool:
    """Whether the value ending at token `end` is the whole rest of the segment; `labelled`:
    a word follows its number and unit (`16 台 64 口` is 16 of something)."""
    k = _significant(seg, end, 1)
    if k is None:
        return True
    tok = seg[k]
    if end > 0 and seg[end - 1].code and not tok.code:
        return False  # the value ends with its code span: `` `1GiB = 2**30 Bytes` alongside … ``
    after = _significant(seg, k + 1, 1)
    if _counts_a_product(seg, k, labelled):
        raise Uncertain("the value counts pieces the size of a product that follows: `= 4 个 8×8`")
    if tok.kind == "num" and labelled:
        return False
    if tok.kind == "op" and tok.text in "+" + MINUSES and after is not None and seg[after].kind in ("word", "cjk"):
        return False  # `14 GB（仅模型）+ 优化器状态`: the rest is words
    if tok.kind == "lp" and k > end and seg[k - 1].kind == "sp":
        return False  # `= 7GiB (28 came from …)`: a remark in brackets
    shift = tok.text in "<>" and k + 1 < len(seg) and seg[k + 1].text == tok.text  # `= 5 << 3 = 40`
    if tok.kind in ("op", "num", "lp", "pow", "pct") or tok.kind == "other" and (tok.text in "&^" or shift):
        raise Uncertain("value runs into more arithmetic")
    attached = k == end
    if tok.kind == "other" and attached and tok.text in GLUE:
        sentence_end = tok.text in ".!?" and (k + 1 == len(seg) or seg[k + 1].kind in ("sp", "cjk"))
        if not sentence_end:
            raise Uncertain(f"value glued to {tok.text!r}")
    return False


def _check_before(seg: list[Token], start: int) -> None:
    """An expression starting at token `start` must not be cut out of something larger; an
    opening bracket before it holds the claim (`(1745/794.5 = 2.20×)`)."""
    p = _significant(seg, start - 1, -1)
    if p is None:
        return
    tok = seg[p]
    if seg[start].code and not tok.code:
        return  # `… since `2*(2-1)/2=1``: the code span holds the whole expression
    if tok.kind == "lp" and tok.text == "(":
        q = _significant(seg, p - 1, -1)
        glued = q is not None and q == p - 1 and seg[q].kind in ("word", "num")
        if q is None or not (glued or seg[q].kind in ("op", "lp") or seg[q].kind in OPERAND_END):
            return
    if tok.kind in ("op", "lp") or tok.kind in OPERAND_END:
        raise Uncertain("expression is cut off")
    if tok.kind in ("word", "cjk"):
        q = _significant(seg, p - 1, -1)
        phrase = tok.kind == "cjk" and len(tok.text) >= 2 and p < start - 1  # 5 行一共是 1 + 2 …
        r = _significant(seg, q - 1, -1) if q is not None else None
        dash = (
            q is not None and seg[q].kind == "op" and (r is None or seg[r].kind not in OPERAND_END)
        )  # `8 GPUs - so 8/2`
        if q is not None and (seg[q].kind == "op" and not dash or seg[q].kind in OPERAND_END and not phrase):
            raise Uncertain("a word inside the expression")
    if tok.kind == "word" and p == start - 1 or tok.kind == "other" and p == start - 1 and tok.text.isalnum():
        raise Uncertain("expression glued to a word: a function call or a name")  # `log₂(1+1000)`
    if tok.kind == "other" and tok.text in _CODE_OPERATORS:
        raise Uncertain("expression is cut off")  # `12 & (-12) = 4`, `-7//2=-4`
    if seg[start].kind == "op" and seg[start].text in MINUSES and tok.kind in ("word", "cjk"):
        raise Uncertain("expression is cut off")  # `n - 1 = 4`: a minus after a name subtracts
    if tok.kind == "other" and p == start - 1 and tok.text in GLUE:
        raise Uncertain(f"expression glued to {tok.text!r}")


# Operators of code before an expression: it is cut out of a larger one (a table's `|` is none).
_CODE_OPERATORS = {"&", "^", "!", "//", "==", "!=", "<=", ">=", "+=", "-=", "*=", "/=", "%=", ":=", "<<", ">>", "&&"}


def parse_prefix(seg: list[Token], line: str) -> Side | None:
    i = _significant(seg, 0, 1)
    if i is None or not _starts_operand(seg, i):
        return None
    try:
        node, end = Parser(seg, line).expr(i)
    except ParseFail:
        return None
    leaf = written_leaf(node)
    end_char = leaf.core_end if leaf is not None else seg[end - 1].end
    whole = _check_after(seg, end, bool(line[end_char : seg[end - 1].end].strip()))
    return Side(node, seg[i].start, end_char, whole)


def parse_suffix(seg: list[Token], line: str) -> Side | None:
    last = _significant(seg, len(seg) - 1, -1)
    if last is None:
        return None
    parser = Parser(seg, line)
    uncertain: Uncertain | None = None
    for i in range(max(0, last - MAX_LHS_TOKENS), last + 1):
        if not _starts_operand(seg, i):
            continue
        try:
            node, end = parser.expr(i)
        except ParseFail:
            continue
        except Uncertain as exc:
            uncertain = uncertain or exc
            continue
        if _significant(seg, end, 1) is None:
            try:
                _check_before(seg, i)
            except Uncertain as cut:
                whole = uncertain is not None and str(uncertain) in (BEYOND_FLOAT, SYMBOLIC, XOR, SHAPE_X)
                raise (uncertain if whole else cut) from None  # `1e400 * 2`: the reason is the number
            whole = _significant(seg, i - 1, -1) is None
            return Side(node, seg[i].start, seg[end - 1].end, whole)
    if uncertain:
        raise uncertain
    return None


def unit_kind(node: Node) -> tuple | None:
    """The dimension of a value written with a unit (`12 GB`, `85.9ms`), None without one."""
    leaf = written_leaf(node)
    if leaf is None or not leaf.has_unit:
        return None
    return leaf.dims(Reading())


def _bare_conversion(lhs: Node, rhs: Node) -> bool:
    """`86400s = 24h`, `524,288 bytes = 0.5 MB`, `8 GB/s = 1000 MB/s`: one kind of unit,
    written differently."""
    if has_operator(lhs) or has_operator(rhs):
        return False
    kind = unit_kind(lhs)
    if kind is None or kind != unit_kind(rhs) or lhs.percent or rhs.percent:
        return False
    return _units_written(lhs) != _units_written(rhs)


def _units_written(leaf) -> list[tuple]:
    return [(s.unit, s.seconds, s.scale, s.factor) for s in leaf.suffixes + leaf.per if not s.label]


def _assignment_or_range(tokens: list[Token], i: int) -> bool:
    """`--size=5`, `avg60=0.00` (a name glued to `=`) and `0~5min` (a glued `~`): no claim."""
    if i == 0 or i + 1 == len(tokens):
        return False
    before, sign, after = tokens[i - 1], tokens[i], tokens[i + 1]
    glued = before.end == sign.start and sign.end == after.start
    if sign.text == "=":
        return glued and before.kind == "word"
    return sign.text == "~" and glued and before.kind in OPERAND_END | {"word"} and after.kind == "num"


_RATIO = r"(?<![\w.:])\d+(?:\.\d+)? ?: ?\d+(?:\.\d+)?(?![\w.:])"
_CLOCK = re.compile(r"(?:[01]?\d|2[0-4]):[0-5]\d")
_RATIO_CLAIM = re.compile(rf"({_RATIO})(\s*[=≈]\s*)({_RATIO})")


def _read_ratios(line: str) -> str:
    """`64:32 = 2:1`, `900 : 25 = 36:1`: a ratio equal to a ratio is a division, and `N:1` is N.
    The line keeps its length, so positions do not move."""
    if ":" not in line:
        return line

    def as_division(m: re.Match) -> str:
        if _CLOCK.fullmatch(m.group(1)) or _CLOCK.fullmatch(m.group(3)):
            return m.group()  # 10:30 is a time of day
        value = m.group(3)
        head, _, tail = value.rpartition(":")
        value = head + " " * (len(tail) + 1) if tail.strip() == "1" else value.replace(":", "/")
        return m.group(1).replace(":", "/") + m.group(2) + value

    return _RATIO_CLAIM.sub(as_division, line)


def _is_range(tokens: list[Token], rels: list[int], k: int) -> bool:
    """The `~` at rels[k] joins two values into a range (`5~8 GB`, `-1 ~ -10 dBm`)."""
    i = rels[k]
    if tokens[i].text != "~":
        return False
    p = _significant(tokens, i - 1, -1)
    q = _significant(tokens, i + 1, 1)
    if p is None or q is None:
        return False
    if tokens[q].kind == "op" and tokens[q].text in MINUSES:
        q = _significant(tokens, q + 1, 1)
    return (
        q is not None
        and tokens[q].kind == "num"
        and (tokens[p].kind in OPERAND_END or tokens[p].kind in ("word", "cjk"))
    )


def _different_quantity(previous: Node, value: Node) -> bool:
    """`= 640 GB ≈ 8 张卡`: after a value in a unit, a value in another (or none) is something else;
    so is one counting other things (`= 16 sequences = 65,536 tokens`)."""
    kind = unit_kind(previous)
    if kind is not None and unit_kind(value) != kind:
        return True
    leaves = written_leaf(previous), written_leaf(value)
    if None in leaves:
        return False
    ours, theirs = ({_label(text) for text in leaf.labels} for leaf in leaves)
    return bool(ours and theirs and not ours & theirs)


def _label(text: str) -> str:
    text = text.lower().lstrip("个")
    return text[:-1] if text.endswith("s") and len(text) > 2 else text


def _counts_other_things(expr: Node, value: Node) -> bool:
    """`96 层 × 12288 维 ≈ 175B 参数`: every input (or the last, naming the whole) counts
    something, and none what the result counts: a description, not arithmetic we can read."""
    leaf = written_leaf(value)
    operands = expr.operands()
    if leaf is None or not leaf.labels or not operands:
        return False
    named = [op for op in operands if op.labels]
    if not named or len(named) < len(operands) and named[-1] is not operands[-1]:
        return False  # a label on the last input names the whole expression: `1/4 cost = 2 experts`
    counted = {_label(text) for text in leaf.labels}
    return not any(counted & {_label(text) for text in op.labels} for op in named)


DIMENSIONS = "matrix dimensions written with ×, not a product"


def _factors(node: Node) -> list[float] | None:
    """The plain whole numbers a product of them is made of, None for anything else."""
    if isinstance(node, Binary) and node.op == "*":
        left, right = _factors(node.left), _factors(node.right)
        return None if left is None or right is None else left + right
    leaf = written_leaf(node)
    return [leaf.mantissa] if leaf is node and leaf.plain_int else None


def _dimensions(lhs: Node, rhs: Node) -> bool:
    """`16×16 × 16×16 = 16×16`: two matrices' dimensions and the product's, not arithmetic."""
    ours, theirs = _factors(lhs), _factors(rhs)
    if ours is None or theirs is None or len(ours) != 4 or len(theirs) != 2:
        return False
    return ours[1] == ours[2] and theirs == [ours[0], ours[3]]


def _not_a_value(lhs: Side, rhs_unit: bool, tokens: list[Token], rel_index: int, line: str) -> str:
    """Why the number left of `value = expression` is not that expression's result, or "":
    a remark in brackets (`length (2 bytes) = 2^14`), a multiple (`2x = 11 - 3`), a code
    glued to its meaning (`0=4KB，1=2MB/1GB`)."""
    if line[lhs.start - 1 : lhs.start] == "(" or line[lhs.start : lhs.start + 1] == "(":
        return "a remark in brackets, not a result"
    if _multiple(lhs.node):
        return "a multiple (2x) is a variable or a comparison, not a result"
    sign = tokens[rel_index]
    glued = not line[sign.start - 1 : sign.start].isspace() and not line[sign.end : sign.end + 1].isspace()
    if glued and lhs.node.plain_int and not lhs.node.suffixes and rhs_unit:
        return "a code and its meaning (`1=2MB`), not a result"
    return ""


def _multiple(value: Node) -> bool:
    leaf = written_leaf(value)
    return leaf is not None and leaf.times


_NEAR = 64  # how far from a sign its number may be (`2 (bf16 bytes) * … = 0.131MB` is near)


def _numbers_around(line: str, sign: int) -> bool:
    """A digit on both sides of the sign, not too far: the only signs worth reading."""
    return (
        _DIGIT.search(line, max(0, sign - _NEAR), sign) is not None
        and _DIGIT.search(line, sign + 1, sign + 1 + _NEAR) is not None
    )


def find_claims(
    line: str, arrows: list[int] = (), code: list[tuple[int, int]] = (), maths: list[tuple[int, int]] = ()
) -> LineClaims:
    """Every claim written in one (already readable) logical line. An arrow `→` is a result
    right after an expression (`= 2 × 24 × 16 × 64 × 2 → 98,304 bytes`) or when it converts a
    value to another unit; otherwise it is a step to something else. `arrows` (offsets of `→`
    that begin a continuation line) are kept for callers; every `→` is read the same way."""
    if not _MAY_HAVE_CLAIM.search(line) or not any(
        _numbers_around(line, m.start()) for m in _MAY_HAVE_CLAIM.finditer(line)
    ):
        return LineClaims([], [])
    line = _read_ratios(line)
    tokens = tokenize(line, code, maths)
    rels = [i for i, tok in enumerate(tokens) if tok.kind == "rel"]
    bounds = [-1, *rels, len(tokens)]
    segments = [tokens[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
    found: list[Found] = []
    skipped: list[Skipped] = []
    quiet: list[Skipped] = []
    ref: tuple[Side, bool] | None = None  # the expression a chain `a = b ≈ c` compares to
    assigned = False  # the sign before was a name's `=` (`k=2 total = …`)
    for k, rel_index in enumerate(rels):
        rel = tokens[rel_index].text
        left, right = segments[k], segments[k + 1]
        chain_ref, ref = ref, None
        numeric = _left_numeric(left) and _right_numeric(right)
        after_name, assigned = assigned, False
        if _assignment_or_range(tokens, rel_index):
            assigned = rel == "="
            if numeric or rel == "~":
                quiet.append(
                    Skipped(
                        *_span(left, right),
                        sign=tokens[rel_index].start,
                        reason="a range, not a claim" if rel == "~" else "a name = value",
                    )
                )
            continue
        if not numeric:
            continue
        if _is_range(tokens, rels, k):
            quiet.append(Skipped(*_span(left, right), sign=tokens[rel_index].start, reason="a range, not a claim"))
            continue
        loose = rel != "="
        try:
            lhs = parse_suffix(left, line)
            rhs = parse_prefix(right, line)
        except Uncertain as exc:
            skipped.append(Skipped(*_span(left, right), sign=tokens[rel_index].start, reason=str(exc)))
            continue
        if lhs is None or rhs is None:
            if between_shapes(line, tokens[rel_index].start):
                continue  # matrix shapes: `shapes` reads them
            skipped.append(
                Skipped(
                    *_span(left, right), sign=tokens[rel_index].start, reason="no complete expression on both sides"
                )
            )
            continue
        more = k + 1 < len(rels)
        if rhs.whole and more and _is_range(tokens, rels, k + 1):
            skipped.append(Skipped(*_span(left, right), sign=tokens[rel_index].start, reason="the value is a range"))
            continue
        chained = chain_ref is not None and lhs.whole
        if rel == "→":
            if has_operator(rhs.node):
                quiet.append(
                    Skipped(
                        *_span(left, right),
                        sign=tokens[rel_index].start,
                        reason="a step to another expression, no result",
                    )
                )
                continue
            if not has_operator(lhs.node) and not _bare_conversion(lhs.node, rhs.node):
                change = _step_change(line, tokens, lhs, rhs)
                if change is not None:
                    found.append(change)
                    continue
                quiet.append(
                    Skipped(
                        *_span(left, right),
                        sign=tokens[rel_index].start,
                        reason="a step from one value to another, no arithmetic",
                    )
                )
                continue
            if has_operator(lhs.node) and not (lhs.whole and k > 0):
                # `Mixtral 8×7B → 123 tokens/s`: a result only in a derivation (`= a × b → c`)
                quiet.append(
                    Skipped(
                        *_span(left, right),
                        sign=tokens[rel_index].start,
                        reason="a step from an expression to something else",
                    )
                )
                continue
        if chained and _different_quantity(lhs.node, rhs.node):
            quiet.append(
                Skipped(
                    *_span(left, right),
                    sign=tokens[rel_index].start,
                    reason="a value of another quantity after the result",
                )
            )
            continue
        expr_node = chain_ref[0].node if chained else lhs.node
        if _multiple(rhs.node) and not is_ratio(expr_node):
            quiet.append(
                Skipped(
                    *_span(left, right),
                    sign=tokens[rel_index].start,
                    reason="a multiple (2x) after the result is a comparison, not the result",
                )
            )
            continue
        alternatives: list[tuple[Side, Node, bool]] = []
        partial: set[int] = set()
        expr, value = lhs, rhs
        pass_only = not_far = ""
        if chained:
            ref_side, ref_loose = chain_ref
            expr, loose = ref_side, ref_loose or loose
            if (
                not has_operator(lhs.node)
                and unit_kind(lhs.node) is None
                and unit_kind(rhs.node) == BYTE
                and not any(op.has_unit for op in ref_side.node.operands())
            ):
                # `= 56B ≈ 112 GB (FP16)`: a size first written after a count may be its memory
                pass_only = "a size first written after a count may be the memory it takes"
            alternatives.append((ref_side, rhs.node, loose))
            if has_operator(lhs.node):
                alternatives.append((lhs, rhs.node, rel != "="))
            elif _bare_conversion(lhs.node, rhs.node):
                alternatives.append((lhs, rhs.node, rel != "="))  # `= 0.131MB = 131KB`
        elif has_operator(lhs.node):
            if _dimensions(lhs.node, rhs.node):
                quiet.append(Skipped(*_span(left, right), sign=tokens[rel_index].start, reason=DIMENSIONS))
                continue
            names = sorted(x.name for x in lhs.node.symbols()), sorted(x.name for x in rhs.node.symbols())
            if has_operator(rhs.node) and names[0] != names[1]:
                skipped.append(
                    Skipped(
                        *_span(left, right),
                        sign=tokens[rel_index].start,
                        reason="numbers put into a formula, no result",
                    )
                )
                continue
            alternatives.append((lhs, rhs.node, loose))
            if has_operator(rhs.node) and first_operand(rhs.node) is not rhs.node:
                # `a*b = 582_981_200 / 4 (TP=4) => …`: the result, then a step
                alternatives.append((lhs, first_operand(rhs.node), loose))
                partial.add(id(alternatives[-1][1]))
        elif rel == "~":
            quiet.append(Skipped(*_span(left, right), sign=tokens[rel_index].start, reason="a range, not a claim"))
            continue
        elif has_operator(rhs.node):
            if rel == "→":
                continue
            if after_name and lhs.whole:
                quiet.append(
                    Skipped(
                        *_span(left, right),
                        sign=tokens[rel_index].start,
                        reason="the value of a name (`k=2`), not a result",
                    )
                )
                continue
            rhs_unit = any(op.has_unit for op in rhs.node.operands())
            reason = _not_a_value(lhs, rhs_unit, tokens, rel_index, line)
            if reason:
                quiet.append(Skipped(*_span(left, right), sign=tokens[rel_index].start, reason=reason))
                continue
            if lhs.node.labels and lhs.node.mantissa == 1 or rhs.whole and more:
                # `1 epoch = 1M samples / 32 = 31,250 steps`: a definition, its result follows
                pass_only = "a definition (`1 epoch = …`), not a result"
            elif lhs.node.labels:
                not_far = "what is counted on the left may not be the result (`1024 GPU = 128 节点 × 8`)"
            expr, value = rhs, lhs
            alternatives.append((rhs, lhs.node, loose))
        elif _bare_conversion(lhs.node, rhs.node):
            alternatives.append((lhs, rhs.node, loose))
            if rel == "→":
                not_far = "a step from one value to another (`1,568 KB → 448 字节`), not a conversion"
        else:  # `1 柜 = 64 GPU`: not arithmetic we can read
            skipped.append(
                Skipped(*_span(left, right), sign=tokens[rel_index].start, reason="two values and no arithmetic")
            )
            continue
        if _counts_other_things(expr.node, value.node):  # a description: no reading of it is certain
            pass_only = "the inputs count other things than the result (`96 层 × 12288 维 ≈ 175B 参数`)"
        if has_operator(rhs.node) and rhs.whole and more and value is rhs:
            # `4×32 = 128 上行 / 64 = 2`: the value may be just the first number
            for exp, val, lo in list(alternatives):
                if first_operand(val) is not val:
                    alternatives.append((exp, first_operand(val), lo))
                    partial.add(id(alternatives[-1][1]))
        alternatives += _carried(alternatives, line)
        found.append(Found(rel, value, alternatives, pass_only, not_far, partial))
        if rhs.whole and more:
            ref = chain_ref if chained else (expr, loose)
    return LineClaims(found, skipped, quiet)


# After a step `a → b`: the change it makes, `, 2.5×`, `(8× reduction)`, `, -50%`, `(+76%)`
_CHANGE = re.compile(r"[ \t]*[,，(（]?[ \t]*(?P<sign>[+\-−])?(?P<number>\d+(?:\.\d+)?)[ ]?(?P<kind>[×xX倍]|%)")

_CHANGE_TAIL = re.compile(
    r"[ \t]*(?:[)）,，;；。.|]|\Z|(?:reduction|smaller|less|fewer|faster|speedup|speed-up|larger|bigger|more|"
    r"increase|improvement|growth|lower|higher|减少|降低|提升|加速|增长|增加|更快|更小|更大)(?![A-Za-z]))"
)


def _step_change(line: str, tokens: list[Token], lhs: Side, rhs: Side) -> Found | None:
    """`4 → 10 PFLOPS, 2.5×`, `80 GB → 141 GB, +76%`: a step between two values of one unit (or
    a bare one before the unit) followed by the multiple or the percent it changes by, read as
    b / a (a / b when it falls), or (b - a) / a, or b - a between two percents."""
    m = _CHANGE.match(line, rhs.end)
    a, b = written_leaf(lhs.node), written_leaf(rhs.node)
    if m is None or a is not lhs.node or b is not rhs.node or a.mantissa <= 0 or b.mantissa <= 0:
        return None
    if a.has_unit and _units_written(a) != _units_written(b) or a.has_scale != b.has_scale or a.percent != b.percent:
        return None  # `1,568 KB → 448 字节`: the numbers alone do not compare
    k = next((n for n, tok in enumerate(tokens) if tok.start == m.start("number")), None)
    if k is None:
        return None
    try:
        value, _ = Parser(tokens, line).operand(k)
    except (ParseFail, Uncertain):
        return None
    plain_a, plain_b = (replace(x, suffixes=[], per=[], percent=False, labels=[]) for x in (a, b))
    alternatives: list[tuple[Side, Node, bool]] = []
    if m.group("kind") == "%":
        minus = m.group("sign") in ("-", "−")
        written: Node = Neg(value) if minus else value
        change = Binary("/", Binary("-", plain_b, plain_a), plain_a)
        alternatives.append((Side(change, lhs.start, rhs.end, False), written, True))
        if m.group("sign") is None and b.mantissa < a.mantissa:  # `8.58 → 3.11 (63.8%)`: how much it falls
            fall = Binary("/", Binary("-", plain_a, plain_b), plain_a)
            alternatives.append((Side(fall, lhs.start, rhs.end, False), written, True))
        if a.percent and b.percent:  # `30% → 60% (+30%)`: percentage points
            points = Binary("-", replace(b, labels=[]), replace(a, labels=[]))
            alternatives.append((Side(points, lhs.start, rhs.end, False), written, True))
    elif m.group("sign") is None:
        ratio = Binary("/", plain_b, plain_a) if b.mantissa >= a.mantissa else Binary("/", plain_a, plain_b)
        alternatives.append((Side(ratio, lhs.start, rhs.end, False), replace(value, times=False, labels=[]), True))
    else:
        return None
    tail = _CHANGE_TAIL.match(line, m.end())
    other = "" if tail else "the multiple or percent after a step may be of another quantity (`2K → 4K, 4× FLOPs`)"
    start = m.start("sign") if m.group("sign") else m.start("number")
    return Found("≈", Side(value, start, m.end(), False), alternatives, pass_only=other)


_WRITTEN_NUMBER = re.compile(r"(?<![\w.])\d+\.\d+(?:[eE][-+]?\d+)?")
MAX_CARRIED = 8  # earlier numbers looked at for a rounded input


def _carried(alternatives: list[tuple[Side, Node, bool]], line: str) -> list[tuple[Side, Node, bool]]:
    """The rounding an author carried: `= 0.00043 → 0.0004 × 2 = 0.0009` computed with the
    0.00043 written before, which its input 0.0004 rounds. Each input written with a decimal
    point that rounds a more precise number written earlier on the line is read as that number."""
    out = []
    for expr, value, loose in alternatives:
        earlier = [float(m.group()) for m in _WRITTEN_NUMBER.finditer(line, 0, expr.start)][-MAX_CARRIED:]
        for op in expr.node.operands() if earlier else ():
            if not op.decimal:
                continue
            for number in earlier:
                if number != op.mantissa and abs(number - op.mantissa) <= op.unit_digit / 2:
                    precise = replace(op, mantissa=number, unit_digit=op.unit_digit / 10, digits=op.digits + 1)
                    node = substituted(expr.node, op, precise)
                    out.append((Side(node, expr.start, expr.end, expr.whole), value, loose))
    return out


# -- SVG text ---------------------------------------------------------------------------------


def svg_pieces(model: SvgText) -> Iterator[tuple[int, int, str]]:
    """(line, col offset, text) of each line of character data in the SVG's `<text>` elements."""
    for run in model.runs:
        offset = run.start
        for part in run.raw.split("\n"):
            line, col = model.where(offset)
            yield line, col - 1, html.unescape(part) if "&" in part else part
            offset += len(part) + 1


def carried_from_above(
    alternatives: list[tuple[Side, Node, bool]], above: list[tuple[float, float]]
) -> list[tuple[Side, Node, bool]]:
    """The rounding carried from a result above: `2 × 4,621 = 9,243` under a line whose
    `… = 4,621` computes 4,621.3. `above`: (value as written, as computed) of the claims read
    above; each input written as one of those values is read as its computed value too."""
    out = []
    for expr, value, loose in alternatives:
        for op in expr.node.operands():
            for written, computed in above:
                if op.mantissa == written and computed != written and abs(computed - written) <= op.unit_digit / 2:
                    precise = replace(op, mantissa=computed, unit_digit=0.0, plain_int=False, exact_claim=False)
                    node = substituted(expr.node, op, precise)
                    out.append((Side(node, expr.start, expr.end, expr.whole), value, loose))
    return out
