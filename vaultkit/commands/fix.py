"""`vaultkit fix`: write what every file should be (`--diff`: print it; `--adopt`: take in the
examples drawings imply), from the same pass as `vaultkit check`."""

from __future__ import annotations

import contextlib
import difflib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections import Counter
from pathlib import Path

from vaultkit.commands.check import checked, print_report
from vaultkit.diagnostics import Diagnostic, Report, format_json, format_text
from vaultkit.model.layout import holds_site
from vaultkit.model.vault import SITE_DIR, UNREADABLE
from vaultkit.pipeline import FileChange
from vaultkit.state import VaultState
from vaultkit.writer import CHANGED_ON_DISK, LOOK_BATCH, StaleFileError, look_again, write_bytes


def fix(state: VaultState) -> tuple[Report, list[str], list[Diagnostic]]:
    """Write what the vault's files should be; the report of what is left, what was written, and
    the findings in the written files that the rewrite made go away (what fix did)."""
    before, changes = state.report()
    report = before
    written, refused = apply_changes(changes)
    if written:
        state.apply(written)
        report, _ = state.report()
    report.add(refused)
    report.finish()
    return report, written, mended(before.diagnostics, report.diagnostics, written)


def mended(before: list[Diagnostic], after: list[Diagnostic], written: list[str]) -> list[Diagnostic]:
    """The findings of `before` in the `written` files that `after` no longer has (by file, code
    and message: a fix may move lines below it, never a finding's words)."""
    left = Counter((d.path, d.code, d.message) for d in after)
    gone = []
    for diagnostic in sorted(d for d in before if d.path in set(written)):
        key = (diagnostic.path, diagnostic.code, diagnostic.message)
        if left[key]:
            left[key] -= 1
        else:
            gone.append(diagnostic)
    return gone


def unified_diff(change: FileChange) -> str:
    old = (change.old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = change.new.decode("utf-8", "replace").splitlines(keepends=True)
    label = change.rel
    return "".join(difflib.unified_diff(old, new, f"a/{label}", f"b/{label}"))


def apply_changes(changes: list[FileChange]) -> tuple[list[str], list[Diagnostic]]:
    """Write each change atomically; a file changed since it was read is left alone, and so is
    an editor's save that lands in a replaced file just after (looked for once per batch of
    `LOOK_BATCH` writes: at most that many replaced files are kept open)."""
    written, refused = [], []
    for start in range(0, len(changes), LOOK_BATCH):
        batch_written, batch_refused = _write_batch(changes[start : start + LOOK_BATCH])
        written += batch_written
        refused += batch_refused
    return written, refused


def _write_batch(changes: list[FileChange]) -> tuple[list[str], list[Diagnostic]]:
    done, refused, replaced = [], [], []
    try:
        for change in changes:
            try:
                if change.old is None:  # a figure drawn for the first time: its folder may be new too
                    change.path.parent.mkdir(parents=True, exist_ok=True)
                if write_bytes(change.path, change.new, expected=change.old, replaced=replaced):
                    done.append(change)
            except StaleFileError:
                refused.append(CHANGED_ON_DISK.at(change.rel, 1, 1))
            except OSError as exc:
                refused.append(UNREADABLE.at(change.rel, 1, 1, problem=f"cannot write: {exc.strerror}"))
    finally:
        put_back = {late.path for late in look_again(replaced)}
    refused += [CHANGED_ON_DISK.at(change.rel, 1, 1) for change in done if change.path in put_back]
    return [change.rel for change in done if change.path not in put_back], refused


def adopt_command(root: Path, *, quiet: bool = False) -> None:
    """Write the example each drawing implies into the note that embeds it (`fix --adopt`)."""
    changes = _adoptions(root)
    written, refused = apply_changes(changes)
    for diagnostic in refused:
        print(f"vaultkit: {diagnostic.path}: {diagnostic.message}", file=sys.stderr)
    if written and not quiet:
        print(f"Adopted examples into {', '.join(written)}.")


def _adoptions(root: Path) -> list[FileChange]:
    from vaultkit.commands.adopt import adoptions

    changes, skipped = adoptions(VaultState.load(root))
    for why in skipped:
        print(f"vaultkit: not adopted: {why}", file=sys.stderr)
    return changes


def _copy_vault(root: Path, to: Path) -> None:
    """What a check of the vault reads, copied for `fix --diff` to fix: hidden files but
    .obsidian/ and the built site are left out; files are hard-linked where the file system
    allows (`fix` replaces files, never edits them), special files become FIFOs and symlinks
    point where theirs do, so the copy is checked as the vault is."""
    root, never = Path(root), {SITE_DIR} if holds_site(root) else set()
    real = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        folder = Path(dirpath)
        top = folder == root
        dirnames[:] = [
            d
            for d in dirnames
            if not (d.startswith(".") and not (top and d == ".obsidian")) and not (top and d in never)
        ]
        (to / folder.relative_to(root)).mkdir(parents=True, exist_ok=True)
        links = [d for d in dirnames if (folder / d).is_symlink()]
        for name in [*(f for f in filenames if not f.startswith(".")), *links]:
            _copy_entry(folder / name, to / folder.relative_to(root) / name, real, to)


def _copy_entry(src: Path, dst: Path, real_root: Path, to: Path) -> None:
    if src.is_symlink():
        try:
            target = src.resolve(strict=True)
        except (OSError, RuntimeError):  # dangling or looping: the same in the copy
            os.symlink(os.readlink(src), dst)
            return
        inside = target.is_relative_to(real_root)
        os.symlink(os.path.relpath(to / target.relative_to(real_root), dst.parent) if inside else target, dst)
    elif not stat.S_ISREG(src.lstat().st_mode):  # a FIFO, socket or device: checked (VK002), never read
        os.mkfifo(dst)
    else:
        try:
            os.link(src, dst)
        except OSError:  # another file system, or not ours to link: a copy, else (unreadable) left out
            with contextlib.suppress(OSError):
                shutil.copy2(src, dst)


def _rewrite(copy: Path, changes: list[FileChange], before: dict[str, bytes | None]) -> None:
    """Write `changes` into the copy, noting each file's bytes before its first rewrite."""
    for change in changes:
        before.setdefault(change.rel, change.old)
        path = copy / change.rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)  # a hard link to the vault's file: replace it, never write through
        path.write_bytes(change.new)


