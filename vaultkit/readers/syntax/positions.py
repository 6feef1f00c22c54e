"""Core rule giving inline tokens of the Obsidian plugins their place in the source.

markdown-it gives line maps to block tokens only. Inline plugins record offsets in the
inline content (`meta["offset"]`, `meta["end"]`); this rule maps them back to the source:
each content line of a paragraph or heading is a suffix of its source line (after list,
quote and indent markers), and a table cell is a slice of its row where a `|` of the
content may have been written `\\|`. The inline token of each table cell gets the column
where its content starts (`meta["cell_col"]`, 1-based), for readers of numbers in tables.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from functools import partial

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token


def content_column(source: str, content: str) -> int:
    """Column where a content line (of a paragraph, heading or fence) starts in its source line."""
    stripped, wanted = source.rstrip(), content.rstrip()
    if stripped.endswith(wanted):
        return len(stripped) - len(wanted)
    return max(source.find(wanted), 0)


class _Locator:
    """Maps offsets in one inline token's content to 0-based (line, col) in the source."""

    def __init__(self, lines: list[str], inline: Token):
        first = inline.map[0] if inline.map else 0
        self.starts: list[tuple[int, int]] = []  # per content line: (source line, column)
        self.offsets: list[int] = []  # content offset where each content line starts
        offset = 0
        for i, content_line in enumerate(inline.content.split("\n")):
            line = min(first + i, len(lines) - 1)
            self.starts.append((line, content_column(lines[line], content_line)))
            self.offsets.append(offset)
            offset += len(content_line) + 1

    def locate(self, offset: int) -> tuple[int, int]:
        i = max(bisect_right(self.offsets, offset) - 1, 0)
        line, start = self.starts[i]
        return line, start + offset - self.offsets[i]


class _CellLocator:
    """A table cell: one line; each `|` of the content may be written `\\|` in the row."""

    def __init__(self, lines: list[str], inline: Token, search_from: int):
        self.line = inline.map[0] if inline.map else 0
        row, content = lines[self.line], inline.content
        if "|" in content:
            pattern = r"\\?\|".join(re.escape(part) for part in content.split("|"))
            match = re.search(pattern, row[search_from:])
            start = search_from + match.start() if match else search_from
            written = match.group(0) if match else content
        else:
            found = row.find(content, search_from)
            start = found if found >= 0 else search_from
            written = content
        self.start, self.written, self.content = start, written, content
        self.end = start + len(written)

    def locate(self, offset: int) -> tuple[int, int]:
        """Column of a content offset: one more for every `\\|` before it."""
        if self.written is self.content:
            return self.line, self.start + offset
        j = 0
        for char in self.content[:offset]:
            if char == "|" and self.written[j : j + 1] == "\\":
                j += 1
            j += 1
        return self.line, self.start + j


def _place(children: list[Token], locate: Callable[[], _Locator | _CellLocator], lines: list[str]) -> None:
    """Give each child with an offset its place; `locate()` makes the locator (once, when
    one needs it: most inline tokens have no such child)."""
    locator = None
    for child in children:
        meta = child.meta
        if meta and "offset" in meta and "line" not in meta:
            locator = locator or locate()
            line, col = locator.locate(meta["offset"])
            end_line, end_col = locator.locate(meta["end"])
            meta["line"], meta["col"] = line + 1, col + 1
            meta["end_line"], meta["end_col"] = end_line + 1, end_col + 1
            if end_line == line:
                meta["raw"] = lines[line][col:end_col]
            else:
                meta["raw"] = "\n".join([lines[line][col:], *lines[line + 1 : end_line], lines[end_line][:end_col]])
        if child.children:
            _place(child.children, locate, lines)


def positions_rule(state: StateCore) -> None:
    lines = state.src.split("\n")
    cell_from = 0  # in a table row, where the next cell is searched from
    in_cell = False
    for token in state.tokens:
        kind = token.type
        if kind == "inline":
            if not token.map:
                continue
            if in_cell:
                cell = _CellLocator(lines, token, cell_from)
                cell_from = cell.end
                token.meta["cell_col"] = cell.start + 1  # 1-based column of the cell's content
                _place(token.children or [], lambda cell=cell: cell, lines)
            else:
                _place(token.children or [], partial(_Locator, lines, token), lines)
        elif kind == "tr_open":
            cell_from = 0
        elif kind in ("td_open", "th_open"):
            in_cell = True
        elif kind in ("td_close", "th_close"):
            in_cell = False


def positions_plugin(md: MarkdownIt) -> None:
    """Use after every plugin whose tokens carry offsets: the rule runs last."""
    md.core.ruler.push("vk_positions", positions_rule)
