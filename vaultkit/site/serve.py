"""`vaultkit serve`: `vaultkit watch` plus the site, rebuilt page by page, with live reload.

The site is built once into a temp folder with MkDocs (keeping its files, navigation and Jinja
environment). After each watch pass only the affected pages are rendered again: the edited
notes, the notes that link to or embed them, the notes whose backlinks changed, and the tags
page when tags changed; changed figures and attachments are rewritten; the search index and
feed are regenerated. When a note appears, disappears, changes its title or publish state, the
navigation changes on every page, so the whole site is rebuilt. MkDocs' LiveReloadServer serves
the folder and reloads the browsers when a rebuild is done.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from mkdocs import livereload
from mkdocs.commands.build import _build_page, _populate_page, build
from mkdocs.plugins import BasePlugin

from ..watch import PassResult, Watcher, print_pass
from .build import load_site_config
from .model import SiteModel, inline_tags

SEARCH_PLUGINS = ("search", "material/search")


class _Keep(BasePlugin):
    """Records what a MkDocs build made, so single pages can be rebuilt later."""

    def on_nav(self, nav, config, files):
        self.nav, self.files = nav, files

    def on_env(self, env, config, files):
        self.env = env


class LiveSite:
    """The built site of a vault and its incremental rebuild after a watch pass."""

    def __init__(self, root: Path, site_dir: Path):
        self.root = Path(root)
        self.site_dir = Path(site_dir)
        self.full_build()

    def full_build(self) -> None:
        self.config = load_site_config(self.root, str(self.site_dir))
        self.kept = _Keep()
        self.config.plugins["vaultkit-serve"] = self.kept
        build(self.config)
        self.plugin = self.config.plugins["vaultkit"]

    def update(self, result: PassResult, vault) -> int | None:
        """Rebuild what `result` affects; the number of pages rebuilt, None for a full build."""
        old = self.plugin.model
        new = SiteModel(vault, self.plugin.slugify, tags_page=self.plugin.config.tags_page, language=old.language)
        titles = {rel: note.title for rel, note in new.published.items()}
        unknown = [rel for rel in new.figures if self.kept.files.get_file_from_path(rel) is None]
        if result.structure_changed or unknown or titles != {rel: n.title for rel, n in old.published.items()}:
            self.full_build()
            return None
        touched = {rel for rel in (*result.changed, *result.written) if rel in new.published}
        pages = set(touched)
        for rel in touched:
            pages.update(old.backlinks(rel), new.backlinks(rel))
        pages.update(rel for rel in new.published if old.backlinks(rel) != new.backlinks(rel))
        tags_changed = any(_tags(old, rel) != _tags(new, rel) for rel in touched)
        old_figures = old.figures
        self.plugin.model = new
        files = self.kept.files
        if tags_changed:
            from . import pages as site_pages

            files.get_file_from_path(new.tags_page).content_string = site_pages.tags_markdown(
                new, self.plugin.config.tags_title)
            pages.add(new.tags_page)
        self._copy_files(result, old_figures, new)
        self._build_pages(sorted(pages))
        return len(pages)

    def _copy_files(self, result: PassResult, old_figures: dict[str, str], model: SiteModel) -> None:
        files = self.kept.files
        figures = model.figures
        for rel, svg in figures.items():
            if old_figures.get(rel) != svg and model.publishes(rel):
                file = files.get_file_from_path(rel)
                file.content_string = svg
                file.copy_file()
        for rel in result.changed:
            if rel not in figures and not rel.lower().endswith(".md") and model.publishes(rel):
                files.get_file_from_path(rel).copy_file()

    def _build_pages(self, rels: list[str]) -> None:
        config, files, nav = self.config, self.kept.files, self.kept.nav
        pages = [files.get_file_from_path(rel).page for rel in rels]
        search = next((config.plugins[name] for name in SEARCH_PLUGINS if name in config.plugins), None)
        if search is not None:
            urls = {page.url for page in pages}
            index = search.search_index
            index.entries = [e for e in index.entries if e["location"].partition("#")[0] not in urls]
        for page in pages:
            _populate_page(page, config, files)
        doc_files = files.documentation_pages()
        for page in pages:
            _build_page(page, config, doc_files, nav, self.kept.env)
        if search is not None:
            search.on_post_build(config=config)
        self.plugin.on_post_build(config)


def _tags(model: SiteModel, rel: str) -> list[str]:
    note = model.published.get(rel)
    return [] if note is None else note.tags + inline_tags(model.text(rel))


def _parse_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"address must be HOST:PORT, got {address!r}")
    return host.strip("[]"), int(port)


class LiveServer(livereload.LiveReloadServer):
    """MkDocs' live-reload server, told by the watcher when a new version of the site is ready.

    Relies on two internals of mkdocs 1.6's LiveReloadServer: the wanted/visible epoch pair
    (requests wait while they differ; browsers reload when the visible one grows) and the
    injection of the reload script, which it does only when it watches a path.
    """

    def __init__(self, host: str, port: int, root: Path):
        super().__init__(builder=lambda: None, host=host, port=port, root=str(root))
        self._watched_paths[str(root)] = 1  # inject the reload script; the files are not polled

    @contextmanager
    def rebuilding(self):
        """Hold page requests while the site is rebuilt, then reload the browsers."""
        with self._epoch_cond:
            self._wanted_epoch = livereload._timestamp()
        try:
            yield
        finally:
            with self._epoch_cond:
                self._visible_epoch = self._wanted_epoch
                self._epoch_cond.notify_all()


class Reloader:
    """Runs after each watch pass: print it, rebuild the site, reload the browsers."""

    def __init__(self, site: LiveSite, server: LiveServer, watcher: Watcher):
        self.site, self.server, self.watcher = site, server, watcher

    def __call__(self, result: PassResult) -> None:
        print_pass(result)
        started = time.perf_counter()
        with self.server.rebuilding():
            count = self.site.update(result, self.watcher.syncer.vault)
        what = "the whole site" if count is None else f"{count} page{'s' * (count != 1)}"
        print(f"Rebuilt {what} ({(time.perf_counter() - started) * 1000:.0f} ms)", flush=True)


def serve_command(root: Path, address: str) -> int:
    try:
        host, port = _parse_address(address)
    except ValueError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return 2
    site_dir = Path(tempfile.mkdtemp(prefix="vaultkit-site-"))
    try:
        try:
            site = LiveSite(root, site_dir)
        except ValueError as exc:
            print(f"vaultkit: {exc}", file=sys.stderr)
            return 2
        server = LiveServer(host, port, site_dir)
        watcher = Watcher(root)
        watcher.on_pass = Reloader(site, server, watcher)
        watcher.start()
        print(f"Serving {root} on {server.url} (live reload). Press Ctrl-C to stop.", flush=True)
        try:
            server.serve()
        except KeyboardInterrupt:
            print("Stopped.")
        except OSError as exc:  # the address is taken or not ours
            print(f"vaultkit: cannot serve on {address}: {exc.strerror}", file=sys.stderr)
            return 2
        finally:
            server.shutdown()
            watcher.stop()
        return 0
    finally:
        shutil.rmtree(site_dir, ignore_errors=True)
