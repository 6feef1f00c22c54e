"""Diagnostics: `path:line:col: VKnnn severity: message`, grouped by note, plus a summary.

A diagnostic is made from the rule it reports (`RULE.at(path, line, col, **values)`); the
rules are declared next to their checks and listed, by family, in `vaultkit.rules`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vaultkit.explain import Explained

ERROR = "error"
WARNING = "warning"


@dataclass(frozen=True)
class Rule:
    """A diagnostic code, declared once next to the check that emits it; `vaultkit.rules` lists them all."""

    code: str
    severity: str  # ERROR or WARNING
    title: str  # what the code means, as the codes page lists it
    message: str  # the message's form: a format string of the named values `at` is given
    doc: str  # what it is about and what to do

    def at(self, path: str, line: int, col: int, /, *, written=None, computed=None, **values) -> Diagnostic:
        """The diagnostic of this rule at a position; `written`/`computed` may appear in the message."""
        message = self.message.format(written=written, computed=computed, **values)
        return Diagnostic(path, line, col, self.code, message, self.severity, written, computed)


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str  # relative to the vault, with forward slashes
    line: int  # 1-based
    col: int  # 1-based
    code: str
    message: str
    severity: str  # ERROR or WARNING, the rule's
    written: str | None = None
    computed: str | None = None

    def to_json(self) -> dict:
        data = {
            "path": self.path,
            "line": self.line,
            "col": self.col,
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
        }
        if self.written is not None:
            data["written"] = self.written
        if self.computed is not None:
            data["computed"] = self.computed
        return data


@dataclass
class Summary:
    """What a run found and verified."""

    notes: int = 0
    links: int = 0
    examples: int = 0
    values: int = 0
    claims: int = 0
    figures: int = 0
    skipped_claims: int = 0
    errors: int = 0
    warnings: int = 0

    def to_json(self) -> dict:
        return {
            "notes": self.notes,
            "links": self.links,
            "examples": self.examples,
            "values": self.values,
            "claims": self.claims,
            "figures": self.figures,
            "errors": self.errors,
            "warnings": self.warnings,
            "skipped_claims": self.skipped_claims,
        }

    def line(self) -> str:
        verified = (
            f"{_count(self.notes, 'note')}, {_count(self.links, 'link')}, {_count(self.examples, 'example')}, "
            f"{_count(self.values, 'inline value')}, {_count(self.claims, 'claim')} "
            f"({self.skipped_claims} skipped), {_count(self.figures, 'figure')}"
        )
        nothing = self.links + self.examples + self.values + self.claims + self.figures == 0
        verdict = f"{_count(self.errors, 'error')}, {_count(self.warnings, 'warning')}"
        if nothing:
            return f"Checked {verified}: nothing was verified. {verdict}."
        return f"Checked {verified}. {verdict}."


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"


@dataclass
class Report:
    summary: Summary = field(default_factory=Summary)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    explained: list[Explained] = field(default_factory=list)  # `check --explain`: what was read, and how it fared

    def add(self, diags) -> None:
        self.diagnostics.extend(diags)

    def finish(self) -> None:
        """Sort diagnostics by note, then position, and count them."""
        self.diagnostics = sorted(set(self.diagnostics))
        self.summary.errors = sum(d.severity == ERROR for d in self.diagnostics)
        self.summary.warnings = sum(d.severity == WARNING for d in self.diagnostics)


def text_line(d: Diagnostic) -> str:
    """`path:line:col: CODE severity: message`, as `check` prints it (an editor's problem matcher:
    `^(.+):(\\d+):(\\d+): (VK\\d{3}) (error|warning): (.*)$`)."""
    return f"{d.path}:{d.line}:{d.col}: {d.code} {d.severity}: {_full_message(d)}"


def _full_message(d: Diagnostic) -> str:
    """The message, with the written and computed values when it does not say them."""
    if d.written is not None and d.computed is not None and "written" not in d.message:
        return f"{d.message} (written {d.written}, computed {d.computed})"
    return d.message


def format_text(report: Report) -> str:
    out = [text_line(d) for d in report.diagnostics]
    out.append(report.summary.line())
    return "\n".join(out) + "\n"


def format_json(report: Report) -> str:
    import json  # imported here: only the json format needs it

    data = {
        "summary": report.summary.to_json(),
        "diagnostics": [d.to_json() for d in report.diagnostics],
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def _escape_github(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def format_github(report: Report, *, prefix: str = "") -> str:
    """GitHub Actions workflow commands; `prefix` is the vault path from the repo root."""
    out = []
    for d in report.diagnostics:
        level = "error" if d.severity == ERROR else "warning"
        path = f"{prefix.rstrip('/')}/{d.path}" if prefix else d.path
        message = _full_message(d)
        out.append(
            f"::{level} file={_escape_github(path, prop=True)},line={d.line},col={d.col},"
            f"title={d.code}::{_escape_github(d.code + ' ' + message)}"
        )
    out.append(report.summary.line())
    return "\n".join(out) + "\n"


FORMATTERS = {"text": format_text, "json": format_json, "github": format_github}
