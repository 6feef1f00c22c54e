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
