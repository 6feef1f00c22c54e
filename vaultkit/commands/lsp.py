"""`vaultkit lsp`: a language server over stdio for the editors that speak LSP.

The server reads the vault once into a `VaultState`, the state `watch` keeps, and follows the
editor's unsaved text (`didOpen`/`didChange`/`didClose`) and changes on disk (`didSave`,
`didChangeWatchedFiles`, else a watchdog observer of its own) through `VaultState.apply`. For
each open note it publishes the diagnostics `check` reports for it, and answers hover (what a
number or claim was computed to), code actions (what `fix` writes there), definition and
references of wikilinks, and completion of note names, headings and block ids after `[[`, `#`
and `^`. It never writes a file.

Positions: vaultkit counts lines from 1 and columns in characters from 1; the client counts
both from 0 and columns in the encoding it negotiated (UTF-16 by default), converted by
pygls' position codec.
"""

from __future__ import annotations

import asyncio
import difflib
import gc
import os
import posixpath
import re
from pathlib import Path, PurePosixPath

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path
from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer

from vaultkit import __version__
from vaultkit.checks.examples.values import PathError, find_bindings, resolve, split_path
from vaultkit.commands.sync import ignored
from vaultkit.diagnostics import ERROR, Diagnostic
from vaultkit.model.links import Link, extract_links, target_lines
from vaultkit.numbers import rewrite_like
from vaultkit.readers.syntax.blockids import block_spans
from vaultkit.readers.syntax.headings import loose, sections
from vaultkit.state import VaultState

DISK_QUIET = 0.1  # seconds after a change on disk to wait for the rest of its burst (a git checkout)
PAUSE = 0.02  # seconds of no typing before a note is checked again: a burst of keys is one check
SEVERITY = {ERROR: types.DiagnosticSeverity.Error}
_WORD = re.compile(r"[\w.,/\-]")  # a character of a number, a name or a path
_NAME_TYPED = re.compile(r"!?\[\[([^\[\]|#^]*)$")  # `[[na` : a note name being typed
_HEADING_TYPED = re.compile(r"!?\[\[([^\[\]|#^]*)#([^\[\]|#^]*)$")  # `[[note#hea`
_BLOCK_TYPED = re.compile(r"!?\[\[([^\[\]|#^]*)#\^([^\[\]|#^]*)$")  # `[[note#^id`


