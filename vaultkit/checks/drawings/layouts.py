"""Layout readers: the matrices a drawing shows, in the ways people draw them.

Each reader looks at the text runs of `svgtext.read_svg` (placed in user units after every
transform, with the middle of their glyphs after `text-anchor`) and knows nothing of what a
matrix means; naming it (Q, scores, weights, …) is `handdrawn`'s job. The readers, in order:

- `numeric_rows`: a run that is a row of numbers — bracketed `[ 0.35 -0.18 ]` with a label
  beside it (`← "我"的 Q`, `"我"`), or bare `我  0.9 0.3 0.1` (one `<text>` or `<tspan>` a row),
  or a whole matrix in one run (`[[1, 0], [0, 1]]`, `[1 0; 0 1]`, `[1 0] [0 1]`); rows stack
  into a matrix where they follow each other down the page at one x;
- `cell_grid`: one number per `<text>` or `<tspan>`, clustered into rows and columns.

Nothing is asked to be pixel-aligned: positions are clustered with a tolerance relative to the
font size and the spacing of the cells, so jitter of a few pixels and a small `rotate()` per
number do not matter. Rows stack into one block a few font sizes apart, or as far apart as
its columns (a grid), or where the cell boxes drawn round the numbers touch, however tall.
A grid's column headers (one text over each column) and row headers are kept with it. Matrices are told apart by the gaps between blocks, by a frame (a
`<rect>` around a block) or a `<g>` that holds a block, and by anything drawn between them:
a label, a bracket, an `=` or `×`, a line. A pin (`data-vk` on an ancestor) keeps its numbers
apart from every other.

A run claimed by one reader is not read by the next one; numbers left over are `loose`.
"""

from __future__ import annotations

import bisect
import math
import re
import statistics
from dataclasses import dataclass, field
from functools import cached_property

from vaultkit.readers.svgtext import Card, SvgText, TextRun

NUMBER = r"[-−]?(?:\d+(?:\.\d*)?|\.\d+)"
MASK = r"-?inf|[-−]∞|×|—|-(?=[\s,\]]|$)"
CELL = re.compile(rf"(?P<mask>{MASK})|(?P<num>{NUMBER})")
BRACKETED = re.compile(r"\[([^\[\]]*)\]")
ROW_BODY = re.compile(rf"\s*(?:(?:{MASK}|{NUMBER})\s*,?\s*)+")
LABEL = r"[^\d\s\[\](){}=+×*/·÷→←:：-][^\d\[\](){}=+×*/·÷→←]{0,11}?"  # a short word: a token, a name
BARE_ROW = re.compile(
    rf"^\s*(?P<label>{LABEL}\s+)?"
    rf"(?P<body>(?:{NUMBER})(?:\s*,\s*|\s+)(?:(?:{NUMBER}|{MASK})(?:\s*,\s*|\s+))*(?:{NUMBER}|{MASK}))\s*$"
)
SINGLE = re.compile(rf"\s*(?:{MASK}|{NUMBER})\s*")
ROW_STEP = 3.0  # the second row of a matrix is at most this many font sizes below the first
STEP_GROWTH = 1.6  # a row this much further down than the closest step so far starts another block
COLUMN_GAP = 1.4  # a gap this much wider than the line's narrowest (and clearly its widest) splits it
ROW_TOLERANCE = 0.5  # font sizes: numbers whose middles are this close in y are on one line
COLUMN_TOLERANCE = 0.6  # font sizes: columns line up this closely (at least; more with wide spacing)
CELL_REACH = (12.0, 10.0)  # font sizes: the widest and tallest box taken for a number's own cell
MAX_DEPTH = 256  # elements nested deeper than this: the drawing is not read as a layout
MAX_NUMBERS = 200_000  # numbers in one drawing beyond which its layout is not read
WIDE = 64  # buckets: a box over more of them is kept apart, looked at by every query


class Space:
    """Items bucketed by their boxes on a grid, so what stands near a box is found without
    looking at every item of the drawing (reading stays linear in its size)."""

    def __init__(self, items, box, step: float):
        self.step = step if math.isfinite(step) and step > 0 else 1.0
        self.items = []
        self.buckets: dict[tuple[int, int], list] = {}
        self.wide: list = []
        for item in items:
            left, top, right, bottom = box(item)
            if not all(math.isfinite(v) for v in (left, top, right, bottom)):
                continue
            self.items.append(item)
            span = self._span(left, top, right, bottom)
            if span is None:
                self.wide.append(item)
                continue
            for key in span:
                self.buckets.setdefault(key, []).append(item)

    def _span(self, left, top, right, bottom):
        x0, x1 = math.floor(left / self.step), math.floor(right / self.step)
        y0, y1 = math.floor(top / self.step), math.floor(bottom / self.step)
        if (x1 - x0 + 1) * (y1 - y0 + 1) > WIDE:
            return None
        return [(bx, by) for bx in range(x0, x1 + 1) for by in range(y0, y1 + 1)]

    def near(self, left: float, top: float, right: float, bottom: float) -> list:
        """Every item whose box may meet this one (and some that do not: test them)."""
        span = self._span(left, top, right, bottom) if all(map(math.isfinite, (left, top, right, bottom))) else None
        if span is None:
            return self.items
        found, seen = list(self.wide), set()
        for key in span:
            for item in self.buckets.get(key, ()):
                if id(item) not in seen:
                    seen.add(id(item))
                    found.append(item)
        return found


