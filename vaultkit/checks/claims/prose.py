"""The lines of a note as the claims checker reads them.

A note is read line by line, skipping what is not the author's prose or code to check: front
matter, `vaultkit` blocks, generated regions, `%%comments%%` and lines marked `%%vk-ignore%%`.
Each line comes in two forms of the same length (so every column stays where it is written):
`raw`, as written (list and quote markers blanked), for what `--explain` shows, and `text`, made
readable for arithmetic:

- a code span whose content is arithmetic (`` `16/300` ``, `` `4GiB / 50GBps` ``) or a claim of
  its own (`` `32 * 7 = 224GiB` ``) loses its backticks, so `` `3 * 2 * 80 / 42.5` = 11 sec ``
  reads across them; any other code span (`` `Block 7` ``, `` `2*(n-1)/n * P` ``) is a name,
  blanked to letters so none of its numbers is read as an operand;
- LaTeX math (`$…$`, `$$…$$`, and the lines of a display block) loses its delimiters and
  spacing commands; `\\approx` reads as `≈`, `\\sim` as `~`, `\\mu` as `µ`, `\\times` and `\\cdot` as `×`,
  `\\text{GB}` as `GB`; a currency `$5` is no math;
- quotes around a string (`'2048² × 12288 ≈ 51B'` in a Python dict) are blanked;
- link targets and bare URLs are blanked to letters; a star escaped for Markdown (`\\*`) is a star.

`code` lists the spans that were code, where `8.87-7.45` is a subtraction, not a range.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?:.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FENCE = re.compile(r"[ \t]*(?:>[ \t]*)*(`{3,}|~{3,})[ \t]*([^\s`]*)")
_REGION_BEGIN = re.compile(r"<!--\s*vaultkit:begin\s+(\S+)\s*-->")
_LIST_MARKER = re.compile(r"[ \t]*(?:>[ \t]*)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?")
IGNORE_MARK = "%%vk-ignore%%"
MAX_CHARS = 5_000  # a longer line is not read (a note's cost stays bounded)

CODE_SPAN_RE = re.compile(r"(`+)((?:(?!\1).)+?)\1")
_RELATION = re.compile(r"(?<![=!<>:+\-*/%])[=≈](?![=>])")
_UNIT_AFTER_DIGIT = re.compile(r"(?<=[\d.])[A-Za-z]+|(?<=\d)[ ]?[xX](?=[ ]?\d)")
_NOT_ARITHMETIC = re.compile(r"[A-Za-z_\u3400-\u9fff\[\]{}\"'$#@:;]")
_LINK_TARGET = re.compile(r"(?<=\])\([^)\s]*\)|https?://[^\s)>\]`]+|<https?://[^>\s]*>")
_TEX_APPROX = re.compile(r"\\(?:approx|simeq)(?![A-Za-z])")
_TEX_SIM = re.compile(r"\\sim(?![A-Za-z])")  # `10^{-38} \sim 10^{38}`: a range, as `~` is
_TEX_MU = re.compile(r"\\mu(?![A-Za-z])[ ]?")  # `12.5 \mu s` is 12.5 µs
_TEX_BLANK = re.compile(
    r"\\(?:[,;:! ]|q?quad(?![A-Za-z])|left(?![A-Za-z])|right(?![A-Za-z])|[Bb]ig+[lr]?(?![A-Za-z]))|\\\\|&"
)
_TEX_WRAP = re.compile(r"\\(?:text|mathrm|textrm|mathbf|textbf|boldsymbol|bm|operatorname|mbox)\{([^{}]*)\}")
_TEX_EXPONENT = re.compile(r"(?<=\d)\\(?:text|mathrm|rm)\{[eE]\}(?=[-−]?\d)")  # `312\text{e}12` is 312·10¹²
_BARE_TEX = re.compile(r"\\(?:times|cdot|div|frac|approx|sqrt|text\{)")
_DELIMITED = re.compile(r"\$|\\[(\[]")
_ESCAPED_STAR = re.compile(r"\\\*")
_TEX_SIGNS = {"\\%": " %", "\\$": " $"}
_TEX_SQRT = re.compile(r"\\sqrt\{([^{}]*)\}")
_TEX_FRAC = re.compile(r"\\[dt]?frac\{([^{}]*)\}\{([\d.,]+(?:\^\{?\d+\}?)?)\}")
_BRACED = r"((?:[^{}]|\{[^{}]*\})*)"  # braces one deep: `10^{12}`
_TEX_BOXED = re.compile(rf"\\boxed\{{{_BRACED}\}}")  # `\boxed{2,384 \text{ ms}}`: what it holds
_TEX_FRACTION = re.compile(rf"\\[dt]?frac\{{{_BRACED}\}}\{{{_BRACED}\}}")
_QUOTES = "'\"‘’“”"
_QUOTE = re.compile(f"[{_QUOTES}]")
_SIGNS = ("=", "≈", "~", "≅", "≃", "→", "＝", "->", "\\approx", "\\sim")  # a relation sign or an arrow
_HAS_SIGN = re.compile("|".join(map(re.escape, _SIGNS)))
_STATE_MARKS = ("```", "~~~", "vaultkit:", "%%", "$$")  # what opens or closes a block read apart
_STARTS_WITH_SIGN = re.compile(r"[ \t]*(?:>[ \t]*)*(?:[=≈→＝]|\\approx)")
_OPEN_BEFORE = set(" \t([{,:=（，：、")
_CLOSE_AFTER = set(" \t)]},:;.）：，。；、")


class ProseLine:
    """One line of a note; its readable form is made only when asked for (most lines have no
    sign, and are never read)."""

    __slots__ = ("number", "line", "math", "_raw", "_readable")

    def __init__(self, number: int, line: str, math: bool = False):
        self.number = number  # 1-based
        self.line = line  # as written, comments blanked
        self.math = math  # a line of a display-math block
        self._raw: str | None = None
        self._readable: tuple[str, list[tuple[int, int]], list[tuple[int, int]]] | None = None

    @property
    def raw(self) -> str:
        """As written, comments and list or quote markers blanked."""
        if self._raw is None:
            self._raw = mask_marker(self.line)
        return self._raw

    def _read(self) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
        if self._readable is None:
            raw = self.raw.replace("＝", "=")  # a full-width equals sign reads as one
            if self.math or "`" not in raw and _BARE_TEX.search(raw) and not _DELIMITED.search(raw):
                # a display block, or LaTeX with no delimiter we know (`{% katex() %}` blocks)
                self._readable = (_tex(raw.replace("$", " ")), [], _math_parts(raw, 0, len(raw)))
            else:
                self._readable = readable(raw)
        return self._readable

    @property
    def text(self) -> str:
        """Readable for arithmetic, of the same length as `raw`."""
        return self._read()[0]

    @property
    def code(self) -> list[tuple[int, int]]:
        """The spans of code in it."""
        return self._read()[1]

    @property
    def maths(self) -> list[tuple[int, int]]:
        """The spans of LaTeX math in it, `\\text{…}` left out: a letter there is a variable."""
        return self._read()[2]


def mask_marker(line: str) -> str:
    """Blank out blockquote `>` and list markers (`- `, `1. `), keeping columns."""
    m = _LIST_MARKER.match(line)
    return " " * m.end() + line[m.end() :]


def _mask_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """Blank out `%%…%%` (which may span lines); returns the line and whether a comment is open."""
    if "%%" not in line and not in_comment:
        return line, False
    out, pos = [], 0
    while True:
        nxt = line.find("%%", pos)
        if nxt < 0:
            out.append(" " * (len(line) - pos) if in_comment else line[pos:])
            return "".join(out), in_comment
        out.append(" " * (nxt - pos) if in_comment else line[pos:nxt])
        out.append("  ")
        in_comment, pos = not in_comment, nxt + 2


def _arithmetic(content: str) -> bool:
    """Code span content that is arithmetic (`4GiB / 50GBps`, `8*24*2**30`) or holds a claim."""
    if not any(c.isdigit() for c in content):
        return False
    if _RELATION.search(content):
        return True
    return _NOT_ARITHMETIC.search(_UNIT_AFTER_DIGIT.sub("", content)) is None


def _tex(text: str) -> str:
    """LaTeX made readable, keeping its length."""

    def blank(m: re.Match) -> str:
        return " " * len(m.group())

    text = _TEX_APPROX.sub(lambda m: "≈" + " " * (len(m.group()) - 1), text)
    text = _TEX_SIM.sub(lambda m: "~" + " " * (len(m.group()) - 1), text)
    text = _TEX_MU.sub(lambda m: " " * (len(m.group()) - 1) + "µ", text)
    # `\sqrt{64}` is √(64); `\frac{a}{4096}` is ((a)/4096) when its denominator is one number
    text = _TEX_SQRT.sub(lambda m: "√(" + " " * (m.start(1) - m.start() - 2) + m.group(1) + ")", text)
    text = _TEX_FRAC.sub(
        lambda m: "(" + " " * (m.start(1) - m.start() - 2) + "(" + m.group(1) + ")/" + m.group(2) + ")", text
    )
    text = _TEX_FRACTION.sub(
        lambda m: "(" + " " * (m.start(1) - m.start() - 4) + "(" + m.group(1) + ")/(" + m.group(2) + "))", text
    )  # `\\frac{2 \\times 7}{3 \\times 4}`: any numerator over any denominator without braces
    text = _TEX_BOXED.sub(lambda m: " " * (m.start(1) - m.start()) + m.group(1) + " ", text)
    text = _TEX_EXPONENT.sub(lambda m: " " * (len(m.group()) - 8) + "\\cdot10^", text)
    text = _TEX_WRAP.sub(lambda m: " " * (m.start(1) - m.start()) + m.group(1) + " ", text)
    for sign, plain in _TEX_SIGNS.items():
        text = text.replace(sign, plain)
    return _TEX_BLANK.sub(blank, text)


def _math_spans(line: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(start, end, delimiter length) of inline math: `$$…$$`, and `$…$` with no space just
    inside the dollars and no digit right after the closing one (so `$5 and $10` is money)."""
    spans, pos = [], 0
    while (start := line.find("$", pos)) >= 0:
        if any(a <= start < b for a, b in taken) or (start > 0 and line[start - 1] == "\\"):
            pos = start + 1
            continue
        if line.startswith("$$", start):
            end = line.find("$$", start + 2)
            if end < 0:
                break
            spans.append((start, end + 2, 2))
            pos = end + 2
            continue
        end = start + 1
        while (end := line.find("$", end)) >= 0 and line[end - 1] == "\\":
            end += 1
        if end < 0:
            break
        inner = line[start + 1 : end]
        after = line[end + 1 : end + 2]
        if inner and not inner[0].isspace() and not inner[-1].isspace() and not after.isdigit():
            spans.append((start, end + 1, 1))
            pos = end + 1
        else:
            pos = start + 1
    return spans


