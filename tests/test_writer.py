"""Atomic writes: only when bytes change, never over a file changed since it was read."""

from __future__ import annotations

import os
import threading
import time

import pytest

from vaultkit import writer
from vaultkit.writer import StaleFileError, write_bytes


@pytest.fixture(params=["hard links", "no hard links"])
def links(request, monkeypatch):
    """Each put-back both ways: the replaced file renamed back (its second name), or, on a file
    system without hard links, its bytes copied back once they settle."""
    if request.param == "no hard links":
        monkeypatch.setattr(writer, "_second_name", lambda path, fd: None)
    return request.param


def test_write_only_when_bytes_change(tmp_path):
    path = tmp_path / "n.md"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    assert write_bytes(path, b"new", expected=b"old") is True
    assert path.read_bytes() == b"new" and os.stat(path).st_mode & 0o777 == 0o640
    mtime = os.stat(path).st_mtime_ns
    assert write_bytes(path, b"new", expected=b"new") is False
    assert os.stat(path).st_mtime_ns == mtime
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]  # no temp file left


def test_stale_file_is_refused(tmp_path):
    path = tmp_path / "n.md"
    path.write_bytes(b"edited by someone")
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    assert path.read_bytes() == b"edited by someone"


def test_create_new_file_and_refuse_if_it_appeared(tmp_path):
    path = tmp_path / "fig.svg"
    assert write_bytes(path, b"<svg/>", expected=None)
    with pytest.raises(StaleFileError):
        write_bytes(path, b"<svg/>!", expected=None)


def test_save_in_place_just_before_the_rename_is_put_back(tmp_path, monkeypatch, links):
    """An editor truncates and writes the file between our last look and the rename."""
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    real_replace = os.replace

    def editor_saves_then_replace(src, dst):
        with open(dst, "wb") as f:  # in place, as Obsidian saves
            f.write(b"the editor's newest save")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", editor_saves_then_replace)
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    assert path.read_bytes() == b"the editor's newest save"
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


def test_a_newer_save_while_a_late_save_is_renamed_back_is_kept(tmp_path, monkeypatch):
    """An editor saves just before our rename, then again, into what we wrote, while we rename
    its file back: the second save, the newest, is what the file holds."""
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    real_replace = os.replace
    renames = []

    def editor_saves_then_replace(src, dst):
        renames.append(src)
        if len(renames) <= 2:  # our write's rename, then the put-back's
            with open(dst, "wb") as f:
                f.write(b"the editor's first save" if len(renames) == 1 else b"the editor's second save")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", editor_saves_then_replace)
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    assert len(renames) == 3  # ours, the editor's file back, then ours (with the second save) back again
    assert path.read_bytes() == b"the editor's second save"
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


def test_a_newer_save_while_a_late_save_is_copied_back_is_kept(tmp_path, monkeypatch):
    """Without hard links: an editor saves just before our rename, then again while we copy
    that save back: the second save, the newest, is what the file holds."""
    monkeypatch.setattr(writer, "_second_name", lambda path, fd: None)
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    real_replace, real_temp_copy = os.replace, writer._temp_copy
    temp_copies = []

    def editor_saves_then_replace(src, dst):
        if len(temp_copies) == 1:  # our own write's rename
            with open(dst, "wb") as f:
                f.write(b"the editor's first save")
        real_replace(src, dst)

    def editor_saves_again_while_copying(target, data, mode):
        temp_copies.append(data)
        if len(temp_copies) == 2:  # the put-back's temp copy
            with open(target, "wb") as f:
                f.write(b"the editor's second save")
        return real_temp_copy(target, data, mode)

    monkeypatch.setattr(os, "replace", editor_saves_then_replace)
    monkeypatch.setattr(writer, "_temp_copy", editor_saves_again_while_copying)
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    assert temp_copies == [b"ours", b"the editor's first save"]
    assert path.read_bytes() == b"the editor's second save"
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


def editor_writing_late_into_the_replaced_file(monkeypatch, name: str, save: bytes) -> list:
    """An editor whose open of `name` looked the name up just before our rename: its truncate
    and write land in the file we replaced, a moment after the rename. The threads it runs."""
    real_replace = os.replace
    threads = []

    def replace(src, dst):
        if os.path.basename(dst) == name and not threads:
            fd = os.open(dst, os.O_WRONLY)  # the file that is about to be replaced

            def save_late():
                time.sleep(0.005)
                os.ftruncate(fd, 0)
                os.pwrite(fd, save, 0)
                os.close(fd)

            threads.append(threading.Thread(target=save_late))
            real_replace(src, dst)
            threads[-1].start()
        else:
            real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    return threads


def test_a_save_landing_in_the_replaced_file_just_after_the_rename_is_put_back(tmp_path, monkeypatch, links):
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    threads = editor_writing_late_into_the_replaced_file(monkeypatch, "n.md", b"the editor's late save")
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    threads[0].join()
    assert path.read_bytes() == b"the editor's late save"
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


@pytest.mark.parametrize("batch", [1, 256])
def test_a_batch_looks_at_its_replaced_files_once_and_refuses_the_one_saved_into(tmp_path, monkeypatch, batch, links):
    from vaultkit.commands import fix
    from vaultkit.commands.fix import apply_changes
    from vaultkit.pipeline import FileChange

    monkeypatch.setattr(fix, "LOOK_BATCH", batch)  # files kept open at most: looked at as often

    for name in ("a.md", "b.md"):
        (tmp_path / name).write_bytes(b"read " + name.encode())
    threads = editor_writing_late_into_the_replaced_file(monkeypatch, "a.md", b"the editor's late save")
    changes = [FileChange(name, tmp_path / name, b"read " + name.encode(), b"ours") for name in ("a.md", "b.md")]
    written, refused = apply_changes(changes)
    threads[0].join()
    assert written == ["b.md"] and [(d.path, d.code) for d in refused] == [("a.md", "VK004")]
    assert (tmp_path / "a.md").read_bytes() == b"the editor's late save"
    assert (tmp_path / "b.md").read_bytes() == b"ours"


def test_a_save_under_way_in_the_replaced_file_goes_on_in_the_note(tmp_path, monkeypatch):
    """The editor's open came before our rename and it is still writing when we look: its file
    is renamed back, so what it writes afterwards is in the note too."""
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    real_replace = os.replace
    editor = []

    def replace(src, dst):
        if not editor:  # our write's rename: the editor's open looked the name up just before
            editor.append(os.open(dst, os.O_WRONLY))
            real_replace(src, dst)
            os.ftruncate(editor[0], 0)
            os.pwrite(editor[0], b"the editor's ", 0)  # half its save, as we look
        else:
            real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    os.pwrite(editor[0], b"save", len(b"the editor's "))  # the rest, after the put-back
    os.close(editor[0])
    assert path.read_bytes() == b"the editor's save"
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


def test_a_save_by_rename_just_after_we_open_the_note_is_kept(tmp_path, monkeypatch):
    """An editor that saves by renaming its own file over the note (as vim and VS Code do),
    just after vaultkit opened the note to replace it: vaultkit's rename would drop that save,
    so vaultkit does not write."""
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    real_open = writer._open_existing

    def open_then_the_editor_saves(name):
        fd = real_open(name)
        if name == path and not (tmp_path / "saved").exists():
            (tmp_path / "editor.tmp").write_bytes(b"the editor's save")
            os.replace(tmp_path / "editor.tmp", path)
            (tmp_path / "saved").touch()
        return fd

    monkeypatch.setattr(writer, "_open_existing", open_then_the_editor_saves)
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    assert path.read_bytes() == b"the editor's save"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n.md", "saved"]
