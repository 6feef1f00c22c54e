"""`vaultkit serve`: pages rendered on request, cached, and consistent after every kind of change."""

from __future__ import annotations

import argparse
import re
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from vaultkit.commands.build import build_command
from vaultkit.commands.cli import host_and_port, listen
from vaultkit.commands.serve import RELOAD_PATH, ServedSite, SiteServer, start_watching

TIMEOUT = 15.0
ATTENTION = (
    "# 注意力\n\n```vaultkit\nid: attn\nkind: attention\ntokens: [我, 爱, 你]\n"
    "Q: [[{q}, 0.3], [0.1, -0.4], [-0.3, 0.6]]\nK: [[0.3, -0.5], [-0.2, 0.6], [0.4, -0.1]]\n"
    "mask: causal\ndigits: 2\nfigure: assets/attn.svg\n```\n"
)


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "assets").mkdir()
    (root / "notes" / "a.md").write_text("---\ntags: [alpha]\n---\n# A\n\n甲的正文，见 [[b]]。\n", encoding="utf-8")
    (root / "notes" / "b.md").write_text("# B\n\n乙的正文。\n\n## 小节\n\n乙的小节。\n", encoding="utf-8")
    (root / "notes" / "embeds.md").write_text("# E\n\n![[b#小节]]\n", encoding="utf-8")
    (root / "notes" / "alone.md").write_text("# 孤\n\n与别的笔记无关。\n", encoding="utf-8")
    (root / "notes" / "secret.md").write_text("---\npublish: false\n---\nLEAKMARK\n", encoding="utf-8")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text('{"LEAKMARK": 1}', encoding="utf-8")
    return root


@pytest.fixture
def site(vault, tmp_path):
    return ServedSite(vault, tmp_path / "site-unused")


def get(site: ServedSite, path: str) -> tuple[int, str]:
    status, _, body = site.respond(path)
    return status, body.decode("utf-8")


def page(site: ServedSite, path: str) -> str:
    status, text = get(site, path)
    assert status == 200, path
    return text


def nav(html: str) -> str:
    return html.split("md-nav--primary", 1)[1].split("md-sidebar--secondary", 1)[0]


def change(site: ServedSite, rels: dict[str, str | None]) -> None:
    """Write (or delete, for None) files, then run the watch pass and the site update."""
    for rel, text in rels.items():
        path = site.root / rel
        if text is None:
            path.unlink()
        else:
            path.write_text(text, encoding="utf-8")
    with site.lock:
        result = site.syncer.sync(set(rels))
        site.update(result)


def rendered(site: ServedSite, path: str):
    return site.cache.get(path + "index.html")


def test_nothing_is_rendered_before_it_is_asked_for(site):
    assert site.cache == {}
    page(site, "notes/a/")
    assert list(site.cache) == ["notes/a/index.html"]


def test_edit_shows_at_once_and_rerenders_only_what_depends_on_it(site):
    for path in ("notes/a/", "notes/b/", "notes/embeds/", "notes/alone/"):
        page(site, path)
    alone = rendered(site, "notes/alone/")
    change(site, {"notes/b.md": "# B\n\n乙改了。\n\n## 小节\n\n小节也改了。\n"})
    assert "乙改了" in page(site, "notes/b/")
    assert "小节也改了" in page(site, "notes/embeds/")  # it embeds b's section
    page(site, "notes/alone/")
    assert rendered(site, "notes/alone/") is alone  # nothing it shows changed


def test_new_link_updates_the_targets_backlinks(site):
    assert "vk-backlinks" not in page(site, "notes/alone/")
    change(site, {"notes/b.md": "# B\n\n现在链接到 [[alone]]。\n"})
    backlinks = page(site, "notes/alone/").split("vk-backlinks", 1)[1]
    assert 'href="../b/"' in backlinks


def searched_pages(site) -> list[str]:
    """What the served search index holds of each page (its sections, tags)."""
    return [data.decode() for rel, data in site.search_files().items() if rel.startswith("search/page/")]


def test_tag_change_updates_the_tags_page_and_search(site):
    assert "beta" not in page(site, "tags/")
    change(site, {"notes/a.md": "---\ntags: [alpha, beta]\n---\n# A\n\n甲。\n"})
    assert "beta" in page(site, "tags/")
    assert any('"beta"' in text for text in searched_pages(site))


