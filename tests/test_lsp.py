"""`vaultkit lsp` driven over stdio by an LSP client (pygls'), as an editor drives it."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

from tests.conftest import CORPUS, needs_corpus
from vaultkit.commands.cli import main

TIMEOUT = 60.0  # for any one answer; loading the vault happens once, on `initialized`

ATTENTION = (
    "```vaultkit\nid: attn\nkind: attention\ntokens: [我, 爱, 你]\n"
    "Q: [[0.5, 0.3], [0.1, -0.4], [-0.3, 0.6]]\nK: [[0.3, -0.5], [-0.2, 0.6], [0.4, -0.1]]\n"
    "mask: causal\ndigits: 2\n```\n"
)
SIZES = "# Sizes\n\nA tile holds 4 × 8 = 33 values.\n\n## Memory\n\nHalf of it ^half\n"
NOTES = {
    "topics/sizes.md": SIZES,
    "topics/attention.md": (
        f"---\naliases: [Attn]\n---\n# Attention\n\n{ATTENTION}\nThe first weight is 0.50%%= attn.weights[0][0] %%.\n"
    ),
    "alias.md": "# Alias\n\nSee [[Attn]] for more.\n",
    "index.md": "# Index\n\nSee [[sizes#Memory]] and [[topics/attention]].\n",
    "other/old.md": "# Old\n\nMoved: [[wrong/place/sizes]].\n",
}


class Editor:
    """An LSP client that starts `vaultkit lsp` and keeps what it publishes, by document."""

    def __init__(self, root: Path, reports_files: bool = True):
        """`reports_files`: whether the editor reports changes on disk (didChangeWatchedFiles)."""
        self.root = root
        self.reports_files = reports_files
        self.client = LanguageClient("vaultkit-test-editor", "1")
        self.published: dict[str, types.PublishDiagnosticsParams] = {}
        self.arrived = asyncio.Event()
        self.versions: dict[str, int] = {}

        @self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
            self.published[params.uri] = params
            self.arrived.set()

        @self.client.feature(types.CLIENT_REGISTER_CAPABILITY)
        def on_register(params: types.RegistrationParams) -> None:
            return None

    def uri(self, rel: str) -> str:
        return from_fs_path(str(self.root / rel))

    async def start(self) -> None:
        await self.client.start_io(sys.executable, "-m", "vaultkit", "lsp")
        watched = types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=self.reports_files)
        capabilities = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(did_change_watched_files=watched)
        )
        folder = types.WorkspaceFolder(uri=from_fs_path(str(self.root)), name="vault")
        await asyncio.wait_for(
            self.client.initialize_async(
                types.InitializeParams(capabilities=capabilities, root_uri=folder.uri, workspace_folders=[folder])
            ),
            TIMEOUT,
        )
        self.client.initialized(types.InitializedParams())

    async def stop(self) -> None:
        await asyncio.wait_for(self.client.shutdown_async(None), TIMEOUT)
        self.client.exit(None)
        await self.client.stop()

    async def open(self, rel: str) -> list[types.Diagnostic]:
        self.versions[rel] = 1
        text = (self.root / rel).read_text(encoding="utf-8")
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=self.uri(rel), language_id="markdown", version=1, text=text)
            )
        )
        return await self.diagnostics(rel)

    async def change(self, rel: str, text: str) -> list[types.Diagnostic]:
        """Replace the whole unsaved text (never written to disk)."""
        self.versions[rel] += 1
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(version=self.versions[rel], uri=self.uri(rel)),
                [types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        )
        return await self.diagnostics(rel)

    async def diagnostics(self, rel: str) -> list[types.Diagnostic]:
        """The diagnostics published for the document's current version."""

        async def current() -> list[types.Diagnostic]:
            while True:
                got = self.published.get(self.uri(rel))
                if got is not None and got.version == self.versions[rel]:
                    return list(got.diagnostics)
                self.arrived.clear()
                await self.arrived.wait()

        return await asyncio.wait_for(current(), TIMEOUT)

    def at(self, rel: str, line: int, character: int) -> dict:
        return {
            "text_document": types.TextDocumentIdentifier(self.uri(rel)),
            "position": types.Position(line, character),
        }


def make_vault(root: Path) -> Path:
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def drive(root: Path, session, reports_files: bool = True) -> None:
    """Run `session(editor)` against a fresh server on the vault `root`."""

    async def run() -> None:
        editor = Editor(root, reports_files)
        await editor.start()
        try:
            await session(editor)
        finally:
            await editor.stop()

    asyncio.run(run())