class VaultkitServer(LanguageServer):
    """The server and the one vault state it answers from (None until `initialized`)."""

    def __init__(self, root: Path | None = None):
        super().__init__("vaultkit", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.root = Path(root).resolve() if root else None
        self.state: VaultState | None = None
        self.disk: DiskWatcher | None = None  # when the editor does not report changes on disk
        self.pending: set[str] = set()  # files changed on disk, applied after a quiet moment

    def load(self, workspace_root: str | None) -> None:
        """Read the vault: the folder given on the command line, else the workspace's vault."""
        if self.root is None:
            self.root = vault_of(Path(workspace_root or ".").resolve())
        self.state = VaultState.load(self.root)
        # What the first change would compute for the whole vault, computed now: the link graph
        # (every note parsed) and every figure and drawing.
        self.state.index.links()
        self.state.figures()
        # The vault's notes and their tokens live as long as the server: the cyclic collector would
        # scan them all again and again, pausing a check now and then (worst case several fold).
        gc.freeze()

    def rel(self, uri: str) -> str | None:
        """The vault-relative path of a document, or None when it is not a note of the vault."""
        path = to_fs_path(uri)
        if path is None or self.root is None or not path.lower().endswith(".md"):
            return None
        try:
            return Path(path).resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel))

    def current(self, uri: str):
        """The open document `uri`, its text brought into the state first when a change is still
        waiting for the typing pause (answers are never about an older text)."""
        document = self.workspace.get_text_document(uri)
        rel = self.rel(uri)
        note = self.state.vault.notes.get(rel) if self.state and rel else None
        if note is not None and note.source.raw != document.source.encode("utf-8"):
            self.edited({rel: document.source})
        return document

    def checked(self, rel: str | None):
        """The note `rel` when vaultkit checks it (the report note, excluded files: None)."""
        note = self.state.vault.notes.get(rel) if self.state and rel else None
        return note if note is not None and note.checked else None

    def publish(self, rel: str) -> None:
        """Send the diagnostics of the open note `rel` as the editor has it."""
        uri = self.uri(rel)
        document = self.workspace.get_text_document(uri)
        found = note_diagnostics(self.state, rel) if self.checked(rel) else []
        lines = document.lines  # split once: pygls splits the text on every access
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, version=document.version, diagnostics=[self.lsp_diagnostic(document, lines, d) for d in found]
            )
        )

    def open_notes(self) -> dict[str, str]:
        """rel -> uri of the open documents that are notes of the vault."""
        return {rel: uri for uri in self.workspace.text_documents if (rel := self.rel(uri))}

    def edited(self, buffers: dict[str, str | None], changed=()) -> None:
        """Apply the editor's texts and the files changed on disk; publish every open note checked again."""
        affected = self.state.apply(changed, buffers)
        opened = self.open_notes()
        for rel in sorted((affected.notes | {r for r, text in buffers.items() if text is not None}) & opened.keys()):
            self.publish(rel)

    def disk_changed(self, rel: str) -> None:
        """A file changed on disk (the event loop's thread): applied with the others of its burst."""
        if not self.pending:
            asyncio.get_running_loop().call_later(DISK_QUIET, self.apply_pending)
        self.pending.add(rel)

    def apply_pending(self) -> None:
        rels, self.pending = sorted(self.pending), set()
        if self.state:
            self.edited({}, rels)

    def lsp_diagnostic(self, document, lines, d: Diagnostic) -> types.Diagnostic:
        return types.Diagnostic(
            range=self.client_range(document, d.line - 1, *finding_span(lines, d), lines=lines),
            message=d.message + (f" (written {d.written}, computed {d.computed})" if _adds_values(d) else ""),
            severity=SEVERITY.get(d.severity, types.DiagnosticSeverity.Warning),
            code=d.code,
            source="vaultkit",
        )

    def client_range(
        self, document, line: int, start: int, end: int, end_line: int | None = None, lines=None
    ) -> types.Range:
        """A range of 0-based characters on `line` (to `end_line`) in the client's units."""
        codec = document.position_codec
        lines = document.lines if lines is None else lines
        return types.Range(
            codec.position_to_client_units(lines, types.Position(line, start)),
            codec.position_to_client_units(lines, types.Position(line if end_line is None else end_line, end)),
        )

    def location(self, rel: str, line: int, start: int, end: int) -> types.Location:
        """A place in the file `rel` (0-based characters), in the client's units for the text vaultkit has."""
        note = self.state.vault.notes.get(rel)
        lines = note.text.split("\n") if note is not None and note.readable else []
        codec = self.workspace.position_codec
        return types.Location(
            uri=self.uri(rel),
            range=types.Range(
                codec.position_to_client_units(lines, types.Position(line, start))
                if lines
                else types.Position(line, 0),
                codec.position_to_client_units(lines, types.Position(line, end)) if lines else types.Position(line, 0),
            ),
        )

    def opened_note(self, uri: str):
        """(rel, document, note) of a request on an open note the state checks, else None."""
        rel = self.rel(uri)
        document = self.current(uri)
        note = self.checked(rel)
        return None if note is None else (rel, document, note)

    def server_position(self, document, position: types.Position) -> tuple[int, int]:
        """(0-based line, 0-based character) of a client position."""
        at = document.position_codec.position_from_client_units(document.lines, position)
        return at.line, at.character


class DiskWatcher(FileSystemEventHandler):
    """A watchdog observer on the vault that hands each changed path to `changed` on the event loop."""

    def __init__(self, root: Path, loop: asyncio.AbstractEventLoop, changed):
        self.root, self.loop, self.changed = root, loop, changed
        self.observer = Observer()
        self.observer.schedule(self, str(root), recursive=True)

    def start(self) -> None:
        self.observer.start()

    def stop(self) -> None:
        self.observer.stop()
        self.observer.join()

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            try:
                rel = PurePosixPath(Path(os.fsdecode(raw)).relative_to(self.root).as_posix()) if raw else None
            except ValueError:
                continue
            if rel is not None and rel.parts and not ignored(rel):
                self.loop.call_soon_threadsafe(self.changed, rel.as_posix())


