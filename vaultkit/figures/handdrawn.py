"""Check and fix the numbers in a hand-drawn SVG without touching anything else.

The drawing is read through `svgtext.read_svg` and `layouts.find_matrices`; only the spans of
wrong numbers are rewritten, so every other byte stays as it was. Besides matrices it reads
worked dot products: `(0.1)×(0.4) + …` then `= 0.04 + … = -0.10`, under a caption naming the
cell (`Scores[1][2]`, or the two tokens).

A matrix's quantity comes from an explicit `data-vk="scores"` on an enclosing element, else
from its caption (the nearest text above it in its group or card, or just above the card),
else from the label beside it, else from its values. A matrix that cannot be matched with
certainty is reported as "uncertain" and never rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from ..numbers import written_matches
from ..svgtext import SvgText, TextRun, read_svg
from .layouts import MASK, NUMBER, Cell, Matrix, find_matrices
from .style import fmt

PRODUCT = re.compile(rf"\(?\s*({NUMBER})\s*\)?\s*[×*·]\s*\(?\s*({NUMBER})\s*\)?")
PRODUCTS_LINE = re.compile(rf"^\s*(?:{PRODUCT.pattern}\s*\+\s*)+{PRODUCT.pattern}\s*$")
SUM_TERM = re.compile(rf"\(?\s*({NUMBER})\s*\)?")
SUM_LINE = re.compile(rf"^\s*=\s*(?:\(?\s*{NUMBER}\s*\)?\s*\+\s*)+\(?\s*{NUMBER}\s*\)?\s*=\s*{NUMBER}\s*$")
CELL_REF = re.compile(r"([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]|([A-Za-z_]\w*)\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]")
QUOTED = re.compile(r"[「“\"']([^」”\"']+)[」”\"']")
CAPTION_REACH = 2.5  # font sizes above a card or matrix where its caption may stand

# caption keywords, most specific first: the first that matches names the quantity
KEYWORDS = [
    ("weights", re.compile(r"weight|权重|softmax|概率|probabilit|attn", re.I)),
    ("output", re.compile(r"output|输出|context|×\s*V\b|·\s*V\b", re.I)),
    ("masked", re.compile(r"mask|掩码|遮", re.I)),
    ("scaled", re.compile(r"scaled|缩放|除以|÷|/\s*√", re.I)),
    ("scores", re.compile(r"score|分数|logit|Q\s*[×·*]?\s*K", re.I)),
    ("V", re.compile(r"(?<![A-Za-z_^])V(?![A-Za-z])|\bvalues?\b", re.I)),
    ("K", re.compile(r"(?<![A-Za-z_^])K(?![A-Za-z])|\bkeys?(?![a-z])", re.I)),  # not W_K
    ("Q", re.compile(r"(?<![A-Za-z_^])Q(?![A-Za-z])|\bquer(?:y|ies)\b", re.I)),
]
TRANSPOSED = re.compile(r"K\s*(?:ᵀ|\^\s*\{?\s*T\b|\.T\b|转置)|\bkeys?\s*ᵀ", re.I)


@dataclass
class FigureFinding:
    line: int
    col: int
    quantity: str
    index: tuple
    written: str
    computed: str
    status: str  # "wrong" | "uncertain"
    row: tuple[str, str] = ("", "")  # a matrix cell's whole row: as drawn, as computed


@dataclass
class HandDrawnReport:
    findings: list[FigureFinding]
    checked: int
    fixed_text: str


def caption_runs(model: SvgText, matrices: list[Matrix]) -> list[TextRun]:
    """Runs that may caption a matrix: written, placed, and not a row of any matrix."""
    rows = {id(run) for m in matrices for run in m.runs}
    return [r for r in model.runs if id(r) not in rows and r.text.strip()
            and np.isfinite(r.x) and np.isfinite(r.y) and not PRODUCTS_LINE.match(r.text)]


def caption_of(matrix: Matrix, model: SvgText, candidates: list[TextRun]) -> str:
    """The nearest text above the matrix in its group or card, else just above the card."""
    group, _ = matrix.container
    card = model.card_of(matrix.x, matrix.y)
    reach = CAPTION_REACH * matrix.runs[0].font_size
    above = [r for r in candidates if r.y < matrix.y]
    inside = [r for r in above if group is not None and group in r.groups()] or \
             [r for r in above if card is not None and card.holds(r.x, r.y)]
    if not inside and card is not None:  # a caption over the card
        inside = [r for r in above if card.y - reach <= r.y <= card.y and card.x <= r.x <= card.x + card.w]
    if not inside and card is None:
        inside = [r for r in above if matrix.y - r.y <= reach]
    # nearest first; a caption straight above beats one as close but off to the side
    nearest = min(inside, key=lambda r: (matrix.y - r.y) + abs(r.x - matrix.x) / 2, default=None)
    return nearest.text if nearest else ""


def side_label(matrix: Matrix, candidates: list[TextRun]) -> str:
    """Text on the first row's line, to its left (`Q =`, `Scores:`)."""
    first = matrix.runs[0]
    left = [r for r in candidates if abs(r.y - first.y) < 1 and r.x < first.x and r.element != first.element]
    return max(left, key=lambda r: r.x).text if left else ""


