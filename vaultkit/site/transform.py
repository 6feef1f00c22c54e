"""Obsidian markdown -> markdown that Python-Markdown (with pymdownx) renders the same way.

The rewrite never touches code: fenced blocks are found with a fence scanner, inline code
spans and math with a span scanner, and only the text between them is rewritten.

What it does:
- callouts `> [!type]+/- title` (nested) -> admonitions `!!!` / collapsible `???` / `???+`;
- `%%comments%%` (inline and block, hence `%%= id.path %%` value markers) -> removed;
- wikilinks (where the note's tokens have them) -> links to the target's `.md` (MkDocs turns
  them into URLs), or a plain-text span with class `vk-missing` when the target is missing,
  unpublished or excluded;
- embeds -> images with width / height, transcluded notes, headings or blocks (a real cycle is
  stopped: an embed of a section is expanded unless that section is already being expanded);
- `#tags` -> links to the tags index; `^block` ids -> anchors (read from the note's tokens, as
  `vaultkit check` reads them: an id on its own line anchors the list, quote or table above);
- a `$` that does not open or close math (pandoc's rule) -> `\\$`, so amounts stay text;
- ```vaultkit example fences -> cards (see `cards.py`); other fences are left as written.
"""

from __future__ import annotations

import html
import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import quote

from ..markdown import parse
from ..syntax.blockids import MAY_HAVE_IDS, BlockSpan, block_spans
from ..syntax.headings import find_section
from ..syntax.tags import TAG_NAME
from .cards import example_card