@dataclass
class Cell:
    written: str
    start: int  # offset of the number in the file
    field_start: int  # offset where its padding starts (the space-aligned slot)
    x: float = math.nan  # the middle of the number in user units
    y: float = math.nan
    half: float = 0.0  # half its width
    run: TextRun | None = None  # the run it is written in


@dataclass
class Matrix:
    """Rows of written cells, where the first one is, and what is written beside each row."""

    rows: list[list[Cell]]
    runs: list[TextRun]  # the run of each row (of its first cell in a grid)
    pin: str | None
    container: tuple  # (group, frame) that hold this matrix and no other: where a caption may be
    labels: list[str] = field(default_factory=list)  # text beside each row
    frame: Card | None = None  # the rect drawn around it alone
    transposed: bool = False  # drawn as Kᵀ by its place (the textbook layout)
    inline: bool = False  # written whole in one run: `Q = [[1, 0], [0, 1]]`
    heads: list[TextRun] = field(default_factory=list)  # a header over each column (a grid's key tokens)
    corner: tuple[float, float] | None = None  # the top left of a table with headers, over them

    @property
    def x(self) -> float:
        return self.runs[0].x

    @property
    def y(self) -> float:
        return self.runs[0].y

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    @cached_property
    def size(self) -> float:
        sizes = [r.size for r in self.runs if math.isfinite(r.size) and r.size > 0]
        return statistics.median(sizes) if sizes else 16.0

    def cells(self) -> list[Cell]:
        return [c for row in self.rows for c in row]

    @cached_property
    def top(self) -> float:
        return min(c.y for c in self.rows[0]) - 0.5 * self.size

    @cached_property
    def bottom(self) -> float:
        return max(c.y for c in self.rows[-1]) + 0.5 * self.size

    @cached_property
    def left(self) -> float:
        return min(c.x - c.half for c in self.cells())

    @cached_property
    def right(self) -> float:
        return max(c.x + c.half for c in self.cells())

    def row_ys(self) -> list[float]:
        return [statistics.fmean(c.y for c in row) for row in self.rows]

    def column_xs(self) -> list[float]:
        return [statistics.fmean(row[j].x for row in self.rows) for j in range(self.shape[1])]

    def holds(self, x: float, y: float, margin: float = 0.0) -> bool:
        return self.left - margin <= x <= self.right + margin and self.top - margin <= y <= self.bottom + margin


@dataclass
class Layout:
    """What the readers found: the matrices, and the numbers that are in none of them."""

    matrices: list[Matrix]
    loose: list[TextRun]  # single numbers (and rows of numbers) not placed in a matrix
    unequal: list[tuple[str | None, list[int]]] = field(
        default_factory=list
    )  # (pin, row lengths) of blocks that are not rectangles
    skipped: str = ""  # why the drawing's layout was not read (too large, too deep), if it was not
    index: dict = field(default_factory=dict, repr=False, compare=False)  # spaces built once by readers


def _placed(run: TextRun) -> bool:
    return all(math.isfinite(v) for v in (run.x, run.y, run.cx, run.cy))


def _cells(text: str, begin: int) -> list[Cell]:
    """The cells of a row body starting at file offset `begin`, with their padding."""
    cells, last = [], 0
    for cell in CELL.finditer(text):
        gap = text[last : cell.start()]
        pad = len(gap) - len(gap.rstrip(" "))
        cells.append(Cell(cell.group(), begin + cell.start(), begin + cell.start() - pad))
        last = cell.end()
    return cells


def _place(cells: list[Cell], run: TextRun) -> list[Cell]:
    """Where each cell of a row written in one run stands: along the run, by its characters."""
    text = run.raw
    lead = len(text) - len(text.lstrip())
    length = max(len(text.strip()), 1)
    for cell in cells:
        offset = cell.start - run.start - lead
        middle = (offset + len(cell.written) / 2) / length
        cell.x = run.left + middle * run.width if math.isfinite(run.left) else math.nan
        cell.y = run.cy
        cell.half = run.width * len(cell.written) / length / 2
        cell.run = run
    return cells


