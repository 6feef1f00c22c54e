"""Arithmetic claims: check the arithmetic a person wrote in prose, tables, code and SVG text.

`2 × 32 × 32 × 128 × 2 = 524,288 bytes = 0.5 MB`, `1180 / 80 ≈ 15`, `4096² = 1600 万` are read
with a small grammar (never eval), computed, and compared with the written value at the
precision it is written with (see `compare`). Anything not read with certainty is skipped and
counted, never flagged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..svgtext import SvgText, read_svg
from .compare import ERROR, PASS, Verdict, judge
from .finder import Found, Side, find_claims, markdown_lines, svg_pieces
from .parser import Operand

__all__ = ["ClaimReport", "check_markdown", "check_svg", "check_line"]


@dataclass
class ClaimReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)  # VK301 errors, VK302 warnings
    verified: int = 0  # claims read and checked (pass or fail)
    skipped: int = 0  # claim-like spans not read with certainty

    def add(self, other: "ClaimReport") -> None:
        self.diagnostics.extend(other.diagnostics)
        self.verified += other.verified
        self.skipped += other.skipped


def _best_verdict(found: Found) -> tuple[Verdict, Side] | None:
    """The best verdict over the readings of a claim, and the expression it was computed from."""
    best = None
    for expr, value, loose in found.alternatives:
        verdict = judge(expr.node, value, loose=loose)
        if verdict is not None and (best is None or verdict.level < best[0].level):
            best = (verdict, expr)
    return best


def _diagnostic(
    found: Found, verdict: Verdict, expr_side: Side, line: str, rel: str, lineno: int, col0: int
) -> Diagnostic:
    expr = line[expr_side.start : expr_side.end]
    value = line[found.value.start : found.value.end]
    computed = verdict.computed
    leaf = found.value.node
    if isinstance(leaf, tuple) and leaf[0] == "neg":
        leaf = leaf[1]
    if isinstance(leaf, Operand) and line[leaf.end : found.value.end].strip():
        computed += " " + line[leaf.end : found.value.end].strip()  # in the written units
    code, what = ("VK301", "wrong") if verdict.level == ERROR else ("VK302", "imprecise")
    return Diagnostic(
        rel,
        lineno,
        col0 + found.value.start + 1,
        code,
        f"{expr} {found.rel} {value} is {what}: written {value}, computed {computed}",
        written=value,
        computed=computed,
    )


def check_line(line: str, rel: str, lineno: int, col0: int = 0) -> ClaimReport:
    """Claims of one line; `col0` is the column offset of the line's first character."""
    report = ClaimReport()
    claims = find_claims(line)
    report.skipped = claims.skipped
    for found in claims.found:
        best = _best_verdict(found)
        if best is None:
            report.skipped += 1
            continue
        report.verified += 1
        if best[0].level != PASS:
            report.diagnostics.append(_diagnostic(found, *best, line, rel, lineno, col0))
    return report


def check_markdown(text: str, rel: str, *, first_line: int = 1) -> ClaimReport:
    """Claims in a note's prose, tables and code blocks (not front matter, vaultkit blocks,
    generated regions, %%comments%% or lines marked %%vk-ignore%%)."""
    report = ClaimReport()
    for number, line in markdown_lines(text):
        report.add(check_line(line, rel, number + first_line - 1))
    return report


def check_svg(svg: str | SvgText, rel: str) -> ClaimReport:
    """Claims in the `<text>` nodes of an SVG (its text, or its model read once by the caller);
    positions are the SVG's own line and column. An SVG that is not well-formed has none."""
    report = ClaimReport()
    model = read_svg(svg) if isinstance(svg, str) else svg
    for lineno, col0, piece in svg_pieces(model) if model else ():
        report.add(check_line(piece, rel, lineno, col0))
    return report
