"""Block ids: `^id` at the end of a paragraph or list item (or on a line of its own right
after a block, as Obsidian allows). The core rule removes the marker from the text and puts
`meta["block_id"]` on the inline token and on its block's opening token, with the `id`
attribute `^id` so `[[N#^id]]` can be a site anchor."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

BLOCK_ID = re.compile(r"(?:^|[ \t])\^([A-Za-z0-9-]+)[ \t]*$")


def block_ids_rule(state: StateCore) -> None:
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "inline" or "^" not in token.content or not token.children:
            continue
        match = BLOCK_ID.search(token.content)
        last = token.children[-1]
        if not match or last.type != "text" or not last.content.rstrip().endswith(match.group(0).strip()):
            continue
        block_id = match.group(1)
        last.content = last.content.rstrip()[: -len(match.group(0).strip())].rstrip()
        token.meta = {**(token.meta or {}), "block_id": block_id}
        if i > 0 and tokens[i - 1].nesting == 1:
            tokens[i - 1].meta = {**(tokens[i - 1].meta or {}), "block_id": block_id}
            tokens[i - 1].attrSet("id", f"^{block_id}")


def block_ids_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("vk_block_ids", block_ids_rule)
