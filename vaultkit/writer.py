"""Atomic, lossless writes.

A write happens only when the bytes change, never over a file that changed on disk since it
was read, and always as temp file + fsync + rename in the same folder, keeping the mode.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class StaleFileError(Exception):
    """The file on disk is no longer what was read; writing would lose someone's edit."""


def write_bytes(path: Path, data: bytes, *, expected: bytes | None) -> bool:
    """Replace `path` with `data` atomically; return whether anything was written.

    `expected` is the content the caller read (None for a file the caller creates).
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
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".vaultkit-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, mode)
        # Last look before the rename: an editor may have saved while we wrote.
        if _current(path) != expected:
            raise StaleFileError(str(path))
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_dir(path.parent)
    return True


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
