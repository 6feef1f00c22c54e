"""The one markdown parser of vaultkit: CommonMark + GFM tables/strikethrough + the
mdit-py-plugins vaultkit needs + every Obsidian syntax in `vaultkit.syntax`.

`parse(text)` parses a whole note (front matter included) so token line maps are absolute.
Parse each note once: `Note.tokens` caches the result.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin
from mdit_py_plugins.tasklists import tasklists_plugin

from .syntax.wikilinks import wikilinks_plugin
from .syntax.positions import positions_plugin
from .syntax.table_pipes import table_pipes_plugin


def make_parser() -> MarkdownIt:
    """A fresh parser with every plugin; renderers of the Obsidian tokens are plain defaults."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    md.use(front_matter_plugin).use(footnote_plugin).use(tasklists_plugin)
    md.use(wikilinks_plugin).use(table_pipes_plugin)
    md.use(positions_plugin)
    return md


_PARSER = make_parser()


def parse(text: str) -> list[Token]:
    """Tokens of a whole note, with the Obsidian plugins' meta and absolute positions."""
    return _PARSER.parse(text)
