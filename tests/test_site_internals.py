"""What vaultkit relies on of MkDocs' and material's internals (renderers/site/mkdocs_glue.py), checked
against the installed versions: the page attributes `Page.render` fills, and material's search
entries, which vaultkit makes from tokens and material from HTML."""

from __future__ import annotations

import re
from pathlib import Path

from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.files import File
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import get_toc

from tests.test_site import FakeSite
from vaultkit.renderers.site import mkdocs_glue
from vaultkit.renderers.site.note_html import render_note

NOTE = """# 标题

开头的一段话，含 `code` 与 **粗体**。

## 第一节 A

- 列表一
- 列表二 [[other]]

```python
x = 1  # 注释
```

### 小节

| a | b |
|---|---|
| 1 | 2 |

## 第二节

> [!tip] 提示
> 内容 $x^2$
"""


class FakePage:
    """What material's search reads of a page."""

    def __init__(self, note, url="dir/page/"):
        self.meta, self.url, self.title = {"tags": ["t"]}, url, "标题"
        self.content, self.toc, self.search_sections = note.html, get_toc(note.toc()), note.sections


def entries(index: SearchIndex, page) -> list[tuple[str, str, str]]:
    """The entries, without the zero-width spaces material puts between Chinese words (vaultkit puts none)."""
    index.entries = []
    index.add_entry_from_context(page)
    return [
        (
            e["location"],
            e["title"].replace("\u200b", ""),
            " ".join(re.sub(r"</?\w+>", " ", e["text"]).replace("\u200b", "").split()),
            tuple(e["tags"]),
        )
        for e in index.entries
    ]


def test_token_sections_give_the_entries_material_makes_from_the_html():
    note = render_note(FakeSite({"dir/page.md": NOTE, "other.md": ""}), "dir/page.md")
    page = FakePage(note)
    ours, theirs = entries(mkdocs_glue.TokenSearch(), page), entries(SearchIndex(), page)
    assert [e[:2] for e in ours] == [e[:2] for e in theirs]  # sections: locations and titles
    assert [e[3] for e in ours] == [e[3] for e in theirs]
    for mine, material in zip(ours, theirs):
        assert mine[2].replace(" ", "") == material[2].replace(" ", "").replace("x2", "x^2"), (mine, material)


def test_chinese_text_is_left_whole():
    text = "注意力机制的计算过程，以及 KV 缓存如何节省显存。"
    assert mkdocs_glue.TokenSearch()._segment_chinese(text) == text


