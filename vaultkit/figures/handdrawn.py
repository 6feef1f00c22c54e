"""Check and fix the numbers in a hand-drawn SVG without touching anything else.

The drawing is read as raw text so every byte outside the rewritten numbers stays as it was.
What it shows is found in three shapes:

- bracketed rows in one `<text>`: `[ 0.35 -0.18 -0.25  0.15]  "我"`;
- tables of single-number `<text>` nodes, one row per y;
- worked dot products: `(0.1)×(0.4) + …` then `= 0.04 + … = -0.10`, under a caption naming the
  cell (`Scores[1][2]`, or the two tokens).

Consecutive rows at the same x form a matrix; its quantity comes from an explicit
`data-vk="scores"` on the `<text>` or an enclosing `<g>`, else from the caption of the card
(`<rect>`) it sits in, else from its values. A matrix that cannot be matched with certainty is
reported as "uncertain" and never rewritten.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ..numbers import written_matches
from .style import fmt

NUMBER = r"[-−]?(?:\d+(?:\.\d*)?|\.\d+)"
MASK = r"-?inf|[-−]∞|×|—|-(?=[\s,\]]|$)"
CELL = re.compile(rf"(?P<mask>{MASK})|(?P<num>{NUMBER})")
ROW = re.compile(r"\[([^\[\]]*)\]")
ROW_BODY = re.compile(rf"\s*(?:(?:{MASK}|{NUMBER})\s*,?\s*)+")
SINGLE = re.compile(rf"\s*(?:{MASK}|{NUMBER})\s*")
PRODUCT = re.compile(rf"\(?\s*({NUMBER})\s*\)?\s*[×*·]\s*\(?\s*({NUMBER})\s*\)?")
PRODUCTS_LINE = re.compile(rf"^\s*(?:{PRODUCT.pattern}\s*\+\s*)+{PRODUCT.pattern}\s*$")
SUM_TERM = re.compile(rf"\(?\s*({NUMBER})\s*\)?")
SUM_LINE = re.compile(rf"^\s*=\s*(?:\(?\s*{NUMBER}\s*\)?\s*\+\s*)+\(?\s*{NUMBER}\s*\)?\s*=\s*{NUMBER}\s*$")
CELL_REF = re.compile(r"([A-Za-z_]\w*)\s*\[\s*(\d+)\s*\]\s*\[\s*(\d+)\s*\]|([A-Za-z_]\w*)\s*\[\s*(\d+)\s*,\s*(\d+)\s*\]")
QUOTED = re.compile(r"[「“\"']([^」”\"']+)[」”\"']")
TAG = re.compile(
    r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<\?.*?\?>|<![^>]*>"
    r"|<(/?)([\w:.-]+)((?:[^>\"']|\"[^\"]*\"|'[^']*')*?)(/?)>",
    re.S,
)
ATTR = re.compile(r"([\w:.-]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")

# caption keywords, most specific first: the first that matches names the quantity
KEYWORDS = [
    ("weights", re.compile(r"weight|权重|softmax|概率|attn", re.I)),
    ("output", re.compile(r"output|输出|×\s*V\b", re.I)),
    ("masked", re.compile(r"mask|掩码|遮", re.I)),
    ("scaled", re.compile(r"scaled|缩放|除以|÷|/\s*√", re.I)),
    ("scores", re.compile(r"score|分数|Q\s*[×·*]?\s*K", re.I)),
    ("V", re.compile(r"(?<![A-Za-z])V(?![A-Za-z])")),
    ("K", re.compile(r"(?<![A-Za-z])K(?![A-Za-z])")),
    ("Q", re.compile(r"(?<![A-Za-z])Q(?![A-Za-z])")),
]


@dataclass
class FigureFinding:
    line: int
    col: int
    quantity: str
    index: tuple
    written: str
    computed: str
    status: str  # "wrong" | "uncertain"


@dataclass
class HandDrawnReport:
    findings: list[FigureFinding]
    checked: int
    fixed_text: str


@dataclass
class Run:
    """Character data inside a <text>, with where it is and what pins it."""

    text: str
    start: int
    x: float
    y: float
    pin: str | None


@dataclass
class Cell:
    written: str
    start: int  # offset of the number in the file
    field_start: int  # offset where its padding starts (the space-aligned slot)


@dataclass
class Block:
    rows: list[list[Cell]]
    runs: list[Run]
    pin: str | None
    x: float
    y: float
    label: str = ""  # text beside the first row (e.g. `← "我"的 Q`)


@dataclass
class Rect:
    x: float
    y: float
    w: float
    h: float

    def holds(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h


def _float(value: str | None) -> float:
    try:
        return float(value) if value is not None else math.nan
    except ValueError:
        return math.nan


def scan(svg: str) -> tuple[list[Run], list[Rect]]:
    """Text runs (inside <text>) and card rectangles, in document order."""
    runs, rects, stack = [], [], []
    pos = 0
    for tag in TAG.finditer(svg):
        if pos < tag.start() and any(name in ("text", "tspan") for name, _ in stack):
            x = y = math.nan
            pin = None
            for name, attrs in stack:
                if name in ("text", "tspan"):
                    x = _float(attrs.get("x")) if "x" in attrs else x
                    y = _float(attrs.get("y")) if "y" in attrs else y
                pin = attrs.get("data-vk", pin)
            runs.append(Run(svg[pos:tag.start()], pos, x, y, pin))
        pos = tag.end()
        closing, name, attr_text, empty = tag.groups()
        if name is None:
            continue
        if closing:
            while stack and stack.pop()[0] != name:
                pass
            continue
        attrs = {m[1]: m[2] if m[2] is not None else m[3] for m in ATTR.finditer(attr_text)}
        if name == "rect":
            rects.append(Rect(*(_float(attrs.get(k)) for k in ("x", "y", "width", "height"))))
        if not empty:
            stack.append((name, attrs))
    return runs, rects


def bracket_row(run: Run) -> tuple[list[Cell], str] | None:
    """The cells of the first bracketed numeric row in a run, and the text after it."""
    for match in ROW.finditer(run.text):
        body = match.group(1)
        if match.start() and re.match(r"[\w\]]", run.text[match.start() - 1]):
            continue  # an index such as Scores[1][2], not a row
        if not body.strip() or not ROW_BODY.fullmatch(body) or not re.search(r"\d", body):
            continue
        cells, last = [], 0
        for cell in CELL.finditer(body):
            gap = body[last:cell.start()]
            pad = len(gap) - len(gap.rstrip(" "))
            begin = run.start + match.start(1)
            cells.append(Cell(cell.group(), begin + cell.start(), begin + cell.start() - pad))
            last = cell.end()
        return cells, run.text[match.end():]
    return None


def smallest_card(rects: list[Rect], x: float, y: float) -> Rect | None:
    holding = [r for r in rects if r.holds(x, y)]
    return min(holding, key=lambda r: r.w * r.h) if holding else None


def find_blocks(runs: list[Run], rects: list[Rect]) -> list[Block]:
    """Matrices: bracketed rows, and tables of single-number nodes (one per pin and card)."""
    blocks: list[Block] = []
    table: dict[tuple, list[tuple[Run, Cell]]] = {}
    for run in runs:
        parsed = bracket_row(run)
        if parsed:
            cells, label = parsed
            last = blocks[-1] if blocks else None
            if (last and last.x == run.x and last.pin == run.pin and run.y > last.runs[-1].y
                    and len(last.rows[0]) == len(cells) and last.runs[-1] is runs_before(runs, run)):
                last.rows.append(cells)
                last.runs.append(run)
            else:
                blocks.append(Block([cells], [run], run.pin, run.x, run.y, label))
        elif (SINGLE.fullmatch(run.text) and re.search(r"\d|∞|×", run.text)
              and math.isfinite(run.x) and math.isfinite(run.y)):  # a table cell needs a place
            lead = len(run.text) - len(run.text.lstrip())
            value = run.text.strip()
            cell = Cell(value, run.start + lead, run.start + lead)
            card = smallest_card(rects, run.x, run.y)
            table.setdefault((run.pin, id(card)), []).append((run, cell))
    for (pin, _), nodes in table.items():
        by_y: dict[float, list[tuple[Run, Cell]]] = {}
        for run, cell in nodes:
            by_y.setdefault(round(run.y), []).append((run, cell))
        rows = [sorted(r, key=lambda rc: rc[0].x) for _, r in sorted(by_y.items())]
        widths = [len(r) for r in rows]
        common = max(sorted(set(widths)), key=widths.count)
        rows = [r for r in rows if len(r) == common]
        if len(rows) < 2 or common < 2:
            continue  # lone numbers (counts, labels) are not a matrix
        first = rows[0][0][0]
        blocks.append(Block([[c for _, c in r] for r in rows], [r[0][0] for r in rows], pin,
                            first.x, first.y))
    return blocks


def runs_before(runs: list[Run], run: Run) -> Run | None:
    """The numeric-row run just before `run` (captions between rows break a matrix)."""
    index = runs.index(run)
    for previous in reversed(runs[:index]):
        if previous.text.strip():
            return previous
    return None


def caption_of(block: Block, runs: list[Run], rects: list[Rect]) -> str:
    """The nearest text above the block inside the smallest card that holds it."""
    card = smallest_card(rects, block.x, block.y)
    members = {id(r) for r in block.runs}
    above = [r for r in runs if id(r) not in members and r.y < block.y and r.text.strip()
             and (card.holds(r.x, r.y) if card else block.y - r.y < 40)]
    return max(above, key=lambda r: r.y).text if above else ""


def quantity_from_text(text: str, quantities: dict) -> str | None:
    for name, pattern in KEYWORDS:
        if name in quantities and pattern.search(text):
            return name
    return None


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

    def __init__(self, svg: str, quantities: dict, digits: int, tokens: list[str]):
        self.svg = svg
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

    def uncertain(self, offset: int, quantity: str, written: str, why: str) -> None:
        line, col = self.where(offset)
        self.findings.append(FigureFinding(line, col, quantity, (), written, why, "uncertain"))

    def compare(self, cell: Cell, quantity: str, index: tuple, computed: float,
                masked_here: bool = False, minus: str = "-") -> None:
        self.checked += 1
        if agrees(cell.written, computed, masked_here):
            return
        line, col = self.where(cell.start)
        new = styled(computed, cell.written, self.digits, minus)
        self.findings.append(FigureFinding(line, col, quantity, index, cell.written,
                                           fmt(computed, self.digits), "wrong"))
        field = self.svg[cell.field_start:cell.start + len(cell.written)]
        replacement = new.rjust(len(field))
        if field[:1] == " " and replacement[:1] != " ":
            replacement = " " + replacement
        self.edits[cell.field_start] = (cell.start + len(cell.written), replacement)

    def block(self, block: Block, caption: str) -> None:
        first = block.rows[0][0]
        shape = (len(block.rows), len(block.rows[0]))
        name = block.pin or quantity_from_text(caption, self.quantities) \
            or quantity_from_text(block.label, self.quantities)
        has_mask = any(is_mask(c.written) for row in block.rows for c in row)
        if name == "scaled" and has_mask and "masked" in self.quantities:
            name = "masked"
        if name is None:
            name = self.by_values(block, shape)
        if name is None:
            row_text = self.svg[first.start:first.start + 60].split("<")[0]
            self.uncertain(first.start, "?", row_text, "no caption or value match")
            return
        values = self.quantities.get(name)
        if values is None or values.shape != shape:
            got = "missing" if values is None else f"shape {values.shape}"
            self.uncertain(first.start, name, f"{shape[0]}×{shape[1]} numbers", got)
            return
        minus = "−" if any("−" in c.written for row in block.rows for c in row) else "-"
        for i, row in enumerate(block.rows):
            for j, cell in enumerate(row):
                masked_here = name == "weights" and self.mask is not None and \
                    self.mask.shape == shape and bool(self.mask[i, j])
                self.compare(cell, name, (i, j), values[i, j], masked_here, minus)

    def by_values(self, block: Block, shape: tuple) -> str | None:
        """The one quantity of this shape that most of the written cells agree with."""
        scores = {}
        for name, values in self.quantities.items():
            if values.shape == shape:
                cells = [(c, values[i, j]) for i, r in enumerate(block.rows) for j, c in enumerate(r)]
                scores[name] = sum(agrees(c.written, v, False) for c, v in cells) / len(cells)
        ranked = sorted(scores.items(), key=lambda kv: -kv[1])
        if ranked and ranked[0][1] >= 0.5 and (len(ranked) == 1 or ranked[1][1] < ranked[0][1]):
            return ranked[0][0]
        return None

    def worked(self, runs: list[Run], index: int) -> None:
        """A products line `(a)×(b) + …` and the sum line after it."""
        run = runs[index]
        q, k, scores = (self.quantities.get(n) for n in ("Q", "K", "scores"))
        cells = [(Cell(m.group(1), run.start + m.start(1), run.start + m.start(1)),
                  Cell(m.group(2), run.start + m.start(2), run.start + m.start(2)))
                 for m in PRODUCT.finditer(run.text)]
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
        total_run = next((r for r in runs[index + 1:index + 3] if SUM_LINE.match(r.text)), None)
        if total_run is None:
            return
        terms = [(m.group(1), m.start(1)) for m in SUM_TERM.finditer(total_run.text)]
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


def check_handdrawn(svg_text: str, quantities: dict, *, digits: int,
                    tokens: list[str]) -> HandDrawnReport:
    """Find the drawing's numbers, report wrong and uncertain ones, and rewrite the wrong ones."""
    runs, rects = scan(svg_text)
    checker = Checker(svg_text, quantities, digits, tokens)
    for block in find_blocks(runs, rects):
        checker.block(block, caption_of(block, runs, rects))
    for index, run in enumerate(runs):
        if PRODUCTS_LINE.match(run.text):
            checker.worked(runs, index)
    fixed = svg_text
    for start in sorted(checker.edits, reverse=True):
        end, replacement = checker.edits[start]
        fixed = fixed[:start] + replacement + fixed[end:]
    findings = sorted(checker.findings, key=lambda f: (f.line, f.col))
    return HandDrawnReport(findings, checker.checked, fixed)
