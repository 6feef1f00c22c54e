"""A page's HTML from the note's markdown-it tokens: the tokens `vaultkit check` reads.

The note is never parsed again for the site. The tokens are rendered with markdown-it's HTML
renderer (CommonMark + GFM, as Obsidian reads notes) and these rules for what a site needs:

- wikilinks and embeds resolved through the site's link index: links to the target page (a
  heading's or block's anchor), images with their size, audio and video players, transcluded
  notes, headings and blocks, PDFs in a viewer (a real embed cycle is stopped); a missing, unpublished or
  excluded target is plain text with the reason as tooltip;
- markdown images sized as Obsidian reads `![alt|100x145](src)`; a YouTube video embedded as
  its player, a post on X as a card;
- markdown links and images to vault files point at their pages and files;
- `#tags` link to the tags index; callouts are material admonitions (`<details>` when foldable);
  `^block` ids are the ids of the blocks they name; comments render as nothing;
- headings get the site's anchor ids and permalinks (their list is the page's table of
  contents); code is highlighted with Pygments as material styles it; ```mermaid is material's
  diagram markup; ```vaultkit examples are cards; math is MathML with its TeX kept for KaTeX;
- a single newline is a line break unless the vault sets Obsidian's `strictLineBreaks`.

`render_note` returns the HTML, the headings and the search sections (`search.py`) of a page.
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from markdown_it.common.utils import unescapeAll
from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from vaultkit.readers.markdown import make_parser, parse
from vaultkit.readers.syntax.blockids import block_spans
from vaultkit.readers.syntax.headings import Section, find_section, named_section, sections, unique_anchors
from vaultkit.renderers.site.cards import example_card
from vaultkit.renderers.site.code import highlight_code
from vaultkit.renderers.site.math import block_math, inline_math
from vaultkit.renderers.site.search import SearchSection, search_sections

IMAGE_SUFFIXES = {".svg", ".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".avif"}
AUDIO_SUFFIXES = {".flac", ".m4a", ".mp3", ".ogg", ".wav", ".3gp"}  # Obsidian's accepted formats
VIDEO_SUFFIXES = {".mkv", ".mov", ".mp4", ".ogv", ".webm"}  # .webm, in both lists, plays as video
_YOUTUBE = re.compile(
    r"https?://(?:www\.|m\.)?(?:youtube\.com/(?:watch\?(?:.*&)?v=|embed/|shorts/)|youtu\.be/)(?P<id>[\w-]{6,})"
)
_POST = re.compile(r"https?://(?:www\.|mobile\.)?(?:twitter|x)\.com/(?P<user>\w+)/status/\d+")
PDF_HEIGHT = 800  # pixels: a PDF embed's height where it names none (ours: the help does not give Obsidian's)
MISSING_CLASS = "vk-missing"
MAX_EMBED_DEPTH = 10
MAX_EMBEDS = 500  # per page: note embeds can fan out exponentially
MAX_EMBEDDED_CHARS = 2_000_000  # per page
_PARSER = make_parser()  # for its options and the syntax plugins' render rules (callouts, footnotes)
# markdown-it's options, with Obsidian's line breaks (a newline is a <br>) or strict ones
_OPTIONS = {strict: OptionsDict({**_PARSER.options, "breaks": not strict}) for strict in (False, True)}
_SIZE = re.compile(r"^(?P<w>\d+)(?:x(?P<h>\d+))?$")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Target:
    """What a link points to, as the site sees it."""

    rel: str | None  # vault-relative path; None when missing or unpublished
    reason: str = ""  # why rel is None: "missing", "unpublished", "outside the vault", ...


class Site:
    """What a page's rendering needs from the vault; implemented by `model.SiteModel`.

    Every read of a note goes through `tokens`, `section`, `outline` or `heading_ids` (serve
    records them to know when a page must be rendered again)."""

    tags_page: str
    language: str  # the theme's language: tooltips follow it
    strict_line_breaks: bool = False  # Obsidian's `strictLineBreaks`

    def tokens(self, rel: str) -> tuple[list[Token], int]:
        """The note's tokens and the line where its body begins (after the front matter)."""
        raise NotImplementedError

    def resolve(self, path: str, source: str) -> Target: ...
    def tag_anchor(self, tag: str) -> str: ...
    def slugify(self, text: str, separator: str) -> str: ...

    def page_url(self, rel: str) -> str:
        """The site URL of a vault file (MkDocs' directory URLs)."""
        return directory_url(rel)

    def outline(self, rel: str) -> list[Section]:
        """The note's headings, in order."""
        return sections(self.tokens(rel)[0])

    def heading_ids(self, rel: str) -> list[str]:
        """The anchor id of each heading of the note, in order (unique within the note)."""
        texts = [s.plain for s in self.outline(rel)]
        return unique_anchors(texts, lambda text: self.slugify(text, "-"))

    def anchor(self, rel: str, heading: str) -> str | None:
        """The anchor id of the heading `heading` names in note `rel`, or None."""
        outline = self.outline(rel)
        wanted = named_section(outline, heading)
        if wanted is None:
            return None
        return self.heading_ids(rel)[outline.index(wanted)]

    def section(self, rel: str, heading: str | None, block: str | None) -> list[Token] | None:
        """The tokens of what `#heading` or `#^block` names in note `rel`, parsed from those
        lines alone; None when the note has no such heading or block."""
        tokens, _ = self.tokens(rel)
        if block:
            span = block_spans(tokens).get(block)
            lines = (span.start, span.end) if span else None
        else:
            found = find_section(tokens, heading)
            lines = (found.start, found.end) if found else None
        if lines is None:
            return None
        return parse("\n".join(self.source_lines(rel)[lines[0] : lines[1]]))

    def source_lines(self, rel: str) -> list[str]:
        """The lines of the note's text (front matter included), as its tokens count them."""
        raise NotImplementedError


