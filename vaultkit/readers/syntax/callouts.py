"""Callouts `> [!type]+ Title` (nested too), and the callout styles of a vault's CSS snippets.

A core rule between block and inline parsing marks each blockquote whose first line is
`[!type]` with `meta = {"callout": type, "fold": "+"|"-"|"", "title": title}` on its
`blockquote_open`, removes that line from the body, and puts the title after the opener as
`callout_title_open`, an inline token (parsed like any text: code, emphasis, wikilinks) and
`callout_title_close`. It renders as a material admonition (`<details>` when foldable) whose
class is the type's family (`FAMILIES`: Obsidian's aliases, an unknown type is a note) and
whose `data-callout` is the type as written, as Obsidian's own markup has it.

`snippet_callouts` reads the `--callout-color` / `--callout-icon` a CSS snippet gives a type."""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from vaultkit.readers.syntax.table_pipes import PIPE

CALLOUT = re.compile(r"\[!([\w-]+)\]([+-]?)[ \t]*(.*)")

# Obsidian's callout types and their aliases -> the type whose colour and icon they share.
FAMILIES = {
    "note": "note",
    "abstract": "abstract",
    "summary": "abstract",
    "tldr": "abstract",
    "info": "info",
    "todo": "todo",
    "tip": "tip",
    "hint": "tip",
    "important": "tip",
    "success": "success",
    "check": "success",
    "done": "success",
    "question": "question",
    "help": "question",
    "faq": "question",
    "warning": "warning",
    "caution": "warning",
    "attention": "warning",
    "failure": "failure",
    "fail": "failure",
    "missing": "failure",
    "danger": "danger",
    "error": "danger",
    "bug": "bug",
    "example": "example",
    "quote": "quote",
    "cite": "quote",
}


def family(kind: str) -> str:
    """The type whose look a callout type has (an unknown type looks like a note)."""
    return FAMILIES.get(kind, "note")


def callouts_rule(state: StateCore) -> None:
    tokens = state.tokens
    found = []
    for i, token in enumerate(tokens):
        if token.type != "blockquote_open" or i + 2 >= len(tokens) or tokens[i + 1].type != "paragraph_open":
            continue
        inline = tokens[i + 2]
        first, _, body = inline.content.partition("\n")
        match = CALLOUT.fullmatch(first.strip())
        if not match:
            continue
        kind, fold, title = match.group(1).lower(), match.group(2), match.group(3).strip()
        token.meta = {"callout": kind, "fold": fold, "title": title.replace(PIPE, "|") or kind.capitalize()}
        line = inline.map[0] if inline.map else (token.map[0] if token.map else 0)
        found.append((i, title or kind.capitalize(), line, token.level + 1))
        inline.content = body
        for block in (tokens[i + 1], inline):
            if block.map:
                block.map = [block.map[0] + 1, block.map[1]]
        if not body.strip():  # the title was the whole paragraph
            tokens[i + 1].hidden = tokens[i + 3].hidden = True
    for i, title, line, level in reversed(found):  # from the end: earlier indices stay valid
        tokens[i + 1 : i + 1] = _title_tokens(title, line, level)


def _title_tokens(title: str, line: int, level: int) -> list[Token]:
    opening = Token("callout_title_open", "p", 1, map=[line, line + 1], level=level, block=True)
    inline = Token("inline", "", 0, content=title, map=[line, line + 1], level=level + 1, block=True, children=[])
    closing = Token("callout_title_close", "p", -1, level=level, block=True)
    return [opening, inline, closing]


def _open(self, tokens, idx, options, env) -> str:
    meta = tokens[idx].meta
    if not meta.get("callout"):
        return f"<blockquote{self.renderAttrs(tokens[idx])}>\n"
    kind = meta["callout"]
    attrs = f' data-callout="{escape(kind)}"{_id(tokens[idx])}'
    if meta["fold"]:
        open_attr = " open" if meta["fold"] == "+" else ""
        return f'<details class="{family(kind)} vk-callout"{attrs}{open_attr}>\n'
    return f'<div class="admonition {family(kind)} vk-callout"{attrs}>\n'


def _folds(tokens, idx) -> bool:
    return bool(tokens[idx - 1].meta.get("fold")) if idx and tokens[idx - 1].type == "blockquote_open" else False


def _title_open(self, tokens, idx, options, env) -> str:
    return "<summary>" if _folds(tokens, idx) else '<p class="admonition-title">'


def _title_close(self, tokens, idx, options, env) -> str:
    return "</summary>\n" if _folds(tokens, idx - 2) else "</p>\n"


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


_RULE = re.compile(r"([^{}]*)\{([^{}]*)\}")
_SELECTED_TYPE = re.compile(r"""\[data-callout\s*=\s*["']?([\w-]+)["']?\s*\]""")
_COLOR = re.compile(r"--callout-color\s*:\s*(\d{1,3})\s*,\s*(\d{1,3})\s*,\s*(\d{1,3})\s*[;}]?")
_ICON = re.compile(r"--callout-icon\s*:\s*([^;]+)")


def snippet_callouts(css: str) -> dict[str, tuple[tuple[int, int, int] | None, str | None]]:
    """Callout type -> (colour as r, g, b; icon: a Lucide name or an `<svg>`) that a CSS snippet
    sets with `.callout[data-callout="type"] { --callout-color: r, g, b; --callout-icon: … }`;
    only what the snippet sets (None otherwise)."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    styles: dict[str, tuple] = {}
    for selector, body in _RULE.findall(css):
        kinds = _SELECTED_TYPE.findall(selector)
        color = _COLOR.search(body)
        icon = _ICON.search(body)
        rgb = tuple(min(int(c), 255) for c in color.groups()) if color else None
        name = icon.group(1).strip().strip("\"'") if icon else None
        for kind in kinds:
            old = styles.get(kind.lower(), (None, None))
            styles[kind.lower()] = (rgb or old[0], name or old[1])
    return styles


def callouts_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("block", "vk_callouts", callouts_rule)
    md.add_render_rule("blockquote_open", _open)
    md.add_render_rule("blockquote_close", _close)
    md.add_render_rule("callout_title_open", _title_open)
    md.add_render_rule("callout_title_close", _title_close)
