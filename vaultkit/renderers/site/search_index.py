"""The site's search index in pieces: a browser fetches only the parts a query needs.

Material's search loads one `search_index.json` holding every section's text (268 MB at 6,570
notes). vaultkit writes instead, under `search/`:

- `search_index.json`: material's frame (its `config`, no `docs`) with `config.vaultkit`, what
  the worker (`assets/search-worker.js`, in place of material's) needs to find the rest;
- `pages.json`: every page's location and title, in location order (a page's number is its
  place here), each location written as the length it shares with the one before and the rest;
- `terms/<n>.bin`: the postings of the terms whose key (`term_key`) hashes to shard `n`: a
  line of JSON, [[term, postings], ...], padded with spaces to a multiple of 4 bytes, then
  each term's postings as little-endian uint32: page number delta * 16 + min(count, 15);
- `page/<number>.json`: a page's sections (location, title, the start of its text) and tags,
  fetched for the results shown first.

Terms (`terms`, and the worker's `terms` the same way): the words of the text, lower-cased, and
of each run of Han characters its overlapping pairs of characters (no dictionary, so a query
cuts its Chinese exactly as the pages were cut). A term's key is its first three characters
(a Han pair: itself), so a word typed in part finds the words it starts.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape

import numpy as np

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
    """What the index holds of one page: its sections (location, title, teaser), tags, and its
    terms: their names (space-separated), 64-bit hashes and counts (capped at 15), in one order."""

    sections: list[tuple[str, str, str]]
    tags: list[str]
    names: str
    hashes: bytes  # uint64, little-endian
    counts: bytes  # uint8

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
    hashes = b"".join(hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest() for term in counts)
    capped = bytes(min(n, TF_CAP) for n in counts.values())
    return PageSearch(sections, list(entries[0].get("tags") or []), " ".join(counts), hashes, capped)


def _teaser(text: str) -> str:
    return text if len(text) <= TEASER_CHARS else text[:TEASER_CHARS].rstrip() + "…"


def shard_count(postings: int) -> int:
    """Shards enough for about 3,000 postings each (some 12 KB), a power of two from 16 to 4096."""
    count = 16
    while count < 4096 and postings > count * 3000:
        count *= 2
    return count


HEAD = "search/search_index.json"


def write_index(site_dir: str, config: dict, found: list[PageSearch | None]) -> dict[str, bytes]:
    """Write the index (`index_files`) under `site_dir`, leaving files whose bytes are the
    same as they are; the site paths of its files, each with b"" but the head (`HEAD`), with its bytes."""
    written = {}
    for rel, data in index_files(config, found):
        _write_if_changed(os.path.join(site_dir, rel), data)
        written[rel] = data if rel == HEAD else b""
    return written


def write_head(site_dir: str, written: dict[str, bytes]) -> None:
    """Write again the head of an index `write_index` wrote (material's search writes its own there)."""
    _write_if_changed(os.path.join(site_dir, HEAD), written[HEAD])


def index_files(config: dict, found: list[PageSearch | None]) -> Iterator[tuple[str, bytes]]:
    """The files of the index of the pages' parts (`page_search` of each; None: a page not
    searched): (site path, bytes), one at a time. `config` is material's search config. The
    postings of all pages are merged as arrays (a term is its hash): a large vault's index
    is made in seconds."""
    found = sorted((page for page in found if page is not None), key=lambda page: page.location)
    offsets = np.r_[0, np.cumsum([len(page.counts) for page in found], dtype=np.int64)]
    order, hashes = _by_term(b"".join(page.hashes for page in found))  # each term's pages in order
    starts = np.flatnonzero(np.r_[True, hashes[1:] != hashes[:-1]]) if len(hashes) else np.zeros(0, np.int64)
    del hashes
    names = _names(found, order[starts], offsets)
    counts = np.frombuffer(b"".join(page.counts for page in found), dtype=np.uint8)[order]
    numbers = (np.searchsorted(offsets, order, side="right") - 1).astype(np.uint32)
    del order
    values = np.diff(numbers, prepend=np.uint32(0))  # the page number after the one before ...
    values[starts] = numbers[starts]  # ... or, a term's first, itself
    del numbers
    values *= 16
    values += counts
    values = values.astype("<u4", copy=False)
    del counts
    shards = shard_count(len(values))
    keys: dict[str, int] = {}
    shard_of = np.array([_shard(name, shards, keys) for name in names], dtype=np.int64)
    ends = np.r_[starts[1:], len(values)]
    yield (
        HEAD,
        _json({"config": {**config, "vaultkit": {"shards": shards, "pages": len(found)}}, "docs": []}),
    )
    yield "search/pages.json", _json(_front_coded(found))
    by_shard = np.argsort(shard_of, kind="stable")
    bounds = np.searchsorted(shard_of[by_shard], np.arange(shards + 1))
    for n in range(shards):
        groups = by_shard[bounds[n] : bounds[n + 1]]
        head = _json([[names[g], int(ends[g] - starts[g])] for g in groups]) + b"\n"
        head += b" " * (-len(head) % 4)  # the postings start on a multiple of 4 bytes
        body = [values[starts[g] : ends[g]].tobytes() for g in groups]
        yield f"search/terms/{n}.bin", head + b"".join(body)
    for number, page in enumerate(found):
        yield f"search/page/{number}.json", _json({"sections": page.sections, "tags": page.tags})


def _by_term(joined: bytes) -> tuple[np.ndarray, np.ndarray]:
    """The order that sorts all pages' term hashes (stable: a term's pages stay in order), and the hashes so sorted."""
    hashes = np.frombuffer(joined, dtype="<u8")
    order = np.argsort(hashes, kind="stable")
    return order, hashes[order]


def _names(found: list[PageSearch], firsts: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The name of each term, from the page it first occurs on (`firsts`: positions in all pages' terms)."""
    pages = np.searchsorted(offsets, firsts, side="right") - 1
    names: list[str] = [""] * len(firsts)
    split_page, split = -1, []
    for i in np.argsort(pages, kind="stable").tolist():  # each page's names split once
        page = int(pages[i])
        if page != split_page:
            split_page, split = page, found[page].names.split(" ")
        names[i] = split[int(firsts[i] - offsets[page])]
    return names


def _shard(name: str, shards: int, keys: dict[str, int]) -> int:
    key = term_key(name)
    shard = keys.get(key)
    if shard is None:
        shard = keys[key] = fnv1a(key) % shards
    return shard


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
