"""Pages as Obsidian's reading view shows them, on a small English vault of our own
(tests/fixtures/obsidian/reading-view/vault): callout titles as inline Markdown, callout types
and aliases with their family, task states, media embeds, sized images, page titles, the home
note as the home page, tags merged by case, properties, links to missing notes, the site's
language and name, mermaid and KaTeX only where a page uses them."""

from __future__ import annotations

import re
import shutil
from html import unescape
from pathlib import Path

import pytest

from vaultkit.commands.build import build_command
from vaultkit.readers.markdown import make_parser, parse
from vaultkit.readers.syntax.callouts import FAMILIES, family, snippet_callouts
from vaultkit.renderers.site.callout_css import callout_css, icon_svg
from vaultkit.renderers.site.meta import text_language

from .test_site import render

VAULT = Path(__file__).parent / "fixtures" / "obsidian" / "reading-view" / "vault"
# Obsidian's default look of each callout type (its default theme's colours, Lucide icon names;
# check-circle-2, help-circle and alert-triangle are Lucide's older names of the same icons)
RGB = {"blue": (8, 109, 221), "cyan": (0, 191, 188), "green": (8, 185, 78), "orange": (236, 117, 0)}
RGB |= {"red": (233, 49, 71), "purple": (120, 82, 238), "grey": (158, 158, 158)}
OBSIDIAN_LOOKS = {
    ("note",): ("blue", "pencil"),
    ("abstract", "summary", "tldr"): ("cyan", "clipboard-list"),
    ("info",): ("blue", "info"),
    ("todo",): ("blue", "circle-check"),
    ("tip", "hint", "important"): ("cyan", "flame"),
    ("success", "check", "done"): ("green", "check"),
    ("question", "help", "faq"): ("orange", "circle-help"),
    ("warning", "caution", "attention"): ("orange", "triangle-alert"),
    ("failure", "fail", "missing"): ("red", "x"),
    ("danger", "error"): ("red", "zap"),
    ("bug",): ("red", "bug"),
    ("example",): ("purple", "list"),
    ("quote", "cite"): ("grey", "quote"),
}
LOOKS = {kind: (RGB[color], icon) for kinds, (color, icon) in OBSIDIAN_LOOKS.items() for kind in kinds}


def build(tmp: Path, vault: Path = VAULT) -> Path:
    site = tmp / "site"
    assert build_command(vault, str(site), strict=False) == 0
    return site


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    return build(tmp_path_factory.mktemp("reading-view"))


def page(site: Path, name: str) -> str:
    return (site / name / "index.html").read_text(encoding="utf-8") if name else (site / "index.html").read_text()


def article(site: Path, name: str) -> str:
    html = page(site, name)
    return html[html.index("<article") : html.rindex("</article>")]


# -- callouts --------------------------------------------------------------------------


def test_callout_titles_are_inline_markdown_with_links_and_aliases(site):
    text = article(site, "Callout types")
    summary = re.search(r'<details class="tip vk-callout" data-callout="tip" open>\n<summary>(.*?)</summary>', text)
    assert summary, "the folded tip callout"
    assert summary.group(1) == (
        'Press <code>Tab</code> <strong>twice</strong> for <em>more</em> — see <a href="../Chores/">the chore list</a>'
    )
    assert '<p class="admonition-title">Read <a href="../Seed%20log/#spring">Seed log › Spring</a> first</p>' in text
    titles = re.findall(r'<p class="admonition-title">(.*?)</p>|<summary>(.*?)</summary>', text)
    raw = [t for pair in titles for t in pair if re.search(r"`|\*\*|\[\[|\]\]|\ue000", t)]
    assert not raw


def test_every_callout_type_and_alias_has_its_family_class():
    types = [*FAMILIES, "compost-heap"]
    html = make_parser().render("\n\n".join(f"> [!{kind}]\n> body" for kind in types))
    found = re.findall(r'<div class="admonition ([\w-]+) vk-callout" data-callout="([\w-]+)">', html)
    assert found == [(family(kind), kind) for kind in types]
    assert family("faq") == "question" and family("cite") == "quote" and family("compost-heap") == "note"
    assert family("error") == "danger" and family("missing") == "failure" and family("tldr") == "abstract"


