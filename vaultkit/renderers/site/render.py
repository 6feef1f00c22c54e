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
from collections import Counter
from functools import partial
from urllib.parse import urlsplit

from material.plugins.search.plugin import SearchPlugin as MaterialSearch
from mkdocs import utils
from mkdocs.commands.build import get_context
from mkdocs.exceptions import Abort
from mkdocs.structure.files import File, Files, get_files, set_exclusions
from mkdocs.structure.nav import get_navigation

from vaultkit.renderers.site import mkdocs_glue
from vaultkit.renderers.site.plugin import Progress
from vaultkit.workers import collector, cpu_count, fork_map, usable_jobs


class SiteRenderer:
    """The vault's MkDocs site, ready to render any page: config, files, navigation, theme."""

    def __init__(self, config, state):
        """`config`: a loaded MkDocs config with the vaultkit plugin; `state`: the vault's state
        (`vaultkit.state.VaultState`) the command made; notes it has not checked yet are
        checked here, each page drafted meanwhile."""
        self.plugin = config.plugins.get("vaultkit")
        if self.plugin is None:
            raise ValueError("the mkdocs.yml has no `vaultkit` plugin; add it under `plugins:`")
        self.plugin.state = state
        self.plugin.show_progress = False
        self.config = config = config.plugins.on_config(config)
        config.plugins.on_pre_build(config=config)
        self.search = next(iter(mkdocs_glue.searches(config)), None)
        self.env = config.theme.get_env()
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

    def search_json(self, entries: list) -> bytes:
        """The search index of `entries` (all pages', in page order), as the search plugin writes it."""
        index = self.search.search_index
        index.entries = entries
        try:
            return index.generate_search_index(None).encode("utf-8")
        finally:
            index.entries = []


def renders_alike(config) -> bool:
    """Whether `build_site` makes what `mkdocs build` makes with this config: it builds no extra
    templates, and knows how to index pages for material's search only."""
    searches = [plugin for name, plugin in config.plugins.items() if name.endswith("search")]
    return not config.extra_templates and all(isinstance(plugin, MaterialSearch) for plugin in searches)


class WarningCount(logging.Handler):
    """Counts what is logged at WARNING or above, by level name (what `--strict` fails on)."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.counts: Counter[str] = Counter()

    def emit(self, record: logging.LogRecord) -> None:
        self.counts[record.levelname] += 1


def build_site(config, state, jobs: int | None = None) -> None:
    """`mkdocs build` of the vault whose `state` the command made, with its pages rendered in `jobs` forked worker processes
    (None: one per CPU), each writing its pages; the output is byte-identical to `mkdocs build`,
    and with `config.strict` it fails as `mkdocs build --strict` does."""
    with collector(enabled=False):
        _build_site(config, state, jobs)


def _build_site(config, state, jobs: int | None) -> None:
    warnings = WarningCount()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(warnings)
    try:
        renderer = SiteRenderer(config, state)
        config = renderer.config
        utils.clean_directory(config.site_dir)
        renderer.files.copy_static_files()
        entries = _render_all(renderer, jobs, warnings)
        pages = {file.dest_uri for file in renderer.doc_files}
        for name in config.theme.static_templates:
            if name not in pages:  # `mkdocs build` writes templates first: a page of that name wins
                _write_template(renderer, name)
        config.plugins.on_post_build(config=config)  # material's search writes an empty index ...
        if renderer.search is not None:  # ... and vaultkit the whole one, streamed
            mkdocs_glue.write_search_index(renderer.search, entries, config.site_dir)
        if config.strict and warnings.counts:
            counts = ", ".join(f"{n} {level.lower()}s" for level, n in sorted(warnings.counts.items()))
            raise Abort(f"Aborted with {counts} in strict mode!")
    except Exception as error:
        config.plugins.on_build_error(error=error)
        raise
    finally:
        logger.removeHandler(warnings)


def _render_all(renderer: SiteRenderer, jobs: int | None, warnings: WarningCount) -> list:
    """Render and write every page; their search entries in page order. Workers send back
    only each page's update date (the sitemap needs it) and entries, and the warnings they
    logged (already shown by the worker) are counted in `warnings`."""
    pages = renderer.doc_files
    progress = Progress(len(pages))
    jobs = usable_jobs(cpu_count() if jobs is None else jobs)
    # The first page is rendered here, before any fork: the theme's templates get compiled and
    # the search's word segmenter loads its dictionary once, not once per worker.
    first = 1 if jobs > 1 else len(pages)
    results = {}
    for i in range(min(first, len(pages))):
        results[i] = _render_page(renderer, i)
        progress.step()
    rest = sorted(range(first, len(pages)), key=partial(_page_size, renderer), reverse=True)  # largest first
    if rest:
        gc.collect()
        gc.freeze()  # the workers share the parent's objects; untouched, they are never copied
        work = partial(_render_counting, renderer, warnings)
        try:  # this process renders pages too, and each page leaves cycles
            with collector(enabled=True):
                for i, (result, counts) in fork_map(work, rest, jobs, setup=partial(_start_worker, warnings)):
                    results[i] = result
                    warnings.counts.update(counts)
                    progress.step()
        finally:
            gc.unfreeze()
    progress.done()
    entries = []
    for i, file in enumerate(pages):
        update_date, page_entries = results[i]
        file.page.update_date = update_date
        entries.extend(page_entries)
    return entries


def _render_page(renderer: SiteRenderer, i: int) -> tuple[str, list]:
    """Render and write page `i`; its update date and search entries. What it parsed and
    rendered is freed: a build's memory stays bounded."""
    file = renderer.doc_files[i]
    html, entries = renderer.render(file)
    if html.strip():
        utils.write_file(html, file.abs_dest_path)
    update_date = file.page.update_date
    mkdocs_glue.release(file.page)
    renderer.plugin.model.release(file.src_uri)
    return update_date, entries


def _render_counting(renderer: SiteRenderer, warnings: WarningCount, i: int) -> tuple[tuple[str, list], Counter]:
    """Page `i` rendered (in a worker, or in the process that forked them), and the warnings
    `warnings` holds, taken out of it: the caller adds them to its own count."""
    result = _render_page(renderer, i)
    counts, warnings.counts = warnings.counts, Counter()
    return result, counts


def _start_worker(warnings: WarningCount) -> None:
    """A page worker counts its own warnings, and collects garbage again: what the parent
    made is frozen (never scanned), and each page leaves cycles (the theme's templates)."""
    gc.enable()
    warnings.counts.clear()


def _page_size(renderer: SiteRenderer, i: int) -> int:
    """About how much work page `i` is: its text, and the theme's frame around it."""
    model, rel = renderer.plugin.model, renderer.doc_files[i].src_uri
    note = model.vault.notes.get(rel)
    return 4000 + len(note.text if note is not None else model.generated.get(rel, ""))


def _write_template(renderer: SiteRenderer, name: str) -> None:
    output = renderer.template(name)
    if not output.strip():
        return
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
