"""The one reader of SVG text: every run of characters inside `<text>`, where it is and what holds it.

An SVG is parsed with the standard library's expat (comments, CDATA and entities handled as XML
says). Each run of character data inside a `<text>` becomes a `TextRun` with its source span
(character offsets into the file, so a number can be rewritten in place), its decoded text,
its position in user units (`x`/`y`/`dx`/`dy` of `<text>` and `<tspan>`, the `transform` of every
ancestor: translate, scale, rotate, skew and matrix, nested), where the middle of its glyphs
is (after `text-anchor`), its font size in user units and its ancestry. `<rect>`s and
`<image>`s are kept as cards, and the boxes of lines and paths as strokes (a bracket drawn beside a matrix). The
claims checker and the drawing reader both read SVGs through `read_svg`.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
import unicodedata
import xml.parsers.expat
from dataclasses import dataclass, field

Affine = tuple[float, float, float, float, float, float]  # a b c d e f: x' = a x + c y + e
IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
TRANSFORM = re.compile(r"(matrix|translate|scale|rotate|skewX|skewY)\s*\(([^)]*)\)")
LENGTH = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(em|px|%)?")
FONT_SIZE = re.compile(r"font-size\s*:\s*([\d.]+)\s*(?:px)?")
STYLE_ANCHOR = re.compile(r"text-anchor\s*:\s*(start|middle|end)")
STYLE_FILL = re.compile(r"(?<![-\w])fill\s*:\s*([^;}]+)")
CSS_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
CSS_CLASS = re.compile(r"^(?:[a-zA-Z]*)\.([-\w]+)$")
PATH_TOKEN = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
PATH_ARGS = {"M": 2, "L": 2, "H": 1, "V": 1, "C": 6, "S": 4, "Q": 4, "T": 2, "A": 7, "Z": 0}
DEFAULT_FONT = 16.0


@dataclass(frozen=True)
class Element:
    name: str  # local name, without a namespace prefix
    attrs: dict
    start: int  # character offset of its `<`

    def get(self, key: str, default=None):
        return self.attrs.get(key, default)


class Open:
    """An open element and the one that holds it: the chain of a run's ancestors, shared by
    every run inside it (a tuple per run would cost each run the depth of its nesting)."""

    __slots__ = ("element", "parent", "_groups")

    def __init__(self, element: Element, parent: Open | None):
        self.element, self.parent, self._groups = element, parent, None

    def chain(self) -> list[Element]:
        """The open elements, the innermost first."""
        found, node = [], self
        while node is not None:
            found.append(node.element)
            node = node.parent
        return found

    def groups(self) -> tuple[int, ...]:
        if self._groups is None:
            self._groups = tuple(e.start for e in reversed(self.chain()) if e.name == "g")
        return self._groups


@dataclass
class TextRun:
    """Character data inside a `<text>`: `raw` is the source, `text` what it says."""

    raw: str
    text: str
    start: int  # character offset of `raw` in the file
    x: float
    y: float
    node: Open  # the innermost open element; its chain is the run's ancestry
    element: int  # offset of the enclosing `<text>`: runs of one text element share it
    size: float = DEFAULT_FONT  # the font size in user units (after every transform)
    cx: float = math.nan  # the middle of the run's glyphs in user units (after text-anchor)
    cy: float = math.nan
    width: float = 0.0  # a rough width of the glyphs in user units

    twins: tuple = ()  # runs that show the same text (a foreignObject and its <switch> fallback)

    @property
    def ancestry(self) -> tuple[Element, ...]:
        """The open elements, the root first."""
        return tuple(reversed(self.node.chain()))

    def pin(self) -> str | None:
        """The innermost `data-vk` among the ancestors."""
        for element in self.node.chain():
            if "data-vk" in element.attrs:
                return element.attrs["data-vk"].strip()
        return None

    anchored: str = "start"  # text-anchor, from attributes, styles and the <style> sheet's classes
    colour: str | None = None  # fill, likewise (None: not given)

    def anchor(self) -> str:
        return self.anchored

    def fill(self) -> str | None:
        """The colour the run is drawn in, as written, if any."""
        return self.colour

    @property
    def left(self) -> float:
        return self.cx - self.width / 2

    @property
    def right(self) -> float:
        return self.cx + self.width / 2

    def groups(self) -> tuple[int, ...]:
        """Offsets of the `<g>` elements that hold the run, the outermost first."""
        return self.node.groups()


@dataclass
class Card:
    """A `<rect>` (or the box of a line or path), in user units after transforms."""

    x: float
    y: float
    w: float
    h: float
    fill: str | None = None
    closed: bool = True  # a shape that goes round (a rect, a polygon, a path back at its start)

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
    strokes: list[Card] = field(default_factory=list)  # boxes of <line>, <path>, <polyline>, <polygon>
    titles: list[str] = field(default_factory=list)  # the root's <title> and <desc>
    depth: int = 0  # the deepest nesting of elements
    cache: dict = field(default_factory=dict, repr=False, compare=False)  # what readers derived once

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        if "line starts" not in self.cache:
            self.cache["line starts"] = [0] + [m.end() for m in re.finditer("\n", self.source)]
        starts = self.cache["line starts"]
        line = bisect.bisect_right(starts, offset)
        return line, offset - starts[line - 1] + 1


def _local(name: str) -> str:
    return name.rsplit(" ", 1)[-1].rsplit(":", 1)[-1]


def _multiply(m: Affine, n: Affine) -> Affine:
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def parse_transform(text: str) -> Affine | None:
    """The affine matrix of a `transform` attribute (None when it cannot be read)."""
    m = IDENTITY
    for name, args in TRANSFORM.findall(text):
        v = [float(n) for n in NUMBER.findall(args)]
        if name == "matrix" and len(v) == 6:
            step = tuple(v)
        elif name == "translate" and len(v) in (1, 2):
            step = (1.0, 0.0, 0.0, 1.0, v[0], v[1] if len(v) == 2 else 0.0)
        elif name == "scale" and len(v) in (1, 2):
            step = (v[0], 0.0, 0.0, v[1] if len(v) == 2 else v[0], 0.0, 0.0)
        elif name == "rotate" and len(v) in (1, 3):
            a = math.radians(v[0])
            cos, sin = math.cos(a), math.sin(a)
            cx, cy = (v[1], v[2]) if len(v) == 3 else (0.0, 0.0)
            step = (cos, sin, -sin, cos, cx - cos * cx + sin * cy, cy - sin * cx - cos * cy)
        elif name in ("skewX", "skewY") and len(v) == 1:
            t = math.tan(math.radians(v[0]))
            step = (1.0, 0.0, t, 1.0, 0.0, 0.0) if name == "skewX" else (1.0, t, 0.0, 1.0, 0.0, 0.0)
        else:
            return None
        m = _multiply(m, step)
    return m


def _scale_of(m: Affine | None) -> float:
    """How much the transform enlarges lengths (the square root of its area factor)."""
    if m is None:
        return math.nan
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _path_points(d: str) -> list[tuple[float, float]]:
    """The end and control points of a path's segments, absolute (enough for its box)."""
    points, x, y, start = [], 0.0, 0.0, (0.0, 0.0)
    command, args = None, []
    for token in PATH_TOKEN.findall(d):
        if token.isalpha():
            command, args = token, []
            if command in "Zz":
                x, y = start
                points.append(start)
            continue
        if command is None or command in "Zz":
            return points
        args.append(float(token))
        upper = command.upper()
        if len(args) < PATH_ARGS[upper]:
            continue
        rel = command.islower()
        if upper == "H":
            x = args[0] + (x if rel else 0.0)
        elif upper == "V":
            y = args[0] + (y if rel else 0.0)
        else:
            pairs = [(args[0], args[1])] if upper != "A" else [(args[5], args[6])]
            if upper in "CSQ":
                pairs = list(zip(args[0::2], args[1::2]))
            pairs = [(px + x, py + y) if rel else (px, py) for px, py in pairs]
            points += pairs[:-1]
            x, y = pairs[-1]
        points.append((x, y))
        if upper == "M":
            start = (x, y)
            command = "l" if rel else "L"  # further pairs after a moveto are linetos
        args = []
    return points


