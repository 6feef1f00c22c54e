"""`vaultkit build`: the site of the vault (as `mkdocs build` makes it, pages on every core), then the check summary.

The build flows one way: this command reads the vault into a `VaultState` (the one watch and
serve keep), hands it to the site renderer, which checks the notes while it drafts their
pages, and prints that state's report. `EntryPointPlugin` is the plugin MkDocs loads by name:
under plain `mkdocs build` or `mkdocs serve`, nothing hands the renderer a state, so it makes
one the same way."""

from __future__ import annotations

import io
import logging
import os
import sqlite3
import sys
import tempfile
from collections.abc import Mapping
from contextlib import closing
from dataclasses import replace
from pathlib import Path

from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import MkDocsException

from vaultkit import __version__
from vaultkit.diagnostics import ERROR, Rule, format_text
from vaultkit.model.layout import find_config, holds_site, project_root
from vaultkit.model.vault import SITE_DIR
from vaultkit.readers.config import ConfigError, read_mkdocs_config
from vaultkit.renderers.site.defaults import default_config_text
from vaultkit.renderers.site.meta import home_title, vault_language
from vaultkit.renderers.site.plugin import VaultkitPlugin
from vaultkit.renderers.site.render import Built, build_site, renders_alike
from vaultkit.state import Affected, VaultState
from vaultkit.workers import collector

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


def site_state(config) -> VaultState:
    """The state a site of `config` is made from: its vault (docs_dir) read, the tags and
    headings of each note's fresh text to be read with its check (the site needs them)."""
    return VaultState.load(Path(config.docs_dir), fresh_outlines=True)


class EntryPointPlugin(VaultkitPlugin):
    """The `vaultkit` plugin as MkDocs loads it (pyproject's entry point): the site renderer's
    plugin, given the vault's state by the command that loaded the config, else (`mkdocs
    build`, `mkdocs serve`) made here from the config's docs_dir."""

    def on_config(self, config):
        if self.state is None:
            self.state = site_state(config)
        return super().on_config(config)


CACHE_DIR = ".vaultkit-cache"


class BuildCache:
    """What a build into a site folder keeps for the next one, in `.vaultkit-cache/<folder's
    name>/` beside it: the vault's state (`VaultState.save`) and the record of each page
    (`render.Built`), each written whole once its build is done (a crash leaves the last); each
    page's search part in `search.sqlite` (`SearchParts`: read one at a time when asked, the
    rows of the pages rendered written again in one transaction); and the vaultkit that wrote
    them (`VERSION`, taken away while the others are written): a cache without it is not used,
    another vaultkit's is refused (said, and built anew). `templates/` holds the theme's
    templates compiled (jinja2's cache, each file written whole and keyed by its template's
    source)."""

    def __init__(self, site_dir: Path):
        self.folder = site_dir.parent / CACHE_DIR / site_dir.name
        self.version = f"vaultkit {__version__} {_code_digest()}"

    def restore(self, root: Path) -> tuple[VaultState, Affected, Built] | None:
        """The kept state brought up to date with the vault's files, what that changed, and the kept pages; None
        (the build starts anew) when there is no cache, or it is another vaultkit's."""
        try:
            version = (self.folder / "VERSION").read_text(encoding="utf-8")
        except OSError:
            return None
        if version != self.version:
            print(
                f"vaultkit: the build cache in {self.folder} is from another vaultkit "
                f"({version.split()[1] if len(version.split()) > 1 else 'unknown'}, code {version[-12:]}); "
                "building from scratch",
                file=sys.stderr,
            )
            return None
        restored = VaultState.restore(self.folder / "state.pickle", _state_header(root))
        built = self._load("pages.pickle")
        if restored is None or not isinstance(built, Built) or not (self.folder / SEARCH_PARTS).is_file():
            return None
        built.parts = SearchParts(self.folder / SEARCH_PARTS)
        return restored[0], restored[1], built

    def save(self, state: VaultState, built: Built, root: Path) -> None:
        import pickle

        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "VERSION").unlink(missing_ok=True)  # until every file is whole
        state.save(self.folder / "state.pickle", _state_header(root))
        partial = self.folder / "pages.pickle.partial"
        with collector(enabled=False):
            with open(partial, "wb") as out:
                pickle.dump(replace(built, rendered=[], searches={}, parts={}), out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(partial, self.folder / "pages.pickle")
            SearchParts.write(self.folder / SEARCH_PARTS, built)
        (self.folder / "VERSION").write_text(self.version, encoding="utf-8")

    def _load(self, name: str):
        import pickle

        try:
            with collector(enabled=False), open(self.folder / name, "rb") as kept:
                return pickle.load(kept)
        except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError, ValueError):
            return None


SEARCH_PARTS = "search.sqlite"


