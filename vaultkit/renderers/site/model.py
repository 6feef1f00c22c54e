"""The vault as the site sees it: published notes, fresh tokens, link targets, tags, backlinks.

It is made from the vault's state (`vaultkit.state.VaultState`, or the `Pipeline` it extends)
that the command hands down: the notes as read, checked, and as `fix` would leave them. Nothing
here imports that level; the state is used through the methods it has."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from functools import cached_property
from pathlib import PurePosixPath

from vaultkit.model.links import LinkIndex
from vaultkit.model.vault import Vault, is_excluded
from vaultkit.readers.markdown import parse
from vaultkit.readers.syntax.headings import Section, unique_anchors
from vaultkit.readers.syntax.tags import inline_tags
from vaultkit.renderers.site.note_html import Site, Target, directory_url


class SiteModel(Site):
    """Built once per build; every page is rendered from it (so a page can be rebuilt alone)."""

    def __init__(
        self,
        vault: Vault,
        slugify: Callable[[str, str], str],
        tags_page: str = "tags.md",
        language: str = "en",
        state=None,
    ):
        """`state`: the vault's checked state (its `note`, `fresh_text`, `fresh_tokens`,
        `fresh_figures` and link `index` are read); `vault` is its vault."""
        self.vault = vault
        self.slugify = slugify
        self.tags_page = tags_page
        self.language = language  # the theme's: the tooltips of broken links follow it
        self.strict_line_breaks = vault.settings.strict_line_breaks
        self.state = state
        self.index: LinkIndex = state.index
        self.published = {
            rel: note for rel, note in vault.notes.items() if note.readable and note.published and not note.ignored
        }
        self.generated: dict[str, str] = {}  # pages the site adds (home, tags): path -> markdown
        self.page_urls: dict[str, str] = {}  # vault path -> site URL, as MkDocs' files have them
        self._texts: dict[str, str] = {}
        self._tokens: dict[str, list] = {}

    def after_pass(self, state, changed: set[str]) -> SiteModel:
        """The model of the vault after a watch pass: the texts (and their tokens) of
        notes outside `changed` (the notes the pass affected, as the watcher computes them) are kept."""
        model = SiteModel(state.vault, self.slugify, self.tags_page, self.language, state)
        kept = {rel for rel in self._texts if rel not in changed and rel in model.published}
        model._texts = {rel: self._texts[rel] for rel in kept}
        model._tokens = {rel: tokens for rel, tokens in self._tokens.items() if rel in kept}
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
        return self.state.fresh_figures()

    def page_url(self, rel: str) -> str:
        return self.page_urls.get(rel) or directory_url(rel)

    # -- text --------------------------------------------------------------------------

    def text(self, rel: str) -> str:
        """The note's fresh text without its front matter."""
        if rel not in self._texts:
            end = self.vault.notes[rel].front.end_line
            # split at \n only: str.splitlines also breaks at U+2028, \x0c, ... and would
            # leave front matter lines (and their secrets) in the page
            self._texts[rel] = "\n".join(self.source_lines(rel)[end:])
        return self._texts[rel]

    def source_lines(self, rel: str) -> list[str]:
        if rel in self.generated:
            return self.generated[rel].split("\n")
        return self.state.fresh_text(rel).split("\n")

    def tokens(self, rel: str) -> tuple[list, int]:
        """Tokens of the note's fresh text (the ones `check` read when `fix` changes nothing),
        and where the body begins in them."""
        if rel in self.generated:
            return parse(self.generated[rel]), 0
        if rel not in self._tokens:
            note = self.vault.notes[rel]
            text = self.state.fresh_text(rel)
            self._tokens[rel] = note.tokens if text == note.text else self.state.fresh_tokens(rel)
        return self._tokens[rel], self.vault.notes[rel].front.end_line

    def release(self, rel: str) -> None:
        """Free what was parsed of a note once its page is made (a build keeps memory bounded)."""
        self._tokens.pop(rel, None)
        self._texts.pop(rel, None)
        if rel in self.vault.notes:
            self.vault.notes[rel].release_tokens()

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
            return Target(rel) if rel in self.published or rel in self.generated else Target(None, "unpublished")
        return Target(rel) if rel in self.attachments else Target(None, "missing")

    def backlinks(self, rel: str) -> list[str]:
        """Published notes that link to `rel`."""
        return sorted({src for src in self.index.backlinks(rel) if src in self.published and src != rel})

    # -- tags --------------------------------------------------------------------------

    def tag_anchor(self, tag: str) -> str:
        """The id of the tag's heading on the tags page (one for all its spellings: `#Tag` is `#tag`)."""
        shown = self._tag_index[1].get(tag.casefold(), tag)
        return self._tag_anchors.get(shown) or self.slugify("#" + tag, "-")

    @cached_property
    def _tag_anchors(self) -> dict[str, str]:
        tags = list(self.tags)
        anchors = unique_anchors(["#" + tag for tag in tags], lambda text: self.slugify(text, "-"))
        return dict(zip(tags, anchors))

    @cached_property
    def tags(self) -> dict[str, list[str]]:
        """Tag -> published notes carrying it (front matter and inline tags), sorted. As in
        Obsidian, case does not matter: a tag is listed as first written (in note order)."""
        return self._tag_index[0]

    @cached_property
    def _tag_index(self) -> tuple[dict[str, list[str]], dict[str, str]]:
        """`tags`, and each tag in lower case -> the tag as first written."""
        by_tag: dict[str, set[str]] = defaultdict(set)
        spellings: dict[str, str] = {}
        for rel, note in self.published.items():
            inline = self.state.note(rel).tags  # the inline tags of its fresh text
            for tag in (*note.tags, *(inline_tags(self.tokens(rel)[0]) if inline is None else inline)):
                by_tag[spellings.setdefault(tag.casefold(), tag)].add(rel)
        return {tag: sorted(by_tag[tag]) for tag in sorted(by_tag)}, spellings

    def outline(self, rel: str) -> list[Section]:
        """A note's headings; those of a published note as the check read them from its fresh text."""
        outline = self.state.note(rel).outline if rel in self.published and rel not in self.generated else None
        return super().outline(rel) if outline is None else list(outline)

    def heading_ids(self, rel: str) -> list[str]:
        if rel == self.tags_page:  # the tags index: a heading per tag, with the tag's anchor
            return [self.tag_anchor(tag) for tag in self.tags]
        return super().heading_ids(rel)


def is_excluded_path(rel: str) -> bool:
    return is_excluded(PurePosixPath(rel))
