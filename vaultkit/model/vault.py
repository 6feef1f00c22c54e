"""The vault model: which files are notes and attachments, and what each note says about itself.

Reading is tolerant: a BOM, CRLF line endings, broken front matter or a non-UTF-8 file
become properties or diagnostics of the note, never an exception.
"""

from __future__ import annotations

import os
import posixpath
import re
import time
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

import yaml

from vaultkit.diagnostics import ERROR, WARNING, Diagnostic, Rule
from vaultkit.readers.config import yaml_problem

if TYPE_CHECKING:
    from vaultkit.readers.markdown import Parsed

REPORT_MARKER = ("vaultkit", "report")  # front matter `vaultkit: report`: vaultkit's report note


NOT_UTF8 = Rule(
    "VK001", ERROR, "file is not valid UTF-8", "note is {problem}; skipped", "Save the note as UTF-8; it is not read."
)
UNREADABLE = Rule(
    "VK002",
    ERROR,
    "file is binary (NUL bytes) or unreadable",
    "{problem}",
    "A note with NUL bytes, a special file or one the system refuses to read or write is left alone.",
)
TOO_LARGE = Rule(
    "VK003",
    ERROR,
    "file is too large to process",
    "{what} over the {limit} byte limit; {outcome}",
    "Notes and SVGs over the size limit are not read, so nothing in them is checked.",
)
SYMLINK_OUT = Rule(
    "VK005",
    WARNING,
    "path leaves the vault or is a symlink out of it; not followed",
    "{problem}",
    "Symlinks out of the vault, to folders, dangling or looping are never followed.",
)
CASE_CLASH = Rule(
    "VK006",
    WARNING,
    "file names differ only by case",
    "{rel} and {other} differ only by case",
    "Obsidian on macOS and Windows sees one file; links to either are ambiguous. Rename one.",
)
FRONT_MATTER_YAML = Rule(
    "VK010",
    ERROR,
    "front matter is not valid YAML",
    "front matter is not valid YAML: {problem}",
    "The front matter is ignored until it parses (quote values that start with @ or a backtick).",
)
FRONT_MATTER_NOT_MAPPING = Rule(
    "VK011",
    ERROR,
    "front matter is not a mapping",
    "front matter is not a mapping; it is ignored",
    "Front matter must be `key: value` lines; a list or a bare value is ignored.",
)
FRONT_MATTER_TYPE = Rule(
    "VK012",
    WARNING,
    "front matter field has an unexpected type",
    "{field} is {found}, not {expected}; {outcome}",
    "A field vaultkit reads (title, tags, aliases, publish, draft) whose value it cannot use as written.",
)
SETTINGS_UNREADABLE = Rule(
    "VK013",
    WARNING,
    "Obsidian settings in .obsidian/ cannot be read",
    "{problem}; ignored",
    "An unreadable .obsidian/app.json or templates.json is ignored, as if absent.",
)

# Folders the person's publisher skips, plus Obsidian's own.
EXCLUDED_DIRS = frozenset({"private", "templates", "template", "attachments-private"})
MAX_NOTE_BYTES = 4 * 1024 * 1024
SITE_DIR = "site"  # where `vaultkit build` writes the site, beside mkdocs.yml
BOM = "\ufeff"

_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)?(---|\.\.\.)[ \t]*(\n|\Z)", re.S)


def is_hidden(rel: PurePosixPath) -> bool:
    return any(part.startswith(".") for part in rel.parts)


def is_excluded(rel: PurePosixPath) -> bool:
    """Hidden files and folders (.obsidian, .trash, .env, ...) and the skipped folders."""
    return is_hidden(rel) or any(part in EXCLUDED_DIRS for part in rel.parts[:-1])


