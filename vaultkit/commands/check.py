"""`vaultkit check`: compute what every file should be, and compare (`fix.py` writes it)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection
from pathlib import Path

from vaultkit.commands.usage import UsageError
from vaultkit.diagnostics import FORMATTERS, Report, format_github
from vaultkit.explain import DRAWING_NUMBER, SVG_NOT_READ, WALKTHROUGH, statements, totals
from vaultkit.pipeline import FileChange
from vaultkit.renderers import report_note
from vaultkit.state import VaultState
from vaultkit.writer import StaleFileError


def checked(root: Path, meanwhile: Collection[Callable[[], object]] = (), fresh_outlines: bool = False) -> VaultState:
    """The state of the vault at `root` with every note checked; the calls `meanwhile` are
    made by this process while its workers check the notes; `fresh_outlines` as `Pipeline`'s."""
    state = VaultState.load(root, fresh_outlines)
    state.compute_notes(meanwhile=meanwhile)  # all notes at once: paused GC, and the CPUs shared out
    return state


def run(root: Path) -> tuple[Report, list[FileChange]]:
    return checked(root).report()


def print_report(report: Report, fmt: str, root: Path) -> None:
    if fmt == "github":
        prefix = os.path.relpath(root.resolve(), Path.cwd())
        sys.stdout.write(format_github(report, prefix="" if prefix == "." else prefix))
    else:
        sys.stdout.write(FORMATTERS[fmt](report))


def check_command(root: Path, *, fmt: str = "text", explain: bool = False, report_note: str | None = None) -> int:
    """`report_note`: also write the findings into that note of the vault ("": its default name)."""
    state = checked(root)
    report, _ = state.report()
    if report_note is not None:
        write_report_note(state.vault, report_note, report)
    if explain:  # before the report; beside JSON or annotations it goes to stderr
        out = sys.stdout if fmt == "text" else sys.stderr
        for entry in report.explained:
            print(entry, file=out)
        read, skipped, other = totals(report.explained)
        kinds = [entry.kind for entry in report.explained]
        unread = kinds.count(SVG_NOT_READ)  # SVGs that are no derivation, each with why
        walks = kinds.count(WALKTHROUGH)
        said, unsaid = statements(report.explained)  # the summary counts them as claims
        stated = kinds.count(DRAWING_NUMBER)  # the numbers drawings state, each with what it was checked against
        print(
            f"{read} arithmetic claims read, {skipped} skipped; "
            f"{other - walks - unread - stated} drawings and figures read"
            + (f" ({stated} numbers they state)" if stated else "")
            + (f", {unread} other SVGs not read" if unread else "")
            + (f"; {walks} walkthrough parts read ({said} statements, {unsaid} skipped)" if walks else ""),
            file=out,
        )
    print_report(report, fmt, root)
    return 1 if report.summary.errors else 0


def write_report_note(vault, written: str, report: Report) -> None:
    """Write the report note (`--report`), saying so on stderr; a UsageError when it cannot be."""
    try:
        rel = report_note.note_rel(vault, written)
        rewritten = report_note.update(vault, rel, report)
    except (ValueError, report_note.NotAReportNote) as exc:
        raise UsageError(str(exc)) from None
    except StaleFileError:
        raise UsageError(f"{written} changed while vaultkit wrote it; not overwritten") from None
    except OSError as exc:
        raise UsageError(f"cannot write the report note: {exc.strerror}") from None
    print(f"vaultkit: {'wrote' if rewritten else 'unchanged'} {rel}", file=sys.stderr)