IMAGE_SUFFIXES = {".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".avif"}
MISSING_CLASS = "vk-missing"

_FENCE_OPEN = re.compile(r"^(?P<prefix>(?:[ \t]*>)*[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")
_CALLOUT = re.compile(r"^(?P<indent> {0,3})>[ \t]?\[!(?P<type>[^\]\n]+)\](?P<fold>[+-]?)[ \t]*(?P<title>.*)$")
_COMMENT = re.compile(r"%%.*?%%", re.S)
# a wikilink token's place in the text while callouts, fences and spans are rewritten
_LINK_MARK = re.compile("\ue000(\\d+)\ue001")
# an embedded note's text, already converted, until the text around it is (tags, `$`)
_EMBEDDED_MARK = re.compile("\ue002(\\d+)\ue003")
_TAG = re.compile(rf"(?:(?<=\s)|^)#(?P<tag>{TAG_NAME})", re.M)
_SIZE = re.compile(r"^(?P<w>\d+)(?:x(?P<h>\d+))?$")

# Obsidian callout types -> material admonition types (material knows the aliases too).
CALLOUT_TYPES = {
    "note", "abstract", "summary", "tldr", "info", "todo", "tip", "hint", "important",
    "success", "check", "done", "question", "help", "faq", "warning", "caution",
    "attention", "failure", "fail", "missing", "danger", "error", "bug", "example",
    "quote", "cite",
}


@dataclass(frozen=True)
class Target:
    """What a wikilink points to, as the site sees it."""

    rel: str | None  # vault-relative path; None when missing or unpublished
    reason: str = ""  # why rel is None: "missing", "unpublished", "outside"


class Site:
    """What the transform needs from the vault; implemented by `model.SiteModel`."""

    tags_page: str
    language: str  # the theme's language: tooltips follow it

    def text(self, rel: str) -> str: ...  # the note's body (front matter removed), fresh
    def resolve(self, path: str, source: str) -> Target: ...
    def anchor(self, rel: str, heading: str) -> str | None: ...
    def tag_anchor(self, tag: str) -> str: ...

    def tokens(self, rel: str) -> tuple[list, int]:
        """The markdown-it tokens of the note's text, and the line of those tokens where
        `text(rel)` begins (the front matter's length)."""
        return parse(self.text(rel)), 0

    def section(self, rel: str, heading: str | None, block: str | None) -> tuple[str, int] | None:
        """The lines of `text(rel)` that `#heading` or `#^block` names, and the first one's
        index in `text(rel)`; None when the note has no such heading or block."""
        tokens, offset = self.tokens(rel)
        if block:
            span = block_spans(tokens).get(block)
            lines = (span.start, span.end) if span else None
        else:
            found = find_section(tokens, heading)
            lines = (found.start, found.end) if found else None
        if lines is None:
            return None
        start, end = max(lines[0] - offset, 0), lines[1] - offset
        return "\n".join(self.text(rel).split("\n")[start:end]), start

    def links(self, rel: str) -> list[dict]:
        """The wikilink and embed tokens' meta of `text(rel)` (`line` counted in `text(rel)`,
        1-based; `col`, `end_col`, `raw`, `path`, `heading`, `block`, `alias`, `embed`)."""
        if "[[" not in self.text(rel):
            return []
        tokens, offset = self.tokens(rel)
        return [
            {**t.meta, "line": t.meta["line"] - offset}
            for block in tokens for t in block.children or ()
            if t.type in ("wikilink", "wikiembed")
        ]

    def blocks(self, rel: str) -> list[BlockSpan]:
        """The block ids of `text(rel)`, with lines counted in `text(rel)`."""
        if not MAY_HAVE_IDS.search(self.text(rel)):
            return []
        tokens, offset = self.tokens(rel)
        return [
            BlockSpan(s.block_id, s.start - offset, s.end - offset, s.marker_line - offset, s.alone)
            for s in block_spans(tokens).values()
        ]


def url(from_page: str, to_rel: str, fragment: str = "") -> str:
    """A relative link from one vault file to another, as MkDocs expects it in markdown."""
    if to_rel == from_page and fragment:
        return "#" + quote(fragment, safe="")
    rel = posixpath.relpath(to_rel, posixpath.dirname(from_page) or ".")
    link = quote(rel, safe="/")
    return link + ("#" + quote(fragment, safe="") if fragment else "")


def transform(site: Site, page: str) -> str:
    """The markdown MkDocs renders for `page` (a vault-relative note path)."""
    return _Transformer(site, page).convert(site.text(page), page, ((page, ""),))


MAX_EMBED_DEPTH = 10
MAX_EMBEDS = 500  # per page: note embeds can fan out exponentially
MAX_EMBEDDED_CHARS = 2_000_000  # per page


class _Transformer:
    def __init__(self, site: Site, page: str):
        self.site = site
        self.page = page
        self.language = getattr(site, "language", "en")
        self.embedded_chars = self.embeds = 0
        self.marks: list[dict] = []  # wikilink tokens' meta, by mark number
        self.embedded: list[str] = []  # converted text of embedded notes, by mark number

    def _missing(self, text: str, reason: str) -> str:
        return missing_link(text, reason, self.language)

    def convert(self, text: str, source: str, stack: tuple[tuple[str, str], ...], first_line: int = 0) -> str:
        """Rewrite `text` (lines of note `source` from `first_line` of its body) for the page;
        `stack` (the notes and sections being expanded) stops embed cycles."""
        text = self.mark_links(text, source, first_line)
        text = block_anchors(text, self.site.blocks(source), first_line, anchors=source == self.page)
        text = convert_callouts(text)
        out = []
        for kind, chunk in split_fences(text):
            if kind == "code":
                out.append(chunk)
            elif kind == "vaultkit":
                out.append(example_card(chunk))
            else:
                out.append(self.rewrite_text(chunk, source, stack))
        return "".join(out)

    def mark_links(self, text: str, source: str, first_line: int) -> str:
        """`text` with each wikilink the note's tokens found in it replaced by a mark that
        `rewrite_text` turns into the link (so the site sees exactly the links `check` sees)."""
        lines = text.split("\n")
        for link in sorted(self.site.links(source), key=lambda m: (m["line"], m["col"]), reverse=True):
            at = link["line"] - 1 - first_line
            begin, end = link["col"] - 1, link["end_col"] - 1
            if 0 <= at < len(lines) and lines[at][begin:end] == link["raw"]:
                lines[at] = f"{lines[at][:begin]}\ue000{len(self.marks)}\ue001{lines[at][end:]}"
                self.marks.append(link)
        return "\n".join(lines)

    # -- text between fences -------------------------------------------------------------

    def rewrite_text(self, text: str, source: str, stack: tuple[str, ...]) -> str:
        text = strip_comments(text)
        out, pos = [], 0
        for protected, piece in split_spans(text):
            pos += len(piece)
            if protected and piece.startswith("$$"):
                piece = inline_display_math(text, pos - len(piece), pos)
            piece = _LINK_MARK.sub(lambda m: self.wikilink(m, source, stack), piece)
            if not protected:
                piece = escape_stray_dollars(_TAG.sub(self.tag, piece))
            out.append(_EMBEDDED_MARK.sub(lambda m: self.embedded[int(m[1])], piece))
        return "".join(out)

    def tag(self, match: re.Match) -> str:
        tag = match["tag"]
        return f"[#{tag}]({url(self.page, self.site.tags_page, self.site.tag_anchor(tag))}){{ .vk-tag }}"

    def wikilink(self, match: re.Match, source: str, stack: tuple[str, ...]) -> str:
        link = self.marks[int(match[1])]
        path, heading, block, alias = link["path"], link["heading"], link["block"], link["alias"] or None
        resolved = self.site.resolve(path, source) if path else Target(source)
        if link["embed"]:
            line_prefix = _line_prefix(match.string, match.start())
            return self.embed(resolved, path, heading, block, alias, stack, line_prefix)
        text = alias or _link_text(path or "", heading, block)
        if resolved.rel is None:
            return self._missing(text, resolved.reason)
        fragment = ""
        if block:
            fragment = "^" + block
        elif heading and resolved.rel.endswith(".md"):
            fragment = self.site.anchor(resolved.rel, heading) or ""
        return f"[{_escape_link_text(text)}]({url(self.page, resolved.rel, fragment)})"

    def embed(self, resolved, path, heading, block, alias, stack, line_prefix) -> str:
        name = posixpath.basename(path) or path
        if resolved.rel is None:
            return self._missing(alias or name, resolved.reason)
        rel = resolved.rel
        suffix = posixpath.splitext(rel)[1].lower()
        if suffix in IMAGE_SUFFIXES:
            attrs = ""
            size = _SIZE.match(alias or "")
            if size:
                attrs = f'{{ width="{size["w"]}"' + (f' height="{size["h"]}"' if size["h"] else "") + " }"
            caption = "" if size or not alias else alias
            return f"![{_escape_link_text(caption or posixpath.splitext(name)[0])}]({url(self.page, rel)}){attrs}"
        if suffix != ".md":
            return f"[{_escape_link_text(alias or name)}]({url(self.page, rel)})"
        key = (rel, f"^{block}" if block else heading or "")
        if key in stack:
            return self._missing(alias or name, "embed cycle")
        if len(stack) > MAX_EMBED_DEPTH:
            return self._missing(alias or name, "embed too deep")
        body, first_line = self.site.text(rel), 0
        if heading or block:
            found = self.site.section(rel, heading, block)
            if found is None:
                return self._missing(alias or f"{name}#{heading or '^' + block}", "missing section")
            body, first_line = found
        self.embeds += 1
        self.embedded_chars += len(body)
        if self.embeds > MAX_EMBEDS or self.embedded_chars > MAX_EMBEDDED_CHARS:
            return self._missing(alias or name, "too much embedded text on this page")
        inner = self.convert(body, rel, stack + (key,), first_line)
        title = f"[{_escape_link_text(alias or posixpath.splitext(name)[0])}]({url(self.page, rel)})"
        lines = ['<div class="vk-embed" markdown="1">', "", title, "", *inner.strip("\n").split("\n"), "", "</div>"]
        self.embedded.append("\n\n" + "\n".join((line_prefix + ln) if ln else line_prefix.rstrip() for ln in lines) + "\n\n")
        return f"\ue002{len(self.embedded) - 1}\ue003"


# -- helpers -----------------------------------------------------------------------------


# The tooltip of a link that leads nowhere, in the site's language (English otherwise).
MISSING_TOOLTIPS = {
    "zh": {
        "missing": "链接的笔记或文件不存在",
        "unpublished": "该笔记未发布",
        "outside the vault": "链接指向库外，未跟随",
        "embed cycle": "循环嵌入，已停止",
        "embed too deep": "嵌入层级过深，已停止",
        "too much embedded text on this page": "本页嵌入的内容过多，已停止",
        "missing section": "目标笔记中没有这个标题或块",
    },
}


def missing_link(text: str, reason: str, language: str = "en") -> str:
    """A link that leads nowhere: plain text with a CSS class and the reason as tooltip."""
    tooltip = MISSING_TOOLTIPS.get(language.split("-")[0].split("_")[0].lower(), {}).get(reason, reason)
    return f'<span class="{MISSING_CLASS}" title="{html.escape(tooltip)}">{html.escape(text)}</span>'


def _link_text(path: str, heading: str | None, block: str | None) -> str:
    name = posixpath.basename(path)
    if name.lower().endswith(".md"):
        name = name[:-3]
    extra = heading or ("^" + block if block else "")
    if name and extra:
        return f"{name} › {extra}"
    return name or extra


def _escape_link_text(text: str) -> str:
    return re.sub(r"([\[\]\\`*_])", r"\\\1", text)


def _line_prefix(text: str, pos: int) -> str:
    """The blockquote / indentation prefix of the line holding `pos`."""
    start = text.rfind("\n", 0, pos) + 1
    return re.match(r"[ \t>]*", text[start:pos]).group(0)


def strip_comments(text: str) -> str:
    return _COMMENT.sub("", text)


def split_fences(text: str) -> list[tuple[str, str]]:
    """Split into ("text" | "code" | "vaultkit", chunk) pieces; fences keep their lines."""
    lines = [line for line in re.split(r"(?<=\n)", text) if line]  # \n only, as the parser counts lines
    pieces: list[tuple[str, str]] = []
    buf: list[str] = []
    i = 0
    while i < len(lines):
        match = _FENCE_OPEN.match(lines[i].rstrip("\n"))
        if not match or (match["fence"][0] == "`" and "`" in match["info"]):
            buf.append(lines[i])
            i += 1
            continue
        fence, prefix = match["fence"], match["prefix"]
        quote_depth = prefix.count(">")
        close = re.compile(r"^(?:[ \t]*>){%d}[ \t]*%s%s*[ \t]*$" % (quote_depth, re.escape(fence[0]), re.escape(fence)))
        j = i + 1
        while j < len(lines) and not close.match(lines[j].rstrip("\n")):
            j += 1
        if buf:
            pieces.append(("text", "".join(buf)))
            buf = []
        block = "".join(lines[i : j + 1])
        kind = "vaultkit" if match["info"].strip().split(" ")[0] == "vaultkit" and not prefix.strip() else "code"
        pieces.append((kind, block))
        i = j + 1
    if buf:
        pieces.append(("text", "".join(buf)))
    return pieces


_SPAN = re.compile(
    r"(?P<code>(?P<ticks>`+)(?:.+?)(?<!`)(?P=ticks)(?!`))"
    r"|(?P<dmath>\$\$.+?\$\$)"
    r"|(?P<pmath>\\\(.+?\\\)|\\\[.+?\\\])"
    r"|(?P<math>(?<![\\$])\$(?=[^\s$])[^$\n]*?[^\s\\$]\$(?![\d$])|(?<![\\$])\$[^\s$\\]\$(?![\d$]))"
    r"|(?P<html><[A-Za-z][^>\n]*>)",
    re.S,
)


def split_spans(text: str) -> list[tuple[bool, str]]:
    """Split into (protected, piece): code spans, math and HTML tags are protected."""
    pieces, pos = [], 0
    for match in _SPAN.finditer(text):
        pieces.append((False, text[pos : match.start()]))
        pieces.append((True, match.group(0)))
        pos = match.end()
    pieces.append((False, text[pos:]))
    return [(p, s) for p, s in pieces if s]


def inline_display_math(text: str, start: int, end: int) -> str:
    """`$$…$$` at text[start:end] sharing its line with words (`总量是 $$\\frac{a}{b}$$ 字节`):
    arithmatex reads `$$` only as a block of its own, so it becomes inline math in display style."""
    before = text[text.rfind("\n", 0, start) + 1 : start]
    alone = re.fullmatch(r"[\s>]*", before) and re.match(r"[ \t]*(?:\n|$)", text[end:])
    return text[start:end] if alone else "\\(\\displaystyle " + text[start + 2 : end - 2] + "\\)"


def escape_stray_dollars(text: str) -> str:
    """`$` left in unprotected text is not math (pandoc's rule): escape it for arithmatex."""
    return re.sub(r"(?<!\\)\$", r"\\$", text)


def convert_callouts(text: str) -> str:
    """`> [!type]+ title` blockquotes -> pymdownx admonition / details blocks (nested too)."""
    lines = text.split("\n")
    out: list[str] = []
    fence: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        open_fence = _FENCE_OPEN.match(line)
        if fence is None and open_fence and not open_fence["prefix"].strip():
            fence = open_fence["fence"]
        elif fence is not None and line.strip().startswith(fence) and not line.strip().strip(fence[0]):
            fence = None
        match = _CALLOUT.match(line) if fence is None else None
        if not match:
            out.append(line)
            i += 1
            continue
        indent = match["indent"]
        body = []
        i += 1
        while i < len(lines) and lines[i].startswith(indent + ">"):
            body.append(re.sub(r"^>[ ]?", "", lines[i][len(indent):], count=1))
            i += 1
        out.append(indent + _admonition_header(match["type"], match["fold"], match["title"]))
        inner = convert_callouts("\n".join(body)).split("\n") if body else []
        out.extend(indent + "    " + ln if ln.strip() else "" for ln in inner)
        out.append("")
    return "\n".join(out)


def _admonition_header(kind: str, fold: str, title: str) -> str:
    kind = kind.strip().lower()
    css = kind if kind in CALLOUT_TYPES else f"note {re.sub(r'[^a-z0-9-]', '', kind) or 'note'}"
    marker = {"": "!!!", "+": "???+", "-": "???"}[fold]
    title = title.strip().replace('"', "&quot;")
    return f'{marker} {css}' + (f' "{title}"' if title else "")


def block_anchors(text: str, blocks: list[BlockSpan], first_line: int, anchors: bool = True) -> str:
    """`text` (lines from `first_line` on) with each `^id` marker it holds made an anchor:
    a trailing `^id` in place; an `^id` on a line of its own is removed and its anchor put
    on a line of its own before the block it names (when that block starts in `text`).
    Without `anchors` (text embedded from another note, whose ids are on its own page) the
    markers are only removed."""
    lines = text.split("\n")
    replace: dict[int, str] = {}
    before: dict[int, list[str]] = defaultdict(list)
    for span in blocks:
        at = span.marker_line - first_line
        if not 0 <= at < len(lines):
            continue
        anchor = f'<a id="^{span.block_id}"></a>' if anchors else ""
        marker = re.compile(r"[ \t]*\^" + re.escape(span.block_id) + r"[ \t]*$")
        start = span.start - first_line
        if span.alone and 0 <= start <= at:
            prefix = re.match(r"[ \t>]*", lines[at]).group(0)
            replace[at] = prefix.rstrip()
            if anchor:
                before[start] += [prefix + anchor, prefix.rstrip()]
        else:
            replace[at] = marker.sub(" " + anchor if anchor else "", lines[at], count=1)
    out = []
    for i, line in enumerate(lines):
        out.extend(before.get(i, ()))
        out.append(replace.get(i, line))
    return "\n".join(out)
