"""Atomic writes: only when bytes change, never over a file changed since it was read."""

from __future__ import annotations

import os

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