def _row_groups(raw: str) -> list[tuple[int, str]]:
    """(offset, body) of each bracketed group of numbers in a run, not an index like `S[1][2]`."""
    found, index = [], False
    for match in BRACKETED.finditer(raw):
        body = match.group(1)
        before = raw[match.start() - 1] if match.start() else ""
        index = bool(re.match(r"\w", before)) or (before == "]" and index)
        if (
            index
            or not body.strip()
            or not re.search(r"\d", body)
            or not all(ROW_BODY.fullmatch(part) for part in body.split(";"))
        ):
            continue
        found.append((match.start(1), body))
    return found


def parse_row(run: TextRun) -> tuple[list[Cell], str] | None:
    """The cells of a numeric row in a run, and the text written beside it."""
    raw = run.raw
    groups = _row_groups(raw)
    if groups and ";" not in groups[0][1]:
        offset, body = groups[0]
        label = (raw[: offset - 1] + " " + raw[offset + len(body) + 1 :]).strip()
        return _cells(body, run.start + offset), label
    bare = BARE_ROW.match(raw)
    if bare and "[" not in raw:
        return _cells(bare.group("body"), run.start + bare.start("body")), (bare.group("label") or "").strip()
    return None


def parse_rows(run: TextRun) -> tuple[list[list[Cell]], str] | None:
    """A whole matrix written in one run: `[[1, 0], [0, 1]]`, `[1 0] [0 1]` or `[1 0; 0 1]`."""
    raw = run.raw
    rows: list[list[Cell]] = []
    groups = _row_groups(raw)
    if len(groups) == 1 and ";" in groups[0][1]:
        offset, body = groups[0]
        at = 0
        for part in body.split(";"):
            rows.append(_cells(part, run.start + offset + at))
            at += len(part) + 1
    elif len(groups) >= 2:
        rows = [_cells(body, run.start + offset) for offset, body in groups]
    if len(rows) < 2 or any(len(r) != len(rows[0]) for r in rows) or len(rows[0]) < 2:
        return None
    first, last = groups[0][0], groups[-1][0] + len(groups[-1][1])
    label = (raw[:first].rstrip("[ ") + " " + raw[last:].lstrip("] ")).strip()
    return rows, label


# --- what holds a block: frames and groups that hold it and no other --------------------------


def frames(model: SvgText) -> list[Card]:
    """What may frame a block: rects, and shapes drawn round an area (a closed path, a polygon,
    a hand-drawn rough rectangle of curves)."""
    return model.cards + [s for s in model.strokes if s.closed]


def _holders(model: SvgText, items: list[tuple[TextRun, float, float]], least: int):
    """For each item (run, x, y): its frame (the smallest frame around it that holds a block:
    `least` items on two lines or more) and its group (the innermost `<g>` that holds one)."""
    lines = _line_ids([x for _, x, _ in items], [y for _, _, y in items], [r.size for r, _, _ in items])
    step = 4 * statistics.median([r.size for r, _, _ in items]) if items else 1.0
    points = Space(range(len(items)), lambda i: (items[i][1], items[i][2], items[i][1], items[i][2]), step)
    frame_of: list[Card | None] = [None] * len(items)
    for card in frames(model):
        inside = [i for i in points.near(card.x, card.y, card.x + card.w, card.y + card.h) if card.holds(*items[i][1:])]
        if len(inside) < least or len({lines[i] for i in inside}) < 2:
            continue
        for i in inside:
            if frame_of[i] is None or card.area < frame_of[i].area:
                frame_of[i] = card
    members: dict[int, list[int]] = {}
    for i, (run, _, _) in enumerate(items):
        for g in run.groups():
            members.setdefault(g, []).append(i)
    blocks = {g for g, idx in members.items() if len(idx) >= least and len({lines[i] for i in idx}) >= 2}
    group_of = []
    for run, _, _ in items:
        inner = [g for g in run.groups() if g in blocks]
        group_of.append(inner[-1] if inner else None)
    return frame_of, group_of


