"""The state of a vault, built once and kept up to date file by file.

`VaultState.load(root)` reads the vault, runs its examples and indexes its links: what `check`
computes once. `watch`, `serve` and an editor keep one and `apply` each change to it: the
changed files are read again and only what they can affect is checked again, so that its
`report()` stays the report a fresh `check` of the same files gives.

What a change affects: the changed notes; the notes whose links resolved to a removed note or
to one whose headings, block ids or publishing changed (by the link graph as it was before the
change); the notes with a link written with the name of a file that appeared or went away, or
of an alias that came or went (resolved or not: a dangling link may now resolve, a resolved one
may now be ambiguous); the notes whose embeds enter or leave a cycle; the notes that hold or
name an example whose outcome changed; the figures of those examples, the figures and drawings
of the notes checked again, and the changed SVGs.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from vaultkit.checks.examples.runner import code_lines
from vaultkit.checks.examples.values import PathError, find_bindings, split_path
from vaultkit.model.links import LinkIndex, file_name, link_face
from vaultkit.model.vault import Note, Vault, settled_stat
from vaultkit.pipeline import Pipeline
from vaultkit.workers import collector


@dataclass
class Affected:
    """What one `apply` changed and checked again."""

    changed: list[str] = field(default_factory=list)  # notes and attachments whose bytes changed
    added: set[str] = field(default_factory=set)  # of `changed`, the files that are new
    removed: list[str] = field(default_factory=list)  # notes and attachments that are gone
    notes: set[str] = field(default_factory=set)  # notes checked again
    figures: set[str] = field(default_factory=set)  # figures (vault-relative SVG paths) checked again

    def __bool__(self) -> bool:
        return bool(self.changed or self.removed)

    @property
    def rels(self) -> set[str]:
        """What a report of the change covers: the files changed or removed, and what was checked again."""
        return {*self.changed, *self.removed, *self.notes, *self.figures}


class VaultState(Pipeline):
    """A vault's files, link index, examples and per-note and per-SVG results, kept up to date.

    `buffers` holds unsaved editor texts that stand for the disk text of their notes."""

    def __init__(self, vault: Vault, runner=None, fresh_outlines: bool = False):
        super().__init__(vault, runner, fresh_outlines)
        self.buffers: dict[str, str] = {}
        self._digests: dict[str, str] = {}  # attachment -> digest of the bytes last read
        self._named_ids: dict[str, frozenset[str]] = {}  # note -> ids its inline values name
        self._faces: dict[str, tuple] = {}  # note -> its `link_face`, as last checked
        self._generated = frozenset(self.runner.figure_paths())  # figures the index knows, drawn or not

    @classmethod
    def load(cls, root: Path, fresh_outlines: bool = False) -> VaultState:
        """The vault at `root`; `fresh_outlines` as `Pipeline`'s (a served site needs them)."""
        return cls(Vault.load(root), fresh_outlines=fresh_outlines)

    # -- kept between runs (`vaultkit build`'s cache) -------------------------------------

    def save(self, path: Path, header: object) -> None:
        """Write this state, with the digest of every file it read, to `path` (atomically: a
        crash leaves the file that was there). `header` says what it was made with."""
        import pickle

        with collector(enabled=False):  # it would scan every kept object, for no cycle
            for note in self.vault.notes.values():
                note.release_tokens()
            digests = {rel: (note.source.stat, note.source.digest) for rel, note in self.vault.notes.items()}
            for rel in self.vault.attachments:
                digest = self._digests.get(rel)
                digests[rel] = (None, digest) if digest else _file_record(self.vault.root / rel)
            temporary = path.with_name(path.name + ".partial")
            with open(temporary, "wb") as out:
                pickle.dump((header, digests, self), out, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, path)

    @classmethod
    def restore(cls, path: Path, header: object) -> tuple[VaultState, Affected] | None:
        """The state `save` wrote to `path`, brought up to date with the vault's files as they
        are now (`apply` of every file that came, went or has other bytes); None when there is
        none, or it was saved with another `header`."""
        import pickle

        try:
            with collector(enabled=False), open(path, "rb") as kept:
                saved, digests, state = pickle.load(kept)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError):
            return None
        if saved != header:
            return None
        for note in state.vault.notes.values():
            note.derived.pop("date", None)  # a date from git or the file's time is read again
        return state, state.apply(state._differing(digests))

    def _differing(self, digests: dict[str, tuple[tuple[int, int] | None, str | None]]) -> list[str]:
        """The vault-relative paths of the files now in the vault whose bytes are not those of
        `digests` (rel -> the size and time the file had when its bytes were read, and their
        digest), and of the files of `digests` that are gone. A file with that size and time
        is not read; one with another is read and its digest decides (a note whose bytes are the
        same keeps its size and time now)."""
        root, excluded = self.vault.root, self.vault.excluded
        found = set()
        for folder, names, files in os.walk(root):
            base = PurePosixPath(Path(folder).relative_to(root).as_posix())
            names[:] = [name for name in names if not excluded(base / name / "_")]
            found.update(str(base / name) if str(base) != "." else name for name in files)
        found = {rel for rel in found if not excluded(PurePosixPath(rel))}
        changed = set()
        for rel in found:
            stat, digest = digests.get(rel, (None, None))
            try:
                now = os.stat(root / rel)
            except OSError:
                changed.add(rel)
                continue
            if stat is not None and (now.st_size, now.st_mtime_ns) == stat:
                continue
            if digest is None or _file_digest(root / rel) != digest:
                changed.add(rel)
            elif rel in self.vault.notes:
                self.vault.notes[rel].source.stat = settled_stat(now)
        return sorted(changed | (digests.keys() - found))

    def apply(
        self,
        changed: Iterable[str],
        buffers: Mapping[str, str | None] | None = None,
        written: Mapping[str, bytes] | None = None,
    ) -> Affected:
        """Read the vault-relative paths `changed` again (files created, modified or deleted,
        folders) and check again what they can affect. `buffers`: note -> unsaved text that
        replaces its disk text, or None to go back to the disk text. `written`: file -> the
        bytes vaultkit just wrote to it, taken as they are and not read back, so a save that
        came after the write is still a change when its event comes."""
        written = written or {}
        rels = set(changed) | written.keys()
        for rel, text in (buffers or {}).items():
            if text is None:
                self.buffers.pop(rel, None)
            else:
                self.buffers[rel] = text
            rels.add(rel)
        graph = self.index.links()  # the links as they were: who linked to what changes now
        cycles = self.index.embed_cycles()
        examples = self._examples()
        affected = Affected()
        names: set[str] = set()  # names of files that came or went, and of aliases that changed
        before = {rel: self.vault.notes.get(rel) for rel in self._files(rels)}
        faces = {rel: self._face(rel) for rel, note in before.items() if note is not None}
        for rel in sorted(before):
            self._read(rel, affected, names, written.get(rel))
        if not affected:
            return affected
        affected.changed.sort()
        files = {*affected.changed, *affected.removed}
        for rel in files & faces.keys():
            self._faces.pop(rel, None)
        targets = {rel for rel in faces.keys() & files if rel not in self.vault.notes or self._face(rel) != faces[rel]}
        texts = [note.text for rel, note in before.items() if note is not None and rel in files]
        texts += [self.vault.notes[rel].text for rel in affected.changed if rel in self.vault.notes]
        if any("vaultkit" in text for text in texts):  # else no example came, went or changed
            self.example_diagnostics = self.runner.collect(self.vault.readable_notes)
        changed_ids = _changed(examples, self._examples())
        generated = frozenset(self.runner.figure_paths())
        names |= {file_name(rel) for rel in generated ^ self._generated}
        if names:
            self.index = LinkIndex(self.vault, generated=generated, graph=graph)
            self._generated = generated
        elif any("![[" in text for text in texts) or graph.embedding(files):  # else no embed moved
            self.index.forget_cycles()
        notes = {rel for rel in files if rel.lower().endswith(".md")}
        notes |= graph.linking_to(targets) | graph.naming(names)
        for rel in files:  # their links now, for the embed cycles
            self._record(rel)
        notes |= {c[0] for c in cycles ^ self.index.embed_cycles()}
        for example_id in changed_ids:
            notes |= {e.rel for e in (examples.get(example_id, (None,))[0], self.runner.examples.get(example_id)) if e}
        if changed_ids:
            notes |= {note.rel for note in self.vault.readable_notes if self._ids_named(note) & changed_ids}
        self._forget(notes, files, changed_ids)
        for rel in sorted(notes):
            if self._record(rel):
                self.note(rel)
                affected.notes.add(rel)
        affected.figures = self._recheck_figures()
        return affected

    def _record(self, rel: str) -> bool:
        """Put the links of note `rel` as it is now into the link graph; whether it is checked."""
        note = self.vault.notes.get(rel)
        if note is None or not note.checked:
            self.index.graph.drop(rel)
            return False
        self.index.record(note)
        return True

    def _files(self, rels: set[str]) -> set[str]:
        """Folders (created, moved, deleted) become the files known under them or found in them;
        a file known as one is itself (the vault is not searched for what is under it)."""
        out = set()
        for rel in rels:
            path = self.vault.root / rel
            if path.is_dir():
                for folder, _, names in os.walk(path):
                    out.update(Path(folder, name).relative_to(self.vault.root).as_posix() for name in names)
                out.update(self._known_under(rel))
            elif rel in self.vault.notes or rel in self.vault.attachments:
                out.add(rel)
            else:  # a new file, or a folder that is gone
                out.update(self._known_under(rel) or [rel])
        return out

    def _known_under(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return [rel for rel in (*self.vault.notes, *self.vault.attachments) if rel.startswith(prefix)]

    def _read(self, rel: str, affected: Affected, names: set[str], written: bytes | None) -> None:
        """Read one file again into the vault (`written`: the bytes vaultkit just wrote to it);
        note in `affected` whether it changed, came or went."""
        old = self.vault.notes.get(rel)
        known = old is not None or rel in self.vault.attachments
        raw = self._bytes(rel) if written is None else written
        if raw is None:
            if known:
                self.vault.remove(rel)
                self._digests.pop(rel, None)
                affected.removed.append(rel)
                names.update(_names(rel, old))
            return
        if old is not None and old.source.raw == raw:
            return  # vaultkit's own write, or a save that changed nothing
        import hashlib  # imported here: only a change after the first pass needs it

        digest = hashlib.sha256(raw).hexdigest()
        if rel in self.vault.attachments and self._digests.get(rel) == digest:
            return
        note = self.vault.reload(rel, raw=raw if rel in self.buffers or written is not None else None)
        if rel in self.vault.attachments:
            self._digests[rel] = digest
        elif note is None:  # too large, a symlink out of the vault, excluded, or gone meanwhile
            if known:
                affected.removed.append(rel)
                names.update(_names(rel, old))
            return
        if not known:
            affected.added.add(rel)
            names.update(_names(rel, note))
        elif old is not None and (old.aliases != note.aliases or old.published != note.published):
            names.update(_names(rel, old) | _names(rel, note))
        affected.changed.append(rel)

    def _bytes(self, rel: str) -> bytes | None:
        """The bytes of a file as an editor or the disk has them (None: no such file)."""
        if rel in self.buffers:
            return self.buffers[rel].encode("utf-8")
        path = self.vault.root / rel
        try:
            return path.read_bytes() if path.is_file() else None
        except OSError:
            return None

    def _examples(self) -> dict[str, tuple]:
        """Example id -> (example, outcome, whether a block with the id could not be read)."""
        runner = self.runner
        ids = {*runner.examples, *runner.unreadable}
        return {i: (runner.examples.get(i), runner.outcomes.get(i), i in runner.unreadable) for i in ids}

    def _face(self, rel: str) -> tuple:
        """The link face of a note (kept until the note changes)."""
        if rel not in self._faces:
            self._faces[rel] = link_face(self.vault.notes[rel])
        return self._faces[rel]

    def _ids_named(self, note: Note) -> frozenset[str]:
        """Ids of the examples the inline values of a note name (kept until the note changes)."""
        if note.rel not in self._named_ids:
            ids = set()
            if "%%=" in note.text:
                for binding in find_bindings(note.text.split("\n"), code_lines(note.tokens)):
                    try:
                        ids.add(split_path(binding.path)[0])
                    except PathError:
                        continue
            self._named_ids[note.rel] = frozenset(ids)
        return self._named_ids[note.rel]

    def _forget(self, notes: set[str], files: set[str], changed_ids: set[str]) -> None:
        """Drop the results the change makes stale."""
        for rel in notes | files:
            self._notes.pop(rel, None)
            self._texts.pop(rel, None)
            self._named_ids.pop(rel, None)
        embedded = {rel for rel in self.index.links().targets(notes) if rel.lower().endswith(".svg")}
        for rel in files | embedded:
            self._svgs.pop(rel, None)
            self._svg_claims.pop(rel, None)
            self._figures.pop(("drawing", rel), None)
        for key, figure in list(self._figures.items()):
            if key[0] != "example":
                continue
            example = self.runner.examples.get(key[1])
            if key[1] in changed_ids or example is None or example.rel in notes or figure.rel in files:
                del self._figures[key]

    def _recheck_figures(self) -> set[str]:
        """Check the figures whose results were dropped; their paths."""
        kept = set(self._figures)
        figures = self.figures()
        fresh = [key for key in self._figures if key not in kept]
        return {self._figures[key].rel for key in fresh if self._figures[key] is not None} & {f.rel for f in figures}


def _digest(raw: bytes) -> str:
    import hashlib  # imported here: only a kept state needs it

    return hashlib.sha256(raw).hexdigest()


def _file_digest(path: Path) -> str | None:
    try:
        return _digest(path.read_bytes())
    except OSError:
        return None


def _file_record(path: Path) -> tuple[tuple[int, int] | None, str | None]:
    """A file's size and time (`settled_stat`) and the digest of its bytes, read right after."""
    try:
        stat = os.stat(path)
    except OSError:
        return None, None
    return settled_stat(stat), _file_digest(path)


def _names(rel: str, note: Note | None) -> set[str]:
    """The names links find a file by: its own, and a note's aliases."""
    return {file_name(rel), *(alias.casefold() for alias in (note.aliases if note is not None else ()))}


def _changed(before: dict[str, tuple], after: dict[str, tuple]) -> set[str]:
    """Ids of the examples that came, went, were edited or whose outcome is another."""
    changed = set()
    for example_id in before.keys() | after.keys():
        (old, old_outcome, old_unread), (new, new_outcome, new_unread) = (
            before.get(example_id, (None, None, False)),
            after.get(example_id, (None, None, False)),
        )
        if old_outcome is not new_outcome or old_unread != new_unread or _spec(old) != _spec(new):
            changed.add(example_id)
    return changed


def _spec(example) -> tuple | None:
    """What of an example its notes and figure show: where it is and what it says."""
    if example is None:
        return None
    return example.rel, example.line, example.end_line, example.key_lines, example.spec