def directory_url(rel: str) -> str:
    """MkDocs' URL of a vault file with `use_directory_urls` (`a/b.md` -> `a/b/`)."""
    if not rel.lower().endswith(".md"):
        return rel
    stem = rel[:-3]
    folder, name = posixpath.split(stem)
    if name.lower() in ("index", "readme"):
        return folder + "/" if folder else ""
    return stem + "/"


def relative_url(to_url: str, from_url: str) -> str:
    """A link from the page at `from_url` to `to_url` (both site URLs), percent-encoded."""
    base = from_url if from_url.endswith("/") or not from_url else posixpath.dirname(from_url) + "/"
    rel = posixpath.relpath("/" + to_url, "/" + base)
    if to_url.endswith("/") or to_url == "":
        rel = rel.rstrip("/") + "/" if rel != "." else "./"
    return quote(rel, safe="/#:?=&%")


@dataclass(frozen=True)
class Heading:
    level: int
    id: str
    html: str  # the heading's content as HTML (for the table of contents)


@dataclass
class RenderedNote:
    html: str
    headings: list[Heading]
    anchor_ids: set[str]
    sections: list[SearchSection]

    def toc(self) -> list[dict]:
        """The table of contents as MkDocs' toc tokens (nested by level)."""
        root: list[dict] = []
        stack: list[dict] = []
        for heading in self.headings:
            item = {"level": heading.level, "id": heading.id, "name": heading.html, "children": []}
            while stack and stack[-1]["level"] >= heading.level:
                stack.pop()
            (stack[-1]["children"] if stack else root).append(item)
            stack.append(item)
        return root


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


def missing_open(reason: str, language: str = "en") -> str:
    """The start of a link that leads nowhere: text with a CSS class and the reason as tooltip."""
    tooltip = MISSING_TOOLTIPS.get(language.split("-")[0].split("_")[0].lower(), {}).get(reason, reason)
    return f'<span class="{MISSING_CLASS}" title="{html.escape(tooltip)}">'