def _line_ids(xs: list[float], ys: list[float], sizes: list[float], bases: list[float] | None = None) -> list[int]:
    """Cluster positions into lines: each one joins the nearest one to its right that is level
    with it (within the tolerance) by its middle or by its baseline (`bases`: a number turned
    about its anchor keeps its baseline, one turned about its middle its middle). A line may
    drift (a tilted block); it never jumps a row."""
    bases = bases if bases is not None else ys
    n = len(xs)
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(n), key=lambda i: xs[i])
    rank = {i: at for at, i in enumerate(order)}
    step = ROW_TOLERANCE * max((v for v in sizes if math.isfinite(v)), default=1.0) or 1.0
    bands: dict[int, list[int]] = {}  # items by the band of their middle and of their baseline
    order = [i for i in order if math.isfinite(ys[i]) and math.isfinite(bases[i])]
    for i in order:
        for band in {math.floor(ys[i] / step), math.floor(bases[i] / step)}:
            bands.setdefault(band, []).append(i)
    lefts = {band: [xs[i] for i in members] for band, members in bands.items()}
    for a in order:
        best, best_dx = None, math.inf
        near = {math.floor(v / step) + d for v in (ys[a], bases[a]) for d in (-1, 0, 1)}
        for band in near:
            members = bands.get(band, ())
            for b in members[bisect.bisect_left(lefts.get(band, ()), xs[a]) :]:
                dx = xs[b] - xs[a]
                if dx > best_dx or (dx == best_dx and rank[b] > rank[best]):
                    break
                if rank[b] <= rank[a]:
                    continue
                tol = ROW_TOLERANCE * max(sizes[a], sizes[b], 1e-9)
                if abs(ys[b] - ys[a]) <= tol or abs(bases[b] - bases[a]) <= tol:
                    best, best_dx = b, dx
        if best is not None:
            parent[root(best)] = root(a)
    roots = {}
    return [roots.setdefault(root(i), len(roots)) for i in range(n)]


# --- what stands between two cells or two rows -------------------------------------------------


class _Between:
    """Texts and strokes that are not numbers of a block: a label, `=`, a bracket, a line."""

    def __init__(self, model: SvgText, others: list[TextRun]):
        texts = [r for r in others if r.text.strip() and _placed(r)]
        step = 4 * statistics.median([r.size for r in texts] or [16.0])
        self.texts = Space(texts, lambda r: (r.left, r.cy - r.size, r.right, r.cy + r.size), step)
        self.strokes = Space(model.strokes, lambda c: (c.x, c.y, c.x + c.w, c.y + c.h), step)

    def across(self, a: Cell, b: Cell, size: float) -> bool:
        """Something stands between two cells of one line, a left of b."""
        low, high = a.x + a.half, b.x - b.half
        y = (a.y + b.y) / 2
        for r in self.texts.near(low - size, y - size, high + size, y + size):
            if low - 0.1 * size < r.cx < high + 0.1 * size and abs(r.cy - y) < 0.5 * r.size + 0.3 * size:
                return True
        for s in self.strokes.near(low, y - size, high, y + size):
            if (
                s.w < 0.8 * size
                and s.h >= 0.8 * size
                and low < s.x + s.w / 2 < high
                and s.y - 0.3 * size <= y <= s.y + s.h + 0.3 * size
            ):
                return True
        return False

    def down(self, upper: list[Cell], lower: list[Cell], size: float) -> bool:
        """Something stands between two lines of cells, upper above lower, over their columns."""
        left = min(c.x - c.half for c in upper + lower)
        right = max(c.x + c.half for c in upper + lower)
        top = max(c.y for c in upper) + 0.3 * size
        bottom = min(c.y for c in lower) - 0.3 * size
        for r in self.texts.near(left, top, right, bottom):
            if top < r.cy < bottom and any(r.left < c.x < r.right for c in upper + lower):
                return True  # over a column (a label beside the block may reach its edge)
        for s in self.strokes.near(left, top, right, bottom):
            if (
                s.h < 0.5 * size
                and s.w >= 0.3 * (right - left)
                and top < s.y + s.h / 2 < bottom
                and s.x < right
                and s.x + s.w > left
            ):
                return True
        return False


# --- stacking lines into blocks ----------------------------------------------------------------


@dataclass
class _Line:
    cells: list[Cell]
    runs: list[TextRun]
    size: float
    key: tuple  # (pin, frame id, group): lines of one block share it
    label: str = ""
    boxes: list[Card] | None = None  # the cell box of each number, when every one has its own

    @cached_property
    def y(self) -> float:
        return statistics.fmean(c.y for c in self.cells)

    @cached_property
    def column_step(self) -> float:
        """The narrowest step between its columns, for a line of three numbers or more (0 else)."""
        xs = sorted(c.x for c in self.cells)
        return min(b - a for a, b in zip(xs, xs[1:])) if len(xs) >= 3 else 0.0


def _space_down(upper: _Line, lower: _Line) -> float | None:
    """How far the cell boxes of a line stand below those of the line above (None: not boxed)."""
    if upper.boxes is None or lower.boxes is None:
        return None
    return statistics.median(b.y - (a.y + a.h) for a, b in zip(upper.boxes, lower.boxes))


