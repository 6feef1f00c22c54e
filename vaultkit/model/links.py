"""Links between notes: extraction, and resolution as Obsidian resolves them (checked and
fixed in `checks/links.py`).

Resolution order for a link path written in a note (`.md` optional; attachments too):
exact path relative to the note, then from the vault root, then a vault path ending with the
written path, then the file name, each first as written and then case-insensitively.
A bare name (`[[N]]`) or a partial path that matches is fine; a path whose directories are
wrong (e.g. one `../` too many) but whose file name is unique is `moved` (VK502, fixable),
and so is one whose name several files share when exactly one of them is in the vault's
attachment folder (`.obsidian/app.json`).

A name several files share is `ambiguous` (VK503) and resolves to the file Obsidian opens:
the one in the linking note's own folder, else the one with the shortest path (fewest
folders, then fewest characters, then by name) — as observed in recent Obsidian versions.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import unquote

from vaultkit.readers.syntax.blockids import block_spans, misplaced_block_ids
from vaultkit.readers.syntax.headings import find_section, sections

_OS_ABSOLUTE = re.compile(r"^(?:[A-Za-z]:[\\/]|[\\/]|~)")
_URL_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


@dataclass(frozen=True)
class Link:
    source: str  # rel path of the note that contains it
    line: int  # 1-based position of the `[[` (or `![[`)
    col: int
    end_col: int
    raw: str  # the whole `[[...]]` text as written
    path: str  # target path part as written ('' for same-note links like [[#Heading]])
    heading: str | None
    block: str | None
    alias: str | None  # display text, or for image embeds the size ("1000", "300x200")
    embed: bool


def _walk(tokens):
    """Block tokens and the inline tokens inside them (plugins nest no deeper)."""
    for token in tokens:
        yield token
        if token.children:
            yield from token.children


def extract_links(note) -> tuple[Link, ...]:
    """Wikilinks and embeds of a note, in order, from its tokens (so never from code).

    Kept in `note.derived`, where a worker process may also have put them."""
    if "links" not in note.derived:
        note.derived["links"] = tuple(
            Link(
                note.rel,
                m["line"],
                m["col"],
                m["end_col"],
                m["raw"],
                m["path"],
                m["heading"],
                m["block"],
                m["alias"],
                m["embed"],
            )
            for m in (t.meta for t in _walk(note.tokens) if t.type in ("wikilink", "wikiembed"))
        )
    return note.derived["links"]


def markdown_links(note) -> tuple[tuple[int, str], ...]:
    """(line, target path) of standard markdown links to local `.md` files.

    Kept in `note.derived`, where a worker process may also have put them."""
    if "markdown_links" not in note.derived:
        out = []
        for block in note.tokens:
            for token in block.children or ():
                if token.type == "link_open":
                    href = unquote(token.attrGet("href") or "").partition("#")[0]
                    if href.lower().endswith(".md") and not _URL_SCHEME.match(href):
                        out.append((block.map[0] + 1 if block.map else 1, href))
        note.derived["markdown_links"] = tuple(out)
    return note.derived["markdown_links"]


def note_block_ids(note) -> set[str]:
    return set(block_spans(note.tokens))


def target_lines(note, heading: str | None, block: str | None) -> tuple[int, int] | None:
    """0-based lines [start, end) of what `[[N#heading]]` / `[[N#^block]]` names in `note`
    (the whole note when neither is given), or None when it has no such heading or block.
    Kept in `note.derived`."""
    key = ("lines", heading, block)
    if key not in note.derived:
        note.derived[key] = _target_lines(note, heading, block)
    return note.derived[key]


def _target_lines(note, heading: str | None, block: str | None) -> tuple[int, int] | None:
    if block:
        span = block_spans(note.tokens).get(block)
        return (span.start, span.end) if span else None
    if heading:
        section = find_section(note.tokens, heading)
        return (section.start, section.end) if section else None
    return (0, note.text.count("\n") + 1)


@dataclass(frozen=True)
class Resolution:
    status: str  # "ok" | "moved" (wrong path, unique name) | "ambiguous" | "missing" | "outside"
    target: str | None  # rel path of the resolved note/attachment
    candidates: tuple[str, ...] = ()
    why: str = ""  # for "ambiguous": why Obsidian opens `target`


def _key(path: str) -> str:
    """A lookup key: notes are found without their `.md`."""
    return path[:-3] if path.lower().endswith(".md") else path


class LinkIndex:
    """Every note (published or not) and attachment of a vault, by path and by name.

    `generated` are files vaultkit draws (example figures): a link to one that is not drawn yet
    is not broken, since the example already reports the missing figure. `graph` holds which
    note links to what, for backlinks and for the notes a change of files can affect."""

    def __init__(self, vault, generated=(), graph: LinkGraph | None = None):
        """`graph`: the links of the notes, kept from an earlier index of the same vault (an
        empty one is filled with every note's links when first asked)."""
        self.vault = vault
        self.unpublished = {rel for rel, note in vault.notes.items() if not note.published}
        self.by_path: dict[str, str] = {}
        self.by_lower_path: dict[str, list[str]] = defaultdict(list)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_lower_name: dict[str, list[str]] = defaultdict(list)
        self.attachments = {*vault.attachments, *generated}
        for rel in dict.fromkeys([*vault.notes, *vault.attachments, *generated]):
            key = _key(rel)
            name = posixpath.basename(key)
            self.by_path[key] = rel
            self.by_lower_path[key.casefold()].append(rel)
            self.by_name[name].append(rel)
            self.by_lower_name[name.casefold()].append(rel)
        # every path by each of its endings after a `/` (`a/b/c` by `b/c` and `c`): a partial
        # path is found without scanning every file, so resolving stays linear in the vault
        self.by_suffix: dict[str, list[str]] = defaultdict(list)
        for key, rel in self.by_path.items():
            for i, char in enumerate(key):
                if char == "/":
                    self.by_suffix[key[i + 1 :]].append(rel)
        self.by_alias: dict[str, list[str]] = defaultdict(list)
        for rel, note in vault.notes.items():
            for alias in note.aliases:
                self.by_alias[alias.casefold()].append(rel)
        self.graph = graph if graph is not None else LinkGraph()
        self._cycles: set[tuple[str, int, int]] | None = None
        # note -> (the note as it was read, where each of its embeds leads): resolved once per
        # note text, so finding the cycles again after a save resolves only the saved note's
        self._embeds: dict[str, tuple[object, list[tuple[int, int, str | None, str | None, str | None]]]] = {}

    def resolve(self, path: str, source: str) -> Resolution:
        """Where a link path written in note `source` leads (see the module docstring)."""
        if not path:
            return Resolution("ok", source)
        path = path.replace("\\", "/")
        if _OS_ABSOLUTE.match(path):
            found = self.by_path.get(_key(path.lstrip("/")))
            return Resolution("ok", found) if found else Resolution("outside", None)
        key = _key(path)
        relative = posixpath.normpath(posixpath.join(posixpath.dirname(source), key))
        escapes = relative == ".." or relative.startswith("../")
        if not escapes and relative in self.by_path:
            return Resolution("ok", self.by_path[relative])
        written = posixpath.normpath(key)
        if not written.startswith(".."):
            if written in self.by_path:
                return Resolution("ok", self.by_path[written])
            if "/" in written:
                suffix = self.by_suffix.get(written, [])
                if suffix:
                    return self._pick(suffix, source, "ok")
        for lower in (relative, written):
            if not lower.startswith("..") and lower.casefold() in self.by_lower_path:
                return self._pick(self.by_lower_path[lower.casefold()], source, "ok")
        name = posixpath.basename(written)
        bare = "/" not in key
        for names in (self.by_name.get(name), self.by_lower_name.get(name.casefold())):
            if names and (bare or len(names) == 1):
                return self._pick(names, source, "ok" if bare else "moved")
            if names:  # a wrong path to a name several files share: the attachment folder's, or no guess
                folder = self.vault.settings.attachment_dir(source)
                there = [rel for rel in names if posixpath.dirname(rel) == folder and rel in self.attachments]
                if folder is not None and len(there) == 1:
                    return Resolution("moved", there[0])
                return Resolution("missing", None, tuple(sorted(names)))
        return Resolution("outside" if escapes else "missing", None)

    def embed_cycles(self) -> set[tuple[str, int, int]]:
        """(note, line, col) of every note embed that is part of a cycle: expanding it leads
        back to it, because the note, heading section or block it embeds contains it (directly
        or through other embeds). `![[This note#Other section]]` is no cycle."""
        if self._cycles is None:
            embeds: dict[str, list[tuple[int, int]]] = defaultdict(list)  # note -> (line, col)
            targets = {}  # (note, line, col) -> (target note, its lines)
            for note in self._embedding_notes():
                for line, col, target, heading, block in self._embeds_of(note):
                    if target in self.vault.notes and self.vault.notes[target].readable:
                        embeds[note.rel].append((line, col))
                        lines = target_lines(self.vault.notes[target], heading, block)
                        if lines is not None:
                            targets[(note.rel, line, col)] = (target, lines)
            edges = {
                (embed, (target, line, col))
                for embed, (target, (start, end)) in targets.items()
                for line, col in embeds.get(target, ())
                if start <= line - 1 < end
            }
            component = _components(edges)
            self._cycles = {a for a, b in edges if a == b or component.get(a) == component.get(b)}
        return self._cycles

    def _embeds_of(self, note) -> list[tuple[int, int, str | None, str | None, str | None]]:
        """(line, col, target, heading, block) of each embed in `note`, resolved once per text."""
        kept = self._embeds.get(note.rel)
        if kept is None or kept[0] is not note:
            found = [
                (link.line, link.col, self.resolve(link.path, note.rel).target, link.heading, link.block)
                for link in extract_links(note)
                if link.embed
            ]
            kept = self._embeds[note.rel] = (note, found)
        return kept[1]

    def _embedding_notes(self) -> list:
        """The readable notes that may embed a note: those the link graph says embed something,
        else (no graph yet) those with a `![[` in their text."""
        if self.graph.filled:
            notes = self.vault.notes
            return [notes[rel] for rel in sorted(self.graph.embedders()) if rel in notes and notes[rel].checked]
        return [note for note in self.vault.readable_notes if "![[" in note.text]

    def _pick(self, candidates: list[str], source: str, status: str) -> Resolution:
        if len(candidates) == 1:
            return Resolution(status, candidates[0])
        here = posixpath.dirname(source)
        ranked = sorted(candidates, key=lambda rel: (posixpath.dirname(rel) != here, rel.count("/"), len(rel), rel))
        why = "it is in this note's folder" if posixpath.dirname(ranked[0]) == here else "it has the shortest path"
        return Resolution("ambiguous", ranked[0], tuple(ranked), why)

    def link_path(self, written: str, target: str, source: str) -> str:
        """The path `fix` writes for `target` in a link from `source`: in the vault's
        `newLinkFormat` (`shortest`: the bare name when no other file has it, else the path
        from the root; `relative`: from the note's folder; `absolute`: from the root), or,
        when `.obsidian/` does not set one, in the style of the written link."""
        style = self.vault.settings.link_format
        if style is None:
            return relative_link_path(written, target, source)
        path = _key(target) if target.lower().endswith(".md") else target
        if style == "relative":
            return posixpath.relpath(path, posixpath.dirname(source) or ".")
        if style == "shortest" and len(self.by_name[posixpath.basename(_key(target))]) == 1:
            return posixpath.basename(path)
        return path

    def ignored(self, rel: str) -> str | None:
        """Why `.obsidian/` settings keep the note or attachment `rel` off the site, or None."""
        note = self.vault.notes.get(rel)
        return note.ignored if note is not None else self.vault.settings.ignored(rel)

    def alias_of(self, path: str) -> str | None:
        """The one note whose `aliases` list the bare name `path`, or None (none or several)."""
        if "/" in path or not path:
            return None
        notes = self.by_alias.get(path.casefold(), [])
        return notes[0] if len(notes) == 1 else None

    def backlinks(self, rel: str) -> list[str]:
        """Notes (sorted) with a link or embed that resolves to `rel`."""
        return sorted(self.links().linking_to({rel}) - {rel})

    def links(self) -> LinkGraph:
        """The link graph of every readable note, filled on first use."""
        if not self.graph.filled:
            for note in self.vault.readable_notes:
                self.record(note)
            self.graph.filled = True
        return self.graph

    def record(self, note) -> None:
        """Put the links of `note` (as it is now) into the graph."""
        names, targets, embedded = set(), set(), set()
        for link in extract_links(note):  # a markdown link's check needs only that its target exists
            names |= link_names(link.path, note.rel)
            target = self.resolve(link.path, note.rel).target
            if target:
                (embedded if link.embed else targets).add(target)
        for _, href in markdown_links(note):
            names |= link_names(href, note.rel)
        self.graph.put(note.rel, frozenset(names), frozenset(targets | embedded), frozenset(embedded))

    def forget_cycles(self) -> None:
        """Drop the embed cycles found so far: a note changed, they are found again when asked."""
        self._cycles = None


def link_face(note) -> tuple:
    """What the links to a note are checked against: whether it is read, published or ignored,
    its headings and its block ids (a change elsewhere in it leaves them as they were)."""
    if not note.readable:
        return False, note.published, note.ignored
    tokens = note.tokens
    headings = tuple(section.text for section in sections(tokens))
    return True, note.published, note.ignored, headings, frozenset(block_spans(tokens)), misplaced_block_ids(tokens)


def file_name(rel: str) -> str:
    """The name links find a file by, case-folded (a note without its `.md`)."""
    return posixpath.basename(_key(rel)).casefold()


def link_names(path: str, source: str) -> set[str]:
    """The case-folded names a link path written in `source` resolves by: every file it can
    lead to (found, moved, ambiguous) has one of these names, and so has an alias it names."""
    path = path.replace("\\", "/")
    key = _key(path)
    names = {path.casefold(), posixpath.basename(posixpath.normpath(key or ".")).casefold()}
    names.add(posixpath.basename(posixpath.normpath(posixpath.join(posixpath.dirname(source), key))).casefold())
    return names


class LinkGraph:
    """Which note links to what: by the names its links are written with (resolved or not), so
    a file that appears or goes away finds the notes it concerns, and by the files they resolve to."""

    def __init__(self):
        self.filled = False  # every readable note's links are in it
        self._links: dict[str, tuple[frozenset[str], ...]] = {}  # note -> (names, targets, embedded)
        self._by_name: dict[str, set[str]] = defaultdict(set)
        self._by_target: dict[str, set[str]] = defaultdict(set)
        self._by_embedded: dict[str, set[str]] = defaultdict(set)
        self._embedders: set[str] = set()

    def put(self, rel: str, names: frozenset[str], targets: frozenset[str], embedded: frozenset[str]) -> None:
        """The links of note `rel`: the names written, the files they resolve to, those it embeds."""
        self.drop(rel)
        self._links[rel] = names, targets, embedded
        if embedded:
            self._embedders.add(rel)
        for index, keys in zip((self._by_name, self._by_target, self._by_embedded), self._links[rel]):
            for key in keys:
                index[key].add(rel)

    def drop(self, rel: str) -> None:
        self._embedders.discard(rel)
        for index, keys in zip((self._by_name, self._by_target, self._by_embedded), self._links.pop(rel, ())):
            for key in keys:
                index[key].discard(rel)

    def naming(self, names) -> set[str]:
        """Notes with a link written with one of the case-folded `names`."""
        return {rel for name in names for rel in self._by_name.get(name, ())}

    def targets(self, notes) -> set[str]:
        """The files the links of `notes` resolve to."""
        return {target for rel in notes if rel in self._links for target in self._links[rel][1]}

    def linking_to(self, targets) -> set[str]:
        """Notes with a link that resolves to one of `targets`."""
        return {rel for target in targets for rel in self._by_target.get(target, ())}

    def embedders(self) -> set[str]:
        """Notes that embed something."""
        return self._embedders

    def embedding(self, targets) -> set[str]:
        """Notes that embed one of `targets`."""
        return {rel for target in targets for rel in self._by_embedded.get(target, ())}


def _components(edges: set[tuple[str, str]]) -> dict[str, str]:
    """Strongly connected components (Tarjan's algorithm, iterative): node -> its component's root."""
    graph: dict[str, list[str]] = defaultdict(list)
    for a, b in sorted(edges):
        graph[a].append(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    component: dict[str, int] = {}
    stack: list[str] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    work.append((child, iter(graph[child])))
                elif child not in component:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                while True:
                    member = stack.pop()
                    component[member] = node
                    if member == node:
                        break
    return component


def relative_link_path(written: str, target: str, source: str) -> str:
    """The path to write for `target` in a link from `source`, in the written link's style:
    relative (`../x/N`) when it was written with `./` or `../`, else from the vault root;
    `.md` kept only when the written path had it."""
    if not target.lower().endswith(".md") or written.lower().endswith(".md"):
        path = target
    else:
        path = target[:-3]
    if written.startswith(("./", "../")):
        return posixpath.relpath(path, posixpath.dirname(source) or ".")
    return path