def missing_link(text: str, reason: str, language: str = "en") -> str:
    """A link that leads nowhere: plain text with a CSS class and the reason as tooltip."""
    return f"{missing_open(reason, language)}{html.escape(text)}</span>"


def link_text(path: str, heading: str | None, block: str | None) -> str:
    """What a wikilink without alias shows: the note's name, and the heading or block."""
    name = posixpath.basename(path)
    if name.lower().endswith(".md"):
        name = name[:-3]
    extra = heading or ("^" + block if block else "")
    if name and extra:
        return f"{name} › {extra}"
    return name or extra


@dataclass
class _Page:
    """What rendering one page keeps track of: the page, what it embeds, its headings."""

    site: Site
    rel: str
    mermaid: bool
    embeds: int = 0
    embedded_chars: int = 0
    headings: list[Heading] = field(default_factory=list)


@dataclass(frozen=True)
class _Scope:
    """The note whose tokens are being rendered: the page's own, or one it embeds."""

    source: str
    own: bool  # the page's own note: its headings and block ids are the page's anchors
    stack: tuple[tuple[str, str], ...]  # the notes and sections being expanded (cycles)
    heading_ids: list[str]


class PageRenderer(RendererHTML):
    """markdown-it's HTML renderer with the site's rules for Obsidian's tokens."""

    def __init__(self):
        super().__init__()
        self.rules = {**_PARSER.renderer.rules, **self.rules}  # the syntax plugins' own rules first

    def render_page(self, page: _Page, tokens: list[Token], scope: _Scope) -> str:
        return self.render(tokens, _OPTIONS[page.site.strict_line_breaks], {"page": page, "scope": scope})

    # -- blocks ------------------------------------------------------------------------

    def front_matter(self, tokens, idx, options, env) -> str:
        return ""

    def heading_open(self, tokens, idx, options, env) -> str:
        scope: _Scope = env["scope"]
        token = tokens[idx]
        if not scope.own:
            return f"<{token.tag}>"
        anchor = scope.heading_ids[len(env["page"].headings)]
        content = self.renderInline(tokens[idx + 1].children or [], options, env)
        env["page"].headings.append(Heading(int(token.tag[1]), anchor, content))
        return f'<{token.tag} id="{html.escape(anchor)}">'

    def heading_close(self, tokens, idx, options, env) -> str:
        tag = tokens[idx].tag
        if not env["scope"].own:
            return f"</{tag}>\n"
        anchor = html.escape(env["page"].headings[-1].id)
        return f'<a class="headerlink" href="#{anchor}" title="Permanent link">&para;</a></{tag}>\n'

    def renderToken(self, tokens, idx, options, env) -> str:
        return super().renderToken(_own_ids(tokens, idx, env), idx, options, env)

    def blockquote_open(self, tokens, idx, options, env) -> str:
        return _PARSER.renderer.rules["blockquote_open"](_own_ids(tokens, idx, env), idx, options, env)

    def paragraph_open(self, tokens, idx, options, env) -> str:
        return "" if _lone_block(tokens[idx + 1], env) else self.renderToken(tokens, idx, options, env)

    def paragraph_close(self, tokens, idx, options, env) -> str:
        return "" if _lone_block(tokens[idx - 1], env) else self.renderToken(tokens, idx, options, env)

    def fence(self, tokens, idx, options, env) -> str:
        token = tokens[idx]
        page: _Page = env["page"]
        language = unescapeAll(token.info).split()[0] if token.info.strip() else ""
        if language == "vaultkit":
            card = example_card(token.content)
            if card is not None:
                return card
        if language == "mermaid":
            css = "mermaid" if page.mermaid else "language-mermaid"
            return f'<pre class="{css}"><code>{html.escape(token.content)}</code></pre>\n'
        return highlight_code(token.content, language) + "\n"

    def code_block(self, tokens, idx, options, env) -> str:
        return highlight_code(tokens[idx].content, "") + "\n"

    def math_block(self, tokens, idx, options, env) -> str:
        return block_math(tokens[idx].content) + "\n"

    def math_block_label(self, tokens, idx, options, env) -> str:
        token = tokens[idx]
        return f'<div class="vk-math-labelled" id="{html.escape(token.info)}">{block_math(token.content)}</div>\n'

    def comment_block(self, tokens, idx, options, env) -> str:
        return ""

    def html_inline(self, tokens, idx, options, env) -> str:
        content = tokens[idx].content
        if content.startswith('<input class="task-list-item-checkbox"'):  # material's checkbox
            return f'<label class="task-list-control">{content}<span class="task-list-indicator"></span></label>'
        return content

    # footnotes in the markup material styles (Python-Markdown's: `fn:1`, `fnref:1`)

    def footnote_ref(self, tokens, idx, options, env) -> str:
        number, sub = _footnote(tokens[idx])
        return f'<sup id="fnref:{number}{sub}"><a class="footnote-ref" href="#fn:{number}">{number}</a></sup>'

    def footnote_block_open(self, tokens, idx, options, env) -> str:
        return '<div class="footnote">\n<hr />\n<ol>\n'

    def footnote_block_close(self, tokens, idx, options, env) -> str:
        return "</ol>\n</div>\n"

    def footnote_open(self, tokens, idx, options, env) -> str:
        return f'<li id="fn:{_footnote(tokens[idx])[0]}">'

    def footnote_anchor(self, tokens, idx, options, env) -> str:
        number, sub = _footnote(tokens[idx])
        return f' <a class="footnote-backref" href="#fnref:{number}{sub}">&#8617;&#xFE0E;</a>'

    def s_open(self, tokens, idx, options, env) -> str:
        return "<del>"  # GFM's strikethrough element

    def s_close(self, tokens, idx, options, env) -> str:
        return "</del>"

    # -- inline ------------------------------------------------------------------------

    def math_inline(self, tokens, idx, options, env) -> str:
        return inline_math(tokens[idx].content)

    def math_inline_double(self, tokens, idx, options, env) -> str:
        """`$$…$$` on a line of its own is displayed; sharing a line with words, it is inline
        math in display style."""
        if _alone_on_its_line(tokens, idx):
            return block_math(tokens[idx].content)
        return inline_math("\\displaystyle " + tokens[idx].content.strip())

    def comment(self, tokens, idx, options, env) -> str:
        return ""

    def tag(self, tokens, idx, options, env) -> str:
        page: _Page = env["page"]
        tag = tokens[idx].meta["tag"]
        href = _href(page, page.site.tags_page, page.site.tag_anchor(tag))
        return f'<a class="vk-tag" href="{href}">{html.escape(tokens[idx].content)}</a>'

    def link_open(self, tokens, idx, options, env) -> str:
        """A markdown link; one to a vault path that leads nowhere is shown as a wikilink to a
        missing note is (`missing_link`)."""
        token = tokens[idx]
        href = token.attrGet("href") or ""
        reason = _missing_reason(env, href)
        if reason:
            return missing_open(reason, env["page"].site.language)
        return f"<a{_attrs(token, 'href', _vault_href(env, href))}>"

    def link_close(self, tokens, idx, options, env) -> str:
        opening = next(tokens[j] for j in range(idx - 1, -1, -1) if tokens[j].type == "link_open")
        return "</span>" if _missing_reason(env, opening.attrGet("href") or "") else "</a>"

    def image(self, tokens, idx, options, env) -> str:
        """A markdown image, as Obsidian shows it: `![alt|100x145](src)` and `![250](src)` are
        sized; audio and video files play; a YouTube video is its player, a post on X a card."""
        token = tokens[idx]
        src = token.attrGet("src") or ""
        alt, size = _alt_and_size(self.renderInlineAsText(token.children or [], options, env))
        href = _vault_href(env, src)
        path, _, fragment = src.partition("#")
        if href and posixpath.splitext(unquote(path))[1].lower() == ".pdf":
            return _pdf(_vault_href(env, path), fragment, alt or posixpath.basename(unquote(path)))
        player = _player(href or src, alt)
        if player:
            return player
        embedded = _external_embed(src)
        if embedded:
            return embedded
        attrs = _attrs(token, "src", href, skip="alt") + _size_attrs(size)
        return f'<img alt="{html.escape(alt)}"{attrs}>'

    def wikilink(self, tokens, idx, options, env) -> str:
        page: _Page = env["page"]
        return wikilink_html(page.site, page.rel, env["scope"].source, tokens[idx].meta)

    def wikiembed(self, tokens, idx, options, env) -> str:
        page, path, heading, block, alias, target = _link(tokens[idx], env)
        name = posixpath.basename(path) or path
        if target.rel is None:
            return missing_link(alias or name, target.reason, page.site.language)
        rel = target.rel
        suffix = posixpath.splitext(rel)[1].lower()
        if suffix in IMAGE_SUFFIXES:
            caption, size = _alt_and_size(alias or "")
            alt = html.escape(caption or posixpath.splitext(name)[0])
            return f'<img alt="{alt}" src="{_href(page, rel)}"{_size_attrs(size)}>'
        title = html.escape(alias or posixpath.splitext(name)[0])
        if suffix == ".pdf":
            return _pdf(_href(page, rel), heading, alias or posixpath.splitext(name)[0])
        player = _player(_href(page, rel), alias or posixpath.splitext(name)[0])
        if player:
            return player
        if suffix != ".md":
            return f'<a href="{_href(page, rel)}">{title}</a>'
        return self._embed_note(page, env["scope"], rel, heading, block, alias or name, title)

    def _embed_note(self, page: _Page, scope: _Scope, rel, heading, block, label, title) -> str:
        key = (rel, f"^{block}" if block else heading or "")
        if key in scope.stack:
            return missing_link(label, "embed cycle", page.site.language)
        if len(scope.stack) > MAX_EMBED_DEPTH:
            return missing_link(label, "embed too deep", page.site.language)
        if heading or block:
            body = page.site.section(rel, heading, block)
            if body is None:
                return missing_link(f"{label}#{heading or '^' + block}", "missing section", page.site.language)
        else:
            body = page.site.tokens(rel)[0]
        page.embeds += 1
        page.embedded_chars += sum(len(t.content) for t in body)
        if page.embeds > MAX_EMBEDS or page.embedded_chars > MAX_EMBEDDED_CHARS:
            return missing_link(label, "too much embedded text on this page", page.site.language)
        inner = self.render_page(page, body, _Scope(rel, False, scope.stack + (key,), []))
        return f'<div class="vk-embed">\n<p><a href="{_href(page, rel)}">{title}</a></p>\n{inner}</div>\n'