def _aligned(a: list[Cell], b: list[Cell], size: float) -> bool:
    """Two lines of cells whose columns line up (by middles, left or right edges)."""
    if len(a) != len(b):
        return False
    steps = [q.x - p.x for p, q in zip(a, a[1:])] + [q.x - p.x for p, q in zip(b, b[1:])]
    spacing = min(steps) if steps else math.inf
    tol = min(max(COLUMN_TOLERANCE * size, 0.25 * spacing), 0.45 * spacing) if steps else COLUMN_TOLERANCE * size
    return all(
        abs(p.x - q.x) <= tol
        or abs((p.x - p.half) - (q.x - q.half)) <= tol
        or abs((p.x + p.half) - (q.x + q.half)) <= tol
        for p, q in zip(a, b)
    )


def _stack(lines: list[_Line], between: _Between, obstacles: list[_Line] = ()) -> list[list[_Line]]:
    """Lines (any order) stacked top to bottom into blocks: same key and width, columns lined up,
    an even step, nothing drawn between (no text, no line, no other numbers: `obstacles`)."""
    blocks: list[list[_Line]] = []
    step_of: dict[int, float] = {}  # the smallest step of each block so far (by id)
    space_of: dict[int, float] = {}  # the space between the cell boxes of its first two lines
    open_blocks: dict[tuple, list[list[_Line]]] = {}  # blocks that may still grow, by key and width
    sizes = [ln.size for ln in lines if math.isfinite(ln.size)]
    reach = (STEP_GROWTH * ROW_STEP + ROW_TOLERANCE) * max(sizes, default=16.0)  # no step is longer

    def reach_below(last: _Line) -> float:
        """How far below a line the next row of its block may stand: a grid's rows stand as far
        apart as its columns at most; a boxed table's where its cell boxes touch, however tall."""
        lattice = last.column_step + ROW_TOLERANCE * last.size
        if last.boxes is None:
            return max(reach, lattice)
        return max(reach, lattice, 2 * max(b.h for b in last.boxes) + last.size)

    others = Space(
        obstacles,
        lambda o: (min(c.x for c in o.cells), o.y, max(c.x for c in o.cells), o.y),
        4 * statistics.median(sizes or [16.0]),
    )

    def blocked(upper: _Line, lower: _Line) -> bool:
        left = min(c.x - c.half for c in upper.cells + lower.cells)
        right = max(c.x + c.half for c in upper.cells + lower.cells)
        return any(
            o is not upper and o is not lower and upper.y < o.y < lower.y and any(left < c.x < right for c in o.cells)
            for o in others.near(left, upper.y, right, lower.y)
        )

    for line in sorted(lines, key=lambda ln: (ln.y, ln.cells[0].x)):
        best, best_step = None, math.inf
        group = (line.key, len(line.cells))
        growing = [rows for rows in open_blocks.get(group, ()) if line.y - rows[-1].y <= reach_below(rows[-1])]
        open_blocks[group] = growing
        for rows in growing:
            last = rows[-1]
            if last.cells[-1].x + last.cells[-1].half < line.cells[0].x - line.cells[0].half or (
                line.cells[-1].x + line.cells[-1].half < last.cells[0].x - last.cells[0].half
            ):
                continue  # side by side, not above each other
            same_x = (
                len(last.runs) == len(line.runs) == 1
                and abs(last.runs[0].x - line.runs[0].x) <= COLUMN_TOLERANCE * line.size
            )  # rows at one x
            if not same_x and not _aligned(last.cells, line.cells, line.size):
                continue
            if (last.boxes is None) != (line.boxes is None):
                continue  # numbers in cell boxes and numbers beside a table (its ticks) are apart
            step = line.y - last.y
            shortest = step_of.get(id(rows))
            limit = (
                STEP_GROWTH * shortest + ROW_TOLERANCE * line.size
                if shortest is not None
                else max(ROW_STEP * max(line.size, last.size), min(last.column_step, line.column_step))
            )  # the first step: a few font sizes, or (a grid) no more than its columns' step
            space = _space_down(last, line)
            if space is not None:  # a table's rows touch, or stand as far apart as its first two
                usual = space_of.get(id(rows), 0.0)
                if space > max(usual, 0.0) + 0.5 * line.size:
                    continue
                if shortest is None:
                    limit = max(limit, step)  # tall cells: the boxes say the rows are one table
            if not (ROW_TOLERANCE * line.size < step <= limit + 1e-9) or step >= best_step:
                continue
            if between.down(last.cells, line.cells, line.size) or blocked(last, line):
                continue
            best, best_step = rows, step
        if best is None:
            blocks.append([line])
            growing.append(blocks[-1])
        else:
            step_of[id(best)] = min(step_of.get(id(best), math.inf), line.y - best[-1].y)
            if len(best) == 1 and (space := _space_down(best[-1], line)) is not None:
                space_of[id(best)] = space
            best.append(line)
    return blocks