_BRACKET_MATH = re.compile(r"(\\\\?)\((.+?)\1\)|(\\\\?)\[(.+?)\3\]")


def _bracket_math_spans(line: str, taken: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """(start, end, delimiter length) of math written `\\(…\\)` or `\\[…\\]` (MathJax), or
    `\\\\(…\\\\)` where Markdown escapes its backslash; inside `$…$` or code it is no delimiter."""
    return [
        (m.start(), m.end(), len(m.group(1) or m.group(3)) + 1)
        for m in _BRACKET_MATH.finditer(line)
        if not any(a <= m.start() < b for a, b in taken) and not _in_dollars(line, m.start())
    ]


def _in_dollars(line: str, at: int) -> bool:
    return line.count("$", 0, at) % 2 == 1


def _mask_quotes(chars: list[str], taken: list[tuple[int, int]], line: str) -> None:
    """Blank the quotes that open or close a quotation in `chars` (`line` made readable so far,
    the same length: its quotes are where `line` has them, or inside `taken`)."""
    n = len(chars)
    for m in _QUOTE.finditer(line):
        p = m.start()
        if chars[p] not in _QUOTES or any(a <= p < b for a, b in taken):
            continue
        opening = (p == 0 or chars[p - 1] in _OPEN_BEFORE) and p + 1 < n and not chars[p + 1].isspace()
        closing = (p + 1 == n or chars[p + 1] in _CLOSE_AFTER) and p > 0 and not chars[p - 1].isspace()
        if opening or closing:
            chars[p] = " "


def _math_parts(line: str, start: int, end: int) -> list[tuple[int, int]]:
    """The spans of math between two offsets, without its `\\text{…}` groups (words there are labels)."""
    parts, at = [], start
    for m in _TEX_WRAP.finditer(line, start, end):
        parts.append((at, m.start()))
        at = m.end()
    parts.append((at, end))
    return [(a, b) for a, b in parts if b > a]


def readable(line: str, in_math: bool = False) -> tuple[str, list[tuple[int, int]], list[tuple[int, int]]]:
    """The line made readable for arithmetic (same length), its code spans and its math spans."""
    if not (
        "`" in line
        or "$" in line
        or "\\" in line
        or "](" in line
        or "http" in line
        or "\\*" in line
        or any(q in line for q in _QUOTES)
    ):
        return line, [], []
    if in_math:
        return _tex(line), [], _math_parts(line, 0, len(line))
    chars = list(line)
    code: list[tuple[int, int]] = []
    taken: list[tuple[int, int]] = []  # what no later rule may touch
    if "`" in line:
        for m in CODE_SPAN_RE.finditer(line):
            if _arithmetic(m.group(2)):  # its backticks go, those of a span inside it too
                chars[m.start() : m.end()] = line[m.start() : m.end()].replace("`", " ")
                code.append((m.start(), m.end()))
            else:
                chars[m.start() : m.end()] = "a" * (m.end() - m.start())
                taken.append((m.start(), m.end()))
    spans = taken + code
    for m in _LINK_TARGET.finditer(line):
        if not any(a <= m.start() < b for a, b in spans):
            chars[m.start() : m.end()] = "a" * (m.end() - m.start())
            taken.append((m.start(), m.end()))
    maths: list[tuple[int, int]] = []
    if "$" in line or "\\(" in line or "\\[" in line:
        for start, end, delim in _math_spans(line, taken + code) + _bracket_math_spans(line, taken + code):
            inner = _tex(line[start + delim : end - delim])
            chars[start:end] = " " * delim + inner + " " * delim
            taken.append((start, end))
            maths += _math_parts(line, start + delim, end - delim)
    for at in _ESCAPED_STAR.finditer(line):  # `64M \\* 16 bits`: a star escaped for Markdown
        if not any(a <= at.start() < b for a, b in taken + code):
            chars[at.start()] = " "
    _mask_quotes(chars, taken, line)
    return "".join(chars), code, maths


def note_lines(text: str, only_signs: bool = False) -> Iterator[ProseLine]:
    """Every line of a note whose claims are checked, raw and readable; `only_signs`: only
    those with a relation sign or an arrow (the only ones a claim can be on), and the line
    before one that starts with a sign (`3 × 4` above `= 12`)."""
    if not only_signs:
        yield from (ProseLine(*read) for read in _note_lines(text))
        return
    signed = _lines_with(text, _SIGNS)
    before: tuple[int, str, bool] | None = None  # the line just read and not given
    # Read only what can be given, and what opens or closes a fence, region, comment or math
    # block; no other line changes what the lines after it are (most of a note is neither).
    wanted = signed | {number - 1 for number in signed} | _lines_with(text, _STATE_MARKS)
    for read in _note_lines(text, wanted):
        number, line, _ = read
        if number in signed and _HAS_SIGN.search(line):
            if before is not None and before[0] == number - 1 and _STARTS_WITH_SIGN.match(line):
                yield ProseLine(*before)
            before = None
            yield ProseLine(*read)
        else:
            before = read


def _lines_with(text: str, marks: tuple[str, ...]) -> set[int]:
    """The numbers of the lines with one of `marks` as written (a line once its comments are
    blanked has none it did not have): found by `str.find`, many times faster here than a
    regex search of every line, and most lines have none."""
    offsets = []
    for mark in marks:
        at = text.find(mark)
        while at >= 0:
            offsets.append(at)
            at = text.find(mark, at + 1)
    numbers, line, last = set(), 1, 0
    for at in sorted(offsets):
        line += text.count("\n", last, at)
        last = at
        numbers.add(line)
    return numbers


def _note_lines(text: str, wanted: set[int] | None = None) -> Iterator[tuple[int, str, bool]]:
    """(number, line with comments blanked, whether in a display-math block) of each line
    checked; of the lines `wanted` only, when given (they must hold every line with a mark of
    `_STATE_MARKS`)."""
    lines = text.split("\n")
    fm = _FRONT_MATTER.match(text) if text.startswith("---") else None
    first = fm.group().count("\n") if fm else 0
    numbers = range(first + 1, len(lines) + 1) if wanted is None else sorted(n for n in wanted if n > first)
    fence: tuple[str, bool] | None = None  # (closing fence prefix, skip contents)
    region: str | None = None
    in_comment = in_math = False
    for number in numbers:
        line = lines[number - 1]
        opener = _FENCE.match(line) if "```" in line or "~~~" in line else None
        if fence is not None:
            if opener and opener.group(1).startswith(fence[0]) and not opener.group(2):
                fence = None
            elif not fence[1] and IGNORE_MARK not in line:
                yield number, line, False
            continue
        if region is not None:
            if f"vaultkit:end {region}" in line:
                region = None
            continue
        if opener and not in_comment:
            fence = (opener.group(1), opener.group(2).lower() == "vaultkit")
            continue
        begin = _REGION_BEGIN.search(line) if "vaultkit:begin" in line else None
        if begin and not in_comment:
            region = begin.group(1)
            continue
        masked, in_comment = _mask_comments(line, in_comment)
        if "$$" in masked:
            stripped = masked.strip().lstrip(">").strip()
            if stripped == "$$" or stripped.startswith("$$") and stripped.count("$$") == 1:
                in_math = not in_math  # a display block opens or closes here
                math_line = True
            else:
                math_line = in_math
        else:
            math_line = in_math
        if IGNORE_MARK in line:
            continue
        yield number, masked, math_line


_TABLE_TOTAL = re.compile(r"\b(?:total|sum)\b|总计|合计|总和|总共|共计", re.I)
# the label of a table's total row: `**Total**`, `合计` (not `Total per layer`, a quantity)
TABLE_TOTAL_NAME = re.compile(r"\A[ \t*]*(?:(?:grand )?total|sum|总计|合计|总和|总共|共计)[ \t*:：]*\Z", re.I)
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)+\|?[ \t]*\Z")
_CELL = re.compile(
    r"[ \t]*(?:\*\*)?(?P<body>(?P<about>[~≈][ ]?)?(?P<number>\d[\d,]*(?:\.\d+)?)[ ]?(?P<unit>[A-Za-z%]*(?:/[A-Za-z]+)?))(?:\*\*)?[ \t]*\Z"
)
_HEADER_UNIT = re.compile(r"[(（]([^()（）]+)[)）]")


