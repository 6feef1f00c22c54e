"""Block ids, as Obsidian reads them.

- `text ^id` at the end of a paragraph or list item names that block (a list item: the item
  with its sub-items; a paragraph inside a quote: that paragraph);
- `^id` on a line of its own right after a list, quote, callout or table (with or without a
  blank line between) names that whole block: this is how those blocks get ids, since a
  trailing `^id` would land in the last item or cell.

The core rule removes the marker from the rendered text and puts on the opening token of the
named block `meta["block_id"]` and `meta["block_lines"]` (its 0-based line range [start, end)
in the source, the marker's line included), with the `id` attribute `^id` so `[[N#^id]]` is an
anchor. A `^id` written
elsewhere (in the middle of a block) names nothing; it is listed in `meta["misplaced_block_ids"]`
of its inline token so a link to it can say why it does not resolve.

`block_spans(tokens)` is the one place every consumer (check, fix, site) reads them from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

ID = r"\^([A-Za-z0-9-]+)"
BLOCK_ID = re.compile(rf"(?:^|\s){ID}[ \t]*$")
ALONE = re.compile(rf"{ID}[ \t]*")
ANY_ID = re.compile(rf"(?:^|(?<=\s)){ID}(?=\s|$)")
# blocks a `^id` line of its own names when it follows them
STRUCTURED = ("bullet_list", "ordered_list", "blockquote", "table")


@dataclass(frozen=True)
class BlockSpan:
    """Where a block id is: the block it names (0-based lines)."""

    block_id: str
    start: int  # first line of the block
    end: int  # one past its last line (marker line included)


def block_spans(tokens: list[Token]) -> dict[str, BlockSpan]:
    """Every block id of a note (the first wins when one is written twice)."""
    spans: dict[str, BlockSpan] = {}
    for token in tokens:
        meta = token.meta
        if meta and "block_lines" in meta and meta["block_id"] not in spans:
            spans[meta["block_id"]] = BlockSpan(meta["block_id"], *meta["block_lines"])
    return spans


def misplaced_block_ids(tokens: list[Token]) -> set[str]:
    """`^id`s written in the middle of a block, which Obsidian does not treat as ids."""
    return {i for t in tokens if t.meta for i in t.meta.get("misplaced_block_ids", ())}


def _opener(tokens: list[Token], close: int) -> int:
    """Index of the token that opens the block closed at `close`."""
    depth = 0
    for j in range(close, -1, -1):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return close


def _name(token: Token, block_id: str, lines: tuple[int, int]) -> None:
    token.meta = {**(token.meta or {}), "block_id": block_id, "block_lines": lines}
    token.attrSet("id", f"^{block_id}")


def _own_line_id(tokens: list[Token], i: int) -> bool:
    """A paragraph that is only `^id`, right after a list, quote, callout or table: name that
    block and drop the paragraph. True when it did."""
    inline = tokens[i]
    match = ALONE.fullmatch(inline.content.strip())
    if not match or i < 2 or tokens[i - 1].type != "paragraph_open":
        return False
    before = tokens[i - 2]
    if before.nesting != -1 or before.type.rsplit("_", 1)[0] not in STRUCTURED:
        return False
    opener = tokens[_opener(tokens, i - 2)]
    if not opener.map or opener.level != tokens[i - 1].level:
        return False
    marker = inline.map[0]
    _name(opener, match.group(1), (opener.map[0], marker + 1))
    del tokens[i - 1 : i + 2]
    return True


def _table_row_id(tokens: list[Token], i: int) -> bool:
    """`^id` right under a table (no blank line) is read by GFM as a last row with that one
    cell: name the table and drop the row. True when it did."""
    match = ALONE.fullmatch(tokens[i].content.strip())
    if not match or tokens[i - 1].type != "td_open" or tokens[i - 2].type != "tr_open":
        return False
    row_end = i
    while tokens[row_end].type != "tr_close":
        row_end += 1
    cells = [t for t in tokens[i + 1 : row_end] if t.type == "inline"]
    if any(cell.content.strip() for cell in cells) or tokens[row_end + 1].type != "tbody_close":
        return False
    table = next(j for j in range(i, -1, -1) if tokens[j].type == "table_open")
    marker = tokens[i].map[0]
    _name(tokens[table], match.group(1), (tokens[table].map[0], marker + 1))
    del tokens[i - 2 : row_end + 1]
    return True


def _named_block(tokens: list[Token], i: int, alone: bool) -> Token:
    """The block a trailing `^id` of inline token `i` names. On a line of its own (a lazy
    continuation line) it names the outermost list or quote the paragraph ends; at the end
    of a text line, the list item when the inline is its first paragraph, else the inline's
    own block."""
    block = tokens[i - 1]
    if alone:
        close = i + 1
        while (
            close + 1 < len(tokens)
            and tokens[close + 1].nesting == -1
            and (tokens[close + 1].type.rsplit("_", 1)[0] in (*STRUCTURED, "list_item"))
        ):
            close += 1
        return tokens[_opener(tokens, close)]
    if block.type == "paragraph_open" and i >= 2 and tokens[i - 2].type == "list_item_open":
        return tokens[i - 2]
    return block


def block_ids_rule(state: StateCore) -> None:
    tokens = state.tokens
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type != "inline" or "^" not in token.content or not token.children or not token.map:
            i += 1  # (no map: an inline footnote's text, moved to the end; it names no block)
            continue
        if _own_line_id(tokens, i):
            i -= 1
            continue
        if _table_row_id(tokens, i):
            i -= 2
            continue
        match = BLOCK_ID.search(token.content)
        last = token.children[-1]
        trailing = match and last.type == "text" and last.content.rstrip().endswith(match.group(0).strip())
        ending = match.start() if trailing else len(token.content)
        misplaced = [m.group(1) for m in ANY_ID.finditer(token.content, 0, ending)]
        if misplaced:
            token.meta = {**(token.meta or {}), "misplaced_block_ids": misplaced}
        if trailing and i > 0 and tokens[i - 1].nesting == 1:
            block_id = match.group(1)
            last.content = last.content.rstrip()[: -len(match.group(0).strip())].rstrip()
            if not last.content and len(token.children) > 1 and token.children[-2].type == "softbreak":
                del token.children[-2:]  # the marker had a line of its own
            alone = match.start() == 0 or match.group(0)[0] == "\n"
            block = _named_block(tokens, i, alone)
            marker = token.map[0] + token.content[: match.start(1)].count("\n")
            end = max(block.map[1], marker + 1) if block.map else marker + 1
            start = block.map[0] if block.map else marker
            _name(block, block_id, (start, end))
        i += 1


def block_ids_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("vk_block_ids", block_ids_rule)
