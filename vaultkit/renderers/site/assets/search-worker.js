// vaultkit's search worker, in place of material's: the same messages (setup, ready, query,
// result), so material's search box and result list are unchanged, but the index is read in
// pieces (vaultkit/renderers/site/search_index.py writes them): for a query, the shards of its
// terms, the table of pages, and the sections of the results shown first.
"use strict"

const SETUP = 0, READY = 1, QUERY = 2, RESULT = 3
const HAN = "\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\u{20000}-\\u{2fa1f}"
const WORD = /[\p{L}\p{N}_]+/gu
const PIECE = new RegExp(`[${HAN}]+|[^${HAN}]+`, "gu")
const HAN_CHAR = new RegExp(`^[${HAN}]`, "u")
const TERM_CHARS = 30, SHOWN = 10
const BASE = new URL("../../../", self.location.href)  // the worker is assets/javascripts/workers/<name>

let index = null  // {shards, pages: [[location, title]], shard(n): Promise<object>, page(n): Promise<object>}
let latest = 0

/* Terms, as search_index.terms cuts them: words lower-cased, Han runs in pairs of characters */
function terms(text) {
  const found = []
  for (const [word] of text.toLowerCase().matchAll(WORD))
    for (const [piece] of word.matchAll(PIECE)) {
      const chars = [...piece]
      if (HAN_CHAR.test(piece)) {
        if (chars.length === 1) found.push(piece)
        for (let i = 0; i + 1 < chars.length; i++) found.push(chars[i] + chars[i + 1])
      } else {
        found.push(chars.slice(0, TERM_CHARS).join(""))
      }
    }
  return found
}

/* The parts of a query: each word, and each run of Han characters (all its pairs) */
function queryParts(query) {
  const parts = []
  for (const [word] of query.toLowerCase().matchAll(WORD))
    for (const [piece] of word.matchAll(PIECE)) {
      const han = HAN_CHAR.test(piece)
      const text = han ? piece : [...piece].slice(0, TERM_CHARS).join("")
      if (!parts.some(part => part.text === text))
        parts.push({ text, han, terms: han ? terms(piece) : [text] })
    }
  return parts
}

function termKey(term) {
  return HAN_CHAR.test(term) ? term : [...term].slice(0, 3).join("")
}

function fnv1a(text) {
  let hash = 0x811c9dc5
  for (const byte of new TextEncoder().encode(text))
    hash = Math.imul(hash ^ byte, 0x01000193) >>> 0
  return hash
}

function fetchJSON(path) {
  return fetch(new URL(path, BASE)).then(response => {
    if (!response.ok) throw new Error(`${path}: ${response.status}`)
    return response.json()
  })
}

function cached(load) {
  const kept = new Map()
  return n => {
    if (!kept.has(n)) kept.set(n, load(n).catch(error => { kept.delete(n); throw error }))
    return kept.get(n)
  }
}

/* The index `vaultkit build` writes (and `vaultkit serve` serves) */
function fetchedIndex(config) {
  const table = fetchJSON("search/pages.json").then(rows => {
    let before = ""
    return rows.map(([shared, rest, title]) => [before = before.slice(0, shared) + rest, title])
  })
  return {
    shards: config.vaultkit.shards,
    pages: table,
    shard: cached(n => fetch(new URL(`search/terms/${n}.bin`, BASE)).then(response => {
      if (!response.ok) throw new Error(`search/terms/${n}.bin: ${response.status}`)
      return response.arrayBuffer()
    }).then(readShard)),
    page: cached(n => fetchJSON(`search/page/${n}.json`)),
  }
}

/* A shard: a line of JSON, [[term, postings], ...], padded to 4 bytes, then the postings (uint32) */
function readShard(buffer) {
  const bytes = new Uint8Array(buffer)
  const line = bytes.indexOf(10)
  const head = JSON.parse(new TextDecoder().decode(bytes.subarray(0, line)))
  const values = new Uint32Array(buffer, Math.ceil((line + 1) / 4) * 4)
  const shard = {}
  let at = 0
  for (const [term, count] of head) {
    shard[term] = values.subarray(at, at + count)
    at += count
  }
  return shard
}

