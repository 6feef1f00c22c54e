"""The page renderer (a note's tokens -> HTML) and small end-to-end builds."""

from __future__ import annotations

import json
from pathlib import Path

from pymdownx.slugs import slugify

from vaultkit.commands.build import build_command
from vaultkit.readers.markdown import parse
from vaultkit.renderers.site.note_html import Site, Target, render_note


class FakeSite(Site):
    tags_page = "tags.md"
    language = "en"

    def __init__(self, notes: dict[str, str], attachments=(), unpublished=(), strict_line_breaks=False):
        self.notes, self.attachments, self.unpublished = notes, set(attachments), set(unpublished)
        self.strict_line_breaks = strict_line_breaks

    def tokens(self, rel):
        return parse(self.notes[rel]), 0

    def source_lines(self, rel):
        return self.notes[rel].split("\n")

    def resolve(self, path, source):
        for rel in [*self.notes, *self.attachments]:
            if rel in (path, path + ".md") or rel.rsplit("/", 1)[-1] in (path, path + ".md"):
                return Target(None, "unpublished") if rel in self.unpublished else Target(rel)
        return Target(None, "missing")

    def slugify(self, text, separator):
        return slugify(case="lower")(text, separator)

    def tag_anchor(self, tag):
        return "tag-" + tag.replace("/", "-")


def render(body: str, **kwargs) -> str:
    notes = {"dir/page.md": body, **kwargs.pop("notes", {})}
    return render_note(FakeSite(notes, **kwargs), "dir/page.md").html


def test_wikilinks_become_relative_links_to_pages():
    out = render("see [[other]], [[other|别名]] and [[other#Some Heading]]", notes={"x/other.md": "## Some Heading\n"})
    assert '<a href="../../x/other/">other</a>' in out
    assert '<a href="../../x/other/">别名</a>' in out
    assert 'href="../../x/other/#some-heading"' in out


def test_names_with_spaces_and_cjk_are_url_encoded():
    out = render("[[K8s 笔记]] and [md](K8s%20笔记.md)", notes={"dir/K8s 笔记.md": ""})
    assert out.count('href="../K8s%20%E7%AC%94%E8%AE%B0/"') == 2


def test_missing_and_unpublished_links_are_plain_text_with_a_class():
    out = render("[[nowhere]] and [[secret|x]]", notes={"secret.md": "hidden text"}, unpublished={"secret.md"})
    assert '<span class="vk-missing" title="missing">nowhere</span>' in out
    assert '<span class="vk-missing" title="unpublished">x</span>' in out
    assert "hidden text" not in out


def test_code_is_never_rewritten():
    body = "```bash\nif [[ $# -gt 0 ]]; then echo %%x%%; fi\n```\n\ninline `[[a]]` and `$x$` and `a %% b`\n"
    out = render(body)
    assert "<code>[[a]]</code>" in out and "<code>$x$</code>" in out and "<code>a %% b</code>" in out
    assert 'class="language-bash highlight"' in out and "%%x%%" in out and "vk-missing" not in out


def test_image_embed_keeps_its_width():
    out = render("![[assets/fig.svg|1000]] ![[fig.svg|300x200]]", attachments={"assets/fig.svg"})
    assert '<img alt="fig" src="../../assets/fig.svg" width="1000">' in out
    assert 'width="300" height="200"' in out


def test_note_heading_and_block_embeds_and_cycles():
    notes = {
        "a.md": "intro\n\n## Part\n\npart text\n\n## Next\n\nnext text\n",
        "b.md": "para one\n\nthe block line ^blk\n",
        "loop.md": "loop body ![[dir/page]]",
    }
    out = render("![[a#Part]]\n\n![[b#^blk]]\n\n![[loop]]", notes=notes)
    assert "part text" in out and "next text" not in out
    assert "the block line" in out and "para one" not in out and 'id="^blk"' not in out
    assert "loop body" in out
    assert 'title="embed cycle"' in out
    assert "<p><div" not in out  # an embed alone on its line is a block of its own


