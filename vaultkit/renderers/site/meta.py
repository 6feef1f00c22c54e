"""What the published site says about itself and its notes.

- `site_url`: the one mkdocs.yml gives, else, in a GitHub Actions run, the repository's GitHub
  Pages address (`https://OWNER.github.io/REPO/`); the sitemap and the feed need it;
- `home_title`: the title of the vault's home note (index.md, README.md or Home.md at its
  root), the site's name when the config has none;
- `vault_language`: the language of the notes' text (`zh` or `en`), the site's when the config
  sets none;
- `add_dates`: each note's date where its front matter has none: the last commit touching it
  (one `git log` for the whole vault), else the file's modification time.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
from pathlib import Path

from vaultkit.model.vault import Source, parse_front_matter
from vaultkit.readers.markdown import parse

HOME_NAMES = ("index.md", "readme.md", "home.md")  # in this order, the vault's home note
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")
LANGUAGE_SAMPLE = 4_000_000  # characters of notes read to tell the language
DATE = "date"  # the key of a note's `derived` that holds its date from history or file


def pages_url(env=os.environ) -> str | None:
    """The GitHub Pages address of the repository a GitHub Actions run builds, else None."""
    if (
        env.get("GITHUB_ACTIONS") != "true"
        or env.get("GITHUB_SERVER_URL", "https://github.com") != "https://github.com"
    ):
        return None
    owner, _, name = env.get("GITHUB_REPOSITORY", "").partition("/")
    if not owner or not name:
        return None
    host = f"{owner.lower()}.github.io"
    return f"https://{host}/" if name.lower() == host else f"https://{host}/{name}/"


def site_url(configured: str | None, env=os.environ) -> str | None:
    """mkdocs.yml's `site_url`, else the GitHub Pages address (see `pages_url`)."""
    return configured or pages_url(env)


def home_note(names) -> str | None:
    """The vault's home note among the paths `names`: index.md, else README.md, else Home.md at
    the root (any case)."""
    at_root = {name.lower(): name for name in sorted(names, reverse=True) if "/" not in name}
    return next((at_root[home] for home in HOME_NAMES if home in at_root), None)


def home_title(root: Path) -> str | None:
    """The first `# heading` of the vault's home note, else its front matter title."""
    files = {path.name: path for path in Path(root).glob("*") if path.is_file()}
    home = files.get(home_note(files) or "")
    if home is None:
        return None
    try:
        text = Source.read(home).text
    except OSError:
        return None
    tokens = parse(text)
    for i, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and token.tag == "h1" and tokens[i + 1].content.strip():
            return tokens[i + 1].content.strip()
    title = parse_front_matter(text, home.name).data.get("title")
    return str(title).strip() if isinstance(title, (str, int, float)) and str(title).strip() else None


def text_language(texts) -> str:
    """ "zh" when the texts have more CJK characters than Latin words, else "en"."""
    cjk = latin = 0
    for text in texts:
        cjk += len(_CJK.findall(text))
        latin += len(_LATIN_WORD.findall(text))
    return "zh" if cjk > latin else "en"


def vault_language(root: Path) -> str:
    """The language of the vault's notes (`text_language`), from their first
    LANGUAGE_SAMPLE characters (hidden folders skipped)."""

    def texts():
        left = LANGUAGE_SAMPLE
        for path in sorted(Path(root).rglob("*.md")):
            if left <= 0:
                return
            if any(part.startswith(".") for part in path.relative_to(root).parts):
                continue
            try:
                text = Source.read(path).text[:left]
            except OSError:
                continue
            left -= len(text)
            yield text

    return text_language(texts())


def git_dates(root: Path) -> dict[str, dt.date]:
    """Vault-relative path → the date (UTC) of the last commit touching it, from one `git log`;
    empty outside a git repository or without git."""
    try:
        done = subprocess.run(
            ["git", "log", "--format=%x00%ct", "--name-only", "--no-renames", "--relative", "-z", "--", "."],
            cwd=root,
            capture_output=True,
            timeout=120,
        )
    except (OSError, subprocess.SubprocessError):
        return {}
    if done.returncode:
        return {}
    dates: dict[str, dt.date] = {}
    when = None
    fields = done.stdout.decode("utf-8", "surrogateescape").split("\0")
    for i, field in enumerate(fields):
        if field == "":  # each commit starts with an empty field, then its time
            when = None
        elif when is None and fields[i - 1] == "" and field.isdigit():
            when = dt.datetime.fromtimestamp(int(field), dt.UTC).date()
        elif when is not None:
            dates.setdefault(field.removeprefix("\n"), when)  # newest first: the first seen is the last
    return dates


def file_date(path: Path) -> dt.date | None:
    try:
        return dt.datetime.fromtimestamp(path.stat().st_mtime, dt.UTC).date()
    except OSError:
        return None


def add_dates(notes, root: Path) -> None:
    """Set `derived[DATE]` of each note that lacks it: the date git gives, else its file's."""
    pending = [note for note in notes if DATE not in note.derived]
    if not pending:
        return
    history = git_dates(root)
    for note in pending:
        note.derived[DATE] = history.get(note.rel) or file_date(note.path)
