"""Finding claims `expr = value [≈ value …]` in a line, and the lines of a note or SVG to read.

A (logical) line is split at its relation signs (= ≈ ~ ≅, and a `→` that begins a continuation
line). The expression is the longest arithmetic suffix before a sign, the value the longest
arithmetic prefix after it. A claim is read only when both ends are clean: an operand cut off
by a word (`8 个 Expert × 7B = 56B`), a number glued to something else (`pass@1 = 71%`, `1.2.3`),
a range or date (`3-5`, `2025-01-13`), or a unit we do not read (bits, `8Gi`) make it skipped
with the reason, never flagged. `name=value` options and glued ranges (`0~5min`) are no claims;
a ratio equal to a ratio (`64:32 = 2:1`) is a division.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Iterator

from ..svgtext import SvgText

from .parser import (
    GLUE,
    MINUSES,
    OPERAND_END,
    Node,
    ParseFail,
    Parser,
    Token,
    Uncertain,
    first_operand,
    has_operator,
    tokenize,
    written_leaf,
)

_MAY_HAVE_CLAIM = re.compile(r"[=≈~≅≃]")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FENCE = re.compile(r"[ \t]*(?:>[ \t]*)*(`{3,}|~{3,})[ \t]*([^\s`]*)")
_REGION_BEGIN = re.compile(r"<!--\s*vaultkit:begin\s+(\S+)\s*-->")
_LIST_MARKER = re.compile(r"[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?")
IGNORE_MARK = "%%vk-ignore%%"
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


@dataclass
class Skipped:
    """A claim-like span not read with certainty, and why."""

    start: int
    end: int
    reason: str


@dataclass
class LineClaims:
    found: list[Found]
    skipped: list[Skipped]


_CONTINUATION = re.compile(r"[ \t]*(?:>[ \t]*)*(?:=(?![=>])|≈|→)")
_SIGN = re.compile(r"[=≈~≅≃→]|->")
_DIGIT = re.compile(r"\d")


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
    if tok.kind == "op" and tok.text in MINUSES + "√":
        j = _significant(tokens, i + 1, 1)
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


def _check_after(seg: list[Token], end: int, labelled: bool) -> bool:
    """Whether the value ending at token `end` is the whole rest of the segment; `labelled`:
    a word follows its number and unit (`16 台 64 口` is 16 of something)."""
    k = _significant(seg, end, 1)
    if k is None:
        return True
    tok = seg[k]
    after = _significant(seg, k + 1, 1)
    if tok.kind == "num" and labelled:
        return False
    if tok.kind == "op" and tok.text in "+" + MINUSES and after is not None and seg[after].kind in ("word", "cjk"):
        return False  # `14 GB（仅模型）+ 优化器状态`: the rest is words
    if tok.kind in ("op", "num", "lp", "pow", "pct"):
        raise Uncertain("value runs into more arithmetic")
    attached = k == end
    if tok.kind == "other" and attached and tok.text in GLUE:
        sentence_end = tok.text == "." and (k + 1 == len(seg) or seg[k + 1].kind == "sp")
        if not sentence_end:
            raise Uncertain(f"value glued to {tok.text!r}")
    return False


def _check_before(seg: list[Token], start: int) -> None:
    """An expression starting at token `start` must not be cut out of something larger."""
    p = _significant(seg, start - 1, -1)
    if p is None:
        return
    tok = seg[p]
    if tok.kind in ("op", "lp") or tok.kind in OPERAND_END:
        raise Uncertain("expression is cut off")
    if tok.kind in ("word", "cjk"):
        q = _significant(seg, p - 1, -1)
        phrase = tok.kind == "cjk" and len(tok.text) >= 2 and p < start - 1  # 5 行一共是 1 + 2 …
        if q is not None and (seg[q].kind == "op" or seg[q].kind in OPERAND_END and not phrase):
            raise Uncertain("a word inside the expression")
    if tok.kind == "word" and p == start - 1:
        raise Uncertain("expression glued to a word: a function call or a name")
    if tok.kind == "other" and p == start - 1 and tok.text in GLUE:
        raise Uncertain(f"expression glued to {tok.text!r}")


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
            _check_before(seg, i)
            whole = _significant(seg, i - 1, -1) is None
            return Side(node, seg[i].start, seg[end - 1].end, whole)
    if uncertain:
        raise uncertain
    return None


def _bare_conversion(lhs: Node, rhs: Node) -> bool:
    """`86400s = 24h`, `524,288 bytes = 0.5 MB`: same kind of unit, written differently."""
    if has_operator(lhs) or has_operator(rhs):
        return False
    kinds = []
    for leaf in (lhs, rhs):
        units = [s for s in leaf.suffixes if s.seconds or s.byte_unit]
        if len(units) != 1 or leaf.percent or leaf.per_second:
            return False
        kinds.append((bool(units[0].seconds), units[0]))
    return kinds[0][0] == kinds[1][0] and kinds[0][1] != kinds[1][1]


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


def find_claims(line: str, arrows: list[int] = ()) -> LineClaims:
    """Every claim written in one (already masked) logical line; `arrows` are the offsets of
    `→` signs that begin a continuation line and read as `≈`."""
    if not (_MAY_HAVE_CLAIM.search(line) or arrows) or _DIGIT.search(line) is None:
        return LineClaims([], [])
    line = _read_ratios(line)
    tokens = tokenize(line)
    for tok in tokens:
        if tok.start in arrows:
            tok.kind = "rel"
    rels = [i for i, tok in enumerate(tokens) if tok.kind == "rel"]
    bounds = [-1, *rels, len(tokens)]
    segments = [tokens[bounds[k] + 1 : bounds[k + 1]] for k in range(len(bounds) - 1)]
    found: list[Found] = []
    skipped: list[Skipped] = []
    ref: tuple[Side, bool] | None = None  # the expression a chain `a = b ≈ c` compares to
    for k, rel_index in enumerate(rels):
        rel = tokens[rel_index].text
        left, right = segments[k], segments[k + 1]
        chain_ref, ref = ref, None
        if _assignment_or_range(tokens, rel_index):
            continue
        if not (_left_numeric(left) and _right_numeric(right)):
            continue
        loose = rel != "="
        try:
            lhs = parse_suffix(left, line)
            rhs = parse_prefix(right, line)
        except Uncertain as exc:
            skipped.append(Skipped(*_span(left, right), str(exc)))
            continue
        if lhs is None or rhs is None:
            skipped.append(Skipped(*_span(left, right), "no complete expression on both sides"))
            continue
        if rel == "→" and (has_operator(rhs.node) or chain_ref is None and not has_operator(lhs.node)):
            continue  # `→ 4 × 80 GB`, `4096 tokens → 32 层`: a step to something else, no result
        alternatives: list[tuple[Side, Node, bool]] = []
        expr, value = lhs, rhs
        if chain_ref is not None and lhs.whole:
            ref_side, ref_loose = chain_ref
            expr, loose = ref_side, ref_loose or loose
            alternatives.append((ref_side, rhs.node, loose))
            if has_operator(lhs.node):
                alternatives.append((lhs, rhs.node, rel != "="))
        elif has_operator(lhs.node):
            alternatives.append((lhs, rhs.node, loose))
        elif rel == "~":
            continue  # `3 ~ 5` is a range
        elif has_operator(rhs.node):
            expr, value = rhs, lhs
            alternatives.append((rhs, lhs.node, loose))
        elif _bare_conversion(lhs.node, rhs.node):
            alternatives.append((lhs, rhs.node, loose))
        else:  # `1 柜 = 64 GPU`: not arithmetic we can read
            skipped.append(Skipped(*_span(left, right), "two values and no arithmetic"))
            continue
        more = k + 1 < len(rels)
        if has_operator(rhs.node) and rhs.whole and more and value is rhs:
            # `4×32 = 128 上行 / 64 = 2`: the value may be just the first number
            for exp, val, lo in list(alternatives):
                alternatives.append((exp, first_operand(val), lo))
        found.append(Found(rel, value, alternatives))
        if rhs.whole and more:
            ref = chain_ref if chain_ref is not None and lhs.whole else (expr, loose)
    return LineClaims(found, skipped)


# -- where to look ----------------------------------------------------------------------------


def _mask_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """Blank out `%%…%%` (which may span lines); returns the line and whether a comment is open."""
    if "%%" not in line and not in_comment:
        return line, False
    out, pos = [], 0
    while True:
        nxt = line.find("%%", pos)
        if nxt < 0:
            out.append(" " * (len(line) - pos) if in_comment else line[pos:])
            return "".join(out), in_comment
        out.append(" " * (nxt - pos) if in_comment else line[pos:nxt])
        out.append("  ")
        in_comment, pos = not in_comment, nxt + 2


def mask_marker(line: str) -> str:
    """Blank out blockquote `>` and list markers (`- `, `1. `), keeping columns."""
    m = _LIST_MARKER.match(line)
    return " " * m.end() + line[m.end() :]


def markdown_lines(text: str) -> Iterator[tuple[int, str]]:
    """(1-based line number, line with comments blanked) for every line whose claims are
    checked; `mask_marker` blanks its list and quote markers."""
    lines = text.split("\n")
    fm = _FRONT_MATTER.match(text) if text.startswith("---") else None
    first = fm.group().count("\n") if fm else 0
    fence: tuple[str, bool] | None = None  # (closing fence prefix, skip contents)
    region: str | None = None
    in_comment = False
    for number, line in enumerate(lines[first:], first + 1):
        opener = _FENCE.match(line)
        if fence is not None:
            if opener and opener.group(1).startswith(fence[0]) and not opener.group(2):
                fence = None
            elif not fence[1] and IGNORE_MARK not in line:
                yield number, line
            continue
        if region is not None:
            if f"vaultkit:end {region}" in line:
                region = None
            continue
        if opener and not in_comment:
            fence = (opener.group(1), opener.group(2).lower() == "vaultkit")
            continue
        begin = _REGION_BEGIN.search(line)
        if begin and not in_comment:
            region = begin.group(1)
            continue
        masked, in_comment = _mask_comments(line, in_comment)
        if IGNORE_MARK not in line:
            yield number, masked


def svg_pieces(model: SvgText) -> Iterator[tuple[int, int, str]]:
    """(line, col offset, text) of each line of character data in the SVG's `<text>` elements."""
    for run in model.runs:
        offset = run.start
        for part in run.raw.split("\n"):
            line, col = model.where(offset)
            yield line, col - 1, html.unescape(part) if "&" in part else part
            offset += len(part) + 1
