"""`vaultkit check` and `vaultkit fix`: compute what every file should be, then compare or write."""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import Path

from .claims import explained_totals
from .diagnostics import FORMATTERS, Diagnostic, Report, format_github, format_json, format_text
from .pipeline import FileChange, Pipeline
from .vault import Vault
from .writer import StaleFileError, write_bytes


def run(root: Path) -> tuple[Report, list[FileChange]]:
    pipeline = Pipeline(Vault.load(root))
    pipeline.compute_notes()  # all notes at once: paused GC, and the CPUs shared out
    return pipeline.report()


def _print(report: Report, fmt: str, root: Path) -> None:
    if fmt == "github":
        prefix = os.path.relpath(root.resolve(), Path.cwd())
        sys.stdout.write(format_github(report, prefix="" if prefix == "." else prefix))
    else:
        sys.stdout.write(FORMATTERS[fmt](report))


def check_command(root: Path, *, fmt: str = "text", explain: bool = False) -> int:
    report, _ = run(root)
    if explain:  # before the report; beside JSON or annotations it goes to stderr
        out = sys.stdout if fmt == "text" else sys.stderr
        for line in report.explained:
            print(line, file=out)
        read, skipped, other = explained_totals(report.explained)  # equal to the summary's claims
        print(f"{read} arithmetic claims read, {skipped} skipped; "
              f"{other} drawings and figures read", file=out)
    _print(report, fmt, root)
    return 1 if report.summary.errors else 0


def unified_diff(change: FileChange) -> str:
    old = (change.old or b"").decode("utf-8", "replace").splitlines(keepends=True)
    new = change.new.decode("utf-8", "replace").splitlines(keepends=True)
    label = change.rel
    return "".join(difflib.unified_diff(old, new, f"a/{label}", f"b/{label}"))


def apply_changes(changes: list[FileChange]) -> tuple[list[str], list[Diagnostic]]:
    """Write each change atomically; a file changed since it was read is left alone."""
    written, refused = [], []
    for change in changes:
        try:
            if change.old is None:  # a figure drawn for the first time: its folder may be new too
                change.path.parent.mkdir(parents=True, exist_ok=True)
            if write_bytes(change.path, change.new, expected=change.old):
                written.append(change.rel)
        except StaleFileError:
            refused.append(Diagnostic(change.rel, 1, 1, "VK004", "changed on disk while vaultkit ran; not overwritten, run fix again"))
        except OSError as exc:
            refused.append(Diagnostic(change.rel, 1, 1, "VK002", f"cannot write: {exc.strerror}"))
    return written, refused


def adopt_command(root: Path, *, diff: bool = False, quiet: bool = False) -> None:
    """Write the example each drawing implies into the note that embeds it (`fix --adopt`)."""
    from .adopt import adoptions

    changes, skipped = adoptions(Pipeline(Vault.load(root)))
    for why in skipped:
        print(f"vaultkit: not adopted: {why}", file=sys.stderr)
    if diff:
        for change in changes:
            sys.stdout.write(unified_diff(change))
        return
    written, refused = apply_changes(changes)
    for diagnostic in refused:
        print(f"vaultkit: {diagnostic.path}: {diagnostic.message}", file=sys.stderr)
    if written and not quiet:
        print(f"Adopted drawings into {', '.join(written)}.")


def _names(rels: list[str]) -> str:
    return ", ".join(rels[:5]) + (f" and {len(rels) - 5} more" if len(rels) > 5 else "")


def _files(n: int) -> str:
    return f"{n} file{'s' * (n != 1)}"


def diff_command(root: Path, *, fmt: str = "text") -> int:
    """`fix --diff`: the diff of what fix would write, then the diagnostics as they are now.

    In text the diff alone goes to stdout (a clean patch) and the diagnostics to stderr;
    json puts the diffs into the report object; github prints the annotations after the diff."""
    report, changes = run(root)
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
        _print(report, fmt, root)
    else:
        out.write(format_text(report))
    rels = [c.rel for c in changes]
    if changes:
        out.write(f"fix would rewrite {_files(len(rels))}: {_names(rels)}.\n")
    elif report.summary.errors:
        out.write("Nothing for fix to rewrite; the errors above need editing by hand.\n")
    else:
        out.write("Nothing to rewrite.\n")
    return 1 if changes or report.summary.errors else 0


def fix_command(root: Path, *, diff: bool = False, fmt: str = "text", adopt: bool = False) -> int:
    if adopt:
        adopt_command(root, diff=diff, quiet=fmt != "text")
    if diff:
        return diff_command(root, fmt=fmt)
    report, changes = run(root)
    written, refused = apply_changes(changes)
    if written:
        report, _ = run(root)  # what is left after fixing
    report.add(refused)
    report.finish()
    _print(report, fmt, root)
    if fmt == "text":
        print(f"Fixed {_files(len(written))}{': ' + _names(written) if written else ''}.")
    return 1 if report.summary.errors else 0
