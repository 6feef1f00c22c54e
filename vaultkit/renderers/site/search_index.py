"""The site's search index in pieces: a browser fetches only the parts a query needs.

Material's search loads one `search_index.json` holding every section's text (268 MB at 6,570
notes). vaultkit writes instead, under `search/`:

- `search_index.json`: material's frame (its `config`, no `docs`) with `config.vaultkit`, what
  the worker (`assets/search-worker.js`, in place of material's) needs to find the rest;
- `pages.json`: every page's location and title, in location order (a page's number is its
  place here), each location written as the length it shares with the one before and the rest;
- `terms/<n>.json`: the postings of the terms whose key (`term_key`) hashes to shard `n`:
  term -> [page number delta * 16 + min(count, 15), ...];
- `page/<number>.json`: a page's sections (location, title, the start of its text) and tags,
  fetched for the results shown first.

Terms (`terms`, and the worker's `terms` the same way): the words of the text, lower-cased, and
of each run of Han characters its overlapping pairs of characters (no dictionary, so a query
cuts its Chinese exactly as the pages were cut). A term's key is its first three characters
(a Han pair: itself), so a word typed in part finds the words it starts.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from html import unescape

_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002fa1f"
_WORD = re.compile(r"\w+")
_PIECE = re.compile(f"[{_HAN}]+|[^{_HAN}]+")
_HAN_CHAR = re.compile(f"[{_HAN}]")
_TAG = re.compile(r"<[^>]*>")
TERM_CHARS = 30  # a longer word is indexed (and looked for) by its first 30 characters
TEASER_CHARS = 200  # the text of a section a result shows
TF_CAP = 15


def terms(text: str) -> list[str]:
    """The terms of plain text, in order (repeated as often as they occur)."""
    found = []
    for word in _WORD.findall(text.lower()):
        for piece in _PIECE.findall(word):
            if _HAN_CHAR.match(piece):
                found += [piece] if len(piece) == 1 else [piece[i : i + 2] for i in range(len(piece) - 1)]
            else:
                found.append(piece[:TERM_CHARS])
    return found


def _is_han(char: str) -> bool:
    return _HAN_CHAR.match(char) is not None


def term_key(term: str) -> str:
    """What places a term in its shard: a Han pair (or lone character) itself, else its first three characters."""
    return term if _is_han(term[0]) else term[:3]


def fnv1a(text: str) -> int:
    """The 32-bit FNV-1a hash of the text's UTF-8 bytes (the worker computes the same)."""
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


def plain(html: str) -> str:
    """The text of material's entry markup: tags dropped, entities read, its word marks (zero-width spaces) gone."""
    return " ".join(unescape(_TAG.sub(" ", html)).replace("\u200b", "").split())


@dataclass
class PageSearch:
    """What the index holds of one page: its sections (location, title, teaser), tags, and the
    count of each of its terms (as "term count term count ...", compact to keep)."""

    sections: list[tuple[str, str, str]]
    tags: list[str]
    counts: str

    @property
    def location(self) -> str:
        return self.sections[0][0].split("#", 1)[0]


def page_search(entries: list[dict]) -> PageSearch | None:
    """A page's part of the index, from the search entries material made of its sections."""
    if not entries:
        return None
    sections, counts = [], {}
    for entry in entries:
        title, text = plain(entry["title"]), plain(entry["text"])
        sections.append((entry["location"], title, _teaser(text)))
        for term in terms(title + " " + text + " " + " ".join(entry.get("tags") or [])):
            counts[term] = counts.get(term, 0) + 1
    return PageSearch(sections, list(entries[0].get("tags") or []), " ".join(f"{t} {n}" for t, n in counts.items()))


def _teaser(text: str) -> str:
    return text if len(text) <= TEASER_CHARS else text[:TEASER_CHARS].rstrip() + "…"


def shard_count(postings: int) -> int:
    """Shards enough for about 3,000 postings each (some 15 KB), a power of two from 16 to 4096."""
    count = 16
    while count < 4096 and postings > count * 3000:
        count *= 2
    return count


def write_index(site_dir: str, config: dict, found: list[PageSearch | None]) -> set[str]:
    """Write the index (`index_files`) under `site_dir`, leaving files whose bytes are the
    same as they are; the site paths of its files."""
    files = index_files(config, found)
    for rel, data in files.items():
        _write_if_changed(os.path.join(site_dir, rel), data)
    return set(files)


def index_files(config: dict, found: list[PageSearch | None]) -> dict[str, bytes]:
    """The index of the pages' parts (`page_search` of each; None: a page not searched), by
    site path. `config` is material's search config."""
    found = sorted((page for page in found if page is not None), key=lambda page: page.location)
    postings: dict[str, list[int]] = {}
    last: dict[str, int] = {}
    for number, page in enumerate(found):
        words = page.counts.split(" ")
        for i in range(0, len(words) - 1, 2):
            term, count = words[i], int(words[i + 1])
            postings.setdefault(term, []).append((number - last.get(term, 0)) * 16 + min(count, TF_CAP))
            last[term] = number
    shards = shard_count(sum(map(len, postings.values())))
    by_shard: list[dict[str, list[int]]] = [{} for _ in range(shards)]
    keys: dict[str, int] = {}
    for term in sorted(postings):
        key = term_key(term)
        shard = keys.get(key)
        if shard is None:
            shard = keys[key] = fnv1a(key) % shards
        by_shard[shard][term] = postings[term]
    files = {
        "search/search_index.json": _json(
            {"config": {**config, "vaultkit": {"shards": shards, "pages": len(found)}}, "docs": []}
        ),
        "search/pages.json": _json(_front_coded(found)),
    }
    for n, shard in enumerate(by_shard):
        files[f"search/terms/{n}.json"] = _json(shard)
    for number, page in enumerate(found):
        files[f"search/page/{number}.json"] = _json({"sections": page.sections, "tags": page.tags})
    return files


def _front_coded(found: list[PageSearch]) -> list:
    """[shared, rest, title] of each page: its location is the first `shared` characters of the one before, then `rest`."""
    rows, before = [], ""
    for page in found:
        location = page.location
        shared = len(os.path.commonprefix([before, location]))
        rows.append([shared, location[shared:], page.sections[0][1]])
        before = location
    return rows


def _json(value) -> bytes:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _write_if_changed(path: str, data: bytes) -> None:
    try:
        with open(path, "rb") as kept:
            if kept.read() == data:
                return
    except OSError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data)