def _goes_round(name: str, d: str, points: list[tuple[float, float]]) -> bool:
    """A shape drawn round an area: a polygon, a path closed with Z, or one (a polyline, a
    hand-drawn path of curves) that ends near where it started."""
    if name == "polygon" or (name == "path" and "z" in d.lower()):
        return True
    if name == "line" or len(points) < 4:
        return False
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    reach = max(max(xs) - min(xs), max(ys) - min(ys))
    (x0, y0), (x1, y1) = points[0], points[-1]
    return reach > 0 and math.hypot(x1 - x0, y1 - y0) <= 0.1 * reach


def _box(ctm: Affine | None, points) -> Card | None:
    placed = [_apply(ctm, px, py) for px, py in points]
    if not placed or not all(math.isfinite(v) for p in placed for v in p):
        return None
    xs, ys = [p[0] for p in placed], [p[1] for p in placed]
    return Card(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))


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


def _property(attrs: dict, classes: dict, name: str, pattern: re.Pattern) -> str | None:
    """A presentation property as CSS resolves it: the style attribute, then a class rule of
    the document's <style>, then the attribute."""
    if found := pattern.search(attrs.get("style", "")):
        return found.group(1).strip()
    for cls in reversed(attrs.get("class", "").split()):
        if name in classes.get(cls, {}):
            return classes[cls][name]
    value = attrs.get(name)
    return value.strip() if value is not None else None


