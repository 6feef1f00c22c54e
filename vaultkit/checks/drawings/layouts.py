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
number do not matter. Matrices are told apart by the gaps between blocks, by a frame (a
`<rect>` around a block) or a `<g>` that holds a block, and by anything drawn between them:
a label, a bracket, an `=` or `×`, a line. A pin (`data-vk` on an ancestor) keeps its numbers
apart from every other.

A run claimed by one reader is not read by the next one; numbers left over are `loose`.
"""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass, field

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

    @property
    def x(self) -> float:
        return self.runs[0].x

    @property
    def y(self) -> float:
        return self.runs[0].y

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])

    @property
    def size(self) -> float:
        sizes = [r.size for r in self.runs if math.isfinite(r.size) and r.size > 0]
        return statistics.median(sizes) if sizes else 16.0

    def cells(self) -> list[Cell]:
        return [c for row in self.rows for c in row]

    @property
    def top(self) -> float:
        return min(c.y for c in self.rows[0]) - 0.5 * self.size

    @property
    def bottom(self) -> float:
        return max(c.y for c in self.rows[-1]) + 0.5 * self.size

    @property
    def left(self) -> float:
        return min(c.x - c.half for c in self.cells())

    @property
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


def _holders(model: SvgText, items: list[tuple[TextRun, float, float]], least: int):
    """For each item (run, x, y): its frame (the smallest rect around it that holds a block:
    `least` items on two lines or more) and its group (the innermost `<g>` that holds one)."""
    lines = _line_ids([x for _, x, _ in items], [y for _, _, y in items], [r.size for r, _, _ in items])
    frames = []
    for card in model.cards:
        inside = [lines[i] for i, (_, x, y) in enumerate(items) if card.holds(x, y)]
        if len(inside) >= least and len(set(inside)) >= 2:
            frames.append(card)
    frame_of = []
    for _, x, y in items:
        holding = [c for c in frames if c.holds(x, y)]
        frame_of.append(min(holding, key=lambda c: c.area) if holding else None)
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
    for at, a in enumerate(order):
        best, best_dx = None, math.inf
        for b in order[at + 1 :]:
            dx = xs[b] - xs[a]
            if dx >= best_dx:
                break
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
        self.texts = [r for r in others if r.text.strip() and _placed(r)]
        self.strokes = model.strokes

    def across(self, a: Cell, b: Cell, size: float) -> bool:
        """Something stands between two cells of one line, a left of b."""
        low, high = a.x + a.half, b.x - b.half
        y = (a.y + b.y) / 2
        for r in self.texts:
            if low - 0.1 * size < r.cx < high + 0.1 * size and abs(r.cy - y) < 0.5 * r.size + 0.3 * size:
                return True
        for s in self.strokes:
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
        for r in self.texts:
            if top < r.cy < bottom and r.right > left and r.left < right:
                return True
        for s in self.strokes:
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

    @property
    def y(self) -> float:
        return statistics.fmean(c.y for c in self.cells)


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

    def blocked(upper: _Line, lower: _Line) -> bool:
        left = min(c.x - c.half for c in upper.cells + lower.cells)
        right = max(c.x + c.half for c in upper.cells + lower.cells)
        return any(
            o is not upper and o is not lower and upper.y < o.y < lower.y and any(left < c.x < right for c in o.cells)
            for o in obstacles
        )

    for line in sorted(lines, key=lambda ln: (ln.y, ln.cells[0].x)):
        best, best_step = None, math.inf
        for rows in blocks:
            last = rows[-1]
            if last.key != line.key or len(last.cells) != len(line.cells):
                continue
            same_x = (
                len(last.runs) == len(line.runs) == 1
                and abs(last.runs[0].x - line.runs[0].x) <= COLUMN_TOLERANCE * line.size
            )  # rows at one x
            if not same_x and not _aligned(last.cells, line.cells, line.size):
                continue
            step = line.y - last.y
            steps = [b.y - a.y for a, b in zip(rows, rows[1:])]
            limit = (
                STEP_GROWTH * min(steps) + ROW_TOLERANCE * line.size if steps else ROW_STEP * max(line.size, last.size)
            )
            if not (ROW_TOLERANCE * line.size < step <= limit + 1e-9) or step >= best_step:
                continue
            if between.down(last.cells, line.cells, line.size) or blocked(last, line):
                continue
            best, best_step = rows, step
        if best is None:
            blocks.append([line])
        else:
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


def _split_line(cells: list[Cell], keys: list[tuple], size: float, between: _Between) -> list[tuple[list[Cell], tuple]]:
    """A line of cells sorted by x, split where the key changes or something stands between two
    cells, then at its widest gap while that gap is much wider than the rest (each part judged
    by its own spacing: a tight Q beside a wider Scores)."""

    def split(seq: list[int]) -> list[list[int]]:
        if len(seq) < 2:
            return [seq]
        pairs = list(zip(seq, seq[1:]))
        for k, (a, b) in enumerate(pairs):
            if keys[a] != keys[b] or between.across(cells[a], cells[b], size):
                return split(seq[: k + 1]) + split(seq[k + 1 :])
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
    return [([cells[i] for i in seg], keys[seg[0]]) for seg in split(order)]


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
                segments = _split_line([nodes[i] for i in idx], [keys[i] for i in idx], size, between)
            lines += [_Line(seg, [c.run for c in seg], size, key) for seg, key in segments]
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


def _row_labels(model: SvgText, matrix: Matrix, claimed: set[int]) -> list[str]:
    """Text just left of each row of a grid: the token of the row (`我`, `a`)."""
    labels = []
    size = matrix.size
    for row in matrix.rows:
        first = min(row, key=lambda c: c.x)
        left = [
            r
            for r in model.runs
            if id(r) not in claimed
            and r.text.strip()
            and _placed(r)
            and abs(r.cy - first.y) < ROW_TOLERANCE * size
            and r.right <= first.x - first.half + 0.2 * size
            and first.x - first.half - r.right < 3 * size
        ]
        labels.append(max(left, key=lambda r: r.right).text.strip() if left else "")
    return labels


def find_layout(model: SvgText) -> Layout:
    """Every matrix the drawing shows, by the readers in order, and the numbers left over
    (read once per model)."""
    if "layout" not in model.cache:
        model.cache["layout"] = _find_layout(model)
    return model.cache["layout"]


def _find_layout(model: SvgText) -> Layout:
    claimed: set[int] = set()
    unequal: list = []
    found = numeric_rows(model, claimed)
    grid = cell_grid(model, claimed, unequal)
    for matrix in grid:
        labels = _row_labels(model, matrix, claimed)
        if all(labels):
            matrix.labels = labels
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