class TableCell:
    """A cell of a pipe table that holds one number: `19.3M`, `**~40M**`, `5.6 ms`."""

    __slots__ = ("text", "about", "unit", "start", "end")

    def __init__(self, m: re.Match, offset: int):
        self.text = m.group("body").strip("~≈ ")
        self.about = m.group("about") is not None  # `~40M`: about
        self.unit = m.group("unit")
        self.start, self.end = offset + m.start("number"), offset + m.end("body")


def table_totals(text: str, rows: set[int]) -> Iterator[tuple[int, str, list[TableCell], TableCell]]:
    """(line number, line, parts, total) of each row of a pipe table whose header names a total
    column (`Total`, `Sum`, `总计`, …): the parts are the cells just left of the total, in the same
    unit as it (the unit its header names in brackets, or the one its cells are written in), not
    the first column (a row's label). Only rows with two parts or more; `rows`: the table lines
    (`table_lines`)."""
    if not rows:
        return
    lines = text.split("\n")
    starts = [n for n in rows if n - 1 not in rows and n + 1 in rows and _TABLE_TOTAL.search(lines[n - 1])]
    rows = {n for start in starts for n in range(start, _table_end(start, rows))}
    if not rows:
        return
    header: list[tuple[str, int]] | None = None
    previous: tuple[int, str] | None = None
    for number, line, _ in _note_lines(text, rows | _lines_with(text, _STATE_MARKS)):
        if number not in rows or previous is not None and previous[0] != number - 1:
            header = None
            previous = (number, line) if number in rows else None
            continue
        if header is None:
            if previous is not None and _TABLE_RULE.match(line):
                header = _cells(previous[1])
            previous = (number, line)
            continue
        previous = (number, line)
        yield from _row_totals(number, line, header)


