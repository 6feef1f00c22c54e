"""Fuzzing every parser with hypothesis: front matter, markdown with the Obsidian syntax and
wikilinks, examples, inline values, claims, the SVG readers, and a whole note through the
pipeline. No exception escapes; positions point at what they name; fix is idempotent."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vaultkit.checks import claims
from vaultkit.checks.drawings.handdrawn import check_handdrawn
from vaultkit.checks.examples import ExampleRunner
from vaultkit.checks.examples.spec import read_examples
from vaultkit.checks.examples.values import PathError, find_bindings, split_path
from vaultkit.checks.links import check_links
from vaultkit.model.links import LinkIndex, extract_links
from vaultkit.model.vault import Source, Vault, parse_front_matter, safe_load
from vaultkit.pipeline import Pipeline
from vaultkit.readers.markdown import parse

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PIECES = [
    "[[",
    "]]",
    "![[",
    "|",
    "#",
    "^",
    "\\|",
    "%%",
    "%%=",
    "==",
    "$",
    "$$",
    "\\(",
    "\\)",
    "`",
    "```",
    "```vaultkit\n",
    "\n```\n",
    "> [!note]+ ",
    "> ",
    "- ",
    "1. ",
    "* ",
    "_",
    "~~",
    "---\n",
    "...\n",
    "<!-- vaultkit:begin a -->",
    "<!-- vaultkit:end a -->",
    "<div>",
    "</div>",
    "\t",
    "    ",
    "|---|---|\n",
    "| a | b |\n",
    "#tag/nested",
    "a.md",
    "../",
    "/",
    "注意力",
    "苹果",
    " ",
    "\n",
    "\n\n",
    "×",
    "x",
    "*",
    "/",
    "+",
    "−",
    "=",
    "≈",
    "²",
    "³",
    "(",
    ")",
    ",",
    ".",
    "%",
    "万",
    "亿",
    "GB",
    "GiB",
    "MB",
    "bytes",
    "K",
    "M",
    "B",
    "0",
    "1",
    "2",
    "32",
    "128",
    "0.5",
    "1,024",
    "-0.10",
    "\ufeff",
    "\r\n",
    "\u200b",
    "&amp;",
    "\\",
    "id: a\nkind: attention\n",
    "Q: [[1, 0], [0, 1]]\n",
    "K: [[1, 0], [0, 1]]\n",
    "a.scores[0][1]",
    "figure: f.svg\n",
    "seed: 1\n",
    "tokens: [a, b]\n",
]
text = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=8)), max_size=60).map("".join)


def vault_of(notes: dict[str, str]) -> Vault:
    """A vault in memory (its root does not exist, so nothing is read from disk)."""
    vault = Vault(root=Path("/nonexistent-vaultkit-fuzz"))
    for rel, body in notes.items():
        vault.notes[rel] = vault.note_from_source(rel, Source.from_bytes(vault.root / rel, body.encode("utf-8")))
    return vault


@FUZZ
@given(st.one_of(text, st.text()))
def test_front_matter_never_raises(body):
    fm = parse_front_matter(f"---\n{body}\n---\n# x\n", "n.md")
    assert isinstance(fm.data, dict)
    assert all(d.code in ("VK010", "VK011") for d in fm.diagnostics)


@FUZZ
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=5)),
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=3), inner, max_size=4),
        max_leaves=30,
    )
)
def test_front_matter_fields_of_any_type_are_tolerated(data):
    import yaml

    vault = vault_of(
        {
            "n.md": "---\n"
            + yaml.safe_dump({"title": data, "tags": data, "aliases": data, "publish": data, "draft": data})
            + "---\n"
        }
    )
    note = vault.notes["n.md"]
    assert isinstance(note.title, str) and note.title
    assert all(isinstance(t, str) for t in note.tags + note.aliases)
    assert note.published in (True, False)


@FUZZ
@given(text)
@example("\rQ: [[1, 0], [0, 1]]\n")  # a lone CR was a line break to markdown-it only
def test_markdown_and_links_never_raise_and_point_at_their_text(body):
    vault = vault_of({"dir/n.md": body, "dir/other.md": "# H\n\ntext ^blk\n"})
    note = vault.notes["dir/n.md"]
    lines = note.text.split("\n")
    for link in extract_links(note):
        line = lines[link.line - 1]
        assert line[link.col - 1 :].startswith("![[" if link.embed else "[["), (link, line)
    check_links(note, LinkIndex(vault))


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("[]|#^!\\ab./ 注")), max_size=40))
def test_wikilink_syntax_alone(body):
    vault = vault_of({"n.md": body})
    check_links(vault.notes["n.md"], LinkIndex(vault))


@FUZZ
@given(st.one_of(text, st.text()))
def test_example_blocks_never_raise(body):
    note_text = f"```vaultkit\n{body}\n```\n\nv 1.0%%= a.scores[0][0] %%\n"
    tokens = parse(note_text)
    read_examples("n.md", tokens)
    runner = ExampleRunner()
    runner.collect(vault_of({"n.md": note_text}).readable_notes)
    runner.process("n.md", note_text, tokens)


@FUZZ
@given(st.one_of(text, st.text()))
def test_yaml_reader_refuses_or_reads(body):
    import yaml

    try:
        safe_load(body)
    except (yaml.YAMLError, RecursionError):
        pass


@FUZZ
@given(
    st.lists(
        st.one_of(
            st.sampled_from(["%%=", "%%", " ", "a.b", "[0]", "[", "]", "1.5", "-", "`", "x"]), st.text(max_size=4)
        ),
        max_size=30,
    ).map("".join)
)
def test_inline_values_never_raise(line):
    for binding in find_bindings([line], set()):
        try:
            split_path(binding.path)
        except PathError:
            pass


@FUZZ
@given(st.one_of(text, st.text()))
def test_claims_never_raise(body):
    report = claims.check_markdown(body, "n.md")
    assert report.verified >= 0 and report.skipped >= 0
    for d in report.diagnostics:
        assert d.code in ("VK301", "VK302", "VK303") and d.line >= 1 and d.col >= 1


SVG_PIECES = [
    '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="300">',
    "</svg>",
    '<rect x="10" y="10" width="200" height="120" rx="8"/>',
    '<rect x="a" y="" width="-5"/>',
    '<text x="20" y="40">',
    '<text x="20" y="60" data-vk="scores[0]">',
    "</text>",
    "<tspan>",
    "</tspan>",
    "Scores",
    "Q×Kᵀ",
    "Softmax",
    "[ 0.35 -0.18 -0.25 0.15]",
    "[0.1, 0.2]",
    "-inf",
    "−0.5",
    "1e9",
    "0.04",
    "<!-- vaultkit:generated -->",
    "<![CDATA[ x ]]>",
    "&lt;",
    "&#x41;",
    "&bogus;",
    "<?xml version='1.0'?>",
    "<!DOCTYPE svg [<!ENTITY a 'aaaa'>]>",
    "&a;",
    "\n",
    " ",
    "<g transform='translate(5,5)'>",
    "</g>",
]
svg = st.lists(st.one_of(st.sampled_from(SVG_PIECES), st.text(max_size=6)), max_size=40).map("".join)


def _quantities():
    runner = ExampleRunner()
    body = "```vaultkit\nid: a\nkind: attention\nQ: [[0.5, 0.3], [0.1, -0.4]]\nK: [[0.3, -0.5], [-0.2, 0.6]]\nmask: causal\n```\n"
    runner.collect(vault_of({"n.md": body}).readable_notes)
    return runner.outcomes["a"].quantities


QUANTITIES = _quantities()


@FUZZ
@given(svg)
@example('<tspan>−0.5<svg xmlns="http://www.w3.org/2000/svg">')  # a number with no y: round(nan)
def test_svg_readers_never_raise(text_):
    claims.check_svg(text_, "f.svg")
    report = check_handdrawn(text_, QUANTITIES, digits=2, tokens=["a", "b"])
    for finding in report.findings:
        assert finding.line >= 1 and finding.col >= 1
    again = check_handdrawn(report.fixed_text, QUANTITIES, digits=2, tokens=["a", "b"])
    assert again.fixed_text == report.fixed_text, "fixing a drawing twice changes it again"


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text, text)
def test_pipeline_never_raises_and_fix_is_idempotent(first, second):
    vault = vault_of({"a.md": first, "sub/b.md": second})
    report, changes = Pipeline(vault).report()
    fixed = {c.rel: c.new.decode("utf-8") for c in changes if c.rel.endswith(".md")}
    if not fixed:
        return
    again = vault_of({rel: fixed.get(rel, vault.notes[rel].source.raw.decode("utf-8")) for rel in ("a.md", "sub/b.md")})
    _, more = Pipeline(again).report()
    assert [c.rel for c in more if c.rel.endswith(".md")] == []
