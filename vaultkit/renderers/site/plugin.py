"""The vaultkit MkDocs plugin: publishes an Obsidian vault (docs_dir) with mkdocs-material.

Thin: the vault's checked state is handed down by the command that builds or serves the site
(`state`; under plain `mkdocs build`, by `vaultkit.commands.build.EntryPointPlugin`, the class
MkDocs loads); pages are rendered from the notes' tokens by `note_html` (Python-Markdown renders
none of them); the vault as the site sees it is `model`; `pages`, `nav`, `mermaid` and `katex` do
the rest, and `mkdocs_glue` holds what vaultkit needs of MkDocs' and material's internals.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

from mkdocs.config import config_options as opt
from mkdocs.config.base import Config
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, event_priority, get_plugin_logger
from mkdocs.structure.files import File, Files
from pymdownx.slugs import slugify as pymdownx_slugify

from vaultkit.renderers.site import meta, mkdocs_glue, pages, search_index
from vaultkit.renderers.site.callout_css import callout_css, property_css
from vaultkit.renderers.site.drafts import Drafts
from vaultkit.renderers.site.katex import SITE_DIR as KATEX_DIR
from vaultkit.renderers.site.katex import find_katex_dist, katex_files
from vaultkit.renderers.site.mermaid import SITE_PATH as MERMAID_PATH
from vaultkit.renderers.site.mermaid import find_mermaid_js, missing_note, notes_with_diagrams
from vaultkit.renderers.site.model import SiteModel
from vaultkit.renderers.site.nav import build_nav, nav_order
from vaultkit.renderers.site.note_html import RenderedNote, render_note

log = get_plugin_logger(__name__)


class Progress:
    """`rendering page i/N` on one terminal line; silent when stderr is not a terminal."""

    def __init__(self, total: int, shown: bool = True):
        self.total, self.count = total, 0
        self.shown = shown and sys.stderr.isatty()

    def step(self) -> None:
        self.count += 1
        if self.shown and self.count <= self.total:
            sys.stderr.write(f"\rvaultkit: rendering page {self.count}/{self.total}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.shown and self.count:
            sys.stderr.write("\n")


ASSETS = Path(__file__).parent / "assets"
CSS_PATH = "assets/vaultkit/vaultkit.css"
JS_PATH = "assets/vaultkit/vaultkit.js"
FEED_PATH = "feed.xml"
SECTIONS_UP_TO = 1000  # notes: a larger vault's top-level folders are links on the pages not in them


class VaultkitConfig(Config):
    tags_page = opt.Type(str, default="tags.md")
    tags_title = opt.Optional(opt.Type(str))  # default: "Tags" in the site's language
    backlinks_title = opt.Optional(opt.Type(str))
    feed = opt.Type(bool, default=True)
    report = opt.Optional(opt.Type(str))  # the report note `watch`, `serve` and `check --report` keep (report_note.py)


class VaultkitPlugin(BasePlugin[VaultkitConfig]):
    supports_multiple_instances = False

    def __init__(self):
        self.model: SiteModel | None = None
        self.state = None  # the vault's state (`vaultkit.state.VaultState`), handed down by the command
        self.show_progress = True
        self.files: Files | None = None
        self.mermaid_js: Path | None = None
        self.katex: dict[str, Path] = {}  # site path -> file, when KaTeX was found
        self.drafts: Drafts | None = None  # a build's pages, drafted while its notes are checked
        self.diagrams: tuple[SiteModel | None, int] = (None, 0)  # the model, and its notes with mermaid diagrams

    def on_config(self, config):
        self._configure_markdown(config)
        config.site_url = meta.site_url(config.site_url)  # the sitemap's and the feed's addresses
        state = self.state
        if state is None:
            raise PluginError(
                "the vaultkit plugin was given no vault state: this MkDocs found vaultkit's plugin by an old "
                "entry point; reinstall vaultkit (`pip install -e .` in a checkout)"
            )
        self.own_nav = config.nav is None
        model = SiteModel(
            state.vault,
            self.slugify,
            tags_page=self.config.tags_page,
            language=config.theme.get("language") or "en",
            state=state,
        )
        if state.pending():  # notes still to check: each page drafted where its note is checked (drafts.py)
            home = meta.home_note(model.published)
            model.page_urls = {  # as MkDocs' files will have them (`on_files`)
                rel: pages.at_root(File(rel, config.docs_dir, config.site_dir, config.use_directory_urls), home).url
                for rel in [*model.published, *filter(model.publishes, model.attachments), self.config.tags_page]
            }
            self.drafts = Drafts(model, mermaid=bool(self.mermaid_js))
            state.compute_notes(then=self.drafts.write)  # on all cores when worth it
        self.use_model(model, config)
        self._prune_navigation(config)
        config.extra_css.append(CSS_PATH)  # mermaid and KaTeX: only on the pages that need them (render_page)
        config.extra_javascript.append(JS_PATH)
        return config

    def use_model(self, model: SiteModel, config) -> None:
        """Publish `model`: the home page it needs, and the navigation of its notes (unless
        the mkdocs.yml lists its own). `vaultkit serve` calls it again after each watch pass."""
        self.model = model
        meta.add_dates(model.published.values(), model.vault.root)  # dates the front matter lacks
        titles = {rel: note.title for rel, note in model.published.items()}
        self.home = None if pages.has_home(titles) else pages.HOME_PAGE
        self.labels = pages.site_labels(model.language)
        if self.home:
            titles[self.home] = self.labels["title"]
        if self.own_nav:
            tags_title = self.config.tags_title or self.labels["tags"]
            config.nav = build_nav(titles, extra=[{tags_title: self.config.tags_page}])

    def _prune_navigation(self, config) -> None:
        """Each page carries only the navigation it shows (material's `navigation.prune`): the
        top level, and the folders on the way to the page. With the whole tree on every page,
        the build would grow with the square of the number of notes. `navigation.sections`
        draws every top-level folder open on every page: a vault of more than
        `SECTIONS_UP_TO` notes has its other folders as links, as the rest of the tree."""
        if config.theme.name == "material":
            features = config.theme.get("features") or []
            if "navigation.prune" not in features:
                features = [*features, "navigation.prune"]
            if len(self.model.published) > SECTIONS_UP_TO and "navigation.sections" in features:
                log.info(f"more than {SECTIONS_UP_TO} notes: other folders are links, not open sections")
                features = [feature for feature in features if feature != "navigation.sections"]
            config.theme["features"] = features

    def on_post_page(self, output, page, config):
        return mkdocs_glue.compact_navigation(output)

    def _configure_markdown(self, config) -> None:
        """The heading anchors of pages (the `toc` extension's `slugify` when mkdocs.yml sets
        one), and the optional assets."""
        self.slugify = (config.mdx_configs.get("toc") or {}).get("slugify") or pymdownx_slugify(case="lower")
        # Optional assets from npm, looked for from the config's folder up. Absent, they are
        # no problem; a variable that names something absent is a warning (--strict fails).
        start = Path(config.config_file_path or config.docs_dir).resolve().parent
        try:
            self.mermaid_js = find_mermaid_js(start)
        except PluginError as exc:
            log.warning(str(exc))
            self.mermaid_js = None
        try:
            dist = find_katex_dist(start)
        except PluginError as exc:
            log.warning(str(exc))
            dist = None
        self.katex = katex_files(dist) if dist else {}

    def on_files(self, files: Files, config) -> Files:
        model = self.model
        docs_dir = os.path.abspath(config.docs_dir)
        home = meta.home_note(model.published)
        for file in list(files):
            pages.at_root(file, home)
            # Judge every file found under docs_dir by where MkDocs found it, not where it
            # resolves to: MkDocs follows symlinks, and the vault model does not.
            from_vault = file.generated_by is None and file.src_dir and os.path.abspath(file.src_dir) == docs_dir
            if from_vault and not model.publishes(file.src_uri):
                files.remove(file)
        for rel, svg in model.figures.items():
            if model.publishes(rel):
                files.remove(files.get_file_from_path(rel))
                files.append(File.generated(config, rel, content=svg))
        model.generated = {self.config.tags_page: pages.tags_markdown(model)}
        if self.home:
            firsts: dict[str, str] = {}
            for rel in nav_order(model.published):
                firsts.setdefault(rel.split("/", 1)[0] if "/" in rel else "", rel)
            model.generated[self.home] = pages.home_markdown(model, firsts)
        for rel, markdown in model.generated.items():
            files.append(File.generated(config, rel, content=markdown))
        css = (ASSETS / "vaultkit.css").read_text(encoding="utf-8") + callout_css(model.vault.settings.callout_styles)
        css += property_css()
        files.append(File.generated(config, CSS_PATH, content=css))
        if self.mermaid_js:
            files.append(File.generated(config, MERMAID_PATH, abs_src_path=str(self.mermaid_js)))
        for site_path, path in self.katex.items():
            files.append(File.generated(config, site_path, abs_src_path=str(path)))
        files.append(File.generated(config, JS_PATH, abs_src_path=str(ASSETS / "vaultkit.js")))
        for worker in [file for file in files if mkdocs_glue.is_search_worker(file.src_uri)]:
            files.remove(worker)  # material's, which loads the whole index: vaultkit's reads it in pieces
            files.append(File.generated(config, worker.src_uri, abs_src_path=str(ASSETS / "search-worker.js")))
        self.files = files
        model.page_urls = {file.src_uri: file.url for file in files}
        self.progress = Progress(len(files.documentation_pages()), self.show_progress)
        return files

    def on_nav(self, nav, config, files):
        """Every page of the vault is rendered by vaultkit, and gets its note's front matter
        before any page is rendered, as `mkdocs build` has it once all pages are read: the
        theme's navigation shows other pages' `status`, `icon` and `subtitle`, so a page
        rendered alone needs them too."""
        mkdocs_glue.searches(config)
        for file in files.documentation_pages():
            page, rel = file.page, file.src_uri
            note = self.model.published.get(rel)
            if note is not None or rel in self.model.generated:
                mkdocs_glue.adopt(page, self.render_page)
            if note is not None and not page.meta:
                page.meta = dict(note.front.data)
            if note is not None:  # a navigation written in mkdocs.yml may name the page without a title
                mkdocs_glue.pin_title(page, note.title)
        return nav

    def on_page_markdown(self, markdown, page, config, files):
        self.progress.step()
        note = self.model.published.get(page.file.src_uri)
        if note is not None:
            page.meta["title"] = note.title
            page.meta["tags"] = note.tags
            mkdocs_glue.set_update_date(page, (pages.note_date(note) or pages.FIXED_DATE).isoformat())
        return markdown

    def render_page(self, page, model=None) -> RenderedNote:
        """A page's HTML, table of contents and search sections, from its note's tokens;
        `model`, when given, stands for the plugin's (serve records what a page reads)."""
        model, rel = model or self.model, page.file.src_uri
        of_plugin = getattr(model, "model", model) is self.model  # the model, or a recorder of it (reuse.py)
        rendered = self.drafts.take(rel, model) if self.drafts is not None and of_plugin else None
        if rendered is None:
            rendered = render_note(model, rel, mermaid=bool(self.mermaid_js))
        if rel in model.published:
            rendered.html = pages.note_page_html(model, rel, rendered) + pages.backlinks_html(
                model, rel, self.config.backlinks_title or self.labels["backlinks"]
            )
        mermaid, katex = MERMAID_PATH if self.mermaid_js else None, KATEX_DIR if self.katex else None
        rendered.html += pages.scripts_html(rendered.html, model.page_url(rel), mermaid, katex)
        return rendered

    def on_build_error(self, error):
        self._remove_drafts()

    def _remove_drafts(self) -> None:
        if self.drafts is not None:
            self.drafts.remove()
            self.drafts = None

    def mermaid_shown_as_code(self) -> str | None:
        """The note for the end of a build whose mermaid diagrams are shown as code, if any."""
        if self.mermaid_js or self.model is None:
            return None
        if self.diagrams[0] is not self.model:  # once per model: each note with a diagram is parsed again
            self.diagrams = (self.model, len(notes_with_diagrams(self.model.published.values())))
        return missing_note(self.diagrams[1]) if self.diagrams[1] else None

    @event_priority(-100)  # after material's search has written its index
    def on_post_build(self, config):
        self.progress.done()
        for search in mkdocs_glue.searches(config):  # under `mkdocs build`: the pages' entries, in pieces
            if entries := mkdocs_glue.page_entries(search):
                by_page = itertools.groupby(entries, key=lambda entry: entry["location"].split("#", 1)[0])
                parts = [search_index.page_search(list(group)) for _, group in by_page]
                search_index.write_index(config.site_dir, mkdocs_glue.search_config(search), parts)
        self._remove_drafts()
        if note := self.mermaid_shown_as_code():
            log.info(note)  # `vaultkit build` prints it itself, last
        if self.config.feed:
            urls = {rel: self.files.get_file_from_path(rel).url for rel in self.model.published}
            feed = pages.feed_xml(self.model, config.site_name, config.site_url or "", urls)
            Path(config.site_dir, FEED_PATH).write_text(feed, encoding="utf-8")