# --- the readers -------------------------------------------------------------------------------


def numeric_rows(model: SvgText, claimed: set[int], between: _Between | None = None) -> list[Matrix]:
    """Rows of numbers, stacked into matrices where they follow each other down the page."""
    matrices: list[Matrix] = []
    units: list[tuple[TextRun, list[Cell], str]] = []
    for run in model.runs:
        if not run.text.strip() or not math.isfinite(run.y):
            continue
        whole = parse_rows(run)
        if whole:
            rows, label = whole
            for row in rows:
                _place(row, run)
            matrices.append(
                Matrix(rows, [run] * len(rows), run.pin(), (None, None), [label] + [""] * (len(rows) - 1), inline=True)
            )
            claimed.add(id(run))
            continue
        parsed = parse_row(run)
        if parsed and len(parsed[0]) >= 2:
            cells, label = parsed
            units.append((run, _place(cells, run), label))
            claimed.add(id(run))
    if not units:
        return matrices
    placed = [(run, run.cx, run.cy) for run, _, _ in units]
    frame_of, group_of = _holders(model, placed, 2)
    between = between or _Between(model, [r for r in model.runs if id(r) not in claimed])
    lines = []
    for (run, cells, label), frame, group in zip(units, frame_of, group_of):
        key = (run.pin(), id(frame) if frame else None, group)
        lines.append(_Line(cells, [run], run.size, key, label))
    by_id = {id(f): f for f in frame_of if f is not None}
    for block in _stack(lines, between):
        key = block[0].key
        matrices.append(
            Matrix(
                [ln.cells for ln in block],
                [ln.runs[0] for ln in block],
                key[0],
                (key[2], key[1]),
                [ln.label for ln in block],
                by_id.get(key[1]),
            )
        )
    return matrices