def table_rows(text: str, rows: set[int]) -> Iterator[tuple[list[str], list[tuple[int, str, list[TableCell | None]]]]]:
    """(header cells, data rows) of each pipe table of a note (`rows`: its table lines); a data
    row is (line number, line, its cells: a `TableCell` where the cell holds one number, else None)."""
    if not rows:
        return
    header: list[str] | None = None
    data: list[tuple[int, str, list[TableCell | None]]] = []
    previous: tuple[int, str] | None = None
    for number, line, _ in _note_lines(text, rows | _lines_with(text, _STATE_MARKS)):
        if number not in rows or previous is not None and previous[0] != number - 1:
            if header is not None:
                yield header, data
            header, data = None, []
            previous = (number, line) if number in rows else None
            continue
        if header is None:
            if previous is not None and _TABLE_RULE.match(line):
                header = [cell for cell, _ in _cells(previous[1])]
            previous = (number, line)
            continue
        previous = (number, line)
        data.append((number, line, [_table_cell(cell) for cell in _cells(line)]))
    if header is not None:
        yield header, data


_TABLE_LINE = re.compile(r"^[ \t>]*\|", re.M)


def _table_end(start: int, rows: set[int]) -> int:
    """The number of the first line after the table whose first line is `start`."""
    end = start
    while end in rows:
        end += 1
    return end