@dataclass(frozen=True)
class ObsidianSettings:
    """What vaultkit honours of the vault's own `.obsidian/` settings (never published).

    - `app.json` `userIgnoreFilters` (Excluded files): a path prefix (`Archive/`, `notes/old.md`)
      or a regular expression between slashes (`/draft/`); excluded files are not checked and
      not published, but links still resolve to them (as in Obsidian);
    - `app.json` `attachmentFolderPath` (`/` the vault root, `./` the note's folder, `./x` a
      folder under it, else a folder from the root) and `newLinkFormat` (`shortest`, `relative`,
      `absolute`): how `vaultkit fix` writes a repaired link;
    - `app.json` `strictLineBreaks`: when true, a single newline joins lines (Obsidian's
      default, false, shows it as a line break), on the site as in Obsidian's reading view;
    - `templates.json` `folder`: the core Templates plugin's folder (not checked, not published);
    - `snippets/*.css` (those `appearance.json` enables, all when it lists none): the colour and
      icon each sets for a callout type, for the site;
    - `app.json` `propertiesInDocument`: `visible` (the default), `hidden` (the notes'
      properties kept off their pages) or `source` (shown as the YAML written);
    - `app.json` `showInlineTitle`: false keeps the note's name (the inline title) off its page;
    - `types.json` `types`: the type given to a property name (`date`, `number`, ...), for its icon.
    """

    ignore_filters: tuple[str, ...] = ()
    attachment_folder: str | None = None  # None: `.obsidian/` does not say
    link_format: str | None = None  # None: `.obsidian/` does not say; links keep their style
    templates_folder: str | None = None
    strict_line_breaks: bool = False
    callout_styles: tuple[tuple[str, tuple | None, str | None], ...] = ()  # (type, r g b, icon)
    properties_in_document: str = "visible"
    inline_title: bool = True
    property_types: tuple[tuple[str, str], ...] = ()  # (name, type) as types.json gives them

    @classmethod
    def load(cls, root: Path, problems: list[Diagnostic]) -> ObsidianSettings:
        app = _settings_file(root, "app.json", problems)
        templates = _settings_file(root, "templates.json", problems)
        filters = app.get("userIgnoreFilters")
        link_format = app.get("newLinkFormat")
        folder = templates.get("folder")
        return cls(
            ignore_filters=tuple(f for f in filters if isinstance(f, str) and f.strip())
            if isinstance(filters, list)
            else (),
            attachment_folder=app["attachmentFolderPath"] if isinstance(app.get("attachmentFolderPath"), str) else None,
            link_format=link_format if link_format in ("shortest", "relative", "absolute") else None,
            templates_folder=folder.strip("/") if isinstance(folder, str) and folder.strip("/") else None,
            strict_line_breaks=app.get("strictLineBreaks") is True,
            callout_styles=_snippet_callouts(root, _settings_file(root, "appearance.json", problems)),
            properties_in_document=app.get("propertiesInDocument")
            if app.get("propertiesInDocument") in ("hidden", "source")
            else "visible",
            inline_title=app.get("showInlineTitle") is not False,
            property_types=_property_types(_settings_file(root, "types.json", problems)),
        )

    def property_type(self, name: str) -> str | None:
        """The type `.obsidian/types.json` gives property `name`, or None."""
        return dict(self.property_types).get(name)

    def ignored(self, rel: str) -> str | None:
        """Why Obsidian's settings keep `rel` out of checks and the site, or None."""
        if self.templates_folder and rel.startswith(self.templates_folder + "/"):
            return f"a template (`{self.templates_folder}/`, .obsidian/templates.json)"
        for rule in self.ignore_filters:
            if len(rule) > 2 and rule.startswith("/") and rule.endswith("/"):
                try:
                    hit = re.search(rule[1:-1], rel) is not None
                except re.error:
                    continue
            else:
                hit = rel.startswith(rule.lstrip("/"))
            if hit:
                return f"excluded by `{rule}` (.obsidian/app.json userIgnoreFilters)"
        return None

    def attachment_dir(self, source: str) -> str | None:
        """The folder attachments of note `source` go to, from the vault root ('' the root),
        or None when the settings do not say."""
        if self.attachment_folder is None:
            return None
        folder = self.attachment_folder.strip()
        if folder == "." or folder.startswith("./"):
            folder = posixpath.join(posixpath.dirname(source), folder[2:])
        folder = posixpath.normpath(folder.strip("/") or ".")
        return "" if folder == "." else folder


