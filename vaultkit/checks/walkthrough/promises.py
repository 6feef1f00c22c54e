"""Sentences promising a figure below (`如下图`, "see the figure below"), and whether one follows.

A figure is what a reader of the page sees as one, in the syntax the note is written for: a
markdown image (with a title, by reference), an Obsidian embed, an HTML `<img>`, `<svg>`,
`<figure>`, `<picture>`, `<object>` or `<iframe>`, a fenced diagram, a vaultkit block with a
figure, and a site generator's own syntax: a Jekyll (Liquid) include of an image template
(`{% include figure.html path=… %}`, `{% include image.html … %}`) or a Hugo shortcode
(`{{< figure src=… >}}`, `{{% … %}}`). It follows the words in their block, or in one of the
next two blocks before a heading.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from vaultkit.checks.examples.regions import BEGIN_RE, END_RE
from vaultkit.checks.walkthrough.lines import Line

PROMISE_RE = re.compile(
    r"(?:如|见|看|参见|参考)?(?<![以上])下图(?!层|标)|\b(?:see|in|shown\s+in)\s+the\s+(?:figure|diagram|picture|image)\s+below\b"
    r"|\bas\s+(?:shown|illustrated|drawn)\s+below\b|\bthe\s+(?:figure|diagram)\s+below\b",
    re.IGNORECASE,
)
QUICK_EN_RE = re.compile(r"(?:figure|diagram|picture|image|shown|illustrated|drawn)\s+below")
FIGURE_HTML_RE = re.compile(r"<(?:img|svg|figure|picture|object|iframe)\b", re.IGNORECASE)
EMBED_RE = re.compile(r"!\[\[[^\]\n]+\]\]")
# `{% include name args %}` (Jekyll, Liquid) and `{{< name args >}}` / `{{% name args %}}`
# (Hugo; a closing `{{< /name >}}` and an escaped `{{</* … */>}}` are no figure).
SITE_RE = re.compile(
    r"\{%-?\s*include(?:_relative)?\s+(?P<include>[^\s%]+)(?P<include_args>.*?)-?%\}"
    r"|\{\{[<%]\s*(?P<shortcode>\w[\w./-]*)(?P<shortcode_args>.*?)[>%]\}\}",
    re.DOTALL,
)
FIGURE_NAME_RE = re.compile(
    r"fig|image|img|photo|picture|gallery|swiper|carousel|slide|diagram|chart|plot|svg|screenshot", re.IGNORECASE
)
IMAGE_FILE_RE = re.compile(r"\.(?:png|jpe?g|gif|svg|webp|avif|bmp|tiff?)\b", re.IGNORECASE)


@dataclass
class Promise:
    line: int
    col: int
    text: str
    block: int
    fulfilled: bool


def may_promise(text: str, lower: str) -> bool:
    """A quick look at a note's text (and its lowered copy): could it promise a figure?"""
    return "下图" in text or ("below" in lower and QUICK_EN_RE.search(lower) is not None)


def site_figure(text: str) -> bool:
    """Whether `text` holds a site generator's figure: an include or shortcode named for one
    (`figure.html`, `image`, `photoswipe-figure`) or given an image file."""
    for m in SITE_RE.finditer(text):
        name = m.group("include") or m.group("shortcode")
        args = m.group("include_args") if m.group("include") else m.group("shortcode_args")
        if FIGURE_NAME_RE.search(name) or IMAGE_FILE_RE.search(args):
            return True
    return False


def _figure_text(text: str) -> bool:
    """A figure in source text markdown-it leaves as text or HTML: an embed, HTML, a site's syntax."""
    return bool(EMBED_RE.search(text) or FIGURE_HTML_RE.search(text) or site_figure(text))


def _image_child(inline, after_line: int = -1, words: str = "") -> bool:
    """Whether an inline token holds a markdown image on a line after
    `after_line` (0-based), or on that line after the `words`."""
    line = inline.map[0]
    said = line > after_line
    for child in inline.children or ():
        if child.type in ("softbreak", "hardbreak"):
            line += 1
            said = line > after_line
        elif child.type == "text" and line == after_line and words in child.content:
            said = True
        elif child.type == "image" and said:  # an embed is found in the text
            return True
    return False


class _Tokens:
    """A note's tokens found by the line they start on (in line order: footnotes, which the
    parse moves to the end, back in their place)."""

    def __init__(self, tokens) -> None:
        self.tokens = sorted((tok for tok in tokens if tok.map), key=lambda tok: tok.map[0])
        self.starts = [tok.map[0] for tok in self.tokens]

    def within(self, block: tuple[int, int, str]) -> list:
        start, end, _ = block
        return self.tokens[bisect_left(self.starts, start) : bisect_left(self.starts, end)]


def read_promises(lines: list[Line], blocks: list[tuple[int, int, str]], tokens) -> list[Promise]:
    """Sentences promising a figure below, and whether one follows."""
    out = []
    found = None
    for line in lines:
        if line.code or line.heading:
            continue
        if "下图" not in line.text and "below" not in line.text.lower():
            continue
        m = next((m for m in PROMISE_RE.finditer(line.text) if not _quoted(line.text, m.start())), None)
        if not m:
            continue
        found = found or _Tokens(tokens)
        after = [line.text[m.end() :]] + [o.text for o in lines if o.block == line.block and o.number > line.number]
        fulfilled = (
            _figure_text("\n".join(after))
            or any(
                tok.type == "inline" and _image_child(tok, line.number - 1, m.group(0))
                for tok in found.within(blocks[line.block])
            )
            or _figure_follows(blocks, line.block, found)
        )
        out.append(Promise(line.number, line.col + m.start(), m.group(0), line.block, fulfilled))
    return out


def _quoted(text: str, at: int) -> bool:
    """Whether offset `at` is inside `code` or “quotes”: the words are mentioned, not meant."""
    before = text[:at]
    return before.count("`") % 2 == 1 or before.count("“") > before.count("”")


def _figure_follows(blocks: list[tuple[int, int, str]], block: int, tokens: _Tokens) -> bool:
    """A figure in one of the next two blocks, before a heading (a generated region is looked past)."""
    seen = 0
    for following in blocks[block + 1 :]:
        kind = following[2]
        if kind == "heading_open":
            return False
        inner = tokens.within(following)
        if kind == "html_block" and inner:
            head = inner[0].content.strip().split("\n")[0]
            if BEGIN_RE.match(head) or END_RE.match(head):
                continue  # a generated region: look past it
        if kind == "fence" and inner:
            info = inner[0].info.strip().split(" ")[0].lower()
            if info != "vaultkit" or re.search(r"^figure\s*:", inner[0].content, re.M):
                return True  # a fenced diagram, or a vaultkit block that draws one
            continue
        for tok in inner:
            if tok.type == "inline" and (_image_child(tok) or _figure_text(tok.content)):
                return True
            if tok.type == "html_block" and _figure_text(tok.content):
                return True
        seen += 1
        if seen >= 2:
            return False
    return False