def vault_of(folder: Path) -> Path:
    """The vault of an editor's workspace: the `docs_dir` of its mkdocs.yml, else (none, or one
    that cannot be read) the folder itself."""
    from vaultkit.model.layout import CONFIG, docs_dir
    from vaultkit.readers.config import ConfigError

    config = folder / CONFIG
    try:
        named = docs_dir(config) if config.is_file() else None
    except ConfigError:
        named = None
    return named if named is not None and named.is_dir() else folder


def note_diagnostics(state: VaultState, rel: str) -> list[Diagnostic]:
    """What `check` reports for the note `rel`: its file's, its examples' and its content's."""
    found = [d for d in (*state.vault.diagnostics, *state.example_diagnostics) if d.path == rel]
    found += [d for d in state.note(rel).diagnostics if d.path == rel]
    return sorted(set(found))


def _adds_values(d: Diagnostic) -> bool:
    """Whether the message leaves the written and computed values out (check adds them too)."""
    return d.written is not None and d.computed is not None and "written" not in d.message


def finding_span(lines, d: Diagnostic) -> tuple[int, int]:
    """0-based characters [start, end) on the finding's line that it is about: the written value,
    the link, else the word at its column (the whole line for a finding about the file)."""
    text = lines[d.line - 1].rstrip("\r\n") if d.line - 1 < len(lines) else ""
    start = min(d.col - 1, len(text))
    rest = text[start:]
    if d.written and rest.startswith(d.written):
        return start, start + len(d.written)
    if rest.startswith(("[[", "![[")) and "]]" in rest:
        return start, start + rest.index("]]") + 2
    word = re.match(r"\S+", rest)
    return (start, start + len(word.group(0))) if word else (0, len(text))


def link_at(note, line: int, char: int) -> Link | None:
    """The wikilink or embed of `note` under 0-based (line, character)."""
    for link in extract_links(note):
        if link.line - 1 == line and link.col - 1 <= char < link.end_col - 1:
            return link
    return None


def link_target(state: VaultState, link: Link) -> tuple[str, int] | None:
    """(vault-relative file, 0-based line) a wikilink opens, or None when it leads nowhere."""
    target = state.index.resolve(link.path, link.source).target
    if target is None:
        return None
    note = state.vault.notes.get(target)
    if note is None or not note.readable:
        return target, 0
    lines = target_lines(note, link.heading, link.block)
    return target, lines[0] if lines else 0


def references(state: VaultState, target: str, heading: str | None = None) -> list[Link]:
    """Every wikilink and embed of the checked notes that opens `target` (its `heading`, if given)."""
    found = []
    for note in state.vault.readable_notes:
        for link in extract_links(note):
            if state.index.resolve(link.path, note.rel).target != target:
                continue
            if heading is None or (link.heading and loose(link.heading.split("#")[-1]) == loose(heading)):
                found.append(link)
    return found


def hover_text(state: VaultState, rel: str, lines, line: int, char: int) -> str | None:
    """Markdown for what is under (line, character): the findings there, the inline value's
    example and computed value, and what `check --explain` lists for the line (the claims read
    with what they compute to, a walkthrough's parts)."""
    parts = []
    for d in note_diagnostics(state, rel):
        start, end = finding_span(lines, d)
        if d.line - 1 == line and start <= char <= max(end, start + 1):
            values = f" — written `{d.written}`, computed `{d.computed}`" if d.computed is not None else ""
            parts.append(f"**{d.code}** {d.message}{values}")
    value = inline_value(state, lines, line, char)
    if value:
        parts.append(value)
    for entry in state.note(rel).explained:  # what `check --explain` lists for the line
        if entry.line == line + 1:
            verdict = f" {entry.verdict}" if entry.verdict else ""
            computed = f" — {entry.note}" if entry.note else ""
            parts.append(f"{entry.kind}{verdict}: `{entry.text}`{computed}")
    return "\n\n".join(dict.fromkeys(parts)) or None