def _snippet_callouts(root: Path, appearance: dict) -> tuple:
    """(type, colour, icon) of each callout type the vault's CSS snippets style (the enabled
    ones, or all when `appearance.json` enables none)."""
    from vaultkit.readers.syntax.callouts import snippet_callouts

    folder = root / ".obsidian" / "snippets"
    if not folder.is_dir():
        return ()
    enabled = appearance.get("enabledCssSnippets")
    names = set(enabled) if isinstance(enabled, list) and enabled else None
    styles: dict[str, tuple] = {}
    for path in sorted(folder.glob("*.css")):
        if (names is None or path.stem in names) and path.is_file() and not path.is_symlink():
            try:
                styles.update(snippet_callouts(path.read_text(encoding="utf-8")))
            except (OSError, UnicodeDecodeError):
                continue
    return tuple((kind, color, icon) for kind, (color, icon) in sorted(styles.items()))


def _property_types(types: dict) -> tuple[tuple[str, str], ...]:
    """The (name, type) pairs of `.obsidian/types.json`'s `types`."""
    found = types.get("types")
    if not isinstance(found, dict):
        return ()
    return tuple((str(name), kind) for name, kind in found.items() if isinstance(kind, str))


def _settings_file(root: Path, name: str, problems: list[Diagnostic]) -> dict:
    """A JSON object from `.obsidian/NAME`, {} when absent; unreadable is a warning."""
    path = root / ".obsidian" / name
    if not path.is_file() or path.is_symlink():
        return {}
    import json  # imported here: only a vault with Obsidian settings needs it

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(
            SETTINGS_UNREADABLE.at(f".obsidian/{name}", 1, 1, problem=f"cannot read Obsidian settings ({exc})")
        )
        return {}
    if not isinstance(data, dict):
        problems.append(
            SETTINGS_UNREADABLE.at(f".obsidian/{name}", 1, 1, problem="Obsidian settings are not a JSON object")
        )
        return {}
    return data


SETTLED_NS = 2_000_000_000  # a file's time this long past: a write in the same clock tick after it was read is out of the question


def settled_stat(stat: os.stat_result) -> tuple[int, int] | None:
    """A file's size and modification time (ns), when they can stand for its bytes next time
    (its bytes, read right after this stat, hashed then): None when the file was written
    within the last two seconds, as a write in the same tick of the file system's clock would
    leave them as they are."""
    if time.time_ns() - stat.st_mtime_ns < SETTLED_NS:
        return None
    return stat.st_size, stat.st_mtime_ns


@dataclass
class Source:
    """A text file as read from disk, decoded, with what is needed to write it back unchanged."""

    path: Path
    raw: bytes
    text: str = ""  # decoded, BOM removed, line endings normalised to \n
    bom: bool = False
    newline: str = "\n"
    error: str | None = None  # why the bytes could not be read as text
    stat: tuple[int, int] | None = None  # (size, mtime in ns) the file had just before it was read (`settled_stat`)

    @classmethod
    def from_bytes(cls, path: Path, raw: bytes) -> Source:
        src = cls(path=path, raw=raw)
        if b"\0" in raw:
            src.error = "binary"
            return src
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            src.error = f"not valid UTF-8 (byte {exc.start})"
            return src
        if text.startswith(BOM):
            src.bom, text = True, text[1:]
        if "\r\n" in text:
            src.newline = "\r\n"
            text = text.replace("\r\n", "\n")
        src.text = text
        return src

    @classmethod
    def read(cls, path: Path) -> Source:
        return cls.from_bytes(path, path.read_bytes())

    @cached_property
    def digest(self) -> str:
        """The SHA-256 of the bytes (kept with them: a kept state does not hash them again)."""
        import hashlib

        return hashlib.sha256(self.raw).hexdigest()

    def encode(self, text: str) -> bytes:
        """Bytes for `text` with this file's BOM and line endings."""
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        return ((BOM if self.bom else "") + text).encode("utf-8")


@dataclass
class FrontMatter:
    data: dict = field(default_factory=dict)
    end_line: int = 0  # number of lines the front matter block takes, 0 when absent
    diagnostics: list[Diagnostic] = field(default_factory=list)


class _SafeLoader(yaml.SafeLoader):
    """safe_load without alias expansion bombs: aliases are refused outright."""

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.composer.ComposerError(None, None, "YAML aliases are not allowed", event.start_mark)
        return super().compose_node(parent, index)


