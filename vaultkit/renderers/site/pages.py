"""Generated pages: the home page and the tags index (markdown, rendered like notes), the top
of a note's page (its title where needed, its properties), the backlinks section of a note,
and the RSS feed."""

from __future__ import annotations

import datetime as dt
import html
import posixpath
import re
from email.utils import format_datetime
from pathlib import PurePosixPath
from urllib.parse import quote, urljoin

from vaultkit.readers.syntax.wikilinks import wikilinks_in
from vaultkit.renderers.site import meta
from vaultkit.renderers.site.code import highlight_code
from vaultkit.renderers.site.model import SiteModel
from vaultkit.renderers.site.note_html import relative_url, wikilink_html

FIXED_DATE = dt.date(2000, 1, 1)  # for a note with no date at all (its file unreadable)


HOME_PAGE = "index.md"
RECENT_NOTES = 10
LABELS = {  # what the pages vaultkit adds say, in the site's language (English otherwise)
    "zh": {
        "title": "首页",
        "folders": "文件夹",
        "recent": "最近的笔记",
        "notes": "篇笔记",
        "top": "根目录",
        "tags": "标签",
        "backlinks": "反向链接",
        "properties": "属性",
    },
    "en": {
        "title": "Home",
        "folders": "Folders",
        "recent": "Recent notes",
        "notes": "notes",
        "top": "Top level",
        "tags": "Tags",
        "backlinks": "Backlinks",
        "properties": "Properties",
    },
}
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")


def site_labels(language: str) -> dict[str, str]:
    """The labels of a site language (`zh`, `zh-TW`, `en`, ...)."""
    return LABELS.get(language.split("-")[0].split("_")[0].lower(), LABELS["en"])


def has_home(published) -> bool:
    """Whether the vault has its own home note (index.md, README.md or Home.md at its root)."""
    return meta.home_note(published) is not None


def vault_language(titles) -> str:
    """ "zh" when at least a third of the note titles are written in CJK script, else "en"."""
    titles = list(titles)
    cjk = sum(1 for title in titles if _CJK.search(title))
    return "zh" if titles and 3 * cjk >= len(titles) else "en"


def at_root(file, home: str | None):
    """MkDocs' `file`, written as the site's root page when it is the vault's home note
    `home` (Home.md: index.md and README.md are already)."""
    if home is not None and file.src_uri == home and posixpath.dirname(file.dest_uri) != "":
        file.dest_uri = "index.html"
    return file


def home_markdown(model: SiteModel, first_notes: dict[str, str]) -> str:
    """A home page for a vault without one: its folders (linking to their first note, with a
    count) and its most recent notes by `note_date`, labelled in the vault's language.
    `first_notes` maps each top-level folder ("" for the root) to its first note in the nav."""
    labels = site_labels(model.language)
    counts: dict[str, int] = {}
    for rel in model.published:
        top = PurePosixPath(rel).parts[0] if "/" in rel else ""
        counts[top] = counts.get(top, 0) + 1
    lines = [f"# {labels['title']}", "", f"## {labels['folders']}", ""]
    for folder in sorted(counts, key=lambda name: (name != "", name)):
        name = folder or labels["top"]
        lines.append(f"- [{_text(name)}]({url(HOME_PAGE, first_notes[folder])}) — {counts[folder]} {labels['notes']}")
    dated = sorted(
        ((date, rel) for rel, note in model.published.items() if (date := note_date(note))),
        key=lambda item: (-item[0].toordinal(), item[1]),
    )[:RECENT_NOTES]
    if dated:
        lines += ["", f"## {labels['recent']}", ""]
        lines += [
            f"- {date.isoformat()} [{_text(model.published[rel].title)}]({url(HOME_PAGE, rel)})" for date, rel in dated
        ]
    return "\n".join(lines) + "\n"


def url(from_rel: str, to_rel: str) -> str:
    """A relative markdown link from one vault file to another (the page renderer makes it
    the link to the target's page)."""
    return quote(relative_path(to_rel, posixpath.dirname(from_rel)), safe="/")


def relative_path(rel: str, folder: str) -> str:
    """`posixpath.relpath(rel, folder or ".")` for vault-relative paths (no `.`, `..` or empty
    parts), without its two `abspath`s: the tags page makes one per tag of each note."""
    if not folder:
        return rel
    start, parts = folder.split("/"), rel.split("/")
    shared = 0
    while shared < min(len(start), len(parts)) and start[shared] == parts[shared]:
        shared += 1
    return "/".join([".."] * (len(start) - shared) + parts[shared:]) or "."


def tags_markdown(model: SiteModel) -> str:
    """The tags index: a heading per tag (its id is `model.tag_anchor(tag)`), the notes under it.
    The page's title is its navigation title."""
    lines = []
    for tag, rels in model.tags.items():
        lines += [f"## \\#{_text(tag)}", ""]
        lines += [f"- [{_text(model.published[rel].title)}]({url(model.tags_page, rel)})" for rel in rels]
        lines.append("")
    return "\n".join(lines)


