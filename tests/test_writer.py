"""Atomic writes: only when bytes change, never over a file changed since it was read."""

from __future__ import annotations

import os
import threading
import time

import pytest

from vaultkit.writer import StaleFileError, write_bytes


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


def test_save_in_place_just_before_the_rename_is_put_back(tmp_path, monkeypatch):
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


def test_a_newer_save_while_a_late_save_is_put_back_is_kept(tmp_path, monkeypatch):
    """An editor saves just before our rename, then again while we put that save back: the
    second save, the newest, is what the file holds."""
    from vaultkit import writer

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


def test_a_save_landing_in_the_replaced_file_just_after_the_rename_is_put_back(tmp_path, monkeypatch):
    path = tmp_path / "n.md"
    path.write_bytes(b"what we read")
    threads = editor_writing_late_into_the_replaced_file(monkeypatch, "n.md", b"the editor's late save")
    with pytest.raises(StaleFileError):
        write_bytes(path, b"ours", expected=b"what we read")
    threads[0].join()
    assert path.read_bytes() == b"the editor's late save"
    assert [p.name for p in tmp_path.iterdir()] == ["n.md"]


@pytest.mark.parametrize("batch", [1, 256])
def test_a_batch_looks_at_its_replaced_files_once_and_refuses_the_one_saved_into(tmp_path, monkeypatch, batch):
    from vaultkit.commands import check
    from vaultkit.commands.check import apply_changes
    from vaultkit.pipeline import FileChange

    monkeypatch.setattr(check, "LOOK_BATCH", batch)  # files kept open at most: looked at as often

    for name in ("a.md", "b.md"):
        (tmp_path / name).write_bytes(b"read " + name.encode())
    threads = editor_writing_late_into_the_replaced_file(monkeypatch, "a.md", b"the editor's late save")
    changes = [FileChange(name, tmp_path / name, b"read " + name.encode(), b"ours") for name in ("a.md", "b.md")]
    written, refused = apply_changes(changes)
    threads[0].join()
    assert written == ["b.md"] and [(d.path, d.code) for d in refused] == [("a.md", "VK004")]
    assert (tmp_path / "a.md").read_bytes() == b"the editor's late save"
    assert (tmp_path / "b.md").read_bytes() == b"ours"
