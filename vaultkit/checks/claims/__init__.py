"""Arithmetic claims: check the arithmetic a person wrote in prose, tables, code and SVG text.

`2 × 32 × 32 × 128 × 2 = 524,288 bytes = 0.5 MB`, `1180 / 80 ≈ 15`, `4096² = 1600 万`,
`` `3 * 2 * 80 / 42.5` = 11 sec ``, `10 TFLOP / (20 TFLOP/s × 0.5) = 1 s`, `4 × 100 Gbps = 50 GB/s`
are read with a small grammar (never eval), computed, and compared with the written value at
the precision it is written with (see `compare`). `prose` gives the lines of a note made
readable (code spans, LaTeX, quoted strings); a line starting with `=`, `≈` or `→` continues
the one above, so derivations laid out over several lines are one claim. Matrix shapes
(`(S, d) × (d, d_ff) → (S, d_ff)`) are checked by `shapes`. Anything not read with certainty
is skipped and counted, never flagged; `ClaimReport.explained` says what was read and why the
rest was skipped, and lists every line with a sign between numbers.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from vaultkit import diagnostics
from vaultkit.checks.claims.compare import ERROR, ERROR_REL, PASS, Verdict, judge
from vaultkit.checks.claims.expr import (
    Binary,
    Node,
    ParseFail,
    Uncertain,
    divisor_grouped,
    has_operator,
    written_leaf,
)
from vaultkit.checks.claims.finder import (
    Found,
    Side,
    carried_from_above,
    claim_like,
    claim_signs,
    continues_above,
    find_claims,
    has_sign,
    may_have_claim,
    svg_pieces,
)
from vaultkit.checks.claims.parser import Parser
from vaultkit.checks.claims.prose import (
    MAX_CHARS,
    SIGN_NOT_READ,
    ProseLine,
    TableCell,
    note_lines,
    readable,
    sign_amid_numbers,
    table_lines,
    table_totals,
    unread_lines,
)
from vaultkit.checks.claims.shapes import check_shapes
from vaultkit.checks.claims.tables import check_tables, column_totals
from vaultkit.checks.claims.tokens import tokenize
from vaultkit.checks.claims.units import SAME_NUMBER_LINES, units_near
from vaultkit.diagnostics import Diagnostic, Rule
from vaultkit.explain import Explained

if TYPE_CHECKING:
    from vaultkit.readers.svgtext import SvgText

__all__ = [
    "ClaimReport",
    "Explained",
    "check_markdown",
    "check_svg",
    "claim_like",
]

VERDICTS = {PASS: "ok", ERROR: "error"}

CLAIM_WRONG = Rule(
    "VK301",
    diagnostics.ERROR,
    "arithmetic claim is wrong",
    "{claim} is wrong: written {written}, computed {computed}",
    "The arithmetic written in the text does not hold (e.g. 8196 written as the product of 4096 and 2); correct the number or the expression.",
)
CLAIM_IMPRECISE = Rule(
    "VK302",
    diagnostics.WARNING,
    "arithmetic claim is imprecise",
    "{claim} is imprecise: written {written}, computed {computed}",
    "The result is near but further off than its rounding allows; `%%vk-ignore%%` on the line keeps it as written.",
)
SHAPE_WRONG = Rule(
    "VK303",
    diagnostics.ERROR,
    "matrix shapes do not match",
    "{claim} has the wrong shape: written {written}, computed {computed}",
    "A matrix product's shape written in the text (e.g. `(4×8)·(8×2) = 4×2`) does not follow from its factors.",
)
UNLIKELY = Rule(
    "VK304",
    diagnostics.WARNING,
    "arithmetic claim right only under an unlikely reading",
    "{claim} holds only if {reading}: as written it computes {computed}",
    "No fair reading makes the value right, one unlikely reading does: a product divided by `2*2` written without brackets only if everything after `/` is the divisor, a quotient written as a whole number only if it is floored where the text does not say so, a size computed from counts only at 2, 4 or 8 bytes an element that is not written near it. Write the brackets, the rounding or the element type (`fp32`, `4 bytes`) meant.",
)
NOT_READ = "no arithmetic read on both sides of the sign"
# Words that say a result is a whole number: a quotient floored by hand is then a fair reading.
_INTEGER_INTENT = re.compile(r"floor|⌊|//|round(?:ed|s)? down|integer|whole number|向下取整|取整|整除|整数", re.I)
MAX_RESULTS = 8  # results above a claim its inputs may carry the rounding of
MAX_LINES = 800  # logical lines with a sign read in one note (a table of 5,000 rows reads 800)
FAR = 100.0  # off by more than this factor, a claim whose reading is not certain is no claim


@dataclass
class ClaimReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)  # VK301/VK303 errors, VK302 warnings
    verified: int = 0  # claims read and checked (pass or fail)
    skipped: int = 0  # claim-like spans not read with certainty
    explained: list[Explained] = field(default_factory=list)

    def add(self, other: ClaimReport) -> None:
        self.diagnostics.extend(other.diagnostics)
        self.verified += other.verified
        self.skipped += other.skipped
        self.explained.extend(other.explained)


@dataclass
class Logical:
    """A logical line: one line, or a derivation continued over several; maps offsets back.
    `text` is read, `raw` (of the same length) is shown."""

    text: str
    starts: list[tuple[int, int, int]]  # (offset in text, line number, column of that offset)
    raw: str = ""
    code: list[tuple[int, int]] = field(default_factory=list)
    maths: list[tuple[int, int]] = field(default_factory=list)  # LaTeX math, where letters are variables
    arrows: list[int] = field(default_factory=list)  # offsets of `→` that begin a continuation

    def __post_init__(self) -> None:
        self.raw = self.raw or self.text

    def extend(self, line: ProseLine) -> None:
        offset = len(self.text) + 1
        self.text += " " + line.text
        self.raw += " " + line.raw
        self.starts.append((offset, line.number, 0))
        self.code += [(offset + a, offset + b) for a, b in line.code]
        self.maths += [(offset + a, offset + b) for a, b in line.maths]
        arrow = line.text.lstrip()
        if arrow.startswith("→"):
            self.arrows.append(offset + len(line.text) - len(arrow))

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        k = bisect_right([start[0] for start in self.starts], offset) - 1
        start, number, col0 = self.starts[max(k, 0)]
        return number, col0 + offset - start + 1

    def span(self, start: int, end: int) -> str:
        """The text between two offsets as written (code-span backticks dropped)."""
        return " ".join(self.raw[start:end].replace("`", " ").split())

    def lines(self) -> Iterator[tuple[int, str]]:
        """(line number, raw text) of each line it is made of."""
        bounds = [start for start, _, _ in self.starts] + [len(self.raw) + 1]
        for (start, number, _), end in zip(self.starts, bounds[1:]):
            yield number, self.raw[start : end - 1]


def _unlikely(found: Found, exact: set[int], floor: bool) -> str:
    """The unlikely reading under which a claim wrong under every fair one holds, or ""."""
    for expr, value, loose in found.alternatives:
        readings = [(expr.node, True, "the quotient is floored by hand")] if not (floor or loose) else []
        grouped = divisor_grouped(expr.node)
        if grouped is not None:
            readings.append((grouped, floor, "everything after `/` is the divisor"))
        for node, floored, reading in readings:
            try:
                verdict = judge(node, value, loose=loose, inputs_rounded=id(expr) not in exact, floor=floored)
            except Uncertain:
                continue
            if verdict.level == PASS:
                return reading
    return ""


def _best_verdict(found: Found, exact: set[int], floor: bool, near=None) -> tuple[Verdict, Side] | str:
    """The best verdict over the readings of a claim and the expression it was computed from,
    or why none is certain; `exact`: the expressions whose inputs a chain has shown to be
    taken as written; `floor`: the text says results are whole numbers; `near`: gives the
    units written near the claim, looked at only when no other reading makes it right."""
    best, reason, cut = None, "", False
    for expr, value, loose in found.alternatives:
        try:
            verdict = judge(expr.node, value, loose=loose, inputs_rounded=id(expr) not in exact, floor=floor)
        except Uncertain as exc:
            reason = reason or str(exc)
            continue
        if verdict.level != PASS and near is not None and (context := near()):
            try:
                verdict = judge(
                    expr.node, value, loose=loose, inputs_rounded=id(expr) not in exact, floor=floor, context=context
                )
            except Uncertain:
                pass
        if best is None or verdict.level < best[0].level:
            best, cut = (verdict, expr), id(value) in found.partial
    if best is not None and best[0].level != PASS and cut:
        return reason or "the value runs on into more arithmetic"  # `= 64 + 2 bytes`: only its first number read
    return best or reason


STEP_CHANGE = "a change from one value to another (`12 minutes → 100 seconds`), no arithmetic: read only to pass"
DESIGN_SIZE = "≈ a size rounded to a multiple of 256 a few % off: a design choice, not a computed result"
DESIGN_MULTIPLE = 256


def _design_size(value: Node, verdict: Verdict) -> bool:
    """`2/3 × 16384 ≈ 11008`, `2¹⁶ × 1.999 ≈ 131072`: a bare whole number that is a multiple of
    256, written after `≈` a few % from a computed value that is no whole number, may be the size
    chosen near it (a hidden size, a power of two); not `1110K × 3 ≈ 3328K`."""
    leaf = written_leaf(value)
    if leaf is not value or leaf.has_scale or leaf.has_unit or leaf.percent:
        return False
    computed = verdict.value
    near = verdict.factor <= 1 + ERROR_REL and math.isfinite(computed) and computed != int(computed)
    return near and leaf.mantissa >= DESIGN_MULTIPLE and leaf.mantissa % DESIGN_MULTIPLE == 0


def _settled_above(found: Found, best: tuple[Verdict, Side], texts: list[str], value: str, settled: dict):
    """`T₃ = <the expression of T₁> = 5.81 ms`: the same expression written with the same value
    on a line above, where it held (rounding carried in a chain there), holds here too."""
    for (side, _, _), text in zip(found.alternatives, texts):
        line = settled.get((text, value))
        if line is not None:
            reading = f"the value written for the same expression on line {line}"
            return replace(best[0], level=PASS, reading=reading), side
    return best


def _computed_in_written_units(found: Found, verdict: Verdict, logical: Logical) -> str:
    """`14B` for a value written `15B`, `14 GB` for `20 GB`: the written unit, spaced as written."""
    leaf = written_leaf(found.value.node)
    if leaf is not None:
        return verdict.computed + logical.raw[leaf.end : found.value.end].replace("`", "").replace("$", "")
    return verdict.computed


def _check_logical(
    logical: Logical, rel: str, above=None, results: list | None = None, settled: dict | None = None
) -> tuple[ClaimReport, list[Side]]:
    """The claims and shape claims of a logical line, explained in the order of their lines, and
    the values of its claims read; a line with a sign between numbers and nothing read on it is
    listed as skipped, with why. `above`: gives the lines just above it; `results`: (value
    as written, as computed) of the claims read above it, to which this line's are added;
    `settled`: the line of each (expression, value) as written that held above, to which this
    line's are added."""
    report = ClaimReport()
    claims = find_claims(logical.text, logical.arrows, logical.code, logical.maths)
    shapes = check_shapes(logical.text)
    shape_starts = [shape.start for shape in shapes]  # in order, and so are their ends
    for skip in claims.skipped:
        k = bisect_left(shape_starts, skip.end) - 1
        if k >= 0 and shapes[k].end > skip.start:
            continue  # `(S, d) × (d, d_ff) = (S, d_ff)` is not arithmetic: the shapes read it
        report.skipped += 1
        line, _ = logical.where(skip.sign if skip.sign >= 0 else skip.start)
        report.explained.append(Explained(rel, line, "skipped", logical.span(skip.start, skip.end), skip.reason))
    exact: set[int] = set()  # the expression of `expr = 2.8304 ≈ 2.924`, once 2.8304 is its exact result
    floor = _INTEGER_INTENT.search(logical.text) is not None
    values: list[Side] = []
    near_units: list = []

    def near():
        if not near_units:
            lines = [readable(line)[0] for line in above()] if above else []
            near_units.append(units_near([*lines, " ".join(logical.text.split())]))
        return near_units[0]

    for found in claims.found:
        best = _best_verdict(found, exact, floor, near)
        if results and not isinstance(best, str) and best[0].level != PASS:
            carried = carried_from_above(found.alternatives, results)
            if carried:
                found.alternatives += carried
                best = _best_verdict(found, exact, floor, near)
        value = logical.span(found.value.start, found.value.end)
        line, col = logical.where(found.value.start)
        texts = [logical.span(side.start, side.end) for side, _, _ in found.alternatives]
        if settled and not isinstance(best, str) and best[0].level != PASS:
            best = _settled_above(found, best, texts, value, settled)
        if not isinstance(best, str) and best[0].level != PASS:  # not certain enough to be wrong
            if found.pass_only:
                best = found.pass_only
            elif found.not_far and best[0].factor > FAR:
                best = found.not_far
            elif found.rel == "→" and not any(has_operator(side.node) for side, _, _ in found.alternatives):
                best = STEP_CHANGE
            elif found.rel != "=" and _design_size(found.value.node, best[0]):
                best = DESIGN_SIZE
        if isinstance(best, str):
            report.skipped += 1
            start = min([side.start for side, _, _ in found.alternatives] + [found.value.start])
            end = max([side.end for side, _, _ in found.alternatives] + [found.value.end])
            text = logical.span(start, end)
            report.explained.append(Explained(rel, line, "skipped", text, best))
            continue
        verdict, expr_side = best
        if verdict.level == PASS and not verdict.tolerated:
            exact.add(id(expr_side))
        if settled is not None and verdict.level == PASS:
            for text in texts:
                settled.setdefault((text, value), line)
        leaf = written_leaf(found.value.node)
        if results is not None and verdict.level == PASS and leaf is not None and math.isfinite(verdict.value):
            results[:] = [*results[1 - MAX_RESULTS :], (leaf.mantissa, verdict.value)]
        expr = logical.span(expr_side.start, expr_side.end)
        claim = f"{expr} {'≈' if found.rel.startswith('=') and found.rel != '=' else found.rel} {value}"
        computed = _computed_in_written_units(found, verdict, logical)
        report.verified += 1
        values.append(found.value)
        reading = _unlikely(found, exact, floor) if verdict.level == ERROR else verdict.unstated
        level = "warning" if reading else VERDICTS.get(verdict.level, "warning")
        note = f"computed {computed}" + (f"; holds only if {reading}" if reading else "")
        note += f"; read with {verdict.reading}" if verdict.reading else ""
        report.explained.append(Explained(rel, line, level, claim, note, col))
        if reading:
            report.diagnostics.append(UNLIKELY.at(rel, line, col, claim=claim, reading=reading, computed=computed))
        elif verdict.level != PASS:
            rule = CLAIM_WRONG if verdict.level == ERROR else CLAIM_IMPRECISE
            report.diagnostics.append(rule.at(rel, line, col, claim=claim, written=value, computed=computed))
    for shape in shapes:
        line, col = logical.where(shape.start)
        claim = logical.span(shape.start, shape.end)
        if shape.computed is None:
            report.skipped += 1
            report.explained.append(Explained(rel, line, "skipped", claim, shape.reason))
            continue
        report.verified += 1
        report.explained.append(
            Explained(rel, line, "ok" if shape.ok else "error", claim, f"computed {shape.computed}")
        )
        if not shape.ok:
            line, col = logical.where(shape.written_start)
            report.diagnostics.append(
                SHAPE_WRONG.at(rel, line, col, claim=claim, written=shape.written, computed=shape.computed)
            )
    _account_for_lines(logical, rel, claims.quiet, report)
    report.explained.sort(key=lambda entry: entry.line)
    return report, values


