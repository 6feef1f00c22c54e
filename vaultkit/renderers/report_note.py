"""The report note: vaultkit's findings as a note in the vault, where the person writes.

`render(report, notes, language)` is the note's whole text, a pure function of a check's report
and the notes it names: a summary line, then the findings grouped by note, each an Obsidian link
to the nearest heading or block id above its line. The note marks itself in its front matter
(`vaultkit: report`): the vault model then neither checks it, nor counts it, nor publishes it.
There is no time in it, so it changes only when the findings do, and `write` leaves it alone then.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from vaultkit.diagnostics import Diagnostic, Report
from vaultkit.model.vault import REPORT_MARKER, is_report_note
from vaultkit.readers.syntax.blockids import block_spans
from vaultkit.readers.syntax.headings import sections
from vaultkit.writer import write_bytes

DEFAULT_NAMES = {"zh": "vaultkit 报告.md", "en": "vaultkit report.md"}
LABELS = {
    "zh": {
        "title": "vaultkit 报告",
        "clean": "全部通过：没有错误，也没有警告。",
        "line": "第 {line} 行",
        "written": "写的是 {written}，算出 {computed}",
        "error": "错误",
        "warning": "警告",
        "intro": "这篇笔记由 vaultkit 生成，每次检查后重写；不会发布，也不会被检查。",
    },
    "en": {
        "title": "vaultkit report",
        "clean": "All clear: no errors and no warnings.",
        "line": "line {line}",
        "written": "written {written}, computed {computed}",
        "error": "error",
        "warning": "warning",
        "intro": "This note is written by vaultkit after each check; it is never published nor checked.",
    },
}
_MARKUP = re.compile(r"[\\`*_\[\]#|<>^~=$%!]")
_LINK_UNSAFE = re.compile(r"[\[\]|#^]+")  # characters a heading cannot carry inside `[[note#heading]]`


class NotAReportNote(Exception):
    """The report note's path holds a note of the person's own: it is never overwritten."""


def language_of(vault) -> str:
    """ "zh" or "en": the language of the vault's note titles, as the site's home page has it."""
    from vaultkit.renderers.site.pages import vault_language

    return vault_language(note.title for note in vault.readable_notes)


def note_rel(vault, written: str | None) -> str:
    """The vault-relative path of the report note: `written` (`.md` added when missing), else the
    `report:` option of the vault's mkdocs.yml, else the default name in the vault's language."""
    written = written or configured(vault.root) or DEFAULT_NAMES[language_of(vault)]
    rel = PurePosixPath(written.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or not rel.parts:
        raise ValueError(f"the report note must be a path inside the vault, not {written}")
    return rel.as_posix() if rel.suffix.lower() == ".md" else f"{rel.as_posix()}.md"


def configured(root: Path) -> str | None:
    """The `report:` option of the vaultkit plugin in the mkdocs.yml of the vault `root`, or None
    (also when a mkdocs.yml cannot be read: it sets nothing)."""
    from vaultkit.model.layout import find_config
    from vaultkit.readers.config import ConfigError, read_mkdocs_config

    try:
        config = find_config(root)
        plugins = read_mkdocs_config(config).get("plugins") if config else None
    except ConfigError:
        plugins = None
    if isinstance(plugins, dict):
        entries = list(plugins.items())
    elif isinstance(plugins, list):
        entries = [item for plugin in plugins if isinstance(plugin, dict) for item in plugin.items()]
    else:
        entries = []
    for name, options in entries:
        if name == "vaultkit" and isinstance(options, dict) and isinstance(options.get("report"), str):
            return options["report"] or None
    return None


def render(report: Report, notes: Mapping, language: str = "en") -> str:
    """The report note's text for `report`; `notes` maps a rel to its `Note` (for anchors)."""
    labels = LABELS.get(language, LABELS["en"])
    key, value = REPORT_MARKER
    out = ["---", f"{key}: {value}", "publish: false", "---", f"# {labels['title']}", ""]
    if not report.diagnostics:
        out += [f"> [!success] {labels['clean']}", ""]
    out += [report.summary.line(), "", f"*{labels['intro']}*", ""]
    by_path: dict[str, list[Diagnostic]] = {}
    for diagnostic in report.diagnostics:
        by_path.setdefault(diagnostic.path, []).append(diagnostic)
    for path, diagnostics in by_path.items():
        note = notes.get(path)
        out += [f"## {_file_link(path, note)}", ""]
        anchors = _anchors(note) if note is not None else []
        out += [_finding(d, note, anchors, labels) for d in diagnostics]
        out.append("")
    return "\n".join(out)


