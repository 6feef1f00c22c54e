"""Acceptance on the real vault: build a copy into a tmp dir and audit the output."""

from __future__ import annotations

import posixpath
import re
import shutil
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from vaultkit.commands.build import build_command
from vaultkit.model.vault import Vault

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"
pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus not available at {CORPUS}")

# Files the real vault lacks, added to the copy: none of this may reach the site.
EXCLUDED = {
    ".obsidian/workspace.json": '{"LEAKMARK": "obsidian"}',
    ".trash/old.md": "LEAKMARK trash",
    ".env": "TOKEN=LEAKMARK",
    "private/diary.md": "LEAKMARK private",
    "templates/t.md": "LEAKMARK template",
    "attachments-private/x.md": "LEAKMARK attachments-private",
    "07-Knowledge/.draft.md": "LEAKMARK dotfile",
    "07-Knowledge/unpublished.md": "---\npublish: false\n---\nLEAKMARK unpublished",
    "07-Knowledge/draft.md": "---\ndraft: true\n---\nLEAKMARK draft",
}


# -- auditing built pages ---------------------------------------------------------------

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


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus")
    vault = root / "vault"
    shutil.copytree(CORPUS, vault)
    for path in [vault, *vault.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    for rel, text in EXCLUDED.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    site = root / "site"
    build_command(vault, str(site), strict=False)
    pages = {p: audit_page(p) for p in site.rglob("*.html") if p != site / "404.html"}
    return vault, site, pages


def test_every_published_note_has_a_page(built):
    vault, site, pages = built
    model = Vault.load(vault)
    published = [rel for rel, note in model.notes.items() if note.published]
    assert len(published) == 146
    for rel in published:
        folder, _, name = rel[: -len(".md")].rpartition("/")
        page = site / folder / ("" if name in ("README", "index") else name) / "index.html"
        assert page.is_file(), rel


def test_no_wikilink_left_outside_code(built):
    _, site, pages = built
    assert [p for p, audit in pages.items() if "[[" in main_content(audit)] == []


def test_internal_links_and_images_resolve(built):
    vault, site, pages = built
    written = set()
    for note in vault.rglob("*.md"):
        text = note.read_text(encoding="utf-8")
        written.update(re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'(?:src|href)="([^"]+)"', text))
    dead_links, dead_images, svg_1000, missing = [], [], 0, []
    for page, audit in pages.items():
        dead_links += [h for h in audit.hrefs if is_internal(h) and target_file(site, page, h) is None]
        for img in audit.images:
            src = img.get("src", "")
            if is_internal(src) and target_file(site, page, src) is None:
                dead_images.append(src)
            svg_1000 += src.endswith(".svg") and img.get("width") == "1000"
        missing += audit.missing
    # only the author's own markdown links (e.g. `[首页](/)`) may point nowhere, never a wikilink
    # (compared decoded: the parser percent-encodes what a link destination writes raw)
    assert {unquote(h) for h in dead_links} <= {unquote(w) for w in written}
    # images the vault lacks, written by the author as markdown or HTML images
    assert all(src in written for src in dead_images)
    assert missing.count("链接的笔记或文件不存在") == 15  # the tooltip of a missing target, in the site's language
    assert svg_1000 == 9


def test_excluded_files_never_reach_the_site(built):
    _, site, _ = built
    for path in site.rglob("*"):
        if path.is_file():
            assert b"LEAKMARK" not in path.read_bytes(), path
    assert not any(part.startswith(".") for p in site.rglob("*") for part in p.relative_to(site).parts)


@pytest.mark.slow
def test_serve_shows_the_built_pages(built, tmp_path):
    """Every 10th page of the real vault, its search index and feed: served = built, byte for byte."""
    from vaultkit.commands.serve import ServedSite

    vault, site, pages = built
    served = ServedSite(vault, tmp_path / "unused")
    names = sorted(p.relative_to(site).as_posix() for p in pages)[::10] + ["search/search_index.json", "feed.xml"]
    for name in names:
        status, _, body = served.respond(name)
        assert status == 200, name
        assert body == (site / name).read_bytes(), name