def _account_for_lines(logical: Logical, rel: str, quiet, report: ClaimReport) -> None:
    """Every line with a sign between numbers gets an entry: the first sign on it that held no
    claim, with why, or the line itself."""
    signs = {logical.where(offset)[0] for offset in claim_signs(logical.raw)}
    if not signs:
        return  # most logical lines: no sign between numbers
    listed = {entry.line for entry in report.explained}
    for number, raw in logical.lines():
        if number in listed or number not in signs:
            continue
        why = next((q for q in quiet if logical.where(q.sign)[0] == number), None)
        if why is not None:
            text, reason = logical.span(why.start, why.end), why.reason
        else:
            text, reason = " ".join(raw.split())[:120], NOT_READ
        report.skipped += 1
        report.explained.append(Explained(rel, number, "skipped", text, reason))


def _account_for_signs(logical: Logical, rel: str, report: ClaimReport) -> None:
    """A line with a sign amid numbers that nothing was read or skipped on (`SGD=8B/param`,
    `2²⁵ bytes → 2¹⁵ KB`): listed, with why."""
    if not sign_amid_numbers(logical.raw):
        return
    listed = {entry.line for entry in report.explained}
    for number, raw in logical.lines():
        if number not in listed and sign_amid_numbers(raw):
            report.skipped += 1
            report.explained.append(Explained(rel, number, "skipped", " ".join(raw.split())[:120], SIGN_NOT_READ))


