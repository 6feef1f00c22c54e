"""The built site in headless Chromium, driven by Playwright: pages open, internal links work,
math is typeset with growing brackets, an SVG is visible, Chinese search finds a result (set
programmatically and typed as a person types it), a folded callout opens on click, mermaid
draws, and no page logs a console error. Screenshots go to the tmp dir.

Playwright (PyPI) drives Debian's /usr/bin/chromium through `executable_path`: no browser is
downloaded. Skips when chromium or playwright is absent.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import threading
from pathlib import Path
from urllib.parse import quote

import pytest

from vaultkit.commands.build import build_command

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

VAULT_NOTES = {
    "index.md": "# 首页\n\n见 [[数学]]、[[图]] 与 [[流程]]。\n",
    "数学.md": "---\ntitle: 注意力公式\n---\n# 注意力\n\n缩放点积：$\\mathrm{softmax}(QK^T/\\sqrt{d_k})V$，价格 $5 到 $10。\n\n$$\nA = \\frac{QK^T}{\\sqrt{d}}\n$$\n\n回到 [[index|首页]]。\n",
    "图.md": "# 图\n\n![[assets/box.svg|400]]\n\n另见 [[数学#注意力]]。\n",
    "流程.md": "# 流程\n\n```mermaid\ngraph LR\n  甲 --> 乙\n```\n\n> [!tip]- 折叠提示\n> 隐藏的内容\n",
}
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#7c3aed"/></svg>'
# no background connections: this machine's network is closed, and the site must need none
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ATTENTION_NOTE = "LLM 推理/04 注意力矩阵推导/"
FORMULA_NOTE = "LLM 推理/03 缩放点积注意力/"


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(site: Path):
    handler = functools.partial(QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="module")
def served_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    vault = root / "vault"
    (vault / "assets").mkdir(parents=True)
    for rel, text in VAULT_NOTES.items():
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / "assets/box.svg").write_text(SVG, encoding="utf-8")
    site = root / "site"
    assert build_command(vault, str(site), strict=False) == 0
    server, base = serve(site)
    yield base, root
    server.shutdown()


@pytest.fixture(scope="module")
def bundled_site(tmp_path_factory):
    """The bundled vault's site, built with the repository's mkdocs.yml."""
    site = tmp_path_factory.mktemp("bundled") / "site"
    assert build_command(ROOT / "vault", str(site), strict=True) == 0
    server, base = serve(site)
    yield base
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chrome = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chrome
        chrome.close()


@pytest.fixture
def page(browser):
    """A fresh page that records console errors and uncaught exceptions."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.errors = []
    page.on("console", lambda message: message.type == "error" and page.errors.append(f"{page.url}: {message.text}"))
    page.on("pageerror", lambda error: page.errors.append(f"{page.url}: {error}"))
    yield page
    context.close()


def test_internal_links_open_real_pages(served_site, page):
    base, root = served_site
    page.goto(base)
    links = page.evaluate(
        "[...document.querySelectorAll('article a[href]')]"
        ".map(a => a.href).filter(h => h.startsWith(location.origin) && !h.includes('#'))"
    )
    assert len(links) >= 3
    for link in links:
        page.goto(link)
        title = page.locator("article h1").first.text_content().replace("\u00b6", "").strip()
        assert title == page.title().rsplit(" - ", 1)[0], link  # the page's title heads it
        assert "404" not in page.title(), link
    page.screenshot(path=root / "home.png")


def test_math_is_typeset(served_site, page):
    base, root = served_site
    page.goto(base + quote("数学/"))
    sizes = page.evaluate(
        "[...document.querySelectorAll('article [data-tex]')].map(m => m.getBoundingClientRect().width)"
    )
    assert len(sizes) == 2 and all(width > 20 for width in sizes)
    assert "价格 $5 到 $10" in page.locator("article").inner_text()
    page.screenshot(path=root / "math.png")