def test_callouts_become_admonitions_nested_and_foldable():
    out = render("> [!warning]- 小心\n> outer\n> > [!tip] inner\n> > deep\n")
    assert out.startswith(
        '<details class="warning vk-callout" data-callout="warning">\n<summary>小心</summary>\n<p>outer</p>\n'
        '<div class="admonition tip vk-callout" data-callout="tip">\n<p class="admonition-title">inner</p>\n'
        "<p>deep</p>\n</div>\n</details>"
    )
    assert render("> [!NOTE]\n> x").startswith(
        '<div class="admonition note vk-callout" data-callout="note">\n<p class="admonition-title">Note</p>'
    )
    assert render("- item\n\n  > [!tip] in a list\n  > text\n").count('class="admonition tip vk-callout"') == 1


def test_comments_and_inline_value_markers_are_stripped():
    out = render("value 0.35%%= attn.scores[0][1] %% ok %%secret%%\n\n%%\nblock\n%%\n")
    assert "%%" not in out and "attn.scores" not in out and "secret" not in out and "block" not in out
    assert "value 0.35 ok" in out


def test_dollar_amounts_stay_text_and_math_is_mathml_with_its_tex():
    assert render("价格 $5 到 $10") == "<p>价格 $5 到 $10</p>\n"
    out = render("公式 $x^2$ 与 $$y$$ 以及 \\(z\\)")
    assert out.count("<math") == 3 and 'data-tex="x^2"' in out and 'data-tex="\\displaystyle y"' in out


def test_tags_link_to_the_tags_index():
    out = render("text #llm/attention here, not #123 nor a#b")
    assert '<a class="vk-tag" href="../../tags/#tag-llm-attention">#llm/attention</a>' in out
    assert "#123" in out and "a#b" in out


def test_example_fence_becomes_a_card():
    body = "```vaultkit\nid: demo\nkind: attention\nQ: [[1, 2], [3, 4]]\nmask: causal\n```\n"
    out = render(body)
    assert "```" not in out and "vk-example" in out and "demo · attention" in out
    assert "<td>4</td>" in out and "<code>causal</code>" in out


def test_lists_after_a_line_ordered_lists_and_indented_paragraphs_are_commonmark():
    out = render("**现象：**\n- 入方向带宽高\n- 出方向带宽低\n\n1. one\n3) three\n\n- a\n\n  still a\n+ b\n")
    assert out.count("<li>") == 6 and out.count("<ul>") == 3 and out.count("<ol") == 2  # `- a` then `+ b`: two lists
    assert "<li>\n<p>a</p>\n<p>still a</p>\n</li>" in out


def test_a_single_newline_is_a_line_break_unless_strict_line_breaks():
    assert render("one\ntwo") == "<p>one<br />\ntwo</p>\n"
    strict = render_note(FakeSite({"dir/page.md": "one\ntwo"}, strict_line_breaks=True), "dir/page.md")
    assert strict.html == "<p>one\ntwo</p>\n"


def test_headings_have_permalinks_and_make_the_table_of_contents():
    note = render_note(FakeSite({"dir/page.md": "# Title\n\n## A `b`\n\n### C\n\n## A b\n"}), "dir/page.md")
    assert (
        '<h2 id="a-b">A <code>b</code><a class="headerlink" href="#a-b" title="Permanent link">&para;</a></h2>'
        in note.html
    )
    toc = note.toc()
    assert [t["id"] for t in toc] == ["title"] and [t["id"] for t in toc[0]["children"]] == ["a-b", "a-b_1"]
    assert toc[0]["children"][0]["children"][0]["id"] == "c"


def _vault(root: Path) -> Path:
    vault = root / "notes"
    files = {
        "index.md": "# 首页\n\n[[公开]] [[草稿]] [[私密]] #主题\n",
        "公开.md": "---\ntitle: 公开笔记\ntags: [a, '', 3]\ndate: 2024-05-01\n---\n正文 ==重点== [[index]]\n",
        "草稿.md": "---\ndraft: true\n---\nLEAKMARK-draft\n",
        "私密.md": "---\npublish: false\n---\nLEAKMARK-unpublished\n",
        "private/p.md": "LEAKMARK-private\n",
        "templates/t.md": "LEAKMARK-template\n",
        ".obsidian/app.json": '{"LEAKMARK": 1}',
        ".trash/old.md": "LEAKMARK-trash\n",
        ".env": "LEAKMARK=1\n",
        "sub/.hidden.md": "LEAKMARK-hidden\n",
    }
    for rel, text in files.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    return vault