def _logical_lines(lines: Iterator[ProseLine]) -> Iterator[Logical]:
    """The logical lines that may hold a claim: a line with the lines that continue it."""
    group: list[ProseLine] | None = None  # the logical line being read, if claim-like
    last: ProseLine | None = None
    for line in lines:
        if not has_sign(line.line):
            if group:
                yield _logical(group)
            group = None
        elif last is not None and line.number == last.number + 1 and continues_above(line.text):
            group = (group or [last]) + [line]
        else:
            if group:
                yield _logical(group)
            group = [line] if may_have_claim(line.line) else None
        last = line
    if group:
        yield _logical(group)


def _logical(group: list[ProseLine]) -> Logical:
    first = group[0]
    logical = Logical(first.text, [(0, first.number, 0)], first.raw, list(first.code), list(first.maths))
    for line in group[1:]:
        logical.extend(line)
    return logical


def check_markdown(text: str, rel: str) -> ClaimReport:
    """Claims in a note's prose, tables and code blocks (not front matter, vaultkit blocks,
    generated regions, %%comments%% or lines marked %%vk-ignore%%)."""
    report = ClaimReport()
    parts: list[tuple[int, Side]] = []  # (line, value) of the lines just above, each with one result
    results: list[tuple[float, float]] = []  # (written, computed) of the last claims read
    settled: dict[tuple[str, str], int] = {}  # (expression, value) as written that held -> its line
    other = -1  # the last line with arithmetic that was not read as one of the parts
    lines: list[str] | None = None
    for count, logical in enumerate(_logical_lines(note_lines(text, only_signs=True))):
        if count >= MAX_LINES:
            _not_read(logical, rel, report, f"the note's first {MAX_LINES:,} lines with a sign were read, not more")
            continue
        if len(logical.text) > MAX_CHARS:
            _not_read(logical, rel, report, f"a line of {len(logical.text):,} characters (over {MAX_CHARS:,})")
            continue
        number = logical.starts[0][1]

        def above(number=number) -> list[str]:
            nonlocal lines
            lines = lines if lines is not None else text.split("\n")
            return lines[max(0, number - 1 - SAME_NUMBER_LINES) : number - 1]

        line_report, values = _check_logical(logical, rel, above, results, settled)
        _account_for_signs(logical, rel, line_report)
        report.add(line_report)
        total = _TOTAL.match(logical.text) if parts and len(logical.starts) == 1 else None
        if total is not None and other == parts[0][0] - 1:
            # the line above the first part has arithmetic but no result read: a part may be missing
            report.skipped += 1
            report.explained.append(Explained(rel, number, "skipped", logical.span(0, len(logical.raw)), PART_MISSING))
        elif total is not None:
            lines = lines if lines is not None else text.split("\n")
            _check_total(parts, total, logical, lines, rel, report)
        if len(values) == 1 and len(logical.starts) == 1:
            parts = (parts if parts and parts[-1][0] == number - 1 else []) + [(number, values[0])]
        else:
            parts = []
            if _ARITHMETIC.search(logical.text):
                other = logical.starts[-1][1]
    rows = table_lines(text)
    for number, line, cells, total in table_totals(text, rows):
        _check_row_total(number, line, cells, total, rel, report)
    totals = {(entry.line, entry.col) for entry in report.explained if entry.col}
    for row in (*check_tables(text, rows), *column_totals(text, rows)):
        if (row.line, row.col) not in totals:
            totals.add((row.line, row.col))
            _add_row_claim(row, rel, report)
    for number, line, why in unread_lines(text, {entry.line for entry in report.explained}, rows):
        report.skipped += 1
        report.explained.append(Explained(rel, number, "skipped", " ".join(line.split())[:120], why))
    report.explained.sort(key=lambda entry: entry.line)
    return report