def _alt_and_size(text: str) -> tuple[str, re.Match | None]:
    """An embed's text as Obsidian reads it: `alt|100x145`, `alt|100`, or only the size."""
    size = _SIZE.match(text.strip())
    if size:
        return "", size
    alt, bar, last = text.rpartition("|")
    size = _SIZE.match(last.strip()) if bar else None
    return (alt.strip(), size) if size else (text, None)


def _size_attrs(size: re.Match | None) -> str:
    if not size:
        return ""
    return f' width="{size["w"]}"' + (f' height="{size["h"]}"' if size["h"] else "")


def _player(src: str, title: str) -> str | None:
    """An `<audio>` or `<video>` player of a file Obsidian plays (by its suffix), else None."""
    suffix = posixpath.splitext(src.partition("#")[0].partition("?")[0])[1].lower()
    if suffix in VIDEO_SUFFIXES:
        tag = "video"
    elif suffix in AUDIO_SUFFIXES:
        tag = "audio"
    else:
        return None
    return f'<{tag} controls src="{html.escape(src)}" title="{html.escape(title)}"></{tag}>'


def _pdf(src: str, fragment: str | None, title: str) -> str:
    """A PDF as Obsidian embeds it: in a viewer (the browser's), opened at the page `#page=N`
    names and `#height=N` pixels high (`PDF_HEIGHT` else)."""
    options = dict(part.partition("=")[::2] for part in (fragment or "").split("&"))
    page, height = options.get("page", "").strip(), options.get("height", "").strip()
    src += f"#page={page}" if page.isdigit() else ""
    return (
        f'<iframe class="vk-pdf" src="{html.escape(src)}" title="{html.escape(title)}" width="100%" '
        f'height="{height if height.isdigit() else PDF_HEIGHT}" loading="lazy"></iframe>'
    )


