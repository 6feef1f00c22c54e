"""Generated markdown: the tags index, the backlinks section, and the RSS feed."""

from __future__ import annotations

import datetime as dt
import html
from email.utils import format_datetime

from .model import SiteModel
from .transform import url

FIXED_DATE = dt.date(2000, 1, 1)  # for notes without a `date`, so builds are reproducible


def tags_markdown(model: SiteModel, title: str) -> str:
    lines = [f"# {title}", ""]
    for tag, rels in model.tags.items():
        lines += [f"## #{tag} {{ #{model.tag_anchor(tag)} }}", ""]
        lines += [f"- [{_text(model.published[rel].title)}]({url(model.tags_page, rel)})" for rel in rels]
        lines.append("")
    return "\n".join(lines)


def backlinks_markdown(model: SiteModel, rel: str, title: str) -> str:
    sources = model.backlinks(rel)
    if not sources:
        return ""
    items = "\n".join(f"- [{_text(model.published[src].title)}]({url(rel, src)})" for src in sources)
    return f'\n\n<div class="vk-backlinks" markdown="1">\n\n**{_text(title)}**\n\n{items}\n\n</div>\n'


def note_date(note) -> dt.date | None:
    """The note's `date` (or `created`) from front matter, when it is one."""
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
    return None


def feed_xml(model: SiteModel, site_name: str, site_url: str, page_urls: dict[str, str], limit: int = 50) -> str:
    """RSS 2.0 of the published notes, newest first by front matter date."""
    dated = sorted(
        ((note_date(note) or FIXED_DATE, rel) for rel, note in model.published.items() if rel in page_urls),
        key=lambda item: (-item[0].toordinal(), item[1]),
    )[:limit]
    base = site_url.rstrip("/") + "/" if site_url else ""
    items = []
    for date, rel in dated:
        link = html.escape(base + page_urls[rel])
        when = format_datetime(dt.datetime.combine(date, dt.time(), dt.timezone.utc))
        items.append(
            f"<item><title>{html.escape(model.published[rel].title)}</title><link>{link}</link>"
            f"<guid isPermaLink=\"false\">{html.escape(rel)}</guid><pubDate>{when}</pubDate></item>"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
        f"<title>{html.escape(site_name)}</title><link>{html.escape(base)}</link>"
        f"<description>{html.escape(site_name)}</description>" + "".join(items) + "</channel></rss>\n"
    )


def _text(text: str) -> str:
    return text.replace("[", "\\[").replace("]", "\\]")