def test_callout_styles_are_obsidians_colours_and_lucide_icons():
    assert set(LOOKS) == set(FAMILIES)
    css = callout_css()
    for kind, (color, icon) in LOOKS.items():
        rule = re.search(rf"\.md-typeset \.vk-callout\.{family(kind)} \{{ (.*?) \}}", css).group(1)
        assert f"--vk-callout-color: {', '.join(map(str, color))};" in rule, kind
        assert f"lucide-{icon}%22" in rule, kind


def test_a_vault_snippet_styles_its_own_callout_type(site):
    styles = snippet_callouts(
        "/* x */ .callout[data-callout=\"harvest\"], .callout[data-callout='crop'] {\n"
        "  --callout-color: 200, 120, 30;\n  --callout-icon: lucide-alert-circle;\n}\n"
        '.callout[data-callout="plain"] { color: red; }'
    )
    assert styles == {
        "harvest": ((200, 120, 30), "lucide-alert-circle"),
        "crop": ((200, 120, 30), "lucide-alert-circle"),
        "plain": (None, None),
    }
    assert "lucide-circle-alert" in icon_svg("lucide-alert-circle") and icon_svg("lucide-no-such-icon") is None
    css = (site / "assets" / "vaultkit" / "vaultkit.css").read_text(encoding="utf-8")
    rule = re.search(r'\.md-typeset \.vk-callout\[data-callout="harvest"\] \{ (.*?) \}', css).group(1)
    assert "--vk-callout-color: 200, 120, 30;" in rule and "lucide-bug" in rule
    assert '<div class="admonition note vk-callout" data-callout="harvest">' in article(site, "Callout types")


# -- tasks, media, titles --------------------------------------------------------------


def test_every_task_status_is_a_box_checked_unless_a_space(site):
    text = article(site, "Chores")
    items = [
        (css, unescape(task))
        for css, task in re.findall(r'<li class="(task-list-item[^"]*)" data-task="([^"]+)">', text)
    ]
    assert items == [
        ("task-list-item", " "),
        ("task-list-item is-checked", "x"),
        ("task-list-item is-checked", "?"),
        ("task-list-item is-checked", "-"),
        ("task-list-item is-checked", ">"),
    ]
    assert text.count('type="checkbox"') == 5 and text.count('checked="checked"') == 4
    assert "[?]" not in text and "[-]" not in text
    css = (site / "assets" / "vaultkit" / "vaultkit.css").read_text(encoding="utf-8")
    assert re.search(r"\.task-list-item\.is-checked \{[^}]*line-through", css)


def test_media_embeds_play_and_images_are_sized(site):
    text = article(site, "Recordings")
    assert '<audio controls src="../media/blackbird.ogg" title="blackbird"></audio>' in text
    assert '<audio controls src="../media/rain.mp3" title="rain"></audio>' in text
    assert '<video controls src="../media/walkthrough.mp4" title="walkthrough"></video>' in text
    assert '<img alt="plot" src="../media/plot.png" width="120">' in text
    assert '<img alt="bed plan" src="../media/plot.png" width="100" height="50">' in text
    assert '<img alt="" src="../media/plot.png" width="80">' in text
    assert 'src="https://www.youtube.com/embed/Xy12_ab-Cd3"' in text and "<iframe" in text
    assert '<a class="vk-embed-card" href="https://twitter.com/gardener/status/1234567890123">' in text
    assert "<img" not in text.split("vk-youtube")[1]  # neither the video nor the post is an image


def test_a_pdf_is_embedded_in_a_viewer_at_its_page_and_height(site):
    text = article(site, "Planting plans")
    frames = re.findall(r'<iframe class="vk-pdf" src="([^"]*)" title="([^"]*)" width="100%" height="(\d+)"', text)
    assert frames == [
        ("../media/planting.pdf", "planting", "800"),
        ("../media/planting.pdf#page=3", "planting", "800"),
        ("../media/planting.pdf", "planting", "400"),
        ("../media/planting.pdf#page=2", "beds", "800"),
    ]
    assert "<a href" not in text.split("</h1>", 1)[1].split("vk-backlinks")[0]  # no PDF shown as a link


def test_a_raw_html_h1_does_not_take_the_title(site):
    text = article(site, "Markup examples")
    assert text.index("<h1>Markup examples</h1>") < text.index("<h1>An HTML heading</h1>")
    assert text.count("<h1") == 2


