"""`vaultkit watch` with a real watchdog observer on a temp vault; every wait is bounded."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path, PurePosixPath

import pytest

from vaultkit.commands import sync
from vaultkit.commands.sync import Syncer, Watcher, ignored

TIMEOUT = 10.0

Q = "[[0.5, 0.3], [0.1, -0.4], [-0.3, 0.6]]"
K = "[[0.3, -0.5], [-0.2, 0.6], [0.4, -0.1]]"


def example_note(q: str = Q, figure: str = "assets/attn.svg") -> str:
    return (
        "# 注意力\n\n```vaultkit\nid: attn\nkind: attention\ntokens: [我, 爱, 你]\n"
        f"Q: {q}\nK: {K}\nmask: causal\ndigits: 2\nfigure: {figure}\n```\n\n第一个权重 0.00%%= attn.weights[0][0] %%\n"
    )


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "assets").mkdir(parents=True)
    (root / "notes").mkdir()
    (root / "notes" / "a.md").write_text("# A\n\n见 [[b]]。\n", encoding="utf-8")
    (root / "notes" / "b.md").write_text("# B\n\n回到 [[a]]。\n", encoding="utf-8")
    (root / ".obsidian").mkdir()
    return root


class Recorder:
    """Collects pass results from the worker thread and lets the test wait for one."""

    def __init__(self):
        self.results = []
        self.cond = threading.Condition()

    def __call__(self, result):
        with self.cond:
            self.results.append(result)
            self.cond.notify_all()

    def wait(self, count: int = 1):
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.results) >= count, timeout=TIMEOUT), (
                f"no pass {count} within {TIMEOUT}s (passes: {len(self.results)})"
            )
            return self.results[count - 1]

    def quiet(self, seconds: float = 0.8) -> int:
        """The number of passes after `seconds` with no new event expected."""
        time.sleep(seconds)
        return len(self.results)


@pytest.fixture
def running(vault):
    recorder = Recorder()
    watcher = Watcher(vault, on_pass=recorder)
    watcher.start()
    time.sleep(0.2)  # let inotify settle its watches
    yield watcher, recorder
    watcher.stop()


def codes(result, rel=None):
    return [d.code for d in result.report.diagnostics if rel is None or d.path == rel]


@pytest.mark.parametrize(
    "name, skip",
    [
        ("notes/a.md", False),
        ("assets/x.svg", False),
        (".obsidian/workspace.json", True),
        (".trash/a.md", True),
        ("notes/.a.md.swp", True),
        ("notes/a.md~", True),
        ("notes/.#a.md", True),
        ("notes/a.md.tmp", True),
        ("notes/4913", True),
        ("notes/.a.md.k3j2.vaultkit-tmp", True),
        ("private/a.md", True),
        ("templates/t.md", True),
    ],
)
def test_ignored_paths(name, skip):
    assert ignored(PurePosixPath(name)) is skip


def test_save_rewrites_region_value_and_figure_once(vault, running):
    watcher, recorder = running
    note = vault / "notes" / "ex.md"
    note.write_text(example_note(), encoding="utf-8")
    result = recorder.wait()
    assert sorted(result.written) == ["assets/attn.svg", "notes/ex.md"]
    text = note.read_text(encoding="utf-8")
    assert "<!-- vaultkit:begin attn -->" in text and "第一个权重 1.00%%= attn.weights[0][0] %%" in text
    svg = (vault / "assets" / "attn.svg").read_bytes()
    assert svg.startswith(b"<svg") or b"<svg" in svg[:200]
    # vaultkit's own writes trigger no further pass
    assert recorder.quiet() == 1
    assert watcher.passes == 1


def test_changed_example_redraws_figure_and_keeps_the_rest(vault, running):
    watcher, recorder = running
    note = vault / "notes" / "ex.md"
    note.write_text(example_note(), encoding="utf-8")
    recorder.wait()
    first_svg = (vault / "assets" / "attn.svg").read_bytes()
    written = note.read_text(encoding="utf-8")
    note.write_text(written.replace("[0.5, 0.3]", "[0.9, 0.3]", 1), encoding="utf-8")
    result = recorder.wait(2)
    assert sorted(result.written) == ["assets/attn.svg", "notes/ex.md"]
    assert (vault / "assets" / "attn.svg").read_bytes() != first_svg
    assert "[0.9, 0.3]" in note.read_text(encoding="utf-8")


def test_broken_example_is_a_diagnostic_and_the_watch_goes_on(vault, running):
    watcher, recorder = running
    note = vault / "notes" / "ex.md"
    note.write_text(example_note(q="[[0.5, 0.3], [0.1"), encoding="utf-8")
    result = recorder.wait()
    assert "VK110" in codes(result, "notes/ex.md") or "VK114" in codes(result, "notes/ex.md")
    assert result.written == []
    note.write_text(example_note(), encoding="utf-8")
    result = recorder.wait(2)
    assert "notes/ex.md" in result.written


def test_delete_and_rename_update_links(vault, running):
    watcher, recorder = running
    (vault / "notes" / "b.md").unlink()
    result = recorder.wait()
    assert result.removed == ["notes/b.md"]
    assert "VK501" in codes(result, "notes/a.md")
    (vault / "notes" / "c.md").write_text("# C\n", encoding="utf-8")
    recorder.wait(2)
    os.replace(vault / "notes" / "c.md", vault / "notes" / "b.md")
    result = recorder.wait(3)
    assert "notes/b.md" in result.changed and "notes/c.md" in result.removed
    assert "VK501" not in codes(result, "notes/a.md")
    assert "notes/a.md" in result.checked


def test_folder_move_is_followed(vault, running):
    watcher, recorder = running
    os.replace(vault / "notes", vault / "moved")
    result = recorder.wait()
    assert sorted(result.removed) == ["notes/a.md", "notes/b.md"]
    assert sorted(watcher.syncer.vault.notes) == ["moved/a.md", "moved/b.md"]


def test_burst_is_one_pass(vault, running):
    """60 files land within milliseconds (written aside, then moved in) and make one pass."""
    watcher, recorder = running
    staging = vault.parent / "staging"
    staging.mkdir()
    for i in range(60):
        (staging / f"n{i:02}.md").write_text(f"# N{i}\n\n[[a]]\n", encoding="utf-8")
    for i in range(60):
        os.replace(staging / f"n{i:02}.md", vault / "notes" / f"n{i:02}.md")
    result = recorder.wait()
    assert len(result.changed) == 60
    assert recorder.quiet() == 1


def test_temp_and_swap_files_start_no_pass(vault, running):
    watcher, recorder = running
    for name in ("notes/.a.md.swp", "notes/a.md~", "notes/4913", ".obsidian/workspace.json", "notes/x.tmp"):
        (vault / name).write_text("x", encoding="utf-8")
    assert recorder.quiet() == 0


def test_write_then_rename_save_is_seen(vault, running):
    watcher, recorder = running
    tmp = vault / "notes" / ".ex.md.tmp"
    tmp.write_text(example_note(), encoding="utf-8")
    os.replace(tmp, vault / "notes" / "ex.md")
    result = recorder.wait()
    assert "notes/ex.md" in result.written


def test_touch_without_change_is_not_a_pass(vault, running):
    watcher, recorder = running
    path = vault / "notes" / "a.md"
    path.write_bytes(path.read_bytes())
    assert recorder.quiet() == 0


USERS_SAVE = example_note().replace("# 注意力", "# 注意力（改）")


def users_save_around_the_write(monkeypatch, note: Path, *, before: bool) -> None:
    """Make the pass's writes race a user's save of `note`: just before them or just after."""
    real_apply = sync.apply_changes

    def apply_with_a_save(changes):
        if before:
            note.write_text(USERS_SAVE, encoding="utf-8")
        done = real_apply(changes)
        if not before:
            note.write_text(USERS_SAVE, encoding="utf-8")
        return done

    monkeypatch.setattr(sync, "apply_changes", apply_with_a_save)


def assert_next_pass_syncs_the_users_save(syncer: Syncer, note: Path, monkeypatch) -> None:
    monkeypatch.undo()
    result = syncer.sync({"notes/ex.md"})  # the save's event
    assert result is not None and "notes/ex.md" in result.written
    text = note.read_text(encoding="utf-8")
    assert text.startswith("# 注意力（改）") and "<!-- vaultkit:begin attn -->" in text


def test_edit_during_a_pass_is_never_overwritten(vault, monkeypatch):
    """The user saves between vaultkit's read and its write: the write is refused, then redone."""
    syncer = Syncer(vault)
    note = vault / "notes" / "ex.md"
    note.write_text(example_note(), encoding="utf-8")
    users_save_around_the_write(monkeypatch, note, before=True)
    result = syncer.sync({"notes/ex.md"})
    assert "notes/ex.md" not in result.written
    assert [d.code for d in result.refused if d.path == "notes/ex.md"] == ["VK004"]
    assert note.read_text(encoding="utf-8") == USERS_SAVE
    assert_next_pass_syncs_the_users_save(syncer, note, monkeypatch)