def test_new_note_is_in_the_navigation_of_other_pages(site):
    assert "丙篇" not in nav(page(site, "notes/alone/"))
    change(site, {"notes/c.md": "---\ntitle: 丙篇\n---\n正文\n"})
    assert "丙篇" in nav(page(site, "notes/alone/"))
    assert "正文" in page(site, "notes/c/")


def test_title_change_updates_the_navigation_and_backlinks(site):
    page(site, "notes/b/")
    change(site, {"notes/a.md": "---\ntitle: 新标题\ntags: [alpha]\n---\n# A\n\n见 [[b]]。\n"})
    b = page(site, "notes/b/")
    assert "新标题" in nav(b) and "新标题" in b.split("vk-backlinks", 1)[1]


def test_deleted_note_answers_404_and_links_to_it_become_text(site):
    assert 'href="../b/"' in page(site, "notes/a/")
    change(site, {"notes/b.md": None})
    assert get(site, "notes/b/")[0] == 404
    a = page(site, "notes/a/")
    assert 'class="vk-missing"' in a and 'href="../b/"' not in a
    assert searched_pages(site) and not any('"notes/b/' in text for text in searched_pages(site))


def test_rename_moves_the_page(site):
    page(site, "notes/a/")
    (site.root / "notes" / "b.md").rename(site.root / "notes" / "b2.md")
    with site.lock:
        site.update(site.syncer.sync({"notes/b.md", "notes/b2.md"}))
    assert get(site, "notes/b/")[0] == 404
    assert "乙的正文" in page(site, "notes/b2/")
    assert "b2" in nav(page(site, "notes/a/"))


def test_figure_rewrite_is_served(site):
    change(site, {"notes/fig.md": ATTENTION.format(q=0.5)})
    first = page(site, "assets/attn.svg")
    change(site, {"notes/fig.md": ATTENTION.format(q=0.9)})
    second = page(site, "assets/attn.svg")
    assert first != second and second == (site.root / "assets" / "attn.svg").read_text(encoding="utf-8")


def test_unpublished_and_dotfiles_are_never_served(site):
    assert get(site, "notes/secret/")[0] == 404
    assert get(site, ".obsidian/app.json")[0] == 404
    assert get(site, RELOAD_PATH.replace("reload", "x"))[0] == 404
    for path in ("", "notes/a/", "tags/", "search/search_index.json", "sitemap.xml", "feed.xml"):
        assert "LEAKMARK" not in get(site, path)[1], path


def test_directory_without_slash_redirects(site):
    assert site.respond("notes/a")[:2] == (301, "/notes/a/")


def built_and_served(vault: Path, out: Path, site: ServedSite) -> list[tuple[str, bytes, bytes]]:
    assert build_command(vault, str(out), strict=False) in (0, 1)
    pairs = []
    for built in sorted(out.rglob("*")):
        rel = built.relative_to(out).as_posix()
        if built.suffix in (".html", ".json", ".xml") and rel != "404.html":
            status, _, served = site.respond(rel)
            assert status == 200, rel
            pairs.append((rel, built.read_bytes(), served))
    return pairs


def test_served_pages_are_the_built_pages(vault, site, tmp_path):
    change(site, {"notes/c.md": "# C\n\n#标签 正文 [[a]] ![[b]]\n"})
    pairs = built_and_served(vault, tmp_path / "built", site)
    assert {rel for rel, _, _ in pairs} >= {
        "index.html",
        "notes/a/index.html",
        "tags/index.html",
        "search/search_index.json",
        "feed.xml",
        "sitemap.xml",
    }
    for rel, built, served in pairs:
        assert served == built, rel


def test_requests_during_changes_see_one_state_or_the_next(site):
    """Readers hammer pages while notes change; each answer is whole, and the last is current."""
    errors, stop = [], threading.Event()

    def reader(path):
        while not stop.is_set():
            try:
                status, text = get(site, path)
                if status != 200 or "</html>" not in text:
                    errors.append((path, status))
            except Exception as exc:  # noqa: BLE001 - any failure is the finding
                errors.append((path, repr(exc)))

    threads = [threading.Thread(target=reader, args=(p,)) for p in ("notes/a/", "notes/b/", "tags/")]
    for thread in threads:
        thread.start()
    try:
        for i in range(5):
            change(site, {"notes/b.md": f"---\ntags: [t{i}]\n---\n# B\n\n版本{i}。\n", f"notes/n{i}.md": f"# N{i}\n"})
    finally:
        stop.set()
        for thread in threads:
            thread.join(TIMEOUT)
    assert not errors
    assert "版本4" in page(site, "notes/b/") and "t4" in page(site, "tags/")
    assert "n4" in nav(page(site, "notes/a/"))


