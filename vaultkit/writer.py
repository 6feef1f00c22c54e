"""Atomic, lossless writes.

A write happens only when the bytes change, never over a file that changed on disk since it
was read, and always as temp file + fsync + rename in the same folder, keeping the mode.

An editor that saves in place (open with truncate, write — as Obsidian does) between our last
look and the rename writes into the file we are replacing; so does one whose open looked the
name up just before the rename, a moment later. We keep that file open across the rename and
look at it again once `SETTLE_SECONDS` have passed since (once for a whole batch of writes):
if it changed, the editor's bytes are put back.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vaultkit.diagnostics import ERROR, Rule

SETTLE_SECONDS = 0.02  # a replaced file's second look comes this long after the rename; a late save settles so long
LOOK_BATCH = 256  # replaced files kept open at most, for one second look (a process may open 1,024 files)


class StaleFileError(Exception):
    """The file on disk is no longer what was read; writing would lose someone's edit."""


CHANGED_ON_DISK = Rule(
    "VK004",
    ERROR,
    "file changed on disk since it was read; not overwritten",
    "changed on disk while vaultkit ran; not overwritten, run fix again",
    "Someone saved the file while vaultkit worked on it; their edit is kept. Run fix again.",
)


@dataclass
class Replaced:
    """A file vaultkit replaced, still open: an editor's save may land in it just after."""

    path: Path
    fd: int
    expected: bytes  # what it held when vaultkit replaced it
    ours: bytes  # what vaultkit wrote in its place
    at: float  # when (time.monotonic)


def write_bytes(path: Path, data: bytes, *, expected: bytes | None, replaced: list[Replaced] | None = None) -> bool:
    """Replace `path` with `data` atomically; return whether anything was written.

    `expected` is the content the caller read (None for a file the caller creates). The file
    replaced is looked at again (`look_again`): by the caller when it gives a `replaced` list
    (one wait for a batch of writes), else here; a save found there is put back, and
    `StaleFileError` raised.
    """
    path = Path(path)
    current = _current(path)
    if current != expected:
        raise StaleFileError(str(path))
    if current == data:
        return False
    try:
        mode = path.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = 0o644 & ~_umask()
    tmp = _temp_copy(path, data, mode)
    try:
        old = _open_existing(path)
        try:
            # Last look before the rename: an editor may have saved while we wrote.
            if (None if old is None else _read_fd(old)) != expected:
                raise StaleFileError(str(path))
            os.replace(tmp, path)
        except BaseException:
            if old is not None:
                os.close(old)
            raise
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)
    if old is not None:
        late = Replaced(path, old, expected, data, time.monotonic())
        if replaced is not None:
            replaced.append(late)
        elif look_again([late]):
            raise StaleFileError(str(path))
    return True


def look_again(replaced: list[Replaced]) -> list[Replaced]:
    """Once `SETTLE_SECONDS` have passed since the last of their renames, look at each file
    replaced: an editor's save that landed in one is put back (unless the editor saved again
    since). The files are closed; those put back are returned (their writes did not hold)."""
    if not replaced:
        return []
    time.sleep(max(0.0, replaced[-1].at + SETTLE_SECONDS - time.monotonic()))
    put_back = []
    try:
        for late in replaced:
            if _read_fd(late.fd) != late.expected:
                _put_back(late.path, _settled(late.fd), ours=late.ours)
                put_back.append(late)
    finally:
        for late in replaced:
            os.close(late.fd)
    return put_back


def _temp_copy(path: Path, data: bytes, mode: int) -> str:
    """A hidden, fsynced file beside `path` holding `data`, ready to be renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".vaultkit-tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, mode)
    return tmp


def _open_existing(path: Path) -> int | None:
    try:
        return os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None


def _read_fd(fd: int) -> bytes:
    chunks, offset = [], 0
    while chunk := os.pread(fd, 1 << 20, offset):
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def _settled(fd: int, tries: int = 50) -> bytes:
    """The content of `fd` once it stops changing (an editor may be mid-save)."""
    last = _read_fd(fd)
    for _ in range(tries):
        time.sleep(SETTLE_SECONDS)
        now = _read_fd(fd)
        if now == last:
            break
        last = now
    return last


def _put_back(path: Path, late: bytes, *, ours: bytes) -> None:
    """Restore an editor's save that landed in the file we replaced, unless newer bytes are there.

    It is a write like any other, so a save made while it is prepared is kept too."""
    try:
        write_bytes(path, late, expected=ours)
    except StaleFileError:
        pass  # the editor saved again since: that newer save stays


def _current(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