def table_lines(text: str) -> set[int]:
    """The numbers of the lines that start with `|` (in a quote too): a pipe table's."""
    return _line_numbers(text, _TABLE_LINE) if "|" in text else set()


def _line_numbers(text: str, pattern: re.Pattern) -> set[int]:
    """The numbers of the lines `pattern` is found on (looked for once a line)."""
    numbers, line, last, pos = set(), 1, 0, 0
    while (m := pattern.search(text, pos)) is not None:
        line += text.count("\n", last, m.start())
        last = m.start()
        numbers.add(line)
        pos = text.find("\n", m.end()) + 1
        if pos == 0:
            break
    return numbers


def _cells(line: str) -> list[tuple[str, int]]:
    """The cells of a table line with their offsets, the outer pipes dropped."""
    out, start = [], 0
    body = line.rstrip()
    for k, part in enumerate(body.split("|")):
        if part.strip() or 0 < k < body.count("|"):
            out.append((part, start))
        start += len(part) + 1
    return out


def _row_totals(number: int, line: str, header: list[tuple[str, int]]):
    cells = _cells(line)
    if len(cells) != len(header):
        return
    for t, (name, _) in enumerate(header):
        if t < 3 or not _TABLE_TOTAL.search(name):
            continue
        total = _table_cell(cells[t])
        if total is None:
            continue
        unit = _HEADER_UNIT.search(name)
        parts = []
        for k in range(t - 1, 0, -1):
            cell = _table_cell(cells[k])
            same_header = (_HEADER_UNIT.search(header[k][0]) or ["", ""])[1] == (unit[1] if unit else "")
            if cell is None or cell.unit != total.unit or unit is not None and not same_header:
                break
            parts.append(cell)
        if len(parts) >= 2:
            yield number, line, parts[::-1], total