@pytest.mark.parametrize("address, expected", [("127.0.0.1:8000", ("127.0.0.1", 8000)), ("[::1]:9000", ("::1", 9000))])
def test_parse_address(address, expected):
    assert host_and_port(address) == expected


def test_parse_address_rejects_garbage():
    with pytest.raises(argparse.ArgumentTypeError):
        host_and_port("localhost")


def fetch(url: str) -> str:
    return urllib.request.urlopen(url, timeout=TIMEOUT).read().decode("utf-8")


def test_served_page_follows_a_save_and_browsers_are_told_to_reload(site):
    """The real chain: watchdog event → pass → next request rendered anew; the reload poll answers."""
    server = SiteServer(listen("127.0.0.1", 0), site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    watcher = start_watching(site)
    try:
        first = fetch(server.url + "notes/b/")
        version = int(re.search(r"const v=(\d+)", first)[1])
        assert "乙的正文" in first
        poll = {}
        poller = threading.Thread(target=lambda: poll.update(v=fetch(f"{server.url}{RELOAD_PATH}?since={version}")))
        poller.start()
        time.sleep(0.3)  # let inotify settle its watches
        (site.root / "notes" / "b.md").write_text("# B\n\n保存之后的正文。\n", encoding="utf-8")
        poller.join(TIMEOUT)
        assert int(poll["v"]) > version
        assert "保存之后的正文" in fetch(server.url + "notes/b/")
        with pytest.raises(urllib.error.HTTPError) as missing:
            fetch(server.url + "notes/nope/")
        assert missing.value.code == 404
    finally:
        site.stop()
        watcher.stop()
        server.shutdown()
        server.server_close()
        thread.join(TIMEOUT)


def test_serve_checks_the_vault_once_while_importing_the_site(vault, monkeypatch):
    """The command line checks the notes with the site's config loaded and its modules imported
    meanwhile (its own share while the workers run), and the server keeps that state and that
    config instead of making them again."""
    import vaultkit.commands.serve as serve
    from vaultkit.commands import cli
    from vaultkit.state import VaultState

    calls, served = [], []
    compute_notes = VaultState.compute_notes

    def counted(state, *args, meanwhile=(), **kwargs):
        calls.append([getattr(call, "args", getattr(call, "__name__", None)) for call in meanwhile])
        return compute_notes(state, *args, meanwhile=meanwhile, **kwargs)

    def command(root, listener, site_dir, state=None, config=None):
        assert config is not None and config.site_dir == str(site_dir)
        served.append(ServedSite(root, site_dir, state, config))
        return 0

    monkeypatch.setattr(VaultState, "compute_notes", counted)
    monkeypatch.setattr(serve, "serve_command", command)
    assert cli.main(["serve", str(vault)]) == 0
    assert calls == [["load_config", *((name,) for name in cli.SERVE_MODULES)]]  # checked once
    assert served[0].syncer.state.vault.root == vault
    assert page(served[0], "notes/a/").count("甲的正文") == 1


def test_a_save_does_not_parse_again_the_notes_fix_would_change(vault, tmp_path, monkeypatch):
    """The tags and headings of a note whose fixed text differs (a moved link here) are read
    once, with its check; after a save of a note it does not depend on, the tags page is
    made again without parsing it."""
    from vaultkit import pipeline

    (vault / "notes" / "moved.md").write_text("# 移\n\n见 [[old/alone]]。\n\n#迁移\n", encoding="utf-8")
    site = ServedSite(vault, tmp_path / "site-unused")
    assert "迁移" in page(site, "tags/")
    parsed = []
    parse = pipeline.parse
    monkeypatch.setattr(pipeline, "parse", lambda text: parsed.append(text) or parse(text))
    change(site, {"notes/b.md": "# B\n\n乙改过了。\n\n## 小节\n\n乙的小节。\n"})
    tags = page(site, "tags/")
    assert "迁移" in tags and "notes/moved/" in tags
    assert not [text for text in parsed if "#迁移" in text]
