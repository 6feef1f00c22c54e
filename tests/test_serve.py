"""`vaultkit serve`: incremental page rebuilds stay consistent, and the live server shows edits."""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from vaultkit.site.serve import LiveServer, LiveSite, Reloader, _parse_address
from vaultkit.watch import Syncer, Watcher

TIMEOUT = 15.0


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    (root / "notes").mkdir(parents=True)
    (root / "notes" / "a.md").write_text("---\ntags: [alpha]\n---\n# A\n\n甲的正文。\n", encoding="utf-8")
    (root / "notes" / "b.md").write_text("# B\n\n乙的正文。\n", encoding="utf-8")
    return root


@pytest.fixture
def live(vault, tmp_path):
    syncer = Syncer(vault)
    site = LiveSite(vault, tmp_path / "site")
    return syncer, site


def html(site: LiveSite, rel: str) -> str:
    file = site.kept.files.get_file_from_path(rel)
    return Path(file.abs_dest_path).read_text(encoding="utf-8")


def edit(syncer, site, vault, rel, text):
    (vault / rel).write_text(text, encoding="utf-8")
    result = syncer.sync({rel})
    return site.update(result, syncer.vault)


def test_edit_rebuilds_the_page_and_its_new_link_targets_backlinks(vault, live):
    syncer, site = live
    other = html(site, "notes/a.md")
    count = edit(syncer, site, vault, "notes/b.md", "# B\n\n乙改了，见 [[a]]。\n")
    assert count == 2  # b itself, and a whose backlinks now list b
    assert "乙改了" in html(site, "notes/b.md")
    assert "vk-backlinks" not in other
    assert 'href="../b/"' in html(site, "notes/a.md").split("vk-backlinks", 1)[1]


def test_tag_change_rebuilds_the_tags_page(vault, live):
    syncer, site = live
    assert "beta" not in html(site, "tags.md")
    edit(syncer, site, vault, "notes/a.md", "---\ntags: [alpha, beta]\n---\n# A\n\n甲。\n")
    assert "beta" in html(site, "tags.md")


def test_search_index_keeps_one_entry_set_per_page(vault, live):
    syncer, site = live
    (vault / "notes" / "c.md").write_text("# C\n\nkeptword\n", encoding="utf-8")
    site.full_build()
    edit(syncer, site, vault, "notes/b.md", "# B\n\nnewword\n")
    edit(syncer, site, vault, "notes/b.md", "# B\n\nnewword again\n")
    index = (site.site_dir / "search" / "search_index.json").read_text(encoding="utf-8")
    assert index.count("newword") == 1
    assert "keptword" in index


def test_new_note_rebuilds_the_whole_site_with_its_navigation(vault, live):
    syncer, site = live
    assert edit(syncer, site, vault, "notes/c.md", "---\ntitle: 丙篇\n---\n正文\n") is None
    assert "丙篇" in html(site, "notes/a.md")  # the navigation of every page lists it


def test_title_change_rebuilds_the_navigation(vault, live):
    syncer, site = live
    assert edit(syncer, site, vault, "notes/b.md", "---\ntitle: 新标题\n---\n# B\n") is None
    assert "新标题" in html(site, "notes/a.md")


@pytest.mark.parametrize("address, expected", [("127.0.0.1:8000", ("127.0.0.1", 8000)),
                                               ("[::1]:9000", ("::1", 9000))])
def test_parse_address(address, expected):
    assert _parse_address(address) == expected


def test_parse_address_rejects_garbage():
    with pytest.raises(ValueError):
        _parse_address("localhost")


def fetch_when_listening(url: str, deadline: float) -> str:
    """The port is known once bound, a moment before the server listens on it."""
    while True:
        try:
            return urllib.request.urlopen(url, timeout=TIMEOUT).read().decode("utf-8")
        except urllib.error.URLError as exc:
            if not isinstance(exc.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def test_served_page_follows_a_save(vault, tmp_path):
    """The real chain: watchdog event → pass → page rebuilt → served with the livereload script."""
    site = LiveSite(vault, tmp_path / "site")
    server = LiveServer("127.0.0.1", 0, site.site_dir)
    watcher = Watcher(vault)
    watcher.on_pass = Reloader(site, server, watcher)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    watcher.start()
    try:
        deadline = time.monotonic() + TIMEOUT
        while not server.server_address[1] and time.monotonic() < deadline:
            time.sleep(0.05)
        url = f"http://127.0.0.1:{server.server_address[1]}/notes/b/"
        first = fetch_when_listening(url, deadline)
        assert "乙的正文" in first and "livereload" in first
        (vault / "notes" / "b.md").write_text("# B\n\n保存之后的正文。\n", encoding="utf-8")
        page = first
        while "保存之后的正文" not in page and time.monotonic() < deadline:
            time.sleep(0.05)
            page = urllib.request.urlopen(url, timeout=TIMEOUT).read().decode("utf-8")
        assert "保存之后的正文" in page
    finally:
        watcher.stop()
        server.shutdown()
        thread.join(TIMEOUT)
