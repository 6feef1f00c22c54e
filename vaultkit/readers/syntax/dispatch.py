"""One inline rule for all Obsidian inline syntaxes, dispatching on the current character.

markdown-it calls every inline rule at each position where text stops (`[`, `!`, `#`, `%`,
`=`, ...); one rule with a character table instead of one rule per syntax keeps the parser
fast on long notes.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

InlineRule = Callable[[StateInline, bool], bool]


def register_inline(md: MarkdownIt, chars: str, rule: InlineRule) -> None:
    """Run `rule` at positions starting with one of `chars` (before markdown-it's own rules)."""
    table: dict[str, list[InlineRule]] | None = getattr(md, "_vk_inline", None)
    if table is None:
        table = md._vk_inline = {}

        def obsidian_inline(state: StateInline, silent: bool) -> bool:
            rules = table.get(state.src[state.pos])
            return bool(rules) and any(rule(state, silent) for rule in rules)

        md.inline.ruler.after("text", "obsidian_inline", obsidian_inline)
    for char in chars:
        table.setdefault(char, []).append(rule)
