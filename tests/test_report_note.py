"""The report note (`check --report`, `watch --report`): the findings as a note of the vault,
never published, never checked, never counted, rewritten only when the findings change."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from vaultkit.checks.links import check_links
from vaultkit.commands.build import build_command
from vaultkit.commands.check import run
from vaultkit.commands.cli import main
from vaultkit.commands.sync import Syncer, Watcher, keep_report
from vaultkit.diagnostics import Report
from vaultkit.model.links import LinkIndex
from vaultkit.model.vault import SETTINGS_UNREADABLE, Vault
from vaultkit.renderers import report_note

WRONG_CLAIM = "2 × 3 = 7"


def make_vault(root: Path) -> Path:
    (root / "topics").mkdir(parents=True)
    (root / "topics" / "alpha.md").write_text(
        "# Alpha\n\nIntro.\n\n## Sizes\n\nA tile holds 4 × 8 = 32 values.\n\n"
        f"## Wrong part\n\nSo {WRONG_CLAIM} here.\n\nA quoted line ^quoted\n\nThen [[missing note]].\n",
        encoding="utf-8",
    )
    (root / "beta.md").write_text("# Beta\n\nSee [[alpha#Sizes]].\n", encoding="utf-8")
    return root


def check_json(root: Path, capsys, *args: str) -> dict:
    capsys.readouterr()
    main(["check", str(root), "--format", "json", *args])
    return json.loads(capsys.readouterr().out)


def test_check_writes_the_findings_grouped_by_note_with_links_to_the_nearest_anchor(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    assert main(["check", str(root), "--report", "findings"]) == 1
    text = (root / "findings.md").read_text(encoding="utf-8")
    report, _ = run(root)
    assert report.summary.line() in text
    assert "## [[topics/alpha]]" in text
    claim = next(line for line in text.splitlines() if "VK301" in line)
    assert claim.startswith("- [[topics/alpha#Wrong part|line 11]]")  # the heading above line 11
    assert "(written `7`, computed `6`)" in claim
    broken = next(line for line in text.splitlines() if "VK501" in line)
    assert broken.startswith("- [[topics/alpha#^quoted|line 15]]")  # the block id above it
    assert "\\[\\[missing note\\]\\]" in broken  # shown as written, not a link of the report note
    assert "[!success]" not in text


def test_every_link_of_the_report_note_resolves_to_its_heading_or_block(tmp_path):
    root = make_vault(tmp_path / "v")
    report, _ = run(root)
    vault = Vault.load(root)
    text = report_note.render(report, vault.notes, "en")
    (root / "plain.md").write_text(text.replace("vaultkit: report\n", ""), encoding="utf-8")
    vault = Vault.load(root)
    diagnostics, count = check_links(vault.notes["plain.md"], LinkIndex(vault))
    assert count == 3 and diagnostics == []


def test_the_report_note_is_not_checked_counted_or_published(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    before = check_json(root, capsys)
    assert main(["check", str(root), "--report"]) == 1
    note = root / "vaultkit report.md"  # the default name of an English vault
    assert note.is_file()
    after = check_json(root, capsys)
    assert after == before  # its links to headings, its summary line: neither checked nor counted
    assert after["summary"]["notes"] == 2
    assert build_command(root, str(tmp_path / "site"), strict=False) == 0
    built = [p.relative_to(tmp_path / "site").as_posix() for p in (tmp_path / "site").rglob("*")]
    assert not [p for p in built if "report" in p]
    assert "vaultkit report" not in (tmp_path / "site" / "beta" / "index.html").read_text(encoding="utf-8")


def test_rewritten_only_when_the_findings_change(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    main(["check", str(root), "--report"])
    note = root / "vaultkit report.md"
    inode = note.stat().st_ino
    main(["check", str(root), "--report"])
    assert note.stat().st_ino == inode  # the same findings: the file is not replaced
    assert "unchanged vaultkit report.md" in capsys.readouterr().err
    alpha = root / "topics" / "alpha.md"
    alpha.write_text(alpha.read_text(encoding="utf-8").replace(WRONG_CLAIM, "2 × 3 = 6"), encoding="utf-8")
    main(["check", str(root), "--report"])
    assert note.stat().st_ino != inode
    assert "VK301" not in note.read_text(encoding="utf-8")


def test_a_clean_vault_gets_a_callout_and_chinese_labels(tmp_path):
    root = tmp_path / "v"
    root.mkdir()
    (root / "笔记.md").write_text("# 标题\n\n2 × 3 = 6\n", encoding="utf-8")
    (root / "另一篇.md").write_text("# 另一篇\n\n见 [[笔记#标题]]。\n", encoding="utf-8")
    assert main(["check", str(root), "--report"]) == 0
    text = (root / "vaultkit 报告.md").read_text(encoding="utf-8")
    assert "> [!success] 全部通过" in text
    assert "0 errors, 0 warnings" in text


def test_a_note_of_the_persons_own_is_never_overwritten(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    mine = root / "findings.md"
    mine.write_text("# My findings\n\nHand written.\n", encoding="utf-8")
    assert main(["check", str(root), "--report", "findings.md"]) == 2
    assert "not vaultkit's report note" in capsys.readouterr().err
    assert mine.read_text(encoding="utf-8") == "# My findings\n\nHand written.\n"


@pytest.mark.parametrize("written", ["../outside", "/etc/report"])
def test_the_report_note_stays_in_the_vault(tmp_path, capsys, written):
    root = make_vault(tmp_path / "v")
    assert main(["check", str(root), "--report", written]) == 2
    assert "inside the vault" in capsys.readouterr().err
    assert not (tmp_path / "outside.md").exists()


def test_the_plugin_option_names_the_note(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    (root / "mkdocs.yml").write_text(
        "site_name: T\ndocs_dir: .\nplugins:\n  - vaultkit:\n      report: status/findings\n", encoding="utf-8"
    )
    main(["check", str(root), "--report"])
    assert (root / "status" / "findings.md").is_file()


def test_messages_cannot_make_links_tags_or_comments():
    report = Report()
    report.add([SETTINGS_UNREADABLE.at(".obsidian/app.json", 1, 1, problem="see [[x]] #tag %%c%% `code [[y]]` a|b")])
    report.finish()
    text = report_note.render(report, {}, "en")
    assert "## `.obsidian/app.json`" in text
    assert "see \\[\\[x\\]\\] \\#tag \\%\\%c\\%\\% `code [[y]]` a\\|b" in text


def test_the_site_builds_with_the_plugin_option_and_leaves_the_note_out(tmp_path, capsys):
    root = make_vault(tmp_path / "v")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: T\ndocs_dir: v\nplugins:\n  - vaultkit:\n      report: findings\n", encoding="utf-8"
    )
    main(["check", str(root), "--report"])
    assert (root / "findings.md").is_file()
    assert build_command(root, str(tmp_path / "site"), strict=False) == 0
    assert (tmp_path / "site" / "beta" / "index.html").is_file()
    assert not (tmp_path / "site" / "findings").exists()


def expected_note(root: Path) -> str:
    """The report note a fresh `vaultkit check` of the vault's files gives."""
    report, _ = run(root)
    vault = Vault.load(root)
    return report_note.render(report, vault.notes, report_note.language_of(vault))


