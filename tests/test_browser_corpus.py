"""The real vault's site in headless Chromium (Playwright, Debian's /usr/bin/chromium): the NAT
note's `**现象：**` items are list items, a folded block opens on click, a formula is typeset, a
mermaid diagram is drawn and the attention drawing is shown.

vault146 has no Obsidian callout; its folded blocks are the raw `<details>` of the system-prompt
note, which Obsidian shows folded. Full-page screenshots go to the folder named by
`VAULTKIT_SHOTS` (else the tmp dir). Skips when chromium, playwright or the vault is absent.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path
from urllib.parse import quote

import pytest

from vaultkit.commands.build import build_command

from .conftest import CORPUS, needs_corpus
from .test_browser import CHROMIUM, FLAGS, ROOT, serve, sync_api

pytestmark = [
    needs_corpus,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)"),
]

NAT_NOTE = "02-Issues/Network/阿里云NAT网关SNAT入方向流量异常排查/"
FOLDED_NOTE = "07-Knowledge/how-claude-code-works/14-system-prompt-design/"
FORMULA_NOTE = "07-Knowledge/llm-training/LLM 训练与推理流程/"
MERMAID_NOTE = "07-Knowledge/claude-code-from-scratch/00-introduction/"
DRAWING_NOTE = "07-Knowledge/llm-training/Transformer 架构基础/"
DRAWING = "Multi-Head-Attention.svg"
# the hand-drawn attention matrix: its only embed is inside a code block of DRAWING_NOTE
MATRIX_DRAWING = "注意力矩阵推导.svg"
MERMAID_JS = ROOT / "node_modules" / "mermaid" / "dist" / "mermaid.min.js"


@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser-corpus")
    vault = root / "vault"
    shutil.copytree(CORPUS, vault)
    for path in [vault, *vault.rglob("*")]:
        path.chmod(path.stat().st_mode | 0o200)
    assert build_command(vault, str(root / "site"), strict=False) == 0
    server, base = serve(root / "site")
    yield base
    server.shutdown()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    folder = Path(os.environ.get("VAULTKIT_SHOTS") or tmp_path_factory.mktemp("shots"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        chrome = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield chrome
        chrome.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    yield context.new_page()
    context.close()


def open_note(page, site_url: str, note: str) -> None:
    page.goto(site_url + quote(note))
    page.wait_for_load_state("networkidle")


def test_the_nat_note_shows_its_items_as_lists(site_url, page, shots):
    open_note(page, site_url, NAT_NOTE)
    page.screenshot(path=shots / "nat-lists.png", full_page=True)
    items = page.evaluate(
        "[...document.querySelectorAll('article li')].filter(li => !li.closest('.vk-backlinks'))"
        ".map(li => li.textContent.trim())"
    )
    first = any(item.startswith("入方向带宽高") for item in items)
    assert len(items) >= 70 and first, f"{len(items)} list items in the article; the first 现象 item is one: {first}"


def test_a_folded_block_opens_on_click(site_url, page, shots):
    open_note(page, site_url, FOLDED_NOTE)
    folded = page.locator("article details").first
    was_open, closed = folded.evaluate("d => d.open"), folded.bounding_box()["height"]
    folded.locator("summary").first.click()
    page.screenshot(path=shots / "folded-open.png", full_page=True)
    assert was_open is False and folded.evaluate("d => d.open") is True
    assert folded.bounding_box()["height"] > closed + 40, "the opened block shows nothing more"


def test_a_formula_is_typeset(site_url, page, shots):
    open_note(page, site_url, FORMULA_NOTE)
    page.screenshot(path=shots / "formula.png", full_page=True)
    # the loss: a sum over a fraction, typeset by KaTeX or as the browser's MathML
    fractions = page.evaluate("""[...document.querySelectorAll('article .katex .mfrac, article math mfrac')]
        .map(f => f.getBoundingClientRect()).filter(r => r.width > 5 && r.height > 15).length""")
    assert fractions >= 1, "no typeset fraction in the article"


def mermaid_labels(note: Path) -> list[str]:
    """The node labels of the note's first mermaid block, each up to its first line break."""
    source = note.read_text(encoding="utf-8").split("```mermaid", 1)[1].split("```", 1)[0]
    return [label.strip() for label in re.findall(r"\[([^\]<]+)", source)]


def test_a_mermaid_diagram_is_drawn(site_url, page, shots):
    if not MERMAID_JS.is_file():
        pytest.skip(f"mermaid is not installed at {MERMAID_JS} (npm install mermaid)")
    labels = mermaid_labels(CORPUS / (MERMAID_NOTE.rstrip("/") + ".md"))
    # material draws the diagram into a closed shadow root of <div class="mermaid">: open it, so
    # that the test reads what was drawn
    page.add_init_script(
        "const attach = Element.prototype.attachShadow;"
        " Element.prototype.attachShadow = function (init) { return attach.call(this, {...init, mode: 'open'}); };"
    )
    open_note(page, site_url, MERMAID_NOTE)
    try:
        page.wait_for_function(
            "(() => { const d = document.querySelector('article div.mermaid');"
            " return d && d.shadowRoot && d.shadowRoot.querySelector('svg g.node'); })()",
            timeout=20000,
        )
        drawn = page.evaluate(
            "(() => { const d = document.querySelector('article div.mermaid'); const svg = d.shadowRoot.querySelector('svg');"
            " return {text: svg.textContent, nodes: svg.querySelectorAll('g.node').length,"
            " edges: svg.querySelectorAll('path.flowchart-link, g.edgePaths path').length,"
            " height: svg.getBoundingClientRect().height}; })()"
        )
    finally:
        page.screenshot(path=shots / "mermaid.png", full_page=True)
    assert len(labels) >= 10, f"the note's diagram has {len(labels)} labels"
    missing = [label for label in labels if label not in drawn["text"]]
    assert not missing, f"labels of the source not drawn: {missing}"
    assert drawn["nodes"] >= len(labels) and drawn["edges"] >= len(labels) - 1, drawn
    assert drawn["height"] > 100, drawn


def test_the_attention_drawings_are_shown(site_url, page, shots):
    """The multi-head attention drawing is shown in its note; the attention-matrix drawing, whose
    embed sits in a code block (Obsidian shows that as code), is code there and is drawn at its
    own address."""
    open_note(page, site_url, DRAWING_NOTE)
    find = f"[...document.querySelectorAll('article img')].find(i => decodeURIComponent(i.src).endsWith('{DRAWING}'))"
    try:
        page.wait_for_function(f"(() => {{ const i = {find}; return i && i.complete && i.naturalWidth > 0; }})()")
        width = page.evaluate(f"{find}.getBoundingClientRect().width")
    finally:
        page.screenshot(path=shots / "attention-drawing.png", full_page=True)
    assert width > 300, f"the drawing is {width} px wide"
    code = page.evaluate("[...document.querySelectorAll('article pre')].map(p => p.textContent).join('\\n')")
    assert f"![[assets/{MATRIX_DRAWING}|1000]]" in code
    page.goto(site_url + quote(f"assets/{MATRIX_DRAWING}"))
    assert page.evaluate("document.documentElement.localName") == "svg"
    assert page.evaluate("document.documentElement.getBoundingClientRect().width") > 300
    page.screenshot(path=shots / "attention-matrix-drawing.png")