def check_findings(root: Path, rel: str, capsys) -> list[tuple[int, int, str]]:
    """(line, col, code) of what `vaultkit check` reports for the note `rel`, 1-based."""
    capsys.readouterr()
    main(["check", str(root), "--format", "json"])
    found = json.loads(capsys.readouterr().out)["diagnostics"]
    return [(d["line"], d["col"], d["code"]) for d in found if d["path"] == rel]


def test_diagnostics_of_unsaved_text_on_the_claims_range_and_as_check_reports(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    expected = {rel: check_findings(root, rel, capsys) for rel in NOTES}

    async def session(editor: Editor) -> None:
        for rel in NOTES:
            found = await editor.open(rel)
            assert [(d.range.start.line + 1, d.range.start.character + 1, d.code) for d in found] == expected[rel]
        [claim] = editor.published[editor.uri("topics/sizes.md")].diagnostics
        assert claim.code == "VK301" and claim.severity == types.DiagnosticSeverity.Error
        at = SIZES.split("\n")[2].index("33")
        assert claim.range == types.Range(
            start=types.Position(line=2, character=at), end=types.Position(line=2, character=at + 2)
        )  # the written `33`
        assert "computed 32" in claim.message
        fixed = await editor.change("topics/sizes.md", SIZES.replace("= 33", "= 32"))
        assert fixed == []
        wrong = await editor.change("topics/sizes.md", "# Sizes\n\n😀 中文 2 × 3 = 7\n\n## Memory\n\nHalf ^half\n")
        # the `7` is the 14th character, the 15th UTF-16 unit: 😀 takes two
        assert [(d.code, d.range.start.character, d.range.end.character) for d in wrong] == [("VK301", 14, 15)]
        assert (root / "topics/sizes.md").read_text(encoding="utf-8") == SIZES  # nothing written

    drive(root, session)


def test_a_note_linking_to_an_edited_one_is_checked_again(tmp_path):
    root = make_vault(tmp_path / "v")

    async def session(editor: Editor) -> None:
        assert await editor.open("index.md") == []
        await editor.open("topics/sizes.md")
        editor.arrived.clear()
        await editor.change("topics/sizes.md", SIZES.replace("## Memory", "## Storage"))
        while editor.published[editor.uri("index.md")].diagnostics == []:
            editor.arrived.clear()
            await asyncio.wait_for(editor.arrived.wait(), TIMEOUT)
        [gone] = editor.published[editor.uri("index.md")].diagnostics
        assert gone.code == "VK504"

    drive(root, session)


def test_hover_shows_what_a_claim_and_an_inline_value_compute_to(tmp_path):
    root = make_vault(tmp_path / "v")

    async def session(editor: Editor) -> None:
        await editor.open("topics/sizes.md")
        at = SIZES.split("\n")[2].index("33")
        hover = await editor.client.text_document_hover_async(
            types.HoverParams(**editor.at("topics/sizes.md", 2, at + 1))
        )
        assert "VK301" in hover.contents.value and "computed `32`" in hover.contents.value
        await editor.open("topics/attention.md")
        line = NOTES["topics/attention.md"].split("\n").index("The first weight is 0.50%%= attn.weights[0][0] %%.")
        hover = await editor.client.text_document_hover_async(
            types.HoverParams(**editor.at("topics/attention.md", line, 22))
        )
        assert "attn.weights[0][0]" in hover.contents.value and "example `attn`" in hover.contents.value
        assert "**1.00**" in hover.contents.value  # the first token attends only to itself (causal)
        heading = await editor.client.text_document_hover_async(
            types.HoverParams(**editor.at("topics/attention.md", 3, 2))
        )
        assert heading is None
        await editor.change("topics/sizes.md", SIZES.replace("= 33", "= 32"))
        hover = await editor.client.text_document_hover_async(types.HoverParams(**editor.at("topics/sizes.md", 2, at)))
        assert hover.contents.value == "claim ok: `4 × 8 = 32` — computed 32"
        nothing = await editor.client.text_document_hover_async(types.HoverParams(**editor.at("topics/sizes.md", 0, 1)))
        assert nothing is None

    drive(root, session)


@pytest.mark.parametrize(
    ("rel", "code", "new"),
    [
        ("topics/attention.md", "VK201", "1.00"),  # a number
        ("other/old.md", "VK502", "topics/sizes"),  # a link path
        ("alias.md", "VK501", "topics/attention|Attn"),  # a link to an alias
    ],
)
def test_a_code_action_writes_what_fix_would_and_the_diagnostic_goes_away(tmp_path, rel, code, new):
    root = make_vault(tmp_path / "v")

    async def session(editor: Editor) -> None:
        found = await editor.open(rel)
        [diagnostic] = [d for d in found if d.code == code]
        actions = await editor.client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=types.TextDocumentIdentifier(uri=editor.uri(rel)),
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        [action] = actions
        [edit] = action.edit.changes[editor.uri(rel)]
        assert edit.new_text == new and edit.range.start.line == diagnostic.range.start.line
        text = (root / rel).read_text(encoding="utf-8").split("\n")
        at = edit.range.start
        row = text[at.line]
        text[at.line] = row[: at.character] + edit.new_text + row[edit.range.end.character :]
        after = await editor.change(rel, "\n".join(text))
        assert code not in [d.code for d in after]

    drive(root, session)


def test_definition_and_references_of_a_wikilink(tmp_path):
    root = make_vault(tmp_path / "v")

    async def session(editor: Editor) -> None:
        await editor.open("index.md")
        found = await editor.client.text_document_definition_async(
            types.DefinitionParams(**editor.at("index.md", 2, 8))
        )
        assert found.uri == editor.uri("topics/sizes.md")
        assert found.range.start.line == 4  # `## Memory`
        refs = await editor.client.text_document_references_async(
            types.ReferenceParams(
                context=types.ReferenceContext(include_declaration=False), **editor.at("index.md", 2, 8)
            )
        )
        assert [(r.uri, r.range.start.line, r.range.start.character) for r in refs] == [(editor.uri("index.md"), 2, 4)]
        await editor.open("topics/sizes.md")

        async def references(line: int) -> list[str]:
            found = await editor.client.text_document_references_async(
                types.ReferenceParams(
                    context=types.ReferenceContext(include_declaration=False), **editor.at("topics/sizes.md", line, 0)
                )
            )
            return sorted(r.uri for r in found)

        assert await references(1) == [editor.uri("index.md"), editor.uri("other/old.md")]  # to the note
        assert await references(4) == [editor.uri("index.md")]  # to `## Memory`

    drive(root, session)


def test_completion_of_names_headings_and_block_ids(tmp_path):
    root = make_vault(tmp_path / "v")

    async def complete(editor: Editor, typed: str) -> list[str]:
        await editor.change("index.md", f"# Index\n\n{typed}")
        result = await editor.client.text_document_completion_async(
            types.CompletionParams(**editor.at("index.md", 2, len(typed)))
        )
        return [item.label for item in result.items] if result is not None else []

    async def session(editor: Editor) -> None:
        await editor.open("index.md")
        names = await complete(editor, "See [[")
        assert {"sizes", "attention", "old"} <= set(names) and "index" not in names
        assert await complete(editor, "See [[sizes#") == ["Sizes", "Memory"]
        assert await complete(editor, "See [[sizes#^") == ["half"]
        assert await complete(editor, "Plain text") == []

    drive(root, session)


@pytest.mark.parametrize("reports_files", [True, False], ids=["told-by-the-editor", "seen-by-its-own-observer"])
def test_changes_on_disk_are_followed(tmp_path, reports_files):
    root = make_vault(tmp_path / "v")

    async def session(editor: Editor) -> None:
        assert await editor.open("index.md") == []
        (root / "topics" / "sizes.md").unlink()
        if reports_files:
            editor.client.workspace_did_change_watched_files(
                types.DidChangeWatchedFilesParams(
                    [types.FileEvent(uri=editor.uri("topics/sizes.md"), type=types.FileChangeType.Deleted)]
                )
            )
        while not editor.published[editor.uri("index.md")].diagnostics:
            editor.arrived.clear()
            await asyncio.wait_for(editor.arrived.wait(), TIMEOUT)
        assert [d.code for d in editor.published[editor.uri("index.md")].diagnostics] == ["VK501"]

    drive(root, session, reports_files)


@needs_corpus
def test_every_note_of_the_real_vault_gets_what_check_reports(tmp_path, capsys):
    root = tmp_path / "vault146"
    shutil.copytree(CORPUS, root)
    capsys.readouterr()
    main(["check", str(root), "--format", "json"])
    expected: dict[str, list] = {}
    for d in json.loads(capsys.readouterr().out)["diagnostics"]:
        expected.setdefault(d["path"], []).append((d["line"], d["code"], d["message"]))
    notes = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.md") if ".obsidian" not in p.parts)

    async def session(editor: Editor) -> None:
        for rel in notes:
            found = await editor.open(rel)
            got = [(d.range.start.line + 1, d.code, d.message) for d in found]
            want = [(line, code, message) for line, code, message in expected.get(rel, [])]
            assert [(line, code) for line, code, _ in got] == [(line, code) for line, code, _ in want], rel
            assert all(message.startswith(w) for (_, _, message), (_, _, w) in zip(got, want)), rel

    drive(root, session)
