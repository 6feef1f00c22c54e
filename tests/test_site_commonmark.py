"""Every example of the CommonMark spec, and GFM's table, strikethrough and autolink examples,
written as one note each into a vault built once with `vaultkit build`: each page shows the
note as the spec says, except where Obsidian's own syntax deliberately reads it otherwise
(`OBSIDIAN_DIFFERS`, each with its reason, each checked to differ for that reason).

The examples are read as the spec's own `spec_tests.py` reads them and compared with the spec's
`normalize.py` (imported from ../shared/spec, never copied). The vault has
`.obsidian/app.json` `{"strictLineBreaks": true}`, so a single newline stays a soft break, as
CommonMark says. Skips when ../shared is absent.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from vaultkit.commands.build import build_command

from .conftest import SHARED, note_content

SPEC = SHARED / "spec"
FENCE = "`" * 32
GFM_EXTENSIONS = {"table", "strikethrough", "autolink"}

pytestmark = pytest.mark.skipif(
    not (SPEC / "commonmark-spec.txt").is_file(), reason=f"the CommonMark spec is not at {SPEC} (../shared is absent)"
)

# Examples that Obsidian reads otherwise, on purpose. The word before the colon names the check
# `obsidian_reason_holds` makes of the page.
OBSIDIAN_DIFFERS = {
    64: "tag: `#hashtag` is an Obsidian tag, shown as a link to the tags index (`#5` is no tag: all digits)",
    96: "front matter: a note that starts with a `---` line and has a closing `---` line starts with "
    "properties (YAML), which are not shown as text; the rest renders as CommonMark",
    98: "front matter: `---` then `---` is an empty properties block, not two thematic breaks",
    550: "wikilink: `[[[foo]]]` holds the wikilink `[[[foo]]` (to a note that does not exist), not a "
    "bracketed reference link",
    561: "wikilink: `[[*foo* bar]]` is a wikilink (to a note that does not exist), not a bracketed reference link",
    592: "wikilink: `![[foo]]` is an embed and `[[foo]]` a wikilink (to notes that do not exist)",
    604: "bare url: Obsidian shows a URL written as text (with its scheme) as a link",
    610: "bare url: Obsidian shows a URL written as text (with its scheme) as a link",
    613: "bare url: Obsidian shows a URL written as text (with its scheme) as a link",
}


@dataclass(frozen=True)
class Example:
    number: int
    section: str
    markdown: str
    html: str
    extensions: tuple[str, ...]


def read_examples(path: Path) -> list[Example]:
    """The examples of a spec file, read as the spec's spec_tests.py reads them (→ is a tab;
    `disabled` examples are left out)."""
    examples, markdown, output, state, number, section, extensions = [], [], [], 0, 0, "", ()
    with path.open(encoding="utf-8", newline="\n") as lines:
        for line in lines:
            stripped = line.strip()
            if stripped.startswith(FENCE + " example"):
                state, extensions = 1, tuple(stripped[len(FENCE + " example") :].split())
            elif stripped == FENCE:
                number += 1
                if "disabled" not in extensions:
                    examples.append(
                        Example(
                            number,
                            section,
                            "".join(markdown).replace("→", "\t"),
                            "".join(output).replace("→", "\t"),
                            extensions,
                        )
                    )
                state, markdown, output = 0, [], []
            elif stripped == "." and state == 1:
                state = 2
            elif state == 1:
                markdown.append(line)
            elif state == 2:
                output.append(line)
            elif re.match(r"#+ ", line):
                section = re.sub(r"#+ ", "", line).strip()
    return examples


def load_normalize():
    """The spec's normalize_html, imported from its file, applied to the HTML without the
    whitespace around it (a page's content sits indented in its template)."""
    spec = importlib.util.spec_from_file_location("commonmark_normalize", SPEC / "normalize.py")
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():  # its regexes are written with invalid escapes
        warnings.simplefilter("ignore", DeprecationWarning)
        spec.loader.exec_module(module)
    return lambda text: module.normalize_html(text.strip())


HIGHLIGHT = re.compile(
    r'<div class="([^"]*\bhighlight\b[^"]*)">\s*<pre[^>]*>(?:<span></span>)?<code([^>]*)>(.*?)'
    r"</code></pre>\s*</div>",
    re.S,
)


def _plain_code_block(match: re.Match) -> str:
    """A Pygments-highlighted block as CommonMark writes it: `<pre><code class="language-X">`
    (X from the wrapper's or the code's class) with the highlighting spans removed and the text
    escaped as markdown-it escapes it (`&<>"`). Pygments ends
    every block with a newline, so an empty block comes out as a lone newline: read as empty."""
    language = re.search(r"\blanguage-(\S+)", match.group(1) + " " + match.group(2))
    code = html.unescape(re.sub(r"<[^>]+>", "", match.group(3)))
    code = "" if code == "\n" else html.escape(code, quote=False).replace('"', "&quot;")
    attribute = f' class="language-{language.group(1)}"' if language else ""
    return f"<pre><code{attribute}>{code}</code></pre>"


def note_html(page: str) -> str:
    """The note's part of a built page (`note_content`), with what else material and vaultkit
    add stripped: the heading permalinks `<a class="headerlink" ...>¶</a>`, the headings' `id`s,
    and the Pygments highlighting of code blocks (see `_plain_code_block`)."""
    body = re.sub(r'<a class="headerlink"[^>]*>(?:¶|&para;)</a>', "", note_content(page))
    body = re.sub(r'(<h[1-6])\s+id="[^"]*"', r"\1", body)
    return HIGHLIGHT.sub(_plain_code_block, body)


def note_name(kind: str, example: Example) -> str:
    return f"{kind}-{example.number:04d}"


def commonmark() -> list[Example]:
    return read_examples(SPEC / "commonmark-spec.txt")


def gfm_extensions() -> list[Example]:
    return [e for e in read_examples(SPEC / "gfm-spec.txt") if GFM_EXTENSIONS & set(e.extensions)]


@pytest.fixture(scope="module")
def pages(tmp_path_factory) -> dict[str, str]:
    """Every example as a note in one vault, built once: note name -> the note's part of its page."""
    root = tmp_path_factory.mktemp("commonmark")
    vault = root / "spec"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / ".obsidian" / "app.json").write_text(json.dumps({"strictLineBreaks": True}), encoding="utf-8")
    names = []
    for kind, examples in (("spec", commonmark()), ("gfm", gfm_extensions())):
        for example in examples:
            names.append(note_name(kind, example))
            (vault / f"{names[-1]}.md").write_text(example.markdown, encoding="utf-8", newline="")
    site = root / "site"
    assert build_command(vault, str(site), strict=False) == 0
    return {name: note_html((site / name / "index.html").read_text(encoding="utf-8")) for name in names}


