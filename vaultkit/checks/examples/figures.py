"""The `figure:` of an example: generate it, or check the numbers of a hand-drawn one."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from vaultkit import figures
from vaultkit.checks.drawings.handdrawn import check_handdrawn
from vaultkit.checks.drawings.inferred import infer, why_not
from vaultkit.checks.drawings.numbers import NumbersReport, check_numbers
from vaultkit.checks.examples.spec import MALFORMED, Example, ExampleError, Outcome
from vaultkit.diagnostics import ERROR, WARNING, Diagnostic, Rule
from vaultkit.model.vault import MAX_NOTE_BYTES, Source

FIGURE_STALE = Rule(
    "VK401",
    ERROR,
    "generated figure is stale or missing",
    "figure {figure} of example {example} {problem}",
    "The SVG an example draws is missing or no longer what it computes; `vaultkit fix` draws it.",
)
DRAWN_WRONG = Rule(
    "VK402",
    ERROR,
    "number in a hand-drawn figure is wrong",
    "{where} is {computed}; the drawing has written {written} ({origin})",
    "A number drawn in an SVG differs from what its inputs give; `vaultkit fix` rewrites just that text.",
)
DRAWN_UNCERTAIN = Rule(
    "VK403",
    WARNING,
    "numbers in a hand-drawn figure could not be matched with certainty",
    "{problem}",
    "vaultkit could not tell which drawn number is which; a data-vk attribute in the SVG settles it.",
)
FIGURE_OUTSIDE = Rule(
    "VK405",
    ERROR,
    "figure path is outside the vault",
    "example {example}: figure {figure!r} leaves the vault",
    "An example's `figure:` must be a path inside the vault; it is never written or read outside.",
)
FIGURE_NOT_SVG = Rule(
    "VK406",
    ERROR,
    "figure file is not valid SVG",
    "{problem}",
    "The figure file cannot be read as SVG text (not a file, too large, or not UTF-8).",
)


@dataclass
class FigureOutcome:
    rel: str  # vault-relative path of the SVG
    path: Path | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    old: bytes | None = None  # bytes on disk (None when absent)
    new: bytes | None = None  # bytes it should have (None when vaultkit cannot say)
    generated: bool = False
    implied: dict | None = None  # the example a drawing implies, when it reads with no doubt
    explained: str = ""  # one line for `check --explain`
    fixes: list[str] = field(default_factory=list)  # what the rewrite in `new` fixes: `scores[1]: 2 1 1 → 2 1 0`
    numbers: list = field(default_factory=list)  # an `--explain` entry per number of a drawing read (`numbers`)


def fixes_of(diagnostics: list[Diagnostic]) -> list[str]:
    """What a drawing's rewrite fixes, a line per wrong row or number: `scores[1]: 2 1 1 → 2 1 0`."""
    return [
        f"{d.message.split(' ', 1)[0]}: {d.written.strip('[]').strip()} → {d.computed.strip('[]').strip()}"
        for d in diagnostics
        if d.code == DRAWN_WRONG.code and d.written is not None and d.computed is not None
    ]


def figure_rel(example: Example) -> str | None:
    value = example.spec.get("figure")
    return None if value is None else str(value).strip()


def figure_spec(example: Example, outcome: Outcome) -> dict:
    """What a renderer needs to know about the example, inputs included (also when seeded)."""
    params = example.params if isinstance(example.params, dict) else {}
    inputs = {
        key: outcome.fields[key].tolist()
        for key in ("Q", "K", "V")
        if example.kind == "attention" and key in outcome.fields
    }
    return {
        **example.spec,
        **inputs,
        "tokens": params.get("tokens", []),
        "digits": example.digits,
        "mask": params.get("mask", "none"),
    }


