"""`vaultkit build`: the site of the vault (as `mkdocs build` makes it, pages on every core), then the check summary."""

from __future__ import annotations

import io
import logging
import sys
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from ..config import read_mkdocs_config
from ..diagnostics import Diagnostic, Report, format_text
from .defaults import default_config_text
from .render import build_site, renders_alike


def find_config(root: Path) -> Path | None:
    """The mkdocs.yml whose docs_dir is this vault (beside it or in its parent), if any."""
    root = root.resolve()
    for folder in (root.parent, root):
        path = folder / "mkdocs.yml"
        if path.is_file():
            docs_dir = read_mkdocs_config(path).get("docs_dir", "docs")
            if isinstance(docs_dir, str) and (folder / docs_dir).resolve() == root:
                return path
    return None


def load_site_config(root: Path, output: str | None):
    """The MkDocs config for this vault: its mkdocs.yml, else vaultkit's built-in defaults."""
    root = root.resolve()
    config_path = find_config(root)
    base = config_path.parent if config_path else Path.cwd()
    site_dir = Path(output).resolve() if output else base / "site"
    if site_dir == root or site_dir.is_relative_to(root):
        raise ValueError(f"the site folder {site_dir} is inside the vault; choose another with -o")
    if config_path:
        return load_config(str(config_path), docs_dir=str(root), site_dir=str(site_dir))
    text = io.StringIO(default_config_text(root.name))
    text.name = str(base / "mkdocs.yml")  # where relative paths in the config would start
    return load_config(text, docs_dir=str(root), site_dir=str(site_dir))


def build_command(root: Path, output: str | None, strict: bool) -> int:
    """Build the site, then print the check's diagnostics and summary (also when the build failed).

    `--strict` exits 1 on any error of the vault and on any warning of MkDocs (a real site
    problem); an optional asset that is absent (mermaid, KaTeX) never fails it: absent mermaid is
    mentioned last, when the vault has diagrams."""
    logging.basicConfig(format="%(levelname)s - %(message)s", level=logging.WARNING)
    plugin = None
    try:
        config = load_site_config(Path(root), output)
        config.strict = strict
        plugin = config.plugins.get("vaultkit")
        if plugin is None:
            print("vaultkit: the mkdocs.yml has no `vaultkit` plugin; add it under `plugins:`", file=sys.stderr)
            return 2
        if renders_alike(config):
            build_site(config)  # the pages of `mkdocs build`, rendered on every core
        else:
            build(config)
        failure = None
    except ValueError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return 2
    except (MkDocsException, OSError) as exc:
        failure = Diagnostic(".", 1, 1, "VK601", f"site build failed: {_why(exc, strict)}")
    if plugin is not None and plugin.model is not None:
        report, _ = plugin.model.pipeline.report()
    else:
        report = Report()
    if failure:
        report.add([failure])
        report.finish()
    sys.stdout.write(format_text(report))
    if failure is None:
        print(f"Site built into {config.site_dir}")
    if plugin is not None and (note := plugin.mermaid_shown_as_code()):
        print(f"Note: {note}", file=sys.stderr)
    return 1 if failure or (strict and report.summary.errors) else 0


def _why(exc: Exception, strict: bool) -> str:
    text = str(exc)
    if strict and text.endswith("warnings in strict mode!"):
        return f"{text.rstrip('!')}: the MkDocs warnings above are site problems; fix them or build without --strict"
    return text
