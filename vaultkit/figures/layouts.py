"""Layout readers: the matrices a drawing shows, in the ways people draw them.

Each reader looks at the text runs of `svgtext.read_svg` and knows nothing of what a matrix
means; naming it (Q, scores, weights, …) is `handdrawn`'s job. The readers, in order:

- `numeric_rows`: a run that is a row of numbers — bracketed `[ 0.35 -0.18 ]` with a label
  beside it (`← "我"的 Q`, `"我"`), or bare `我  0.9 0.3 0.1` (one `<text>` or `<tspan>` a row);
  consecutive rows at the same x in the same group or card stack into a matrix;
- `cell_grid`: one number per `<text>` or `<tspan>`, placed in rows (same y) and aligned columns.

A run claimed by the first reader is not read by the next one.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..svgtext import SvgText, TextRun

NUMBER = r"[-−]?(?:\d+(?:\.\d*)?|\.\d+)"
MASK = r"-?inf|[-−]∞|×|—|-(?=[\s,\]]|$)"
CELL = re.compile(rf"(?P<mask>{MASK})|(?P<num>{NUMBER})")
BRACKETED = re.compile(r"\[([^\[\]]*)\]")
ROW_BODY = re.compile(rf"\s*(?:(?:{MASK}|{NUMBER})\s*,?\s*)+")
LABEL = r"[^\d\s\[\](){}=+×*/·÷→←:：-][^\d\[\](){}=+×*/·÷→←]{0,11}?"  # a short word: a token, a name
BARE_ROW = re.compile(rf"^\s*(?P<label>{LABEL}\s+)?"
                      rf"(?P<body>(?:{NUMBER})(?:\s*,\s*|\s+)(?:(?:{NUMBER}|{MASK})(?:\s*,\s*|\s+))*(?:{NUMBER}|{MASK}))\s*$")
SINGLE = re.compile(rf"\s*(?:{MASK}|{NUMBER})\s*")
ROW_STEP = 3.0  # the second row of a matrix is at most this many font sizes below the first
COLUMN_GAP = 1.8  # a gap this much wider than the row's narrowest splits it in two


@dataclass
class Cell:
    written: str
    start: int  # offset of the number in the file
    field_start: int  # offset where its padding starts (the space-aligned slot)


@dataclass
class Matrix:
    """Rows of written cells, where the first one is, and what is written beside each row."""

    rows: list[list[Cell]]
    runs: list[TextRun]  # the run of each row (of its first cell in a grid)
    pin: str | None
    container: tuple  # (innermost <g>, smallest card): where a caption may be
    labels: list[str] = field(default_factory=list)  # text beside each row

    @property
    def x(self) -> float:
        return self.runs[0].x

    @property
    def y(self) -> float:
        return self.runs[0].y

    @property
    def shape(self) -> tuple[int, int]:
        return len(self.rows), len(self.rows[0])


def container(model: SvgText, run: TextRun) -> tuple:
    groups = run.groups()
    card = model.card_of(run.x, run.y)
    return (groups[-1] if groups else None, id(card) if card else None)


def _cells(text: str, begin: int) -> list[Cell]:
    """The cells of a row body starting at file offset `begin`, with their padding."""
    cells, last = [], 0
    for cell in CELL.finditer(text):
        gap = text[last:cell.start()]
        pad = len(gap) - len(gap.rstrip(" "))
        cells.append(Cell(cell.group(), begin + cell.start(), begin + cell.start() - pad))
        last = cell.end()
    return cells


def parse_row(run: TextRun) -> tuple[list[Cell], str] | None:
    """The cells of a numeric row in a run, and the text written beside it."""
    raw = run.raw
    for match in BRACKETED.finditer(raw):
        body = match.group(1)
        if match.start() and re.match(r"[\w\]]", raw[match.start() - 1]):
            continue  # an index such as Scores[1][2], not a row
        if not body.strip() or not ROW_BODY.fullmatch(body) or not re.search(r"\d", body):
            continue
        label = (raw[:match.start()] + " " + raw[match.end():]).strip()
        return _cells(body, run.start + match.start(1)), label
    bare = BARE_ROW.match(raw)
    if bare and "[" not in raw:
        return _cells(bare.group("body"), run.start + bare.start("body")), (bare.group("label") or "").strip()
    return None


def numeric_rows(model: SvgText, claimed: set[int]) -> list[Matrix]:
    """Rows of numbers, stacked into matrices when they follow each other at the same x."""
    matrices: list[Matrix] = []
    previous: TextRun | None = None  # the last non-blank run
    for run in model.runs:
        if not run.text.strip():
            continue
        parsed = parse_row(run) if math.isfinite(run.y) else None
        if parsed and len(parsed[0]) >= 2:
            cells, label = parsed
            last = matrices[-1] if matrices else None
            where = container(model, run)
            if (last and last.runs[-1] is previous and last.pin == run.pin()
                    and last.container == where and abs(last.x - run.x) < 1
                    and len(last.rows[0]) == len(cells) and _next_line(last.runs, run)):
                last.rows.append(cells)
                last.runs.append(run)
                last.labels.append(label)
            else:
                matrices.append(Matrix([cells], [run], run.pin(), where, [label]))
            claimed.add(id(run))
        previous = run
    return matrices


def _next_line(runs: list[TextRun], run: TextRun) -> bool:
    """Just below the last row: at the step of the rows above, or within a few font sizes."""
    step = run.y - runs[-1].y
    limit = (runs[1].y - runs[0].y) * 1.5 if len(runs) > 1 else ROW_STEP * run.font_size
    return 0 < step <= limit


def cell_grid(model: SvgText, claimed: set[int]) -> list[Matrix]:
    """One number per run, in rows of equal y and columns of equal x, per group or card."""
    pools: dict[tuple, list[tuple[TextRun, Cell]]] = {}
    for run in model.runs:
        if id(run) in claimed or not SINGLE.fullmatch(run.raw) or not re.search(r"\d|∞|×", run.raw):
            continue
        if not (math.isfinite(run.x) and math.isfinite(run.y)):
            continue  # a table cell needs a place
        lead = len(run.raw) - len(run.raw.lstrip())
        cell = Cell(run.raw.strip(), run.start + lead, run.start + lead)
        pools.setdefault((run.pin(), container(model, run)), []).append((run, cell))
    matrices = []
    for (pin, where), nodes in pools.items():
        rows: dict[int, list[tuple[TextRun, Cell]]] = {}
        for run, cell in nodes:
            rows.setdefault(round(run.y), []).append((run, cell))
        segments = [seg for _, row in sorted(rows.items()) for seg in _split_row(row)]
        for matrix_rows in _stack(segments):
            if len(matrix_rows) >= 2 and len(matrix_rows[0]) >= 2:  # lone numbers are not a matrix
                matrices.append(Matrix([[c for _, c in r] for r in matrix_rows],
                                       [r[0][0] for r in matrix_rows], pin, where,
                                       [""] * len(matrix_rows)))
                claimed.update(id(run) for r in matrix_rows for run, _ in r)
    return matrices


def _split_row(row: list) -> list[list]:
    """A row of cells sorted by x, split where a gap is much wider than the narrowest one."""
    row = sorted(row, key=lambda rc: rc[0].x)
    gaps = [b[0].x - a[0].x for a, b in zip(row, row[1:])]
    narrow = min((g for g in gaps if g > 0), default=0)
    segments, current = [], [row[0]]
    for gap, item in zip(gaps, row[1:]):
        if narrow and gap > COLUMN_GAP * narrow:
            segments.append(current)
            current = []
        current.append(item)
    segments.append(current)
    return segments


def _stack(segments: list[list]) -> list[list[list]]:
    """Row segments (top to bottom) stacked where their columns line up, at an even step."""
    matrices: list[list[list]] = []
    for segment in segments:
        xs = [run.x for run, _ in segment]
        for rows in matrices:
            last = rows[-1]
            if len(last) == len(segment) and all(abs(a.x - b) < 2 for (a, _), b in zip(last, xs)):
                step = segment[0][0].y - last[0][0].y
                previous = last[0][0].y - rows[-2][0][0].y if len(rows) > 1 else step
                if 0 < step <= previous * 1.5 + 1e-9:
                    rows.append(segment)
                    break
        else:
            matrices.append([segment])
    return matrices


READERS = (numeric_rows, cell_grid)


def find_matrices(model: SvgText) -> list[Matrix]:
    """Every matrix the drawing shows, by the readers in order."""
    claimed: set[int] = set()
    found = []
    for reader in READERS:
        found += reader(model, claimed)
    return found