def _table_cell(cell: tuple[str, int]) -> TableCell | None:
    m = _CELL.match(cell[0])
    return TableCell(m, cell[1]) if m else None


# What makes a line claim-like though no claim was read on it: numbers combined (`40 × 4`,
# `2 \\times 3`) and then a result stated in words (`sum to 49.3M`, `得 1948`), a total, a value with
# its arithmetic in brackets or in a code comment, a step `=>` between numbers, a named result, a
# percent or a multiple beside other numbers, or a table row with two numbers or more; or a sign
# between numbers that no claim was read around.
_STATED = re.compile(  # `A × B gives 12`, `2 + 2 + 4 + 4 + 4 合计 16`: the result right after its arithmetic
    r"\d[A-Za-z%]{0,4}[ \t]*(?:[×*/÷+]|\\times|\\cdot|\\div)[ \t]*[\d(][\dA-Za-z% ×*/÷+().,\-−]{0,80}?[ \t]*"
    r"(?:\b(?:sums? to|add(?:s|ing)? up to|gives?|giving|yields?|makes?|totals?|totaling|equals?|is|are|comes? to)\b"
    r"|得到|得|为|是|约|共|合计|总计|即|等于)[ \t:：]*[~≈约]?[ \t]*\d"
)
# `Total: 99.2 MB`, `单层总计: ~907M FLOPs`, `total = 131,584 parameters`: a total whose parts are elsewhere
_TOTAL_STATED = re.compile(
    r"(?:\b(?:[Tt]otal|TOTAL|[Ss]ubtotal|[Ss]um)\b|总计|小计|合计|共计|总共|总和|总量)[^\n\d|]{0,30}?"
    r"(?:[:：=≈~]|约)[ \t*$`]*(?:[~≈约][ \t]*)?\d(?![\d,.]*[ \t]*[×*/+^])"
)
# `~4 GB (500M × 8 bytes)`, `197 (196 + 1 CLS)`, `38GB (`2.12*18`)`: a value, then arithmetic in brackets
_BRACKETED = re.compile(
    r"\d[^\n()（）\d]{0,24}[(（][^()（）\n]{0,40}?\d[^()（）\n\d]{0,24}?[×*/÷+][ \t`]*\d[^()（）\n]{0,60}?[)）]"
)
# `7e9 * 2 * 2 / 1024**3  # 26.0 GB`: arithmetic, and its result in a comment after it
_COMMENTED = re.compile(r"\d[ \t]*(?:[×*/+]|\*\*)[ \t]*[\d(][^\n#]*?(?:#|//)[ \t]*[~≈约]?[ \t]*\$?\d")
# `1_614_870_800 / 4 (TP=4) => 403_717_700`, `2 × 1024 -> 2,048`: arithmetic, then a step written with an
# ASCII arrow to a number (not `10.1.1.2:80 -> 10.1.1.3:80`)
_ASCII_STEP = re.compile(
    r"(?<![\w.])\d[\d,_]*(?:\.\d+)?[ \t]*(?:[×*/+·]|\*\*)[ \t]*\d[^\n]{0,80}?(?<![=<\-])(?:=>|->)(?!>)[ \t`*]*[~≈]?[ \t]*\d"
)
# `z = 4.0`, `realistic = ~265 TFLOPS`, `P ≈ 1,555,126,400`: a result given to a name (a bare
# whole number after `=`, or `=` unspaced, is an option or a setting: `warps = 8`, `weight=50MB`)
_NAMED = re.compile(
    r"[A-Za-z_\u4e00-\u9fff)\]*}](?:"
    r"[ \t]+(?:=|:=|~=)(?![=>])[ \t]+[*`$]*[ \t]*(?:[~≈][ \t]*)?\d+(?:,\d{3})*(?:\.\d+|[ ]?%|[ ]?(?![eE][-+\d])[A-Za-z\u4e00-\u9fff])(?![\d.]*[ \t]*[×*/+^])"
    r"|[ \t]*(?:≈|\\approx)[ \t]*[*`$]*[ \t]*\d)"
)
# `1.4 TB/s (70% of peak)`, `80B (+48%)`, `16.8M (8x more)`, `54% of the 936 GB/s`: a value and how it
# compares (a percent or a multiple alone, `accuracy rose to 85%`, `2-3x faster`, is no claim)
_COMPARED = re.compile(
    r"\d[^\n()（）\d]{0,20}[(（][ \t]*[~≈约]?[+\-−]?\d+(?:\.\d+)?[ ]?(?:%|[×xX倍](?![A-Za-z0-9]))"
    r"|(?<![\w.\-−~])\d+(?:\.\d+)?[ ]?%[ ]?(?:of|of the|是|于)\b[^\n\d]{0,30}\d"
)
_DERIVED_CELL = re.compile(r"\d(?:\.\d+)?[ ]?(?:[×%]|倍|x(?![A-Za-z0-9]))|\d[ \t]*(?:[×*÷]|\\times)[ \t]*\d")
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*")
# `[64, 256] = 32 kB`, `(≈2.66×)` (not an option's `weight=50`, code's `==`, nor the arrows of a flow)
_SIGN_AMID_NUMBERS = re.compile(
    r"\d[^\n\d=≈]{0,12}(?:(?<![\w\"'$\]=!<>:+\-*/%|&^])=(?![=>~])|≈|\\approx)[^\n\d]{0,12}\d"
)
# `\text{MLA} & 894M & 2.721 & 576 \\`: a row of a LaTeX table; `Params │ 2.1M │ 16.8M`: of a drawn one
_CELL_ROW = re.compile(r"&.*\\\\[ \t]*$|[│┃].*[│┃]|\S[ \t]+\|[ \t]+\S.*[ \t]\|[ \t]")
SIGN_NOT_READ = "a sign between numbers, but no expression and value read around it"
TABLE_ROW = "a table row: a cell derived from others is read only in a total column"
TABLE_NUMBERS = "a table row of numbers: no relation between its cells read"
IN_WORDS = "numbers combined and a result stated in words, not after `=` or `≈`"
TOTAL_STATED = "a total stated without its parts on the line"
BRACKETED = "a value with the arithmetic it comes from in brackets, not read as `expr = value`"
COMMENTED = "arithmetic with its result in a code comment, not read as `expr = value`"
ASCII_STEP = "a step `=>` or `->` between numbers, not read as a claim"
NAMED = "a result given a name: what it is computed from is not on the line"
COMPARED = "a percent or a multiple beside other numbers: what it compares is not read"
# why a claim-like line no reading reached is listed, by the shape that makes it claim-like (the first that holds)
# (shape, why, what a line of it has: patterns that each begin with a character to look for, so
# they are found fast in the whole text, where the shape is searched for only on the lines that
# have one; none: the shape is such a pattern), in the order a line's reason is taken
_SHAPES = (
    (_STATED, IN_WORDS, ()),
    (_COMMENTED, COMMENTED, (re.compile(r"[#/](?:(?<=#)|(?<=//))[ \t]*[~≈约]?[ \t]*\$?\d"),)),
    (_ASCII_STEP, ASCII_STEP, (re.compile(r"[=-]>[ \t`*]*[~≈]?[ \t]*\d"),)),
    (_BRACKETED, BRACKETED, (re.compile(r"[(（][^()（）\n]{0,40}?\d[^()（）\n\d]{0,24}?[×*/÷+]"),)),
    (
        _TOTAL_STATED,
        TOTAL_STATED,
        (
            re.compile("otal"),
            re.compile("OTAL"),
            re.compile("um(?<=[Ss]um)"),
            re.compile("[计共和量](?<=总[计共和量]|[小合共]计)"),
        ),
    ),
    (_NAMED, NAMED, (re.compile(r"[=≈](?:(?<=[^\s\d=!<>:+\-*/%] =)|(?<=[^\s\d]  =)|(?<=[^\d\s] ≈)|(?<=[^\d\s]≈))"),)),
    (
        _COMPARED,
        COMPARED,
        (re.compile(r"[(（][ \t]*[~≈约]?[+\-−]?\d+(?:\.\d+)?[ ]?[%×xX倍]"), re.compile(r"%[ ]?(?:of|是|于)")),
    ),
)
_ROWS = (
    re.compile(r"&[^\n]*\\\\[ \t]*$", re.M),
    re.compile(r"[│┃][^\n]*[│┃]"),
    re.compile(r"\|(?<=[^\s|][ \t]\|)[ \t][^\n|]*[^\s|][ \t]\|[ \t]"),
)
UNREAD = (TABLE_ROW, TABLE_NUMBERS, SIGN_NOT_READ, *(why for _, why, _ in _SHAPES))
MIN_ROW_NUMBERS = 2


