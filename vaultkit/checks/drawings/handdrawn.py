"""Check and fix the numbers in a hand-drawn SVG without touching anything else.

The drawing is read through `svgtext.read_svg` and `layouts.find_matrices`; only the spans of
wrong numbers are rewritten, so every other byte stays as it was. Besides matrices it reads
worked dot products: `(0.1)×(0.4) + …` then `= 0.04 + … = -0.10`, under a caption naming the
cell (`Scores[1][2]`, or the two tokens).

A matrix's quantity comes from an explicit `data-vk="scores"` on an enclosing element, else
from the label that stands nearest to it: above it (or over its column headers) or to its
left, inside its frame or its `<g>`, or just over its frame; a label to its right or under it
counts a font size further. Else from a legend (a swatch of the colour of its frame, of its
cells or of its numbers, beside a name, when no other block has that colour), the labels of
its rows, or its place (the product at the crossing of Q and Kᵀ in the textbook layout: its
values say which step, scores, scaled or masked); else from its values. Each label names one
matrix at most: the one it is nearest to. A matrix that cannot be matched with certainty is
reported as "uncertain" and never rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from vaultkit.checks.drawings import vocabulary
from vaultkit.checks.drawings.layouts import MASK, NUMBER, Cell, Matrix, Space, find_matrices, frames
from vaultkit.numbers import fmt, written_matches
from vaultkit.readers.svgtext import Card, SvgText, TextRun, read_svg

PRODUCT = re.compile(rf"\(?\s*({NUMBER})\s*\)?\s*[×*·]\s*\(?\s*({NUMBER})\s*\)?")
PRODUCTS_LINE = re.compile(rf"^\s*(?:{PRODUCT.pattern}\s*\+\s*)+{PRODUCT.pattern}\s*(?:=\s*{NUMBER}\s*)?$")
TOTAL = re.compile(rf"=\s*({NUMBER})\s*$")  # `… = 0.04`: the total a worked line ends on
SUM_TERM = re.compile(rf"\(?\s*({NUMBER})\s*\)?")
SUM_LINE = re.compile(rf"^\s*=\s*(?:\(?\s*{NUMBER}\s*\)?\s*\+\s*)+\(?\s*{NUMBER}\s*\)?\s*=\s*{NUMBER}\s*$")
TOTAL_LINE = re.compile(rf"^\s*=\s*{NUMBER}\s*$")  # the total written in a text of its own
CELL_REF = re.compile(
    r"([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]|([A-Za-z_]\w*)\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]"
)
QUOTED = re.compile(r"[「“\"']([^」”\"']+)[」”\"']")
CAPTION_REACH = 3.0  # font sizes above a matrix (or its frame) where its caption may stand
SIDE_REACH = 6.0  # font sizes left of a matrix where its label may stand
BELOW_REACH = 2.5  # font sizes below a matrix where a label under it may stand
BELOW_COST = 1.0  # font sizes a label under a matrix counts further than one above it


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
    """Runs that may caption a matrix: written, placed, and no number of any matrix."""
    rows = {id(c.run) for m in matrices for c in m.cells() if c.run is not None}
    rows |= {id(run) for m in matrices for run in m.runs}
    return [
        r
        for r in model.runs
        if id(r) not in rows
        and r.text.strip()
        and np.isfinite(r.x)
        and np.isfinite(r.y)
        and np.isfinite(r.cx)
        and not PRODUCTS_LINE.match(r.text)
    ]


def quantity_from_text(text: str, quantities) -> str | None:
    """The quantity a caption names; in `A = B` the A side is what is shown."""
    role = vocabulary.caption_role(text)
    role = "K" if role == "K transposed" else role
    return role if role in quantities else None


def is_transposed(caption: str) -> bool:
    return vocabulary.is_transposed(caption)


@dataclass
class Naming:
    """What a matrix was taken to be, and the text (or place) that said so."""

    name: str | None
    said: str
    transposed: bool = False


class _Places:
    """Where the matrices of a drawing stand, indexed once: which frame and group hold each
    matrix alone, and which matrices stand near a box (so naming stays linear in the drawing)."""

    def __init__(self, model: SvgText, matrices: list[Matrix]):
        self.matrices = matrices
        step = 4 * max((m.size for m in matrices), default=16.0)
        owner = {id(c): n for n, m in enumerate(matrices) for c in m.cells()}
        cells = Space([c for m in matrices for c in m.cells()], lambda c: (c.x, c.y, c.x, c.y), step)
        cards = Space(frames(model), lambda c: (c.x, c.y, c.x + c.w, c.y + c.h), step)
        in_group: dict[int, set[int]] = {}
        for n, m in enumerate(matrices):
            for c in m.cells():
                for g in c.run.groups() if c.run is not None else ():
                    in_group.setdefault(g, set()).add(n)
        self.owns: list[tuple[Card | None, int | None]] = []
        for n, matrix in enumerate(matrices):
            self.owns.append(self._own(matrix, n, owner, cells, cards, in_group))
        self.by_group: dict[int, list[int]] = {}
        for n, (_, group) in enumerate(self.owns):
            if group is not None:
                self.by_group.setdefault(group, []).append(n)
        self.extents = Space(range(len(matrices)), self._extent, step)
        self.boxes = Space(range(len(matrices)), lambda n: self._extent(n, False), step)
        self.reach = max(CAPTION_REACH, SIDE_REACH, BELOW_REACH) * max((m.size for m in matrices), default=16.0)

    def _own(self, matrix: Matrix, n: int, owner: dict, cells: Space, cards: Space, in_group: dict):
        """The frame and the group that hold this matrix and no other one."""
        frame = matrix.frame
        if frame is None:
            xs, ys = [c.x for c in matrix.cells()], [c.y for c in matrix.cells()]
            box = (min(xs), min(ys), max(xs), max(ys))
            holding = [c for c in cards.near(*box) if c.holds(box[0], box[1]) and c.holds(box[2], box[3])]
            frame = min(holding, key=lambda c: c.area) if holding else None
        if frame is not None and any(
            owner[id(c)] != n and frame.holds(c.x, c.y)
            for c in cells.near(frame.x, frame.y, frame.x + frame.w, frame.y + frame.h)
        ):
            frame = None
        group = matrix.container[0] if matrix.container else None
        if group is None:
            common = None
            for cell in matrix.cells():
                groups = cell.run.groups() if cell.run is not None else ()
                common = list(groups) if common is None else [g for g, h in zip(common, groups) if g == h]
            group = common[-1] if common else None
        if group is not None and in_group.get(group, set()) - {n}:
            group = None
        return frame, group

    def _extent(self, n: int, framed: bool = True) -> tuple[float, float, float, float]:
        m, frame = self.matrices[n], self.owns[n][0]
        if frame is None or not framed:
            return m.left, m.top, m.right, m.bottom
        return (
            min(m.left, frame.x),
            min(m.top, frame.y),
            max(m.right, frame.x + frame.w),
            max(m.bottom, frame.y + frame.h),
        )

    def near_label(self, label: TextRun) -> list[int]:
        """The matrices a label may name: within reach of it, or sharing its frame or group."""
        reach = max(self.reach, SIDE_REACH * label.size)
        found = set(self.extents.near(label.left - reach, label.cy - reach, label.right + reach, label.cy + reach))
        for g in label.groups():
            found.update(self.by_group.get(g, ()))
        return sorted(found)

    def between(self, matrix: Matrix, left: float, top: float, right: float, bottom: float) -> bool:
        """Another matrix lies in the box (a label beyond it is not this one's)."""
        return any(
            (m := self.matrices[n]) is not matrix
            and m.right > left
            and m.left < right
            and m.bottom > top
            and m.top < bottom
            for n in self.boxes.near(left, top, right, bottom)
        )


def _distance(label: TextRun, matrix: Matrix, places: _Places, own: tuple) -> tuple[int, float] | None:
    """How near a label stands to a matrix, in font sizes, as (tier, distance): tier 0 above
    it or to its left (inside its frame or group, over its frame), tier 1 to its right or
    under it."""
    size = matrix.size
    frame, group = own
    inside = (frame is not None and frame.holds(label.cx, label.cy)) or (group is not None and group in label.groups())
    if frame is not None and not inside:
        over = (
            label.cy < frame.y
            and frame.y - label.cy <= CAPTION_REACH * max(size, label.size)
            and frame.x <= label.cx <= frame.x + frame.w
        )
        beside = (
            label.cx < frame.x
            and frame.y <= label.cy <= frame.y + frame.h
            and frame.x - label.right <= SIDE_REACH * size
        )
        if over:
            return 0, (matrix.top - label.cy) / size
        if beside:
            return 0, (matrix.left - label.right) / size
        return None
    factor = 0.5 if inside else 1.0
    left, top = matrix.corner or (matrix.left, matrix.top)  # a table's caption stands over its headers
    overlap = min(label.right, matrix.right) - max(label.left, left)
    if label.cy < top + 0.2 * size and (overlap > 0 or left - size <= label.cx <= matrix.right + size):
        dy = (top - label.cy) / size
        off = abs(label.cx - (matrix.left + matrix.right) / 2) / max(matrix.right - matrix.left, size)
        if (inside or dy <= CAPTION_REACH) and not places.between(
            matrix, max(label.left, matrix.left), label.cy, min(label.right, matrix.right), matrix.top
        ):
            return 0, (max(dy, 0.0) + 0.5 * off) * factor  # straight above beats as near but aside
    if (
        label.cx < matrix.left
        and label.left < matrix.left - 0.3 * size
        and matrix.top - 0.3 * size <= label.cy <= matrix.bottom + 0.3 * size
    ):
        dx = (matrix.left - label.right) / size
        if (inside or dx <= SIDE_REACH) and not places.between(
            matrix, label.right, label.cy - 0.3 * size, matrix.left, label.cy + 0.3 * size
        ):
            return 0, max(dx, 0.0) * factor
    if (
        label.cx > matrix.right
        and label.right > matrix.right + 0.3 * size
        and matrix.top - 0.3 * size <= label.cy <= matrix.bottom + 0.3 * size
    ):
        dx = (label.left - matrix.right) / size
        if (inside or dx <= SIDE_REACH) and not places.between(
            matrix, matrix.right, label.cy - 0.3 * size, label.left, label.cy + 0.3 * size
        ):
            return 1, max(dx, 0.0) * factor  # to its right, level with its rows
    if label.cy > matrix.bottom - 0.2 * size and matrix.left - size <= label.cx <= matrix.right + size:
        dy = (label.cy - matrix.bottom) / size
        if (inside or dy <= BELOW_REACH) and not places.between(
            matrix, matrix.left, matrix.bottom, matrix.right, label.cy
        ):
            return 1, max(dy, 0.0) * factor
    return None


def _cost(distance: tuple[int, float]) -> float:
    """A label's distance as one number: under a block counts a font size more than above it
    or to its left (the usual place wins a tie, a label right under one block and far above the
    next is the first one's)."""
    tier, d = distance
    return d + BELOW_COST * tier


CROSSING = "its place at the crossing of Q and Kᵀ"
SWATCH = re.compile(r"^\s*[■□▪▮█◼●◆▲]\s*$")


NO_COLOUR = frozenset({None, "none", "transparent", "#fff", "#ffffff", "white"})


def _filled(model: SvgText) -> Space:
    """The coloured shapes of a drawing (rects, closed paths), indexed by their boxes."""
    if "filled" not in model.cache:
        shapes = [c for c in frames(model) if c.fill not in NO_COLOUR]
        step = 4 * max((r.size for r in model.runs), default=16.0)
        model.cache["filled"] = Space(shapes, lambda c: (c.x, c.y, c.x + c.w, c.y + c.h), step)
    return model.cache["filled"]


def _colour(model: SvgText, matrix: Matrix, frame: Card | None) -> str | None:
    """The colour that marks a matrix: its own frame's fill, else the one fill of the cells
    drawn round its numbers, else the one colour of its numbers."""
    if frame is not None and frame.fill not in NO_COLOUR:
        return frame.fill
    filled, fills = _filled(model), set()
    for c in matrix.cells():
        around = [s for s in filled.near(c.x, c.y, c.x, c.y) if s.holds(c.x, c.y)]
        fills.add(min(around, key=lambda s: s.area).fill if around else None)
        if len(fills) > 1:
            break
    if len(fills) == 1 and None not in fills:
        return fills.pop()
    colours = {c.run.fill() for c in matrix.cells() if c.run is not None}
    return colours.pop() if len(colours) == 1 else None


def _legend(model: SvgText, candidates: list[TextRun]) -> dict[str, TextRun]:
    """Colour → the name beside a small swatch of that colour (a square shape or `■`)."""
    entries: dict[str, list[TextRun]] = {}
    swatches = [r for r in model.runs if SWATCH.match(r.text) and r.fill() and np.isfinite(r.cx)]
    filled = _filled(model)
    for label in candidates:
        if vocabulary.caption_role(label.text) in (None, "other"):
            continue
        size = label.size
        for card in filled.near(label.left - 5 * size, label.cy - 2 * size, label.left, label.cy + 2 * size):
            if (
                card.w <= 2.5 * size
                and card.h <= 2.5 * size
                and 0 <= label.left - (card.x + card.w) <= 2 * size
                and abs(card.y + card.h / 2 - label.cy) <= 0.8 * size
            ):
                entries.setdefault(card.fill, []).append(label)
        for swatch in swatches:
            if 0 <= label.left - swatch.right <= 2 * size and abs(swatch.cy - label.cy) <= 0.6 * size:
                entries.setdefault(swatch.fill(), []).append(label)
    return {colour: found[0] for colour, found in entries.items() if len({id(r) for r in found}) == 1}


def _product_at_crossing(matrix: Matrix, named: list[tuple[Matrix, Naming]]) -> bool:
    """The textbook layout: Q to the left on the same lines, Kᵀ above in the same columns."""
    q = [m for m, n in named if n.name == "Q" and m.shape[0] == matrix.shape[0] and m.right <= matrix.left]
    k = [m for m, n in named if n.name == "K" and m.shape[1] == matrix.shape[1] and m.bottom <= matrix.top]
    size = matrix.size
    lines = any(all(abs(a - b) <= 0.6 * size for a, b in zip(m.row_ys(), matrix.row_ys())) for m in q)
    xs = matrix.column_xs()
    spacing = abs(xs[-1] - xs[0]) / max(len(xs) - 1, 1)
    tol = max(0.6 * size, 0.25 * spacing)
    columns = [m for m in k if all(abs(a - b) <= tol for a, b in zip(m.column_xs(), xs))]
    if lines and columns:
        columns[0].transposed = True  # above the product, a column per key: Kᵀ
    return lines and bool(columns)


def name_matrices(model: SvgText, matrices: list[Matrix], candidates: list[TextRun], quantities) -> list[Naming]:
    """The quantity each matrix shows, and what said so (see the module's docstring)."""
    names: list[Naming | None] = [None] * len(matrices)
    places = _Places(model, matrices)
    owns = places.owns
    for i, matrix in enumerate(matrices):
        if matrix.pin:
            names[i] = Naming(matrix.pin if matrix.pin in quantities else None, f'data-vk="{matrix.pin}"')
    legend = _legend(model, candidates)
    colours = [_colour(model, m, own[0]) for m, own in zip(matrices, owns)] if legend else []
    in_legend = {id(r) for r in legend.values()}
    roles = {id(r): vocabulary.caption_role(r.text) for r in candidates}
    near: list[list[tuple[tuple[int, float], TextRun]]] = [[] for _ in matrices]
    for label in candidates:
        if roles[id(label)] is None or id(label) in in_legend:
            continue
        found = [
            (d, i)
            for i in places.near_label(label)
            if names[i] is None and (d := _distance(label, matrices[i], places, owns[i])) is not None
        ]
        if found:
            d, i = min(found, key=lambda e: (_cost(e[0]), e[1]))
            near[i].append((d, label))
    for i, matrix in enumerate(matrices):
        if names[i] is None and matrix.inline and (name := quantity_from_text(matrix.labels[0], quantities)):
            names[i] = Naming(name, matrix.labels[0], is_transposed(matrix.labels[0]))  # `Q = [[…]]`
        if names[i] is not None:
            continue
        for _, label in sorted(near[i], key=lambda e: _cost(e[0])):
            role = roles[id(label)]
            if role == "other":
                names[i] = Naming(None, label.text)
                break
            name = "K" if role == "K transposed" else role
            if name in quantities:
                names[i] = Naming(name, label.text, role == "K transposed")
                break
        if names[i] is None and legend:
            colour = colours[i]
            if (
                colour in legend
                and colours.count(colour) == 1  # a colour shared by two blocks names neither
                and (name := quantity_from_text(legend[colour].text, quantities))
            ):
                names[i] = Naming(name, legend[colour].text, is_transposed(legend[colour].text))
        if names[i] is None:
            for text in matrix.labels[:1]:
                if name := quantity_from_text(text, quantities):
                    names[i] = Naming(name, text, is_transposed(text))
    named = [(m, n) for m, n in zip(matrices, names) if n is not None and n.name]
    for i, matrix in enumerate(matrices):
        if names[i] is None and "scores" in quantities and _product_at_crossing(matrix, named):
            names[i] = Naming("scores", CROSSING)
    for m, n in named:
        n.transposed = n.transposed or m.transposed
    return [n or Naming(None, "") for n in names]


def _padded_columns(matrix: Matrix) -> bool:
    """Whether rows written one text each line their columns up by padding (each column ends
    at one character of its row); True for numbers each in a text of their own."""
    rows = [row for row in matrix.rows if row and row[0].run is not None]
    if len(rows) < 2 or any(len({id(c.run) for c in row}) > 1 for row in rows):
        return True
    ends = [[c.start + len(c.written) - row[0].run.start for c in row] for row in rows]
    return all(len(set(column)) == 1 for column in zip(*ends))


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

    def __init__(self, model: SvgText, quantities: dict, digits: int, tokens: list[str], skip=frozenset()):
        self.model = model
        self.svg = model.source
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
        return self.model.where(offset)

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

    def compare(
        self,
        cell: Cell,
        quantity: str,
        index: tuple,
        computed: float,
        masked_here: bool = False,
        minus: str = "-",
        row=("", ""),
        digits: int | None = None,
        aligned: bool = True,
    ) -> None:
        """Check one written number; a wrong one becomes a finding and an edit (written with
        `digits` decimals at least: the drawing's usual, or an input's own). The edit keeps the
        width of the number's padded slot where its column is `aligned` by padding, else the
        spaces written before it."""
        self.checked += 1
        if agrees(cell.written, computed, masked_here):
            return
        line, col = self.where(cell.start)
        new = styled(computed, cell.written, self.digits if digits is None else digits, minus)
        self.findings.append(
            FigureFinding(
                line,
                col,
                quantity,
                index,
                cell.written,
                fmt(computed, self.digits) if digits is None else new,
                "wrong",
                row,
            )
        )
        field = self.svg[cell.field_start : cell.start + len(cell.written)]
        if aligned:
            replacement = new.rjust(len(field))
            if field[:1] == " " and replacement[:1] != " ":
                replacement = " " + replacement
        else:
            replacement = field[: len(field) - len(field.lstrip(" "))] + new
        self.edits[cell.field_start] = (cell.start + len(cell.written), replacement)
        for twin in cell.run.twins if cell.run is not None else ():  # the same text drawn twice
            shift = twin.start - cell.run.start
            self.edits[cell.field_start + shift] = (cell.start + len(cell.written) + shift, replacement)

    def matrix(self, matrix: Matrix, name: str | None, caption: str, transposed: bool = False) -> None:
        first = matrix.rows[0][0]
        shape = matrix.shape
        has_mask = any(is_mask(c.written) for row in matrix.rows for c in row)
        if name == "scaled" and has_mask and "masked" in self.quantities:
            name = "masked"
        if caption == CROSSING:  # the product of Q and Kᵀ: its values say at which step (scaled, masked)
            name = self.by_values(matrix, shape, ("scores", "scaled", "masked")) or name
        if name is None:
            name = self.by_values(matrix, shape)
        if name in self.skip:
            return
        if name is None and not any(v.shape == shape for v in self.quantities.values()):
            return  # numbers of another shape are not part of the derivation
        if name is None:
            row_text = self.svg[first.start : first.start + 60].split("<")[0]
            self.uncertain(first.start, "?", row_text, "no caption or value match")
            return
        values = self.quantities.get(name)
        if (
            values is not None
            and name == "K"
            and values.T.shape == shape
            and (transposed or is_transposed(caption) or values.shape != shape)
        ):
            values = values.T  # Kᵀ drawn: a column per key
        if values is None or values.shape != shape:
            got = "missing" if values is None else f"shape {values.shape}"
            self.uncertain(first.start, name, f"{shape[0]}×{shape[1]} numbers", got)
            return
        minus = "−" if any("−" in c.written and not is_mask(c.written) for c in matrix.cells()) else "-"  # not −∞
        aligned = _padded_columns(matrix)
        for i, row in enumerate(matrix.rows):
            drawn = "[" + " ".join(c.written for c in row) + "]"
            computed = (
                "["
                + " ".join(
                    c.written if is_mask(c.written) and np.isneginf(v) else styled(v, c.written, self.digits, minus)
                    for c, v in zip(row, values[i])
                )
                + "]"
            )
            for j, cell in enumerate(row):
                masked_here = (
                    name == "weights" and self.mask is not None and self.mask.shape == shape and bool(self.mask[i, j])
                )
                self.compare(cell, name, (i, j), values[i, j], masked_here, minus, (drawn, computed), aligned=aligned)

    def by_values(self, matrix: Matrix, shape: tuple, among=None) -> str | None:
        """The one quantity of this shape (of `among`, if given) most of the written cells agree with."""
        scores = {}
        for name, values in self.quantities.items():
            if values.shape == shape and (among is None or name in among):
                cells = [(c, values[i, j]) for i, r in enumerate(matrix.rows) for j, c in enumerate(r)]
                scores[name] = sum(agrees(c.written, v, False) for c, v in cells) / len(cells)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        if ranked and ranked[0][1] >= 0.5 and (len(ranked) == 1 or ranked[1][1] < ranked[0][1]):
            return ranked[0][0]
        return None

    def worked(self, runs: list[TextRun], index: int) -> None:
        """A products line `(a)×(b) + …` (ending `= total`, or not) and the sum line after it
        (`= p + q = total`, or `= total` alone: the arithmetic split over two texts)."""
        run = runs[index]
        q, k, scores = (self.quantities.get(n) for n in ("Q", "K", "scores"))
        cells = [
            (
                Cell(m.group(1), run.start + m.start(1), run.start + m.start(1)),
                Cell(m.group(2), run.start + m.start(2), run.start + m.start(2)),
            )
            for m in PRODUCT.finditer(run.raw)
        ]
        if q is None or k is None or q.ndim != 2 or len(cells) != q.shape[1]:
            self.uncertain(run.start, "Q·K", run.text.strip(), "cannot tell which Q and K it uses")
            return
        cell_index = self.which_cell(runs, index, cells, q, k)
        if cell_index is None:
            self.uncertain(run.start, "Q·K", run.text.strip(), "cannot tell which cell it works out")
            return
        i, j = cell_index
        for t, (a, b) in enumerate(cells):  # an input's factor keeps the decimals it is written with
            self.compare(a, "Q", (i, t), q[i, t], digits=0)
            self.compare(b, "K", (j, t), k[j, t], digits=0)
        if (own := TOTAL.search(run.raw)) is not None:
            self.total(own.group(1), run.start + own.start(1), i, j, scores)
            return
        total_run = next(
            (r for r in runs[index + 1 : index + 3] if SUM_LINE.match(r.raw) or TOTAL_LINE.match(r.raw)), None
        )
        if total_run is None:
            return
        if TOTAL_LINE.match(total_run.raw):
            own = TOTAL.search(total_run.raw)
            self.total(own.group(1), total_run.start + own.start(1), i, j, scores)
            return
        terms = [(m.group(1), m.start(1)) for m in SUM_TERM.finditer(total_run.raw)]
        if len(terms) != len(cells) + 1:
            self.uncertain(total_run.start, "Q·K", total_run.text.strip(), "term count differs")
            return
        for t, (written, offset) in enumerate(terms[:-1]):
            cell = Cell(written, total_run.start + offset, total_run.start + offset)
            self.compare(cell, "products", (i, j, t), q[i, t] * k[j, t])
        written, offset = terms[-1]
        self.total(written, total_run.start + offset, i, j, scores)

    def total(self, written: str, start: int, i: int, j: int, scores) -> None:
        """The total of a worked dot product: the score of its cell."""
        if scores is not None:
            self.compare(Cell(written, start, start), "scores", (i, j), scores[i, j])

    def which_cell(self, runs, index, cells, q, k) -> tuple[int, int] | None:
        """The (i, j) a worked dot product is about: its caption, else its factors' values."""

        def fits(i, j):  # (i, j) in range
            return all(
                agrees(a.written, q[i, t], False) and agrees(b.written, k[j, t], False)
                for t, (a, b) in enumerate(cells)
            )

        named = referenced = None
        for previous in reversed(runs[max(0, index - 3) : index]):
            ref = CELL_REF.search(previous.text)
            quoted = [self.tokens.index(t) for t in QUOTED.findall(previous.text) if t in self.tokens]
            if ref:
                referenced = tuple(int(v) for v in (ref.group(2, 3) if ref.group(2) else ref.group(5, 6)))
            if len(quoted) == 2:
                named = tuple(quoted)
            if ref or named:
                break
        candidates = [c for c in (named, referenced) if c]
        if referenced:
            candidates.append((referenced[0] - 1, referenced[1] - 1))  # a 1-based caption
        readings = list(dict.fromkeys(c for c in candidates if 0 <= c[0] < len(q) and 0 <= c[1] < len(k)))
        for candidate in readings:
            if fits(*candidate):
                return candidate
        if candidates:
            # a factor is wrong: the reading of the caption its other factors agree with, when one
            # stands out (a single slip leaves all but one), else the caption's only reading in range
            def agreeing(c):
                return sum(
                    int(agrees(a.written, q[c[0], t], False)) + int(agrees(b.written, k[c[1], t], False))
                    for t, (a, b) in enumerate(cells)
                )

            ranked = sorted(readings, key=agreeing, reverse=True)
            if ranked and agreeing(ranked[0]) >= 2 * len(cells) - 1:
                if len(ranked) == 1 or agreeing(ranked[1]) < agreeing(ranked[0]):
                    return ranked[0]
            return ranked[0] if len(ranked) == 1 else None
        found = [(i, j) for i in range(len(q)) for j in range(len(k)) if fits(i, j)]
        return found[0] if len(found) == 1 else None


def check_handdrawn(
    svg: str | SvgText, quantities: dict, *, digits: int, tokens: list[str], skip: frozenset = frozenset()
) -> HandDrawnReport:
    """Find the drawing's numbers, report wrong and uncertain ones, and rewrite the wrong ones.

    Matrices named one of `skip` are left alone (a quantity the drawing's inputs do not settle)."""
    model = read_svg(svg) if isinstance(svg, str) else svg
    if model is None:
        return HandDrawnReport([], 0, svg)
    checker = Checker(model, quantities, digits, tokens, skip)
    matrices = find_matrices(model)
    candidates = caption_runs(model, matrices)
    for matrix, naming in zip(matrices, name_matrices(model, matrices, candidates, checker.quantities)):
        checker.matrix(matrix, naming.name, naming.said, naming.transposed)
    runs = [r for r in model.runs if r.text.strip()]
    for index, run in enumerate(runs):
        if PRODUCTS_LINE.match(run.raw):
            checker.worked(runs, index)
    return HandDrawnReport(sorted(checker.findings, key=lambda f: (f.line, f.col)), checker.checked, checker.apply())