def _external_embed(url: str) -> str | None:
    """What Obsidian embeds of a web page: a YouTube video's player, a post on X (Twitter) as
    a card linking to it (no script of theirs is loaded); None for any other URL."""
    youtube = _YOUTUBE.match(url)
    if youtube:
        video = quote(youtube["id"], safe="")
        return (
            f'<iframe class="vk-youtube" src="https://www.youtube.com/embed/{video}" title="YouTube video" '
            'width="560" height="315" frameborder="0" allow="encrypted-media; picture-in-picture; fullscreen" '
            "allowfullscreen></iframe>"
        )
    post = _POST.match(url)
    if post:
        href = html.escape(url)
        return (
            f'<a class="vk-embed-card" href="{href}"><span class="vk-embed-card-site">X (Twitter)</span>'
            f'<span class="vk-embed-card-title">@{html.escape(post["user"])}</span>'
            f'<span class="vk-embed-card-url">{href}</span></a>'
        )
    return None


def wikilink_html(site: Site, page_rel: str, source: str, link: dict) -> str:
    """A wikilink (`path`, `heading`, `block`, `alias` as `split_target` gives them) written in
    note `source`, on the page of `page_rel`."""
    path, heading, block, alias = link["path"], link["heading"], link["block"], link["alias"]
    text = alias or link_text(path or "", heading, block)
    target = site.resolve(path, source) if path else Target(source)
    if target.rel is None:
        return missing_link(text, target.reason, site.language)
    fragment = ""
    if block:
        fragment = "^" + block
    elif heading and target.rel.lower().endswith(".md"):
        fragment = site.anchor(target.rel, heading) or ""
    return f'<a href="{_href_from(site, page_rel, target.rel, fragment)}">{html.escape(text)}</a>'


