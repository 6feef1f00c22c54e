"""Links checked and fixed: every wikilink, embed and markdown link of a note against the link
index (`model/links.py`), with what `fix` can repair (a moved path, an alias for a name)."""

from __future__ import annotations

import posixpath

from vaultkit.diagnostics import ERROR, WARNING, Diagnostic, Rule
from vaultkit.model.links import Link, LinkIndex, extract_links, markdown_links, note_block_ids, target_lines
from vaultkit.readers.syntax.blockids import misplaced_block_ids
from vaultkit.readers.syntax.headings import loose, sections

LINK_MISSING = Rule(
    "VK501",
    ERROR,
    "link target does not exist",
    "{link} does not exist in the vault{hint}",
    "No note or file of that name or path; fix the link (an alias does not resolve: write `[[Note|alias]]`).",
)
LINK_MOVED = Rule(
    "VK502",
    WARNING,
    "link path is wrong but the file name is unique",
    "{link}: no file at this path; the only `{name}` is {target} (`vaultkit fix` writes `{right}`)",
    "Usually a note that moved; `vaultkit fix` rewrites the path, keeping the alias and heading.",
)
LINK_AMBIGUOUS = Rule(
    "VK503",
    WARNING,
    "link target is ambiguous",
    "{link} matches {count} files; Obsidian opens {target} because {why} (also {others})",
    "Several files share the name; the link goes where Obsidian goes. Write a longer path to be sure.",
)
HEADING_MISSING = Rule(
    "VK504",
    ERROR,
    "heading not found in link target",
    "{link}: no heading '{heading}' in {target}{hint}",
    "The `#Heading` part names no heading of the target note; the message suggests the closest one.",
)
BLOCK_MISSING = Rule(
    "VK505",
    ERROR,
    "block id not found in link target",
    "{link}: no block ^{block} in {target}{hint}",
    "The `#^block` part names no block id of the target note.",
)
EMBED_MISSING = Rule(
    "VK506",
    ERROR,
    "embedded file does not exist",
    "embedded file of {link} does not exist in the vault{hint}",
    "An `![[embed]]` of a note or file that is not in the vault.",
)
LINK_OUTSIDE = Rule(
    "VK507",
    ERROR,
    "link leaves the vault",
    "{link} leaves the vault; not followed",
    "A link or embed whose path climbs out of the vault is never followed, nor published.",
)
LINK_UNPUBLISHED = Rule(
    "VK508",
    WARNING,
    "link points to an unpublished note",
    "{link} points to {target}, which is not published",
    "The target has `publish: false` or `draft: true`; on the site the link is plain text.",
)
EMBED_CYCLE = Rule(
    "VK509",
    ERROR,
    "embed cycle",
    "{link} embeds a note or section that contains this embed (directly or through other embeds); the cycle is cut",
    "Embeds that embed each other; the site cuts the cycle where it closes.",
)
LINK_EXCLUDED = Rule(
    "VK510",
    WARNING,
    "link points to a file Obsidian's settings exclude (dead on the site)",
    "{link} points to {target}, {why}: it is not published, so this is a dead link on the site",
    "Excluded files and templates are not published, so a link to one is dead on the site.",
)


def _describe(link: Link) -> str:
    return link.raw if len(link.raw) <= 80 else link.raw[:77] + "..."


def check_links(note, index: LinkIndex) -> tuple[list[Diagnostic], int]:
    """Diagnostics (VK501-VK508) for a note's links and embeds, and how many were verified
    (wikilinks, embeds and markdown links to local `.md` files)."""
    diags: list[Diagnostic] = []

    def report(link_line: int, col: int, rule: Rule, **values) -> None:
        diags.append(rule.at(note.rel, link_line, col, **values))

    links = extract_links(note)
    for link in links:
        res = index.resolve(link.path, note.rel)
        what = _describe(link)
        if res.status == "outside":
            report(link.line, link.col, LINK_OUTSIDE, link=what)
            continue
        if res.status == "missing":
            hint = _alias_hint(link, index)
            if link.embed:
                report(link.line, link.col, EMBED_MISSING, link=what, hint=hint)
            else:
                report(link.line, link.col, LINK_MISSING, link=f"link target of {what}", hint=hint)
            continue
        if res.status == "moved":
            right = index.link_path(link.path, res.target, note.rel)
            name = posixpath.basename(res.target)
            report(link.line, link.col, LINK_MOVED, link=what, name=name, target=res.target, right=right)
        elif res.status == "ambiguous":
            others = ", ".join(res.candidates[1:4])
            count = len(res.candidates)
            report(
                link.line,
                link.col,
                LINK_AMBIGUOUS,
                link=what,
                count=count,
                target=res.target,
                why=res.why,
                others=others,
            )
        if link.embed and (note.rel, link.line, link.col) in index.embed_cycles():
            report(link.line, link.col, EMBED_CYCLE, link=what)
        ignored = index.ignored(res.target)
        if ignored:
            report(link.line, link.col, LINK_EXCLUDED, link=what, target=res.target, why=ignored)
            continue
        target = index.vault.notes.get(res.target)
        if res.target in index.unpublished and res.target != note.rel:
            report(link.line, link.col, LINK_UNPUBLISHED, link=what, target=res.target)
        if target is None or not target.readable:
            continue
        if link.heading and target_lines(target, link.heading, None) is None:
            hint = _heading_hint(target, link.heading)
            report(link.line, link.col, HEADING_MISSING, link=what, heading=link.heading, target=res.target, hint=hint)
        if link.block and link.block not in note_block_ids(target):
            hint = _block_hint(target, link.block)
            report(link.line, link.col, BLOCK_MISSING, link=what, block=link.block, target=res.target, hint=hint)
    md_links = markdown_links(note)
    for line, href in md_links:
        res = index.resolve(href, note.rel)
        if res.status in ("missing", "outside"):
            rule = LINK_OUTSIDE if res.status == "outside" else LINK_MISSING
            report(line, 1, rule, link=f"markdown link target {href}", hint="")
    return diags, len(links) + len(md_links)


