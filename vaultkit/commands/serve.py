"""`vaultkit serve`: the watcher plus the site, each page rendered when a browser asks for it.

Ready as soon as the vault is checked (the same `VaultState` as `vaultkit check`, on every core) and
MkDocs has gathered the files and the navigation: no page is rendered before it is requested.
Pages are rendered by `render.SiteRenderer`, as `vaultkit build` renders them. A rendered page
is cached with the inputs it was made from: the navigation, its note's title, tags and date, its
backlinks, the text of every note its transform read (itself, embeds, linked headings) and where
each of its links resolved. After a watch pass, a request compares those inputs with the
vault's new state and renders the page again only when one of them differs, so any change
(edit, new note, deletion, rename, title or tag change, figure rewrite) is seen by the next
request and nothing else is redone. The search index is assembled from the same rendered pages.
Browsers long-poll `/.vaultkit/reload` and reload after each pass.
"""

from __future__ import annotations

import mimetypes
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, quote, unquote, urlsplit

from mkdocs.structure.files import File

from vaultkit.commands.build import load_site_config
from vaultkit.commands.check import checked
from vaultkit.commands.sync import PassResult, Syncer, Watcher, keep_report, print_pass
from vaultkit.commands.usage import format_address
from vaultkit.diagnostics import format_text
from vaultkit.renderers.report_note import configured
from vaultkit.renderers.site import pages
from vaultkit.renderers.site.model import SiteModel
from vaultkit.renderers.site.plugin import FEED_PATH
from vaultkit.renderers.site.render import SiteRenderer
from vaultkit.state import VaultState

RELOAD_PATH = ".vaultkit/reload"  # a dotfile path: never a file of the site
SEARCH_DIR = "search/"  # the search index, in pieces (renderers/site/search_index.py)
RELOAD_WAIT = 25.0  # seconds a reload poll is held open
RELOAD_SCRIPT = (
    '<script>(()=>{{const v={version};const poll=()=>fetch("/' + RELOAD_PATH + '?since="+v)'
    ".then(r=>r.text()).then(t=>{{if(+t>v)location.reload();else poll()}},()=>setTimeout(poll,1000));"
    "poll()}})()</script>"
)


class RecordingSite:
    """The site model as one page's rendering sees it, recording what the page read: every
    note whose text (or what is parsed from it) it asked for, and every link it resolved."""

    # (rel, ...) -> read from rel's text
    NOTE_READS = ("text", "tokens", "section", "outline", "anchor", "heading_ids", "source_lines")

    def __init__(self, model: SiteModel):
        self.model = model
        self.read: set[str] = set()
        self.resolved: set[tuple[str, str]] = set()

    def __getattr__(self, name):
        value = getattr(self.model, name)
        if name not in self.NOTE_READS:
            return value

        def read(rel, *args):
            self.read.add(rel)
            return value(rel, *args)

        return read

    def resolve(self, path: str, source: str):
        self.resolved.add((path, source))
        return self.model.resolve(path, source)


@dataclass
class Rendered:
    html: bytes
    search_entries: list
    read: frozenset[str]
    resolved: frozenset[tuple[str, str]]
    inputs: tuple


NAV_META = ("status", "icon", "subtitle")  # what material's navigation shows of a page's meta


def _nav_meta(meta: dict) -> tuple:
    return tuple(str(meta.get(key)) for key in NAV_META)