def check_figure(example: Example, outcome: Outcome, vault) -> FigureOutcome:
    rel = figure_rel(example)
    at = (example.rel, example.line_of("figure"), 1)
    result = FigureOutcome(rel=rel or "", path=None, explained=f"figure of example {example.id}")
    clean = PurePosixPath(rel.lstrip("/")) if rel else None
    path = vault.inside(clean.as_posix()) if clean else None
    if not rel or clean.suffix.lower() != ".svg" or path is None or ".." in clean.parts:
        if path is None or ".." in (clean.parts if clean else ()):
            result.diagnostics.append(FIGURE_OUTSIDE.at(*at, example=example.id, figure=rel))
        else:
            problem = f"figure {rel!r} must be an .svg path inside the vault"
            result.diagnostics.append(MALFORMED.at(*at, example=example.id, problem=problem))
        return result
    result.rel, result.path = clean.as_posix(), path
    if path.exists() and (not path.is_file() or path.stat().st_size > MAX_NOTE_BYTES):
        what = "not a file" if not path.is_file() else f"over the {MAX_NOTE_BYTES} byte limit"
        result.diagnostics.append(FIGURE_NOT_SVG.at(*at, problem=f"example {example.id}: figure {rel!r} is {what}"))
        return result
    if path.exists():
        source = Source.read(path)
        result.old = source.raw
        if source.error:
            result.diagnostics.append(FIGURE_NOT_SVG.at(result.rel, 1, 1, problem=f"figure is {source.error}"))
            return result
        if not figures.is_generated(source.text):
            return _check_handdrawn(example, outcome, result, source)
        edited = figures.edited_by_hand(source.text)
    else:
        edited = False
    result.generated = True
    try:
        text = figures.render_figure(example.kind, figure_spec(example, outcome), outcome.result)
    except ValueError as exc:
        result.diagnostics.append(MALFORMED.at(*at, example=example.id, problem=str(exc)))
        return result
    result.new = text.encode("utf-8")
    if result.old is None:
        problem = "is missing; vaultkit fix draws it"
    elif edited:
        problem = (
            "was edited by hand (its data-vk-hash no longer matches); vaultkit fix redraws it: make the change"
            ' in the example, or remove data-vaultkit="generated" to keep the drawing as yours (its numbers are'
            " then checked)"
        )
    elif result.old != result.new:
        problem = "is stale; vaultkit fix redraws it"
    else:
        return result
    where = at if result.old is None else (result.rel, 1, 1)  # a missing figure: at the example's `figure:`
    result.diagnostics.append(FIGURE_STALE.at(*where, figure=result.rel, example=example.id, problem=problem))
    return result


def _check_handdrawn(example: Example, outcome: Outcome, result: FigureOutcome, source: Source) -> FigureOutcome:
    params = example.params if isinstance(example.params, dict) else {}
    report = check_handdrawn(source.text, outcome.quantities, digits=example.digits, tokens=params.get("tokens", []))
    result.diagnostics += finding_diagnostics(result.rel, report.findings, f"example {example.id}")
    result.new = source.encode(report.fixed_text)
    result.fixes = fixes_of(result.diagnostics) if result.new != result.old else []
    return result


def finding_diagnostics(rel: str, findings, origin: str, notes: dict | None = None) -> list[Diagnostic]:
    """One diagnostic per wrong matrix row (or worked number), one per uncertain matrix.

    `origin` says what the numbers were computed from; `notes` adds a remark to the rows of
    a quantity (e.g. what says the weights are masked)."""
    out, rows = [], {}
    for f in findings:
        if f.status != "wrong":
            problem = f"{f.written!r} could not be matched with certainty ({f.computed}; {origin}); pin it with a data-vk attribute"
            out.append(DRAWN_UNCERTAIN.at(rel, f.line, f.col, problem=problem))
        elif f.row[0]:
            rows.setdefault((f.quantity, f.index[0]), []).append(f)
        else:
            where = f"{f.quantity}{''.join(f'[{i}]' for i in f.index)}"
            out.append(
                DRAWN_WRONG.at(rel, f.line, f.col, where=where, origin=origin, written=f.written, computed=f.computed)
            )
    for (quantity, i), wrong in rows.items():
        drawn, computed = wrong[0].row
        count = len(drawn.strip("[]").split())
        note = (notes or {}).get(quantity, "")
        origin_of_row = f"{len(wrong)} of {count} wrong; {origin}{note}"
        at = (rel, wrong[0].line, wrong[0].col)
        out.append(
            DRAWN_WRONG.at(*at, where=f"{quantity}[{i}]", origin=origin_of_row, written=drawn, computed=computed)
        )
    return out


