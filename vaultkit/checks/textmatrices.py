"""Worked examples written as text: matrices in plain fences and tables, checked where a
caption derives them.

A note may work an attention example by hand, in a plain fence or in a table:

    Scores = Q × Kᵀ
            我     爱
      我  [ 0.9   0.3 ]
      爱  [ 0.2   0.8 ]

    Weights = Softmax(Scores / √d_k)，每行加起来 = 1：
      我  [ 0.55  0.45 ]

The reader takes such matrices from the note's tokens (bracketed rows in a fence without a
language, or a table whose cells are numbers), names each from its nearest caption line
(Q, K, scores, scaled scores, weights) and checks them within one section:

* each weights row sums to 1 within its rounding: a cell written to k decimals may be off by
  half a unit in the last place; a cell written without decimals (a masked 0) is exact;
* weights are the softmax of the scores shown above them, at the scale the caption states
  (a number, or √d_k with d_k the width of a shown Q, or `d_k = 64` stated in the section);
* scores (or scaled scores) are Q·Kᵀ (scaled) where Q and K are shown above them, and scaled
  scores shown under the scores alone are the scores divided by the scale; what is below is then
  compared with the computed numbers, so one wrong number is reported once.

A caption that only says 权重 / weights names weights only below shown scores (model weights
such as W_Q are not a derivation); a row elided with `…` is not a whole distribution.

The numbers a row is derived from are rounded as written too, so a derived number is wrong
only when no inputs within their rounding give it. A matrix the note calls illustrative (示意,
假设, 例如, e.g.) gets warnings that show the real numbers; whatever is not read with certainty
(the scale, which row is which) is a warning or is skipped and counted, never an error.
`fix` does not rewrite these numbers: they are the person's prose.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from vaultkit.checks.drawings import vocabulary
from vaultkit.checks.examples.regions import BEGIN_RE, END_RE
from vaultkit.diagnostics import ERROR, WARNING, Diagnostic, Rule
from vaultkit.numbers import MINUS, fmt, parse_written, rewrite_like, written_matches
from vaultkit.readers.syntax.positions import content_column

WEIGHTS_SUM = Rule(
    "VK420",
    ERROR,
    "weights row of a worked text matrix does not sum to 1",
    "weights row {row} sums to {written}, not 1{slack}",
    "Each row of attention weights worked in the text sums to 1, within the rounding its digits allow.",
)
NOT_DERIVED = Rule(
    "VK421",
    ERROR,
    "number of a worked text matrix does not follow from the matrices above it",
    "{number} is not {formula}",
    "A score, weight or output worked in the text differs from what the matrices above it give.",
)
ILLUSTRATIVE = Rule(
    "VK422",
    WARNING,
    "illustrative worked text matrix: its numbers are not the real ones",
    "{problem}",
    "The caption says the matrix is illustrative (示意); the warning gives the real numbers.",
)
UNCERTAIN = Rule(
    "VK423",
    WARNING,
    "worked text matrix could not be read with certainty; not compared",
    "{problem}",
    "vaultkit could not tell for sure what a matrix is derived from, so it did not compare it.",
)

PLAIN_FENCES = ("", "text", "txt", "plain", "plaintext")  # other languages are code, not worked examples

CELL_RE = re.compile(r"[-−+]?(?:\d+(?:\.\d+)?|∞|inf)")
ROW_RE = re.compile(r"^(?P<label>[^\[\]]*?)\s*\[(?P<body>[^\[\]]*)\](?P<tail>.*)$")
SEPARATOR_RE = re.compile(r"[^\s,，]+")

ILLUSTRATIVE_RE = vocabulary.ILLUSTRATIVE
CAUSAL_RE = vocabulary.CAUSAL
MASK_RE = vocabulary.MASK
D_STATED_RE = vocabulary.D_STATED


@dataclass(frozen=True)
class Cell:
    text: str  # as written
    line: int  # 1-based, in the note
    col: int

    @property
    def value(self) -> float:
        if "∞" in self.text or "inf" in self.text:
            return -math.inf if self.text[0] in "-" + MINUS else math.inf
        return parse_written(self.text)[0]

    @property
    def half(self) -> float:
        """How far the written number may be from what it rounds (0: written without decimals)."""
        if "." not in self.text:
            return 0.0
        return 0.5 * 10.0 ** -parse_written(self.text)[1]


@dataclass
class Row:
    label: str | None  # the token the row is about (`猫`), by which rows are paired
    cells: list[Cell]
    role_label: str | None = None  # the row's own name when it says what it is (`分数`, `权重`)


@dataclass
class TextMatrix:
    rows: list[Row]
    header: list[str] | None
    caption: list[str]  # caption lines, nearest first
    illustrative: bool
    role: str | None = None  # Q, K, scores, scaled, masked, weights, plain weights
    transposed: bool = False  # K written as Kᵀ
    corrected: tuple | None = None  # (values, halves), each number found wrong replaced by the computed one

    @property
    def line(self) -> int:
        return self.rows[0].cells[0].line

    @property
    def width(self) -> int:
        return len(self.rows[0].cells)

    def values(self):
        import numpy as np

        return np.array([[c.value for c in row.cells] for row in self.rows])

    def halves(self):
        import numpy as np

        return np.array([[c.half for c in row.cells] for row in self.rows])


@dataclass
class Section:
    level: int
    parent: int | None
    matrices: list[TextMatrix] = field(default_factory=list)
    text: list[str] = field(default_factory=list)  # prose and plain fences, for stated d_k


@dataclass
class TextMatrixReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    verified: int = 0  # rows checked
    skipped: int = 0  # rows of a derivation that could not be read with certainty


# ---------------------------------------------------------------------------
# Reading: sections and their matrices, from the note's tokens
# ---------------------------------------------------------------------------


def read_sections(text: str, tokens) -> list[Section]:
    """The note's sections (split at every heading) with their text matrices, in order."""
    lines: list[str] = []  # the note's lines, split once a fence may hold a matrix
    sections = [Section(0, None)]
    stack = [0]  # indices of the open sections, outermost first
    caption = ""  # the paragraph or heading just read
    generated = False  # inside a generated region: vaultkit's own output, checked as such (VK101)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "html_block":
            first_line = tok.content.strip().split("\n")[0]
            generated = bool(BEGIN_RE.match(first_line)) or (generated and not END_RE.match(first_line))
        if generated:
            i += 1
            continue
        if tok.type == "heading_open":
            level = int(tok.tag[1:])
            while len(stack) > 1 and sections[stack[-1]].level >= level:
                stack.pop()
            sections.append(Section(level, stack[-1]))
            stack.append(len(sections) - 1)
        section = sections[stack[-1]]
        if tok.type == "inline":
            caption = tok.content
            section.text.append(caption)
        elif tok.type == "fence" and tok.map and tok.info.strip().lower() in PLAIN_FENCES:
            section.text.append(tok.content)
            if "[" in tok.content:
                lines = lines or text.split("\n")
                section.matrices += [
                    part for m in _fence_matrices(tok, lines, caption.split("\n")) for part in _by_row_roles(m)
                ]
            caption = ""
        elif tok.type == "table_open":
            close = next(j for j in range(i, len(tokens)) if tokens[j].type == "table_close")
            matrix = _table_matrix(tokens[i:close], caption.split("\n"))
            if matrix is not None:
                section.matrices += _by_row_roles(matrix)
            caption = ""
            i = close
        elif tok.type in ("fence", "code_block", "html_block", "hr"):
            caption = ""
        i += 1
    return sections