def unread_lines(text: str, listed: set[int], rows: set[int]) -> Iterator[tuple[int, str, str]]:
    """(number, line, why) of each claim-like line of a note not in `listed` (the lines an
    entry of `--explain` already names) that no claim was read from: a table row (of `rows`,
    or a LaTeX or drawn table's) with two numbers or more, or a line of one of `_SHAPES`. A
    sign amid numbers is the reader's to say (`sign_amid_numbers`): its lines are read already."""
    if len(text) > MAX_CHARS and max(map(len, text.split("\n"))) > MAX_CHARS:
        text = "\n".join(line if len(line) <= MAX_CHARS else "" for line in text.split("\n"))  # not read
    candidates, lines = set(rows), text.split("\n")
    for shape, _, scans in (*_SHAPES, (_CELL_ROW, TABLE_NUMBERS, _ROWS)):
        if not scans:
            candidates |= _line_numbers(text, shape)
        for scan in scans:
            candidates |= {n for n in _line_numbers(text, scan) - candidates if shape.search(lines[n - 1])}
    candidates -= listed
    if not candidates:
        return
    for number, raw, _ in _note_lines(text, candidates | _lines_with(text, _STATE_MARKS)):
        if number not in candidates:
            continue
        raw = mask_marker(raw)
        why = _unread_reason(_LINK_TARGET.sub(lambda m: "a" * len(m.group()), raw), number in rows)
        if why:
            yield number, raw, why


