"""`vaultkit build`: the site of the vault (as `mkdocs build` makes it, pages on every core), then the check summary."""

from __future__ import annotations

import io
import logging
import os
import sys
import tempfile
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from vaultkit.diagnostics import ERROR, Rule, format_text
from vaultkit.model.layout import find_config, holds_site, project_root
from vaultkit.model.vault import SITE_DIR
from vaultkit.readers.config import ConfigError, read_mkdocs_config
from vaultkit.renderers.site.defaults import default_config_text
from vaultkit.renderers.site.meta import home_title, vault_language
from vaultkit.renderers.site.render import build_site, renders_alike

BUILD_FAILED = Rule(
    "VK601",
    ERROR,
    "site build failed",
    "site build failed: {problem}",
    "MkDocs could not build the site (under --strict, also any MkDocs warning); the check's findings follow.",
)


def load_site_config(root: Path, output: str | None):
    """The MkDocs config for this vault: its mkdocs.yml (`layout.find_config`), else vaultkit's
    built-in defaults; the site goes to `site/` in the project root unless `output` says."""
    root = root.resolve()
    config_path = find_config(root)
    base = project_root(root)
    site_dir = Path(output).resolve() if output else base / SITE_DIR
    built_site = site_dir == root / SITE_DIR and holds_site(root)  # never read as notes
    if (site_dir == root or site_dir.is_relative_to(root)) and not built_site:
        raise ValueError(f"the site folder {site_dir} is inside the vault; choose another with -o")
    name = {"site_name": home_title(root) or root.name}
    config_file = config_path or Path.cwd() / "mkdocs.yml"  # without one: npm assets are looked for from here
    if config_path:
        source, overrides = str(config_path), {} if read_mkdocs_config(config_path).get("site_name") else name
    else:
        source, overrides = io.StringIO(default_config_text(name["site_name"], vault_language(root))), {}
        source.name = str(config_file)  # where relative paths in the config would start
    if config_file.parent.resolve() != root and not built_site:
        return load_config(source, docs_dir=str(root), site_dir=str(site_dir), **overrides)
    # MkDocs refuses a docs_dir that holds mkdocs.yml or the site: validate with stand-ins.
    with tempfile.TemporaryDirectory(prefix="vaultkit-") as stand_in:
        os.mkdir(os.path.join(stand_in, "docs"))
        config = load_config(
            source, docs_dir=os.path.join(stand_in, "docs"), site_dir=os.path.join(stand_in, "site"), **overrides
        )
    config.docs_dir, config.site_dir = str(root), str(site_dir)
    return config


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
    except ConfigError as exc:  # as MkDocs' own config errors: the build fails, the vault is checked
        failure = BUILD_FAILED.at(".", 1, 1, problem=str(exc))
    except ValueError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return 2
    except (MkDocsException, OSError) as exc:
        failure = BUILD_FAILED.at(".", 1, 1, problem=_why(exc, strict))
    if plugin is not None and plugin.model is not None:
        report, _ = plugin.model.pipeline.report()
    else:  # the config failed before the vault was read: check it all the same
        from vaultkit.commands.check import run

        report, _ = run(Path(root))
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
