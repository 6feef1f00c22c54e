"""Links between notes: extraction, resolution like Obsidian, checking and fixing.

Resolution order for a link path written in a note (`.md` optional; attachments too):
exact path relative to the note, then from the vault root, then a vault path ending with the
written path, then the file name, each first as written and then case-insensitively.
A bare name (`[[N]]`) or a partial path that matches is fine; a path whose directories are
wrong (e.g. one `../` too many) but whose file name is unique is `moved` (VK502, fixable);
a name several files share is `ambiguous` (VK503) and resolves to the nearest file.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from dataclasses import dataclass
from urllib.parse import unquote

from .diagnostics import Diagnostic

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
            Link(note.rel, m["line"], m["col"], m["end_col"], m["raw"], m["path"],
                 m["heading"], m["block"], m["alias"], m["embed"])
            for m in (t.meta for t in _walk(note.tokens) if t.type in ("wikilink", "wikiembed"))
        )
    return note.derived["links"]


def markdown_links(note) -> list[tuple[int, str]]:
    """(line, target path) of standard markdown links to local `.md` files."""
    out = []
    for block in note.tokens:
        for token in block.children or ():
            if token.type == "link_open":
                href = unquote(token.attrGet("href") or "").partition("#")[0]
                if href.lower().endswith(".md") and not _URL_SCHEME.match(href):
                    out.append((block.map[0] + 1 if block.map else 1, href))
    return out


def note_headings(note) -> list[tuple[int, str]]:
    """(level, text as written) of every heading of a note."""
    return [
        (int(t.tag[1]), t.meta.get("text", "")) for t in note.tokens if t.type == "heading_open"
    ]


def note_block_ids(note) -> set[str]:
    return {t.meta["block_id"] for t in note.tokens if t.meta and "block_id" in t.meta}


def _loose(text: str) -> str:
    """Heading text for lenient comparison: case, spaces and punctuation ignored."""
    return re.sub(r"[\W_]+", "", text).casefold()


@dataclass(frozen=True)
class Resolution:
    status: str  # "ok" | "moved" (wrong path, unique name) | "ambiguous" | "missing" | "outside"
    target: str | None  # rel path of the resolved note/attachment
    candidates: tuple[str, ...] = ()


def _key(path: str) -> str:
    """A lookup key: notes are found without their `.md`."""
    return path[:-3] if path.lower().endswith(".md") else path


class LinkIndex:
    """Every note (published or not) and attachment of a vault, by path and by name."""

    def __init__(self, vault):
        self.vault = vault
        self.unpublished = {rel for rel, note in vault.notes.items() if not note.published}
        self.by_path: dict[str, str] = {}
        self.by_lower_path: dict[str, list[str]] = defaultdict(list)
        self.by_name: dict[str, list[str]] = defaultdict(list)
        self.by_lower_name: dict[str, list[str]] = defaultdict(list)
        for rel in [*vault.notes, *vault.attachments]:
            key = _key(rel)
            name = posixpath.basename(key)
            self.by_path[key] = rel
            self.by_lower_path[key.casefold()].append(rel)
            self.by_name[name].append(rel)
            self.by_lower_name[name.casefold()].append(rel)
        self._backlinks: dict[str, list[str]] | None = None
        self._cycles: set[tuple[str, int, int]] | None = None

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
                suffix = [rel for key, rel in self.by_path.items() if key.endswith("/" + written)]
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
            if names:  # a wrong path to a name several files share: no safe guess
                return Resolution("missing", None, tuple(sorted(names)))
        return Resolution("outside" if escapes else "missing", None)

    def embed_cycles(self) -> set[tuple[str, int, int]]:
        """(note, line, col) of every note embed that is part of a cycle of note embeds."""
        if self._cycles is None:
            edges = []  # (source, target, line, col)
            for note in self.vault.readable_notes:
                if "![[" not in note.text:
                    continue  # no embed here: spare the markdown parse
                for link in extract_links(note):
                    target = self.resolve(link.path, note.rel).target if link.embed else None
                    if target in self.vault.notes:
                        edges.append((note.rel, target, link.line, link.col))
            component = _components({(a, b) for a, b, _, _ in edges})
            self._cycles = {(a, line, col) for a, b, line, col in edges
                            if a == b or component.get(a, a) == component.get(b, b)}
        return self._cycles

    def _pick(self, candidates: list[str], source: str, status: str) -> Resolution:
        if len(candidates) == 1:
            return Resolution(status, candidates[0])
        here = posixpath.dirname(source) or "."
        ranked = sorted(candidates, key=lambda rel: (posixpath.relpath(rel, here).count("/"), rel))
        return Resolution("ambiguous", ranked[0], tuple(ranked))

    def backlinks(self, rel: str) -> list[str]:
        """Notes (sorted) with a link or embed that resolves to `rel`."""
        if self._backlinks is None:
            found: dict[str, set[str]] = defaultdict(set)
            for note in self.vault.readable_notes:
                for link in extract_links(note):
                    target = self.resolve(link.path, note.rel).target
                    if target and target != note.rel:
                        found[target].add(note.rel)
            self._backlinks = {target: sorted(notes) for target, notes in found.items()}
        return self._backlinks.get(rel, [])


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


def _describe(link: Link) -> str:
    return link.raw if len(link.raw) <= 80 else link.raw[:77] + "..."


def check_links(note, index: LinkIndex) -> tuple[list[Diagnostic], int]:
    """Diagnostics (VK501-VK508) for a note's links and embeds, and how many were verified
    (wikilinks, embeds and markdown links to local `.md` files)."""
    diags: list[Diagnostic] = []

    def report(link_line: int, col: int, code: str, message: str) -> None:
        diags.append(Diagnostic(note.rel, link_line, col, code, message))

    links = extract_links(note)
    for link in links:
        res = index.resolve(link.path, note.rel)
        what = _describe(link)
        if res.status == "outside":
            report(link.line, link.col, "VK507", f"{what} leaves the vault; not followed")
            continue
        if res.status == "missing":
            kind = "embedded file" if link.embed else "link target"
            code = "VK506" if link.embed else "VK501"
            report(link.line, link.col, code, f"{kind} of {what} does not exist in the vault")
            continue
        if res.status == "moved":
            right = relative_link_path(link.path, res.target, note.rel)
            report(link.line, link.col, "VK502", f"{what}: no file at this path; the only `{posixpath.basename(res.target)}` is {res.target} (`vaultkit fix` writes `{right}`)")
        elif res.status == "ambiguous":
            others = ", ".join(res.candidates[1:4])
            report(link.line, link.col, "VK503", f"{what} matches {len(res.candidates)} files; using the nearest, {res.target} (also {others})")
        if link.embed and (note.rel, link.line, link.col) in index.embed_cycles():
            report(link.line, link.col, "VK509", f"{what} embeds a note that embeds this one; the cycle is cut")
        if res.target in index.unpublished and res.target != note.rel:
            report(link.line, link.col, "VK508", f"{what} points to {res.target}, which is not published")
        target = index.vault.notes.get(res.target)
        if target is None or not target.readable:
            continue
        if link.heading and not _has_heading(target, link.heading):
            report(link.line, link.col, "VK504", f"{what}: no heading '{link.heading}' in {res.target}")
        if link.block and link.block not in note_block_ids(target):
            report(link.line, link.col, "VK505", f"{what}: no block ^{link.block} in {res.target}")
    md_links = markdown_links(note)
    for line, href in md_links:
        res = index.resolve(href, note.rel)
        if res.status in ("missing", "outside"):
            code = "VK507" if res.status == "outside" else "VK501"
            report(line, 1, code, f"markdown link target {href} does not exist in the vault")
    return diags, len(links) + len(md_links)


def _has_heading(note, heading: str) -> bool:
    """Obsidian's `#A#B` names a heading under a heading: the last one must exist."""
    wanted = _loose(heading.split("#")[-1])
    return any(_loose(text) == wanted for _, text in note_headings(note))


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


def fix_links(note_text: str, note, index: LinkIndex) -> str:
    """`note_text` with each `moved` link's path rewritten (alias, heading, block unchanged).
    A link whose text is not where the note's tokens put it is left alone."""
    lines = note_text.split("\n")
    edits = []
    for link in extract_links(note):
        res = index.resolve(link.path, note.rel)
        if res.status != "moved":
            continue
        line = lines[link.line - 1] if link.line <= len(lines) else ""
        start = link.col - 1
        if line[start : link.end_col - 1] != link.raw:
            continue
        opener = "![[" if link.embed else "[["
        at = link.raw.find(link.path, len(opener))
        if at < 0:
            continue
        new = relative_link_path(link.path, res.target, note.rel)
        edits.append((link.line - 1, start + at, start + at + len(link.path), new))
    for index_line, begin, end, new in sorted(edits, reverse=True):
        text = lines[index_line]
        lines[index_line] = text[:begin] + new + text[end:]
    return "\n".join(lines)