def _font_size(attrs: dict, inherited: float, classes: dict | None = None) -> float:
    value = _property(attrs, classes or {}, "font-size", FONT_SIZE)
    size = _length(value, inherited) if value is not None else None
    return size if size and math.isfinite(size) and size > 0 else inherited


def _css_classes(sheet: str) -> dict:
    """`.name { font-size: 10px; text-anchor: middle; fill: #333 }` rules, by class name."""
    classes: dict = {}
    for selectors, body in CSS_RULE.findall(re.sub(r"/\*.*?\*/", "", sheet, flags=re.S)):
        decls = {}
        for decl in body.split(";"):
            if ":" in decl:
                key, value = decl.split(":", 1)
                decls[key.strip().lower()] = value.strip()
        for selector in selectors.split(","):
            if match := CSS_CLASS.match(selector.strip()):
                classes.setdefault(match.group(1), {}).update(decls)
    return classes


def _advance(text: str, font: float) -> float:
    """A rough width of a run: what moves the next `<tspan>` without its own x (CJK and other
    wide glyphs, by Unicode's East Asian width, are about 1 em; the rest, `ᵀ`, `√`, `→`, 0.6)."""
    return font * (0.6 * len(text) + 0.4 * sum(char >= "\u1100" and _wide(char) for char in text))


@functools.lru_cache(maxsize=4096)
def _wide(char: str) -> bool:
    return unicodedata.east_asian_width(char) in "WF"


HIDING = frozenset({"defs", "marker", "clipPath", "mask", "pattern", "symbol"})
DRAWIO_PLACE = re.compile(r"(margin-left|padding-top|width)\s*:\s*([-+]?[\d.]+)px")


class _Level:
    """What an open element gives what it holds: its CTM, font size, ancestry chain, and (in a
    `foreignObject`) the point its HTML text is drawn about."""

    __slots__ = ("element", "ctm", "font", "node", "place")

    def __init__(self, element: Element, ctm: Affine | None, font: float, node: Open, place):
        self.element, self.ctm, self.font, self.node, self.place = element, ctm, font, node, place


def _foreign_place(attrs: dict, font: float) -> tuple[float, float]:
    """The middle of a foreignObject's box (NaN where its box is not given in user units)."""
    x, y, w, h = (_length(attrs.get(k, "0"), font) for k in ("x", "y", "width", "height"))
    if w is None or h is None or not (math.isfinite(w) and math.isfinite(h)):
        return math.nan, math.nan
    return (x or 0.0) + w / 2, (y or 0.0) + h / 2


def _html_place(attrs: dict, inherited: tuple[float, float]) -> tuple[float, float]:
    """Where HTML inside a foreignObject places its text: draw.io writes the box of a label as
    `margin-left`, `padding-top` (its middle line) and `width` on the label's outer <div>."""
    found = dict(DRAWIO_PLACE.findall(attrs.get("style", "")))
    if "margin-left" in found and "padding-top" in found:
        return float(found["margin-left"]) + float(found.get("width", 0)) / 2, float(found["padding-top"])
    return inherited


