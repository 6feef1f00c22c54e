"""Shared test helpers: where the real vault is, skipping when it is absent, and the note's part
of a built page."""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus" / "vault146"

needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the real vault is not at {CORPUS} (../shared is absent)"
)


def pytest_configure(config):
    """Let the `vaultkit watch` and `serve` the tests start stop on SIGINT, as they do on a person's
    Ctrl-C. A shell that starts the suite in the background ignores SIGINT, children inherit that,
    and an ignored SIGINT would leave them running; a Python handler here is reset to the default
    in every child."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


ARTICLE = '<article class="md-content__inner md-typeset">'


def note_content(page: str) -> str:
    """The part of a built page's article that comes from the note. Stripped, as material and
    vaultkit add them: material's tag list (`<nav class="md-tags">`) at the top; the `<h1>` with
    the page title that material inserts when the content has no h1; the backlinks section
    (`<div class="vk-backlinks">`) at the end; the template's whitespace around the content. The
    article ends at the page's last `</article>`: a note's raw HTML may hold its own."""
    body = page[page.index(ARTICLE) + len(ARTICLE) : page.rindex("</article>")]
    body = re.sub(r'^\s*<nav class="md-tags">.*?</nav>', "", body, flags=re.S)
    title = re.search(r"<title>(.*?)</title>", page, re.S).group(1).rsplit(" - ", 1)[0]
    body = re.sub(r"^\s*<h1>" + re.escape(title) + "</h1>", "", body)
    if '<div class="vk-backlinks"' in body:
        body = body[: body.rindex('<div class="vk-backlinks"')]
    return body.strip()
