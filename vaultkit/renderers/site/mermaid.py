"""An offline mermaid.js: the npm registry's `mermaid` package, copied into the site at build time.

Material loads mermaid from a CDN unless `window.mermaid` exists, so the site ships the file and
loads it before material's bundle looks. Without the file, mermaid fences stay code blocks
(never a CDN request), and the build says so once at the end, only when a note has a diagram:
an optional asset never fails `build --strict`.
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.exceptions import PluginError

ENV_VAR = "VAULTKIT_MERMAID_JS"
SITE_PATH = "assets/vaultkit/mermaid.min.js"
_IN_PACKAGE = Path("node_modules/mermaid/dist/mermaid.min.js")
_GLOBAL_ROOTS = (Path("/usr/lib"), Path("/usr/local/lib"), Path("/opt/homebrew/lib"))


def find_mermaid_js(start: Path) -> Path | None:
    """$VAULTKIT_MERMAID_JS, else node_modules beside `start` or a parent, else a global npm install."""
    if os.environ.get(ENV_VAR):
        path = Path(os.environ[ENV_VAR])
        if not path.is_file():
            raise PluginError(f"{ENV_VAR} is {path}, which is not a file; point it at mermaid.min.js or unset it")
        return path
    candidates = [folder / _IN_PACKAGE for folder in (start, *start.parents)]
    candidates += [root / _IN_PACKAGE for root in _GLOBAL_ROOTS]
    return next((path for path in candidates if path.is_file()), None)


def missing_note(notes: int) -> str:
    """What to tell a person whose diagrams are shown as code."""
    return (
        f"{notes} note{'s' * (notes != 1)} with mermaid diagrams: shown as code, since mermaid.min.js "
        f"was not found. To draw them, run `npm install mermaid` in the folder of mkdocs.yml (or the vault's parent), "
        f"or set {ENV_VAR} to a mermaid.min.js file."
    )


DIAGRAMS = "mermaid"  # the key of a note's `derived` that says whether it has a diagram


def notes_with_diagrams(notes) -> list[str]:
    """Vault paths of the notes that have a ```mermaid fence. Whether a note has one is kept in
    its `derived` (the build cache keeps it with the note's digest): a later build parses only
    the notes that changed. A note parsed here is not kept parsed: at the end of a large build,
    the tokens of every note with a diagram would stay."""
    return [note.rel for note in notes if has_diagram(note)]


def has_diagram(note) -> bool:
    if "mermaid" not in note.text:
        return False
    if DIAGRAMS not in note.derived:
        kept = note.kept_parse() is not None
        fences = (tok.info.strip().split(" ")[0] for tok in note.tokens if tok.type == "fence")
        note.derived[DIAGRAMS] = "mermaid" in fences
        if not kept:
            note.release_tokens()
    return note.derived[DIAGRAMS]
