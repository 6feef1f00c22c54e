"""What `mkdocs build` does, with each page rendered on its own: the one renderer of
`vaultkit build` (pages shared out to worker processes) and `vaultkit serve` (pages rendered
when requested).

It uses MkDocs' public pieces (get_files, get_navigation, Page.read_source and render,
get_context, the plugin events) in the order `mkdocs build` runs them, so its pages have the
bytes of `mkdocs build`'s (tests/test_serve.py and tests/test_site.py compare them); the
internals it needs are in `mkdocs_glue`. A strict build fails, as `mkdocs build --strict`
does, when anything (in any worker) logged a warning.
"""

from __future__ import annotations

import gc
import gzip
import io
import logging
import os
import tempfile
from collections import ChainMap, Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from urllib.parse import urlsplit

from jinja2 import FileSystemBytecodeCache
from material.plugins.search.plugin import SearchPlugin as MaterialSearch
from mkdocs import utils
from mkdocs.commands.build import get_context
from mkdocs.exceptions import Abort
from mkdocs.structure.files import File, Files, InclusionLevel, get_files, set_exclusions
from mkdocs.structure.nav import get_navigation

from vaultkit.renderers.site import mkdocs_glue, reuse, search_index
from vaultkit.renderers.site.plugin import Progress
from vaultkit.workers import collector, cpu_count, fork_map, usable_jobs


class SiteRenderer:
    """The vault's MkDocs site, ready to render any page: config, files, navigation, theme."""

    def __init__(self, config, state, templates: Path | None = None):
        """`config`: a loaded MkDocs config with the vaultkit plugin; `state`: the vault's state
        (`vaultkit.state.VaultState`) the command made; notes it has not checked yet are
        checked here, each page drafted meanwhile. `templates`: a folder where the theme's
        templates are kept compiled (jinja2's bytecode cache, keyed by each template's source)
        for the next build; None compiles them anew."""
        self.plugin = config.plugins.get("vaultkit")
        if self.plugin is None:
            raise ValueError("the mkdocs.yml has no `vaultkit` plugin; add it under `plugins:`")
        self.plugin.state = state
        self.plugin.show_progress = False
        self.config = config = config.plugins.on_config(config)
        config.plugins.on_pre_build(config=config)
        self.search = next(iter(mkdocs_glue.searches(config)), None)
        self.env = config.theme.get_env()
        if templates is not None:  # material's 44 templates: compiled once, not on every build
            self.env.bytecode_cache = FileSystemBytecodeCache(_folder(templates))
        self.theme_files = Files([])  # the theme's static files, listed once
        self.theme_files.add_files_from_theme(self.env, config)
        self.closed_sections = mkdocs_glue.ClosedSections()
        self.gather()
        self.env = config.plugins.on_env(self.env, config=config, files=self.files)
        self.closed_sections.install(self.env)

    def gather(self) -> None:
        """Files and navigation of the vault as it is now (what `mkdocs build` does before pages)."""
        config = self.config
        files = get_files(config)
        for file in self.theme_files:  # as Files.add_files_from_theme: the vault's files win
            if files.get_file_from_path(file.src_uri) is None:
                files.append(file)
        files = config.plugins.on_files(files, config=config)
        set_exclusions(files, config)
        nav = get_navigation(files, config)
        self.nav = config.plugins.on_nav(nav, config=config, files=files)
        self.closed_sections.follow(self.nav)
        self.files = files
        self.doc_files = files.documentation_pages()

    def render(self, file: File, site=None) -> tuple[bytes, list]:
        """Populate and build one page as `mkdocs build` does: its HTML and search entries.
        `site`, when given, is the model the page's HTML is made from (else the plugin's)."""
        config, files, page = self.config, self.files, file.page
        if site is not None and mkdocs_glue.is_vault_page(page):
            mkdocs_glue.adopt(page, partial(self.plugin.render_page, model=site))
        page = config.plugins.on_pre_page(page, config=config, files=files)
        page.read_source(config)
        page.markdown = config.plugins.on_page_markdown(page.markdown, page=page, config=config, files=files)
        page.render(config, files)
        page.content = config.plugins.on_page_content(page.content, page=page, config=config, files=files)
        entries = mkdocs_glue.page_entries(self.search) if self.search else []
        start = len(entries)
        page.active = True
        try:
            context = get_context(self.nav, self.doc_files, config, page)
            template = self.env.get_template(page.meta.get("template", "main.html"))
            context = config.plugins.on_page_context(context, page=page, config=config, nav=self.nav)
            output = template.render(context)
            output = config.plugins.on_post_page(output, page=page, config=config)
        finally:
            page.active = False
            mine = entries[start:]
            del entries[start:]
        return output.encode("utf-8", errors="xmlcharrefreplace"), mine

    def template(self, name: str) -> bytes:
        """A theme template (404.html, sitemap.xml) as `mkdocs build` renders it."""
        config = self.config
        template = config.plugins.on_pre_template(self.env.get_template(name), template_name=name, config=config)
        base_url = urlsplit(config.site_url or "/").path if utils.is_error_template(name) else "."
        context = get_context(self.nav, self.files, config, base_url=base_url)
        context = config.plugins.on_template_context(context, template_name=name, config=config)
        output = config.plugins.on_post_template(template.render(context), template_name=name, config=config)
        return output.encode("utf-8")

    def search_files(self, entries: list[list]) -> dict[str, bytes]:
        """The search index of the pages' `entries` (each page's, in page order), by site path, as a build writes it."""
        config = mkdocs_glue.search_config(self.search)
        return dict(search_index.index_files(config, [search_index.page_search(page) for page in entries]))


