"""Bare URLs and e-mail addresses are links, as GFM's autolinks extension says, read here; and
markdown-it's linkify rules split the text around them.

- A URL is `http://`, `https://` or `ftp://` (any case) and a domain, not right after a
  letter, digit or `.+-` (so `xhttp://` is text, `见https://x.org` a link).
- A `www.` address is `www.` and a domain, at the start of a text, after a space or one of
  `*_~(`; its link is `http://` and the address.
- An e-mail address is `a.b+c@mail.example`: `[A-Za-z0-9.+_-]+@`, then segments of
  `[A-Za-z0-9_-]` joined by `.`, not ending in `-` or `_`, nor written right after a `/`.
- A domain is made of ASCII letters, digits, `-`, `_` and `.`, with no `_` in its last two
  segments; a `www.` one has a `.` after `www.`'s own. A name that only looks like one
  (`config.md`, `main.py`) stays text.
- A link ends at a space, a `<` or the first non-ASCII character (notes in Chinese write
  `https://x.org/a，然后` with no space), without trailing `?!.,:*_~`, an unbalanced `)` or
  an entity-like `&x;`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_inline import linkify

from vaultkit.readers.syntax.dispatch import InlineDispatch

_URL = re.compile(r"(?<![A-Za-z0-9.+-])(?:https?|ftp)://", re.IGNORECASE)
_WWW = re.compile(r"(?<![^\s*_~(])www\.")
_EMAIL = re.compile(r"(?<![A-Za-z0-9.+_/-])[A-Za-z0-9.+_-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")
_DOMAIN = re.compile(r"[A-Za-z0-9_.-]*")
_ENTITY_END = re.compile(r"&[A-Za-z0-9]+;$")


@dataclass
class Autolink:
    """A link found in a text, as markdown-it's linkify rules take it."""

    schema: str  # "https:", "mailto:"; "" for a `www.` address
    index: int  # where it starts in the text
    last_index: int  # where it ends
    text: str  # as written
    url: str  # where it goes


def gfm_end(text: str, start: int) -> int:
    """Where a URL starting at `start` ends, by GFM's extended autolink path rules."""
    end = start
    while end < len(text) and not text[end].isspace() and text[end] != "<" and text[end].isascii():
        end += 1
    while end > start:
        link = text[start:end]
        if link[-1] in "?!.,:*_~":
            end -= 1
        elif link[-1] == ")" and link.count(")") > link.count("("):
            end -= 1
        elif link[-1] == ";" and (entity := _ENTITY_END.search(link)):
            end -= len(entity.group(0))
        else:
            break
    return end


def _valid_domain(domain: str, www: bool) -> bool:
    segments = domain.removesuffix(".").split(".")
    if not all(segments) or (www and len(segments) < 3):  # `www.` is a segment of its own
        return False
    return "_" not in "".join(segments[-2:])


def _url(text: str, start: int, scheme_end: int) -> Autolink | None:
    """The URL at `start`, whose scheme ends at `scheme_end` (after `://`, or `www.`'s start)."""
    end = gfm_end(text, start)
    domain = _DOMAIN.match(text, scheme_end, end).group(0)
    if not _valid_domain(domain, www=scheme_end == start):
        return None
    written = text[start:end]
    if scheme_end == start:
        return Autolink("", start, end, written, "http://" + written)
    return Autolink(text[start : text.index(":", start) + 1], start, end, written, written)


def find_autolinks(text: str) -> list[Autolink]:
    """Every link in a text, in order; where two would overlap, the one starting first."""
    found = [link for m in _URL.finditer(text) if (link := _url(text, m.start(), m.end()))]
    found += [link for m in _WWW.finditer(text) if (link := _url(text, m.start(), m.start()))]
    for m in _EMAIL.finditer(text):
        if m.group(0)[-1] not in "-_":
            found.append(Autolink("mailto:", m.start(), m.end(), m.group(0), "mailto:" + m.group(0)))
    found.sort(key=lambda link: link.index)
    kept: list[Autolink] = []
    for link in found:
        if not kept or link.index >= kept[-1].last_index:
            kept.append(link)
    return kept


class GfmLinks:
    """The matcher markdown-it's linkify rules ask (`md.linkify`)."""

    def __init__(self):
        self._last: tuple[str, list[Autolink]] = ("", [])  # the core rule asks test(x), then match(x)

    def pretest(self, text: str) -> bool:
        """Whether a text may hold a link: every link has `://`, `www.` or `@`."""
        return "://" in text or "www." in text or "@" in text

    def test(self, text: str) -> bool:
        self._last = (text, find_autolinks(text))
        return bool(self._last[1])

    def match(self, text: str) -> list[Autolink]:
        last_text, links = self._last
        return links if last_text == text else find_autolinks(text)

    def match_at_start(self, text: str) -> Autolink | None:
        """The URL `text` starts with (the inline rule asks at each `://`), if any."""
        m = _URL.match(text)
        return _url(text, 0, m.end()) if m else None


def autolinks_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    """markdown-it's linkify rules, asking `GfmLinks`; its inline rule, which only reads at a
    `:`, is asked there by the Obsidian rule (it comes right after it), not at every position."""
    md.linkify = GfmLinks()
    md.options["linkify"] = True
    md.enable("linkify")
    md.inline.ruler.disable("linkify")
    inline.add(":", linkify)
