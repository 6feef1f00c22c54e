"""One inline rule for all Obsidian inline syntaxes (and markdown-it's linkify, at `:`),
dispatching on the current character.

markdown-it calls every inline rule at each position where text stops (`[`, `!`, `#`, `%`,
`=`, ...); one rule with a character table instead of one rule per syntax keeps the parser
fast on long notes.
"""

from __future__ import annotations

from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

InlineRule = Callable[[StateInline, bool], bool]


class InlineDispatch:
    """The one inline rule of the Obsidian syntaxes: the rules of each first character, tried in
    the order the syntaxes were added. The parser makes one and gives it to each plugin."""

    def __init__(self):
        self.rules: dict[str, list[InlineRule]] = {}

    def add(self, chars: str, rule: InlineRule) -> None:
        """Run `rule` at positions starting with one of `chars`."""
        for char in chars:
            self.rules.setdefault(char, []).append(rule)

    def __call__(self, state: StateInline, silent: bool) -> bool:
        rules = self.rules.get(state.src[state.pos])
        return bool(rules) and any(rule(state, silent) for rule in rules)


def dispatch_plugin(md: MarkdownIt, inline: InlineDispatch) -> None:
    """Install `inline` before markdown-it's own inline rules (after plain text)."""
    md.inline.ruler.after("text", "obsidian_inline", inline)