def test_a_save_just_after_vaultkits_write_is_synced_on_its_event(vault, monkeypatch):
    """The user saves right after vaultkit's write, before the pass reads the file back: that
    save is not taken for vaultkit's own write, and the next pass syncs it."""
    syncer = Syncer(vault)
    note = vault / "notes" / "ex.md"
    note.write_text(example_note(), encoding="utf-8")
    users_save_around_the_write(monkeypatch, note, before=False)
    assert "notes/ex.md" in syncer.sync({"notes/ex.md"}).written
    assert note.read_text(encoding="utf-8") == USERS_SAVE
    assert_next_pass_syncs_the_users_save(syncer, note, monkeypatch)


def test_stop_is_prompt(vault):
    watcher = Watcher(vault, on_pass=lambda result: None)
    watcher.start()
    started = time.monotonic()
    watcher.stop()
    assert time.monotonic() - started < TIMEOUT


def test_a_saved_drawing_with_its_own_q_and_k_is_checked_and_fixed(vault):
    """No block names it: the watcher reads the drawing's own example, as check does."""
    fixture = Path(__file__).parent / "fixtures" / "handdrawn" / "cell-grid-groups.svg"
    drawing = vault / "assets" / "grid.svg"
    drawing.write_text(fixture.read_text(encoding="utf-8"), encoding="utf-8")
    result = Syncer(vault).sync({"assets/grid.svg"})
    # the three wrong numbers are rewritten by the pass, so none is left to report
    assert codes(result, "assets/grid.svg") == [] and result.report.summary.figures == 1
    assert "assets/grid.svg" in result.written
    assert "0.13<" not in drawing.read_text(encoding="utf-8")


