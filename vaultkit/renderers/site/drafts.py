"""Pages drafted where the check reads each note, so that a build parses each note once.

A build checks every note (in worker processes) before it makes any page: a page needs the
whole vault (its tags, the headings of other notes, which notes exist). While a note's tokens
are still there, `Drafts.write` renders its page against what is known then (`DraftSite`),
records every answer the rendering was given about the vault, and writes the draft to a
folder. When the page is made, `Drafts.take` hands the draft back if the whole vault gives
each of those answers again; else (the draft asked another note's headings or embeds one, a
tag's anchor had to be made unique, a link leads to a page the site adds) the page is rendered
from the note as before. Either way the page has the same bytes.
"""

from __future__ import annotations

import os
import pickle
import shutil
import tempfile
from pathlib import Path

from vaultkit.renderers.site.mermaid import has_diagram
from vaultkit.renderers.site.model import SiteModel
from vaultkit.renderers.site.note_html import RenderedNote, render_note


class NeedsVault(Exception):
    """A draft asked what only the whole vault knows (another note's text or headings)."""


class DraftSite:
    """The site model as one note's draft sees it: the note's own tokens and headings, and the
    answers of `model` about links and tags, each recorded."""

    def __init__(self, model: SiteModel, rel: str):
        self.model, self.rel = model, rel
        self.tags_page, self.language = model.tags_page, model.language
        self.strict_line_breaks = model.strict_line_breaks
        self.answers: list[tuple[str, tuple, object]] = []  # (method, arguments, answer)

    def _own(self, rel: str) -> None:
        if rel != self.rel:
            raise NeedsVault(rel)

    def tokens(self, rel: str):
        self._own(rel)
        return self.model.tokens(rel)

    def heading_ids(self, rel: str) -> list[str]:
        self._own(rel)
        return self.model.heading_ids(rel)

    def anchor(self, rel: str, heading: str) -> str | None:
        self._own(rel)
        return self.model.anchor(rel, heading)

    def section(self, rel: str, heading: str | None, block: str | None):
        self._own(rel)
        return self.model.section(rel, heading, block)

    def _recorded(self, name: str, args: tuple, answer):
        self.answers.append((name, args, answer))
        return answer

    def resolve(self, path: str, source: str):
        return self._recorded("resolve", (path, source), self.model.resolve(path, source))

    def page_url(self, rel: str) -> str:
        return self._recorded("page_url", (rel,), self.model.page_url(rel))

    def tag_anchor(self, tag: str) -> str:
        # The anchor unless another tag slugs alike: the whole vault's tags say (`holds`).
        return self._recorded("tag_anchor", (tag,), self.model.slugify("#" + tag, "-"))


class Drafts:
    """The drafts of a build's pages, in a temporary folder until the build is done."""

    def __init__(self, model: SiteModel, mermaid: bool):
        self.model, self.mermaid = model, mermaid
        self.folder = Path(tempfile.mkdtemp(prefix="vaultkit-drafts-"))
        self.paths = {rel: self.folder / f"{n}.pickle" for n, rel in enumerate(sorted(model.published))}

    def write(self, rel: str) -> None:
        """Draft the page of note `rel` (in the check's worker, its tokens at hand), unless it
        is unpublished or needs the whole vault."""
        if rel not in self.paths:
            return
        has_diagram(self.model.published[rel])  # kept in its `derived`: the build's end counts them
        site = DraftSite(self.model, rel)
        try:
            rendered = render_note(site, rel, mermaid=self.mermaid)
        except NeedsVault:
            return
        finally:
            self.model.release(rel)
        with open(self.paths[rel], "wb") as out:
            pickle.dump((site.answers, rendered), out, protocol=pickle.HIGHEST_PROTOCOL)

    def take(self, rel: str, model: SiteModel) -> RenderedNote | None:
        """The draft of `rel`'s page if `model` (the whole vault) gives every answer it was given."""
        path = self.paths.get(rel)
        if path is None or not path.exists():
            return None
        with open(path, "rb") as draft:
            answers, rendered = pickle.load(draft)
        os.unlink(path)
        if all(getattr(model, name)(*args) == answer for name, args, answer in answers):
            return rendered
        return None

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)