def test_build_excludes_private_files_and_is_deterministic(tmp_path):
    vault = _vault(tmp_path)
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nsite_url: https://example.org/\ndocs_dir: notes\ntheme: {name: material, language: zh}\n"
        "plugins: [search, vaultkit]\n",
        encoding="utf-8",
    )
    assert build_command(vault, str(tmp_path / "s1"), strict=False) == 0
    assert build_command(vault, str(tmp_path / "s2"), strict=False) == 0
    files1 = sorted(p.relative_to(tmp_path / "s1") for p in (tmp_path / "s1").rglob("*") if p.is_file())
    files2 = sorted(p.relative_to(tmp_path / "s2") for p in (tmp_path / "s2").rglob("*") if p.is_file())
    assert files1 == files2
    for rel in files1:
        data = (tmp_path / "s1" / rel).read_bytes()
        assert data == (tmp_path / "s2" / rel).read_bytes(), rel
        assert b"LEAKMARK" not in data, rel
    site = tmp_path / "s1"
    home = (site / "index.html").read_text(encoding="utf-8")
    assert 'class="vk-missing" title="该笔记未发布">草稿<' in home
    page = (site / "公开" / "index.html").read_text(encoding="utf-8")
    assert "<mark>重点</mark>" in page and "公开笔记" in page
    assert "<pubDate>Wed, 01 May 2024" in (site / "feed.xml").read_text(encoding="utf-8")
    assert "<lastmod>2024-05-01</lastmod>" in (site / "sitemap.xml").read_text(encoding="utf-8")
    tags = (site / "tags" / "index.html").read_text(encoding="utf-8")
    assert "#主题" in tags and "#3" in tags


def test_build_refuses_to_write_into_the_vault(tmp_path):
    vault = _vault(tmp_path)
    assert build_command(vault, str(vault / "site"), strict=False) == 2
    assert not (vault / "site").exists()


def test_vault_without_index_gets_a_generated_home_page_in_its_language(tmp_path):
    vault = tmp_path / "v"
    notes = {"文件夹甲/一.md": "---\ndate: 2024-03-02\n---\n# 一\n", "文件夹甲/二.md": "# 二\n", "根.md": "# 根\n"}
    for rel, text in notes.items():
        (vault / rel).parent.mkdir(parents=True, exist_ok=True)
        (vault / rel).write_text(text, encoding="utf-8")
    assert build_command(vault, str(tmp_path / "site"), strict=False) == 0
    home = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "最近的笔记" in home and "2024-03-02" in home and "2 篇笔记" in home
    assert 'href="%E6%96%87%E4%BB%B6%E5%A4%B9%E7%94%B2/%E4%B8%80/"' in home  # the folder's first note
    (vault / "index.md").write_text("# 自己的首页\n", encoding="utf-8")
    assert build_command(vault, str(tmp_path / "site2"), strict=False) == 0
    own = (tmp_path / "site2" / "index.html").read_text(encoding="utf-8")
    assert "自己的首页" in own and "最近的笔记" not in own


def test_navigation_is_pruned_to_what_the_page_shows(tmp_path):
    """A page lists the top level and the folders on its way, not every note of the vault."""
    vault = tmp_path / "v"
    for top in ("甲", "乙"):
        for sub in ("x", "y"):
            for i in range(3):
                (vault / top / sub).mkdir(parents=True, exist_ok=True)
                (vault / top / sub / f"{sub}{i}.md").write_text(
                    f"---\ntitle: {top}{sub}{i}\n---\n正文\n", encoding="utf-8"
                )
    assert build_command(vault, str(tmp_path / "site"), strict=False) == 0
    page = (tmp_path / "site" / "甲" / "x" / "x1" / "index.html").read_text(encoding="utf-8")
    nav = page.split("md-nav--primary", 1)[1].split('<div class="md-sidebar md-sidebar--secondary"', 1)[0]
    assert "甲x0" in nav and "甲x2" in nav  # the page's own folder is open
    assert "md-nav__link--active" in nav  # and marks the page
    assert "乙x2" not in nav and "甲y2" not in nav  # other folders are links to their first note
    assert "md-nav__item--pruned" in nav


