"""Pages of an earlier build, kept when nothing they show has changed (`vaultkit build`'s cache).

A page's record holds what its rendering read of the vault: the notes whose text it read (its
own, the notes it embeds, the headings it links to), and each question it asked the site model
(where a link resolves, a page's URL, a tag's anchor). With the navigation, its note's title,
tags, date and backlinks, and the answers to those questions asked again, they are the page's
inputs; a later build renders the page again only when the digest of its inputs differs, or
when its file is not the one that build wrote (a crash, a hand edit). The record also keeps
what the build needs of a page it does not render: the date the sitemap gives it, and the
warnings its rendering logged (shown, and counted by `--strict`, again); its part of the
search index is kept beside (`render.Built`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from vaultkit.renderers.site import pages

NAV_META = ("status", "icon", "subtitle")  # what material's navigation shows of a page's meta


@dataclass
class PageRecord:
    inputs: str  # digest of the page's inputs (`Inputs.digest`)
    reads: tuple[str, ...]  # notes (and generated pages) whose text it read, sorted
    asked: tuple[tuple[str, tuple], ...]  # (model method, arguments) it asked, sorted by repr (`Recorder.record`)
    update_date: str  # what the sitemap gives it
    warnings: tuple[tuple[str, int, str], ...]  # (logger, level, message) its rendering logged
    written: tuple[int, int] | None  # (size, whole seconds of mtime) of the file written; None: none written


def written(path: str) -> tuple[int, int] | None:
    """The size and modification time of a page's file, None if there is none: the time in
    whole seconds, as an archive of the site (the Action's cache) keeps it."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_size, int(stat.st_mtime)


class Recorder:
    """The site model as one page's rendering sees it, recording the notes it read and the
    questions it asked (drafts of the plugin's model are taken through it: `model`)."""

    NOTE_READS = frozenset(("text", "tokens", "section", "outline", "anchor", "heading_ids", "source_lines"))
    ASKED = frozenset(("resolve", "page_url", "tag_anchor"))

    def __init__(self, model, rel: str):
        self.model = model
        self.reads: set[str] = {rel}
        self.asked: set[tuple[str, tuple]] = set()

    def record(self) -> tuple[tuple[str, ...], tuple[tuple[str, tuple], ...]]:
        """The notes read and the questions asked so far, in the order `Inputs.digest` takes them."""
        return tuple(sorted(self.reads)), tuple(sorted(self.asked, key=repr))

    def __getattr__(self, name):
        value = getattr(self.model, name)
        if name in self.NOTE_READS:

            def read(rel, *args):
                self.reads.add(rel)
                return value(rel, *args)

            return read
        if name in self.ASKED:

            def ask(*args):
                self.asked.add((name, args))
                return value(*args)

            return ask
        return value


class Inputs:
    """The inputs of each page as the vault is now (`model`, the site model of this build)."""

    def __init__(self, model, doc_files):
        self.model = model
        nav = tuple(
            (file.src_uri, file.url, file.page.title, tuple(str(file.page.meta.get(key)) for key in NAV_META))
            for file in doc_files
            if file.page is not None
        )
        self.nav = _digest(repr(nav))
        self._texts: dict[str, str | None] = {}
        self._answers: dict[tuple[str, tuple], object] = {}  # many pages ask the same (a tag's anchor, a page's URL)

    def text(self, rel: str) -> str | None:
        """The digest of a note's fresh text (front matter included) or of a generated page."""
        if rel not in self._texts:
            model = self.model
            if rel in model.generated:
                text = model.generated[rel]
            elif rel in model.published:
                text = model.state.fresh_text(rel)
            else:
                text = None
            self._texts[rel] = None if text is None else _digest(text)
        return self._texts[rel]

    def answer(self, name: str, args: tuple):
        """The site model's answer to a question a page asked."""
        key = (name, args)
        if key not in self._answers:
            self._answers[key] = getattr(self.model, name)(*args)
        return self._answers[key]

    def digest(self, rel: str, reads: tuple[str, ...], asked: tuple[tuple[str, tuple], ...]) -> str:
        """The digest of page `rel`'s inputs, of the notes it read and the questions it asked (in their records' order)."""
        model = self.model
        parts: list = [self.nav, rel]
        note = model.published.get(rel)
        if note is not None:
            parts += [
                note.title,
                tuple(map(str, note.tags)),
                str(pages.note_date(note)),
                tuple((src, model.published[src].title) for src in model.backlinks(rel)),
            ]
        parts += [(read, self.text(read)) for read in reads]
        parts += [(name, args, self.answer(name, args)) for name, args in asked]
        return _digest(repr(parts))


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", errors="surrogatepass")).hexdigest()