def summary(failures: list[Example], total: int) -> str:
    by_section: dict[str, list[int]] = {}
    for example in failures:
        by_section.setdefault(example.section, []).append(example.number)
    lines = [f"{len(failures)} of {total} examples differ from the spec:"]
    lines += [f"  {section}: {', '.join(map(str, numbers))}" for section, numbers in by_section.items()]
    return "\n".join(lines)


def test_every_example_of_the_spec_is_read():
    """The reader finds as many examples as the spec file has example fences."""
    text = (SPEC / "commonmark-spec.txt").read_text(encoding="utf-8")
    assert len(commonmark()) == text.count(FENCE + " example") > 600
    assert {e.extensions for e in gfm_extensions()} == {("table",), ("strikethrough",), ("autolink",)}


def test_commonmark_examples_render_as_the_spec_says(pages):
    """At least 99 % of the examples Obsidian reads as CommonMark come out as the spec says."""
    normalize = load_normalize()
    examples = [e for e in commonmark() if e.number not in OBSIDIAN_DIFFERS]
    failures = [e for e in examples if normalize(pages[note_name("spec", e)]) != normalize(e.html)]
    equal = 1 - len(failures) / len(examples)
    print(f"\nCommonMark spec through vaultkit build: {equal:.1%} equal\n" + summary(failures, len(examples)))
    assert equal >= 0.99, f"{equal:.1%} equal; " + summary(failures, len(examples))


