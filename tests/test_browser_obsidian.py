"""Callouts, tasks and media of the reading-view fixture vault in headless Chromium: each
callout type and alias has its family's colour (its title's computed colour) and Lucide icon
(the mask of its title's icon), a vault snippet's type its own; a callout is Obsidian's box;
task boxes are Obsidian's squares, checked ones struck through; the pages log no console error. Screenshots go to the tmp dir.

Playwright (PyPI) drives Debian's /usr/bin/chromium (see tests/test_browser.py); skips when
either is absent.
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from vaultkit.commands.build import build_command

from .test_browser import CHROMIUM, FLAGS, serve
from .test_site_obsidian import LOOKS, VAULT

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install playwright)")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

SNIPPET_TYPE = ("harvest", (200, 120, 30), "bug")  # tests/fixtures/obsidian/reading-view/vault/.obsidian/snippets


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser-obsidian")
    assert build_command(VAULT, str(root / "site"), strict=False) == 0
    server, base = serve(root / "site")
    yield base, root
    server.shutdown()


@pytest.fixture(scope="module")
def page(served):
    with sync_api.sync_playwright() as playwright:
        chrome = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        tab = chrome.new_page(viewport={"width": 1100, "height": 900}, locale="en-US")
        tab.errors = []
        tab.on("console", lambda message: message.type == "error" and tab.errors.append(message.text))
        tab.on("pageerror", lambda error: tab.errors.append(str(error)))
        yield tab
        chrome.close()


CALLOUT_LOOKS = """
[...document.querySelectorAll('article .vk-callout')].map(el => {
  const title = el.querySelector(':scope > .admonition-title, :scope > summary');
  const icon = getComputedStyle(title, '::before');
  return [el.dataset.callout, getComputedStyle(title).color, icon.maskImage || icon.webkitMaskImage];
})
"""


def test_each_callout_type_has_its_colour_and_icon(served, page):
    base, root = served
    page.goto(base + quote("Callout types/"))
    looks = page.evaluate(CALLOUT_LOOKS)
    page.screenshot(path=root / "callouts.png", full_page=True)
    assert len(looks) >= 30
    expected = {kind: LOOKS.get(kind, LOOKS["note"]) for kind, _, _ in looks}  # an unknown type: a note
    expected[SNIPPET_TYPE[0]] = SNIPPET_TYPE[1:]
    wrong = []
    for kind, color, mask in looks:
        rgb, icon = expected[kind]
        shown_icon = re.search(r"lucide-([a-z0-9-]+)", mask)
        if color != f"rgb({rgb[0]}, {rgb[1]}, {rgb[2]})" or not shown_icon or shown_icon.group(1) != icon:
            wrong.append((kind, color, shown_icon and shown_icon.group(1), rgb, icon))
    assert not wrong
    kinds = {kind for kind, _, _ in looks}
    assert {"faq", "help", "hint", "important", "tldr", "check", "done", "error", "fail", "cite"} <= kinds
    assert not page.errors


BOX = """
(() => {
  const box = document.querySelector('article .vk-callout[data-callout="note"]');
  const style = getComputedStyle(box), title = box.querySelector('.admonition-title');
  const icon = getComputedStyle(title, '::before');
  const body = getComputedStyle(box.querySelector('.admonition-title + p'));
  return {
    border: [style.borderLeftWidth, style.borderTopWidth], radius: style.borderTopLeftRadius,
    background: style.backgroundColor, padding: style.padding,
    titleWeight: getComputedStyle(title).fontWeight, icon: [icon.width, icon.height],
    bodySize: body.fontSize, pageSize: getComputedStyle(document.querySelector('article')).fontSize,
  };
})()
"""


def test_a_callout_is_obsidians_box(served, page):
    """Obsidian's default callout: no border, a 10% tint of its colour, 4px corners, padding
    12px 12px 12px 24px, the text at the page's size, a title of weight 600 after an 18px
    icon; a foldable one has its chevron right after its title, not at the far edge."""
    base, root = served
    page.goto(base + quote("Callout types/"))
    box = page.evaluate(BOX)
    assert box["border"] == ["0px", "0px"] and box["radius"] == "4px"
    assert box["background"] == "rgba(8, 109, 221, 0.1)"
    assert box["padding"] == "12px 12px 12px 24px"
    assert box["titleWeight"] == "600" and box["icon"] == ["18px", "18px"]
    assert box["bodySize"] == box["pageSize"]
    chevron = page.evaluate(
        "(() => { const s = getComputedStyle(document.querySelector('article details.vk-callout > summary'), '::after');"
        " return [s.position, s.display, s.width]; })()"
    )
    assert chevron[:2] == ["relative", "inline-block"] and chevron[2] != "0px"  # in the title's line, after it
    assert not page.errors


def test_checked_tasks_are_struck_through(served, page):
    base, root = served
    page.goto(base + quote("Chores/"))
    items = page.evaluate(
        "[...document.querySelectorAll('article li.task-list-item')].map(li => "
        "[li.dataset.task, li.querySelector('input').checked, getComputedStyle(li).textDecorationLine])"
    )
    page.screenshot(path=root / "chores.png")
    assert items == [
        [" ", False, "none"],
        ["x", True, "line-through"],
        ["?", True, "line-through"],
        ["-", True, "line-through"],
        [">", True, "line-through"],
    ]
    # the box: Obsidian's (a square of the text's size, 4px corners, grey border open; the
    # accent and a white tick checked), not material's round tick
    boxes = page.evaluate(
        "[...document.querySelectorAll('article li.task-list-item .task-list-indicator')].map(el => {"
        " const box = getComputedStyle(el, '::before'), tick = getComputedStyle(el, '::after');"
        " return [box.width, box.height, box.borderTopLeftRadius, box.borderTopWidth, box.backgroundColor,"
        " box.maskImage, tick.content, tick.backgroundColor]; })"
    )
    open_box, checked = boxes[0], boxes[1:]
    assert open_box[:5] == ["16px", "16px", "4px", "1px", "rgba(0, 0, 0, 0)"] and open_box[5] == "none"
    assert open_box[6] in ("none", "normal")  # no tick
    for box in checked:
        assert box[:5] == ["16px", "16px", "4px", "1px", "rgb(138, 92, 245)"] and box[5] == "none"
        assert box[6] == '""' and box[7] == "rgb(255, 255, 255)"


def test_media_embeds_are_players_and_sized_images(served, page):
    base, root = served
    page.goto(base + quote("Recordings/"))
    counts = page.evaluate(
        "['article audio[controls]', 'article video[controls]', 'article iframe.vk-youtube', 'a.vk-embed-card']"
        ".map(s => document.querySelectorAll(s).length)"
    )
    assert counts == [2, 1, 1, 1]
    widths = page.evaluate("[...document.querySelectorAll('article img')].map(i => i.getBoundingClientRect().width)")
    assert widths == [120, 100, 80]
    page.screenshot(path=root / "recordings.png", full_page=True)


def test_pdfs_are_viewers_of_their_height(served, page):
    base, root = served
    page.goto(base + quote("Planting plans/"))
    frames = page.evaluate(
        "[...document.querySelectorAll('article iframe.vk-pdf')].map(f => {"
        " const r = f.getBoundingClientRect(), a = f.closest('article').getBoundingClientRect();"
        " return [Math.round(r.height), Math.round(r.width) === Math.round(a.width), getComputedStyle(f).borderTopWidth]; })"
    )
    assert frames == [[800, True, "0px"], [800, True, "0px"], [400, True, "0px"], [800, True, "0px"]]
    page.screenshot(path=root / "plans.png")
    assert not page.errors


PROPERTY_ROWS = """
[...document.querySelectorAll('article .vk-properties dt')].map(dt => {
  const icon = getComputedStyle(dt, '::before');
  const mask = icon.maskImage || icon.webkitMaskImage;
  return [dt.textContent, (mask.match(/lucide-([a-z-]+)/) || [])[1], icon.width,
          dt.nextElementSibling.textContent];
})
"""


def test_properties_have_their_type_icon_and_dates_in_the_readers_format(served, page):
    base, root = served
    page.goto(base + quote("Seed log/"))
    rows = {name: (icon, width, value) for name, icon, width, value in page.evaluate(PROPERTY_ROWS)}
    page.screenshot(path=root / "properties.png")
    icons = {name: icon for name, (icon, _, _) in rows.items()}
    assert icons == {
        "aliases": "forward",
        "tags": "tags",
        "created": "calendar",
        "watered": "clock",
        "related": "text",
        "source": "text",
        "organic": "square-check",
        "trays": "binary",
    }
    assert all(width != "0px" for _, width, _ in rows.values())
    assert rows["created"][2] == "03/02/2024" and rows["watered"][2] == "03/09/2024, 07:45 AM"  # en-US
    other = page.context.browser.new_page(locale="de-DE")
    other.goto(base + quote("Seed log/"))
    shown = other.evaluate("[...document.querySelectorAll('article time.vk-date')].map(t => t.textContent)")
    other.close()
    assert shown == ["02.03.2024", "09.03.2024, 07:45"]
    assert not page.errors


def test_nested_ordered_lists_keep_their_numbers(served, page):
    base, root = served
    page.goto(base + quote("Markup examples/"))
    styles = page.evaluate("[...document.querySelectorAll('article ol')].map(ol => getComputedStyle(ol).listStyleType)")
    assert styles == ["decimal", "decimal", "decimal"]


def test_headings_have_obsidians_sizes_and_weights(served, page):
    base, root = served
    page.goto(base + quote("Seed log/"))
    shown = page.evaluate(
        "(() => { const base = parseFloat(getComputedStyle(document.querySelector('article')).fontSize);"
        " return [...document.querySelectorAll('article h1, article h2, article h3, article h4, article h5, article h6')]"
        ".map(h => { const s = getComputedStyle(h); return [h.tagName, Math.round(parseFloat(s.fontSize) / base * 1000),"
        " s.fontWeight, s.color === getComputedStyle(h.parentElement).color, s.textTransform]; }); })()"
    )
    assert shown == [
        ["H1", 1802, "700", True, "none"],
        ["H2", 1602, "600", True, "none"],
        ["H3", 1424, "600", True, "none"],
        ["H4", 1266, "600", True, "none"],
        ["H5", 1125, "600", True, "none"],
        ["H6", 1000, "600", True, "none"],
    ]


def test_an_embedded_note_has_obsidians_rule(served, page):
    base, root = served
    page.goto(base + quote("Bean trials/"))
    rule = page.evaluate(
        "(() => { const s = getComputedStyle(document.querySelector('article .vk-embed'));"
        " return [s.borderLeftWidth, s.borderLeftStyle, s.borderLeftColor, s.paddingLeft]; })()"
    )
    assert rule == ["2px", "solid", "rgb(138, 92, 245)", "24px"]


def test_a_quote_has_obsidians_rule_and_the_texts_colour(served, page):
    base, root = served
    page.goto(base + quote("Markup examples/"))
    shown = page.evaluate(
        "(() => { const q = document.querySelector('article blockquote'), s = getComputedStyle(q);"
        " return [s.borderLeftWidth, s.borderLeftColor, s.paddingLeft,"
        " s.color === getComputedStyle(q.parentElement).color]; })()"
    )
    assert shown == ["2px", "rgb(138, 92, 245)", "24px", True]


TEXT_LOOKS = """
(() => {
  const style = (selector, pseudo) => getComputedStyle(document.querySelector(selector), pseudo);
  const td = style('article td'), th = style('article th'), link = style('article p a:not([class])');
  const missing = style('article .vk-missing'), page = style('article');
  return {
    cell: [td.borderTopWidth, td.borderLeftWidth, td.paddingTop, td.paddingLeft, td.fontSize === page.fontSize],
    header: th.fontWeight,
    link: [link.color, link.textDecorationLine],
    missing: [missing.color, missing.opacity, missing.textDecorationLine, missing.borderBottomStyle],
    rule: style('article hr').borderBottomWidth,
  };
})()
"""


def test_tables_links_and_rules_look_as_in_obsidian(served, page):
    base, root = served
    page.goto(base + quote("Markup examples/"))
    looks = page.evaluate(TEXT_LOOKS)
    page.screenshot(path=root / "markup.png", full_page=True)
    assert looks == {
        "cell": ["1px", "1px", "4px", "8px", True],
        "header": "600",
        "link": ["rgb(138, 92, 245)", "underline"],
        "missing": ["rgb(138, 92, 245)", "0.7", "underline", "none"],
        "rule": "2px",
    }


def test_a_tag_is_obsidians_pill(served, page):
    base, root = served
    page.goto(base + quote("Seed log/"))
    pill = page.evaluate(
        "(() => { const t = document.querySelector('article p a.vk-tag'), s = getComputedStyle(t);"
        " return [s.color, s.backgroundColor, s.borderTopLeftRadius, s.paddingLeft,"
        " parseFloat(s.fontSize) / parseFloat(getComputedStyle(t.parentElement).fontSize)]; })()"
    )
    assert pill[:2] == ["rgb(138, 92, 245)", "rgba(138, 92, 245, 0.1)"] and pill[4] == 0.875
    assert float(pill[2].removesuffix("px")) >= 10 and pill[3] == f"{0.65 * 0.875 * 16:g}px"