class ServedSite:
    """The site of a vault, rendered page by page on request and kept in step with the watcher.

    Everything (watch passes, renders) runs under `lock`; `version` grows after each pass."""

    def __init__(self, root: Path, site_dir: Path, state: VaultState | None = None, config=None):
        """`state`: the vault's, every note checked and its fresh outlines read (else loaded
        and checked here): the site's tags and headings of the notes fix would change come
        from it, not from parsing their fresh text again after every save. `config`: the
        site's MkDocs config, loaded with `site_dir` (else loaded here)."""
        self.root = Path(root)
        self.lock = threading.RLock()
        self.passed = threading.Condition(self.lock)
        self.version = 0
        self.search_kept: tuple[int, dict[str, bytes]] = (-1, {})  # (version, search files) of the last pass asked
        self.stopping = False
        config = config or load_site_config(self.root, str(site_dir))  # site_dir: never written
        # before any thread starts: the notes checked on every core, as check
        self.syncer = Syncer(self.root, state or checked(self.root, fresh_outlines=True))
        self.renderer = SiteRenderer(config, self.syncer.state)
        self.config, self.plugin = self.renderer.config, self.renderer.plugin
        self.cache: dict[str, Rendered] = {}
        self._index_files()

    def _index_files(self) -> None:
        files = self.renderer.files
        self.by_dest = {file.dest_uri: file for file in files}
        self.nav_key = tuple(
            (file.src_uri, file.page.title, _nav_meta(file.page.meta))
            for file in self.renderer.doc_files
            if file.page is not None
        )

    def update(self, result: PassResult) -> None:
        """After a watch pass (under `lock`): the new model, files and navigation; pages are
        rendered again when asked for and their inputs differ."""
        affected = {*result.checked, *result.changed, *result.removed, *result.written}
        model = self.plugin.model.after_pass(self.syncer.state, affected)
        self.plugin.use_model(model, self.config)
        self.renderer.gather()
        self._index_files()
        self.version += 1
        self.passed.notify_all()

    # -- pages ---------------------------------------------------------------------------

    def _inputs(self, file: File, read, resolved) -> tuple:
        """What a page's bytes depend on, as the vault is now."""
        model = self.plugin.model
        rel = file.src_uri
        note = model.published.get(rel)
        if note is None:  # a generated page: the tags index, the home page
            return self.nav_key, file.content_string
        return (
            self.nav_key,
            note.title,
            tuple(map(str, note.tags)),
            pages.note_date(note),
            tuple((src, model.published[src].title) for src in model.backlinks(rel)),
            tuple((r, model.text(r) if r in model.published else None) for r in sorted(read)),
            tuple((key, model.resolve(*key)) for key in sorted(resolved)),
        )

    def page(self, file: File) -> Rendered:
        """The page of `file`, from the cache when none of its inputs changed."""
        with self.lock:
            cached = self.cache.get(file.dest_uri)
            if cached is not None and cached.inputs == self._inputs(file, cached.read, cached.resolved):
                return cached
            recorder = RecordingSite(self.plugin.model)
            html, entries = self.renderer.render(file, recorder)
            read, resolved = frozenset(recorder.read), frozenset(recorder.resolved)
            rendered = Rendered(html, entries, read, resolved, self._inputs(file, read, resolved))
            self.cache[file.dest_uri] = rendered
            return rendered

    def search_files(self) -> dict[str, bytes]:
        """The search index's files of every page, rendering (one page per hold of the lock) the
        ones whose cache is stale, so page requests are answered meanwhile; made once per pass."""
        while True:
            with self.lock:
                version, doc_files = self.version, self.renderer.doc_files
                if self.search_kept[0] == version:
                    return self.search_kept[1]
            rendered = [self.page(file) for file in doc_files]
            with self.lock:
                if version == self.version:  # else a pass came meanwhile: check again
                    files = self.renderer.search_files([page.search_entries for page in rendered])
                    self.search_kept = (version, files)
                    return files

    # -- requests ------------------------------------------------------------------------

    def respond(self, path: str) -> tuple[int, str, bytes]:
        """(status, content type or redirect location, body) for a site path without its leading /."""
        with self.lock:
            file = self.by_dest.get(path + "index.html" if path == "" or path.endswith("/") else path)
            if file is None and path + "/index.html" in self.by_dest:
                return 301, "/" + quote(path) + "/", b""
            if file is not None and file.page is not None:
                return 200, "text/html", self.page(file).html
            if file is not None:
                figure = self.plugin.model.figures.get(file.src_uri)
                body = figure.encode("utf-8") if figure is not None else file.content_bytes
                return 200, mimetypes.guess_type(path)[0] or "application/octet-stream", body
            if path in self.config.theme.static_templates and path != "404.html":
                return 200, mimetypes.guess_type(path)[0] or "text/plain", self.renderer.template(path)
            if path == FEED_PATH and self.plugin.config.feed:
                model = self.plugin.model
                urls = {rel: self.renderer.files.get_file_from_path(rel).url for rel in model.published}
                feed = pages.feed_xml(model, self.config.site_name, self.config.site_url or "", urls)
                return 200, "application/rss+xml", feed.encode("utf-8")
        if path.startswith(SEARCH_DIR) and self.renderer.search is not None and path in self.search_files():
            return 200, "application/json", self.search_files()[path]
        with self.lock:
            return 404, "text/html", self.renderer.template("404.html")

    def wait_for_pass(self, since: int, timeout: float = RELOAD_WAIT) -> int:
        with self.passed:
            self.passed.wait_for(lambda: self.version > since or self.stopping, timeout)
            return self.version

    def stop(self) -> None:
        with self.passed:
            self.stopping = True
            self.passed.notify_all()