def test_a_vault_page_fills_what_page_render_fills(tmp_path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    file = File("a.md", str(tmp_path), str(tmp_path / "site"), use_directory_urls=True)
    page = Page(None, file, {"site_url": None})
    filled = {"content", "toc", "present_anchor_ids", "links_to_anchors"}
    assert filled <= set(dir(page))  # the attributes MkDocs reads after `render`
    note = render_note(FakeSite({"a.md": "# A\n\n## B\n"}), "a.md")
    mkdocs_glue.adopt(page, lambda _: note)
    page.render({}, None)
    assert page.content == note.html and [item.id for item in page.toc] == ["a"]
    assert page.present_anchor_ids == {"a", "b"} and page.search_sections == note.sections


def test_a_written_page_is_released_but_keeps_what_the_navigation_and_sitemap_read(tmp_path):
    (tmp_path / "a.md").write_text("# A\n", encoding="utf-8")
    file = File("a.md", str(tmp_path), str(tmp_path / "site"), use_directory_urls=True)
    page = Page("A", file, {"site_url": None})
    note = render_note(FakeSite({"a.md": "# A\n\n## B\n"}), "a.md")
    mkdocs_glue.adopt(page, lambda _: note)
    page.markdown = "# A\n"
    page.render({}, None)
    mkdocs_glue.set_update_date(page, "2026-01-02")
    mkdocs_glue.release(page)
    assert page.markdown is None and page.content is None and page.search_sections is None
    assert list(page.toc) == [] and page.title == "A" and page.url == "a/" and page.update_date == "2026-01-02"
    page.render({}, None)  # serve renders a page again: nothing it needs was released
    assert page.content == note.html


def test_the_search_config_is_the_one_material_writes(tmp_path):
    import json

    from mkdocs.config import load_config

    (tmp_path / "docs").mkdir()
    config = load_config(
        config_file=None,
        docs_dir=str(tmp_path / "docs"),
        site_dir=str(tmp_path / "site"),
        theme={"name": "material", "language": "zh"},
        plugins=["search"],
    )
    config = config.plugins.on_config(config)
    search = mkdocs_glue.searches(config)[0]
    search.search_index.entries = [{"location": "a/", "title": "标题", "text": "x"}]
    expected = json.loads(search.search_index.generate_search_index(None))["config"]
    assert mkdocs_glue.search_config(search) == expected and "separator" in expected
    assert search.search_index.entries == [{"location": "a/", "title": "标题", "text": "x"}]  # left as they were


def test_the_theme_has_the_search_worker_vaultkit_takes_the_place_of():
    from mkdocs.config import load_config
    from mkdocs.structure.files import Files

    config = load_config(config_file=None, theme={"name": "material"})
    files = Files([])
    files.add_files_from_theme(config.theme.get_env(), config)
    assert len([f for f in files if mkdocs_glue.is_search_worker(f.src_uri)]) == 1


def _tree_vault(root, directory_urls: bool):
    """Notes at the root and up to four folders deep, in several top-level folders with
    sections in sections; one folder shares its URL folder with a root note's page (`a.md`
    and `a/`), one with a page beside it (`r/s.md` and `r/s/`)."""
    notes = ["a.md", "b.md", "a/x.md", "a/y/z.md", "c/d/e/f.md", "c/d/g.md", "c/m/n.md", "c/m/o/p.md"]
    notes += ["h/i.md", "h/w.md", "h/j/k.md", "h/j/l/q.md", "r/s.md", "r/s/t/u.md", "r/v/w.md"]
    for rel in notes:
        path = root / "notes" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {rel}\n\n见 [[b]]\n", encoding="utf-8")
    (root / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: notes\n"
        f"use_directory_urls: {'true' if directory_urls else 'false'}\n"
        "theme:\n  name: material\n  features: [navigation.sections, navigation.indexes]\n"
        "plugins: [search, vaultkit]\n",
        encoding="utf-8",
    )
    return root / "notes"


def _builds_like_mkdocs(tmp_path, nav: str = "") -> None:
    """The tree vault (`nav` added to its mkdocs.yml), with directory URLs and without: every
    page `vaultkit build` writes has the bytes of `mkdocs build` (which renders each section of
    the navigation on each page)."""
    from mkdocs.commands.build import build

    from vaultkit.commands.build import load_site_config, site_state
    from vaultkit.renderers.site.render import build_site

    for directory_urls in (True, False):
        root = tmp_path / str(directory_urls)
        vault = _tree_vault(root, directory_urls)
        with open(root / "mkdocs.yml", "a", encoding="utf-8") as config:
            config.write(nav)
        build_site(config := load_site_config(vault, str(root / "ours")), site_state(config), jobs=1)
        build(load_site_config(vault, str(root / "theirs")))
        ours = sorted(p.relative_to(root / "ours") for p in (root / "ours").rglob("*.html"))
        assert len(ours) >= 15
        for rel in ours:
            assert (root / "ours" / rel).read_bytes() == (root / "theirs" / rel).read_bytes(), rel


def test_closed_sections_are_the_navigation_material_renders(tmp_path):
    """Every page's navigation, with the sections it is not in made once per relative URL, is
    material's."""
    _builds_like_mkdocs(tmp_path)


# A navigation of the mkdocs.yml whose sections are not folders: "Some c" shares the folder c
# with pages outside it at the same depth below c, "One h" holds one of the two pages in h.
_NAV = """nav:
  - a.md
  - Some c: [c/d/g.md, c/m/n.md]
  - One h: [h/i.md]
  - Rest: [b.md, a/x.md, a/y/z.md, c/d/e/f.md, c/m/o/p.md, h/w.md, h/j/k.md, h/j/l/q.md]
  - r: [r/s.md, r/s/t/u.md, r/v/w.md]
"""


def test_closed_sections_of_a_written_navigation_are_the_navigation_material_renders(tmp_path):
    """With the mkdocs.yml's own navigation, where a section's pages share a folder with pages
    not in it, every page's navigation is still material's."""
    _builds_like_mkdocs(tmp_path, _NAV)


def test_closed_sections_are_made_once_at_every_level(tmp_path):
    """Sections inside the section a page is in are made once too: material's macro calls
    itself through the hook."""
    from vaultkit.commands.build import load_site_config, site_state
    from vaultkit.renderers.site.render import SiteRenderer

    config = load_site_config(_tree_vault(tmp_path, True), str(tmp_path / "site"))
    renderer = SiteRenderer(config, site_state(config))
    made = []
    renderer.closed_sections.html = Recording(made)
    for file in renderer.doc_files:
        renderer.render(file)
    levels = {key[2] for key in made}
    assert {1, 2, 3} <= levels
    assert len(made) < len(renderer.doc_files) * len(renderer.closed_sections.folders)


class Recording(dict):
    """A dict that lists the keys set in it."""

    def __init__(self, keys: list):
        super().__init__()
        self.keys_set = keys

    def __setitem__(self, key, value):
        self.keys_set.append(key)
        super().__setitem__(key, value)


def test_closed_sections_hook_materials_navigation_macro():
    """material's navigation macro is `render(nav_item, path, level, parent)` of
    partials/nav-item.html, imported with the page's context by partials/nav.html and calling
    itself for the items of a section; a jinja2 macro runs its `_func`."""
    import inspect

    import material
    from jinja2.runtime import Macro

    templates = Path(material.__file__).parent / "templates" / "partials"
    nav = (templates / "nav.html").read_text(encoding="utf-8")
    item = (templates / "nav-item.html").read_text(encoding="utf-8")
    assert f'{{% import "{mkdocs_glue.NAV_ITEM_TEMPLATE}" as item with context %}}' in nav
    assert "item.render(nav_item, path, 1)" in nav
    assert "{% macro render(nav_item, path, level, parent) %}" in item
    assert '{{ render(item, path ~ "_" ~ loop.index, level + 1, nav_item) }}' in item
    assert "self._func(*arguments)" in inspect.getsource(Macro._invoke)


def test_a_static_file_is_made_from_its_content_or_its_source_file(tmp_path):
    """`File.copy_file` writes a file from the content a plugin gave it, else copies its source:
    `static_source` names that, and tells when the copy would be another."""
    import os
    import time

    given = File("given.txt", None, str(tmp_path / "site"), use_directory_urls=True)
    given.content_string = "one"
    assert mkdocs_glue.static_source(given)[0] == "content"
    before = mkdocs_glue.static_source(given)
    given.content_string = "two"
    assert mkdocs_glue.static_source(given) != before
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "pic.svg").write_text("<svg/>", encoding="utf-8")
    copied = File("pic.svg", str(tmp_path / "docs"), str(tmp_path / "site"), use_directory_urls=True)
    assert mkdocs_glue.static_source(copied) is None  # written just now
    past = time.time() - 60
    os.utime(tmp_path / "docs" / "pic.svg", (past, past))
    source = mkdocs_glue.static_source(copied)
    assert source[:2] == ("file", str(tmp_path / "docs" / "pic.svg")) and source[2] == 6
    copied.copy_file()
    assert (tmp_path / "site" / "pic.svg").read_text(encoding="utf-8") == "<svg/>"