def _cells(body: str, line: int, col: int) -> list[Cell] | None:
    """The numbers of a bracketed row body at 1-based (line, col), or None if not all numbers."""
    cells = []
    for m in SEPARATOR_RE.finditer(body):
        if not CELL_RE.fullmatch(m.group(0)):
            return None
        cells.append(Cell(m.group(0), line, col + m.start()))
    return cells if len(cells) >= 2 else None


def _fence_matrices(fence, lines: list[str], outer_caption: list[str]) -> list[TextMatrix]:
    """Runs of bracketed rows of equal width in a plain fence, with their header and caption."""
    content = fence.content.split("\n")
    first = fence.map[0] + 1  # 0-based line of the first content line
    parsed: list[tuple[str, Row, str] | None] = []  # per content line: (label, row, tail)
    for n, raw in enumerate(content):
        m = ROW_RE.match(raw)
        source = lines[first + n] if first + n < len(lines) else raw
        row = None
        if m:
            start = content_column(source, raw) + m.start("body") + 1
            cells = _cells(m.group("body"), first + n + 1, start)
            if cells and not re.search(r"…|\.\.\.", m.group("tail")):  # an elided row is not whole
                row = (m.group("label").strip(), Row(m.group("label").strip() or None, cells), m.group("tail"))
        parsed.append(row)

    runs: list[tuple[int, int]] = []  # [start, end) content lines of each matrix
    n = 0
    while n < len(parsed):
        if parsed[n] is None:
            n += 1
            continue
        start = n
        n += 1
        while (
            n < len(parsed)
            and parsed[n]
            and not parsed[n][0].endswith(("=", ":", "："))
            and (len(parsed[n][1].cells) == len(parsed[start][1].cells))
        ):
            n += 1
        runs.append((start, n))

    matrices = []
    for k, (start, end) in enumerate(runs):
        rows = [parsed[j][1] for j in range(start, end)]
        above_from = runs[k - 1][1] if k else 0
        above = [line.strip() for line in content[above_from:start] if line.strip()]
        header = None
        if above and start - 1 >= above_from and content[start - 1].strip() == above[-1]:
            words = above[-1].split()
            if (
                len(words) == len(rows[0].cells)
                and not all(CELL_RE.fullmatch(w) for w in words)
                and not re.search(r"[=:：()（）]", above[-1])
            ):
                header, above = words, above[:-1]
        first_label = parsed[start][0]
        if first_label.endswith(("=", ":", "：")):  # `Q = [ 1 0 ]`: the label is the caption
            rows[0].label = None
            above.append(first_label)
        caption = above[::-1] + ([] if k else outer_caption[::-1])
        below_to = runs[k + 1][0] if k + 1 < len(runs) else len(content)
        notes = caption + [parsed[j][2] for j in range(start, end)] + content[end:below_to]
        matrices.append(_named(TextMatrix(rows, header, caption, _is_illustrative(notes))))
    return matrices


