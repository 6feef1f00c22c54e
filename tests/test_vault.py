"""The vault model: discovery, reading, front matter."""

from __future__ import annotations

import os

import pytest

from vaultkit.model.vault import Source, Vault, parse_front_matter

from .conftest import CORPUS, needs_corpus


def make(tmp_path, files: dict[str, bytes | str]):
    for rel, data in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return Vault.load(tmp_path)


def test_discovery_skips_hidden_and_excluded_folders(tmp_path):
    vault = make(
        tmp_path,
        {
            "a.md": "# a",
            "sub/b.md": "# b",
            ".obsidian/x.md": "x",
            ".trash/t.md": "t",
            ".env": "SECRET=1",
            "private/p.md": "p",
            "templates/t.md": "t",
            "template/t.md": "t",
            "attachments-private/i.png": "i",
            "assets/pic.svg": "<svg/>",
            "sub/.hidden.md": "h",
        },
    )
    assert sorted(vault.notes) == ["a.md", "sub/b.md"]
    assert vault.attachments == ["assets/pic.svg"]


def test_bom_crlf_and_encoding_round_trip():
    raw = "\ufeff---\r\ntitle: 你好\r\n---\r\n正文\r\n".encode("utf-8")
    src = Source.from_bytes(None, raw)
    assert src.bom and src.newline == "\r\n" and src.text == "---\ntitle: 你好\n---\n正文\n"
    assert src.encode(src.text) == raw


def test_non_utf8_and_binary_are_diagnostics(tmp_path):
    vault = make(tmp_path, {"gbk.md": "中文".encode("gbk"), "bin.md": b"abc\0def", "ok.md": "ok"})
    codes = sorted((d.path, d.code) for d in vault.diagnostics)
    assert codes == [("bin.md", "VK002"), ("gbk.md", "VK001")]
    assert [n.rel for n in vault.readable_notes] == ["ok.md"]


@pytest.mark.parametrize(
    "front, title, tags, published",
    [
        ("title: 标题\ntags: [a, '', 3, null, b/c]\n", "标题", ["a", "3", "b/c"], True),
        ("tags:\n  -\n  - x\npublish: false\n", "n", ["x"], False),
        ("tags: a, b\ndraft: true\n", "n", ["a", "b"], False),
        ("title: 2024\n", "2024", [], True),
    ],
)
def test_front_matter_fields(tmp_path, front, title, tags, published):
    note = make(tmp_path, {"n.md": f"---\n{front}---\nbody\n"}).notes["n.md"]
    assert (note.title, note.tags, note.published) == (title, tags, published)


def test_broken_front_matter_is_a_diagnostic_at_its_line_and_note_still_usable(tmp_path):
    vault = make(tmp_path, {"n.md": "---\ntitle: ok\ntags: [a, b\n---\n# 正文\n"})
    (diag,) = vault.diagnostics
    assert diag.code == "VK010" and diag.line >= 3
    assert vault.notes["n.md"].title == "n"


def test_yaml_alias_bomb_is_refused_quickly(tmp_path):
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
        for i in range(20)
    )
    fm = parse_front_matter(f"---\n{bomb}---\n", "n.md")
    assert [d.code for d in fm.diagnostics] == ["VK010"]


def test_symlinks_out_of_the_vault_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("secret")
    root = tmp_path / "vault"
    root.mkdir()
    (root / "a.md").write_text("a")
    os.symlink(outside / "secret.md", root / "link.md")
    os.symlink(outside, root / "dir")
    os.symlink(root / "loop", root / "loop")
    vault = Vault.load(root)
    assert sorted(vault.notes) == ["a.md"]
    assert vault.inside("../outside/secret.md") is None


@needs_corpus
def test_corpus_loads_every_note():
    vault = Vault.load(CORPUS)
    assert len(vault.notes) == 146
    assert all(n.readable for n in vault.notes.values())
    assert sum(a.endswith(".svg") for a in vault.attachments) == 10


def _settings_vault(tmp_path, files):
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    return Vault.load(tmp_path)


def test_obsidian_settings_mark_excluded_files_and_templates(tmp_path):
    vault = _settings_vault(
        tmp_path,
        {
            ".obsidian/app.json": '{"userIgnoreFilters": ["Old/", "/^tmp-\\\\d+/", "/[unclosed/"], '
            '"newLinkFormat": "relative", "attachmentFolderPath": "./att"}',
            ".obsidian/templates.json": '{"folder": "/Tpl/"}',
            "Old/a.md": "\x00 not even text",
            "tmp-3.md": "---\nbad: [\n---\n",
            "Tpl/t.md": "# {{date}}\n",
            "keep/n.md": "# kept\n",
        },
    )
    assert [n.rel for n in vault.readable_notes] == ["keep/n.md"]
    assert "excluded by `Old/`" in vault.notes["Old/a.md"].ignored
    assert "template" in vault.notes["Tpl/t.md"].ignored
    assert vault.diagnostics == []  # an excluded file's bytes and front matter are not reported on
    assert vault.settings.link_format == "relative"
    assert vault.settings.attachment_dir("keep/n.md") == "keep/att"


def test_unreadable_obsidian_settings_are_a_warning(tmp_path):
    vault = _settings_vault(tmp_path, {".obsidian/app.json": "{not json", "n.md": "# n\n"})
    assert [(d.path, d.code) for d in vault.diagnostics] == [(".obsidian/app.json", "VK013")]
    assert vault.settings.ignore_filters == () and vault.settings.link_format is None


def test_watcher_leaves_templates_alone(tmp_path):
    from vaultkit.commands.sync import Syncer

    _settings_vault(
        tmp_path,
        {
            ".obsidian/templates.json": '{"folder": "Tpl"}',
            "notes/Beta.md": "# Beta\n",
            "Tpl/t.md": "# t\n",
        },
    )
    syncer = Syncer(tmp_path)
    template = tmp_path / "Tpl" / "t.md"
    template.write_text("# t\n\n[[wrong/folder/Beta]]\n", encoding="utf-8")
    result = syncer.sync({"Tpl/t.md"})
    assert template.read_text(encoding="utf-8") == "# t\n\n[[wrong/folder/Beta]]\n"
    assert result is None or "Tpl/t.md" not in result.checked


def test_front_matter_fields_vaultkit_cannot_use_are_warned_at_their_line():
    text = "---\ntitle: [a, b]\ntags:\n  - x\n  - {y: 1}\naliases: {a: 1}\npublish: maybe\ndraft: no\n---\n# A\n"
    fm = parse_front_matter(text, "a.md")
    assert [(d.line, d.code, d.severity, d.message) for d in fm.diagnostics] == [
        (2, "VK012", "warning", "title is a list, not text; the file name is the title"),
        (
            3,
            "VK012",
            "warning",
            "tags is a list with nested entries, not a list of tags; the nested entries are ignored",
        ),
        (6, "VK012", "warning", "aliases is a mapping, not a list of aliases; it is ignored"),
        (7, "VK012", "warning", "publish is 'maybe', not true or false; read as false: the note is not published"),
    ]


@pytest.mark.parametrize(
    "front",
    [
        "tags: 5\n",  # read as the tag 5, as a number in a list of tags is
        "tags: [a, '', 3, null, 1.5]\n",
        "tags: a, b\naliases: z\ntitle: 2024\n",
        "publish: false\ndraft: no\n",
        "publish: yes\ndraft: 0\ntitle:\n",
    ],
)
def test_front_matter_fields_vaultkit_reads_are_not_warned(front):
    assert parse_front_matter(f"---\n{front}---\n", "a.md").diagnostics == []