def test_after_a_sequence_of_saves_the_kept_note_is_what_check_reports(tmp_path):
    root = make_vault(tmp_path / "v")
    syncer = Syncer(root)
    keeper = report_note.Keeper(syncer.state, "")
    keeper.update()
    note = root / "vaultkit report.md"
    assert note.read_text(encoding="utf-8") == expected_note(root)
    alpha, beta = root / "topics" / "alpha.md", root / "beta.md"
    saves = [
        (alpha, lambda text: text.replace(WRONG_CLAIM, "2 × 3 = 6")),  # a claim fixed
        (beta, lambda text: text.replace("#Sizes", "#Sizing")),  # a heading link broken
        (alpha, lambda text: text.replace("## Sizes", "## Sizing")),  # and mended from the other side
        (alpha, None),  # the linked note deleted: beta's link is broken
        (root / "missing note.md", lambda text: "# Missing\n\n3 + 4 = 8\n"),  # a dangling link resolves; a wrong claim
    ]
    for path, edit in saves:
        if edit is None:
            path.unlink()
        else:
            path.write_text(edit(path.read_text(encoding="utf-8") if path.exists() else ""), encoding="utf-8")
        syncer.sync({path.relative_to(root).as_posix()})
        keeper.update()
        assert note.read_text(encoding="utf-8") == expected_note(root), path.name
    text = note.read_text(encoding="utf-8")
    assert "VK501" in text and "missing note" in text and "computed `7`" in text


def test_watch_keeps_the_note_without_passes_of_its_own(tmp_path):
    root = make_vault(tmp_path / "v")
    passes = []
    watcher = Watcher(root, on_pass=passes.append)
    keep_report(watcher, "status")
    note = root / "status.md"
    assert "VK301" in note.read_text(encoding="utf-8")
    watcher.start()
    try:
        alpha = root / "topics" / "alpha.md"
        alpha.write_text(alpha.read_text(encoding="utf-8").replace(WRONG_CLAIM, "2 × 3 = 6"), encoding="utf-8")
        deadline = time.monotonic() + 10
        while "VK301" in note.read_text(encoding="utf-8") and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # the note's own write would make a pass by now
    finally:
        watcher.stop()
    assert note.read_text(encoding="utf-8") == expected_note(root)
    assert [result.changed for result in passes] == [["topics/alpha.md"]]


def test_a_save_of_the_note_just_after_its_write_is_a_change(tmp_path, monkeypatch):
    """The state takes the bytes the keeper wrote, not the file read back: a hand edit that
    lands right after the write is still a change when its event comes, and the next update
    puts the findings back."""
    root = make_vault(tmp_path / "v")
    syncer = Syncer(root)
    keeper = report_note.Keeper(syncer.state, "")
    note = root / "vaultkit report.md"
    real = report_note.write_bytes

    def write_then_edited(path, data, *, expected):
        wrote = real(path, data, expected=expected)
        path.write_bytes(data + "手改的一行\n".encode())  # the person's save, just after
        return wrote

    monkeypatch.setattr(report_note, "write_bytes", write_then_edited)
    assert keeper.update()
    monkeypatch.setattr(report_note, "write_bytes", real)
    assert syncer.sync({note.name}).changed == [note.name]
    assert keeper.update()
    assert note.read_text(encoding="utf-8") == expected_note(root)