def inline_value(state: VaultState, lines, line: int, char: int) -> str | None:
    """What an inline value `0.04%%= id.path %%` under the cursor is computed to, and by which example."""
    text = lines[line].rstrip("\r\n") if line < len(lines) else ""
    for binding in find_bindings([text], set()):
        end = text.find("%%", text.find("%%=", binding.col) + 3)
        if not binding.col <= char <= (end + 2 if end >= 0 else len(text)):
            continue
        try:
            example_id, steps = split_path(binding.path)
            example = state.runner.examples[example_id]
            computed = resolve(state.runner.outcomes[example_id].fields, steps)
        except (PathError, KeyError):
            return None
        shown = rewrite_like(binding.number, computed) if binding.number else f"{computed:g}"
        where = f"{example.rel}:{example.line}"
        return f"`{binding.path.strip()}` = **{shown}**, computed by example `{example_id}` ({example.kind}, {where})"
    return None


Edit = tuple[int, int, int, int, str]  # 0-based start line, start char, end line, end char, new text
SAME_LINE = 0.6  # a line at least this similar to the one fix writes is that line, edited in place
MAX_PAIRINGS = 10_000  # a block of lines larger than this (old × new) is replaced whole, not line by line


def fix_edits(old: str, new: str, first: int, last: int) -> list[Edit]:
    """What `fix`, which turns `old` into `new`, writes on the lines `first`..`last` of `old`:
    each line it rewrites in place, and each run of lines it replaces (or inserts) whole."""
    old_lines, new_lines = old.split("\n"), new.split("\n")
    matcher = difflib.SequenceMatcher(lambda line: not line.strip(), old_lines, new_lines, autojunk=False)
    found = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            found += _line_changes(old_lines, new_lines, i1, i2, j1, j2)
    return [edit for edit, lines in found if any(first <= line <= last for line in lines)]


def _line_changes(old_lines, new_lines, i1: int, i2: int, j1: int, j2: int) -> list[tuple[Edit, range]]:
    """The edits of one differing block, each with the old lines it is about: each old line fix
    rewrites in place (the most similar line of the block, in order), and the lines between."""
    if (i2 - i1) * (j2 - j1) > MAX_PAIRINGS:
        return _replaced(old_lines, new_lines, i1, i2, j1, j2)
    found, i, j = [], i1, j1
    for k in range(i1, i2):
        candidates = [(difflib.SequenceMatcher(None, old_lines[k], new_lines[m]).ratio(), m) for m in range(j, j2)]
        ratio, m = max(candidates, key=lambda c: (c[0], -c[1]), default=(0.0, j))
        if ratio < SAME_LINE:
            continue
        found += _replaced(old_lines, new_lines, i, k, j, m)
        a, b = old_lines[k], new_lines[m]
        if a != b:
            head, tail = _differing(a, b)
            found.append(((k, head, k, len(a) - tail, b[head : len(b) - tail]), range(k, k + 1)))
        i, j = k + 1, m + 1
    return found + _replaced(old_lines, new_lines, i, i2, j, j2)


def _replaced(old_lines, new_lines, i1: int, i2: int, j1: int, j2: int) -> list[tuple[Edit, range]]:
    """Old lines [i1, i2) replaced whole by new lines [j1, j2); an insertion is about the block
    above it (the line before it, and the one before that when it is blank)."""
    if old_lines[i1:i2] == new_lines[j1:j2]:
        return []
    lines = range(i1, i2)
    if i1 == i2:
        lines = range(max(i1 - 1 - (i1 >= 2 and not old_lines[i1 - 1].strip()), 0), i1)
    return [((i1, 0, i2, 0, "".join(line + "\n" for line in new_lines[j1:j2])), lines)]


def _differing(a: str, b: str) -> tuple[int, int]:
    """How many characters `a` and `b` share at the start and at the end, short of the word,
    number or path that differs (an edit then replaces `0.50` whole, not its `0.5`)."""
    head = len(posixpath.commonprefix([a, b]))
    tail = len(posixpath.commonprefix([a[head:][::-1], b[head:][::-1]]))
    while head and _WORD.match(a[head - 1]):
        head -= 1
    while tail and _WORD.match(a[len(a) - tail]):
        tail -= 1
    return head, tail


