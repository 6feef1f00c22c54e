"""Leaks: nothing excluded from publishing reaches the built site (pages, search index, feed,
sitemap, copied files), and links or embeds to it reveal neither its content nor its title."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PYTHON = sys.executable

# Each secret appears only in a file that must not be published.
SECRETS = {
    ".env": "API_KEY=LEAK-ENV-91c2\n",
    ".obsidian/workspace.json": '{"lastOpen": "LEAK-OBSIDIAN-5d1e"}\n',
    ".obsidian/plugins/x/data.md": "# LEAK-OBSIDIAN-NOTE-77aa\n",
    ".trash/old.md": "---\ntitle: LEAK-TRASH-TITLE-0b9f\n---\nLEAK-TRASH-BODY-3e4d\n",
    ".hidden.md": "# LEAK-DOTFILE-8c21\n",
    "private/diary.md": "# LEAK-PRIVATE-6a70\n",
    "templates/t.md": "# LEAK-TEMPLATE-2f08\n",
    "notes/unpublished.md": "---\ntitle: LEAK-UNPUB-TITLE-4411\npublish: false\ntags: [LEAK-UNPUB-TAG-9a9a]\n---\n"
    "# Heading LEAK-UNPUB-HEAD-1c1c\n\nLEAK-UNPUB-BODY-7e7e ^blk\n",
    "notes/draft.md": "---\ntitle: LEAK-DRAFT-TITLE-5b5b\ndraft: true\naliases: [LEAK-DRAFT-ALIAS-6161]\n---\n"
    "LEAK-DRAFT-BODY-2d2d #LEAK-DRAFT-INLINE-TAG\n",
    "notes/publish-no.md": "---\npublish: 'no'\n---\nLEAK-PUBNO-BODY-8f8f\n",
    "notes/.secret.svg": '<svg xmlns="http://www.w3.org/2000/svg"><text>LEAK-DOT-SVG-3a3a</text></svg>',
}

INDEX = """---
title: Public index
---
# Public index

Links: [[unpublished]], [[notes/unpublished|shown alias]], [[unpublished#Heading LEAK]], [[draft]],
[[publish-no]], [[.hidden]], [[diary]], [[t]], [[old]], [md](notes/unpublished.md),
[[unpublished#^blk]].

Embeds:

![[unpublished]]

![[draft]]

![[unpublished#Heading LEAK-UNPUB-HEAD-1c1c]]

![[unpublished#^blk]]

![[old]]

![[.secret.svg]]

> [!note] quoted
> ![[draft]]

PUBLIC-MARKER-0000
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("leaks")
    vault = root / "vault"
    files = {**SECRETS, "index.md": INDEX, "notes/public.md": "# Public\n\nsee [[draft]]\n"}
    for rel, text in files.items():
        path = vault / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    site = root / "site"
    done = subprocess.run(
        [PYTHON, "-m", "vaultkit", "build", str(vault), "-o", str(site)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return site


def site_files(site: Path) -> dict[str, bytes]:
    out = {}
    for dirpath, _, names in os.walk(site):
        for name in names:
            path = Path(dirpath, name)
            data = path.read_bytes()
            if name.endswith(".gz"):
                import gzip

                data = gzip.decompress(data)
            out[path.relative_to(site).as_posix()] = data
    return out


def secret_words() -> list[str]:
    import re

    return sorted({m for text in SECRETS.values() for m in re.findall(r"LEAK-[A-Z-]+(?:-[0-9a-f]{4})?", text)})


def test_the_public_page_is_there(built):
    files = site_files(built)
    assert any(b"PUBLIC-MARKER-0000" in data for data in files.values())
    assert "search/search_index.json" in files


@pytest.mark.parametrize("word", secret_words())
def test_no_secret_byte_reaches_the_site(built, word):
    leaks = [rel for rel, data in site_files(built).items() if word.encode() in data]
    assert leaks == [], f"{word} leaked into {leaks}"


def test_no_excluded_file_is_copied(built):
    names = set(site_files(built))
    for rel in SECRETS:
        page = rel.removesuffix(".md")
        assert not names & {rel, f"{page}/index.html", f"{page}.html"}, rel
    assert not any(name.startswith(("private/", "templates/")) for name in names)
    assert not any(part.startswith(".") for name in names for part in name.split("/"))


def test_links_to_unpublished_notes_are_plain_text(built):
    page = (built / "index.html").read_text(encoding="utf-8")
    assert "vk-missing" in page
    for target in ("unpublished", "draft", "publish-no", "diary", "old"):
        assert f'href="notes/{target}/' not in page and f'href="{target}/' not in page


def test_front_matter_never_reaches_the_page_when_properties_are_hidden(tmp_path):
    """Pages show a note's properties as Obsidian's reading view does; where the vault hides them
    (`propertiesInDocument: hidden`), no byte of the front matter reaches the site."""
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text('{"propertiesInDocument": "hidden"}', encoding="utf-8")
    (vault / "n.md").write_text(
        '---\nnote: "a\u2028b\u2028c\u2028d"\ntitle: T\nsecret: LEAK-FM-5e5e\n---\n# Body\n', encoding="utf-8"
    )
    site = tmp_path / "site"
    done = subprocess.run(
        [PYTHON, "-m", "vaultkit", "build", str(vault), "-o", str(site)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert [rel for rel, data in site_files(site).items() if b"LEAK-FM-5e5e" in data] == []
