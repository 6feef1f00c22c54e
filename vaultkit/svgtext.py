"""The one reader of SVG text: every run of characters inside `<text>`, where it is and what holds it.

An SVG is parsed with the standard library's expat (comments, CDATA and entities handled as XML
says). Each run of character data inside a `<text>` becomes a `TextRun` with its source span
(character offsets into the file, so a number can be rewritten in place), its decoded text,
its position in user units (`x`/`y`/`dx`/`dy` of `<text>` and `<tspan>`, `transform` of every
ancestor) and its ancestry. `<rect>`s are kept as cards. The claims checker and the drawing
reader both read SVGs through `read_svg`.
"""

from __future__ import annotations

import math
import re
import xml.parsers.expat
from dataclasses import dataclass, field

Affine = tuple[float, float, float, float, float, float]  # a b c d e f: x' = a x + c y + e
IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
LENGTH = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(em|px|%)?")
FONT_SIZE = re.compile(r"font-size\s*:\s*([\d.]+)\s*px")
WIDE = re.compile(r"[\u1100-\uffff]")  # CJK and other full-width glyphs: about 1 em wide
DEFAULT_FONT = 16.0


@dataclass(frozen=True)
class Element:
    name: str  # local name, without a namespace prefix
    attrs: dict
    start: int  # character offset of its `<`

    def get(self, key: str, default=None):
        return self.attrs.get(key, default)


@dataclass
class TextRun:
    """Character data inside a `<text>`: `raw` is the source, `text` what it says."""

    raw: str
    text: str
    start: int  # character offset of `raw` in the file
    x: float
    y: float
    ancestry: tuple[Element, ...]  # open elements, the root first
    element: int  # offset of the enclosing `<text>`: runs of one text element share it
    font_size: float = DEFAULT_FONT

    def pin(self) -> str | None:
        """The innermost `data-vk` among the ancestors."""
        for element in reversed(self.ancestry):
            if "data-vk" in element.attrs:
                return element.attrs["data-vk"].strip()
        return None

    def anchor(self) -> str:
        for element in reversed(self.ancestry):
            if "text-anchor" in element.attrs:
                return element.attrs["text-anchor"]
        return "start"

    def groups(self) -> tuple[int, ...]:
        """Offsets of the `<g>` elements that hold the run, the outermost first."""
        return tuple(e.start for e in self.ancestry if e.name == "g")


@dataclass
class Card:
    """A `<rect>`, in user units after transforms (axis-aligned only)."""

    x: float
    y: float
    w: float
    h: float

    def holds(self, x: float, y: float) -> bool:
        return self.x <= x <= self.x + self.w and self.y <= y <= self.y + self.h

    @property
    def area(self) -> float:
        return self.w * self.h


@dataclass
class SvgText:
    source: str
    root: dict  # attributes of the root <svg>
    runs: list[TextRun] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)  # the root's <title> and <desc>

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        line = self.source.count("\n", 0, offset) + 1
        return line, offset - (self.source.rfind("\n", 0, offset) + 1) + 1

    def card_of(self, x: float, y: float) -> Card | None:
        """The smallest card that holds the point."""
        holding = [c for c in self.cards if c.holds(x, y)]
        return min(holding, key=lambda c: c.area) if holding else None


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1].rsplit(":", 1)[-1]


def _multiply(m: Affine, n: Affine) -> Affine:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (a * a2 + c * b2, b * a2 + d * b2, a * c2 + c * d2, b * c2 + d * d2,
            a * e2 + c * f2 + e, b * e2 + d * f2 + f)


def parse_transform(text: str) -> Affine | None:
    """The affine matrix of a `transform` attribute; None for rotations and skews we do not place."""
    m = IDENTITY
    for name, args in TRANSFORM.findall(text):
        v = [float(n) for n in NUMBER.findall(args)]
        if name == "matrix" and len(v) == 6:
            step = tuple(v)
        elif name == "translate" and len(v) in (1, 2):
            step = (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) == 2 else 0.0)
        elif name == "scale" and len(v) in (1, 2):
            step = (v[0], 0.0, 0.0, v[1] if len(v) == 2 else v[0], 0.0, 0.0)
        elif name == "rotate" and v and v[0] % 360 == 0:
            continue
        else:
            return None
        m = _multiply(m, step)
    return m


def _apply(m: Affine | None, x: float, y: float) -> tuple[float, float]:
    if m is None:
        return math.nan, math.nan
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def _length(value: str | None, font: float) -> float | None:
    """The first length of an attribute (`x="10 20"` lists a position per glyph); em in font units."""
    if value is None:
        return None
    match = LENGTH.match(value)
    if not match:
        return math.nan
    number, unit = float(match.group(1)), match.group(2)
    return number * font if unit == "em" else math.nan if unit == "%" else number