def quantity_from_text(text: str, quantities) -> str | None:
    """The quantity a caption names; in `A = B` the A side is what is shown."""
    head = text.split("=")[0] if "=" in text else ""
    for part in (head, text):
        for name, pattern in KEYWORDS:
            if name in quantities and pattern.search(part):
                return name
    return None


def name_of(matrix: Matrix, model: SvgText, candidates: list[TextRun], quantities) -> tuple[str | None, str]:
    """The quantity a matrix shows, by pin, caption, side label or row label; and the text that said so."""
    if matrix.pin:
        return (matrix.pin if matrix.pin in quantities else None), f'data-vk="{matrix.pin}"'
    for text in (caption_of(matrix, model, candidates), side_label(matrix, candidates), matrix.labels[0]):
        name = quantity_from_text(text, quantities)
        if name:
            return name, text
    return None, ""


def is_transposed(caption: str) -> bool:
    return bool(TRANSPOSED.search(caption))


def is_mask(written: str) -> bool:
    return re.fullmatch(MASK, written) is not None


def agrees(written: str, computed: float, masked_here: bool) -> bool:
    """A correct rounding of `computed` at the precision `written` has (ties either way)."""
    if is_mask(written):
        return masked_here or np.isneginf(computed)
    return written_matches(written, computed)  # False for −inf computed


def styled(computed: float, like: str, digits: int, minus: str) -> str:
    """`computed` written like `like`: its decimals (at least `digits`), minus sign, leading zero."""
    if np.isneginf(computed):
        return "-inf"
    decimals = digits
    if not is_mask(like) and "." in like:
        decimals = max(digits, len(like.split(".")[1]))
    text = fmt(computed, decimals).replace("-", minus)
    if like.lstrip("-−").startswith("."):
        text = re.sub(r"^([-−]?)0\.", r"\1.", text)
    return text


