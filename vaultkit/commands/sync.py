"""The watch loop `vaultkit watch` and `vaultkit serve` share: keep generated regions, inline values
and figures in sync while notes are edited. It imports no command but the fix it runs.

One watchdog observer on the vault queues the paths that change; a worker thread waits for a
quiet moment (a burst such as a git checkout becomes one pass) and then runs `Syncer.sync`:
apply the changed files to the kept `VaultState` (which checks again only what they can
affect; the examples' outcomes are cached by input hash), and write what the notes and
figures it checked should now be, as `vaultkit fix` would.

Loops and lost edits: a file whose bytes equal what vaultkit last read or wrote is not a change,
so vaultkit's own writes end there (the state takes the bytes it wrote as they are: a save that
lands just after the write is a change still); every write is refused when the file changed
since it was read, and the newer save is handled by the next pass.
"""

from __future__ import annotations

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

from vaultkit.commands.fix import apply_changes
from vaultkit.commands.usage import UsageError
from vaultkit.diagnostics import Diagnostic, Report, format_text
from vaultkit.model.vault import Vault, is_excluded
from vaultkit.state import VaultState

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

    def status(self) -> str:
        """What the pass did: a line per number it fixed in a drawing, then what it wrote."""
        now = time.strftime("%H:%M:%S")
        fixed = [f"[{now}] fixed {rel} {what}\n" for rel in self.written for what in self.fixes.get(rel, ())]
        done = f"wrote {', '.join(self.written)}" if self.written else "nothing to write"
        refused = f"; {len(self.refused)} changed meanwhile, redone on the next save" if self.refused else ""
        return "".join(fixed) + f"[{now}] {done}{refused} ({self.seconds * 1000:.0f} ms)"


class Syncer:
    """The watcher's passes: one kept `VaultState`, brought up to date with each batch of paths."""

    def __init__(self, root: Path, state: VaultState | None = None):
        """`state`: one already loaded for this vault; else it is loaded and every note checked
        (on every core when no thread runs yet, as check), so a save redoes only its part."""
        self.root = Path(root)
        if state is None:
            state = VaultState.load(self.root)
            state.compute_notes()
        self.state = state

    @property
    def vault(self) -> Vault:
        return self.state.vault

    def sync(self, rels: set[str]) -> PassResult | None:
        """Bring the vault in line with the files `rels` (vault-relative); None when nothing changed.

        The pass writes what the affected notes and figures should be, then reports what is
        left after its own writes, counted as `check` counts it."""
        started = time.perf_counter()
        affected = self.state.apply(rel for rel in rels if not ignored(PurePosixPath(rel)))
        if not affected:
            return None
        result = PassResult(changed=affected.changed, added=set(affected.added), removed=affected.removed)
        _, changes = self.state.report(affected.rels)
        result.fixes = {fig.rel: fig.fixes for fig in self.state.figures() if fig.fixes and fig.rel in affected.rels}
        written, result.refused = apply_changes(changes)
        result.added |= {change.rel for change in changes if change.rel in written and change.old is None}
        checked = affected.rels
        if written:  # report the state after the writes, which then knows their events as ours
            after = self.state.apply((), written={c.rel: c.new for c in changes if c.rel in written})
            checked |= after.rels
            affected.notes |= after.notes
        result.written = written
        result.checked = sorted(affected.notes)
        result.report, _ = self.state.report(checked)
        result.report.add(result.refused)
        result.report.finish()
        result.seconds = time.perf_counter() - started
        return result


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


def keep_report(watcher: Watcher, report: str | None) -> None:
    """Write the report note now and after each pass (`report`: its path, "" or None: the
    configured or default name); a UsageError when it cannot be kept."""
    from vaultkit.renderers.report_note import Keeper, NotAReportNote

    try:
        keeper = Keeper(watcher.syncer.state, report)
        keeper.update()
    except (ValueError, NotAReportNote) as exc:
        raise UsageError(str(exc)) from None
    shown = watcher.on_pass

    def on_pass(result: PassResult) -> None:
        shown(result)
        keeper.update()

    watcher.on_pass = on_pass
