"""`vaultkit watch`: keep generated regions, inline values and figures in sync while notes are edited.

One watchdog observer on the vault queues the paths that change; a worker thread waits for a
quiet moment (a burst such as a git checkout becomes one pass) and then runs `Syncer.sync`:
re-read only the changed files into the kept `Vault`, re-run only the examples whose inputs
changed (the kept `ExampleRunner` caches outcomes by input hash), and write what the notes
touched by the change and their figures should now be, as `vaultkit fix` would.

Loops and lost edits: a file whose bytes equal what vaultkit last read or wrote is not a change,
so vaultkit's own writes end there; every write is refused when the file changed since it was
read, and the newer save is handled by the next pass.
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer

from .check import apply_changes
from .diagnostics import Diagnostic, Report, format_text
from .examples import ExampleRunner
from .examples.figures import check_figure, figure_rel
from .pipeline import FileChange, Pipeline, count_note
from .vault import Vault, is_excluded

# Events that can change a file's bytes or existence (not opens, closes without write, attributes).
EVENTS = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]
# Editors' temp, swap and backup files (vim, emacs, JetBrains, Chrome's File System Access).
TEMP_SUFFIXES = (".swp", ".swo", ".swx", ".tmp", ".temp", ".crswap", ".part", ".bak", "~")
TEMP_NAMES = {"4913"}  # vim's "can I write here" probe
QUIET = 0.1  # seconds without events that end a burst
MAX_WAIT = 1.0  # a burst never delays a pass longer than this


def ignored(rel: PurePosixPath) -> bool:
    """Hidden and excluded paths (.obsidian, .trash, vaultkit's own temp files...) and editor temp files."""
    name = rel.name
    return is_excluded(rel) or name in TEMP_NAMES or name.startswith("#") or name.endswith(TEMP_SUFFIXES)


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class PassResult:
    """What one pass saw and did."""

    changed: list[str] = field(default_factory=list)  # notes and attachments whose bytes changed
    added: set[str] = field(default_factory=set)  # of `changed`, the files that are new
    removed: list[str] = field(default_factory=list)  # notes and attachments that are gone
    checked: list[str] = field(default_factory=list)  # notes whose diagnostics are reported
    written: list[str] = field(default_factory=list)
    report: Report = field(default_factory=Report)
    refused: list[Diagnostic] = field(default_factory=list)
    seconds: float = 0.0
    fixes: dict[str, list[str]] = field(default_factory=dict)  # figure -> what its rewrite fixes

    @property
    def structure_changed(self) -> bool:
        """Files appeared or disappeared (link targets, navigation and backlinks may change)."""
        return bool(self.removed or self.added)

    def status(self) -> str:
        """What the pass did: a line per number it fixed in a drawing, then what it wrote."""
        now = time.strftime("%H:%M:%S")
        fixed = [f"[{now}] fixed {rel} {what}\n" for rel in self.written for what in self.fixes.get(rel, ())]
        done = f"wrote {', '.join(self.written)}" if self.written else "nothing to write"
        refused = f"; {len(self.refused)} changed meanwhile, redone on the next save" if self.refused else ""
        return "".join(fixed) + f"[{now}] {done}{refused} ({self.seconds * 1000:.0f} ms)"


class Syncer:
    """The incremental pipeline: one kept Vault and ExampleRunner, and a pass per batch of paths."""

    def __init__(self, root: Path, pipeline: Pipeline | None = None):
        """`pipeline`: one already made for this vault (`vaultkit serve` shares its own)."""
        self.root = Path(root)
        self.pipeline = pipeline or Pipeline(Vault.load(self.root), ExampleRunner())
        self.vault = self.pipeline.vault
        self.runner = self.pipeline.runner
        self._digests: dict[str, str] = {}  # attachment rel -> digest of the bytes last seen or written

    def sync(self, rels: set[str]) -> PassResult | None:
        """Bring the vault in line with the files `rels` (vault-relative); None when nothing changed.

        The pass writes what the affected notes and figures should be, then reports what is
        left after its own writes, counted as `check` counts it."""
        started = time.perf_counter()
        result = PassResult()
        for rel in sorted(self._expand(rels)):
            self._reload(rel, result)
        if not result.changed and not result.removed:
            return None
        before = dict(self.runner.outcomes)
        self.pipeline = pipeline = Pipeline(self.vault, self.runner)
        after = self.runner.outcomes
        changed_ids = {i for i in before.keys() | after.keys() if before.get(i) is not after.get(i)}
        notes = self._affected_notes(result, changed_ids)
        examples = self._affected_examples(notes, changed_ids, result)
        changes = self._note_changes(pipeline, notes) + self._figure_changes(pipeline, examples, result)
        written, result.refused = apply_changes(changes)
        for change in changes:
            if change.rel in written:
                self._remember(change)
                if change.old is None:
                    result.added.add(change.rel)
        if written:  # report the state after the writes
            self.pipeline = Pipeline(self.vault, self.runner)
            if not result.added.intersection(written):  # no new file: notes not rewritten are as they were
                self.pipeline.keep(pipeline, notes.difference(written))
            pipeline = self.pipeline
        result.written = written
        result.checked = sorted(notes)
        self._report(pipeline, notes, examples, result)
        result.seconds = time.perf_counter() - started
        return result

    def _report(self, pipeline: Pipeline, notes: set[str], examples: list, result: PassResult) -> None:
        """Diagnostics and counts of what the pass checked, as the vault now is."""
        report = result.report
        summary = report.summary
        report.add(d for d in pipeline.example_diagnostics if d.path in notes)
        report.add(d for d in self.vault.diagnostics if d.path in result.changed)
        for rel in sorted(notes):
            try:
                fresh = pipeline.note(rel)
            except Exception:  # one bad note never stops the watcher
                print(f"vaultkit: internal error on {rel}:\n{traceback.format_exc()}", file=sys.stderr)
                continue
            count_note(summary, fresh)
            report.add(fresh.diagnostics)
        for fig in self._figures(pipeline, examples, result):
            summary.figures += 1
            report.add(fig.diagnostics)
        for rel in result.changed:
            if rel in self.vault.attachments:
                svg_claims = pipeline.attachment_claims(rel)
                report.add(svg_claims.diagnostics)
                summary.claims += svg_claims.verified
                summary.skipped_claims += svg_claims.skipped
        summary.examples = len(self.runner.outcomes)
        report.add(result.refused)
        report.finish()

    def _expand(self, rels: set[str]) -> set[str]:
        """Folders (created, moved, deleted) become the files known under them or found in them."""
        out = set()
        for rel in rels:
            path = self.root / rel
            if not path.is_dir():
                prefix = rel.rstrip("/") + "/"
                known = [r for r in [*self.vault.notes, *self.vault.attachments] if r.startswith(prefix)]
                out.update(known or [rel])
                continue
            for dirpath, dirnames, filenames in os.walk(path):
                for name in filenames:
                    out.add(Path(dirpath, name).relative_to(self.root).as_posix())
            prefix = rel.rstrip("/") + "/"
            out.update(r for r in [*self.vault.notes, *self.vault.attachments] if r.startswith(prefix))
        return {r for r in out if not ignored(PurePosixPath(r))}

    def _reload(self, rel: str, result: PassResult) -> None:
        path = self.root / rel
        known = rel in self.vault.notes or rel in self.vault.attachments
        try:
            raw = path.read_bytes() if path.is_file() else None
        except OSError:
            raw = None
        if raw is None:
            if known:
                self.vault.remove(rel)
                self._digests.pop(rel, None)
                result.removed.append(rel)
            return
        note = self.vault.notes.get(rel)
        if note is not None and note.source.raw == raw:
            return  # vaultkit's own write, or a save that changed nothing
        if rel in self.vault.attachments and self._digests.get(rel) == _digest(raw):
            return
        self.vault.reload(rel)
        if rel in self.vault.attachments:
            self._digests[rel] = _digest(raw)
        elif rel not in self.vault.notes:  # too large, a symlink out of the vault, or gone meanwhile
            if known:
                result.removed.append(rel)
            return
        if not known:
            result.added.add(rel)
        result.changed.append(rel)

    def _affected_notes(self, result: PassResult, changed_ids: set[str]) -> set[str]:
        """Changed notes, notes bound to examples whose outcome changed, notes naming a changed file."""
        notes = {rel for rel in result.changed if rel in self.vault.notes}
        names = {PurePosixPath(rel).stem for rel in (*result.removed, *result.added)}
        names |= {PurePosixPath(rel).stem for rel in notes}
        for note in self.vault.readable_notes:
            if "%%=" in note.text and any(i in note.text for i in changed_ids):
                notes.add(note.rel)
            elif ("[[" in note.text or "](" in note.text) and any(n in note.text for n in names):
                notes.add(note.rel)
        return {rel for rel in notes if self.vault.notes[rel].checked}

    def _note_changes(self, pipeline: Pipeline, notes: set[str]) -> list[FileChange]:
        changes = []
        for rel in sorted(notes):
            note = self.vault.notes[rel]
            try:
                fresh = pipeline.note(rel)
            except Exception:  # reported by `_report`
                continue
            if fresh.text != note.text:
                changes.append(FileChange(rel, note.path, note.source.raw, note.source.encode(fresh.text)))
        return changes

    def _affected_examples(self, notes: set[str], changed_ids: set[str], result: PassResult) -> list:
        """Examples with a figure, in the affected notes, with a changed outcome, or whose SVG changed."""
        found = []
        for example in self.runner.examples.values():
            rel = figure_rel(example)
            if rel is None or example.id not in self.runner.outcomes:
                continue
            if example.rel in notes or example.id in changed_ids or rel.lstrip("/") in result.changed:
                found.append(example)
        return found

    def _figures(self, pipeline: Pipeline, examples: list, result: PassResult) -> list:
        """Checks of the pass's figures: the affected examples', then the changed drawings no
        example names that show their own Q and K."""
        figures = [check_figure(example, self.runner.outcomes[example.id], self.vault) for example in examples]
        named = {fig.rel for fig in figures}
        for rel in result.changed:
            if rel in self.vault.attachments and rel not in named and (drawing := pipeline.drawing(rel)) is not None:
                figures.append(drawing)
        return figures

    def _figure_changes(self, pipeline: Pipeline, examples: list, result: PassResult) -> list[FileChange]:
        figures = [
            fig for fig in self._figures(pipeline, examples, result) if fig.new is not None and fig.new != fig.old
        ]
        result.fixes = {fig.rel: fig.fixes for fig in figures if fig.fixes}
        return [FileChange(fig.rel, fig.path, fig.old, fig.new) for fig in figures]

    def _remember(self, change: FileChange) -> None:
        """Record the bytes vaultkit wrote, so the events of its own write are not a change."""
        if change.rel in self.vault.notes:
            self.vault.reload(change.rel, raw=change.new)
        else:
            if change.rel not in self.vault.attachments:
                self.vault.reload(change.rel)
            self._digests[change.rel] = _digest(change.new)


class _Queue(FileSystemEventHandler):
    """Turns watchdog events into vault-relative paths for the worker."""

    def __init__(self, root: Path, push: Callable[[str], None]):
        self.root = root
        self.push = push

    def on_any_event(self, event: FileSystemEvent) -> None:
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            try:
                rel = PurePosixPath(Path(os.fsdecode(raw)).relative_to(self.root).as_posix())
            except ValueError:
                continue
            if rel.parts and not ignored(rel):
                self.push(rel.as_posix())


class Watcher:
    """A watchdog observer on the vault and a worker that runs one `Syncer` pass per burst."""

    def __init__(
        self,
        root: Path,
        on_pass: Callable[[PassResult], None] | None = None,
        syncer: Syncer | None = None,
        lock: threading.RLock | None = None,
    ):
        """`lock` is held during each pass and its `on_pass` (the server renders under it)."""
        self.root = Path(root).absolute()
        self.syncer = syncer or Syncer(self.root)
        self.on_pass = on_pass or print_pass
        self.lock = lock or threading.RLock()
        self.passes = 0  # passes that found a change
        self._pending: set[str] = set()
        self._first = self._last = 0.0
        self._cond = threading.Condition()
        self._stopping = False
        self._observer = Observer()
        self._observer.schedule(_Queue(self.root, self._push), str(self.root), recursive=True, event_filter=EVENTS)
        self._worker = threading.Thread(target=self._run, name="vaultkit-watch", daemon=True)

    def start(self) -> None:
        self._observer.start()
        self._worker.start()

    def stop(self) -> None:
        self._observer.stop()
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        self._observer.join()
        self._worker.join()

    def _push(self, rel: str) -> None:
        with self._cond:
            now = time.monotonic()
            if not self._pending:
                self._first = now
            self._pending.add(rel)
            self._last = now
            self._cond.notify_all()

    def _next_batch(self) -> set[str] | None:
        """Wait for a burst of events to end; None when stopping."""
        with self._cond:
            while not self._pending and not self._stopping:
                self._cond.wait()
            while not self._stopping:
                now = time.monotonic()
                deadline = min(self._last + QUIET, self._first + MAX_WAIT)
                if now >= deadline:
                    break
                self._cond.wait(deadline - now)
            if self._stopping:
                return None
            batch, self._pending = self._pending, set()
            return batch

    def _run(self) -> None:
        while (batch := self._next_batch()) is not None:
            with self.lock:
                self._pass(batch)

    def _pass(self, batch: set[str]) -> None:
        try:
            result = self.syncer.sync(batch)
        except Exception:  # a bug on one pass must not end the watch
            print(f"vaultkit: pass failed:\n{traceback.format_exc()}", file=sys.stderr)
            return
        if result is not None:
            self.passes += 1
            try:
                self.on_pass(result)
            except Exception:
                print(f"vaultkit: after the pass:\n{traceback.format_exc()}", file=sys.stderr)


def print_pass(result: PassResult) -> None:
    """The diagnostics of the notes the pass touched, its summary, and a one-line status."""
    sys.stdout.write(format_text(result.report))
    print(result.status(), flush=True)


def watch_command(root: Path) -> int:
    watcher = Watcher(root)
    summary = f"{len(watcher.syncer.vault.readable_notes)} notes, {len(watcher.syncer.runner.outcomes)} examples"
    watcher.start()
    print(f"Watching {root} ({summary}). Press Ctrl-C to stop.", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("Stopped.")
    finally:
        watcher.stop()
    return 0