def _alias_hint(link: Link, index: LinkIndex) -> str:
    """`; `alias` is an alias of `X.md` — write `[[X|alias]]`` when one note lists the written
    name as an alias (Obsidian does not resolve links by alias)."""
    owner = index.alias_of(link.path)
    if owner is None or link.embed:
        return ""
    return f"; `{link.path}` is an alias of `{owner}` — write `{_alias_link(link, index, owner)}`"


def _alias_link(link: Link, index: LinkIndex, owner: str, pipe: str = "|") -> str:
    """The link `link` written to note `owner`, its old name kept as the displayed text."""
    fragment = f"#^{link.block}" if link.block else f"#{link.heading}" if link.heading else ""
    shown = link.alias if link.alias is not None else link.path
    return f"[[{index.link_path(link.path, owner, link.source)}{fragment}{pipe}{shown}]]"


def _heading_hint(target, heading: str) -> str:
    """`; the closest heading is '…'` when the target has one close to a missing heading:
    one that contains it (or that it contains), else the most similar text."""
    import difflib  # imported here, as in `_block_hint`: only a link to a missing heading needs it

    texts = [section.text for section in sections(target.tokens)]
    wanted = loose(heading.split("#")[-1])
    holding = [t for t in texts if wanted and loose(t) and (wanted in loose(t) or loose(t) in wanted)]
    close = holding or difflib.get_close_matches(heading.split("#")[-1], texts, n=1, cutoff=0.6)
    if not close:
        return ""
    best = min(close, key=lambda text: abs(len(loose(text)) - len(wanted)))
    return f"; the closest heading is '{best}'"


def _block_hint(target, block: str) -> str:
    """Why a block id that is written in the target is no block id, or the closest id."""
    if block in misplaced_block_ids(target.tokens):
        return (
            f" (^{block} is written in the middle of a block: Obsidian reads a block id only at "
            "the end of a block, or on the line right after a list, quote, callout or table)"
        )
    import difflib  # imported here: only a link to a missing block needs it

    close = difflib.get_close_matches(block, sorted(note_block_ids(target)), n=1, cutoff=0.6)
    return f"; the closest block id is ^{close[0]}" if close else ""


def fix_links(note_text: str, note, index: LinkIndex) -> str:
    """`note_text` with each `moved` link's path rewritten (alias, heading, block unchanged),
    and each link to a name that is the alias of exactly one note made a link to that note
    showing the name. A link whose text is not where the note's tokens put it is left alone."""
    lines = note_text.split("\n")
    edits = []
    for link in extract_links(note):
        res = index.resolve(link.path, note.rel)
        line = lines[link.line - 1] if link.line <= len(lines) else ""
        start = link.col - 1
        if res.status not in ("moved", "missing") or line[start : link.end_col - 1] != link.raw:
            continue
        if res.status == "missing":
            owner = None if link.embed else index.alias_of(link.path)
            if owner is not None:
                pipe = "\\|" if line.lstrip().startswith("|") else "|"  # a table cell needs `\|`
                edits.append((link.line - 1, start, link.end_col - 1, _alias_link(link, index, owner, pipe)))
            continue
        opener = "![[" if link.embed else "[["
        at = link.raw.find(link.path, len(opener))
        if at < 0:
            continue
        new = index.link_path(link.path, res.target, note.rel)
        edits.append((link.line - 1, start + at, start + at + len(link.path), new))
    for index_line, begin, end, new in sorted(edits, reverse=True):
        text = lines[index_line]
        lines[index_line] = text[:begin] + new + text[end:]
    return "\n".join(lines)
