"""One pass over a vault: every check, and the text every file should have.

`Pipeline(vault)` reads and runs all examples once; `note(rel)` gives a note's fresh text and
its diagnostics; `report()` gives the whole report and the file changes `fix` would write.
Check and fix share this code: check compares, fix writes, `--diff` prints.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from vaultkit.checks import claims, textmatrices, walkthrough
from vaultkit.checks.examples import ExampleRunner, NoteOutcome
from vaultkit.checks.links import check_links, fix_links
from vaultkit.diagnostics import Diagnostic, Report, Summary
from vaultkit.explain import DRAWING, SVG_NOT_READ, Explained, matrix_rows
from vaultkit.model import links
from vaultkit.model.vault import MAX_NOTE_BYTES, TOO_LARGE, Note, Source, Vault
from vaultkit.readers.markdown import parse
from vaultkit.readers.syntax.headings import Section, sections
from vaultkit.readers.syntax.tags import inline_tags
from vaultkit.workers import collector, cpu_count, fork_map, usable_jobs

if TYPE_CHECKING:
    from vaultkit.checks.examples.figures import FigureOutcome
    from vaultkit.readers.svgtext import SvgText

CHARS_PER_JOB = 250_000  # below this much note text per worker, forking costs more than it saves


@dataclass
class FileChange:
    rel: str
    path: Path
    old: bytes | None  # what was read (None: the file is new)
    new: bytes


@dataclass
class NoteResult:
    text: str
    diagnostics: list[Diagnostic]
    links: int
    values: int
    claims: int
    skipped_claims: int
    explained: tuple[Explained, ...] = ()  # each claim read or skipped, for `check --explain`
    # The inline `#tags` (the site's tags index) and the headings (the anchors of links to them)
    # of `text`, the note as fix leaves it; None when the pipeline was not asked to read them
    # (`fresh_outlines`: the site needs them, check and fix do not).
    tags: tuple | None = ()
    outline: tuple[Section, ...] | None = ()


class Pipeline:
    def __init__(self, vault: Vault, runner: ExampleRunner | None = None, fresh_outlines: bool = False):
        """`fresh_outlines`: read the tags and headings of the text fix would write with each
        note (the site needs them; check and fix do not)."""
        self.vault = vault
        self.fresh_outlines = fresh_outlines
        self.runner = runner or ExampleRunner()
        self.example_diagnostics = self.runner.collect(vault.readable_notes)
        self.index = links.LinkIndex(vault, generated=self.runner.figure_paths())
        self._notes: dict[str, NoteResult] = {}
        self._texts: dict[str, str] = {}  # fresh texts computed for the site alone
        self._fresh_tokens: dict[str, list] = {}  # a changed note's fresh parse, until `then` has run
        self._figures: dict[tuple[str, str], FigureOutcome | None] = {}  # ("example", id) or ("drawing", rel)
        self._svgs: dict[str, tuple[Source, SvgText | None] | None] = {}
        self._svg_claims: dict[str, claims.ClaimReport] = {}

    def note(self, rel: str) -> NoteResult:
        """Diagnostics of one note and the text it should have (cached)."""
        if rel not in self._notes:
            self._notes[rel] = self._process(self.vault.notes[rel])
        return self._notes[rel]

    def pending(self) -> list[str]:
        """The readable notes whose result is not computed yet."""
        return [note.rel for note in self.vault.readable_notes if note.rel not in self._notes]

    def compute_notes(
        self,
        jobs: int | None = None,
        then: Callable[[str], None] | None = None,
        meanwhile: Collection[Callable[[], object]] = (),
    ) -> None:
        """Compute every readable note's result now, for a one-shot command (check, fix, build);
        `then(rel)`, when given, runs right after each note, where it was computed and while its
        tokens are still there (the site drafts each page so); the calls `meanwhile` are made in
        this process while its workers run, else after the notes.

        The cyclic garbage collector is paused meanwhile: it would scan the kept tokens of
        every note again and again, and the work makes almost no cycles. With `jobs` > 1,
        this process and `jobs` - 1 forked workers share the notes, a worker parsing its own
        and sending back only results (None: one per CPU and per `CHARS_PER_JOB` of notes). A
        process that runs threads (the watcher, the server) is never forked: that is unsafe,
        so it computes the notes itself."""
        pending = self.pending()
        chars = sum(len(self.vault.notes[rel].text) for rel in pending)
        if jobs is None:
            jobs = min(cpu_count(), 1 + chars // CHARS_PER_JOB)
        jobs = usable_jobs(jobs)
        with collector(enabled=False):
            if jobs > 1 and len(pending) > 1:
                self._compute_forked(pending, jobs, then, meanwhile)
            else:
                for rel in pending:
                    self.note(rel)
                    if then is not None:
                        then(rel)
                    self._fresh_tokens.pop(rel, None)
                for call in meanwhile:
                    call()

    def _compute_forked(
        self, pending: list[str], jobs: int, then: Callable[[str], None] | None, calls: Collection[Callable[[], object]]
    ) -> None:
        """Compute the notes `pending` in `jobs` processes (`workers.fork_map`): forked
        workers, each parsing its notes and sending back only their results, and this one,
        which checks the SVGs and makes the `calls` first, then takes notes as they do."""
        from vaultkit.readers import markdown  # noqa: F401  (the parser, made once for every worker)

        pending = sorted(pending, key=lambda rel: -len(self.vault.notes[rel].text))  # largest first: even shares
        drawn = set(self.runner.figure_paths())  # the examples' figures: checked with their examples
        svgs = [rel for rel in self.vault.attachments if rel.lower().endswith(".svg") and rel not in drawn]
        meanwhile = [*calls, *(partial(self._check_svg, rel) for rel in svgs)]  # this process's share
        for rel, (result, unchanged, derived) in fork_map(
            partial(self._shared_note, then), pending, jobs, meanwhile=meanwhile
        ):
            note = self.vault.notes[rel]
            if unchanged:
                result.text = note.text
            self._notes[rel] = result
            for key, value in derived.items():
                note.derived.setdefault(key, value)

    def _shared_note(self, then: Callable[[str], None] | None, rel: str) -> tuple[NoteResult, bool, dict]:
        """A note's result as a worker sends it back (this process, working too, takes it the
        same way), whether its text is the note's own, and what was read off its tokens (its
        `derived`: its links, what `then` read), `then(rel)` run, its tokens freed once done
        (memory stays bounded on large vaults). An unchanged text is not sent: it is most of a
        result's bytes, and the parent has it."""
        result = self.note(rel)
        if then is not None:
            then(rel)
        self._fresh_tokens.pop(rel, None)
        note = self.vault.notes[rel]
        note.release_tokens()
        if result.text == note.text:
            return replace(result, text=""), True, note.derived
        return result, False, note.derived

    def _check_svg(self, rel: str) -> None:
        """Check an SVG attachment ahead of the report: its claims, and it as a drawing."""
        self.attachment_claims(rel)
        self.kept_drawing(rel)

    def _process(self, note: Note) -> NoteResult:
        link_diags, link_count = check_links(note, self.index)
        text = fix_links(note.text, note, self.index)
        outcome: NoteOutcome = self.runner.process(note.rel, text, note.tokens)
        claim_report = claims.check_markdown(note.text, note.rel)
        worked = textmatrices.check_markdown(note.text, note.tokens, note.rel)  # rows count as claims
        walk = walkthrough.check_markdown(note.text, note.tokens, note.rel)  # so do a walkthrough's statements
        text = walkthrough.fixed(note.text, outcome.text, walk.fixes)  # its wrong mask rows rewritten
        links.extract_links(note)  # kept in its `derived`, which a worker sends back
        links.markdown_links(note)
        fresh = (note.tokens if text == note.text else parse(text)) if self.fresh_outlines else None
        if fresh is not None and fresh is not note.tokens:
            self._fresh_tokens[note.rel] = fresh
        return NoteResult(
            text=text,
            diagnostics=link_diags
            + outcome.diagnostics
            + claim_report.diagnostics
            + worked.diagnostics
            + walk.diagnostics,
            links=link_count,
            values=outcome.values,
            claims=claim_report.verified + worked.verified + walk.verified,
            skipped_claims=claim_report.skipped + worked.skipped + walk.skipped,
            explained=_explained(claim_report, note, worked) + tuple(walk.explained),
            tags=None if fresh is None else tuple(inline_tags(fresh)),
            outline=None if fresh is None else tuple(sections(fresh)),
        )

    def fresh_tokens(self, rel: str) -> list:
        """The tokens of the note as `fix` would leave it, when that differs from its text: the
        parse its check made (`fresh_outlines`), while `then` runs; else parsed now."""
        return self._fresh_tokens.pop(rel, None) or parse(self.fresh_text(rel))

    def fresh_text(self, rel: str) -> str:
        """The note as `fix` would leave it (no claims check: the site needs only the text)."""
        if rel in self._notes:
            return self._notes[rel].text
        if rel not in self._texts:
            note = self.vault.notes[rel]
            text = self.runner.process(note.rel, fix_links(note.text, note, self.index), note.tokens).text
            fixes = walkthrough.check_markdown(note.text, note.tokens, note.rel).fixes
            self._texts[rel] = walkthrough.fixed(note.text, text, fixes)
        return self._texts[rel]

    def figures(self) -> list[FigureOutcome]:
        """Figures of examples (generated or hand-drawn), then drawings no example names that
        imply an example of their own (their Q and K drawn); each checked once and kept."""
        found = []
        if self.runner.outcomes:  # imported only then: the renderers need numpy
            from vaultkit.checks.examples.figures import check_figure, figure_rel

            for example in self.runner.examples.values():
                if figure_rel(example) is not None and example.id in self.runner.outcomes:
                    key = ("example", example.id)
                    if key not in self._figures:
                        self._figures[key] = check_figure(example, self.runner.outcomes[example.id], self.vault)
                    found.append(self._figures[key])
        named = {f.rel for f in found}
        for rel in self.vault.attachments:
            if rel not in named and (drawing := self.kept_drawing(rel)) is not None:
                found.append(drawing)
        return found

    def kept_drawing(self, rel: str) -> FigureOutcome | None:
        """`drawing(rel)`, checked once and kept."""
        key = ("drawing", rel)
        if key not in self._figures:
            self._figures[key] = self.drawing(rel)
        return self._figures[key]

    def svg(self, rel: str) -> tuple[Source, SvgText | None] | None:
        """An SVG attachment read once, with its text model (None: not an SVG we read)."""
        if rel not in self._svgs:
            from vaultkit.readers.svgtext import read_svg  # imported here: only a vault with SVGs needs it

            path = self.vault.root / rel
            readable = rel.lower().endswith(".svg") and path.is_file() and path.stat().st_size <= MAX_NOTE_BYTES
            source = Source.read(path) if readable else None
            self._svgs[rel] = None if source is None or source.error else (source, read_svg(source.text))
        return self._svgs[rel]

    def drawing(self, rel: str) -> FigureOutcome | None:
        """The check of a drawing that shows its own Q and K, or None."""
        read = self.svg(rel)
        if read is None or read[1] is None:
            return None
        from vaultkit.checks.examples.figures import check_drawing  # imported here: they need numpy
        from vaultkit.figures import is_generated

        if is_generated(read[0].text):
            return None
        return check_drawing(rel, self.vault.root / rel, *read)

    def fresh_figures(self) -> dict[str, str]:
        """Vault-relative path → fresh SVG text of every example figure vaultkit can compute."""
        return {f.rel: f.new.decode("utf-8") for f in self.figures() if f.new is not None}

    def report(self, rels: Collection[str] | None = None) -> tuple[Report, list[FileChange]]:
        """The report and the file changes of the whole vault, or of the notes, figures and
        attachments `rels` alone (each counted as the whole report counts it)."""

        def wanted(rel: str) -> bool:
            return rels is None or rel in rels

        report = Report()
        report.add(d for d in self.vault.diagnostics if wanted(d.path))
        report.add(d for d in self.example_diagnostics if wanted(d.path))
        changes = []
        summary = report.summary
        notes = self.vault.notes
        for note in self.vault.readable_notes if rels is None else [notes[r] for r in sorted(rels) if r in notes]:
            if not note.checked:
                continue
            result = self.note(note.rel)
            count_note(summary, result)
            report.add(result.diagnostics)
            report.explained += result.explained
            if result.text != note.text:
                changes.append(FileChange(note.rel, note.path, note.source.raw, note.source.encode(result.text)))
        summary.examples = len(self.runner.outcomes)
        figures = self.figures()
        taken = set()  # (path, line) of the arithmetic a drawing check reports: its claims' finding is that one
        for fig in figures:
            if not wanted(fig.rel):
                continue
            summary.figures += 1
            report.add(fig.diagnostics)
            taken |= {(d.path, d.line) for d in fig.diagnostics if d.code == drawn_arithmetic()}
            verdict = (
                "error"
                if any(d.severity == "error" for d in fig.diagnostics)
                else "warning"
                if fig.diagnostics
                else "ok"
            )
            report.explained.append(Explained(fig.rel, 1, verdict, fig.explained, kind=DRAWING))
            report.explained += fig.numbers
            if fig.new is not None and fig.new != fig.old:
                changes.append(FileChange(fig.rel, fig.path, fig.old, fig.new))
        attachments = [rel for rel in self.vault.attachments if wanted(rel)]
        report.explained += self._unread_svgs(attachments, {fig.rel for fig in figures})
        for rel in attachments:
            svg_claims = self.attachment_claims(rel)
            report.add(d for d in svg_claims.diagnostics if (d.path, d.line) not in taken)
            report.explained += svg_claims.explained
            summary.claims += svg_claims.verified
            summary.skipped_claims += svg_claims.skipped
        report.finish()
        return report, changes

    def _unread_svgs(self, attachments: list[str], read: set[str]) -> list[Explained]:
        """An `--explain` entry for every SVG of `attachments` not checked as a figure: why not."""
        unread = [rel for rel in attachments if rel not in read and rel.lower().endswith(".svg")]
        if not unread:
            return []  # and the figure checks, with numpy, are never imported
        from vaultkit.checks.examples.figures import explain_svg

        lines = []
        for rel in unread:
            svg = self.svg(rel)
            why = explain_svg(svg[1]) if svg is not None else "not readable"
            lines.append(Explained(rel, 1, "", why, kind=SVG_NOT_READ))
        return lines

    def attachment_claims(self, rel: str) -> claims.ClaimReport:
        """The arithmetic claims drawn in an SVG attachment (an oversized one is refused: VK003)."""
        if rel not in self._svg_claims:
            self._svg_claims[rel] = self._check_attachment(rel)
        return self._svg_claims[rel]

    def _check_attachment(self, rel: str) -> claims.ClaimReport:
        path = self.vault.root / rel
        if not rel.lower().endswith(".svg") or not path.is_file():
            return claims.ClaimReport()
        if path.stat().st_size > MAX_NOTE_BYTES:
            return claims.ClaimReport(
                [TOO_LARGE.at(rel, 1, 1, what="SVG", limit=MAX_NOTE_BYTES, outcome="its numbers are not checked")]
            )
        read = self.svg(rel)
        if read is None or read[1] is None:
            return claims.ClaimReport()
        return claims.check_svg(read[1], rel)


def drawn_arithmetic() -> str:
    """The code of a drawing's wrong arithmetic (imported here: only a vault with figures needs it)."""
    from vaultkit.checks.drawings.numbers import ARITHMETIC_WRONG

    return ARITHMETIC_WRONG.code


def _explained(claim_report: claims.ClaimReport, note: Note, worked) -> tuple[Explained, ...]:
    """`--explain` for a note: its claims, and the text-matrix rows its check counts as claims."""
    entries = list(claim_report.explained)
    if worked.verified or worked.skipped:
        sections = textmatrices.read_sections(note.text, note.tokens)
        line = min((m.line for section in sections for m in section.matrices), default=1)
        entries.append(matrix_rows(note.rel, line, worked.verified, worked.skipped))
        entries.sort(key=lambda entry: entry.line)
    return tuple(entries)


def count_note(summary: Summary, result: NoteResult) -> None:
    """Add what one note's check verified to a run's summary."""
    summary.notes += 1
    summary.links += result.links
    summary.values += result.values
    summary.claims += result.claims
    summary.skipped_claims += result.skipped_claims
