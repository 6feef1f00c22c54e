"""Diagnostics: `path:line:col: VKnnn message`, grouped by note, plus a summary.

Codes are grouped by family, like ruff's:

    VK0xx  files and front matter
    VK1xx  executable examples
    VK2xx  inline values
    VK3xx  arithmetic claims
    VK4xx  figures
    VK5xx  links and embeds
    VK6xx  site
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .explain import Explained

ERROR = "error"
WARNING = "warning"

# code -> (default severity, short title). The title documents the code; the
# message of each diagnostic says what exactly is wrong.
CODES: dict[str, tuple[str, str]] = {
    # files and front matter
    "VK001": (ERROR, "file is not valid UTF-8"),
    "VK002": (ERROR, "file is binary (NUL bytes) or unreadable"),
    "VK003": (ERROR, "file is too large to process"),
    "VK004": (ERROR, "file changed on disk since it was read; not overwritten"),
    "VK005": (WARNING, "path leaves the vault or is a symlink out of it; not followed"),
    "VK006": (WARNING, "file names differ only by case"),
    "VK010": (ERROR, "front matter is not valid YAML"),
    "VK011": (ERROR, "front matter is not a mapping"),
    "VK012": (WARNING, "front matter field has an unexpected type"),
    "VK013": (WARNING, "Obsidian settings in .obsidian/ cannot be read"),
    # examples
    "VK101": (ERROR, "generated region is stale or was edited by hand"),
    "VK102": (ERROR, "generated region is missing"),
    "VK104": (ERROR, "generated region has no matching example"),
    "VK110": (ERROR, "example is not valid YAML"),
    "VK111": (ERROR, "example kind is unknown"),
    "VK112": (ERROR, "example has an unknown key"),
    "VK113": (ERROR, "example is missing a required key"),
    "VK114": (ERROR, "example value is malformed"),
    "VK115": (ERROR, "example shapes do not match"),
    "VK116": (ERROR, "example is over the size limit"),
    "VK117": (ERROR, "example id is duplicated"),
    "VK118": (ERROR, "example failed to compute"),
    # inline values
    "VK201": (ERROR, "inline value is wrong"),
    "VK202": (ERROR, "inline value names an unknown example"),
    "VK203": (ERROR, "inline value path is invalid"),
    "VK204": (ERROR, "inline value is not a number"),
    # arithmetic claims
    "VK301": (ERROR, "arithmetic claim is wrong"),
    "VK302": (WARNING, "arithmetic claim is imprecise"),
    "VK303": (ERROR, "matrix shapes do not match"),
    # figures
    "VK401": (ERROR, "generated figure is stale or missing"),
    "VK402": (ERROR, "number in a hand-drawn figure is wrong"),
    "VK403": (WARNING, "numbers in a hand-drawn figure could not be matched with certainty"),
    "VK404": (ERROR, "figure file is missing"),
    "VK405": (ERROR, "figure path is outside the vault"),
    "VK406": (ERROR, "figure file is not valid SVG"),
    "VK420": (ERROR, "weights row of a worked text matrix does not sum to 1"),
    "VK421": (ERROR, "number of a worked text matrix does not follow from the matrices above it"),
    "VK422": (WARNING, "illustrative worked text matrix: its numbers are not the real ones"),
    "VK423": (WARNING, "worked text matrix could not be read with certainty; not compared"),
    "VK430": (ERROR, "walkthrough step matches keys other than those up to its own (causal)"),
    "VK431": (ERROR, "stated weights of a walkthrough step do not sum to 100 % or miss a matched position"),
    "VK432": (ERROR, "values mixed in a walkthrough step are not the weighted ones"),
    "VK433": (
        ERROR,
        "cached or computed K/V of a walkthrough step are not those of the earlier steps and the new token",
    ),
    "VK434": (ERROR, "mask picture does not hide exactly the future positions"),
    "VK435": (ERROR, "generation round's input is not the previous input plus the previous output"),
    "VK436": (WARNING, "a figure is promised but none follows"),
    # links and embeds
    "VK501": (ERROR, "link target does not exist"),
    "VK502": (WARNING, "link path is wrong but the file name is unique"),
    "VK503": (WARNING, "link target is ambiguous"),
    "VK504": (ERROR, "heading not found in link target"),
    "VK505": (ERROR, "block id not found in link target"),
    "VK506": (ERROR, "embedded file does not exist"),
    "VK507": (ERROR, "link leaves the vault"),
    "VK508": (WARNING, "link points to an unpublished note"),
    "VK509": (ERROR, "embed cycle"),
    "VK510": (WARNING, "link points to a file Obsidian's settings exclude (dead on the site)"),
    # site
    "VK601": (ERROR, "site build failed"),
}


@dataclass(frozen=True, order=True)
class Diagnostic:
    path: str  # relative to the vault, with forward slashes
    line: int  # 1-based
    col: int  # 1-based
    code: str
    message: str
    severity: str = ""
    written: str | None = None
    computed: str | None = None

    def __post_init__(self) -> None:
        if self.code not in CODES:
            raise ValueError(f"unknown diagnostic code {self.code}")
        if not self.severity:
            object.__setattr__(self, "severity", CODES[self.code][0])

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


def format_text(report: Report) -> str:
    out = []
    for d in report.diagnostics:
        extra = ""
        if d.written is not None and d.computed is not None and "written" not in d.message:
            extra = f" (written {d.written}, computed {d.computed})"
        out.append(f"{d.path}:{d.line}:{d.col}: {d.code} {d.message}{extra}")
    out.append(report.summary.line())
    return "\n".join(out) + "\n"


def format_json(report: Report) -> str:
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
        message = d.message
        if d.written is not None and d.computed is not None and "written" not in message:
            message += f" (written {d.written}, computed {d.computed})"
        out.append(
            f"::{level} file={_escape_github(path, prop=True)},line={d.line},col={d.col},"
            f"title={d.code}::{_escape_github(d.code + ' ' + message)}"
        )
    out.append(report.summary.line())
    return "\n".join(out) + "\n"


FORMATTERS = {"text": format_text, "json": format_json, "github": format_github}