def _names(rels: list[str]) -> str:
    return ", ".join(rels[:5]) + (f" and {len(rels) - 5} more" if len(rels) > 5 else "")


def _files(n: int) -> str:
    return f"{n} file{'s' * (n != 1)}"


def diff_command(root: Path, *, fmt: str = "text", adopt: bool = False) -> int:
    """`fix --diff` (and `--adopt`): the diff of what fix would write, then the diagnostics it
    would leave, found by fixing a scratch copy of the vault.

    In text the diff alone goes to stdout (a clean patch) and the diagnostics to stderr;
    json puts the diffs into the report object; github prints the annotations after the diff."""
    root = Path(root)
    with tempfile.TemporaryDirectory(prefix="vaultkit-diff-") as scratch:
        copy = Path(scratch) / "vault"
        _copy_vault(root, copy)
        before: dict[str, bytes | None] = {}
        if adopt:
            _rewrite(copy, _adoptions(copy), before)
        state = checked(copy)
        report, changes = state.report()
        _rewrite(copy, changes, before)
        if before:  # what is left once fix has written
            state.apply(before)
            report, _ = state.report()
        changes = [FileChange(rel, root / rel, old, (copy / rel).read_bytes()) for rel, old in before.items()]
    diffs = [unified_diff(change) for change in changes]
    if fmt == "json":
        data = json.loads(format_json(report))
        data["rewrites"] = [{"path": c.rel, "diff": d} for c, d in zip(changes, diffs)]
        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=1) + "\n")
        return 1 if changes or report.summary.errors else 0
    sys.stdout.writelines(diffs)
    out = sys.stderr if fmt == "text" else sys.stdout
    out.flush()
    if fmt == "github":
        print_report(report, fmt, root)
    else:
        out.write(format_text(report))
    rels = [c.rel for c in changes]
    if changes:
        left = "; the diagnostics above are what it leaves" if report.diagnostics else ""
        out.write(f"fix would rewrite {_files(len(rels))}: {_names(rels)}{left}.\n")
    elif report.summary.errors:
        out.write("Nothing for fix to rewrite; the errors above need editing by hand.\n")
    else:
        out.write("Nothing to rewrite.\n")
    return 1 if changes or report.summary.errors else 0


def fix_command(root: Path, *, diff: bool = False, fmt: str = "text", adopt: bool = False) -> int:
    if diff:
        return diff_command(root, fmt=fmt, adopt=adopt)
    if adopt:
        adopt_command(root, quiet=fmt != "text")
    report, written, fixed = fix(checked(root))
    print_report(report, fmt, root)
    if fmt == "text":
        for diagnostic in fixed:
            change = (
                f"{diagnostic.written} → {diagnostic.computed}"
                if diagnostic.written is not None
                else diagnostic.message
            )
            print(f"fixed {diagnostic.path}:{diagnostic.line}:{diagnostic.col}: {diagnostic.code} {change}")
        print(f"Fixed {_files(len(written))}{': ' + _names(written) if written else ''}.")
    return 1 if report.summary.errors else 0