def _check_row_total(number: int, line: str, cells: list[TableCell], total: TableCell, rel: str, report) -> None:
    """A table row whose total column follows its parts (`| 19.3M | 19.3M | 10.7M | ~40M |`):
    checked as their sum; a total that is their product (`| 8 | 80 | 640 |`) is no finding."""
    try:
        tokens = tokenize(line)
        starts = {tok.start: k for k, tok in enumerate(tokens)}
        parser = Parser(tokens, line)
        parts = [parser.operand(starts[cell.start])[0] for cell in cells]
        value = parser.operand(starts[total.start])[0]
    except (Uncertain, KeyError, ParseFail):
        return
    loose = total.about or any(cell.about for cell in cells)
    verdicts = []
    for op in ("+", "*"):
        expr = parts[0]
        for part in parts[1:]:
            expr = Binary(op, expr, part)
        try:
            verdicts.append(judge(expr, value, loose=loose))
        except Uncertain:
            return
    verdict = min(verdicts, key=lambda v: v.level)
    if verdict is not verdicts[0]:
        return  # the total column holds a product
    claim = f"{' + '.join(cell.text for cell in cells)} {'≈' if loose else '='} {total.text}"
    col, computed = total.start + 1, verdict.computed + total.unit
    report.verified += 1
    report.explained.append(
        Explained(rel, number, VERDICTS.get(verdict.level, "warning"), claim, f"computed {computed}", col)
    )
    if verdict.level != PASS:
        rule = CLAIM_WRONG if verdict.level == ERROR else CLAIM_IMPRECISE
        report.diagnostics.append(rule.at(rel, number, col, claim=claim, written=total.text, computed=computed))