def _table_matrix(tokens, outer_caption: list[str]) -> TextMatrix | None:
    """A table whose body cells are numbers (after an optional label column)."""
    header: list[str] = []
    rows: list[list] = []
    in_head = False
    for tok in tokens:
        if tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open" and not in_head:
            rows.append([])
        elif tok.type == "inline":
            if in_head:
                header.append(tok.content.strip())
            else:
                rows[-1].append(tok)
    if not rows or any(len(r) != len(rows[0]) for r in rows):
        return None
    labelled = not any(CELL_RE.fullmatch(r[0].content.strip()) for r in rows)
    matrix_rows = []
    for r in rows:
        cells = []
        for tok in r[labelled:]:
            written = tok.content.strip()
            if not CELL_RE.fullmatch(written) or not tok.map:
                return None
            col = tok.meta.get("cell_col", 1) + tok.content.find(written)
            cells.append(Cell(written, tok.map[0] + 1, col))
        if len(cells) < 2:
            return None
        label = r[0].content.strip().strip("*`") if labelled else None
        matrix_rows.append(Row(label or None, cells))
    corner = header[0] if labelled and header else ""
    columns = header[labelled:] if header else None
    caption = ([corner] if corner else []) + outer_caption[::-1]
    return _named(TextMatrix(matrix_rows, columns, caption, _is_illustrative(caption)))


def _is_illustrative(lines: list[str]) -> bool:
    return any(ILLUSTRATIVE_RE.search(line) for line in lines)


def _named(matrix: TextMatrix) -> TextMatrix:
    """The role of a matrix, from its nearest caption line that names one."""
    for line in matrix.caption:
        role = _line_role(line.strip().strip("*`#> ").strip())
        if role == "K transposed":
            matrix.role, matrix.transposed = "K", True
        elif role != "other":
            matrix.role = role
        if role:
            break
    return matrix


ROW_ROLES = ("scores", "scaled", "masked", "plain weights", "weights")  # in the order one is derived from another