def note_page_html(model: SiteModel, rel: str, rendered) -> str:
    """A note's page as Obsidian's reading view shows it: its title (the inline title: the
    note's name), its properties, its text. Where the text starts with a `# heading` that is
    the title, that heading is the title; a text starting with another heading keeps it below
    the title, as Obsidian shows both. Where the vault's `.obsidian/app.json` turns the inline
    title off, the text's own first `# heading` is the title. Properties follow the
    vault's `propertiesInDocument`: only the front matter's tags where `hidden`, the YAML as
    written where `source`. The title is written here unless material writes it (a page with
    no `<h1>` at all). The note's `cssclasses` are classes of an element holding it all."""
    note, text = model.published[rel], rendered.html
    settings = model.vault.settings
    if settings.properties_in_document == "hidden":
        top = front_tags_html(model, rel)
    elif settings.properties_in_document == "source":
        top = front_source_html(model, rel)
    else:
        top = properties_html(model, rel)
    classes = css_classes(note.front.data)
    if rendered.headings and rendered.headings[0].level == 1 and text.startswith("<h1"):
        own = model.outline(rel)[0].plain.strip()
        if not settings.inline_title or own == note.title:
            end = text.index("</h1>") + len("</h1>\n")
            return _with_classes(text[:end] + top + text[end:], classes)
    if "<h1" in text or classes:
        top = f"<h1>{html.escape(note.title)}</h1>\n" + top
    return _with_classes(top + text, classes)


_CLASS = re.compile(r"^-?[A-Za-z_][\w-]*$")


def css_classes(data: dict) -> list[str]:
    """The CSS classes a note's `cssclasses` property (or the older `cssclass`) gives its page,
    as Obsidian adds them to the note's view; names that are no CSS class are left out."""
    value = data.get("cssclasses", data.get("cssclass"))
    names = value.split() if isinstance(value, str) else value if isinstance(value, list) else []
    return [name for name in (str(n).strip() for n in names if n is not None) if _CLASS.match(name)]


def _with_classes(page: str, classes: list[str]) -> str:
    if not classes:
        return page
    return f'<div class="vk-note {" ".join(classes)}">\n{page}</div>\n'


def front_source_html(model: SiteModel, rel: str) -> str:
    """A note's front matter as written (YAML between its `---` lines), as a code block."""
    end = model.published[rel].front.end_line
    if not end:
        return ""
    return highlight_code("\n".join(model.source_lines(rel)[:end]), "yaml") + "\n"


def front_tags_html(model: SiteModel, rel: str) -> str:
    """The tags of a note's front matter, at the top of its page, as inline tags show."""
    tags = model.published[rel].tags
    if not tags:
        return ""
    return f'<p class="vk-tags">{" ".join(_tag_link(model, rel, tag) for tag in tags)}</p>\n'


def _tag_link(model: SiteModel, rel: str, tag: str) -> str:
    to_tags = relative_url(model.page_url(model.tags_page), model.page_url(rel))
    return f'<a class="vk-tag" href="{to_tags}#{quote(model.tag_anchor(tag), safe="")}">#{html.escape(tag)}</a>'


_URL = re.compile(r"https?://[^\s<>\"']+")
TAG_KEYS = ("tags", "tag")


ALIAS_KEYS = ("aliases", "alias")
# Obsidian's property types, by the name `.obsidian/types.json` gives them
PROPERTY_TYPES = ("text", "multitext", "number", "checkbox", "date", "datetime", "tags", "aliases")


def property_type(model: SiteModel, key: str, value) -> str:
    """The type Obsidian shows a property as (its row's icon): `tags` and `aliases` by name,
    else the type `.obsidian/types.json` gives the name, else read from the YAML value."""
    name = str(key).lower()
    if name in TAG_KEYS:
        return "tags"
    if name in ALIAS_KEYS:
        return "aliases"
    given = model.vault.settings.property_type(str(key))
    if given in PROPERTY_TYPES:
        return given
    if isinstance(value, bool):
        return "checkbox"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, dt.datetime):
        return "datetime"
    if isinstance(value, dt.date):
        return "date"
    if isinstance(value, list):
        return "multitext"
    return "text"


def properties_html(model: SiteModel, rel: str) -> str:
    """A note's properties (front matter), each a row as Obsidian shows it: its type (an icon,
    `data-type`), its name, its value: lists as chips, tags linking to the tags page, dates
    as `<time>` (the page's script writes them in the reader's own format, as Obsidian's date
    picker follows the system's), booleans as checkboxes, `[[links]]` and URLs as links."""
    data = model.published[rel].front.data
    if not data:
        return ""
    rows = []
    for key, value in data.items():
        if str(key).lower() in TAG_KEYS:
            values = [value] if isinstance(value, str) else value if isinstance(value, list) else [value]
            shown = " ".join(_tag_link(model, rel, str(tag).lstrip("#")) for tag in values if tag not in (None, ""))
        else:
            shown = _property_value(model, rel, value)
        name = html.escape(str(key))
        kind = property_type(model, key, value)
        rows.append(f'<dt data-type="{kind}">{name}</dt><dd data-property="{name}">{shown}</dd>')
    label = site_labels(model.language)["properties"]
    return (
        f'<div class="vk-properties"><p class="vk-properties-title">{html.escape(label)}</p>'
        f"<dl>{''.join(rows)}</dl></div>\n"
    )


