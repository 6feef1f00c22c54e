"""Every MkDocs and mkdocs-material internal vaultkit relies on, in one place.

vaultkit renders pages itself (from the notes' tokens) but publishes them through MkDocs 1.6 and
material 9, and needs of them what their public API does not give:

- MkDocs' `Page.render` runs Python-Markdown: a vaultkit page (`VaultPage`) renders with
  vaultkit's renderer instead and fills what `Page.render` fills (`content`, `toc`,
  `present_anchor_ids`, `links_to_anchors`);
- material's search parses each page's HTML into sections: `TokenSearch` gives it the sections
  read from the tokens instead (material's `Section`, `Element` and `create_entry_for_section`
  make the entries, so they are the entries material makes: title fallback, tags, boost), and
  leaves Chinese text as it is (material's `_segment_chinese` marks jieba's words in it; the
  index of `search_index.py` needs no words);
- material's search keeps the entries of the pages it saw in `search_index.entries` and writes
  them in `on_post_build` (a page rendered in a worker sends its part of the index back);
  vaultkit writes its own index in pieces (`search_index.py`) with material's `config` at its
  head (`search_config`);
- a static file a plugin gave its content (`File._content`) is written from it, not copied:
  `static_source` says what a copy is made from, so a build from the cache writes again only
  the static files whose source changed;
- MkDocs' `Page.update_date` feeds the sitemap; `Page.title` is None until the page's source is
  read, unless set (`pin_title`);
- a page keeps its source, HTML and sections after it is written (`Page.markdown`, `content`,
  `toc`): a build frees them once the page is written (`release`);
- material's navigation (and a page's table of contents) is mostly indentation: each run of
  white space holding a line break is cut to that line break (`compact_navigation`), which
  renders the same (the navigation holds no `pre`, `textarea` nor script);
- material renders the navigation on every page with the `render(nav_item, path, level, parent)`
  macro of `partials/nav-item.html`, which `partials/nav.html` imports with the page's context and
  which calls itself (through its jinja2 `Macro` object's `_func`) for each level: a section the
  page is not in comes out the same on every page at the same relative URL from the folders its
  pages share, so `ClosedSections` renders it once per such URL (with `navigation.sections` every
  section is drawn, and the navigation of each page would grow with the vault).

tests/test_site_internals.py checks each of these against the installed versions.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable
from functools import partial

from jinja2 import TemplateNotFound
from material.plugins.search.plugin import Element, SearchIndex, SearchPlugin
from material.plugins.search.plugin import Section as MaterialSection
from mkdocs.structure.files import File
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc
from mkdocs.utils import get_relative_url

from vaultkit.model.vault import settled_stat
from vaultkit.renderers.site.note_html import RenderedNote


class VaultPage(Page):
    """A page whose HTML vaultkit renders (`render_note` is set by `adopt`)."""

    render_note: Callable[[Page], RenderedNote]

    def render(self, config, files) -> None:
        note = self.render_note(self)
        self.content = note.html
        self.toc = get_toc(note.toc())
        self.present_anchor_ids = set(note.anchor_ids)
        self.links_to_anchors = {}
        self.search_sections = note.sections


def is_vault_page(page: Page) -> bool:
    """Whether vaultkit renders `page` (it was `adopt`ed)."""
    return isinstance(page, VaultPage)


def adopt(page: Page, render_note: Callable[[Page], RenderedNote]) -> None:
    """Make `page` (made by MkDocs' navigation) a `VaultPage` rendered by `render_note`."""
    page.__class__ = VaultPage
    page.render_note = render_note


def release(page: Page) -> None:
    """Free what a written page holds that no other page needs (its source, HTML, sections);
    its title, URL, meta and update date stay for the navigation and the sitemap."""
    page.markdown = page.content = None
    page.toc = get_toc([])
    if isinstance(page, VaultPage):
        page.search_sections = None


class TokenSearch(SearchIndex):
    """Material's search index, fed vaultkit's sections for vaultkit's pages."""

    def add_entry_from_context(self, page) -> None:
        sections = getattr(page, "search_sections", None)
        if sections is None:
            return super().add_entry_from_context(page)
        if (page.meta.get("search") or {}).get("exclude"):
            return
        for section in sections:
            found = MaterialSection(Element("h1" if section.id is None else "h2"))
            found.id = section.id
            found.title = [section.title] if section.title else []
            found.text = [section.text]
            self.create_entry_for_section(found, page.toc, page.url, page)

    def _segment_chinese(self, data: str) -> str:
        return data  # vaultkit's index cuts Han text into pairs of characters itself: no words to mark


def search_config(search: SearchPlugin) -> dict:
    """The `config` material writes at the head of its search index (language, separator, ...)."""
    index = search.search_index
    kept, index.entries = index.entries, []
    try:
        return json.loads(index.generate_search_index(None))["config"]
    finally:
        index.entries = kept


def searches(config) -> list[SearchPlugin]:
    """Material's search plugins of a config (each made to read vaultkit's sections)."""
    found = [plugin for plugin in config.plugins.values() if isinstance(plugin, SearchPlugin)]
    for plugin in found:
        index = getattr(plugin, "search_index", None)
        if index is not None and not isinstance(index, TokenSearch):
            plugin.search_index = TokenSearch(**index.config)
    return found


def is_search_worker(src_uri: str) -> bool:
    """Whether a theme file is material's search worker (its name holds a hash of its bytes)."""
    return src_uri.startswith("assets/javascripts/workers/search.") and src_uri.endswith(".min.js")


def page_entries(search: SearchPlugin) -> list:
    """The entries the search plugin holds (pages seen since they were last taken)."""
    return search.search_index.entries


def pin_title(page: Page, title: str) -> None:
    """Give `page` the title MkDocs gives it once its source is read (its meta `title`), unless
    the navigation gave it one: `Page.title` is None while the source is unread or released,
    and a build that reads and frees one page at a time would show None in the navigation."""
    if "title" not in vars(page):  # `Page.title` is a `weak_property`: a title set wins
        page.title = title


def static_source(file: File) -> tuple | None:
    """What `File.copy_file` makes a static file's copy from: the digest of the content a
    plugin gave it (`File._content`), else its source file's path, size and time; None when
    that file was written within the last two seconds (`settled_stat`: its size and time may
    not stand for its bytes)."""
    content = file._content
    if content is not None:
        data = content.encode("utf-8") if isinstance(content, str) else content
        return "content", hashlib.sha256(data).hexdigest()
    try:
        stat = os.stat(file.abs_src_path)
    except (OSError, TypeError):
        return None
    settled = settled_stat(stat)
    return None if settled is None else ("file", file.abs_src_path, *settled)


def set_update_date(page: Page, date: str) -> None:
    """The date the sitemap gives the page (MkDocs reads `Page.update_date`)."""
    page.update_date = date


_NAV_START = '<nav class="md-nav md-nav--primary"'
_NAV_END = '<div class="md-content"'
_BREAKS = re.compile(r"[ \t\r\f]*\n[ \t\r\n\f]*")
_KEPT_SPACE = re.compile(r"<(pre|textarea|script)\b")


def compact_navigation(html: str) -> str:
    """A page of material's with its navigation's white space cut: each run holding a line
    break becomes that line break (the page shows the same)."""
    start = html.find(_NAV_START)
    end = html.find(_NAV_END, start)
    if start < 0 or end < 0 or _KEPT_SPACE.search(html, start, end):
        return html
    return html[:start] + _BREAKS.sub("\n", html[start:end]) + html[end:]


NAV_ITEM_TEMPLATE = "partials/nav-item.html"


class ClosedSections:
    """Material's HTML of each section of the navigation that a page is not in, made once and
    reused for every page it comes out the same for. Such a section depends on the page only
    through the relative URLs of its pages, and those all begin with the URL folders its pages
    share: where the page's URL leaves those folders before their end, the URLs depend only on
    the relative URL from the page to them (MkDocs' `get_relative_url`), which keys the HTML.
    A section holding a link, or whose shared folders the page is in, is rendered as usual."""

    def __init__(self):
        self.folders: dict[int, str] = {}  # id(section) -> the URL folders all its pages share, as "a/b/"
        self.html: dict[tuple[int, str, int, str], str] = {}

    def follow(self, nav: Navigation) -> None:
        """Use `nav` from now on (what was made for the previous one is dropped)."""
        self.folders, self.html = {}, {}
        for item in nav.items:
            if isinstance(item, Section):
                self._learn(item)

    def _learn(self, section: Section) -> list[list[str]] | None:
        """The URL folders and name of every page under `section`, its shared folders (and those
        of the sections in it) remembered; None if it holds anything but sections and pages."""
        urls: list[list[str]] = []
        for item in section.children:
            if isinstance(item, Section):
                inner = self._learn(item)
                if inner is None:
                    return None
                urls += inner
            elif isinstance(item, Page):
                urls.append([part for part in (item.url or "").split("/") if part])
            else:
                return None
        shared = os.path.commonprefix(urls) if urls else []
        if shared:
            self.folders[id(section)] = "/".join(shared) + "/"
        return urls

    def install(self, env) -> None:
        """Have the theme's navigation macro, at every level and in every page `env` renders, go
        through `render` (`env` is the renderer's own, made by `Theme.get_env` for it); a theme
        without that macro is left as it is."""
        try:
            template = env.get_template(NAV_ITEM_TEMPLATE)
        except TemplateNotFound:
            return
        make_module = template.make_module

        def make_module_remembering(vars=None, shared=False, locals=None):
            module = make_module(vars, shared, locals)
            page = (vars or {}).get("page")
            if isinstance(page, Page):  # the macro calls itself through this object: every level comes here
                module.render._func = partial(self.render, module.render._func, page)
            return module

        template.make_module = make_module_remembering

    def render(self, macro, page: Page, *args):
        """`macro(*args)` (material's `render(nav_item, path, level, parent)`), made once per
        relative URL to the shared folders for a section `page` is not in."""
        nav_item, path, level = args[:3]
        folders = self.folders.get(id(nav_item))
        if folders is None or nav_item.active:
            return macro(*args)
        to_folders = get_relative_url(folders, page.url)
        if to_folders.rstrip("/").rsplit("/", 1)[-1] in (".", ".."):  # the page is in those folders
            return macro(*args)
        key = (id(nav_item), path, level, to_folders)
        html = self.html.get(key)
        if html is None:
            html = self.html[key] = macro(*args)
        return html