def test_svg_embed_is_visible(served_site, page):
    base, root = served_site
    page.goto(base + quote("图/"))
    page.wait_for_function(
        "(() => { const i = document.querySelector('article img'); return i && i.complete && i.naturalWidth > 0; })()"
    )
    assert page.locator("article img").bounding_box()["width"] == 400
    page.screenshot(path=root / "svg.png")


def test_mermaid_renders_offline(served_site, page):
    base, root = served_site
    page.goto(base + quote("流程/"))
    if page.locator('script[src*="mermaid.min.js"]').count() == 0:
        pytest.skip("mermaid.min.js not found at build time (npm install mermaid)")
    # material swaps <pre class="mermaid"> for a <div class="mermaid"> holding the drawing
    # in a closed shadow root: a drawn diagram is a div with a real height
    page.wait_for_function(
        "(() => { const d = document.querySelector('div.mermaid');"
        " return d && d.getBoundingClientRect().height > 30; })()"
    )
    resources = page.evaluate("performance.getEntriesByType('resource').map(r => r.name)")
    assert [r for r in resources if not r.startswith(base)] == []
    page.screenshot(path=root / "mermaid.png")


SEARCH_NOTES = {  # which pages hold the word `footnote` is the test's own knowledge
    "脚注一.md": "# 脚注一\n\nA footnote at the end.\n",
    "notes/two.md": "# Two\n\n## Details\n\n"
    + "Filler words here. " * 40
    + "Then one footnote, late in the section.\n",
    "notes/three.md": "# Three\n\nFootnotes, in the plural, start with the word.\n",
    "notes/four.md": "# Four\n\nNothing about notes at the foot of a page.\n",
    "五.md": "# 五\n\n缩放点积注意力的推导。\n",
}
FOOTNOTE_PAGES = {"脚注一", "Two", "Three"}


@pytest.fixture(scope="module")
def search_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("search")
    for rel, text in SEARCH_NOTES.items():
        (root / "vault" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "vault" / rel).write_text(text, encoding="utf-8")
    assert build_command(root / "vault", str(root / "site"), strict=False) == 0
    server, base = serve(root / "site")
    yield base, root
    server.shutdown()


def search_for(page, base: str, query: str, typed: bool = True) -> list[str]:
    """Type `query` into material's search box as a person does (else paste it); the titles of the pages found."""
    page.goto(base)
    box = page.locator(".md-search__input")
    box.click()
    if typed:
        box.press_sequentially(query, delay=30)
    else:
        box.fill(query)
    page.wait_for_function(
        "q => document.querySelector('.md-search__input').value === q"
        " && document.querySelectorAll('.md-search-result__item').length > 0",
        arg=query,
    )
    page.wait_for_timeout(300)  # a slower answer to an earlier prefix of the query may not replace it
    return page.locator(".md-search-result__item h1").all_inner_texts()


def test_chinese_search_finds_a_page(served_site, page):
    base, root = served_site
    titles = search_for(page, base, "注意力")
    assert "注意力公式" in titles
    assert "<mark>注意力</mark>" in page.locator(".md-search-result__item").first.inner_html()
    page.screenshot(path=root / "search.png")


def test_a_word_finds_every_page_that_has_it_and_no_other(search_site, page):
    base, root = search_site
    assert set(search_for(page, base, "footnote")) == FOOTNOTE_PAGES
    page.screenshot(path=root / "footnote.png")


def test_a_word_typed_in_part_finds_the_words_it_starts(search_site, page):
    base, _ = search_site
    assert set(search_for(page, base, "footn")) == FOOTNOTE_PAGES
    assert search_for(page, base, "推导") == ["五"]


def test_a_build_from_the_cache_updates_what_search_finds(tmp_path, page):
    """After a note is edited, the index updated in place (only the shards of the words that
    changed) finds the new word on that page, and the other pages' words as before."""
    for rel, text in SEARCH_NOTES.items():
        (tmp_path / "vault" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "vault" / rel).write_text(text, encoding="utf-8")
    assert build_command(tmp_path / "vault", str(tmp_path / "site"), strict=False) == 0
    four = tmp_path / "vault" / "notes" / "four.md"
    four.write_text("# Four\n\nA zanzibar footnote, added later.\n", encoding="utf-8")
    assert build_command(tmp_path / "vault", str(tmp_path / "site"), strict=False) == 0
    server, base = serve(tmp_path / "site")
    try:
        assert search_for(page, base, "zanzibar") == ["Four"]
        assert set(search_for(page, base, "footnote")) == FOOTNOTE_PAGES | {"Four"}
    finally:
        server.shutdown()


