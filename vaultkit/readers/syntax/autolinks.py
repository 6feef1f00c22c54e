"""Bare URLs and e-mail addresses are links, as GFM's autolinks extension says: a URL with a
scheme (`https://…`), a `www.` address, an e-mail address. A name that only looks like a domain
(`config.md`, `main.py`) stays text. markdown-it's linkify rules find them, with this matcher:
linkify-it finds where a link starts, GFM's rules say where it ends (at a space or `<`, without
trailing punctuation, an unbalanced `)` or an entity-like `&x;`), and also at the first
non-ASCII character, since notes in Chinese write `https://x.org/a，然后` with no space.
"""

from __future__ import annotations

import re

from linkify_it import LinkifyIt
from linkify_it.main import Match
from markdown_it import MarkdownIt

# GFM's extended e-mail autolink: the address must not end in `-` or `_`
_EMAIL = re.compile(r"(?<![A-Za-z0-9.+_-])[A-Za-z0-9.+_-]+@[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)+")
_ENTITY_END = re.compile(r"&[A-Za-z0-9]+;$")
# What every link kept here contains: `//` (linkify-it's http, https and ftp links need it after
# the `:`; `//x.org` is scheme-relative), `www.`, or an `@` (e-mails, mailto:)
_LINK_HINT = re.compile(r"//|@|www\.", re.IGNORECASE)


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


def _ended(match: Match, text: str) -> Match:
    """`match` ending where GFM ends it."""
    end = gfm_end(text, match.index)
    if end <= match.index:
        return match
    found = Match(text, match.schema, match.index, end)
    found.url = found.raw if match.schema else "http://" + found.raw
    return found


class GfmLinks(LinkifyIt):
    """linkify-it's matcher, keeping of its scheme-less matches only the `www.` ones, plus GFM's
    e-mail addresses."""

    def __init__(self):
        super().__init__(options={"fuzzy_link": True, "fuzzy_email": False, "fuzzy_ip": False})
        self._last: tuple[str, list[Match] | None] = ("", None)  # markdown-it asks test(x), then match(x)

    def pretest(self, text: str) -> bool:
        """Cheap first: most text has a `.` that linkify-it's own pretest takes for a domain."""
        return _LINK_HINT.search(text) is not None and ("@" in text or super().pretest(text))

    def test(self, text: str) -> bool:
        self._last = (text, self._match(text))
        return bool(self._last[1])

    def match_at_start(self, text: str) -> Match | None:
        match = super().match_at_start(text)
        return _ended(match, text) if match else None

    def match(self, text: str) -> list[Match] | None:
        last_text, matches = self._last
        return matches if last_text == text else self._match(text)

    def _match(self, text: str) -> list[Match] | None:
        found = [_ended(m, text) for m in super().match(text) or () if m.schema or m.raw.lower().startswith("www.")]
        for email in _EMAIL.finditer(text):
            if email.group(0)[-1] in "-_" or any(m.index <= email.start() < m.last_index for m in found):
                continue
            link = Match(text, "mailto:", email.start(), email.end())
            link.url = "mailto:" + link.raw
            found.append(link)
        return sorted(found, key=lambda m: m.index) or None


def autolinks_plugin(md: MarkdownIt) -> None:
    md.linkify = GfmLinks()
    md.options["linkify"] = True
    md.enable("linkify")