def _row_role(label: str | None) -> str | None:
    """The role a row's own label gives it (`分数`, `scores`, `logits`, `权重`, `probabilities`)."""
    if vocabulary.row_role(label) is None:
        return None
    role = vocabulary.caption_role(label, anchored=True)
    return role if role in ROW_ROLES else None


def _by_row_roles(matrix: TextMatrix) -> list[TextMatrix]:
    """A matrix whose rows name their own roles (`| 分数 | 1.0 | 1.0 |` then `| 权重 | 0.5 | 0.5 |`)
    is one matrix per role: a row's own label says what it is before the caption does. Rows
    without a role go with the row above them; sources come before what is derived from them."""
    roles = [_row_role(row.label) for row in matrix.rows]
    if not any(roles):
        return [matrix]
    parts: dict[str, list[Row]] = {}
    current = matrix.role or roles[next(i for i, r in enumerate(roles) if r)]
    for row, role in zip(matrix.rows, roles):
        current = role or current
        if role:
            row = Row(None, row.cells, row.label)  # the label is a role, not a token to pair by
        parts.setdefault(current, []).append(row)
    ordered = sorted(parts, key=lambda r: ROW_ROLES.index(r) if r in ROW_ROLES else -1)
    return [
        TextMatrix(
            parts[role],
            matrix.header,
            matrix.caption,
            matrix.illustrative,
            "K" if role == "K transposed" else role,
            role == "K transposed" or matrix.transposed,
        )
        for role in ordered
    ]


def _line_role(text: str) -> str | None:
    """The role a caption line gives the matrix below it; "other" when it names something that
    is no part of a derivation (model weights); None when it names nothing."""
    role = vocabulary.caption_role(text, anchored=True)
    return None if role in ("V", "output") else role


# ---------------------------------------------------------------------------
# Checking: sums, softmax of the scores shown, Q·Kᵀ of the Q and K shown
# ---------------------------------------------------------------------------


def check_markdown(text: str, tokens, rel: str) -> TextMatrixReport:
    """Diagnostics of the worked text matrices of one note (never a rewrite)."""
    report = TextMatrixReport()
    if "[" not in text and "|" not in text:
        return report
    sections = read_sections(text, tokens)
    for index, section in enumerate(sections):
        if any(m.role for m in section.matrices):
            _SectionChecker(rel, sections, index, report).run()
    return report


def _stated_divisor(line: str) -> tuple[float, str] | str | None:
    """What a caption line divides the scores by: (number, as written), "√d" when it divides by
    √d_k without a number, "unknown" when it scales some other way, None when it says nothing."""
    if m := vocabulary.SQRT_OF.search(line):
        return math.sqrt(float(m[1])), f"√{m[1]}"
    if m := vocabulary.SQRT_D_IS.search(line):
        return float(m[1]), m[1]
    if vocabulary.SQRT.search(line):
        return "√d"
    if vocabulary.OTHER_SCALE.search(line):
        return "unknown"
    if m := vocabulary.SLASH_BY.search(line) or vocabulary.DIVIDED_BY.search(line):
        return float(m[1]), m[1]
    if re.search(r"softmax\s*\(", line, re.IGNORECASE):
        return 1.0, "1"
    return None


def _pair_rows(target: TextMatrix, source: TextMatrix) -> tuple[list[tuple[Row, int]], bool] | None:
    """Which row of `source` each row of `target` is derived from, and whether that is a guess
    (unlabelled rows fewer than the source's, matched by position); None: cannot tell."""
    t_labels = [r.label for r in target.rows]
    s_labels = [r.label for r in source.rows]
    if all(t_labels) and all(s_labels) and len(set(s_labels)) == len(s_labels):
        if all(label in s_labels for label in t_labels):
            return [(r, s_labels.index(r.label)) for r in target.rows], False
        return None
    if len(target.rows) == len(source.rows):
        return list(zip(target.rows, range(len(source.rows)))), False
    if len(target.rows) < len(source.rows) and not any(t_labels):
        return list(zip(target.rows, range(len(target.rows)))), True
    return None


def _row_name(matrix: TextMatrix, row: Row) -> str:
    return row.label or row.role_label or f"{matrix.rows.index(row) + 1}"


