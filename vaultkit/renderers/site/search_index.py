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
from bisect import bisect_left
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
    hashes = b"".join(_term_hash(term) for term in counts)
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
PAGES = "search/pages.json"


@dataclass
class IndexWritten:
    """What a build keeps of the index it wrote, for the next one to change only the shards a
    page's terms fall in: the digest of each file's bytes (by site path), the searched pages'
    locations in number order, and the number of postings in all (it decides the shard count)."""

    files: dict[str, str]
    locations: list[str]
    postings: int


def write_index(site_dir: str, config: dict, found: list[PageSearch | None]) -> IndexWritten:
    """Write the index (`index_files`) under `site_dir`, leaving files whose bytes are the
    same as they are; what `update_index` needs of it."""
    files = {}
    for rel, data in index_files(config, found):
        _write_if_changed(os.path.join(site_dir, rel), data)
        files[rel] = _sha(data)
    searched = sorted(page.location for page in found if page is not None)
    return IndexWritten(files, searched, sum(len(page.counts) for page in found if page is not None))


def update_index(
    site_dir: str, config: dict, kept: IndexWritten, changes: list[tuple[PageSearch | None, PageSearch | None]]
) -> IndexWritten | None:
    """Bring the index `kept` describes up to date with the pages whose parts changed
    (`changes`: each one's part before and after), the other pages as they were: only the
    shards of the terms whose count on a page changed are read and written again, with the
    changed pages' own files and the head (material's search writes over it). The bytes are
    those `write_index` writes. None, having written nothing, when the pages' numbers would
    change (a page starts or stops being searched, or moves), the shard count would, or a file
    to be read is not the one the index was written with."""
    numbers: dict[str, int] = {}
    postings = kept.postings
    for before, after in changes:
        if (before is None) != (after is None):
            return None
        if before is None or after is None:
            continue
        location = before.location
        number = bisect_left(kept.locations, location)
        if location != after.location or number == len(kept.locations) or kept.locations[number] != location:
            return None
        numbers[location] = number
        postings += len(after.counts) - len(before.counts)
    shards = shard_count(postings)
    if shards != shard_count(kept.postings):
        return None
    moved: dict[int, dict[str, dict[int, int]]] = {}  # shard -> term -> page number -> its count now (0: gone)
    keys: dict[str, int] = {}
    titles: dict[int, str] = {}
    for before, after in changes:
        if before is None or after is None:
            continue
        number, was, now = numbers[before.location], _term_counts(before), _term_counts(after)
        for term in was.keys() | now.keys():
            if was.get(term) != now.get(term):
                moved.setdefault(_shard(term, shards, keys), {}).setdefault(term, {})[number] = now.get(term, 0)
        if before.sections[0][1] != after.sections[0][1]:
            titles[number] = after.sections[0][1]
    read = {f"search/terms/{n}.bin": b"" for n in moved}
    if titles:
        read[PAGES] = b""
    for rel in read:
        try:
            with open(os.path.join(site_dir, rel), "rb") as kept_file:
                read[rel] = kept_file.read()
        except OSError:
            return None
        if _sha(read[rel]) != kept.files.get(rel):
            return None
    out = [
        (f"search/terms/{n}.bin", _shard_updated(read[f"search/terms/{n}.bin"], terms)) for n, terms in moved.items()
    ]
    if titles:
        rows = json.loads(read[PAGES])
        for number, title in titles.items():
            rows[number][2] = title
        out.append((PAGES, _json(rows)))
    for _, after in changes:
        if after is not None:
            out.append((f"search/page/{numbers[after.location]}.json", _page_json(after)))
    out.append((HEAD, _head(config, shards, len(kept.locations))))
    files = dict(kept.files)
    for rel, data in out:
        _write_if_changed(os.path.join(site_dir, rel), data)
        files[rel] = _sha(data)
    return IndexWritten(files, kept.locations, postings)


def _term_counts(page: PageSearch) -> dict[str, int]:
    return dict(zip(page.names.split(" ") if page.names else [], page.counts))


def _shard_updated(data: bytes, moved: dict[str, dict[int, int]]) -> bytes:
    """A shard's bytes (`_shard_bytes`) with the postings of the terms `moved` changed: term ->
    page number -> its count on that page now (0: the page no longer has it)."""
    end = data.index(b"\n") + 1
    values = np.frombuffer(data, dtype="<u4", offset=end + (-end % 4))
    postings, at = {}, 0
    for name, n in json.loads(data[:end]):
        postings[name], at = values[at : at + n], at + n
    for term, pages in moved.items():
        kept = postings.get(term, np.zeros(0, "<u4"))
        counts = dict(zip(np.cumsum(kept >> 4).tolist(), (kept & 15).tolist()))
        counts.update(pages)
        numbers = np.array(sorted(page for page, count in counts.items() if count), dtype=np.uint32)
        if len(numbers):
            tf = np.array([counts[page] for page in numbers.tolist()], dtype=np.uint32)
            postings[term] = (np.diff(numbers, prepend=np.uint32(0)) * 16 + tf).astype("<u4")
        else:
            postings.pop(term, None)
    order = sorted(postings, key=lambda term: int.from_bytes(_term_hash(term), "little"))  # as `index_files`
    return _shard_bytes([(term, postings[term]) for term in order])


def _shard_bytes(groups: list[tuple[str, np.ndarray]]) -> bytes:
    """A shard's file: a line of JSON, each term's name and number of postings, padded with
    spaces to a multiple of 4 bytes, then the terms' postings."""
    head = _json([[name, len(values)] for name, values in groups]) + b"\n"
    head += b" " * (-len(head) % 4)  # the postings start on a multiple of 4 bytes
    return head + b"".join(values.astype("<u4", copy=False).tobytes() for _, values in groups)


def _head(config: dict, shards: int, pages: int) -> bytes:
    return _json({"config": {**config, "vaultkit": {"shards": shards, "pages": pages}}, "docs": []})


def _page_json(page: PageSearch) -> bytes:
    return _json({"sections": page.sections, "tags": page.tags})


def _term_hash(term: str) -> bytes:
    return hashlib.blake2b(term.encode("utf-8"), digest_size=8).digest()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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
    yield HEAD, _head(config, shards, len(found))
    yield PAGES, _json(_front_coded(found))
    by_shard = np.argsort(shard_of, kind="stable")
    bounds = np.searchsorted(shard_of[by_shard], np.arange(shards + 1))
    for n in range(shards):
        groups = by_shard[bounds[n] : bounds[n + 1]]
        yield f"search/terms/{n}.bin", _shard_bytes([(names[g], values[starts[g] : ends[g]]) for g in groups])
    for number, page in enumerate(found):
        yield f"search/page/{number}.json", _page_json(page)


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