def completions(state: VaultState, rel: str, before: str) -> tuple[int, list[types.CompletionItem]] | None:
    """(how many characters typed to replace, items) for the text of the line `before` the cursor."""
    if match := _BLOCK_TYPED.search(before):
        note = _typed_note(state, rel, match.group(1))
        ids = sorted(block_spans(note.tokens)) if note is not None else []
        items = [types.CompletionItem(label=i, kind=types.CompletionItemKind.Reference) for i in ids]
        return len(match.group(2)), items
    if match := _HEADING_TYPED.search(before):
        note = _typed_note(state, rel, match.group(1))
        heads = sections(note.tokens) if note is not None else []
        items = [
            types.CompletionItem(
                label=section.text, kind=types.CompletionItemKind.Reference, detail="#" * section.level
            )
            for section in heads
        ]
        return len(match.group(2)), items
    if match := _NAME_TYPED.search(before):
        items = []
        for target in (*state.vault.notes, *state.vault.attachments):
            if state.index.ignored(target) or target == rel:
                continue
            name = posixpath.basename(target[:-3] if target.lower().endswith(".md") else target)
            unique = len(state.index.by_name[name]) == 1
            written = name if unique else (target[:-3] if target.lower().endswith(".md") else target)
            kind = types.CompletionItemKind.File if target.lower().endswith(".md") else types.CompletionItemKind.Module
            items.append(types.CompletionItem(label=written, kind=kind, detail=target))
        return len(match.group(1)), items
    return None


def _typed_note(state: VaultState, rel: str, path: str):
    """The note a link being typed names (`[[#…` is the note itself), when it is readable."""
    target = state.index.resolve(path, rel).target if path else rel
    note = state.vault.notes.get(target) if target else None
    return note if note is not None and note.readable else None


