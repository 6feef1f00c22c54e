"""The search index in pieces (renderers/site/search_index.py) and the worker that reads it
(assets/search-worker.js), the worker run under Node with `fetch` reading the written files:
terms are cut alike on both sides, a word finds exactly the pages that hold it, a word typed in
part the words it starts, Chinese by its pairs of characters."""

from __future__ import annotations

import array
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from vaultkit.renderers.site import search_index
from vaultkit.renderers.site.search_index import page_search, terms, update_index, write_index

WORKER = Path(search_index.__file__).parent / "assets" / "search-worker.js"
NODE = shutil.which("node")
needs_node = pytest.mark.skipif(NODE is None, reason="node is not installed")

# Runs the worker in a Node context: argv: site folder, then a JSON list of [function, argument].
# "search" answers as the worker answers material (its SETUP given the site's search_index.json).
RUN_WORKER = r"""
const fs = require("fs"), path = require("path"), vm = require("vm")
const [worker, site, calls] = process.argv.slice(1)  // node -e: no script in argv
const posted = []
const context = {
  self: { location: { href: "http://site/assets/javascripts/workers/search.js" } },
  fetch: async url => {
    const file = path.join(site, decodeURIComponent(new URL(url).pathname))
    if (!fs.existsSync(file)) return { ok: false, status: 404 }
    const data = fs.readFileSync(file)
    return {
      ok: true,
      json: async () => JSON.parse(data.toString("utf8")),
      arrayBuffer: async () => data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength),
    }
  },
  console, URL, TextEncoder, TextDecoder, Uint8Array, Uint32Array, Promise, Math, Map, Object, Array, JSON, String,
  RegExp,
  postMessage: message => posted.push(message),
}
context.addEventListener = (_, listener) => { context.listener = listener }
vm.createContext(context)
vm.runInContext(fs.readFileSync(worker, "utf8"), context)
;(async () => {
  const out = []
  const setup = JSON.parse(fs.readFileSync(path.join(site, "search/search_index.json"), "utf8"))
  await context.listener({ data: { type: 0, data: setup } })
  for (const [name, arg] of JSON.parse(calls)) {
    if (name === "search") {
      posted.length = 0
      await context.listener({ data: { type: 2, data: arg } })
      out.push(posted[0].data.items.map(item => [item[0].location, item.slice(1).map(section => section.location)]))
    } else {
      out.push(vm.runInContext(`${name}(${JSON.stringify(arg)})`, context))
    }
  }
  console.log(JSON.stringify(out))
})()
"""