/* The pages holding a query part: page number -> count of its terms there */
async function pagesOf(part) {
  let found = null
  for (const term of part.terms) {
    const shard = await index.shard(fnv1a(termKey(term)) % index.shards)
    const here = new Map()
    const prefix = !part.han && [...term].length >= 3
    for (const [name, list] of Object.entries(shard)) {
      if (name !== term && !(prefix && name.startsWith(term))) continue
      let number = 0
      for (const value of list) {
        number += Math.floor(value / 16)
        here.set(number, (here.get(number) || 0) + (value % 16) * (name === term ? 1 : 0.5))
      }
    }
    if (found === null) found = here
    else for (const [number, count] of found)
      if (here.has(number)) found.set(number, count + here.get(number))
      else found.delete(number)
  }
  return found || new Map()
}

function escapeHTML(text) {
  return text.replace(/[&<>"]/g, char => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" })[char])
}

/* The text, escaped, with each part of the query in it marked */
function highlight(text, parts) {
  const lower = text.toLowerCase()
  if (lower.length !== text.length) return escapeHTML(text)
  const marked = new Array(text.length).fill(false)
  for (const { text: needle } of parts)
    for (let at = lower.indexOf(needle); at >= 0 && needle; at = lower.indexOf(needle, at + needle.length))
      marked.fill(true, at, at + needle.length)
  let out = "", i = 0
  while (i < text.length) {
    let j = i
    while (j < text.length && marked[j] === marked[i]) j++
    const piece = escapeHTML(text.slice(i, j))
    out += marked[i] ? `<mark>${piece}</mark>` : piece
    i = j
  }
  return out
}

function mentions(text, parts) {
  const lower = text.toLowerCase()
  return parts.some(part => lower.includes(part.text))
}

async function search(query) {
  const parts = queryParts(query)
  if (!parts.length) return { items: [] }
  const [pages, ...found] = await Promise.all([index.pages, ...parts.map(pagesOf)])
  const scores = new Map()
  found.forEach((here, p) => {
    const weight = Math.log(1 + pages.length / Math.max(here.size, 1))
    for (const [number, count] of here) {
      const before = p === 0 ? 0 : scores.get(number)
      if (before === undefined) continue
      const inTitle = pages[number][1].toLowerCase().includes(parts[p].text) ? 2 : 0
      scores.set(number, before + weight * (1 + Math.log(Math.max(count, 1)) + inTitle))
    }
    if (p > 0) for (const number of scores.keys()) if (!here.has(number)) scores.delete(number)
  })
  const ranked = [...scores].sort((a, b) => b[1] - a[1] || a[0] - b[0])
  const shown = await Promise.all(ranked.slice(0, SHOWN).map(([number]) => index.page(number)))
  const matched = Object.fromEntries(parts.map(part => [part.text, true]))
  const items = ranked.map(([number, score], rank) => {
    const record = shown[rank]
    if (record === undefined) {
      const [location, title] = pages[number]
      return [{ location, title: highlight(title, parts), text: "", score, terms: matched }]
    }
    const [[location, title, text], ...sections] = record.sections
    const page = { location, title: highlight(title, parts), text: highlight(text, parts), score, terms: matched }
    if (record.tags.length) page.tags = record.tags
    return [page, ...sections
      .filter(([, heading, body]) => mentions(heading, parts) || mentions(body, parts))
      .map(([at, heading, body]) => ({
        location: at, title: highlight(heading, parts), text: highlight(body, parts), score, terms: matched,
      }))]
  })
  return { items }
}

addEventListener("message", async event => {
  const message = event.data
  if (message.type === SETUP) {
    index = fetchedIndex(message.data.config)
    postMessage({ type: READY })
  } else if (message.type === QUERY) {
    const asked = ++latest
    let data
    try {
      data = await search(message.data)
    } catch (error) {
      console.warn(`vaultkit search: ${error}`)
      data = { items: [] }
    }
    if (asked === latest) postMessage({ type: RESULT, data })  // else a newer query is on its way
  }
})
