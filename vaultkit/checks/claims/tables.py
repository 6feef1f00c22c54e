"""Cells of a table derived from others in their row: `| 70B | 2 bytes | 140 GB |`.

A column is taken as computed from two others (their product, quotient, sum or difference)
only when the rows say so: at least `MIN_ROWS` rows hold the relation exactly (at the
precision each cell is written with) and at most one row of those with the three cells
breaks it. The rows that hold it are claims read and right; the one that breaks it is checked
as that claim (`judge`), so a cell that is right under another fair reading (GiB for GB) is
no finding. A relation that holds only because an input is 1 or 0, or a column that does not
change, is none.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from vaultkit.checks.claims.compare import PASS, Verdict, judge
from vaultkit.checks.claims.expr import Binary, Operand, ParseFail, Reading, Uncertain
from vaultkit.checks.claims.parser import Parser
from vaultkit.checks.claims.prose import TABLE_TOTAL_NAME, TableCell, table_rows
from vaultkit.checks.claims.tokens import tokenize

MIN_ROWS = 3  # rows that must hold a relation exactly before a row that breaks it is checked
MIN_DIGITS = 2  # significant digits of a result that shows a relation
EXACT = 0.01  # a row holds a relation exactly: as computed it is the written value, or within 1 % at its precision
MAX_ROWS = 800  # rows of a table read (a note's cost stays bounded; the rest stay listed as unread)
MAX_COLUMNS = 12  # numeric columns of a table looked at (a relation among the first ones)
OPS = ("*", "/", "+", "-")
SIGNS = {"*": "×", "/": "/", "+": "+", "-": "−"}


@dataclass
class RowClaim:
    """A derived cell of a row read as `a op b = c`, and its verdict."""

    line: int
    col: int  # 1-based column of the written value
    unit: str  # as written after the value's number
    claim: str
    written: str
    relation: str  # `显存 = 参数量 × 字节`, by the header's names
    holds: int  # rows of the table that hold the relation
    verdict: Verdict


def _cell_operands(line: str, cells: list[TableCell | None], width: int) -> list[Operand | None]:
    """The number each of the first `width` cells holds (None: no number, or a percent of what is
    not said), read as the claims reader reads a number and its unit."""
    out: list[Operand | None] = [None] * width
    if not any(cells[:width]):
        return out
    tokens = tokenize(line)
    starts = {tok.start: k for k, tok in enumerate(tokens) if tok.kind == "num"}
    parser = Parser(tokens, line)
    for c, cell in enumerate(cells[:width]):
        if cell is None or cell.start not in starts:
            continue
        try:
            node, end = parser.operand(starts[cell.start])
        except (Uncertain, ParseFail):
            continue
        if isinstance(node, Operand) and not node.percent and tokens[end - 1].end <= cell.end + 1:
            out[c] = node
    return out


def _grid(rows: list[tuple[int, str, list[TableCell | None]]]):
    """Values (base units), half a unit of each cell's last written digit (none for a whole
    number written exactly: `4`, not `1600` or `~4`), the relative rounding of each cell as an
    input and its significant digits, one row a data row; NaN where a cell holds no number."""
    width = min(max(len(cells) for _, _, cells in rows), MAX_COLUMNS)
    shape = (len(rows), width)
    values, half, rel, digits = np.full(shape, np.nan), np.zeros(shape), np.zeros(shape), np.zeros(shape)
    operands: list[list[Operand | None]] = []
    reading = Reading()
    for r, (_, line, cells) in enumerate(rows):
        ops = _cell_operands(line, cells, width)
        for c, op in enumerate(ops):
            if op is None:
                continue
            cell = cells[c]
            factor = op.factor(reading)
            values[r, c] = op.mantissa * factor
            if not (op.plain_int and not op.rounded_zeros and not cell.about):  # `4` is exactly 4
                half[r, c] = op.unit_digit * abs(factor) / 2
            if op.rounded and op.mantissa:
                rel[r, c] = op.unit_digit / 2 / abs(op.mantissa)
            digits[r, c] = op.digits
        operands.append(ops)
    return values, half, rel, digits, operands


def _computed(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        if op == "*":
            return a * b
        if op == "/":
            return np.where(b != 0, a / np.where(b != 0, b, 1), np.nan)
        if op == "+":
            return a + b
        return a - b


def relations(
    values: np.ndarray, half: np.ndarray, rel: np.ndarray, digits: np.ndarray, units: list[set[str]], names: list[str]
) -> list[tuple[str, int, int, int, np.ndarray]]:
    """(op, a, b, c, rows that hold it) of each column `c` computed as `a op b` in enough rows
    and broken in at most one, `c` right of both (a table is read left to right: `a = c / b`
    where `c = a × b` is no derivation the author wrote); of those with the same result, the
    one held in most rows. `units`: the units each column is written in (a sum is of one unit);
    `names`: the header's, a sum or a difference is taken only where the result's name says so
    (`Total`, `剩余`: small whole numbers add up to others by chance); `digits`: significant
    digits, a row holds a relation exactly only with a result of two or more (`8 / 2 = 4` and
    `8 / 1 = 8` in a table of settings are chance)."""
    width = values.shape[1]
    best: dict[int, tuple[int, tuple[str, int, int, int, np.ndarray]]] = {}
    present = ~np.isnan(values)
    for op in OPS:
        for a in range(width):
            for b in range(width):
                if a == b or op in "*+" and b < a or present[:, a].sum() < MIN_ROWS or present[:, b].sum() < MIN_ROWS:
                    continue
                got = _computed(op, values[:, a], values[:, b])
                if op in "*/":
                    slack = np.abs(got) * (rel[:, a] + rel[:, b])
                else:
                    slack = half[:, a] + half[:, b]
                for c in range(width):
                    if c <= max(a, b) or op in "+-" and not _named_for(op, names[c], units[a] | units[b] | units[c]):
                        continue
                    rows = present[:, a] & present[:, b] & present[:, c] & ~np.isnan(got)
                    if rows.sum() < MIN_ROWS:
                        continue
                    with np.errstate(all="ignore"):
                        error = np.abs(got - values[:, c])
                        allowed = half[:, c] + slack
                        holds = rows & (error <= allowed + 1e-9 * np.abs(values[:, c]))
                        close = (error <= 1e-9 * np.abs(values[:, c])) | (allowed <= EXACT * np.abs(values[:, c]))
                        exact = holds & close & (digits[:, c] >= MIN_DIGITS)
                    count = int(holds.sum())
                    if int(exact.sum()) < MIN_ROWS or rows.sum() - count > 1 or not _telling(values, exact, a, b, c):
                        continue
                    if c not in best or count > best[c][0]:
                        best[c] = (count, (op, a, b, c, holds))
    return [relation for _, relation in best.values()]


_SUM_NAME = re.compile(r"\b(?:total|sum|subtotal|overall|combined)\b|总计|合计|小计|总和|总共|共计|总量|合计|总", re.I)
_DIFFERENCE_NAME = re.compile(
    r"\b(?:diff(?:erence)?|remain(?:ing|der)?|left|free|headroom|sav(?:ed|ings?)|gap|delta)\b|Δ|差|剩余|余量|节省|空闲|可用",
    re.I,
)


def _named_for(op: str, name: str, units: set[str]) -> bool:
    """A sum or a difference of cells of one unit, in a column whose name says it is one."""
    return len(units) == 1 and (_SUM_NAME if op == "+" else _DIFFERENCE_NAME).search(name) is not None


RATIO_SPREAD = 1.05  # the two inputs of a relation are not in one ratio: they vary apart by more


def _telling(values: np.ndarray, holds: np.ndarray, a: int, b: int, c: int) -> bool:
    """The rows that hold a relation show it: `MIN_ROWS` of them or more have different inputs
    (`| 4 | 8 | 12 |` twice is one example), the result is not one of its inputs (an input of 1
    or 0) in two of them or more nor the same in all, and the two inputs are not in the same ratio in all of them
    (`fp8 = fp16 + bf16` where bf16 is fp16 and fp8 twice it is no sum: columns in proportion)."""
    x, y, result = values[holds, a], values[holds, b], values[holds, c]
    if len(set(zip(x.round(12).tolist(), y.round(12).tolist()))) < MIN_ROWS:
        return False
    copies = np.isclose(result, x) | np.isclose(result, y)
    if int((~copies).sum()) < 2 or len(set(result.round(12).tolist())) < 2:
        return False
    with np.errstate(all="ignore"):
        ratio = np.abs(x / y)
    ratio = ratio[np.isfinite(ratio) & (ratio > 0)]
    return len(ratio) >= 2 and ratio.max() > ratio.min() * RATIO_SPREAD


def _within_measured(op: str, x: Operand, y: Operand, z: Operand) -> bool:
    """The row holds when each input measured (with a unit or a decimal point) is taken as rounded
    at its last written digit, as a table of measurements writes them."""
    reading = Reading()
    bounds = []
    for op_ in (x, y):
        value = op_.mantissa * op_.factor(reading)
        measured = op_.has_unit or op_.has_scale or op_.decimal
        spread = op_.unit_digit * abs(op_.factor(reading)) / 2 if measured else 0.0
        bounds.append((value - spread, value + spread))
    with np.errstate(all="ignore"):
        got = [float(_computed(op, np.array(p), np.array(q))) for p in bounds[0] for q in bounds[1]]
    target = z.mantissa * z.factor(reading)
    slack = z.unit_digit * abs(z.factor(reading)) / 2
    return min(got) - slack <= target <= max(got) + slack


def _other_factor(values: np.ndarray, holds: np.ndarray, r: int, used: tuple[int, int, int]) -> bool:
    """Row `r` differs from the rows that hold a relation in a column that is the same in all of
    them (a number, or none): that column may be part of the relation."""
    for k in range(values.shape[1]):
        if k in used:
            continue
        column = values[holds, k]
        if np.isnan(column).all():
            if not np.isnan(values[r, k]):
                return True
        elif not np.isnan(column).any() and np.allclose(column, column[0]) and not np.isclose(values[r, k], column[0]):
            return True
    return False


def check_tables(text: str, rows: set[int]) -> Iterator[RowClaim]:
    """The derived cells of the pipe tables of a note (`rows`: its table lines), each a claim."""
    for header, data in table_rows(text, rows):
        if len(data) < MIN_ROWS:
            continue
        data = data[:MAX_ROWS]
        values, half, rel, digits, operands = _grid(data)
        width = values.shape[1]
        units = [{cells[k].unit for _, _, cells in data if k < len(cells) and cells[k]} for k in range(width)]
        names = [header[k].strip(" *") if k < len(header) else f"column {k + 1}" for k in range(width)]
        for op, a, b, c, holds in relations(values, half, rel, digits, units, names):
            relation = f"{names[c]} = {names[a]} {SIGNS[op]} {names[b]}"
            count = int(holds.sum())
            for r, (number, _, cells) in enumerate(data):
                x, y, z = operands[r][a], operands[r][b], operands[r][c]
                if x is None or y is None or z is None:
                    continue
                loose = cells[c].about or cells[a].about or cells[b].about
                try:
                    verdict = judge(Binary(op, x, y), z, loose=loose)
                except Uncertain:
                    continue
                if holds[r] and verdict.level != PASS:
                    continue  # held at the cells' precision, not under the claims' own readings: no claim
                if not holds[r] and _other_factor(values, holds, r, (a, b, c)):
                    continue  # `| 256 | 4 | 4 | 16 |` where DP is 1 in every row that holds: DP may be a factor
                if not holds[r] and _within_measured(op, x, y, z):
                    continue  # `| 84 tok/s | 1 | 84.2 tok/s |`: a measured total written rounded
                claim = f"{cells[a].text} {SIGNS[op]} {cells[b].text} {'≈' if loose else '='} {cells[c].text}"
                yield RowClaim(
                    number, cells[c].start + 1, cells[c].unit, claim, cells[c].text, relation, count, verdict
                )


def column_totals(text: str, rows: set[int]) -> Iterator[RowClaim]:
    """A table's total row (its label `Total`, `合计`, …) under the rows it sums: each of its cells
    that holds a number, in a column where every row since the header (or the total before) holds
    one in the same unit, is read as their sum when it is one. One that is not is no finding:
    on the seen ground such rows were a mean, the largest part, or alternatives added up, as
    often as a wrong sum; it stays listed as unread."""
    for header, data in table_rows(text, rows):
        start = 0
        for r, (number, line, cells) in enumerate(data):
            label = next((cell for cell in line.split("|")[1:] if cell.strip()), "")
            if not TABLE_TOTAL_NAME.search(label):
                continue
            parts, start = data[start:r], r + 1
            if len(parts) < 2:
                continue
            for k, total in enumerate(cells):
                claim = _column_sum(k, total, (number, line, cells), parts, header)
                if claim is not None:
                    yield claim


def _column_sum(k: int, total: TableCell | None, row, parts, header: list[str]) -> RowClaim | None:
    """Column `k` of the total row `row` checked as the sum of the same column of `parts`."""
    number, line, cells = row
    if total is None or k == 0:
        return None
    column = [(part_line, part[k] if k < len(part) else None) for _, part_line, part in parts]
    if any(cell is None or cell.unit != total.unit for _, cell in column):
        return None
    operands = [_cell_operands(part_line, [*[None] * k, cell], k + 1)[k] for part_line, cell in column]
    written = _cell_operands(line, cells, k + 1)[k]
    if written is None or any(op is None for op in operands):
        return None
    expr = operands[0]
    for op in operands[1:]:
        expr = Binary("+", expr, op)
    loose = total.about or any(cell.about for _, cell in column)
    try:
        verdict = judge(expr, written, loose=loose)
    except Uncertain:
        return None
    if verdict.level != PASS:
        return None  # a total row that is no sum of the rows above may be of something else (a mean, one of them)
    name = header[k].strip(" *") if k < len(header) else f"column {k + 1}"
    claim = f"{' + '.join(cell.text for _, cell in column)} {'≈' if loose else '='} {total.text}"
    relation = f"the total of {name} = the sum of the rows above it"
    return RowClaim(number, total.start + 1, total.unit, claim, total.text, relation, len(parts), verdict)