def make_server(root: Path | None = None) -> VaultkitServer:
    """A server with every feature registered; `root`: the vault (None: the workspace's)."""
    server = VaultkitServer(root)

    @server.feature(types.INITIALIZED)
    def initialized(ls: VaultkitServer, params: types.InitializedParams) -> None:
        folders = list(ls.workspace.folders.values())
        ls.load(to_fs_path(folders[0].uri) if folders else ls.workspace.root_path)
        watched = ls.client_capabilities.workspace and ls.client_capabilities.workspace.did_change_watched_files
        if not (watched and watched.dynamic_registration):  # the editor will not say: watch the disk ourselves
            ls.disk = DiskWatcher(ls.root, asyncio.get_running_loop(), ls.disk_changed)
            ls.disk.start()
        else:
            options = types.DidChangeWatchedFilesRegistrationOptions(
                watchers=[types.FileSystemWatcher(glob_pattern="**/*")]
            )
            ls.client_register_capability(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="vaultkit-files",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=options,
                        )
                    ]
                )
            )

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: VaultkitServer, params: None) -> None:
        if ls.disk is not None:
            ls.disk.stop()

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: VaultkitServer, params: types.DidOpenTextDocumentParams) -> None:
        rel = ls.rel(params.text_document.uri)
        if rel and ls.state:
            ls.edited({rel: params.text_document.text})

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: VaultkitServer, params: types.DidChangeTextDocumentParams) -> None:
        rel = ls.rel(params.text_document.uri)
        if not rel or not ls.state:
            return
        await asyncio.sleep(PAUSE)
        document = ls.workspace.get_text_document(params.text_document.uri)
        if document.version == params.text_document.version:  # else a later change checks it
            ls.edited({rel: document.source})

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: VaultkitServer, params: types.DidSaveTextDocumentParams) -> None:
        rel = ls.rel(params.text_document.uri)
        if rel and ls.state:
            ls.edited({}, [rel])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: VaultkitServer, params: types.DidCloseTextDocumentParams) -> None:
        rel = ls.rel(params.text_document.uri)
        if rel and ls.state:
            ls.edited({rel: None})
            ls.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
            )

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(ls: VaultkitServer, params: types.DidChangeWatchedFilesParams) -> None:
        if not ls.state:
            return
        rels = []
        for change in params.changes:
            path = to_fs_path(change.uri)
            try:
                rels.append(Path(path).resolve().relative_to(ls.root).as_posix())
            except (TypeError, ValueError):
                continue
        if rels:
            ls.edited({}, rels)

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    def hover(ls: VaultkitServer, params: types.HoverParams) -> types.Hover | None:
        if (opened := ls.opened_note(params.text_document.uri)) is None:
            return None
        rel, document, _ = opened
        line, char = ls.server_position(document, params.position)
        text = hover_text(ls.state, rel, document.lines, line, char)
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]),
    )
    def code_action(ls: VaultkitServer, params: types.CodeActionParams) -> list[types.CodeAction] | None:
        if (opened := ls.opened_note(params.text_document.uri)) is None:
            return None
        rel, document, note = opened
        first, _ = ls.server_position(document, params.range.start)
        last, _ = ls.server_position(document, params.range.end)
        actions = []
        for edit in fix_edits(note.text, ls.state.note(rel).text, first, last):
            start_line, start, end_line, end, text = edit
            lines = range(start_line, max(start_line, end_line - 1) + 1)
            found = [d for d in note_diagnostics(ls.state, rel) if d.line - 1 in lines]
            shown = text.strip()
            what = f"write `{shown}`" if shown and "\n" not in shown else "rewrite what is generated here"
            change = types.TextEdit(range=ls.client_range(document, start_line, start, end, end_line), new_text=text)
            actions.append(
                types.CodeAction(
                    title=f"vaultkit fix: {what}" + (f" ({found[0].code})" if found else ""),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[ls.lsp_diagnostic(document, document.lines, d) for d in found] or None,
                    edit=types.WorkspaceEdit(changes={params.text_document.uri: [change]}),
                    is_preferred=bool(found),
                )
            )
        return actions

    @server.feature(types.TEXT_DOCUMENT_DEFINITION)
    def definition(ls: VaultkitServer, params: types.DefinitionParams) -> types.Location | None:
        if (opened := ls.opened_note(params.text_document.uri)) is None:
            return None
        rel, document, note = opened
        link = link_at(note, *ls.server_position(document, params.position))
        found = link_target(ls.state, link) if link else None
        if found is None:
            return None
        return ls.location(found[0], found[1], 0, 0)

    @server.feature(types.TEXT_DOCUMENT_REFERENCES)
    def find_references(ls: VaultkitServer, params: types.ReferenceParams) -> list[types.Location] | None:
        if (opened := ls.opened_note(params.text_document.uri)) is None:
            return None
        rel, document, note = opened
        line, char = ls.server_position(document, params.position)
        link = link_at(note, line, char)
        if link is not None:
            target = ls.state.index.resolve(link.path, rel).target
            heading = link.heading
        else:  # on the note itself: the links to it, or to the heading under the cursor
            target = rel
            heading = next((s.text for s in sections(note.tokens) if s.start == line), None)
        if target is None:
            return None
        return [
            ls.location(link.source, link.line - 1, link.col - 1, link.end_col - 1)
            for link in references(ls.state, target, heading)
        ]

    @server.feature(types.TEXT_DOCUMENT_COMPLETION, types.CompletionOptions(trigger_characters=["[", "#", "^"]))
    def complete(ls: VaultkitServer, params: types.CompletionParams) -> types.CompletionList | None:
        if (opened := ls.opened_note(params.text_document.uri)) is None:
            return None
        rel, document, _ = opened
        line, char = ls.server_position(document, params.position)
        found = completions(ls.state, rel, document.lines[line][:char] if line < len(document.lines) else "")
        if found is None:
            return None
        typed, items = found
        where = ls.client_range(document, line, char - typed, char)
        for item in items:
            item.text_edit = types.TextEdit(range=where, new_text=item.label)
        return types.CompletionList(is_incomplete=False, items=items)

    return server


def lsp_command(root: Path | None) -> int:
    make_server(root).start_io()
    return 0