def renders_alike(config) -> bool:
    """Whether `build_site` makes what `mkdocs build` makes with this config: it builds no extra
    templates, and knows how to index pages for material's search only."""
    searches = [plugin for name, plugin in config.plugins.items() if name.endswith("search")]
    return not config.extra_templates and all(isinstance(plugin, MaterialSearch) for plugin in searches)


class WarningCount(logging.Handler):
    """Keeps what is logged at WARNING or above (what `--strict` fails on): (logger, level, message)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.logged: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.logged.append((record.name, record.levelno, record.getMessage()))

    def take(self) -> list[tuple[str, int, str]]:
        """What was logged since the last `take`."""
        logged, self.logged = self.logged, []
        return logged

    @property
    def counts(self) -> Counter[str]:
        return Counter(logging.getLevelName(level) for _, level, _ in self.logged)


@dataclass
class Built:
    """What a build leaves for the next one: the config's digest its pages were rendered with,
    a record of each page (by its file's site path), what it wrote of the search index, the
    pages it rendered, their search parts (`searches`, by site path), every page's (`parts`:
    those, over the parts kept from the build before; the cache keeps them apart and reads
    one when asked), and what each static file's copy was made from (`_copy_static`)."""

    config: str
    pages: dict[str, reuse.PageRecord]
    index: search_index.IndexWritten | None = None  # None: no search index written
    rendered: list[str] = field(default_factory=list)
    searches: dict[str, search_index.PageSearch | None] = field(default_factory=dict)
    parts: Mapping[str, search_index.PageSearch | None] = field(default_factory=dict)
    static: dict[str, tuple] = field(default_factory=dict)  # site path -> (its source, its copy's size and time)


def _folder(path: Path) -> str:
    path.mkdir(parents=True, exist_ok=True)
    return str(path)


def build_site(
    config, state, jobs: int | None = None, kept: Built | None = None, templates: Path | None = None
) -> Built:
    """`mkdocs build` of the vault whose `state` the command made, with its pages rendered in
    `jobs` forked worker processes (None: one per CPU), each writing its pages; the output is
    byte-identical to `mkdocs build`, and with `config.strict` it fails as `mkdocs build
    --strict` does. `kept`: what the previous build into the same folder left; its pages whose
    inputs are the same are kept as they are, the pages of notes that are gone removed;
    `templates`: where the theme's compiled templates are kept (`SiteRenderer`)."""
    with collector(enabled=False):
        return _build_site(config, state, jobs, kept, templates)


def _build_site(config, state, jobs: int | None, kept: Built | None, templates: Path | None) -> Built:
    warnings = WarningCount()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(warnings)
    try:
        renderer = SiteRenderer(config, state, templates)
        config = renderer.config
        digest = config_digest(config)
        previous = kept.pages if kept is not None and kept.config == digest else None
        if previous is None:
            utils.clean_directory(config.site_dir)
        started = _now(config.site_dir)
        static = _copy_static(renderer.files, kept.static if previous is not None and kept is not None else {})
        records, searches, rendered = _render_all(renderer, jobs, warnings, previous or {})
        before = kept.parts if previous is not None and kept is not None else {}
        parts = ChainMap(searches, before)
        written = {file.dest_uri for file in renderer.files if not file.is_documentation_page()}
        written |= {dest for dest, record in records.items() if record.written is not None}
        for name in config.theme.static_templates:
            if name not in records:  # `mkdocs build` writes templates first: a page of that name wins
                written |= _write_template(renderer, name)
        config.plugins.on_post_build(config=config)  # material's search writes an empty index ...
        index = None  # ... and vaultkit its own, in pieces
        if renderer.search is not None:
            shown = mkdocs_glue.search_config(renderer.search)
            if previous is not None and kept.index is not None and records.keys() == previous.keys():
                changes = [(before[dest], part) for dest, part in searches.items()]
                index = search_index.update_index(config.site_dir, shown, kept.index, changes)
            if index is None:
                index = search_index.write_index(
                    config.site_dir, shown, [parts[f.dest_uri] for f in renderer.doc_files]
                )
            written |= index.files.keys()
        if previous is not None:
            _remove_stale(config.site_dir, written, started)
        if config.strict and warnings.logged:
            counts = ", ".join(f"{n} {level.lower()}s" for level, n in sorted(warnings.counts.items()))
            raise Abort(f"Aborted with {counts} in strict mode!")
        return Built(digest, records, index, rendered, searches, parts, static)
    except Exception as error:
        config.plugins.on_build_error(error=error)
        raise
    finally:
        logger.removeHandler(warnings)