def test_pages_rendered_in_worker_processes_are_the_pages_of_mkdocs_build(tmp_path):
    """Notes for both workers; a `status` shown in other pages' navigation."""
    from mkdocs.commands.build import build

    from vaultkit.commands.build import load_site_config, site_state
    from vaultkit.renderers.site.render import build_site

    vault = tmp_path / "v"
    for i in range(35):
        folder = vault / f"f{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        status = "status: 草稿\n" if i % 5 == 0 else ""
        (folder / f"n{i}.md").write_text(
            f"---\n{status}date: 2024-01-{i % 28 + 1:02d}\n---\n# 第{i}篇\n\n见 [[n{(i + 1) % 7}]] #标签{i % 4}\n",
            encoding="utf-8",
        )
    build_site(config := load_site_config(vault, str(tmp_path / "ours")), site_state(config), jobs=2)
    build(load_site_config(vault, str(tmp_path / "theirs")))
    ours = {p.relative_to(tmp_path / "ours"): p.read_bytes() for p in (tmp_path / "ours").rglob("*") if p.is_file()}
    theirs = {
        p.relative_to(tmp_path / "theirs"): p.read_bytes() for p in (tmp_path / "theirs").rglob("*") if p.is_file()
    }
    assert sorted(ours) == sorted(theirs)
    assert [rel for rel in ours if ours[rel] != theirs[rel]] == []
    assert b"md-status--" in ours[Path("f1/n1/index.html")]  # another page's status, in the navigation


def test_a_theme_without_materials_search_is_built_by_mkdocs_itself(tmp_path):
    vault = tmp_path / "notes"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\n正文\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: notes\ntheme: mkdocs\nplugins: [search, vaultkit]\n", encoding="utf-8"
    )
    assert build_command(vault, str(tmp_path / "site"), strict=False) == 0
    index = json.loads((tmp_path / "site" / "search" / "search_index.json").read_text(encoding="utf-8"))
    assert any("正文" in doc["text"] for doc in index["docs"])


def test_a_strict_build_renders_on_every_core_and_counts_the_warnings_of_every_process(tmp_path, monkeypatch, capsys):
    import logging
    import os

    from vaultkit.commands import build as site_build
    from vaultkit.renderers.site.plugin import VaultkitPlugin

    vault = tmp_path / "v"
    vault.mkdir()
    for i in range(48):
        (vault / f"n{i:02d}.md").write_text(f"# 第{i}篇\n", encoding="utf-8")

    def serial_build(config):
        raise AssertionError("a strict build went to MkDocs' serial build")

    monkeypatch.setattr(site_build, "build", serial_build)
    assert build_command(vault, str(tmp_path / "clean"), strict=True) == 0
    original = VaultkitPlugin.render_page

    def render_page(self, page, model=None):  # a warning on every page, wherever it is rendered
        logging.getLogger("mkdocs.plugins.test").warning("a problem on this page")
        with open(tmp_path / "pids", "a") as pids:
            pids.write(f"{os.getpid()}\n")
        return original(self, page, model)

    monkeypatch.setattr(VaultkitPlugin, "render_page", render_page)
    assert build_command(vault, str(tmp_path / "site"), strict=False) == 0
    (tmp_path / "pids").unlink()
    assert build_command(vault, str(tmp_path / "strict"), strict=True) == 1
    pids = (tmp_path / "pids").read_text().split()  # one per page: the notes, the home page, ...
    assert len(pids) > 48 and len(set(pids)) > 1  # rendered here and in a worker
    assert f"Aborted with {len(pids)} warnings in strict mode" in capsys.readouterr().out