def check_drawing(rel: str, path: Path, source: Source, model) -> FigureOutcome | None:
    """A drawing no block names, checked against the example it implies (None: it implies none)."""
    from vaultkit.checks.examples.kinds import attention

    derivation = infer(model, rel)
    numbers = check_numbers(model, rel, derivation.spec if derivation else None)
    if derivation is None:
        return _numbers_only(rel, path, source, numbers) if numbers.read else None
    result = FigureOutcome(rel=rel, path=path, old=source.raw, explained="example read from the drawing")
    result.numbers = numbers.explained
    result.diagnostics += numbers.diagnostics
    for doubt in derivation.doubts:
        line, col = model.where(doubt.offset)
        problem = f"drawing not checked in full: {doubt.reason}; settle it with {doubt.pin}"
        result.diagnostics.append(DRAWN_UNCERTAIN.at(rel, line, col, problem=problem))
    if not derivation.spec:
        result.explained += f", not checked: {'; '.join(d.reason for d in derivation.doubts)}"
        return _with_numbers_fixed(result, source, source.text, numbers, rel)
    spec = derivation.spec
    try:
        run = attention.run(attention.parse(spec))
    except (ExampleError, ValueError) as exc:
        problem = f"the drawing's Q and K cannot be run: {getattr(exc, 'message', exc)}"
        result.diagnostics.append(DRAWN_UNCERTAIN.at(rel, 1, 1, problem=problem))
        return result
    report = check_handdrawn(
        model, run.quantities, digits=spec["digits"], tokens=spec.get("tokens", []), skip=derivation.skip
    )
    if not derivation.doubts:
        result.implied = spec
    said = derivation.mask_reason
    notes = {q: f"; {said}" for q in ("weights", "output")} if said else {}
    result.diagnostics += finding_diagnostics(rel, report.findings, "computed from the drawing's own Q and K", notes)
    q, k = spec["Q"], spec["K"]
    read = [
        f"Q {len(q)}×{len(q[0])}",
        f"K {len(k)}×{len(k[0])}",
        f"mask {spec.get('mask', 'not read')}",
        f"scale {spec.get('scale', '1/√d')}",
        f"{report.checked} numbers checked",
        f"{sum(d.code == DRAWN_WRONG.code for d in result.diagnostics)} wrong rows or numbers",
    ]
    result.explained += ": " + ", ".join(read) + "".join(f"; doubt: {d.reason}" for d in derivation.doubts)
    result.explained += f"; {_numbers_line(numbers)}" if numbers.explained else ""
    result.fixes = fixes_of(result.diagnostics) if report.fixed_text != source.text else []
    return _with_numbers_fixed(result, source, report.fixed_text, numbers, rel, derivation.spec)


def _numbers_line(numbers: NumbersReport) -> str:
    return f"{numbers.read} stated numbers checked, {len(numbers.diagnostics)} wrong"


def _numbers_only(rel: str, path: Path, source: Source, numbers: NumbersReport) -> FigureOutcome:
    """A drawing with no matrices to compute, whose stated numbers were read (`drawings.numbers`)."""
    result = FigureOutcome(
        rel=rel, path=path, old=source.raw, explained=f"numbers read from the drawing: {_numbers_line(numbers)}"
    )
    result.numbers = numbers.explained
    result.diagnostics += numbers.diagnostics
    return _with_numbers_fixed(result, source, source.text, numbers, rel)


def _with_numbers_fixed(
    result: FigureOutcome, source: Source, text: str, numbers: NumbersReport, rel: str, drawn: dict | None = None
) -> FigureOutcome:
    """`result` with `new`: `text` (the drawing with its matrices fixed) with the stated numbers
    that are determined rewritten too (read again from `text` when the matrices changed it)."""
    if numbers.edits and text != source.text:
        from vaultkit.readers.svgtext import read_svg

        again = read_svg(text)
        numbers = check_numbers(again, rel, drawn) if again is not None else NumbersReport()
    result.new = source.encode(numbers.fixed(text))
    result.fixes = result.fixes + numbers.fixes
    return result


def explain_svg(model) -> str:
    """Why an SVG that no example names is not checked as a derivation (for `check --explain`)."""
    if model is None:
        return "not well-formed XML"
    if figures.is_generated(model.source):
        return "generated by vaultkit for an example that is gone"
    return why_not(model)