def _font_size(attrs: dict, inherited: float) -> float:
    size = _length(attrs.get("font-size"), inherited)
    if size is None:
        found = FONT_SIZE.search(attrs.get("style", ""))
        size = float(found.group(1)) if found else None
    return size if size and math.isfinite(size) and size > 0 else inherited


def _advance(text: str, font: float) -> float:
    """A rough width of a run: what moves the next `<tspan>` without its own x."""
    return font * (0.6 * len(text) + 0.4 * len(WIDE.findall(text)))


class _Reader:
    def __init__(self, source: str):
        self.model = SvgText(source, {})
        self.data = source.encode("utf-8")
        self.parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.chars
        for handler in ("CommentHandler", "ProcessingInstructionHandler", "StartCdataSectionHandler",
                        "EndCdataSectionHandler"):
            setattr(self.parser, handler, self.other)
        self.stack: list[tuple[Element, Affine | None, float]] = []  # element, its CTM, font size
        self.cursor: list[float] = [math.nan, math.nan]  # current text position, in the text's own units
        self.pending: list[tuple[int, str]] = []  # (byte index, data) of the run being read
        self.byte_at, self.char_at = 0, 0  # last byte offset converted, and its character offset
        self.title_text = ""  # character data of a root <title> or <desc>

    def offset(self, byte_index: int) -> int:
        """Character offset of a byte offset (events arrive in order)."""
        if byte_index >= self.byte_at:
            self.char_at += len(self.data[self.byte_at:byte_index].decode("utf-8"))
        else:
            self.char_at = len(self.data[:byte_index].decode("utf-8"))
        self.byte_at = byte_index
        return self.char_at

    def in_text(self) -> bool:
        return any(e.name == "text" for e, _, _ in self.stack)

    def flush(self) -> None:
        """Close the pending run at the current event."""
        if not self.pending:
            return
        first = self.pending[0][0]
        text = "".join(d for _, d in self.pending)
        self.pending = []
        end = self.parser.CurrentByteIndex
        start = self.offset(first)
        raw = self.model.source[start:self.offset(end)]
        element, ctm, font = self.stack[-1]
        x, y = _apply(ctm, *self.cursor)
        text_start = next(e.start for e, _, _ in reversed(self.stack) if e.name == "text")
        self.model.runs.append(TextRun(raw, text, start, x, y, tuple(e for e, _, _ in self.stack),
                                       text_start, font))
        self.cursor[0] += _advance(text, font)

    def other(self, *_args) -> None:
        self.flush()

    def start(self, name: str, attrs: dict) -> None:
        self.flush()
        name = _local(name)
        element = Element(name, attrs, self.offset(self.parser.CurrentByteIndex))
        parent_ctm, parent_font = (self.stack[-1][1], self.stack[-1][2]) if self.stack else (IDENTITY, DEFAULT_FONT)
        ctm = parent_ctm
        if "transform" in attrs and ctm is not None:
            own = parse_transform(attrs["transform"])
            ctm = None if own is None else _multiply(ctm, own)
        font = _font_size(attrs, parent_font)
        if not self.stack:
            self.model.root = attrs
        if name == "text":
            self.cursor = [math.nan, math.nan]
        if name in ("text", "tspan"):
            for axis, key in ((0, "x"), (1, "y")):
                absolute = _length(attrs.get(key), font)
                if absolute is not None:
                    self.cursor[axis] = absolute
                shift = _length(attrs.get("d" + key), font)
                if shift is not None:
                    self.cursor[axis] = (0.0 if math.isnan(self.cursor[axis]) and name == "text"
                                         else self.cursor[axis]) + shift
        elif name == "textPath":
            self.cursor = [math.nan, math.nan]  # along a path: no place we can tell
        elif name == "rect":
            x, y, w, h = (_length(attrs.get(k, "0"), font) for k in ("x", "y", "width", "height"))
            (x0, y0), (x1, y1) = _apply(ctm, x, y), _apply(ctm, x + w, y + h)
            if all(math.isfinite(v) for v in (x0, y0, x1, y1)):
                self.model.cards.append(Card(min(x0, x1), min(y0, y1), abs(x1 - x0), abs(y1 - y0)))
        self.stack.append((element, ctm, font))

    def end(self, name: str) -> None:
        self.flush()
        element = self.stack.pop()[0]
        if element.name in ("title", "desc") and len(self.stack) == 1:
            self.model.titles.append(self.title_text.strip())
        self.title_text = ""

    def chars(self, data: str) -> None:
        if self.in_text():
            self.pending.append((self.parser.CurrentByteIndex, data))
        elif self.stack and self.stack[-1][0].name in ("title", "desc"):
            self.title_text += data


def read_svg(source: str) -> SvgText | None:
    """The text model of an SVG; None when it is not well-formed XML (browsers do not draw it)."""
    reader = _Reader(source)
    try:
        reader.parser.Parse(reader.data, True)
    except xml.parsers.expat.ExpatError:
        return None
    return reader.model