class Checker:
    """Compares what the drawing writes with the computed quantities and collects the edits."""

    def __init__(self, svg: str, quantities: dict, digits: int, tokens: list[str], skip=frozenset()):
        self.svg = svg
        self.skip = skip
        self.quantities = {k: np.asarray(v, dtype=float) for k, v in quantities.items()}
        self.digits = digits
        self.tokens = tokens
        self.findings: list[FigureFinding] = []
        self.edits: dict[int, tuple[int, str]] = {}  # start -> (end, replacement)
        self.checked = 0
        masked = self.quantities.get("masked")
        self.mask = np.isneginf(masked) if masked is not None else None

    def where(self, offset: int) -> tuple[int, int]:
        line = self.svg.count("\n", 0, offset) + 1
        return line, offset - (self.svg.rfind("\n", 0, offset) + 1) + 1

    def apply(self) -> str:
        """The drawing with every collected edit made."""
        fixed = self.svg
        for start in sorted(self.edits, reverse=True):
            end, replacement = self.edits[start]
            fixed = fixed[:start] + replacement + fixed[end:]
        return fixed

    def uncertain(self, offset: int, quantity: str, written: str, why: str) -> None:
        line, col = self.where(offset)
        self.findings.append(FigureFinding(line, col, quantity, (), written, why, "uncertain"))

    def compare(self, cell: Cell, quantity: str, index: tuple, computed: float,
                masked_here: bool = False, minus: str = "-", row=("", "")) -> None:
        """Check one written number; a wrong one becomes a finding and an edit."""
        self.checked += 1
        if agrees(cell.written, computed, masked_here):
            return
        line, col = self.where(cell.start)
        new = styled(computed, cell.written, self.digits, minus)
        self.findings.append(FigureFinding(line, col, quantity, index, cell.written,
                                           fmt(computed, self.digits), "wrong", row))
        field = self.svg[cell.field_start:cell.start + len(cell.written)]
        replacement = new.rjust(len(field))
        if field[:1] == " " and replacement[:1] != " ":
            replacement = " " + replacement
        self.edits[cell.field_start] = (cell.start + len(cell.written), replacement)

    def matrix(self, matrix: Matrix, name: str | None, caption: str) -> None:
        first = matrix.rows[0][0]
        shape = matrix.shape
        has_mask = any(is_mask(c.written) for row in matrix.rows for c in row)
        if name == "scaled" and has_mask and "masked" in self.quantities:
            name = "masked"
        if name is None:
            name = self.by_values(matrix, shape)
        if name in self.skip:
            return
        if name is None and not any(v.shape == shape for v in self.quantities.values()):
            return  # numbers of another shape are not part of the derivation
        if name is None:
            row_text = self.svg[first.start:first.start + 60].split("<")[0]
            self.uncertain(first.start, "?", row_text, "no caption or value match")
            return
        values = self.quantities.get(name)
        if values is not None and name == "K" and is_transposed(caption) and values.T.shape == shape:
            values = values.T  # Kᵀ drawn: a column per key
        if values is None or values.shape != shape:
            got = "missing" if values is None else f"shape {values.shape}"
            self.uncertain(first.start, name, f"{shape[0]}×{shape[1]} numbers", got)
            return
        minus = "−" if any("−" in c.written for row in matrix.rows for c in row) else "-"
        for i, row in enumerate(matrix.rows):
            drawn = "[" + " ".join(c.written for c in row) + "]"
            computed = "[" + " ".join(c.written if is_mask(c.written) and np.isneginf(v)
                                      else styled(v, c.written, self.digits, minus)
                                      for c, v in zip(row, values[i])) + "]"
            for j, cell in enumerate(row):
                masked_here = name == "weights" and self.mask is not None and \
                    self.mask.shape == shape and bool(self.mask[i, j])
                self.compare(cell, name, (i, j), values[i, j], masked_here, minus, (drawn, computed))

    def by_values(self, matrix: Matrix, shape: tuple) -> str | None:
        """The one quantity of this shape that most of the written cells agree with."""
        scores = {}
        for name, values in self.quantities.items():
            if values.shape == shape:
                cells = [(c, values[i, j]) for i, r in enumerate(matrix.rows) for j, c in enumerate(r)]
                scores[name] = sum(agrees(c.written, v, False) for c, v in cells) / len(cells)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        if ranked and ranked[0][1] >= 0.5 and (len(ranked) == 1 or ranked[1][1] < ranked[0][1]):
            return ranked[0][0]
        return None

    def worked(self, runs: list[TextRun], index: int) -> None:
        """A products line `(a)×(b) + …` and the sum line after it."""
        run = runs[index]
        q, k, scores = (self.quantities.get(n) for n in ("Q", "K", "scores"))
        cells = [(Cell(m.group(1), run.start + m.start(1), run.start + m.start(1)),
                  Cell(m.group(2), run.start + m.start(2), run.start + m.start(2)))
                 for m in PRODUCT.finditer(run.raw)]
        if q is None or k is None or q.ndim != 2 or len(cells) != q.shape[1]:
            self.uncertain(run.start, "Q·K", run.text.strip(), "cannot tell which Q and K it uses")
            return
        cell_index = self.which_cell(runs, index, cells, q, k)
        if cell_index is None:
            self.uncertain(run.start, "Q·K", run.text.strip(), "cannot tell which cell it works out")
            return
        i, j = cell_index
        for t, (a, b) in enumerate(cells):
            self.compare(a, "Q", (i, t), q[i, t])
            self.compare(b, "K", (j, t), k[j, t])
        total_run = next((r for r in runs[index + 1:index + 3] if SUM_LINE.match(r.raw)), None)
        if total_run is None:
            return
        terms = [(m.group(1), m.start(1)) for m in SUM_TERM.finditer(total_run.raw)]
        if len(terms) != len(cells) + 1:
            self.uncertain(total_run.start, "Q·K", total_run.text.strip(), "term count differs")
            return
        for t, (written, offset) in enumerate(terms[:-1]):
            cell = Cell(written, total_run.start + offset, total_run.start + offset)
            self.compare(cell, "products", (i, j, t), q[i, t] * k[j, t])
        written, offset = terms[-1]
        if scores is not None:
            cell = Cell(written, total_run.start + offset, total_run.start + offset)
            self.compare(cell, "scores", (i, j), scores[i, j])

    def which_cell(self, runs, index, cells, q, k) -> tuple[int, int] | None:
        """The (i, j) a worked dot product is about: its caption, else its factors' values."""
        def fits(i, j):
            return 0 <= i < len(q) and 0 <= j < len(k) and all(
                agrees(a.written, q[i, t], False) and agrees(b.written, k[j, t], False)
                for t, (a, b) in enumerate(cells))

        named = referenced = None
        for previous in reversed(runs[max(0, index - 3):index]):
            ref = CELL_REF.search(previous.text)
            quoted = [self.tokens.index(t) for t in QUOTED.findall(previous.text)
                      if t in self.tokens]
            if ref:
                referenced = tuple(int(v) for v in (ref.group(2, 3) if ref.group(2)
                                                    else ref.group(5, 6)))
            if len(quoted) == 2:
                named = tuple(quoted)
            if ref or named:
                break
        candidates = [c for c in (named, referenced) if c]
        if referenced:
            candidates.append((referenced[0] - 1, referenced[1] - 1))  # a 1-based caption
        for candidate in candidates:
            if fits(*candidate):
                return candidate
        if candidates:
            # the factors are wrong: trust the caption only when it says one thing
            agreed = {c for c in (named, referenced) if c}
            return agreed.pop() if len(agreed) == 1 else None
        found = [(i, j) for i in range(len(q)) for j in range(len(k)) if fits(i, j)]
        return found[0] if len(found) == 1 else None


def check_handdrawn(svg: str | SvgText, quantities: dict, *, digits: int, tokens: list[str],
                    skip: frozenset = frozenset()) -> HandDrawnReport:
    """Find the drawing's numbers, report wrong and uncertain ones, and rewrite the wrong ones.

    Matrices named one of `skip` are left alone (a quantity the drawing's inputs do not settle)."""
    model = read_svg(svg) if isinstance(svg, str) else svg
    if model is None:
        return HandDrawnReport([], 0, svg)
    checker = Checker(model.source, quantities, digits, tokens, skip)
    matrices = find_matrices(model)
    candidates = caption_runs(model, matrices)
    for matrix in matrices:
        name, caption = name_of(matrix, model, candidates, checker.quantities)
        checker.matrix(matrix, name, caption)
    runs = [r for r in model.runs if r.text.strip()]
    for index, run in enumerate(runs):
        if PRODUCTS_LINE.match(run.raw):
            checker.worked(runs, index)
    return HandDrawnReport(sorted(checker.findings, key=lambda f: (f.line, f.col)), checker.checked,
                           checker.apply())