def _href(page: _Page, to_rel: str, fragment: str = "") -> str:
    """The link from the page being rendered to a vault file (and an anchor in it)."""
    return _href_from(page.site, page.rel, to_rel, fragment)


def _href_from(site: Site, from_rel: str, to_rel: str, fragment: str = "") -> str:
    """The link from the page of `from_rel` to a vault file (and an anchor in it)."""
    suffix = "#" + quote(fragment, safe="") if fragment else ""
    if to_rel == from_rel and fragment:
        return suffix
    return relative_url(site.page_url(to_rel), site.page_url(from_rel)) + suffix


def _link(token: Token, env) -> tuple[_Page, str, str | None, str | None, str | None, Target]:
    """A wikilink's or embed's page, path, heading, block, alias and where it leads."""
    meta, page, source = token.meta, env["page"], env["scope"].source
    target = page.site.resolve(meta["path"], source) if meta["path"] else Target(source)
    return page, meta["path"], meta["heading"], meta["block"], meta["alias"] or None, target


def _attrs(token: Token, name: str, value: str | None, skip: str = "") -> str:
    """A token's attributes as HTML, with `name` set to `value` (unless None) and `skip` left out."""
    attrs = {**(token.attrs or {}), **({name: value} if value is not None else {})}
    return "".join(f' {key}="{html.escape(str(v))}"' for key, v in attrs.items() if key != skip)