_WIKI_LINK = re.compile(r"\[\[[^\]\n]*\]\]")
_NUMBER_CELL = re.compile(
    r"[ \t*~≈约]*[+\-−]?\d[\d,]*(?:\.\d+)?[ ]?[A-Za-z%/µμ]{0,8}[ \t*]*(?:[(（][^()（）]{0,30}[)）])?[ \t*]*\Z"
)


def _unread_reason(line: str, table_row: bool) -> str:
    """Why a claim-like line no reading reached is listed, or "" when it is not claim-like: a
    table row with two cells or more (past its label) that are numbers or numbers combined."""
    if table_row or _CELL_ROW.search(line):
        cells = re.split(r"[|│┃&]", _WIKI_LINK.sub("", line).rstrip(" \t\\"))[1:]
        derived = [cell for cell in cells if _DERIVED_CELL.search(cell)]
        numbers = [cell for cell in cells if _NUMBER_CELL.match(cell) or cell in derived]
        if len(numbers) >= MIN_ROW_NUMBERS:
            return TABLE_ROW if derived else TABLE_NUMBERS
        if table_row:
            return TOTAL_STATED if _TABLE_TOTAL.search(line) and any(_NUMBER.search(c) for c in cells) else ""
    for shape, why, _ in _SHAPES:
        if shape.search(line):
            return why
    return ""


def sign_amid_numbers(line: str) -> bool:
    """`[64, 256] = 32 kB`, `(≈2.66×)`: a sign with numbers close on both sides."""
    return _SIGN_AMID_NUMBERS.search(line) is not None