class _Reader:
    def __init__(self, source: str):
        self.model = SvgText(source, {})
        self.data = source.encode("utf-8")
        self.parser = xml.parsers.expat.ParserCreate(namespace_separator=" ")
        self.parser.StartElementHandler = self.start
        self.parser.EndElementHandler = self.end
        self.parser.CharacterDataHandler = self.chars
        for handler in (
            "CommentHandler",
            "ProcessingInstructionHandler",
            "StartCdataSectionHandler",
            "EndCdataSectionHandler",
        ):
            setattr(self.parser, handler, self.other)
        self.stack: list[_Level] = []
        self.hiding = 0  # open elements whose shapes are not drawn where they stand (defs, marker, …)
        self.texts: list[int] = []  # offsets of the open <text> elements
        self.foreign = 0  # open foreignObjects
        self.switches: list[list[int]] = []  # per open <switch>: index of its first run, foreign runs
        self.paint: list[tuple[str, str | None]] = []  # text-anchor and fill of each open element
        self.classes: dict = {}  # rules of the <style> sheets read so far
        self.sheet = ""
        self.cursor: list[float] = [math.nan, math.nan]  # current text position, in the text's own units
        self.pending: list[tuple[int, str]] = []  # (byte index, data) of the run being read
        self.byte_at, self.char_at = 0, 0  # last byte offset converted, and its character offset
        self.title_text = ""  # character data of a root <title> or <desc>

    def offset(self, byte_index: int) -> int:
        """Character offset of a byte offset (events arrive in order)."""
        if byte_index >= self.byte_at:
            self.char_at += len(self.data[self.byte_at : byte_index].decode("utf-8"))
        else:
            self.char_at = len(self.data[:byte_index].decode("utf-8"))
        self.byte_at = byte_index
        return self.char_at

    def flush(self) -> None:
        """Close the pending run at the current event."""
        if not self.pending:
            return
        first = self.pending[0][0]
        text = "".join(d for _, d in self.pending)
        self.pending = []
        end = self.parser.CurrentByteIndex
        start = self.offset(first)
        raw = self.model.source[start : self.offset(end)]
        level = self.stack[-1]
        ctm, font = level.ctm, level.font
        in_html = not self.texts
        if in_html:  # HTML in a foreignObject: drawn about the middle of its box
            anchor_at = level.place
            text_start = next(lv.element.start for lv in reversed(self.stack) if lv.element.name == "foreignObject")
        else:
            anchor_at = self.cursor
            text_start = self.texts[-1]
        x, y = _apply(ctm, *anchor_at)
        run = TextRun(raw, text, start, x, y, level.node, text_start)
        run.anchored, run.colour = self.paint[-1]
        if in_html:
            run.anchored = "middle"
        stripped = text.strip()
        advance = _advance(stripped, font)
        shift = {"middle": 0.0, "end": -advance / 2}.get(run.anchor(), advance / 2)
        lead = _advance(text[: len(text) - len(text.lstrip())], font) if run.anchor() == "start" else 0.0
        middle_y = anchor_at[1] - (0.0 if in_html else 0.35 * font)
        run.cx, run.cy = _apply(ctm, anchor_at[0] + lead + shift, middle_y)
        run.size = font * _scale_of(ctm)
        run.width = advance * _scale_of(ctm)
        self.model.runs.append(run)
        if in_html and self.switches:
            self.switches[-1].append(len(self.model.runs) - 1)
        if not in_html:
            self.cursor[0] += _advance(text, font)

    def other(self, *_args) -> None:
        self.flush()

    def start(self, name: str, attrs: dict) -> None:
        self.flush()
        name = _local(name)
        element = Element(name, attrs, self.offset(self.parser.CurrentByteIndex))
        parent = self.stack[-1] if self.stack else None
        parent_ctm, parent_font = (parent.ctm, parent.font) if parent else (IDENTITY, DEFAULT_FONT)
        ctm = parent_ctm
        if "transform" in attrs and ctm is not None:
            own = parse_transform(attrs["transform"])
            ctm = None if own is None else _multiply(ctm, own)
        font = _font_size(attrs, parent_font, self.classes)
        parent_anchor, parent_fill = self.paint[-1] if self.paint else ("start", None)
        anchor = _property(attrs, self.classes, "text-anchor", STYLE_ANCHOR)
        fill = _property(attrs, self.classes, "fill", STYLE_FILL)
        self.paint.append(
            (anchor if anchor in ("start", "middle", "end") else parent_anchor, fill.lower() if fill else parent_fill)
        )
        if not self.stack:
            self.model.root = attrs
        place = parent.place if parent else (math.nan, math.nan)
        if name == "text":
            self.cursor = [math.nan, math.nan]
            self.texts.append(element.start)
        if name in ("text", "tspan"):
            for axis, key in ((0, "x"), (1, "y")):
                absolute = _length(attrs.get(key), font)
                if absolute is not None:
                    self.cursor[axis] = absolute
                shift = _length(attrs.get("d" + key), font)
                if shift is not None:
                    self.cursor[axis] = (
                        0.0 if math.isnan(self.cursor[axis]) and name == "text" else self.cursor[axis]
                    ) + shift
        elif name == "textPath":
            self.cursor = [math.nan, math.nan]  # along a path: no place we can tell
        elif name == "foreignObject":
            self.foreign += 1
            place = _foreign_place(attrs, font)
        elif name == "switch":
            self.switches.append([len(self.model.runs)])
        elif self.foreign:
            place = _html_place(attrs, place)
        elif self.hiding:
            pass  # a marker's or pattern's shapes are drawn elsewhere, if at all
        elif name in ("rect", "image"):  # an image (a heatmap's raster) covers its box as a rect does
            x, y, w, h = (_length(attrs.get(k, "0"), font) for k in ("x", "y", "width", "height"))
            box = _box(ctm, [(x, y), (x + w, y), (x, y + h), (x + w, y + h)])
            if box is not None:
                box.fill = self.paint[-1][1]
                self.model.cards.append(box)
        elif name in ("line", "path", "polyline", "polygon"):
            if name == "line":
                points = [
                    (_length(attrs.get(f"x{i}", "0"), font), _length(attrs.get(f"y{i}", "0"), font)) for i in (1, 2)
                ]
            elif name == "path":
                points = _path_points(attrs.get("d", ""))
            else:
                values = [float(n) for n in NUMBER.findall(attrs.get("points", ""))]
                points = list(zip(values[0::2], values[1::2]))
            box = _box(ctm, points)
            if box is not None:
                box.fill = self.paint[-1][1]
                box.closed = _goes_round(name, attrs.get("d", ""), points)
                self.model.strokes.append(box)
        if name in HIDING:
            self.hiding += 1
        self.stack.append(_Level(element, ctm, font, Open(element, parent.node if parent else None), place))
        self.model.depth = max(self.model.depth, len(self.stack))

    def end(self, name: str) -> None:
        self.flush()
        element = self.stack.pop().element
        self.paint.pop()
        if element.name in HIDING:
            self.hiding -= 1
        if element.name == "text":
            self.texts.pop()
        elif element.name == "foreignObject":
            self.foreign -= 1
        elif element.name == "switch":
            self._close_switch(self.switches.pop())
        elif element.name == "style":
            self.classes.update(_css_classes(self.sheet))
            self.sheet = ""
        if element.name in ("title", "desc") and len(self.stack) == 1:
            self.model.titles.append(self.title_text.strip())
        self.title_text = ""

    def _close_switch(self, opened: list[int]) -> None:
        """A <switch> draws one of its children: a foreignObject's HTML where it can, else the
        `<text>` after it. Where both are there the `<text>` is the run (it has a place), and the
        HTML runs that say the same are its twins (a fix rewrites both); the others are dropped."""
        first, foreign = opened[0], set(opened[1:])
        runs = self.model.runs[first:]
        html = [r for n, r in enumerate(runs, first) if n in foreign]
        texts = [r for n, r in enumerate(runs, first) if n not in foreign]
        if not html or not any(r.text.strip() for r in texts):
            return
        del self.model.runs[first:]
        for run in texts:
            run.twins = tuple(h for h in html if h.raw == run.raw and run.raw.strip())
            self.model.runs.append(run)

    def chars(self, data: str) -> None:
        if self.texts or self.foreign:
            self.pending.append((self.parser.CurrentByteIndex, data))
        elif self.stack and self.stack[-1].element.name in ("title", "desc"):
            self.title_text += data
        elif self.stack and self.stack[-1].element.name == "style":
            self.sheet += data


def read_svg(source: str) -> SvgText | None:
    """The text model of an SVG; None when it is not well-formed XML (browsers do not draw it)."""
    reader = _Reader(source)
    try:
        reader.parser.Parse(reader.data, True)
    except xml.parsers.expat.ExpatError:
        return None
    return reader.model