def _property_value(model: SiteModel, rel: str, value) -> str:
    if isinstance(value, list):
        return "".join(f'<span class="vk-property-item">{_property_value(model, rel, v)}</span>' for v in value)
    if isinstance(value, bool):
        return f'<input type="checkbox" disabled{" checked" if value else ""}>'
    if isinstance(value, dt.datetime):
        stamp = value.isoformat(timespec="minutes")
        return f'<time class="vk-date" datetime="{stamp}">{html.escape(value.isoformat(sep=" ", timespec="minutes"))}</time>'
    if isinstance(value, dt.date):
        return f'<time class="vk-date" datetime="{value.isoformat()}">{value.isoformat()}</time>'
    if value is None:
        return ""
    if isinstance(value, dict):
        return html.escape(", ".join(f"{k}: {v}" for k, v in value.items()))
    return _linked_text(model, rel, str(value))


def _linked_text(model: SiteModel, rel: str, text: str) -> str:
    """Text with its `[[wikilinks]]` (resolved as the note's own links) and URLs as links."""
    out, pos = [], 0
    for start, end, link in wikilinks_in(text):
        out.append(_urls(text[pos:start]))
        out.append(wikilink_html(model, rel, rel, link))
        pos = end
    out.append(_urls(text[pos:]))
    return "".join(out)


def _urls(text: str) -> str:
    out, pos = [], 0
    for match in _URL.finditer(text):
        out += [
            html.escape(text[pos : match.start()]),
            f'<a href="{html.escape(match[0])}">{html.escape(match[0])}</a>',
        ]
        pos = match.end()
    return "".join(out) + html.escape(text[pos:])


def scripts_html(page_html: str, page_url: str, mermaid: str | None, katex: str | None) -> str:
    """The scripts a page's HTML needs, from the site's files: mermaid.js where it has a
    diagram, KaTeX where it has a formula (None: the site ships no such file). They run
    before material's bundle, which looks for `window.mermaid` before fetching its own."""
    out = ""
    if mermaid and '<pre class="mermaid">' in page_html:
        out += f'<script src="{relative_url(mermaid, page_url)}"></script>\n'
    if katex and " data-tex=" in page_html:
        out += f'<link rel="stylesheet" href="{relative_url(katex + "/katex.min.css", page_url)}">\n'
        out += f'<script src="{relative_url(katex + "/katex.min.js", page_url)}"></script>\n'
    return out


def backlinks_html(model: SiteModel, rel: str, title: str) -> str:
    """The notes linking to `rel`, for the end of its page."""
    sources = model.backlinks(rel)
    if not sources:
        return ""
    here = model.page_url(rel)
    items = "".join(
        f'<li><a href="{relative_url(model.page_url(src), here)}">{html.escape(model.published[src].title)}</a></li>'
        for src in sources
    )
    return f'<div class="vk-backlinks">\n<p><strong>{html.escape(title)}</strong></p>\n<ul>{items}</ul>\n</div>\n'


def note_date(note) -> dt.date | None:
    """The note's `date` (or `updated`, `created`) from front matter, else the date of its last
    commit or its file (`meta.add_dates`)."""
    for key in ("date", "updated", "created"):
        value = note.front.data.get(key)
        if isinstance(value, dt.datetime):
            return value.date()
        if isinstance(value, dt.date):
            return value
        if isinstance(value, str):
            try:
                return dt.date.fromisoformat(value.strip()[:10])
            except ValueError:
                continue
    return note.derived.get(meta.DATE)


def feed_xml(model: SiteModel, site_name: str, site_url: str, page_urls: dict[str, str], limit: int = 50) -> str:
    """RSS 2.0 of the published notes, newest first by `note_date`; `site_url` makes the links absolute."""
    dated = sorted(
        ((note_date(note) or FIXED_DATE, rel) for rel, note in model.published.items() if rel in page_urls),
        key=lambda item: (-item[0].toordinal(), item[1]),
    )[:limit]
    base = site_url.rstrip("/") + "/" if site_url else ""
    items = []
    for date, rel in dated:
        link = html.escape(urljoin(base, page_urls[rel]) if base else page_urls[rel])
        when = format_datetime(dt.datetime.combine(date, dt.time(), dt.UTC))
        items.append(
            f"<item><title>{html.escape(model.published[rel].title)}</title><link>{link}</link>"
            f'<guid isPermaLink="false">{html.escape(rel)}</guid><pubDate>{when}</pubDate></item>'
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
        f"<title>{html.escape(site_name)}</title><link>{html.escape(base)}</link>"
        f"<description>{html.escape(site_name)}</description>" + "".join(items) + "</channel></rss>\n"
    )


def _text(text: str) -> str:
    """Text that markdown shows as written."""
    return re.sub(r"([\\`*_\[\]<>#=%$!|~])", r"\\\1", text)
