"""An offline KaTeX: the npm registry's `katex` package, copied into the site at build time.

Formulas are written into pages as MathML at build time (no script needed, see `math`), with
their TeX in `data-tex`. Where KaTeX is found, the site also ships it (script, stylesheet, woff2
fonts) and the site's `vaultkit.js` typesets every formula with it: its own fonts grow brackets
around fractions and draw a clear `\\sqrt` bar on every machine, which the browser's MathML
does only with a math font installed. Without KaTeX the MathML stays (never a CDN request).
"""

from __future__ import annotations

import os
from pathlib import Path

from mkdocs.exceptions import PluginError

ENV_VAR = "VAULTKIT_KATEX_DIR"
SITE_DIR = "assets/vaultkit/katex"
_IN_PACKAGE = Path("node_modules/katex/dist")
_GLOBAL_ROOTS = (Path("/usr/lib"), Path("/usr/local/lib"), Path("/opt/homebrew/lib"))


def _is_dist(folder: Path) -> bool:
    return (folder / "katex.min.js").is_file() and (folder / "katex.min.css").is_file()


def find_katex_dist(start: Path) -> Path | None:
    """$VAULTKIT_KATEX_DIR, else node_modules/katex/dist beside `start` or a parent, else a global npm install."""
    if os.environ.get(ENV_VAR):
        folder = Path(os.environ[ENV_VAR])
        if not _is_dist(folder):
            raise PluginError(
                f"{ENV_VAR} is {folder}, which has no katex.min.js and katex.min.css; "
                f"point it at the dist folder of the katex npm package or unset it"
            )
        return folder
    candidates = [folder / _IN_PACKAGE for folder in (start, *start.parents)]
    candidates += [root / _IN_PACKAGE for root in _GLOBAL_ROOTS]
    return next((folder for folder in candidates if _is_dist(folder)), None)


def katex_files(dist: Path) -> dict[str, Path]:
    """Site path → file of what the site needs: the script, the stylesheet and its woff2 fonts."""
    files = {f"{SITE_DIR}/{name}": dist / name for name in ("katex.min.js", "katex.min.css")}
    for font in sorted((dist / "fonts").glob("*.woff2")):
        files[f"{SITE_DIR}/fonts/{font.name}"] = font
    return files
