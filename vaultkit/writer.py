"""Atomic, lossless writes.

A write happens only when the bytes change, never over a file that changed on disk since it
was read, and always as temp file + fsync + rename in the same folder, keeping the mode.

An editor that saves in place (open with truncate, write — as Obsidian does) between our last
look and the rename writes into the file we are replacing; so does one whose open looked the
name up just before the rename, a moment later. We keep that file open, and under a second
hidden name, across the rename, and look at it right after and again once `SETTLE_SECONDS`
have passed (once for a whole batch of writes): if it changed, it is renamed back, so the
note is the editor's own file again, with all it writes there; where the file system has no
hard links, the editor's bytes are copied back once they settle.
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
    kept: str | None  # its second name until it is looked at (None: the file system has no hard links)


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
    old = kept = None
    try:
        old = _open_existing(path)
        kept = None if old is None else _second_name(path, old)
        # Last look before the rename: an editor may have saved while we wrote.
        if (None if old is None else _read_fd(old)) != expected:
            raise StaleFileError(str(path))
        os.replace(tmp, path)
    except BaseException:
        if old is not None:
            os.close(old)
        _remove(kept)
        _remove(tmp)
        raise
    if old is None:
        _fsync_dir(path.parent)
        return True
    late = Replaced(path, old, expected, data, time.monotonic(), kept)
    if _read_fd(old) != expected:  # a save that came while we renamed: the editor's file is put back now
        _close([late], restore=True)
        raise StaleFileError(str(path))
    _fsync_dir(path.parent)
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
    put_back = [late for late in replaced if _read_fd(late.fd) != late.expected]
    try:
        _close(put_back, restore=True)
    finally:
        _close([late for late in replaced if late not in put_back], restore=False)
    return put_back


def _close(replaced: list[Replaced], restore: bool) -> None:
    """Done with the files `replaced`: each put back first when `restore` (an editor saved
    into it), then closed and its second name removed."""
    try:
        for late in replaced if restore else ():
            if late.kept is None:
                _put_back(late.path, _settled(late.fd), ours=late.ours)
            else:
                _rename_back(late)
    finally:
        for late in replaced:
            os.close(late.fd)
            _remove(late.kept)


def _rename_back(late: Replaced) -> None:
    """Make the replaced file, which an editor saved into, the note again under its name,
    unless the editor has saved since into what vaultkit wrote (that save is newer). If a save
    lands in vaultkit's file during the rename, that file is renamed back in turn."""
    ours = _open_existing(late.path)
    if ours is None:
        return
    try:
        if _read_fd(ours) != late.ours:
            return  # a newer save, through the name: it stays
        ours_kept = _second_name(late.path, ours)
        os.replace(late.kept, late.path)
        late.kept = None
        if ours_kept is not None and _read_fd(ours) != late.ours:
            os.replace(ours_kept, late.path)  # saved into while we renamed: that save is the newest
            ours_kept = None
        _remove(ours_kept)
        _fsync_dir(late.path.parent)
    except StaleFileError:
        pass  # the name is another file by now: a newer save, which stays
    finally:
        os.close(ours)


def _temp_copy(path: Path, data: bytes, mode: int) -> str:
    """A hidden, fsynced file beside `path` holding `data`, ready to be renamed over it."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".vaultkit-tmp", dir=path.parent)
    with os.fdopen(fd, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(tmp, mode)
    return tmp


def _second_name(path: Path, fd: int) -> str | None:
    """A hidden second name beside `path` for the file open as `fd`, or None (the file system
    has no hard links); StaleFileError when `path` names another file by now (an editor that
    saves by renaming saved meanwhile)."""
    for _ in range(8):
        name = str(path.parent / f".{path.name}.{os.urandom(4).hex()}.vaultkit-tmp")
        try:
            os.link(path, name)
        except FileExistsError:
            continue
        except OSError:
            return None
        if os.stat(name).st_ino != os.fstat(fd).st_ino:
            os.unlink(name)
            raise StaleFileError(str(path))
        return name
    return None


def _remove(name: str | None) -> None:
    if name is not None:
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass


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