def test_a_query_fetches_pieces_of_the_index_not_all_of_it(search_site, page):
    base, root = search_site
    fetched = []
    page.on("request", lambda request: fetched.append(request.url))  # the search worker's too
    search_for(page, base, "footnote", typed=False)
    terms = [url for url in fetched if "/search/terms/" in url]
    shards = len(list((root / "site" / "search" / "terms").iterdir()))
    assert 1 <= len(terms) < shards
    assert len([url for url in fetched if "/search/page/" in url]) == len(FOOTNOTE_PAGES)  # the results' alone


def test_typing_chinese_into_search_returns_results(bundled_site, page, tmp_path):
    page.goto(bundled_site)
    page.locator(".md-search__input").click()
    page.locator(".md-search__input").press_sequentially("注意力", delay=80)
    page.wait_for_function("document.querySelectorAll('.md-search-result__item').length > 0")
    assert "注意力" in page.locator(".md-search-result").inner_text()
    page.screenshot(path=tmp_path / "typed-search.png")


def test_the_attention_note_figure_is_visible(bundled_site, page, tmp_path):
    page.goto(bundled_site + quote(ATTENTION_NOTE))
    figure = page.locator('article img[src*="attention-derivation.svg"]')
    figure.scroll_into_view_if_needed()
    page.wait_for_function(
        "(() => { const i = document.querySelector('article img[src*=\"attention-derivation.svg\"]');"
        " return i && i.complete && i.naturalWidth > 0; })()"
    )
    assert figure.is_visible() and figure.bounding_box()["width"] > 300
    page.screenshot(path=tmp_path / "attention.png")


def test_a_folded_callout_opens_on_click(bundled_site, page):
    page.goto(bundled_site + quote(ATTENTION_NOTE))
    callout = page.locator("article details").first
    assert callout.get_attribute("open") is None
    body = callout.locator("p").first
    assert not body.is_visible()
    callout.locator("summary").click()
    assert callout.get_attribute("open") is not None and body.is_visible()


def test_formulas_render_with_growing_brackets(bundled_site, page, tmp_path):
    page.goto(bundled_site + quote(FORMULA_NOTE))
    page.wait_for_load_state("networkidle")
    # the \\left( ... \\right) around the fraction: its bracket is taller than a bracket in the text
    heights = page.evaluate("""(() => {
      const formula = [...document.querySelectorAll('article div.vk-math')].find(f => f.dataset.tex.includes('\\\\left('));
      const katex = formula.querySelector('.katex-html');
      const glyphs = katex
        ? [...katex.querySelectorAll('span')].filter(s => s.children.length === 0 && s.textContent === '(')
        : [...formula.querySelectorAll('mo')].filter(m => m.textContent === '(');
      return glyphs.map(g => g.getBoundingClientRect().height);
    })()""")
    assert len(heights) >= 2 and max(heights) > 1.8 * min(heights), heights
    roots = page.evaluate("[...document.querySelectorAll('article .katex-html .sqrt, article msqrt')].length")
    assert roots >= 1
    page.locator("article div.vk-math").first.screenshot(path=tmp_path / "formula.png")
    assert page.errors == []


def test_no_page_logs_a_console_error(bundled_site, page):
    page.goto(bundled_site)
    pages = page.evaluate(
        "[...new Set([...document.querySelectorAll('nav a.md-nav__link[href]')]"
        ".map(a => a.href).filter(h => h.startsWith(location.origin)))]"
    )
    assert len(pages) >= 20
    for url in pages:
        page.goto(url)
    assert page.errors == []
