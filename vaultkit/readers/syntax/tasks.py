"""Task list items `- [ ] to do`, `- [x] done`, and any other status character (`- [?]`,
`- [-]`, `- [>]`) as Obsidian reads them: a space is an open task, any other character a
checked one.

A core rule after inline parsing puts a checkbox (`html_inline`, markup GFM's task lists use)
first in the item's text and marks the item `task-list-item` (`is-checked` when checked) with
the status in `data-task`, and the list `contains-task-list`."""

from __future__ import annotations

import re
from html import escape

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

TASK = re.compile(r"\[([^\]\n])\](?=[ \t]|$)")
_MAYBE_TASK = re.compile(r"\[[^\]\n]\](?:[ \t]|$)", re.M)  # a note without one skips the walk over its tokens


def task_status(item_text: str) -> str | None:
    """The status character of a list item's text when it starts as a task, else None."""
    match = TASK.match(item_text)
    return match.group(1) if match else None


def tasks_rule(state: StateCore) -> None:
    if not _MAYBE_TASK.search(state.src):
        return
    tokens = state.tokens
    for i in range(2, len(tokens)):
        inline = tokens[i]
        if inline.type != "inline" or tokens[i - 1].type != "paragraph_open" or tokens[i - 2].type != "list_item_open":
            continue
        status = task_status(inline.content)
        children = inline.children or []
        if status is None or not children or children[0].type != "text" or not children[0].content.startswith("["):
            continue
        checked = status != " "
        box = Token("html_inline", "", 0)
        box.content = (
            '<input class="task-list-item-checkbox"'
            + (' checked="checked"' if checked else "")
            + f' disabled="disabled" type="checkbox" data-task="{escape(status)}">'
        )
        children[0].content = children[0].content[3:]
        inline.content = inline.content[3:]
        children.insert(0, box)
        item = tokens[i - 2]
        item.attrSet("class", "task-list-item is-checked" if checked else "task-list-item")
        item.attrSet("data-task", status)
        parent = _parent(tokens, i - 2)
        if parent >= 0:
            tokens[parent].attrSet("class", "contains-task-list")


def _parent(tokens: list[Token], index: int) -> int:
    level = tokens[index].level - 1
    for j in range(index - 1, -1, -1):
        if tokens[j].level == level:
            return j
    return -1


def tasks_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("inline", "vk_tasks", tasks_rule)