# libyaml (when PyYAML has it) reads YAML several times faster. Without these characters there
# is no alias (`*`) and, as far as fuzzing against the pure-Python reader found, the same result.
_FAST_LOADER = getattr(yaml, "CSafeLoader", None)
_FAST_LOADER_DIFFERS = frozenset("*\t!|>\r\ufeff\x85\u2028\u2029")


# YAML 1.1 reads `1e-3` (no dot) as a string; people write numbers that way, and YAML 1.2 agrees.
_EXPONENT_FLOAT = re.compile(r"^[-+]?[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")


class _SafeLoaderWithExponents(_SafeLoader):
    pass


_SafeLoaderWithExponents.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+0123456789"))
_FAST_LOADER_WITH_EXPONENTS = None
if _FAST_LOADER is not None:
    _FAST_LOADER_WITH_EXPONENTS = type("_FastLoaderWithExponents", (_FAST_LOADER,), {})
    _FAST_LOADER_WITH_EXPONENTS.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+0123456789"))


def safe_load(text: str, *, exponent_floats: bool = False):
    """yaml.safe_load, minus aliases (so no billion-laughs expansion). Errors always come from
    the pure-Python reader, so diagnostics do not depend on how PyYAML was built. With
    `exponent_floats`, `1e-3` is a number (as in YAML 1.2), not a string."""
    fast = _FAST_LOADER_WITH_EXPONENTS if exponent_floats else _FAST_LOADER
    if fast is not None and _FAST_LOADER_DIFFERS.isdisjoint(text):
        try:
            return yaml.load(text, Loader=fast)
        except yaml.YAMLError:
            pass
    return yaml.load(text, Loader=_SafeLoaderWithExponents if exponent_floats else _SafeLoader)


def parse_front_matter(text: str, rel: str) -> FrontMatter:
    match = _FRONT_MATTER.match(text)
    if not match:
        return FrontMatter()
    end_line = match.group(0).count("\n") + (0 if match.group(0).endswith("\n") else 1)
    fm = FrontMatter(end_line=end_line)
    try:
        data = safe_load(match.group(1) or "")
    except yaml.YAMLError as exc:
        mark, problem = yaml_problem(exc)
        line = mark.line + 2 if mark else 1
        col = mark.column + 1 if mark else 1
        hint = _quote_hint(match.group(1) or "", mark) if mark else ""
        fm.diagnostics.append(FRONT_MATTER_YAML.at(rel, line, col, problem=problem + hint))
        return fm
    except RecursionError:
        fm.diagnostics.append(FRONT_MATTER_YAML.at(rel, 1, 1, problem="nested too deeply"))
        return fm
    if data is None:
        return fm
    if not isinstance(data, dict):
        fm.diagnostics.append(FRONT_MATTER_NOT_MAPPING.at(rel, 1, 1))
        return fm
    fm.data = data
    fm.diagnostics += _field_types(data, match.group(1) or "", rel)
    return fm


_LISTS = {"tags": "tags", "tag": "tags", "aliases": "aliases", "alias": "aliases"}
_FLAGS = ("publish", "draft")
_FLAG_WORDS = frozenset({"true", "yes", "on", "1", "false", "no", "off", "0"})


def _type_name(value) -> str:
    return "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) else repr(value)


def _field_types(data: dict, yaml_text: str, rel: str) -> list[Diagnostic]:
    """VK012 for each field vaultkit reads whose value it cannot use as written: a title that is
    not text, tags or aliases as a mapping or with nested entries (those are dropped), a
    publish/draft flag that is not true or false."""
    key_lines = {}
    for offset, line in enumerate(yaml_text.split("\n")):
        key = line.split(":", 1)[0].strip()
        if ":" in line and key not in key_lines and not line[:1].isspace():
            key_lines[key] = offset + 2  # the front matter starts after the `---` line
    out = []

    def warn(key: str, found: str, expected: str, outcome: str) -> None:
        at = key_lines.get(key, 1)
        out.append(FRONT_MATTER_TYPE.at(rel, at, 1, field=key, found=found, expected=expected, outcome=outcome))

    title = data.get("title")
    if isinstance(title, (dict, list)):
        warn("title", _type_name(title), "text", "the file name is the title")
    for key, what in _LISTS.items():
        value = data.get(key)
        if isinstance(value, dict):
            warn(key, "a mapping", f"a list of {what}", "it is ignored")
        elif isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
            warn(key, "a list with nested entries", f"a list of {what}", "the nested entries are ignored")
    for key in _FLAGS:
        value = data.get(key)
        if (
            key in data
            and not isinstance(value, bool)
            and value is not None
            and not (isinstance(value, (str, int, float)) and str(value).strip().lower() in _FLAG_WORDS)
        ):
            read = "true" if _truthy(value) else "false"
            published = "published" if _truthy(value) == (key == "publish") else "not published"
            warn(key, _type_name(value), "true or false", f"read as {read}: the note is {published}")
    return out


