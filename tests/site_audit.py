"""Audit of a built site: leftover wikilinks, dead internal links and images, embedded SVGs."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

CODE_TAGS = {"code", "pre", "script", "style"}


@dataclass
class PageAudit(HTMLParser):
    hrefs: list[str] = field(default_factory=list)
    images: list[dict] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # titles of vk-missing spans
    text_outside_code: list[str] = field(default_factory=list)
    ids: set[str] = field(default_factory=set)
    math: int = 0
    _depth_code: int = 0

    def __post_init__(self):
        super().__init__(convert_charrefs=True)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in CODE_TAGS:
            self._depth_code += 1
        if tag == "a" and attrs.get("href"):
            self.hrefs.append(attrs["href"])
        if tag == "img":
            self.images.append(attrs)
        if tag == "math":
            self.math += 1
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "span" and "vk-missing" in (attrs.get("class") or "").split():
            self.missing.append(attrs.get("title", ""))

    def handle_endtag(self, tag):
        if tag in CODE_TAGS and self._depth_code:
            self._depth_code -= 1

    def handle_data(self, data):
        if not self._depth_code:
            self.text_outside_code.append(data)


def audit_page(path: Path) -> PageAudit:
    audit = PageAudit()
    audit.feed(path.read_text(encoding="utf-8"))
    return audit


def is_internal(url: str) -> bool:
    parts = urlsplit(url)
    return not parts.scheme and not parts.netloc and not url.startswith(("mailto:", "javascript:"))


def target_file(site: Path, page: Path, url: str) -> Path | None:
    """The file an internal URL of `page` points to, or None when it points to nothing."""
    path = unquote(urlsplit(url).path)
    if not path:
        return page
    base = page.parent.relative_to(site).as_posix()
    rel = posixpath.normpath(posixpath.join(base, path))
    candidate = site / rel
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def main_content(audit: PageAudit) -> str:
    return "".join(audit.text_outside_code)