def obsidian_reason_holds(example: Example, content: str, normalize) -> bool:
    """Whether the page shows the example as Obsidian reads it, for the reason listed."""
    kind = OBSIDIAN_DIFFERS[example.number].split(":")[0]
    if kind == "tag":  # the tag is a link to the tags index; as its text the page is the spec's
        tags = re.findall(r'<a [^>]*href="[^"]*tags[^"]*"[^>]*>(#[^<]+)</a>', content)
        untagged = re.sub(r'<a [^>]*href="[^"]*tags[^"]*"[^>]*>(#[^<]+)</a>', r"\1", content)
        words = [w for w in re.findall(r"(?<!\S)#[^\s#]+", example.markdown) if not w[1:].isdigit()]
        return tags == words and normalize(untagged) == normalize(example.html)
    if kind == "front matter":  # the rest of the note, as CommonMark renders it
        rest = re.match(r"---\n.*?^---\n(.*)", example.markdown, re.S | re.M).group(1)
        return normalize(content) == normalize(MarkdownIt("commonmark").render(rest))
    if kind == "wikilink":  # each link to a missing note is today's plain-text span; no `[[` is left
        links = re.findall(r"!?\[\[.*?\]\]", example.markdown)
        spans = re.findall(r'<span [^>]*class="[^"]*\bvk-missing\b', content)
        return len(spans) == len(links) and "[[" not in content
    if kind == "bare url":  # each URL of the text is a link to itself; as text the page is the spec's
        urls = re.findall(r"https?://[^\s<>]+", example.markdown)
        linked = re.findall(r'<a href="([^"]+)">\1</a>', content)
        unlinked = re.sub(r'<a href="([^"]+)">\1</a>', r"\1", content)
        return linked == urls and normalize(unlinked) == normalize(example.html)
    raise AssertionError(f"no check for the reason of example {example.number}")


def test_obsidian_differences_are_real_and_for_the_reason_given(pages):
    """Each listed example differs from the spec, and the page shows what Obsidian's syntax says."""
    normalize = load_normalize()
    examples = {e.number: e for e in commonmark()}
    wrong = []
    for number, reason in OBSIDIAN_DIFFERS.items():
        content = pages[note_name("spec", examples[number])]
        if normalize(content) == normalize(examples[number].html):
            wrong.append(f"{number}: renders as the spec says; remove it from OBSIDIAN_DIFFERS")
        elif not obsidian_reason_holds(examples[number], content, normalize):
            wrong.append(f"{number}: differs, but not as listed ({reason}):\n    {content.strip()[:300]}")
    assert not wrong, "\n".join(wrong)


def aligned_by_attribute(content: str) -> str:
    """A table cell's `style="text-align: X"` (markdown-it's spelling) as GFM's `align="X"`."""
    return re.sub(r'<(th|td) style="text-align:\s*(left|center|right);?">', r'<\1 align="\2">', content)


def test_gfm_tables_strikethrough_and_autolinks_render_as_gfm_says(pages):
    """GFM's extension examples for tables, strikethrough and autolinks, as Obsidian renders them.
    No deviation is listed: none of them uses Obsidian's own syntax. A cell's alignment may be
    written as CSS (`aligned_by_attribute`): it shows the same."""
    normalize = load_normalize()
    examples = gfm_extensions()
    failures = [e for e in examples if normalize(aligned_by_attribute(pages[note_name("gfm", e)])) != normalize(e.html)]
    assert not failures, summary(failures, len(examples))