def _missing_reason(env, href: str) -> str | None:
    """Why a markdown link to a note (`….md`) leads nowhere ("missing", "unpublished", ...), or
    None (an external URL, an anchor, a note that resolves, a path to any other file: that
    stays a link, as CommonMark writes it)."""
    path = unquote(href.partition("#")[0])
    if not path.lower().endswith(".md") or path.startswith("/") or _URL_SCHEME.match(path):
        return None
    target = env["page"].site.resolve(path, env["scope"].source)
    return target.reason if target.rel is None else None


def _vault_href(env, href: str) -> str | None:
    """A markdown link's or image's target in the vault, as a link from the page; None for
    an external URL, an anchor of the same page, or a path that names no published file."""
    if not href or href.startswith(("#", "/")) or _URL_SCHEME.match(href):
        return None
    page: _Page = env["page"]
    path, hash_, fragment = href.partition("#")
    target = page.site.resolve(unquote(path), env["scope"].source)
    if target.rel is None:
        return None
    if fragment and target.rel.lower().endswith(".md"):
        fragment = page.site.anchor(target.rel, unquote(fragment)) or fragment
    return _href(page, target.rel, unquote(fragment) if hash_ else "")


def _footnote(token: Token) -> tuple[int, str]:
    """A footnote's number, and `:k` for its k-th further reference."""
    sub = token.meta.get("subId", -1)
    return token.meta["id"] + 1, f":{sub}" if sub > 0 else ""


def _own_ids(tokens: list[Token], idx: int, env) -> list[Token]:
    """`tokens`, where the block id of token `idx` is dropped when it belongs to an embedded
    note (it is an anchor of that note's own page)."""
    token = tokens[idx]
    if env["scope"].own or not (token.attrGet("id") or "").startswith("^"):
        return tokens
    bare = token.copy(attrs={k: v for k, v in token.attrs.items() if k != "id"})
    return [*tokens[:idx], bare, *tokens[idx + 1 :]]


def _alone_on_its_line(children: list[Token], idx: int) -> bool:
    def blank(i: int) -> bool:
        return (
            not 0 <= i < len(children)
            or children[i].type in ("softbreak", "hardbreak")
            or (children[i].type == "text" and not children[i].content.strip())
        )

    return blank(idx - 1) and blank(idx + 1)


def _lone_block(inline: Token, env) -> bool:
    """Whether a paragraph is only an embed of a note or a displayed formula (rendered as a
    block, not in a `<p>`)."""
    children = [
        c for c in inline.children or () if not (c.type == "text" and not c.content.strip()) and c.type != "softbreak"
    ]
    if len(children) != 1:
        return False
    if children[0].type == "math_inline_double":
        return True
    if children[0].type != "wikiembed":
        return False
    meta = children[0].meta
    if not meta["path"]:
        return True
    target = env["page"].site.resolve(meta["path"], env["scope"].source)
    return target.rel is not None and target.rel.lower().endswith(".md")


_RENDERER = PageRenderer()


def render_note(site: Site, rel: str, mermaid: bool = False) -> RenderedNote:
    """The HTML of note `rel`'s page (without the site's frame), with its headings."""
    tokens, _ = site.tokens(rel)
    page = _Page(site, rel, mermaid)
    scope = _Scope(rel, True, ((rel, ""),), site.heading_ids(rel))
    out = _RENDERER.render_page(page, tokens, scope)
    ids = {h.id for h in page.headings} | {f"^{block}" for block in block_spans(tokens)}
    return RenderedNote(out, page.headings, ids, search_sections(tokens, scope.heading_ids))
