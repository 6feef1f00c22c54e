"""Arithmetic claims: check the arithmetic a person wrote in prose, tables, code and SVG text.

`2 × 32 × 32 × 128 × 2 = 524,288 bytes = 0.5 MB`, `1180 / 80 ≈ 15`, `4096² = 1600 万` are read
with a small grammar (never eval), computed, and compared with the written value at the
precision it is written with (see `compare`). A line starting with `=`, `≈` or `→` continues
the one above, so derivations laid out over several lines are one claim. Matrix shapes
(`(S, d) × (d, d_ff) → (S, d_ff)`) are checked by `shapes`. Anything not read with certainty
is skipped and counted, never flagged; `ClaimReport.explained` says what was read and why
the rest was skipped.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Iterator

from ..diagnostics import Diagnostic
from ..svgtext import SvgText, read_svg
from .compare import ERROR, PASS, Verdict, judge
from .finder import Found, Side, continues_above, find_claims, has_sign, markdown_lines, mask_marker, may_have_claim, svg_pieces
from .parser import Uncertain, written_leaf
from .shapes import check_shapes

__all__ = ["ClaimReport", "Explained", "check_markdown", "check_svg"]

VERDICTS = {PASS: "ok", ERROR: "error"}


@dataclass
class Explained:
    """One line of `vaultkit check --explain`: a claim read and its verdict, or a span skipped."""

    path: str
    line: int
    verdict: str  # ok | warning | error | skipped
    text: str  # the claim as written (whitespace collapsed), or the skipped span
    note: str = ""  # the computed value, or why it was skipped

    def __str__(self) -> str:
        note = f"  [{self.note}]" if self.note else ""
        return f"{self.path}:{self.line}: claim {self.verdict}: {self.text}{note}"


@dataclass
class ClaimReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)  # VK301/VK303 errors, VK302 warnings
    verified: int = 0  # claims read and checked (pass or fail)
    skipped: int = 0  # claim-like spans not read with certainty
    explained: list[Explained] = field(default_factory=list)

    def add(self, other: "ClaimReport") -> None:
        self.diagnostics.extend(other.diagnostics)
        self.verified += other.verified
        self.skipped += other.skipped
        self.explained.extend(other.explained)


@dataclass
class Logical:
    """A logical line: one line, or a derivation continued over several; maps offsets back."""

    text: str
    starts: list[tuple[int, int, int]]  # (offset in text, line number, column of that offset)
    arrows: list[int] = field(default_factory=list)  # offsets of `→` that begin a continuation

    def extend(self, line: str, number: int) -> None:
        offset = len(self.text) + 1
        self.text += " " + line
        self.starts.append((offset, number, 0))
        arrow = line.lstrip()
        if arrow.startswith("→"):
            self.arrows.append(offset + len(line) - len(arrow))

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        k = bisect_right([start[0] for start in self.starts], offset) - 1
        start, number, col0 = self.starts[max(k, 0)]
        return number, col0 + offset - start + 1

    def span(self, start: int, end: int) -> str:
        return " ".join(self.text[start:end].split())


def _best_verdict(found: Found) -> tuple[Verdict, Side] | str:
    """The best verdict over the readings of a claim and the expression it was computed from,
    or why none is certain."""
    best, reason = None, ""
    for expr, value, loose in found.alternatives:
        try:
            verdict = judge(expr.node, value, loose=loose)
        except Uncertain as exc:
            reason = reason or str(exc)
            continue
        if best is None or verdict.level < best[0].level:
            best = (verdict, expr)
    return best or reason


def _computed_in_written_units(found: Found, verdict: Verdict, logical: Logical) -> str:
    """`14B` for a value written `15B`, `14 GB` for `20 GB`: the written unit, spaced as written."""
    leaf = written_leaf(found.value.node)
    if leaf is not None:
        return verdict.computed + logical.text[leaf.end : found.value.end]
    return verdict.computed


def _check_logical(logical: Logical, rel: str) -> ClaimReport:
    """The claims and shape claims of a logical line, explained in the order of their lines."""
    report = ClaimReport()
    claims = find_claims(logical.text, logical.arrows)
    shapes = check_shapes(logical.text)
    shape_starts = [shape.start for shape in shapes]  # in order, and so are their ends
    for skip in claims.skipped:
        k = bisect_left(shape_starts, skip.end) - 1
        if k >= 0 and shapes[k].end > skip.start:
            continue  # `(S, d) × (d, d_ff) = (S, d_ff)` is not arithmetic: the shapes read it
        report.skipped += 1
        line, _ = logical.where(skip.start)
        report.explained.append(Explained(rel, line, "skipped", logical.span(skip.start, skip.end), skip.reason))
    for found in claims.found:
        best = _best_verdict(found)
        value = logical.span(found.value.start, found.value.end)
        line, col = logical.where(found.value.start)
        if isinstance(best, str):
            report.skipped += 1
            start = min(side.start for side, _, _ in found.alternatives)
            text = logical.span(start, found.value.end)
            report.explained.append(Explained(rel, logical.where(start)[0], "skipped", text, best))
            continue
        verdict, expr_side = best
        expr = logical.span(expr_side.start, expr_side.end)
        claim = f"{expr} {found.rel} {value}"
        computed = _computed_in_written_units(found, verdict, logical)
        report.verified += 1
        report.explained.append(Explained(rel, line, VERDICTS.get(verdict.level, "warning"), claim, f"computed {computed}"))
        if verdict.level != PASS:
            code, what = ("VK301", "wrong") if verdict.level == ERROR else ("VK302", "imprecise")
            message = f"{claim} is {what}: written {value}, computed {computed}"
            report.diagnostics.append(Diagnostic(rel, line, col, code, message, written=value, computed=computed))
    for shape in shapes:
        line, col = logical.where(shape.start)
        claim = logical.span(shape.start, shape.end)
        if shape.computed is None:
            report.skipped += 1
            report.explained.append(Explained(rel, line, "skipped", claim, shape.reason))
            continue
        report.verified += 1
        report.explained.append(Explained(rel, line, "ok" if shape.ok else "error", claim, f"computed {shape.computed}"))
        if not shape.ok:
            line, col = logical.where(shape.written_start)
            message = f"{claim} has the wrong shape: written {shape.written}, computed {shape.computed}"
            report.diagnostics.append(Diagnostic(rel, line, col, "VK303", message, written=shape.written, computed=shape.computed))
    report.explained.sort(key=lambda entry: entry.line)
    return report


def _logical_lines(text: str) -> Iterator[Logical]:
    """The logical lines of a note that may hold a claim: a line with the lines that continue it."""
    group: list[tuple[int, str]] | None = None  # the logical line being read, if claim-like
    last_number, last_line = -2, ""
    for number, line in markdown_lines(text):
        if not has_sign(line):
            if group:
                yield _logical(group)
            group = None
        elif number == last_number + 1 and continues_above(line):
            group = (group or [(last_number, last_line)]) + [(number, line)]
        else:
            if group:
                yield _logical(group)
            group = [(number, line)] if may_have_claim(line) else None
        last_number, last_line = number, line
    if group:
        yield _logical(group)


def _logical(group: list[tuple[int, str]]) -> Logical:
    number, line = group[0]
    logical = Logical(mask_marker(line), [(0, number, 0)])
    for number, line in group[1:]:
        logical.extend(mask_marker(line), number)
    return logical


def check_markdown(text: str, rel: str) -> ClaimReport:
    """Claims in a note's prose, tables and code blocks (not front matter, vaultkit blocks,
    generated regions, %%comments%% or lines marked %%vk-ignore%%)."""
    report = ClaimReport()
    for logical in _logical_lines(text):
        report.add(_check_logical(logical, rel))
    return report


def check_svg(svg: str | SvgText, rel: str) -> ClaimReport:
    """Claims in the `<text>` nodes of an SVG (its text, or its model read once by the caller);
    positions are the SVG's own line and column. An SVG that is not well-formed has none."""
    report = ClaimReport()
    model = read_svg(svg) if isinstance(svg, str) else svg
    for lineno, col0, piece in svg_pieces(model) if model else ():
        report.add(_check_logical(Logical(piece, [(0, lineno, col0)]), rel))
    return report