def _add_row_claim(row, rel: str, report: ClaimReport) -> None:
    """A table cell derived from others in its row, as the rows of its table say (`tables`)."""
    verdict = row.verdict
    computed = verdict.computed + (" " + row.unit if row.unit else "")
    note = f"computed {computed}; the table's rows hold {row.relation} ({row.holds} rows)"
    note += f"; read with {verdict.reading}" if verdict.reading else ""
    report.verified += 1
    report.explained.append(Explained(rel, row.line, VERDICTS.get(verdict.level, "warning"), row.claim, note, row.col))
    if verdict.level != PASS:
        rule = CLAIM_WRONG if verdict.level == ERROR else CLAIM_IMPRECISE
        report.diagnostics.append(
            rule.at(rel, row.line, row.col, claim=row.claim, written=row.written, computed=computed)
        )


# `Total: ~40.0M`, `总计 ≈ 3 TB` under the lines of its parts
_TOTAL = re.compile(
    r"[ \t│├└─|*>-]*(?:Total|Sum|总计|合计|总共|共计)[*]*[ \t]*[:：]?[ \t]*(?P<rel>[=≈~][ \t]*)?(?P<value>~?\d[\d,]*(?:\.\d+)?[ ]?[A-Za-z]*)(?:[ \t(（]|\Z)",
    re.I,
)
MIN_PARTS = 2
PART_MISSING = "a total under its parts, but the line above them has arithmetic and no result read"
_MORE_ARITHMETIC = set("+-−×*/÷=≈^·")  # after the first number of a total line: it is an expression
_ARITHMETIC = re.compile(r"[\d\])][ \t]*[×*+/][ \t]*[\d(\[]")