class _Handler(BaseHTTPRequestHandler):
    server: SiteServer

    def do_GET(self) -> None:
        site = self.server.site
        url = urlsplit(self.path)
        path = unquote(url.path).lstrip("/")
        if path == RELOAD_PATH:
            since = parse_qs(url.query).get("since", ["0"])[0]
            version = site.wait_for_pass(int(since) if since.isdigit() else 0)
            return self._send(200, "text/plain", str(version).encode())
        status, kind, body = site.respond(path)
        if status == 301:
            self.send_response(301)
            self.send_header("Location", kind)
            self.end_headers()
            return
        if kind == "text/html":
            body = inject_reload(body, site.version)
        self._send(status, kind, body)

    def _send(self, status: int, kind: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header(
            "Content-Type", kind + ("; charset=utf-8" if kind.startswith("text/") or "json" in kind else "")
        )
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args) -> None:  # quiet: the terminal shows the passes
        pass


def inject_reload(html: bytes, version: int) -> bytes:
    script = RELOAD_SCRIPT.format(version=version).encode()
    head, found, tail = html.rpartition(b"</body>")
    return head + script + found + tail if found else html + script


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, listener: socket.socket, site: ServedSite):
        """`listener`: bound and listening already (`cli.listen`), so a taken port was told
        before the check; the server answers on it."""
        self.site = site
        self.address_family = listener.family
        super().__init__(listener.getsockname()[:2], _Handler, bind_and_activate=False)
        self.socket.close()  # the one socketserver made, unbound
        self.socket, self.server_address = listener, listener.getsockname()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{format_address(host, port)}/"

    def handle_error(self, request, client_address) -> None:
        """A browser that closed or reloaded a page (its reload poll too) is no error to report."""
        if not isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipeError, ConnectionResetError
            super().handle_error(request, client_address)


class Reloader:
    """Runs after each watch pass (under the site's lock): print it, update the site."""

    def __init__(self, site: ServedSite):
        self.site = site

    def __call__(self, result: PassResult) -> None:
        print_pass(result)
        started = time.perf_counter()
        self.site.update(result)
        print(f"Site updated ({(time.perf_counter() - started) * 1000:.0f} ms)", flush=True)


def start_watching(site: ServedSite) -> Watcher:
    watcher = Watcher(site.root, on_pass=Reloader(site), syncer=site.syncer, lock=site.lock)
    if configured(site.root):  # the plugin's `report:` option: the report note kept as `watch --report` keeps it
        keep_report(watcher, None)
    watcher.start()
    return watcher


def serve_command(
    root: Path, listener: socket.socket, site_dir: Path, state: VaultState | None = None, config=None
) -> int:
    """Serve on `listener` (`cli.listen`); `site_dir`, `state` and `config` as `ServedSite`'s."""
    try:
        site = ServedSite(root, site_dir, state, config)
    except ValueError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return 2
    server = SiteServer(listener, site)
    report, _ = site.syncer.state.report()
    sys.stdout.write(format_text(report))  # the check of the vault, as `vaultkit check` prints it
    watcher = start_watching(site)
    print(f"Serving {root} on {server.url} (live reload). Press Ctrl-C to stop.", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("Stopped.")
    finally:
        site.stop()
        watcher.stop()
        server.server_close()
    return 0
