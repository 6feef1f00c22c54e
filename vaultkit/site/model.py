"""The vault as the site sees it: published notes, fresh text, link targets, tags, backlinks."""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from pathlib import PurePosixPath
from typing import Callable

from ..links import LinkIndex, extract_links
from ..markdown import parse
from ..pipeline import Pipeline
from ..syntax.headings import find_section, sections, unique_anchors
from ..vault import Vault, is_excluded
from .transform import _TAG, Site, Target, split_fences, split_spans, strip_comments


class SiteModel(Site):
    """Built once per build; every page is rendered from it (so a page can be rebuilt alone)."""

    def __init__(self, vault: Vault, slugify: Callable[[str, str], str], tags_page: str = "tags.md",
                 language: str = "en", pipeline: Pipeline | None = None):
        self.vault = vault
        self.slugify = slugify
        self.tags_page = tags_page
        self.language = language  # the theme's: the tooltips of broken links follow it
        self.pipeline = pipeline or Pipeline(vault)
        self.index: LinkIndex = self.pipeline.index
        self.published = {
            rel: note for rel, note in vault.notes.items() if note.readable and note.published and not note.ignored
        }
        self._texts: dict[str, str] = {}
        self._tokens: dict[str, list] = {}
        self._inline_tags: dict[str, list[str]] = {}

    def after_pass(self, pipeline: Pipeline, changed: set[str]) -> "SiteModel":
        """The model of the vault after a watch pass: the texts (and their tokens and tags) of
        notes outside `changed` (the notes the pass affected, as the watcher computes them) are kept."""
        model = SiteModel(pipeline.vault, self.slugify, self.tags_page, self.language, pipeline)
        kept = {rel for rel in self._texts if rel not in changed and rel in model.published}
        model._texts = {rel: self._texts[rel] for rel in kept}
        model._tokens = {rel: tokens for rel, tokens in self._tokens.items() if rel in kept}
        model._inline_tags = {rel: tags for rel, tags in self._inline_tags.items() if rel in kept}
        return model

    # -- files -------------------------------------------------------------------------

    def publishes(self, rel: str) -> bool:
        """Whether a file under docs_dir belongs on the site."""
        if is_excluded_path(rel):
            return False
        if rel.lower().endswith(".md"):
            return rel in self.published
        return rel in self.attachments and not self.index.ignored(rel)

    @cached_property
    def attachments(self) -> set[str]:
        return set(self.vault.attachments)

    @cached_property
    def figures(self) -> dict[str, str]:
        """Generated figures, freshly rendered: vault-relative path -> SVG text."""
        return self.pipeline.fresh_figures()

    # -- text --------------------------------------------------------------------------

    def text(self, rel: str) -> str:
        """The note's fresh text without its front matter."""
        if rel not in self._texts:
            text = self.pipeline.fresh_text(rel)
            end = self.vault.notes[rel].front.end_line
            # split at \n only: str.splitlines also breaks at U+2028, \x0c, ... and would
            # leave front matter lines (and their secrets) in the page
            self._texts[rel] = "\n".join(text.split("\n")[end:])
        return self._texts[rel]

    def tokens(self, rel: str) -> tuple[list, int]:
        """Tokens of the note's fresh text (its own when `fix` changes nothing), and where the
        body begins in them."""
        if rel not in self._tokens:
            note = self.vault.notes[rel]
            text = self.pipeline.fresh_text(rel)
            self._tokens[rel] = note.tokens if text == note.text else parse(text)
        return self._tokens[rel], self.vault.notes[rel].front.end_line

    def links(self, rel: str) -> list[dict]:
        """The note's wikilinks as `check` found them when `fix` changes nothing (so a note
        checked in a worker process is not parsed again), else from its fresh text."""
        note = self.vault.notes[rel]
        if self.pipeline.fresh_text(rel) != note.text:
            return super().links(rel)
        offset = note.front.end_line
        return [{**vars(link), "line": link.line - offset} for link in extract_links(note)]

    # -- links -------------------------------------------------------------------------

    def resolve(self, path: str, source: str) -> Target:
        resolution = self.index.resolve(path, source)
        rel = resolution.target
        if rel is None or resolution.status in ("missing", "outside"):
            return Target(None, "outside the vault" if resolution.status == "outside" else "missing")
        ignored = self.index.ignored(rel)
        if ignored:
            return Target(None, ignored)
        if rel.lower().endswith(".md"):
            return Target(rel) if rel in self.published else Target(None, "unpublished")
        return Target(rel) if rel in self.attachments else Target(None, "missing")

    def anchor(self, rel: str, heading: str) -> str | None:
        """The toc id of the heading `heading` names in note `rel` (the site's slugify of the
        heading as a reader sees it, made unique like `toc` does), or None when it has none."""
        tokens = self.tokens(rel)[0]
        wanted = find_section(tokens, heading)
        if wanted is None:
            return None
        found = sections(tokens)
        anchors = unique_anchors([s.plain for s in found], lambda text: self.slugify(text, "-"))
        return anchors[found.index(wanted)]

    def backlinks(self, rel: str) -> list[str]:
        """Published notes that link to `rel`."""
        return sorted({src for src in self.index.backlinks(rel) if src in self.published and src != rel})

    # -- tags --------------------------------------------------------------------------

    def tag_anchor(self, tag: str) -> str:
        return "tag-" + self.slugify(tag.replace("/", "-"), "-")

    @cached_property
    def tags(self) -> dict[str, list[str]]:
        """Tag -> published notes carrying it (front matter and inline tags), sorted."""
        by_tag: dict[str, set[str]] = defaultdict(set)
        for rel, note in self.published.items():
            if rel not in self._inline_tags:
                self._inline_tags[rel] = inline_tags(self.text(rel))
            for tag in note.tags + self._inline_tags[rel]:
                by_tag[tag].add(rel)
        return {tag: sorted(by_tag[tag]) for tag in sorted(by_tag)}


def is_excluded_path(rel: str) -> bool:
    return is_excluded(PurePosixPath(rel))


def inline_tags(text: str) -> list[str]:
    """`#tags` written in the body, outside code and math."""
    found = []
    for kind, chunk in split_fences(text):
        if kind != "text":
            continue
        for protected, piece in split_spans(strip_comments(chunk)):
            if not protected:
                found.extend(m["tag"] for m in _TAG.finditer(piece))
    return list(dict.fromkeys(found))