_RESERVED_START = re.compile(r"[@`][^,\]\}\n]*")


def _quote_hint(yaml_text: str, mark) -> str:
    """`; quote the value: '@kepano'` when the error is a plain value starting with a
    character YAML reserves (`@`, a backtick), as in `aliases: [@kepano]`."""
    value = _RESERVED_START.match(yaml_text, mark.index)
    if not value or not value.group(0).strip():
        return ""
    text = value.group(0).strip()
    quoted = "'" + text.replace("'", "''") + "'"
    return f"; a value cannot start with `{text[0]}` unquoted: write {quoted}"


def _str_list(value) -> list[str]:
    """Tags and aliases as Obsidian reads them: a list or a comma/space separated string."""
    if value is None:
        return []
    if isinstance(value, str):
        value = re.split(r"[,\s]+", value)
    elif not isinstance(value, (list, tuple)):
        value = [value]
    out = []
    for item in value:
        if item is None or isinstance(item, (dict, list)):
            continue
        text = str(item).strip().lstrip("#")
        if text and text not in out:
            out.append(text)
    return out


def _truthy(value) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in {"true", "yes", "on", "1"}
    return bool(value)


@dataclass
class Note:
    rel: str  # vault-relative POSIX path, e.g. "07-Knowledge/x.md"
    source: Source
    front: FrontMatter = field(default_factory=FrontMatter)
    # what was read off the tokens (e.g. "links"), kept so the tokens need not be parsed again
    derived: dict = field(default_factory=dict, repr=False, compare=False)
    ignored: str | None = None  # why `.obsidian/` settings keep it out of checks and the site
    replaces: Parsed | None = field(default=None, repr=False, compare=False)  # the parse of the text it replaced

    @property
    def text(self) -> str:
        return self.source.text

    @property
    def path(self) -> Path:
        return self.source.path

    @property
    def name(self) -> str:
        """File name without the .md suffix, as wikilinks use it."""
        return PurePosixPath(self.rel).stem

    @property
    def title(self) -> str:
        title = self.front.data.get("title")
        if isinstance(title, (str, int, float)) and str(title).strip():
            return str(title).strip()
        return self.name

    @property
    def tags(self) -> list[str]:
        return _str_list(self.front.data.get("tags", self.front.data.get("tag")))

    @property
    def aliases(self) -> list[str]:
        return _str_list(self.front.data.get("aliases", self.front.data.get("alias")))

    @property
    def published(self) -> bool:
        data = self.front.data
        if "publish" in data and not _truthy(data["publish"]):
            return False
        return not _truthy(data.get("draft", False))

    @property
    def readable(self) -> bool:
        return self.source.error is None

    @property
    def checked(self) -> bool:
        """Whether vaultkit checks (and fixes) it: readable, and not a file Obsidian's settings
        exclude or a template."""
        return self.readable and not self.ignored

    @cached_property
    def parsed(self) -> Parsed:
        """The note's text and markdown-it tokens; a note that replaced an edited one is parsed
        again only where the edit changed it."""
        from vaultkit.readers.incremental import reparse
        from vaultkit.readers.markdown import parse_document

        previous, self.replaces = self.replaces, None
        return parse_document(self.text) if previous is None else reparse(previous, self.text)

    @property
    def tokens(self):
        """markdown-it tokens of the whole note (front matter included, so line maps are absolute)."""
        return self.parsed.tokens

    def release_tokens(self) -> None:
        """Free the tokens (a worker does, once done with the note); they are parsed again if asked for."""
        self.__dict__.pop("parsed", None)

    def kept_parse(self) -> Parsed | None:
        """The note's parse if it was made and not released (what a note replacing it starts from)."""
        return self.__dict__.get("parsed")