def test_the_title_is_the_note_name_above_a_heading_of_another_name(site):
    text = article(site, "Bean trials")
    assert re.findall(r"<h1[^>]*>([^<]*)", text) == ["Bean trials", "Trials of runner beans"]
    assert text.index("<h1>Bean trials</h1>") < text.index('<div class="vk-properties">')
    assert text.index('<div class="vk-properties">') < text.index('<h1 id="trials-of-runner-beans">')
    assert "<title>Bean trials - Garden Notes</title>" in page(site, "Bean trials")
    seed = article(site, "Seed log")  # a heading that is the note's name is its title, once
    assert re.findall(r"<h1[^>]*>([^<]*)", seed) == ["Seed log"]


def test_without_the_inline_title_the_own_heading_is_the_title(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    (vault / ".obsidian" / "app.json").write_text('{"showInlineTitle": false}', encoding="utf-8")
    text = article(build(tmp_path, vault), "Bean trials")
    assert re.findall(r"<h1[^>]*>([^<]*)", text) == ["Trials of runner beans"]
    assert text.index('<h1 id="trials-of-runner-beans">') < text.index('<div class="vk-properties">')


def test_the_home_note_is_the_home_page_and_names_the_site(site):
    home = page(site, "")
    assert "<title>Home - Garden Notes</title>" in home and "Garden Notes" in home
    assert not (site / "Home").exists()
    nav = re.findall(r'class="md-nav__link[^"]*"[^>]*>\s*<span class="md-ellipsis">\s*([^<]*?)\s*</span>', home)
    assert nav.count("Home") == 1


# -- language --------------------------------------------------------------------------


def test_an_english_vault_gets_an_english_site(site):
    home = page(site, "")
    assert '<html lang="en"' in home and 'placeholder="Search"' in home
    assert "搜索" not in home and "反向链接" not in home and "标签" not in home
    assert "Backlinks" in page(site, "Chores") and "<h1>Tags</h1>" in page(site, "tags")


def test_the_language_follows_the_notes_or_the_config(tmp_path):
    assert text_language(["Water the beans before noon."]) == "en"
    assert text_language(["浇水要在中午之前完成，豆子需要充足的阳光。", "see `code`"]) == "zh"
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "index.md").write_text("# 菜园\n\n浇水要在中午之前完成，豆子需要充足的阳光。\n", encoding="utf-8")
    assert '<html lang="zh"' in page(build(tmp_path / "zh", vault), "")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: Garden\ndocs_dir: vault\ntheme:\n  name: material\n  language: de\nplugins:\n  - vaultkit\n",
        encoding="utf-8",
    )
    assert '<html lang="de"' in page(build(tmp_path / "de", vault), "")


# -- tags, properties, links ------------------------------------------------------------


def test_tags_are_one_whatever_their_case_shown_as_first_written(site):
    text = article(site, "tags")
    assert re.findall(r"<h2 [^>]*>(#[^<]*)<", text) == ["#Garden", "#log"]
    log = article(site, "Seed log")
    assert log.count('href="../tags/#garden"') == 3 and log.count('href="../tags/#log"') == 2


def test_properties_are_shown_below_the_title(site):
    text = article(site, "Seed log")
    props = text[text.index('<div class="vk-properties">') : text.index("</dl></div>")]
    assert text.index('<h1 id="seed-log">') < text.index('<div class="vk-properties">')
    rows = dict(re.findall(r'<dd data-property="([^"]*)">(.*?)</dd>', props))
    assert list(rows) == ["aliases", "tags", "created", "watered", "related", "source", "organic", "trays"]
    assert (
        rows["aliases"]
        == '<span class="vk-property-item">Seeds</span><span class="vk-property-item">Sowing diary</span>'
    )
    assert '<a class="vk-tag" href="../tags/#garden">#Garden</a>' in rows["tags"]
    assert rows["created"] == '<time class="vk-date" datetime="2024-03-02">2024-03-02</time>'
    assert rows["watered"] == '<time class="vk-date" datetime="2024-03-09T07:45">2024-03-09 07:45</time>'
    assert rows["trays"] == "12"
    assert rows["related"] == '<a href="../Chores/">Chores</a>'
    assert rows["source"] == '<a href="https://example.org/seeds">https://example.org/seeds</a>'
    assert rows["organic"] == '<input type="checkbox" disabled checked>'
    # each row's type, as Obsidian's icon on it shows: tags and aliases by name, else the value's
    types = {name: kind for kind, name in re.findall(r'<dt data-type="([^"]*)">([^<]*)</dt>', props)}
    assert types == {
        "aliases": "aliases",
        "tags": "tags",
        "created": "date",
        "watered": "datetime",
        "related": "text",
        "source": "text",
        "organic": "checkbox",
        "trays": "number",
    }
    css = (site / "assets" / "vaultkit" / "vaultkit.css").read_text(encoding="utf-8")
    icons = dict(
        re.findall(
            r'dt\[data-type="(\w+)"\] \{ --vk-property-icon: url\("data:image/svg\+xml,.*?lucide-([a-z-]+)%22', css
        )
    )
    assert icons == {
        "text": "text",
        "multitext": "list",
        "number": "binary",
        "checkbox": "square-check",
        "date": "calendar",
        "datetime": "clock",
        "tags": "tags",
        "aliases": "forward",
    }


