"""The one markdown parser of vaultkit: CommonMark + GFM tables/strikethrough/autolinks + the
mdit-py-plugins vaultkit needs (front matter, footnotes) + every Obsidian syntax in `vaultkit.readers.syntax`.

`parse(text)` parses a whole note (front matter included) so token line maps are absolute.
Parse each note once: `Note.tokens` caches the result; an edited note is parsed again only
where the edit can change it (`vaultkit.readers.incremental`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from markdown_it import MarkdownIt
from markdown_it.ruler import Ruler
from markdown_it.rules_block import StateBlock
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.footnote import footnote_plugin
from mdit_py_plugins.front_matter import front_matter_plugin

from vaultkit.readers.syntax.autolinks import autolinks_plugin
from vaultkit.readers.syntax.blockids import block_ids_plugin
from vaultkit.readers.syntax.callouts import callouts_plugin
from vaultkit.readers.syntax.comments import comments_plugin
from vaultkit.readers.syntax.dispatch import InlineDispatch, dispatch_plugin
from vaultkit.readers.syntax.headings import headings_plugin
from vaultkit.readers.syntax.highlight import highlight_plugin
from vaultkit.readers.syntax.math import math_plugin
from vaultkit.readers.syntax.positions import positions_plugin
from vaultkit.readers.syntax.table_pipes import table_pipes_plugin
from vaultkit.readers.syntax.tags import tags_plugin
from vaultkit.readers.syntax.tasks import tasks_plugin
from vaultkit.readers.syntax.wikilinks import wikilinks_plugin


def make_parser() -> MarkdownIt:
    """A fresh parser with every plugin; renderers of the Obsidian tokens are plain defaults
    that the site may replace (`md.add_render_rule`)."""
    md = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])
    inline = InlineDispatch()  # the Obsidian inline syntaxes share one rule
    md.use(autolinks_plugin, inline)
    md.use(front_matter_plugin).use(footnote_plugin).use(tasks_plugin).use(math_plugin, inline)
    md.use(wikilinks_plugin, inline).use(table_pipes_plugin).use(comments_plugin, inline).use(tags_plugin, inline)
    md.use(highlight_plugin, inline).use(callouts_plugin).use(block_ids_plugin).use(headings_plugin)
    md.use(dispatch_plugin, inline)
    md.use(positions_plugin)  # last: turns offsets of inline tokens into lines and columns
    md.core.ruler.at("normalize", _normalize)
    _wrap(md.block.ruler, "front_matter", _front_matter_at_start)
    return md


def _wrap(ruler: Ruler, name: str, wrapper: Callable) -> None:
    """Make the rule `name` of `ruler` `wrapper(rule, *args)`, for a plugin's rule that needs a
    condition (markdown-it's rulers have no public way to read a rule's function)."""
    rule = ruler.__rules__[ruler.__find__(name)].fn
    ruler.at(name, partial(wrapper, rule))


def _front_matter_at_start(rule, state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """mdit-py-plugins' front matter rule, only where the note begins: it looks at the note's
    first character but counts markers where the block begins, so `- [--> ] task` on the first
    line would open front matter inside the list item."""
    if state.bMarks[start_line] + state.tShift[start_line] != 0:
        return False
    return rule(state, start_line, end_line, silent)


def _normalize(state: StateCore) -> None:
    """Like markdown-it's own, but a lone `\r` is not a line break: vaultkit counts lines by
    `\n` only (notes come with `\r\n` already made `\n`), so positions match the text."""
    state.src = state.src.replace("\0", "\ufffd")


_PARSER = make_parser()


@dataclass(frozen=True)
class Parsed:
    """A note's text and its tokens."""

    text: str
    tokens: list[Token]
    document_wide: bool  # it defines link references or footnotes, which inline tokens anywhere depend on


def parse_document(text: str) -> Parsed:
    """The tokens of a whole note, and whether it has document-wide definitions."""
    env: dict = {}
    tokens = _PARSER.parse(text, env)
    return Parsed(text, tokens, document_wide(env))


def document_wide(env: dict) -> bool:
    """Whether a parse's `env` holds link references or footnotes."""
    footnotes = env.get("footnotes", {})
    return bool(env.get("references") or footnotes.get("refs") or footnotes.get("list"))


def parse(text: str) -> list[Token]:
    """Tokens of a whole note, with the Obsidian plugins' meta and absolute positions."""
    return _PARSER.parse(text)
