"""Parse an edited note again, re-parsing only the top-level blocks the edit can change.

`reparse(previous, text)` gives exactly what `parse_document(text)` gives. It rests on how
markdown-it reads blocks: at the start of a top-level block, what follows depends only on the
lines from there on (front matter aside: only the note's first line opens it); a block reads
ahead at most the line after the next block's first line, except blocks that look for their
end: `\\[` math up to a blank line; `$$` math and front matter as far as it takes, and
when they find no end they are not that block. So:

- the blocks before a start line S are unchanged when the line before S is blank, the edit
  begins at least two lines after S and writes no `$$` a `$$` above could end at;
- the text is re-parsed from S in a window that grows until, past the edit, the window has a
  block starting on a line where a block of the previous parse started, with a blank line
  after that line inside the window, and no `$$` before that line that could end past the
  window: from there the previous tokens hold, their lines shifted.

Document-wide definitions (link references, footnotes) change inline tokens anywhere: a note
that has them, or an edit that makes them, is parsed whole. Heading anchors, unique within
the note, are made again over the whole note.
"""

from __future__ import annotations

from bisect import bisect_right

from markdown_it.token import Token

from vaultkit.readers.markdown import Parsed, parse_document
from vaultkit.readers.syntax.headings import plain_text, unique_anchors

FRONT = "-"  # what a parse's first character is when it may read front matter (a window is parsed as its own text)
MATH = "$$"  # a math block opens with it and looks for its end across the rest of the note


def reparse(previous: Parsed, text: str) -> Parsed:
    """The parse of `text`, an edit of the text of `previous`."""
    if text == previous.text:
        return previous
    starts = _block_starts(previous.tokens)
    fronted = text.startswith(FRONT)
    if not starts or previous.document_wide or (fronted and previous.tokens[0].type != "front_matter"):
        return parse_document(text)  # the first line may now open front matter that ends far below
    old, new = previous.text.split("\n"), text.split("\n")
    head = _common_head(old, new)
    tail = _common_head(old[head:][::-1], new[head:][::-1])
    lines = [line for line, _ in starts]
    first = _first_block(old, lines, head)
    start, kept = (lines[first], starts[first][1]) if first is not None else (0, 0)
    if _has_math(new[head : len(new) - tail]) and _has_math(old[:start]):
        return parse_document(text)  # a `$$` above may end in the edit now
    shift = len(new) - len(old)
    after = bisect_right(lines, len(old) - tail - 1)  # the first block starting past the edit
    by_line = dict(starts)
    count = 1  # blocks past the edit in the window: up to one with a blank line after its first line
    while after + count < len(lines) and not any(_blank(row) for row in old[lines[after] + 1 : lines[after + count]]):
        count += 1
    while True:
        stop = lines[after + count] + shift if after + count < len(lines) else len(new)
        parsed = parse_document("\n".join(new[start:stop]))
        window = parsed.tokens
        if parsed.document_wide or (fronted and not start and window[0].type != "front_matter"):
            return parse_document(text)
        if stop == len(new):
            return _spliced(previous.tokens[:kept], window, start, [], shift, text)
        for line, index in _block_starts(window) or ():
            at = start + line
            if at < len(new) - tail or at <= shift or at - shift not in by_line:
                continue  # not the start of a block of the previous parse past the edit (nor the top)
            if not any(_blank(row) for row in new[at + 1 : stop]):
                break  # blocks before `at` may read ahead past the window
            if _has_math(new[start:at]) and _has_math(new[stop:]):
                break  # a `$$` the window did not see end may end past it
            rest = previous.tokens[by_line[at - shift] :]
            return _spliced(previous.tokens[:kept], window[:index], start, rest, shift, text)
        count *= 2


def _spliced(prefix: list[Token], window: list[Token], start: int, rest: list[Token], shift: int, text: str) -> Parsed:
    tokens = [*prefix, *_shifted(window, start), *_shifted(rest, shift)]
    _anchor_headings(tokens)
    return Parsed(text, tokens, document_wide=False)


def _block_starts(tokens: list[Token]) -> list[tuple[int, int]] | None:
    """(first line, token index) of each top-level block; None when one has no line map."""
    starts = []
    for index, token in enumerate(tokens):
        if token.level == 0 and token.nesting >= 0:
            if not token.map:
                return None
            starts.append((token.map[0], index))
    return starts


def _blank(line: str) -> bool:
    """Whether markdown-it reads the line as blank (spaces and tabs only)."""
    return not line.strip(" \t")


def _has_math(lines: list[str]) -> bool:
    return any(MATH in line for line in lines)


def _common_head(a: list[str], b: list[str]) -> int:
    """How many first lines `a` and `b` share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _first_block(old: list[str], lines: list[int], head: int) -> int | None:
    """Index of the last block the window can start with: after a blank line, two lines or more
    before the first edited line `head`, not starting with what may open front matter (None:
    the window starts at the note's top)."""
    for i in range(bisect_right(lines, head - 2) - 1, -1, -1):
        line = lines[i]
        if line == 0:
            return None
        if _blank(old[line - 1]) and not old[line].startswith(FRONT):
            return i
    return None


def _shifted(tokens: list[Token], by: int) -> list[Token]:
    """The tokens with every line they record moved by `by` (copies: the previous parse keeps its own)."""
    if not by:
        return tokens
    return [_shift(token, by) for token in tokens]


def _shift(token: Token, by: int) -> Token:
    meta = token.meta
    if meta and ("line" in meta or "block_lines" in meta):
        meta = dict(meta)
        if "line" in meta:
            meta["line"], meta["end_line"] = meta["line"] + by, meta["end_line"] + by
        if "block_lines" in meta:
            meta["block_lines"] = (meta["block_lines"][0] + by, meta["block_lines"][1] + by)
    children = token.children
    if children and any(child.meta or child.children for child in children):  # else no child counts lines
        moved = [_shift(child, by) for child in children]
        if any(new is not old for new, old in zip(moved, children)):
            children = moved
    if token.map is None and meta is token.meta and children is token.children:
        return token
    return _copy(token, map=token.map and [token.map[0] + by, token.map[1] + by], meta=meta, children=children)


def _copy(token: Token, map: list[int] | None, meta: dict, children: list[Token] | None, attrs=None) -> Token:
    """A copy of `token` with its lines, meta, children (and attrs) replaced; field by field, as
    `dataclasses.replace` is several times slower over the thousands of tokens below an edit."""
    return Token(
        type=token.type,
        tag=token.tag,
        nesting=token.nesting,
        attrs=token.attrs if attrs is None else attrs,
        map=map,
        level=token.level,
        children=children,
        content=token.content,
        markup=token.markup,
        info=token.info,
        meta=meta,
        block=token.block,
        hidden=token.hidden,
    )


def _anchor_headings(tokens: list[Token]) -> None:
    """Give headings their anchors, unique within the whole note (a window made them unique in it alone)."""
    heads = [i for i, token in enumerate(tokens) if token.type == "heading_open"]
    plains = [plain_text(tokens[i + 1]) for i in heads]
    for i, anchor in zip(heads, unique_anchors(plains)):
        token = tokens[i]
        if token.meta.get("anchor") != anchor:
            meta, attrs = {**token.meta, "anchor": anchor}, {**token.attrs, "id": anchor}
            tokens[i] = _copy(token, token.map, meta, token.children, attrs)