class SearchParts(Mapping):
    """The search parts of the pages of a kept build (`render.Built.parts`), by site path, each
    read from the file when asked (an incremental build asks for those of the pages it renders)."""

    def __init__(self, path: Path):
        self.path = path
        self._db: sqlite3.Connection | None = None

    def _rows(self, query: str, *args) -> list:
        if self._db is None:
            self._db = sqlite3.connect(self.path)
        return self._db.execute(query, args).fetchall()

    def __getitem__(self, dest: str):
        import pickle

        rows = self._rows("SELECT part FROM parts WHERE dest = ?", dest)
        if not rows:
            raise KeyError(dest)
        return pickle.loads(rows[0][0])

    def __iter__(self):
        return iter([dest for (dest,) in self._rows("SELECT dest FROM parts ORDER BY dest")])

    def __len__(self) -> int:
        return self._rows("SELECT count(*) FROM parts")[0][0]

    @staticmethod
    def write(path: Path, built: Built) -> None:
        """Keep `built`'s parts in `path`, in one transaction: all anew when it rendered every
        page, else those of the pages it rendered (the rest are those the file holds) with the
        rows of pages that are gone deleted."""
        import pickle

        whole = built.searches.keys() == built.pages.keys()
        if whole:
            path.unlink(missing_ok=True)
            path.with_name(path.name + "-journal").unlink(missing_ok=True)  # a crashed write's, never to be replayed
        with closing(sqlite3.connect(path)) as db, db:
            db.execute("CREATE TABLE IF NOT EXISTS parts (dest TEXT PRIMARY KEY, part BLOB NOT NULL)")
            gone = [(dest,) for (dest,) in db.execute("SELECT dest FROM parts") if dest not in built.pages]
            db.executemany("DELETE FROM parts WHERE dest = ?", gone)
            db.executemany(
                "INSERT OR REPLACE INTO parts VALUES (?, ?)",
                ((dest, pickle.dumps(part, protocol=pickle.HIGHEST_PROTOCOL)) for dest, part in built.searches.items()),
            )  # one row pickled at a time: at 6,570 pages, all at once would be 200 MB more


def _code_digest() -> str:
    """A digest of vaultkit's own files: a cache from other code is another vaultkit's."""
    import hashlib

    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    for path in sorted(package.rglob("*")):
        if path.is_file() and path.suffix in (".py", ".css", ".js", ".html", ".yml"):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _state_header(root: Path) -> tuple:
    """What a kept state was read with beside the vault's notes: the vault's place and its
    Obsidian settings (they decide what is ignored, where attachments go, how lines break)."""
    import hashlib

    settings = Path(root, ".obsidian")
    kept = sorted(settings.glob("*.json")) if settings.is_dir() else []
    return str(Path(root).resolve()), [(path.name, hashlib.sha256(path.read_bytes()).hexdigest()) for path in kept]


def build_command(root: Path, output: str | None, strict: bool, clean: bool = False, verbose: bool = False) -> int:
    """Build the site, then print the check's diagnostics and summary (also when the build failed).

    `--strict` exits 1 on any error of the vault and on any warning of MkDocs (a real site
    problem); an optional asset that is absent (mermaid, KaTeX) never fails it: absent mermaid is
    mentioned last, when the vault has diagrams. The build starts from what the last one into
    the same folder kept (`BuildCache`) unless `clean`; `verbose` lists the pages rendered."""
    logging.basicConfig(format="%(levelname)s - %(message)s", level=logging.WARNING)
    plugin = state = None
    try:
        config = load_site_config(Path(root), output)
        config.strict = strict
        plugin = config.plugins.get("vaultkit")
        if plugin is None:
            print("vaultkit: the mkdocs.yml has no `vaultkit` plugin; add it under `plugins:`", file=sys.stderr)
            return 2
        if renders_alike(config):
            cache = BuildCache(Path(config.site_dir))
            restored = None if clean else cache.restore(Path(config.docs_dir))
            state = plugin.state = restored[0] if restored else site_state(config)
            # the pages of `mkdocs build`, rendered on every core (those whose inputs changed)
            built = build_site(
                config,
                state,
                kept=restored[2] if restored else None,
                templates=None if clean else cache.folder / "templates",
            )
            if not (restored and not restored[1] and not built.rendered):  # else the cache holds as it is
                cache.save(state, built, Path(config.docs_dir))
            if verbose:
                for rel in built.rendered:
                    print(f"rendered {rel}", file=sys.stderr)
                print(f"vaultkit: {len(built.rendered)} of {len(built.pages)} pages rendered", file=sys.stderr)
        else:
            state = plugin.state = site_state(config)
            build(config)
        failure = None
    except ConfigError as exc:  # as MkDocs' own config errors: the build fails, the vault is checked
        failure = BUILD_FAILED.at(".", 1, 1, problem=str(exc))
    except ValueError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return 2
    except (MkDocsException, OSError) as exc:
        failure = BUILD_FAILED.at(".", 1, 1, problem=_why(exc, strict))
    if state is None:  # the config failed before the vault was read: check it all the same
        state = VaultState.load(Path(root))
    state.compute_notes()  # on every core, unless the site checked them all
    report, _ = state.report()
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