def test_a_property_type_the_vault_sets_is_its_type(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    (vault / ".obsidian" / "types.json").write_text('{"types": {"trays": "text", "tags": "number"}}', encoding="utf-8")
    text = article(build(tmp_path, vault), "Seed log")
    assert '<dt data-type="text">trays</dt>' in text and '<dt data-type="tags">tags</dt>' in text


def test_properties_hidden_where_obsidian_hides_them(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    (vault / ".obsidian" / "app.json").write_text('{"propertiesInDocument": "hidden"}', encoding="utf-8")
    text = article(build(tmp_path, vault), "Seed log")
    assert "vk-properties" not in text and "Sowing diary" not in text
    assert '<p class="vk-tags"><a class="vk-tag" href="../tags/#garden">#Garden</a>' in text  # tags stay


def test_properties_as_source_where_the_vault_says_so(tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    (vault / ".obsidian" / "app.json").write_text('{"propertiesInDocument": "source"}', encoding="utf-8")
    text = article(build(tmp_path, vault), "Seed log")
    assert "vk-properties" not in text
    block = text[text.index('<div class="language-yaml highlight">') : text.index("</code></pre></div>")]
    code = unescape(re.sub(r"<[^>]+>", "", block))
    written = (VAULT / "Seed log.md").read_text(encoding="utf-8").split("# Seed log")[0]
    assert code.strip() == written.strip() and code.startswith("---\naliases:\n  - Seeds")
    assert text.index('<h1 id="seed-log">') < text.index("language-yaml")


def test_cssclasses_are_classes_of_the_whole_note(site):
    text = article(site, "Wide beds").split(">", 1)[1]  # inside <article>
    assert re.match(
        r'\s*<div class="vk-note wide-page Soft-cards">\n<h1>Wide beds</h1>\n<div class="vk-properties">', text
    )
    assert text.rstrip().endswith("</div>") and "Beds wider than a path." in text
    assert text.count("<h1") == 1
    assert "vk-note" not in article(site, "Seed log") and "vk-note" not in article(site, "Chores")


def test_a_markdown_link_to_a_missing_note_is_unresolved_like_a_wikilink(site):
    text = article(site, "Loose ends")
    assert '<span class="vk-missing" title="missing">renamed page</span>' in text
    assert '<span class="vk-missing" title="missing">Compost bins</span>' in text
    assert '<a href="../Chores/">good link</a>' in text and "Compost%20bins" not in text
    # a link to a file that is not a note stays a link, as CommonMark writes it
    out = render("[plan](plan.pdf) and [gone](Nowhere.md#Part)")
    assert '<a href="plan.pdf">plan</a>' in out and '<span class="vk-missing" title="missing">gone</span>' in out


def test_mermaid_and_katex_load_only_where_a_page_uses_them(site):
    pages = {p.parent.name: p.read_text(encoding="utf-8") for p in site.rglob("index.html")}
    with_mermaid = {name for name, html in pages.items() if "mermaid.min.js" in html}
    with_katex = {name for name, html in pages.items() if "katex.min.js" in html or "katex.min.css" in html}
    if (site / "assets/vaultkit/mermaid.min.js").exists():
        assert with_mermaid == {"Loose ends"}
    else:
        assert with_mermaid == set()
    assert with_katex <= {"Loose ends"}
    if (site / "assets/vaultkit/katex/katex.min.js").exists():
        assert with_katex == {"Loose ends"}


def test_the_callout_title_is_an_inline_token_on_the_first_line():
    tokens = parse("> [!tip] See [[Chores|the list]]\n> body\n")
    title = [t for t in tokens if t.type == "inline"][0]
    (link,) = [c for c in title.children if c.type == "wikilink"]
    assert (link.meta["path"], link.meta["alias"], link.meta["line"], link.meta["col"]) == ("Chores", "the list", 1, 14)