def _check_total(parts, total: re.Match, logical: Logical, lines: list[str], rel: str, report: ClaimReport) -> None:
    """A total written under its parts (the results of the lines just above it, one each, a blank
    line allowed between): checked as their sum, in the units they are written in."""
    number = logical.starts[0][1]
    gap = number - parts[-1][0]
    if len(parts) < MIN_PARTS or gap > 2 or gap == 2 and lines[number - 2].strip():
        return
    if logical.text[total.end("value") :].lstrip()[:1] in _MORE_ARITHMETIC:
        return  # `Total: 2K + 8 × 2.1M = 16.8M`: the line computes its own total, read as a claim
    value_text = total.group("value").lstrip("~")
    start = total.start("value") + (len(total.group("value")) - len(value_text))
    try:
        tokens = tokenize(logical.text[: total.end("value")])
        k = next(n for n, tok in enumerate(tokens) if tok.start == start)
        value, _ = Parser(tokens, logical.text).operand(k)
        expr = parts[0][1].node
        for _, side in parts[1:]:
            expr = Binary("+", expr, side.node)
        loose = total.group("value").startswith("~") or (total.group("rel") or "=").strip() != "="
        verdict = judge(expr, value, loose=loose)
    except (Uncertain, StopIteration, ParseFail):
        return  # parts in different units, a value not read: no total to check
    line, col = logical.where(start)
    claim = f"the sum of the {len(parts)} lines above {'≈' if loose else '='} {value_text}"
    report.verified += 1
    report.explained.append(
        Explained(rel, line, VERDICTS.get(verdict.level, "warning"), claim, f"computed {verdict.computed}", col)
    )
    if verdict.level != PASS:
        rule = CLAIM_WRONG if verdict.level == ERROR else CLAIM_IMPRECISE
        report.diagnostics.append(rule.at(rel, line, col, claim=claim, written=value_text, computed=verdict.computed))


def _not_read(logical: Logical, rel: str, report: ClaimReport, reason: str) -> None:
    """A logical line not read, to keep a note's cost bounded: skipped, with why."""
    number, raw = next(logical.lines())
    report.skipped += 1
    report.explained.append(Explained(rel, number, "skipped", " ".join(raw[:120].split()), reason))


def check_svg(svg: str | SvgText, rel: str) -> ClaimReport:
    """Claims in the `<text>` nodes of an SVG (its text, or its model read once by the caller);
    positions are the SVG's own line and column. An SVG that is not well-formed has none."""
    from vaultkit.readers.svgtext import read_svg  # imported here: a note's check needs no SVG reader

    report = ClaimReport()
    model = read_svg(svg) if isinstance(svg, str) else svg
    for lineno, col0, piece in svg_pieces(model) if model else ():
        text, code, maths = readable(piece)
        report.add(_check_logical(Logical(text, [(0, lineno, col0)], piece, code, maths), rel)[0])
    return report