def _split_line(
    cells: list[Cell], keys: list[tuple], size: float, between: _Between, boxes: dict | None = None
) -> list[tuple[list[Cell], tuple]]:
    """A line of cells sorted by x, split where the key changes or something stands between two
    cells, where numbers in cell boxes meet numbers in none (a table's tick labels beside it),
    where the cell boxes drawn round the numbers stop touching (a gap between two tables),
    then at its widest gap while that gap is much wider than the rest (each part judged by its
    own spacing: a tight Q beside a wider Scores)."""
    boxes = boxes or {}

    def by_boxes(seq: list[int]) -> list[list[int]]:
        """Where every number has its own cell box: split where the space between two boxes is
        clearly wider than between the others (cells of a table touch or stand evenly apart)."""
        edges = [boxes[id(cells[i])] for i in seq]
        spaces = [b.x - (a.x + a.w) for a, b in zip(edges, edges[1:])]
        parts, begin = [], 0
        for k, space in enumerate(spaces):
            rest = sorted(spaces[:k] + spaces[k + 1 :])
            usual = max(rest[len(rest) // 2] if rest else 0.0, 0.0)
            if space > 0.5 * size and space > 3 * usual + 0.3 * size:
                parts.append(seq[begin : k + 1])
                begin = k + 1
        return parts + [seq[begin:]]

    def split(seq: list[int]) -> list[list[int]]:
        if len(seq) < 2:
            return [seq]
        pairs = list(zip(seq, seq[1:]))
        gaps = [at[b] - at[a] for a, b in pairs]
        spaces = [(cells[b].x - cells[b].half) - (cells[a].x + cells[a].half) for a, b in pairs]
        k = max(range(len(gaps)), key=lambda n: gaps[n])
        rest = [g for n, g in enumerate(gaps) if n != k and g > 0.5 * size]
        others = [sp for n, sp in enumerate(spaces) if n != k]
        if not rest:
            return [seq]
        narrow, usual = min(rest), statistics.median_low(others)
        wide = (
            gaps[k] > COLUMN_GAP * narrow
            and gaps[k] > 1.25 * statistics.median_low(rest)
            and gaps[k] - narrow > 0.8 * size
        ) or (
            spaces[k] > 2.5 * max(usual, 0.2 * size)
            and spaces[k] > 1.5 * max(others)
            and spaces[k] > size
            and gaps[k] > 1.2 * statistics.median_low(rest)
        )
        return split(seq[: k + 1]) + split(seq[k + 1 :]) if wide else [seq]

    anchors = {c.run.anchor() if c.run is not None else "?" for c in cells}
    # people space columns by the point they place each number at: its anchor, when all share one
    at = [c.run.x if len(anchors) == 1 and c.run is not None and math.isfinite(c.run.x) else c.x for c in cells]
    order = sorted(range(len(cells)), key=lambda i: cells[i].x)
    segments, begin = [], 0
    tabled = sum(id(c) in boxes for c in cells) >= 2  # numbers in cell boxes: a table's, not a tick's
    for k in range(1, len(order) + 1):  # first where the key changes or something stands between
        a, b = (order[k - 1], order[k]) if k < len(order) else (None, None)
        if (
            b is None
            or keys[a] != keys[b]
            or (tabled and (id(cells[a]) in boxes) != (id(cells[b]) in boxes))
            or between.across(cells[a], cells[b], size)
        ):
            segments.append(order[begin:k])
            begin = k
    found = []
    for seg in segments:
        if len(seg) >= 3 and all(id(cells[i]) in boxes for i in seg):
            found += by_boxes(seg)  # the cell boxes say where a table ends: the gaps are not asked
        else:
            found += split(seg)
    return [([cells[i] for i in seg], keys[seg[0]]) for seg in found]


def _cell_boxes(model: SvgText, nodes: list[Cell]) -> dict[int, Card]:
    """The box drawn round each number alone (a table's cell: a rect, a closed path, a rough
    hand-drawn rectangle), by the cell's id: the smallest frame that holds its middle and no
    other number, and is about as tall as a line."""
    if not nodes:
        return {}
    step = 4 * statistics.median(c.run.size for c in nodes)
    points = Space(nodes, lambda c: (c.x, c.y, c.x, c.y), step)
    found: dict[int, Card] = {}
    for card in frames(model):
        size = None
        inside = []
        for cell in points.near(card.x, card.y, card.x + card.w, card.y + card.h):
            if card.holds(cell.x, cell.y):
                inside.append(cell)
                if len(inside) > 1:
                    break
        if len(inside) != 1:
            continue
        cell = inside[0]
        size = cell.run.size
        wide, tall = CELL_REACH
        if not (2 * cell.half * 0.9 <= card.w <= wide * size and 0.8 * size <= card.h <= tall * size):
            continue
        if id(cell) not in found or card.area < found[id(cell)].area:
            found[id(cell)] = card
    return found


def cell_grid(model: SvgText, claimed: set[int], unequal: list | None = None) -> list[Matrix]:
    """One number per run, clustered into lines and columns."""
    nodes: list[Cell] = []
    for run in model.runs:
        if id(run) in claimed or not SINGLE.fullmatch(run.raw) or not re.search(r"\d|∞|×", run.raw):
            continue
        if not _placed(run):
            continue  # a table cell needs a place
        lead = len(run.raw) - len(run.raw.lstrip())
        nodes.append(Cell(run.raw.strip(), run.start + lead, run.start + lead, run.cx, run.cy, run.width / 2, run))
    if not nodes:
        return []
    frame_of, group_of = _holders(model, [(c.run, c.x, c.y) for c in nodes], 3)
    keys = [(c.run.pin(), id(f) if f else None, g) for c, f, g in zip(nodes, frame_of, group_of)]
    frames = {id(f): f for f in frame_of if f is not None}
    node_ids = {id(c.run) for c in nodes}
    between = _Between(model, [r for r in model.runs if id(r) not in claimed and id(r) not in node_ids])
    boxes = _cell_boxes(model, nodes)
    matrices = []
    pins: dict = {}
    for i, cell in enumerate(nodes):
        pins.setdefault(keys[i][0], []).append(i)
    for pin, members in pins.items():
        ids = _line_ids(
            [nodes[i].x for i in members],
            [nodes[i].y for i in members],
            [nodes[i].run.size for i in members],
            [nodes[i].run.y for i in members],
        )
        by_line: dict[int, list[int]] = {}
        for i, line in zip(members, ids):
            by_line.setdefault(line, []).append(i)
        lines = []
        for idx in by_line.values():
            size = statistics.median(nodes[i].run.size for i in idx)
            if pin is not None:  # a pin settles what it names: its numbers are one block
                segments = [(sorted((nodes[i] for i in idx), key=lambda c: c.x), keys[idx[0]][:1] + (None, None))]
            else:
                segments = _split_line([nodes[i] for i in idx], [keys[i] for i in idx], size, between, boxes)
            for seg, key in segments:
                boxed = [boxes[id(c)] for c in seg if id(c) in boxes]
                lines.append(
                    _Line(seg, [c.run for c in seg], size, key, boxes=boxed if len(boxed) == len(seg) else None)
                )
        if pin is not None:
            lines.sort(key=lambda ln: ln.y)
            if (
                len(lines) >= 2
                and all(len(ln.cells) == len(lines[0].cells) for ln in lines)
                and len(lines[0].cells) >= 2
            ):
                blocks = [lines]
            else:
                if unequal is not None and lines:
                    unequal.append((pin, [len(ln.cells) for ln in lines]))
                blocks = []
        else:
            blocks = _stack([ln for ln in lines if len(ln.cells) >= 2], between, lines)
        for block in blocks:
            if len(block) >= 2 and len(block[0].cells) >= 2:  # lone numbers are not a matrix
                key = block[0].key
                matrices.append(
                    Matrix(
                        [ln.cells for ln in block],
                        [ln.cells[0].run for ln in block],
                        pin,
                        (key[2], key[1]),
                        [""] * len(block),
                        frames.get(key[1]),
                    )
                )
                claimed.update(id(c.run) for ln in block for c in ln.cells)
    return matrices


def _row_labels(matrix: Matrix, texts: Space) -> list[TextRun | None]:
    """The text just left of each row of a grid: the token of the row (`我`, `a`)."""
    labels = []
    size = matrix.size
    for row in matrix.rows:
        first = min(row, key=lambda c: c.x)
        edge = first.x - first.half
        left = [
            r
            for r in texts.near(edge - 3 * size, first.y - size, edge, first.y + size)
            if abs(r.cy - first.y) < ROW_TOLERANCE * size and r.right <= edge + 0.2 * size and edge - r.right < 3 * size
        ]
        labels.append(max(left, key=lambda r: r.right) if left else None)
    return labels


def _column_heads(matrix: Matrix, texts: Space) -> list[TextRun]:
    """A text over each column of a grid, on one line above its first row (no further than a
    row), each centred on its column (a weight grid's key tokens); [] unless every column has one."""
    size = matrix.size
    xs = matrix.column_xs()
    spacing = min((b - a for a, b in zip(xs, xs[1:])), default=size)
    ys = matrix.row_ys()
    reach = max(ROW_STEP * size, 1.2 * min(b - a for a, b in zip(ys, ys[1:])))  # no further than a row
    first = min(c.y for c in matrix.rows[0])
    above = [
        r
        for r in texts.near(matrix.left - size, first - reach, matrix.right + size, first)
        if 0.5 * size < first - r.cy <= reach and r.width <= spacing
    ]
    heads = []
    for x in xs:
        over = [r for r in above if abs(r.cx - x) <= 0.25 * spacing]
        if len(over) != 1:
            return []
        heads.append(over[0])
    if max(r.cy for r in heads) - min(r.cy for r in heads) > ROW_TOLERANCE * size:
        return []
    return heads


def find_layout(model: SvgText) -> Layout:
    """Every matrix the drawing shows, by the readers in order, and the numbers left over
    (read once per model)."""
    if "layout" not in model.cache:
        model.cache["layout"] = _find_layout(model)
    return model.cache["layout"]


def too_large(model: SvgText) -> str:
    """Why a drawing is past what its layout is read for ("" when it is not)."""
    if model.depth > MAX_DEPTH:
        return f"its elements are nested {model.depth} deep (a layout is read to {MAX_DEPTH})"
    numbers = sum(1 for r in model.runs if re.search(r"\d", r.raw))
    if numbers > MAX_NUMBERS:
        return f"it writes {numbers} texts with numbers (a layout is read to {MAX_NUMBERS})"
    return ""


def _find_layout(model: SvgText) -> Layout:
    if skipped := too_large(model):
        return Layout([], [], skipped=skipped)
    claimed: set[int] = set()
    unequal: list = []
    found = numeric_rows(model, claimed)
    grid = cell_grid(model, claimed, unequal)
    if grid:
        texts = [r for r in model.runs if id(r) not in claimed and r.text.strip() and _placed(r)]
        space = Space(texts, lambda r: (r.left, r.cy, r.right, r.cy), 4 * grid[0].size)
    for matrix in grid:
        labels = _row_labels(matrix, space)
        if all(labels):
            matrix.labels = [r.text.strip() for r in labels]
        matrix.heads = _column_heads(matrix, space)
        if matrix.heads:  # a table with headers: its caption stands over them (and its row headers)
            heads = matrix.heads + [r for r in labels if r is not None]
            matrix.corner = (min(r.left for r in heads), min(r.cy - 0.5 * r.size for r in heads))
    found += grid
    loose = [
        r
        for r in model.runs
        if id(r) not in claimed and _placed(r) and SINGLE.fullmatch(r.raw) and re.search(r"\d", r.raw)
    ]
    return Layout(found, loose, unequal)


def find_matrices(model: SvgText) -> list[Matrix]:
    """Every matrix the drawing shows, by the readers in order."""
    return find_layout(model).matrices