def run_worker(site: Path, calls: list) -> list:
    result = subprocess.run(
        [NODE, "-e", RUN_WORKER, str(WORKER), str(site), json.dumps(calls)],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return json.loads(result.stdout)


def entry(location: str, title: str, text: str, tags=()) -> dict:
    found = {"location": location, "title": title, "text": text}
    if tags:
        found["tags"] = list(tags)
    return found


PAGES = [
    [entry("a/", "Alpha", "<p>A footnote here, and the word Attention.</p>")],
    [entry("b/", "Beta", "<p>nothing</p>"), entry("b/#notes", "Notes", "<p>two footnotes &amp; more</p>")],
    [entry("c/", "注意力", "<p>缩放点积\u200b注意力\u200b机制</p>", tags=["数学"])],
    [entry("d/", "Delta", "<p>foot of the page</p>")],
]


def test_terms_are_words_lower_cased_and_pairs_of_han_characters():
    assert terms("The Attention, 注意力机制 and 的 x_1") == [
        "the",
        "attention",
        "注意",
        "意力",
        "力机",
        "机制",
        "and",
        "的",
        "x_1",
    ]
    assert terms("a" * 40) == ["a" * 30]
    assert search_index.term_key("attention") == "att" and search_index.term_key("注意") == "注意"


def test_a_page_is_its_sections_their_start_and_the_count_of_each_term():
    found = page_search(PAGES[1])
    assert found.location == "b/"
    assert found.sections == [("b/", "Beta", "nothing"), ("b/#notes", "Notes", "two footnotes & more")]
    assert found.names.split(" ") == ["beta", "nothing", "notes", "two", "footnotes", "more"]
    assert found.counts == bytes([1] * 6) and len(found.hashes) == 6 * 8
    assert page_search([entry("x/", "X", "<p>word word word</p>")]).counts == bytes([1, 3])
    assert page_search([]) is None
    long = page_search([entry("e/", "E", "word " * 100)])
    assert long.sections[0][2].endswith("…") and len(long.sections[0][2]) <= search_index.TEASER_CHARS + 1


def test_the_postings_hold_each_page_of_each_term_with_its_count(tmp_path):
    found = [page_search(p) for p in PAGES] + [None]
    written = write_index(str(tmp_path), {"lang": ["en"]}, found)
    head = json.loads((tmp_path / "search" / "search_index.json").read_text(encoding="utf-8"))
    shards = head["config"]["vaultkit"]["shards"]
    assert head["docs"] == [] and head["config"]["lang"] == ["en"] and head["config"]["vaultkit"]["pages"] == 4
    assert len([rel for rel in written.files if rel.startswith("search/terms/")]) == shards
    assert written.locations == ["a/", "b/", "c/", "d/"] and written.postings == sum(len(p.counts) for p in found[:4])
    decoded: dict[str, dict[int, int]] = {}
    for n in range(shards):
        data = (tmp_path / f"search/terms/{n}.bin").read_bytes()
        line = data.index(b"\n")
        values = array.array("I", data[-(-(line + 1) // 4) * 4 :])
        for term, count in json.loads(data[:line]):
            assert search_index.fnv1a(search_index.term_key(term)) % shards == n
            number, postings, values = 0, values[:count], values[count:]
            for value in postings:
                number += value // 16
                decoded.setdefault(term, {})[number] = value % 16
    assert decoded["footnote"] == {0: 1} and decoded["footnotes"] == {1: 1} and decoded["注意"] == {2: 2}
    rows = json.loads((tmp_path / "search/pages.json").read_text(encoding="utf-8"))
    assert [row[2] for row in rows] == ["Alpha", "Beta", "注意力", "Delta"]


def test_files_whose_bytes_are_the_same_are_not_written_again(tmp_path):
    found = [page_search(p) for p in PAGES]
    write_index(str(tmp_path), {}, found)
    kept = tmp_path / "search" / "page" / "0.json"
    kept.touch()
    before = kept.stat().st_mtime_ns
    changed = [*found[:3], page_search([entry("d/", "Delta", "other")])]
    write_index(str(tmp_path), {}, changed)
    assert kept.stat().st_mtime_ns == before
    assert json.loads((tmp_path / "search/page/3.json").read_text(encoding="utf-8"))["sections"] == [
        ["d/", "Delta", "other"]
    ]


def written_files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_an_index_updated_in_place_has_the_bytes_of_one_written_whole(tmp_path):
    """Pages edited (a word more, a word gone, a count past the cap, a title changed, a new term):
    the shards their terms fall in are rewritten, the rest are not touched; the files are
    those of the index written whole."""
    found = [page_search(p) for p in PAGES] + [None]
    kept = write_index(str(tmp_path / "kept"), {"lang": ["en"]}, found)
    shard_times = {p: p.stat().st_mtime_ns for p in (tmp_path / "kept" / "search" / "terms").iterdir()}
    edited = [
        page_search([entry("a/", "Alpha", "<p>A footnote here, and the word Attention " + "again " * 20 + "</p>")]),
        page_search([entry("b/", "Beta renamed", "<p>nothing</p>"), entry("b/#notes", "Notes", "<p>more</p>")]),
        page_search([entry("c/", "注意力", "<p>缩放点积\u200b注意力\u200b机制 新词</p>", tags=["数学"])]),
    ]
    changes = list(zip(found[:3], edited))
    updated = update_index(str(tmp_path / "kept"), {"lang": ["en"]}, kept, changes)
    whole = write_index(str(tmp_path / "whole"), {"lang": ["en"]}, [*edited, found[3], None])
    assert written_files(tmp_path / "kept") == written_files(tmp_path / "whole")
    assert updated == whole
    touched = {p for p, before in shard_times.items() if p.stat().st_mtime_ns != before}
    assert touched and len(touched) < len(shard_times)
    assert update_index(str(tmp_path / "kept"), {"lang": ["en"]}, updated, []) == updated  # nothing changed


def test_an_index_is_not_updated_when_page_numbers_would_change_or_a_file_is_not_the_one_written(tmp_path):
    found = [page_search(p) for p in PAGES]
    kept = write_index(str(tmp_path), {}, found)
    moved = page_search([entry("z/", "Alpha", "<p>A footnote</p>")])
    assert update_index(str(tmp_path), {}, kept, [(found[0], moved)]) is None
    assert update_index(str(tmp_path), {}, kept, [(found[0], None)]) is None
    edited = page_search([entry("a/", "Alpha", "<p>A footnote here, and the word Attention twice</p>")])
    for path in (tmp_path / "search" / "terms").iterdir():
        path.write_bytes(path.read_bytes() + b" ")  # not the bytes written
    assert update_index(str(tmp_path), {}, kept, [(found[0], edited)]) is None


@needs_node
def test_the_worker_cuts_terms_and_hashes_as_the_index_does(tmp_path):
    write_index(str(tmp_path), {}, [page_search(PAGES[0])])
    texts = ["The Attention, 注意力机制 and 的 x_1", "Ünïcode ÉTÉ 𠀀𠀁 mixed注意Word", "a" * 40]
    got = run_worker(
        tmp_path, [["terms", text] for text in texts] + [["fnv1a", key] for key in ("att", "注意", "𠀀𠀁")]
    )
    assert got[:3] == [terms(text) for text in texts]
    assert got[3:] == [search_index.fnv1a(key) for key in ("att", "注意", "𠀀𠀁")]


@needs_node
def test_a_word_finds_exactly_the_pages_that_hold_it(tmp_path):
    write_index(str(tmp_path), {}, [page_search(p) for p in PAGES])
    footnote, part, chinese, two, none, pair = run_worker(
        tmp_path,
        [
            ["search", "footnote"],
            ["search", "Foot"],
            ["search", "注意力"],
            ["search", "footnote two"],
            ["search", "zebra"],
            ["search", "点积"],
        ],
    )
    assert footnote == [["a/", []], ["b/", ["b/#notes"]]] or footnote == [["b/", ["b/#notes"]], ["a/", []]]
    assert {page for page, _ in part} == {"a/", "b/", "d/"}  # footnote, footnotes, foot
    assert chinese == [["c/", []]]
    assert two == [["b/", ["b/#notes"]]]  # every word of the query is on the page
    assert none == []
    assert pair == [["c/", []]]