def _walk(root: Path, problems: list[Diagnostic], excluded=is_excluded):
    """Yield (rel, path) for every regular file in the vault that is not `excluded`; symlinks out
    of it, dangling or looping links and special files (FIFOs, sockets, devices) become
    `problems` instead. Folders whose every file is excluded (.git, site/) are not entered."""
    root_real = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames.sort()
        base = Path(dirpath)
        for name in [d for d in dirnames if (base / d).is_symlink()]:
            rel = PurePosixPath((base / name).relative_to(root).as_posix())
            if not is_excluded(rel):
                problems.append(SYMLINK_OUT.at(rel.as_posix(), 1, 1, problem="symlinked folder; not followed"))
        folder = PurePosixPath(base.relative_to(root).as_posix())
        dirnames[:] = [d for d in dirnames if not excluded(folder / d / "_")]
        for name in sorted(filenames):
            path = base / name
            rel = PurePosixPath(path.relative_to(root).as_posix())
            if excluded(rel):
                continue
            if path.is_symlink():
                try:
                    target = path.resolve(strict=True)
                except (OSError, RuntimeError):
                    problems.append(
                        SYMLINK_OUT.at(rel.as_posix(), 1, 1, problem="dangling or looping symlink; skipped")
                    )
                    continue
                if not target.is_relative_to(root_real):
                    problems.append(
                        SYMLINK_OUT.at(rel.as_posix(), 1, 1, problem="symlink out of the vault; not followed")
                    )
                    continue
            if not path.is_file():
                problems.append(UNREADABLE.at(rel.as_posix(), 1, 1, problem="not a regular file; skipped"))
                continue
            yield rel, path


def _case_collisions(rels: list[str]) -> list[Diagnostic]:
    """VK006 for each file whose path differs from another's only by case (Obsidian on macOS
    and Windows sees one file; links to it are ambiguous)."""
    groups: dict[str, list[str]] = {}
    for rel in rels:
        groups.setdefault(rel.casefold(), []).append(rel)
    diags = []
    for same in groups.values():
        for rel in same[1:]:
            diags.append(CASE_CLASH.at(rel, 1, 1, rel=rel, other=same[0]))
    return diags


