"""Fixtures for tags, callouts, comments, highlight, math, headings and block ids."""

from hypothesis import example, given
from hypothesis import strategies as st

from vaultkit.readers.markdown import make_parser, parse
from vaultkit.readers.syntax.blockids import block_spans, misplaced_block_ids
from vaultkit.readers.syntax.headings import heading_anchor


def children(text, kind):
    return [t for b in parse(text) for t in (b.children or ()) if t.type == kind]


def test_tags():
    text = "#top and #tag/nested, not #123 nor C#x nor http://h/#frag\n# Heading #intag\n"
    assert [t.meta["tag"] for t in children(text, "tag")] == ["top", "tag/nested", "intag"]
    assert children("`#code`", "tag") == []
    assert [t.meta["tag"] for t in children("#2024年", "tag")] == ["2024年"]


def test_callouts_nested_and_folding():
    tokens = parse("> [!Note]+ Title here\n> body\n> > [!tip]\n> > inner\n")
    quotes = [t.meta for t in tokens if t.type == "blockquote_open"]
    assert quotes == [
        {"callout": "note", "fold": "+", "title": "Title here"},
        {"callout": "tip", "fold": "", "title": "Tip"},
    ]
    inlines = [t for t in tokens if t.type == "inline"]
    # each title is an inline token of its own, on the callout's first line, before the body
    assert [(t.content, t.map[0]) for t in inlines] == [("Title here", 0), ("body", 1), ("Tip", 2), ("inner", 3)]
    html = make_parser().render("> [!warning]- Careful\n> text\n")
    assert '<details class="warning vk-callout" data-callout="warning">' in html
    assert "<summary>Careful</summary>" in html


def test_plain_blockquote_unchanged():
    assert make_parser().render("> just a quote\n") == "<blockquote>\n<p>just a quote</p>\n</blockquote>\n"


def test_comments_inline_and_block_are_hidden():
    text = "value -0.10%%= ex.scores[1][2] %% here\n\n%%\nhidden [[x]]\n%%\n\nafter\n"
    (comment,) = children(text, "comment")
    assert comment.content == "= ex.scores[1][2] "
    assert (comment.meta["line"], comment.meta["col"]) == (1, 12)
    assert [t.map for t in parse(text) if t.type == "comment_block"] == [[2, 5]]
    html = make_parser().render(text)
    assert "hidden" not in html and "ex.scores" not in html and "after" in html


def test_highlight():
    html = make_parser().render("a ==marked **b**== and a == b == c\n")
    assert html == "<p>a <mark>marked <strong>b</strong></mark> and a == b == c</p>\n"


def test_math_and_dollar_amounts():
    assert children("价格 $5 到 $10", "math_inline") == []
    assert children("价格$5到$10", "math_inline") == []
    assert [t.content for t in children("so $x^2$ and \\(y\\)", "math_inline")] == ["x^2", "y"]
    kinds = [t.type for t in parse("$$\nE=mc^2\n$$\n\n\\[\nq\n\\]\n\n\\[ \\text{注意力} = x^2 \\]\n")]
    assert kinds.count("math_block") == 3


def test_escaped_brackets_in_prose_are_not_math():
    text = "\\[动态生成的列表\\]\n\n\\[dynamic list of agents\\]\n\nsee \\(the three words\\)\n"
    assert [t.type for t in parse(text) if t.type.startswith("math")] == []
    assert "[动态生成的列表]" in make_parser().render(text)


def test_heading_anchor_and_meta():
    assert heading_anchor("第 3 步：算出分数") == "第-3-步算出分数"
    assert heading_anchor("Hello, World!") == "hello-world"
    tokens = parse("# Intro\n\n## Intro\n\n## `code` and #tag\n")
    heads = [t for t in tokens if t.type == "heading_open"]
    assert [t.meta["anchor"] for t in heads] == ["intro", "intro_1", "code-and-tag"]
    assert heads[2].meta["text"] == "`code` and #tag"


@given(st.text())
@example("第 3 步：算出分数 -- Ünïcode_x\u00a0\u3000(KV) ｃａｃｈｅ")
def test_heading_anchors_are_those_of_python_markdown_toc(text):
    """The site's anchors are made by MkDocs' `toc` (Python-Markdown), which vaultkit no longer
    imports to make its own: both make the same anchor of any heading."""
    from markdown.extensions.toc import slugify_unicode

    assert heading_anchor(text) == slugify_unicode(text, "-")


def test_task_items_are_boxes_ticked_as_written():
    """As Obsidian: a space is an open task, any other status character a checked one."""
    html = make_parser().render("- [ ] to do\n- [x] done\n- [X] also done\n- [y] text\n")
    assert html.count('type="checkbox"') == 4 and html.count('checked="checked"') == 3
    assert '<li class="task-list-item is-checked" data-task="y">' in html and "[y]" not in html
    assert "task-list" not in make_parser().render("- a\n- b [ ] c\n- [link](x) d\n")


def test_a_task_with_nothing_after_its_box_is_a_task_in_any_note():
    """`- [ ]` ending its line is an empty task whether or not the note has other tasks (the
    incremental-parse test found it read one way alone and another beside `- [ ] task`)."""
    alone = make_parser().render("- [ ]\n")
    beside = make_parser().render("- [ ]\n\n- [ ] task\n")
    assert alone.count('type="checkbox"') == 1 and beside.count('type="checkbox"') == 2


def test_block_ids():
    tokens = parse("para text ^blk-1\n\n- item ^item2\n\nno^id\n")
    spans = block_spans(tokens)
    assert list(spans) == ["blk-1", "item2"]
    assert (spans["item2"].start, spans["item2"].end) == (2, 4)
    assert "^blk-1" not in make_parser().render("para text ^blk-1\n").split(">")[1]


def test_block_ids_on_their_own_line_name_the_block_above():
    cases = {
        "- a\n- b\n  - c\n\n^lst\n": ("lst", 0, 5),  # after a blank line
        "- a\n- b\n^lst\n": ("lst", 0, 3),  # a lazy line of the last item: still the whole list
        "> q\n> r\n^qt\n": ("qt", 0, 3),
        "> [!tip] T\n> body\n\n^co\n": ("co", 0, 4),
        "| a |\n|---|\n| 1 |\n^tb\n": ("tb", 0, 4),  # read by GFM as a last row: dropped
        "| a |\n|---|\n| 1 |\n\n^tb\n": ("tb", 0, 5),
    }
    for text, (block_id, start, end) in cases.items():
        tokens = parse(text)
        span = block_spans(tokens)[block_id]
        assert (span.start, span.end) == (start, end), text
        html = make_parser().render(text)
        assert "^" + block_id not in html.replace(f'id="^{block_id}"', ""), html
        assert html.count(f'id="^{block_id}"') == 1, html


def test_a_block_id_in_the_middle_of_a_block_names_nothing():
    tokens = parse("one ^mid two\nthree\n")
    assert block_spans(tokens) == {}
    assert misplaced_block_ids(tokens) == {"mid"}
    assert block_spans(parse("x^2 and 2^10 ^real\n")).keys() == {"real"}


def test_front_matter_only_where_the_note_begins():
    """`---` on the note's first line opens front matter; dashes inside a first list item do not."""
    assert [t.type for t in parse("---\ntitle: x\n---\n# h\n")][:2] == ["front_matter", "heading_open"]
    for text in ("- [--> ] task\n- b\n", "- --- x\n- y\n---\n", "* ---\n---\n"):
        tokens = parse(text)
        assert "front_matter" not in [t.type for t in tokens], text
        assert tokens[0].type == "bullet_list_open", text
