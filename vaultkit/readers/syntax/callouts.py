"""Callouts `> [!type]+ Title` (nested too).

A core rule between block and inline parsing marks each blockquote whose first line is
`[!type]` with `meta = {"callout": type, "fold": "+"|"-"|"", "title": title}` on its
`blockquote_open`, removes that line from the body, and renders it as a material admonition
(`<details>` when foldable)."""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore

CALLOUT = re.compile(r"\[!([\w-]+)\]([+-]?)[ \t]*(.*)")


def callouts_rule(state: StateCore) -> None:
    tokens = state.tokens
    for i, token in enumerate(tokens):
        if token.type != "blockquote_open" or i + 2 >= len(tokens) or tokens[i + 1].type != "paragraph_open":
            continue
        inline = tokens[i + 2]
        first, _, body = inline.content.partition("\n")
        match = CALLOUT.fullmatch(first.strip())
        if not match:
            continue
        kind, fold, title = match.group(1).lower(), match.group(2), match.group(3).strip()
        token.meta = {"callout": kind, "fold": fold, "title": title or kind.capitalize()}
        inline.content = body
        for block in (tokens[i + 1], inline):
            if block.map:
                block.map = [block.map[0] + 1, block.map[1]]
        if not body.strip():  # the title was the whole paragraph
            tokens[i + 1].hidden = tokens[i + 3].hidden = True


def _open(self, tokens, idx, options, env) -> str:
    meta = tokens[idx].meta
    if not meta.get("callout"):
        return f"<blockquote{self.renderAttrs(tokens[idx])}>\n"
    kind, title = escape(meta["callout"]), escape(meta["title"])
    if meta["fold"]:
        open_attr = " open" if meta["fold"] == "+" else ""
        return f'<details class="{kind}"{open_attr}{_id(tokens[idx])}>\n<summary>{title}</summary>\n'
    return f'<div class="admonition {kind}"{_id(tokens[idx])}>\n<p class="admonition-title">{title}</p>\n'


def _id(token) -> str:
    """` id="..."` when the callout has a block id."""
    return f' id="{escape(token.attrGet("id"))}"' if token.attrGet("id") else ""


def _close(self, tokens, idx, options, env) -> str:
    depth = 0  # find the matching opener to know what to close
    for j in range(idx, -1, -1):
        depth += tokens[j].nesting if tokens[j].type.startswith("blockquote") else 0
        if depth == 0 and tokens[j].type == "blockquote_open":
            meta = tokens[j].meta or {}
            if not meta.get("callout"):
                return "</blockquote>\n"
            return "</details>\n" if meta["fold"] else "</div>\n"
    return "</blockquote>\n"


def callouts_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("block", "vk_callouts", callouts_rule)
    md.add_render_rule("blockquote_open", _open)
    md.add_render_rule("blockquote_close", _close)