def _softmax_bounds(p, eps):
    """Lowest and highest softmax of each cell when every input may move by up to `eps`
    (a cell is lowest when it moves down and every other moves up)."""
    import numpy as np

    up, down = p * np.exp(eps), p * np.exp(-eps)
    total_up, total_down = up.sum(axis=-1, keepdims=True), down.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(p > 0, down / (down + total_up - up), 0.0)
        high = np.where(p > 0, up / (up + total_down - down), 0.0)
    return low, high


class _SectionChecker:
    def __init__(self, rel: str, sections: list[Section], index: int, report: TextMatrixReport):
        self.rel, self.sections, self.index, self.report = rel, sections, index, report

    def run(self) -> None:
        q = k = source = None
        for matrix in self.sections[self.index].matrices:
            if matrix.role == "Q":
                q = matrix
            elif matrix.role == "K":
                k = matrix
            elif matrix.role == "masked":  # masks the matrix before it: at its scale
                matrix.role = "scaled" if source is not None and source.role == "scaled" else "scores"
                source = matrix
            elif matrix.role in ("scores", "scaled"):
                if q is not None and k is not None:
                    self.check_products(matrix, q, k)
                elif matrix.role == "scaled" and source is not None and source.role == "scores":
                    self.check_scaled(matrix, source, q, k)
                source = matrix
            elif matrix.role == "weights" or (matrix.role == "plain weights" and source is not None):
                values = [c.value for row in matrix.rows for c in row.cells]
                if not all(0 <= v <= 1 for v in values):  # not probabilities: not attention weights
                    self.report.skipped += len(matrix.rows)
                    continue
                self.check_sums(matrix)
                if source is not None:
                    self.check_softmax(matrix, source, q, k)

    # -- where the numbers come from

    def stated_d(self) -> int | None:
        """d_k stated in this section (or, failing that, the nearest enclosing one); None when
        it is not stated or stated with different values."""
        index = self.index
        while index is not None:
            section = self.sections[index]
            found = {int(m[1]) for part in section.text for m in D_STATED_RE.finditer(part)}
            if found:
                return found.pop() if len(found) == 1 else None
            index = section.parent
        return None

    def divisor(self, matrix: TextMatrix, q: TextMatrix | None, k: TextMatrix | None):
        """What the caption of `matrix` divides the scores by, (number, as shown), or a string
        saying why that cannot be told."""
        for line in matrix.caption:
            stated = _stated_divisor(line)
            if stated is None:
                continue
            if stated == "unknown":
                return f"the caption `{line.strip()}` scales in a way vaultkit does not read"
            if stated == "√d":
                width = q.width if q is not None else None
                if width is None and k is not None:
                    width = len(k.rows) if k.transposed else k.width
                width = width or self.stated_d()
                if width is None:
                    return (
                        "the caption divides by √d_k, but d_k is neither stated once in the section "
                        "(`d_k = 64`) nor the width of a Q shown"
                    )
                return math.sqrt(width), f"√{width}"
            return stated
        return "the caption does not state the scale (for example `Softmax(Scores / √d_k)`)"

    # -- the checks

    def check_sums(self, weights: TextMatrix) -> None:
        for row in weights.rows:
            if all(c.value == 0 for c in row.cells):
                continue  # a fully masked row has no weights
            self.report.verified += 1
            total = sum(c.value for c in row.cells)
            allowed = sum(c.half for c in row.cells)
            if abs(total - 1) <= allowed * (1 + 1e-9) + 1e-12:
                continue
            digits = max(parse_written(c.text)[1] for c in row.cells)
            written = fmt(total, digits)
            name = _row_name(weights, row)
            if weights.illustrative:
                problem = f"illustrative weights row {name} sums to {written}, not 1"
                self.add(ILLUSTRATIVE, row.cells[0], written, "1", problem=problem)
            else:
                slack = f" (rounding allows ±{fmt(allowed, digits + 1)})" if allowed else ""
                self.add(WEIGHTS_SUM, row.cells[0], written, "1", row=name, slack=slack)

    def paired(self, derived: TextMatrix, source: TextMatrix):
        """`_pair_rows` of two matrices of one width and header; None (rows counted as skipped) if not."""
        pairs = _pair_rows(derived, source)
        if (
            pairs is None
            or derived.width != source.width
            or (derived.header and source.header and derived.header != source.header)
        ):
            self.report.skipped += len(derived.rows)
            return None
        return pairs

    def check_softmax(self, weights: TextMatrix, source: TextMatrix, q, k) -> None:
        from vaultkit import engine

        pairs = self.paired(weights, source)
        if pairs is None:
            return
        if source.role == "scaled":
            divisor, formula = 1.0, f"Softmax of the scaled scores at line {source.line}"
        else:
            stated = self.divisor(weights, q, k)
            if isinstance(stated, str):
                pairs = self.scale_free(weights, source, pairs, stated)
                if not pairs[0]:
                    return
                divisor, formula = 1.0, f"Softmax of the equal scores at line {source.line} (at any scale)"
            else:
                divisor, shown = stated
                scale = f" / {shown}" if divisor != 1 else ""
                formula = f"Softmax(Scores{scale}) of the scores at line {source.line}"
        values, halves = source.corrected or (source.values(), source.halves())
        scaled = values / divisor  # (L, S): a wrong score is reported once, not again in its weights
        eps = halves / divisor
        captions = weights.caption + source.caption
        captions = [line for line in captions if not vocabulary.denies_mask(line)]
        if any(CAUSAL_RE.search(line) for line in captions):
            if scaled.shape[0] != scaled.shape[1]:
                self.report.skipped += len(weights.rows)
                return
            scaled[~engine.causal_mask(*scaled.shape)] = -math.inf
            formula = "causal " + formula
        elif any(MASK_RE.search(line) for line in captions) and not (scaled == -math.inf).any():
            self.report.skipped += len(weights.rows)  # masked, but which cells is not shown
            return
        if (scaled == math.inf).any():
            self.report.skipped += len(weights.rows)
            return
        p = engine.softmax_rows(scaled)
        low, high = _softmax_bounds(p, eps)
        pairs, guessed = pairs
        for row, i in pairs:
            self.report.verified += 1
            self.compare_row(
                weights,
                row,
                p[i],
                low[i],
                high[i],
                "weight",
                formula,
                source_name=_row_name(source, source.rows[i]),
                illustrative=weights.illustrative or source.illustrative,
                guessed=guessed,
            )

    def scale_free(self, weights: TextMatrix, source: TextMatrix, pairs, why: str):
        """The pairs whose scores row is all one number: their weights are equal at any scale.
        The other rows are skipped, with one warning saying why (none when no row is left)."""
        values = (source.corrected or (source.values(), source.halves()))[0]
        rows, guessed = pairs
        equal = [(row, i) for row, i in rows if len({v for v in values[i] if math.isfinite(v)}) == 1]
        rest = len(rows) - len(equal)
        if rest:
            problem = f"weights not compared with the scores at line {source.line}: {why}"
            self.add(UNCERTAIN, weights.rows[0].cells[0], problem=problem)
            self.report.skipped += rest
        return equal, guessed

    def check_products(self, scores: TextMatrix, q: TextMatrix, k: TextMatrix) -> None:
        import numpy as np

        from vaultkit import engine

        Q, Hq = q.values(), q.halves()
        K, Hk = (k.values().T, k.halves().T) if k.transposed else (k.values(), k.halves())
        k_labels = k.header if k.transposed else [r.label for r in k.rows]
        pairs = _pair_rows(scores, q)
        if (
            pairs is None
            or Q.shape[1] != K.shape[1]
            or scores.width != K.shape[0]
            or not (np.isfinite(Q).all() and np.isfinite(K).all())
            or (scores.header and k_labels and all(k_labels) and list(scores.header) != list(k_labels))
        ):
            self.report.skipped += len(scores.rows)
            return
        divisor, formula = 1.0, f"Q·Kᵀ of the Q at line {q.line} and the K at line {k.line}"
        if scores.role == "scaled":
            stated = self.stated_divisor(scores, q, k, "Q·Kᵀ")
            if stated is None:
                return
            divisor, shown = stated
            formula = f"Q·Kᵀ / {shown} of the Q at line {q.line} and the K at line {k.line}"
        try:
            point = engine.attention(Q, K, scale=1.0 / divisor).scaled  # (L, S)
        except ValueError:  # numbers too large for float64
            self.report.skipped += len(scores.rows)
            return
        radius = (np.abs(Q) @ Hk.T + Hq @ np.abs(K).T + Hq @ Hk.T) / divisor
        illustrative = scores.illustrative or q.illustrative or k.illustrative
        self.check_derived(scores, pairs, point, radius, formula, q, illustrative)

    def stated_divisor(self, scaled: TextMatrix, q, k, against: str):
        """`divisor` of scaled scores, or None when it is not certain (a VK423 warning, rows skipped)."""
        stated = self.divisor(scaled, q, k)
        if isinstance(stated, str):
            self.add(UNCERTAIN, scaled.rows[0].cells[0], problem=f"scaled scores not compared with {against}: {stated}")
            self.report.skipped += len(scaled.rows)
            return None
        return stated

    def check_scaled(self, scaled: TextMatrix, scores: TextMatrix, q, k) -> None:
        """Scaled scores shown under scores (and no Q, K): the scores divided by the stated scale."""
        pairs = self.paired(scaled, scores)
        if pairs is None:
            return
        stated = self.stated_divisor(scaled, q, k, "the scores")
        if stated is None:
            return
        divisor, shown = stated
        values, halves = scores.corrected or (scores.values(), scores.halves())
        formula = f"Scores / {shown} of the scores at line {scores.line}"
        self.check_derived(
            scaled,
            pairs,
            values / divisor,
            halves / divisor,
            formula,
            scores,
            scaled.illustrative or scores.illustrative,
        )

    def check_derived(self, matrix: TextMatrix, pairs, point, radius, formula, source, illustrative) -> None:
        """Compare each row of `matrix` with `point` ± `radius` of the source row it is paired with;
        keep the computed numbers in place of the wrong ones for the checks below it."""
        values, halves = matrix.values(), matrix.halves()
        pairs, guessed = pairs
        for r, (row, i) in enumerate(pairs):
            self.report.verified += 1
            wrong = self.compare_row(
                matrix,
                row,
                point[i],
                point[i] - radius[i],
                point[i] + radius[i],
                "score",
                formula,
                source_name=_row_name(source, source.rows[i]),
                illustrative=illustrative,
                guessed=guessed,
            )
            for j in wrong:
                values[r, j], halves[r, j] = point[i, j], radius[i, j]
        matrix.corrected = values, halves

    def compare_row(self, matrix, row, point, low, high, what, formula, *, source_name, illustrative, guessed):
        """Report the cells of `row` that no value in [low, high] rounds to as written; their indices."""
        wrong = [
            (j, cell)
            for j, cell in enumerate(row.cells)
            if math.isfinite(cell.value) and not written_matches(cell.text, min(max(cell.value, low[j]), high[j]))
        ]
        if not wrong:
            return []
        name = _row_name(matrix, row)
        if illustrative or guessed:
            digits = max([3] + [parse_written(c.text)[1] for c in row.cells if math.isfinite(c.value)])
            real = "[ " + "  ".join(fmt(v, digits) for v in point) + " ]"
            written = "[ " + "  ".join(c.text for c in row.cells) + " ]"
            if guessed:
                name += f" (taken as row {source_name}, by position)"
            if illustrative:
                rule, problem = ILLUSTRATIVE, f"illustrative {what}s row {name}: the real {formula} differs"
            else:
                rule, problem = UNCERTAIN, f"{what}s row {name} is not {formula}"
            self.add(rule, wrong[0][1], written, real, problem=problem)
            return [j for j, _ in wrong]
        for j, cell in wrong:
            column = matrix.header[j] if matrix.header else str(j + 1)
            computed = rewrite_like(cell.text, point[j])
            self.add(NOT_DERIVED, cell, cell.text, computed, number=f"{what} {name}→{column}", formula=formula)
        return [j for j, _ in wrong]

    # -- diagnostics

    def add(self, rule: Rule, cell: Cell, written=None, computed=None, **values) -> None:
        self.report.diagnostics.append(
            rule.at(self.rel, cell.line, cell.col, written=written, computed=computed, **values)
        )