def test_pass_reports_what_remains_after_its_own_rewrite(vault):
    """A stale inline value that the pass rewrites is not reported; a wrong claim is."""
    syncer = Syncer(vault)
    (vault / "notes" / "e.md").write_text(example_note() + "\n2 × 3 = 7\n", encoding="utf-8")
    result = syncer.sync({"notes/e.md"})
    assert "notes/e.md" in result.written
    codes = [d.code for d in result.report.diagnostics]
    assert not [c for c in codes if c.startswith("VK2")], codes  # the value was fixed by the pass
    assert [c for c in codes if c.startswith("VK3")], codes  # the claim is still wrong
    assert result.report.summary.values == 1


def test_pass_counts_the_claims_in_a_changed_svg_as_check_does(vault):
    syncer = Syncer(vault)
    svg = '<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="1">2 × 3 = 7</text></svg>\n'
    (vault / "assets" / "drawn.svg").write_text(svg, encoding="utf-8")
    result = syncer.sync({"assets/drawn.svg"})
    from vaultkit.commands.check import run

    # the pass mends the drawing's arithmetic as fix does (VK447), and then reports and counts as check
    assert "2 × 3 = 6" in (vault / "assets" / "drawn.svg").read_text(encoding="utf-8")
    report, _ = run(vault)
    assert [(d.code, d.line) for d in result.report.diagnostics] == [(d.code, d.line) for d in report.diagnostics]
    assert result.report.summary.claims == report.summary.claims > 0
    assert result.report.summary.claims == 1


def test_oversized_svg_is_refused_as_check_refuses_it(vault):
    from vaultkit.model.vault import MAX_NOTE_BYTES

    syncer = Syncer(vault)
    big = '<svg xmlns="http://www.w3.org/2000/svg"><text>2 × 3 = 7</text>' + " " * MAX_NOTE_BYTES + "</svg>"
    (vault / "assets" / "big.svg").write_text(big, encoding="utf-8")
    result = syncer.sync({"assets/big.svg"})
    assert [d.code for d in result.report.diagnostics] == ["VK003"]