@dataclass
class Vault:
    root: Path
    notes: dict[str, Note] = field(default_factory=dict)  # rel -> note, sorted by rel
    attachments: list[str] = field(default_factory=list)  # rel paths of other files
    diagnostics: list[Diagnostic] = field(default_factory=list)
    settings: ObsidianSettings = field(default_factory=ObsidianSettings)
    holds_site: bool = False  # the vault is its own project root: its top-level site/ is the built site

    @classmethod
    def load(cls, root: str | os.PathLike) -> Vault:
        from vaultkit.model.layout import holds_site

        vault = cls(root=Path(root), holds_site=holds_site(Path(root)))
        vault.settings = ObsidianSettings.load(vault.root, vault.diagnostics)
        for rel, path in _walk(vault.root, vault.diagnostics, vault.excluded):
            if rel.suffix.lower() == ".md":
                vault.add_note(rel.as_posix(), path)
            else:
                vault.attachments.append(rel.as_posix())
        vault.diagnostics += _case_collisions([*vault.notes, *vault.attachments])
        return vault

    def excluded(self, rel: PurePosixPath) -> bool:
        """Whether a path is never a note nor an attachment: `is_excluded`, and in a vault that is
        its own project root its mkdocs.yml and built site (`site/`; `.github/` is hidden)."""
        if is_excluded(rel):
            return True
        return self.holds_site and (rel.parts[0] == SITE_DIR if len(rel.parts) > 1 else rel.name == "mkdocs.yml")

    def add_note(self, rel: str, path: Path) -> Note | None:
        try:
            stat = path.stat()
            size = stat.st_size
            if size > MAX_NOTE_BYTES:
                self.diagnostics.append(
                    TOO_LARGE.at(rel, 1, 1, what=f"note is {size} bytes,", limit=MAX_NOTE_BYTES, outcome="skipped")
                )
                return None
            source = Source.read(path)
            source.stat = settled_stat(stat)
        except OSError as exc:
            self.diagnostics.append(UNREADABLE.at(rel, 1, 1, problem=f"cannot read: {exc.strerror}"))
            return None
        note = self.note_from_source(rel, source)
        self.notes[rel] = note
        return note

    def note_from_source(self, rel: str, source: Source) -> Note:
        note = Note(rel=rel, source=source, ignored=self.settings.ignored(rel))
        if note.ignored:
            return note  # not checked: neither its bytes nor its front matter are reported on
        if source.error == "binary":
            self.diagnostics.append(UNREADABLE.at(rel, 1, 1, problem="note contains NUL bytes; skipped"))
        elif source.error:
            self.diagnostics.append(NOT_UTF8.at(rel, 1, 1, problem=source.error))
        if note.readable:
            note.front = parse_front_matter(source.text, rel)
            if is_report_note(note.front.data):  # vaultkit's own findings: never checked, counted, published
                note.ignored = "vaultkit's report note"
                return note
            self.diagnostics.extend(note.front.diagnostics)
        return note

    @property
    def readable_notes(self) -> list[Note]:
        """The notes vaultkit checks: readable and not ignored by `.obsidian/` settings."""
        return [n for n in self.notes.values() if n.checked]

    def inside(self, rel: str) -> Path | None:
        """The absolute path of a vault-relative path, or None when it would leave the vault."""
        root = self.root.resolve()
        try:
            path = (root / rel).resolve()
        except (OSError, RuntimeError):
            return None
        return path if path.is_relative_to(root) else None

    # -- incremental updates (the watcher keeps one Vault across edits) ---------------------

    def remove(self, rel: str) -> None:
        """Forget a note or attachment that was deleted or moved away, and its diagnostics."""
        self.notes.pop(rel, None)
        if rel in self.attachments:
            self.attachments.remove(rel)
        self.diagnostics = [d for d in self.diagnostics if d.path != rel]
        self._find_case_collisions()

    def _find_case_collisions(self) -> None:
        """VK006 again for the files there are now (a file came or went)."""
        self.diagnostics = [d for d in self.diagnostics if d.code != CASE_CLASH.code]
        self.diagnostics += _case_collisions([*self.notes, *self.attachments])

    def reload(self, rel: str, raw: bytes | None = None) -> Note | None:
        """Re-read one file after it changed on disk (or take `raw`, the bytes just written to it).

        Keeps the order `load` gives; returns the note, or None for an attachment or a file
        that is gone, excluded, or a symlink out of the vault.
        """
        self.diagnostics = [d for d in self.diagnostics if d.path != rel or d.code == CASE_CLASH.code]
        path = self.root / rel
        gone = self.excluded(PurePosixPath(rel)) or self.inside(rel) is None or not path.is_file()
        if gone and raw is None:
            self.remove(rel)
            return None
        if not rel.lower().endswith(".md"):
            if rel not in self.attachments:
                self.attachments = sorted([*self.attachments, rel], key=_load_order)
                self._find_case_collisions()
            return None
        old = self.notes.get(rel)  # a note read again keeps its place in `notes`
        if raw is not None:
            note = self.notes[rel] = self.note_from_source(rel, Source.from_bytes(path, raw))
        else:
            note = self.add_note(rel, path)
        if note is None:
            self.notes.pop(rel, None)
        elif old is not None:
            note.replaces = old.kept_parse()
        else:
            self.notes = dict(sorted(self.notes.items(), key=lambda item: _load_order(item[0])))
        if (old is not None) != (note is not None):
            self._find_case_collisions()
        return note


def _load_order(rel: str) -> tuple:
    """The order of `_walk`: a folder's files (by name) before its subfolders."""
    path = PurePosixPath(rel)
    return path.parts[:-1], path.name


def is_report_note(front_matter) -> bool:
    """Whether front matter marks vaultkit's own report note (never checked, counted or published)."""
    key, value = REPORT_MARKER
    return front_matter.get(key) == value