def config_digest(config) -> str:
    """A digest of what every page's bytes depend on beside the vault and vaultkit itself:
    MkDocs' and material's versions, the files of the theme's other folders (a custom_dir),
    and the config as the plugins left it (theme, extra CSS and JavaScript, the site's URL,
    each plugin's options, ...)."""
    import hashlib
    from importlib.metadata import version

    import material
    import mkdocs

    digest = hashlib.sha256()
    for name in ("mkdocs", "mkdocs-material"):
        digest.update(f"{name} {version(name)}\n".encode())
    installed = [Path(package.__file__).resolve().parent for package in (mkdocs, material)]
    for folder in config.theme.dirs:
        if any(Path(folder).resolve().is_relative_to(package) for package in installed):
            continue  # its files are those of the version above (material's are some 14,000)
        for path in sorted(Path(folder).rglob("*")):
            if path.is_file():
                stat = path.stat()
                digest.update(f"{path}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode("utf-8", "surrogateescape"))
    shown = {key: value for key, value in config.items() if key not in ("plugins", "theme")}
    shown["theme"] = dict(config.theme.items())
    shown["plugins"] = {name: dict(plugin.config.items()) for name, plugin in config.plugins.items()}
    digest.update(repr(_canonical(shown)).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def _canonical(value):
    """`value` with the same repr in every process: mappings and sets sorted, objects by type
    unless their repr holds no address."""
    if isinstance(value, dict):
        return sorted((str(key), _canonical(item)) for key, item in value.items())
    if isinstance(value, (set, frozenset)):
        return sorted(repr(_canonical(item)) for item in value)
    if isinstance(value, (list, tuple)):
        return [_canonical(item) for item in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    shown = repr(value)
    return type(value).__qualname__ if " at 0x" in shown else shown


def _now(site_dir: str) -> int:
    """The time of the file system that holds the site (a file written after has a later or equal time)."""
    os.makedirs(site_dir, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=site_dir, prefix=".vaultkit-") as marker:
        return os.stat(marker.name).st_mtime_ns


def _copy_static(files: Files, kept: dict[str, tuple]) -> dict[str, tuple]:
    """Copy the site's static files as `Files.copy_static_files` does, but for those whose
    source (`mkdocs_glue.static_source`) and copy (size and time) are those `kept` says the
    build before left: their copies are left as they are. What to keep for the next build."""
    copied = {}
    for file in files:
        if file.is_documentation_page() or not InclusionLevel.is_included(file.inclusion):
            continue
        source = mkdocs_glue.static_source(file)
        if source is None or kept.get(file.dest_uri) != (source, reuse.written(file.abs_dest_path)):
            file.copy_file()
        if source is not None:
            copied[file.dest_uri] = (source, reuse.written(file.abs_dest_path))
    return copied


def _remove_stale(site_dir: str, written: set[str], started: int) -> None:
    """Remove what an earlier build left that this one did not make: the files outside
    `written` (site paths) not changed since `started` (another plugin's output), and the
    folders left empty."""
    emptied: set[str] = set()
    for folder, folders, names in os.walk(site_dir, topdown=False):
        base = os.path.relpath(folder, site_dir).replace(os.sep, "/")
        prefix = "" if base == "." else base + "/"
        left = len(folders) - sum(os.path.join(folder, name) in emptied for name in folders)
        for name in names:
            path = os.path.join(folder, name)
            if prefix + name not in written and os.stat(path).st_mtime_ns < started:
                os.unlink(path)
            else:
                left += 1
        if folder != site_dir and not left:
            os.rmdir(folder)
            emptied.add(folder)


def _render_all(
    renderer: SiteRenderer, jobs: int | None, warnings: WarningCount, previous: dict[str, reuse.PageRecord]
) -> tuple[dict[str, reuse.PageRecord], dict[str, search_index.PageSearch | None], list[str]]:
    """Render and write every page whose record in `previous` does not hold (its inputs or its
    file changed); the record of each page by site path, the search parts of the pages
    rendered (by site path), and the pages rendered. Workers send back each page's record,
    which holds the warnings it logged (already shown by the worker): they are added to
    `warnings`, and those of the pages kept are logged again."""
    pages = renderer.doc_files
    inputs = reuse.Inputs(renderer.plugin.model, pages)
    records: dict[int, reuse.PageRecord] = {}
    parts: dict[int, search_index.PageSearch | None] = {}
    for i, file in enumerate(pages):
        record = previous.get(file.dest_uri)
        if (
            record is not None
            and record.written == reuse.written(file.abs_dest_path)
            and record.inputs == inputs.digest(file.src_uri, record.reads, record.asked)
        ):
            records[i] = record
            for name, level, message in record.warnings:
                logging.getLogger(name).log(level, message)
    todo = [i for i in range(len(pages)) if i not in records]
    progress = Progress(len(todo))
    jobs = usable_jobs(cpu_count() if jobs is None else jobs)
    # The first page is rendered here, before any fork: the theme's templates get compiled and
    # the search's word segmenter loads its dictionary once, not once per worker.
    first = 1 if jobs > 1 else len(todo)
    for i in todo[:first]:
        records[i], parts[i] = _render_counting(renderer, inputs, warnings, i)
        progress.step()
    rest = sorted(todo[first:], key=partial(_page_size, renderer), reverse=True)  # largest first
    if rest:
        gc.collect()
        gc.freeze()  # the workers share the parent's objects; untouched, they are never copied
        work = partial(_render_counting, renderer, inputs, warnings)
        try:  # this process renders pages too, and each page leaves cycles
            with collector(enabled=True):
                for i, (record, part) in fork_map(work, rest, jobs, setup=partial(_start_worker, warnings)):
                    records[i], parts[i] = record, part
                    progress.step()
        finally:
            gc.unfreeze()
    progress.done()
    for i in todo:
        warnings.logged += records[i].warnings
    for i, file in enumerate(pages):
        file.page.update_date = records[i].update_date
    return (
        {file.dest_uri: records[i] for i, file in enumerate(pages)},
        {pages[i].dest_uri: parts[i] for i in todo},
        [pages[i].src_uri for i in todo],
    )


def _render_page(
    renderer: SiteRenderer, inputs: reuse.Inputs, i: int
) -> tuple[reuse.PageRecord, search_index.PageSearch | None]:
    """Render and write page `i`; its record and its part of the search index. What it parsed
    and rendered is freed: a build's memory stays bounded."""
    file = renderer.doc_files[i]
    model, rel = renderer.plugin.model, file.src_uri
    recorder = reuse.Recorder(model, rel)
    html, entries = renderer.render(file, recorder)
    if html.strip():
        utils.write_file(html, file.abs_dest_path)
    reads, asked = recorder.record()
    record = reuse.PageRecord(
        inputs=inputs.digest(rel, reads, asked),
        reads=reads,
        asked=asked,
        update_date=file.page.update_date,
        warnings=(),
        written=reuse.written(file.abs_dest_path) if html.strip() else None,
    )
    mkdocs_glue.release(file.page)
    model.release(rel)
    return record, search_index.page_search(entries)


def _render_counting(
    renderer: SiteRenderer, inputs: reuse.Inputs, warnings: WarningCount, i: int
) -> tuple[reuse.PageRecord, search_index.PageSearch | None]:
    """Page `i` rendered (in a worker, or in the process that forked them), with the warnings
    it logged, taken out of `warnings`: the caller adds them to its own."""
    before = warnings.take()
    record, part = _render_page(renderer, inputs, i)
    record.warnings = tuple(warnings.take())
    warnings.logged = before
    return record, part


def _start_worker(warnings: WarningCount) -> None:
    """A page worker keeps its own warnings, and collects garbage again: what the parent
    made is frozen (never scanned), and each page leaves cycles (the theme's templates)."""
    gc.enable()
    warnings.logged = []


def _page_size(renderer: SiteRenderer, i: int) -> int:
    """About how much work page `i` is: its text, and the theme's frame around it."""
    model, rel = renderer.plugin.model, renderer.doc_files[i].src_uri
    note = model.vault.notes.get(rel)
    return 4000 + len(note.text if note is not None else model.generated.get(rel, ""))


def _write_template(renderer: SiteRenderer, name: str) -> set[str]:
    """Write a theme template (404.html, sitemap.xml and its gzip); the site paths written."""
    output = renderer.template(name)
    if not output.strip():
        return set()
    path = os.path.join(renderer.config.site_dir, name)
    utils.write_file(output, path)
    if name == "sitemap.xml":  # gzipped as `mkdocs build` does, dated by the newest page
        pages = [f.page for f in renderer.doc_files if f.page is not None]
        buffer = io.BytesIO()
        with gzip.GzipFile(
            fileobj=buffer, filename=f"{path}.gz", mode="wb", mtime=utils.get_build_timestamp(pages=pages)
        ) as gz:
            gz.write(output)
        utils.write_file(buffer.getvalue(), f"{path}.gz")
        return {name, f"{name}.gz"}
    return {name}