def _file_link(path: str, note) -> str:
    """A link to a note or attachment; files Obsidian does not open (`.obsidian/…`) as code."""
    if path.startswith("."):
        return f"`{path}`"
    target = path[:-3] if note is not None and path.lower().endswith(".md") else path
    return f"[[{target}]]"


def _anchors(note) -> list[tuple[int, str]]:
    """(0-based line, `#heading` or `#^id`) of each place a link can open in the note, by line;
    a block id before a heading on the same line."""
    found = [(block.start, 0, f"#^{block.block_id}") for block in block_spans(note.tokens).values()]
    for section in sections(note.tokens):
        text = " ".join(_LINK_UNSAFE.sub(" ", section.text).split())
        if text:
            found.append((section.start, 1, f"#{text}"))
    return [(line, anchor) for line, _, anchor in sorted(found)]


def _finding(d: Diagnostic, note, anchors: list[tuple[int, str]], labels: dict) -> str:
    where = labels["line"].format(line=d.line)
    if note is not None:
        above = [anchor for line, anchor in anchors if line <= d.line - 1]
        fragment = above[-1] if above else ""
        where = f"[[{d.path[:-3]}{fragment}|{where}]]"
    severity = labels.get(d.severity, d.severity)
    text = f"- {where} `{d.code}` {severity}: {_inline(d.message)}"
    if d.written is not None and d.computed is not None:
        text += " (" + labels["written"].format(written=_code(d.written), computed=_code(d.computed)) + ")"
    return text


def _inline(message: str) -> str:
    """A message as markdown Obsidian shows as written: its `code` spans kept, and outside them
    every character that would make a link, tag, comment, emphasis or math escaped."""
    parts = re.split(r"(`+[^`]+?`+)", " ".join(message.split()))
    return "".join(part if part.startswith("`") else _MARKUP.sub(r"\\\g<0>", part) for part in parts)


def _code(text: str) -> str:
    """`text` as inline code, fenced with more backticks than it holds."""
    text = " ".join(text.split())
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def write(root: Path, rel: str, text: str) -> bytes | None:
    """Write the report note at vault-relative `rel` when its text changed; the bytes it wrote
    (None: unchanged).

    A file there that is not a report note is the person's own: `NotAReportNote`."""
    from vaultkit.model.vault import Source, parse_front_matter

    path = Path(root) / rel
    old = path.read_bytes() if path.is_file() else None
    if old is not None:
        source = Source.from_bytes(path, old)
        if source.error or not is_report_note(parse_front_matter(source.text, rel).data):
            raise NotAReportNote(f"{rel} is a note of yours, not vaultkit's report note; not overwritten")
    if old is None:
        path.parent.mkdir(parents=True, exist_ok=True)
    data = text.encode("utf-8")
    return data if write_bytes(path, data, expected=old) else None


def update(vault, rel: str, report: Report) -> bytes | None:
    """Bring the report note `rel` of `vault` in line with `report`; the bytes written (None: unchanged)."""
    return write(vault.root, rel, render(report, vault.notes, language_of(vault)))


class Keeper:
    """Keeps the report note of a vault state in line with the state's whole report (`watch`)."""

    def __init__(self, state, written: str | None):
        """`written`: the note's path as given ("" or None: the configured or default name)."""
        self.state = state
        self.rel = note_rel(state.vault, written)

    def update(self) -> bool:
        """Rewrite the note when the findings changed; the state takes the bytes it wrote (not
        read back: a save just after is still a change), so the watcher knows the file's next
        event as vaultkit's own. Whether it wrote."""
        report, _ = self.state.report()
        data = update(self.state.vault, self.rel, report)
        if data is None:
            return False
        self.state.apply((), written={self.rel: data})
        return True