def test_a_build_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    import gc

    vault = tmp_path / "v"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    assert gc.isenabled()
    assert build_command(vault, str(tmp_path / "site"), strict=False) == 0
    assert gc.isenabled()
    gc.disable()
    try:
        assert build_command(vault, str(tmp_path / "again"), strict=False) == 0
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_pages_drafted_while_checking_have_the_bytes_of_pages_rendered_after(tmp_path, monkeypatch):
    """A build drafts each page where its note is checked (renderers/site/drafts.py); a draft is
    used only when the whole vault gives the answers it was given, so the site has the bytes of
    one whose every page is rendered after the check. The notes ask what a draft cannot know
    (another note's heading, an embed, tags whose anchors must be made unique, the tags page)."""
    from vaultkit.commands.build import load_site_config, site_state
    from vaultkit.renderers.site import drafts
    from vaultkit.renderers.site.render import build_site

    notes = {
        "plain.md": "# 普通\n\n正文 #甲 与 [[b]]，见 ![[pic.svg]]\n",
        "b.md": "# B\n\n## 第二节\n\n块 ^blk\n\n#x/y 和 #xy\n",
        "links.md": "[[b#第二节]] 与 [[b#^blk]]，[[tags]]\n",
        "embeds.md": "![[b#第二节]]\n\n![[plain]]\n",
        "dir/deep.md": "---\ntags: [乙]\n---\n# 深\n\n[[plain]] [[missing]] [外](https://example.org)\n",
    }
    for rel, text in notes.items():
        (tmp_path / "v" / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "v" / rel).write_text(text, encoding="utf-8")
    (tmp_path / "v" / "pic.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg"/>', encoding="utf-8")
    used, folders = [], set()
    take = drafts.Drafts.take

    def counted(self, rel, model):
        rendered = take(self, rel, model)
        used.append((rel, rendered is not None))
        folders.add(self.folder)
        return rendered

    monkeypatch.setattr(drafts.Drafts, "take", counted)
    build_site(
        config := load_site_config(tmp_path / "v", str(tmp_path / "drafted")), site_state(config), jobs=1
    )  # pages counted here
    monkeypatch.setattr(drafts.Drafts, "take", lambda self, rel, model: None)
    build_site(config := load_site_config(tmp_path / "v", str(tmp_path / "rendered")), site_state(config), jobs=2)
    drafted = {
        p.relative_to(tmp_path / "drafted"): p.read_bytes() for p in (tmp_path / "drafted").rglob("*") if p.is_file()
    }
    rendered = {
        p.relative_to(tmp_path / "rendered"): p.read_bytes() for p in (tmp_path / "rendered").rglob("*") if p.is_file()
    }
    assert sorted(drafted) == sorted(rendered)
    assert [rel for rel in drafted if drafted[rel] != rendered[rel]] == []
    taken = dict(used)
    assert taken["plain.md"] and taken["dir/deep.md"]  # drafts that hold
    assert not taken["links.md"] and not taken["embeds.md"]  # drafts that needed the whole vault
    assert folders and not any(folder.exists() for folder in folders)  # removed with the build


def test_a_build_never_cuts_chinese_into_words(tmp_path, monkeypatch):
    """jieba's dictionary (about 1.5 s and 100 MB to load) is not needed: the search index cuts
    Han text into pairs of characters."""
    import pytest

    jieba = pytest.importorskip("jieba", reason="jieba is not installed here, so nothing can load it")
    from vaultkit.commands.build import load_site_config, site_state
    from vaultkit.renderers.site.render import build_site

    monkeypatch.setattr(jieba, "cut", lambda *args, **kwargs: pytest.fail("jieba cut words"))
    monkeypatch.setattr(jieba, "initialize", lambda *args, **kwargs: pytest.fail("jieba loaded its dictionary"))
    vault = tmp_path / "notes"
    vault.mkdir()
    for i in range(3):
        (vault / f"n{i}.md").write_text("# 注意力\n\n正文\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\ndocs_dir: notes\ntheme: {name: material}\nplugins: [search, vaultkit]\n", encoding="utf-8"
    )
    build_site(config := load_site_config(vault, str(tmp_path / "site")), site_state(config), jobs=1)
    assert "正文" in (tmp_path / "site" / "search" / "page" / "1.json").read_text(encoding="utf-8")


def test_a_relative_path_between_vault_files_is_posixpaths():
    import posixpath

    from vaultkit.renderers.site.pages import relative_path

    rels = ["a.md", "x/a.md", "x/y/b.md", "x/yz/c.md", "xy/d.md", "x/y", "标签/笔记.md", "x"]
    for folder in ["", "x", "x/y", "xy", "标签", "q/r/s"]:
        for rel in rels:
            assert relative_path(rel, folder) == posixpath.relpath(rel, folder or "."), (rel, folder)
