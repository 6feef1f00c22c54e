"""The parts of a walkthrough besides its steps: mask pictures (each row checked against its
place, fixed where one value is determined), promised figures in the syntax of the site a note
is written for, what is seen and not read (said why), and the counts `--explain` gives."""

from __future__ import annotations

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultkit.checks.walkthrough import check_markdown, promises, reader
from vaultkit.commands.cli import main
from vaultkit.explain import WALKTHROUGH, statements, totals
from vaultkit.readers.markdown import parse


def check(text: str):
    return check_markdown(text, parse(text), "n.md")


STAIRS = ["今█████", "今天████", "今天天███", "今天天气██", "今天天气很█", "今天天气很好"]


def picture(rows: list[str]) -> str:
    return "训练时逐行遮住未来：\n\n" + "\n".join(rows) + "\n"


# -- mask pictures: each row against its place -------------------------------------------------


@pytest.mark.parametrize("k, wrong", [(3, "今天天气很█"), (1, "今天天气很█"), (3, "今天天气很好"), (2, "今█████")])
def test_a_row_out_of_step_is_an_error_on_its_line_with_its_fix(k, wrong):
    """The seed's picture with the fourth row showing two future characters passed: the rows
    did not rise in order, so the picture was not read at all."""
    rows = STAIRS[:k] + [wrong] + STAIRS[k + 1 :]
    report = check(picture(rows))
    [d] = report.diagnostics
    assert (d.code, d.line, d.col, d.written, d.computed) == ("VK434", 3 + k, 1, wrong, STAIRS[k])
    assert f"mask row {k + 1} should show exactly the first {k + 1} of 6 positions" in d.message
    assert "future position" in d.message if wrong.count("█") < STAIRS[k].count("█") else "may see" in d.message
    assert "vaultkit fix rewrites the row" in d.message
    assert [(f.line, f.col, f.written, f.expected) for f in report.fixes] == [(3 + k, 1, wrong, STAIRS[k])]


def test_the_message_names_each_future_unit():
    [d] = check(picture(STAIRS[:2] + ["今天天气很█"] + STAIRS[3:])).diagnostics
    assert "it shows 气、很, future positions; expected 今天天███" in d.message
    [d] = check(picture(STAIRS[:3] + ["今天天气很█"] + STAIRS[4:])).diagnostics
    assert "it shows 很, a future position; expected 今天天气██" in d.message
    [d] = check(picture(STAIRS[:3] + ["今天████", *STAIRS[4:]])).diagnostics
    assert "it hides 天、气, which it may see; expected 今天天气██" in d.message


def test_spaced_rows_are_checked_by_token():
    rows = ["the █ █ █", "the cat █ █", "the cat sat down", "the cat sat down"]
    [d] = check("\n".join(rows) + "\n").diagnostics
    assert (d.line, d.written, d.computed) == (3, "the cat sat down", "the cat sat █")


def test_a_row_hiding_what_no_row_shows_is_an_error_fix_leaves():
    rows = ["今████", "今天███", "今████", "今天天气█", "今天天气好"]
    report = check("\n".join(rows) + "\n")
    assert [(d.line, d.computed) for d in report.diagnostics] == [(3, "今天天██")]
    rows = ["今████", "今天███", "今天天██", "今天天██", "今天天██"]  # position 4 is never shown
    report = check("\n".join(rows) + "\n")
    assert [(d.line, d.computed) for d in report.diagnostics] == [(4, None), (5, None)]
    assert "no row shows what they hold" in report.diagnostics[0].message
    assert report.fixes == []


def test_rows_beyond_the_width_are_counted_as_not_checked():
    rows = ["今██", "今天█", "今天天", "今天天"]
    report = check("\n".join(rows) + "\n")
    assert report.diagnostics == [] and (report.verified, report.skipped) == (3, 1)
    [entry] = report.explained
    assert entry.counts == (3, 1) and entry.text == "mask picture of 4 rows, 1 not checked"


@pytest.mark.parametrize(
    "rows",
    [
        ["今███", "今天天█"],  # two rows that disagree: which is wrong is not known
        ["今████", "今天天██", "今天天气█", "今天█天█"],  # no offset shared by more than half
        ["今████", "今天███", "今天天██", "今卖天██"],  # rows that disagree on a unit
    ],
)
def test_no_picture_without_a_staircase_most_rows_agree_on(rows):
    report = check("\n".join(rows) + "\n")
    assert report.reading.masks == [] and report.diagnostics == []


def test_fix_rewrites_the_wrong_row_and_only_it(tmp_path, capsys):
    rows = STAIRS[:3] + ["今天天气很█"] + STAIRS[4:]
    text = "# 遮罩\n\n" + picture(rows) + "\n今天天气很█\n"  # the same line outside the picture stays
    (tmp_path / "n.md").write_text(text, encoding="utf-8")
    assert main(["check", str(tmp_path)]) == 1
    assert main(["fix", str(tmp_path)]) == 0
    fixed = (tmp_path / "n.md").read_text(encoding="utf-8")
    assert fixed == text.replace("\n今天天气很█\n今天天气很█\n", "\n今天天气██\n今天天气很█\n", 1)
    assert fixed.endswith("\n\n今天天气很█\n")
    capsys.readouterr()
    assert main(["check", str(tmp_path)]) == 0


# -- steps that state only weights; numbers that are not one number ----------------------------


def test_steps_that_state_only_weights_have_their_sum_checked():
    text = (
        "- 第 1 步：处理“甲”\n  100% 给自己。\n- 第 2 步：处理“乙”\n  25% 给“甲”，85% 给自己。\n"
        "- 第 3 步：处理“丙”\n  20% 给“甲”，30% 给“乙”，50% 给自己。\n"
    )
    report = check(text)
    assert [(d.line, d.code, d.col, d.written) for d in report.diagnostics] == [(4, "VK431", 3, "110 %")]
    assert "the weights sum to 110 %, not 100 % (25 % + 85 %)" in report.diagnostics[0].message
    assert report.reading.walkthroughs[0].steps[1].query == 2  # from the step's token


ROUNDS = (
    "- 第一轮\n  输入：[ “今”, “天” ]；输出：“很”\n- {n}轮\n  输入：[ “今”, “天”, “很” ]；输出：“好”\n"
    "- 第三轮\n  输入：[ “今”, “天”, “很”, “好” ]；输出：“。”\n- 第四轮\n  输入：[ “今”, “天”, “很”, “好”, “。” ]；输出：<EOS>\n"
)


def test_a_round_number_that_is_not_one_number_is_skipped_with_why():
    report = check(ROUNDS.format(n="第二三"))
    assert report.diagnostics == [] and [len(g) for g in report.reading.rounds] == [2]  # rounds 3 and 4
    [skipped] = [e for e in report.explained if e.verdict == "skipped"]
    assert (skipped.line, skipped.text, skipped.counts) == (3, "第二三轮", (0, 1))
    assert skipped.note == "the round number “二三” is not one number"
    assert (report.verified, report.skipped) == (1, 1)
    assert [len(g) for g in check(ROUNDS.format(n="第二")).reading.rounds] == [4]


def test_a_step_number_that_is_not_one_number_is_skipped_with_why():
    text = "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第二三步：处理“乙”\n  Q2 匹配到 K1、K2\n"
    [entry] = check(text).explained
    assert (entry.line, entry.verdict, entry.note) == (3, "skipped", "the step number “二三” is not one number")


def test_steps_too_unread_to_check_are_listed_with_their_count():
    text = "- 第 1 步：看第一个词\n  40% 给“甲”，60% 给“乙”。\n- 第 2 步：看第二个词\n  50% 给“丙”。\n"
    report = check(text)
    [entry] = report.explained
    assert (entry.line, entry.verdict, entry.counts) == (1, "skipped", (0, 3))
    assert "0 statements read and 3 not" in entry.note and report.skipped == 3


# -- promised figures in a site generator's syntax ---------------------------------------------

PROMISE = "网络结构如下图所示：\n\n"


@pytest.mark.parametrize(
    "figure",
    [
        # the shapes of leovan/leovan.me@0a04ec0 content/cn/2020-03-28-pre-trained-model-for-nlp.md:69-71
        '{{< figure src="/images/cn/net.png" title="网络结构" >}}\n',
        '{{% figure src="/images/cn/net.png" %}}\n',
        '{{< photoswipe-figure link="/images/cn/net.png" caption="网络" >}}\n',  # ibid. :223
        '{{< swiper data="/data/cn/steps.json" >}}\n',  # …/2020-06-06-bayesian-optimization.md:341
        '{{< flex >}}\n\n{{% flex-item %}}\n{{< figure src="/images/a.png" >}}\n{{% /flex-item %}}\n',
        '1. **卷积**：从邻居聚合信息。\n  {{< figure src="/images/conv.png" >}}\n',  # in a list item
        # MorvanZhou/morvanzhou.github.io@067dfd1 (Jekyll): an include of an image template
        '{% include tut-image.html image-name="3_3_1.png" %}\n',
        '{% include figure.html path="assets/img/net.png" class="img-fluid" %}\n',
        '{% include figure\n    popup=true\n    image_path="/assets/net.svg"\n    caption="" %}\n',
        '<div class="row">\n    <div class="col-sm">\n        {% include figure.liquid path="a.png" %}\n    </div>\n</div>\n',
        '{% include gallery.html dir="bode" %}\n',
        '<figure>\n  <img src="net.png">\n  <figcaption>网络</figcaption>\n</figure>\n',
        '<center><img src="net.png" width=30%></center>\n',
        '![网络](img/net.png "图 1：网络结构")\n',  # a markdown image with a title
        "![网络][net]\n\n[net]: img/net.png\n",  # by reference
        "![网络 [1]](img/net.png)\n",  # brackets in its alt text
    ],
)
def test_a_figure_in_a_site_generators_syntax_fulfils_the_promise(figure):
    report = check(PROMISE + figure)
    assert report.diagnostics == [] and [p.fulfilled for p in report.reading.promises] == [True]


def test_a_figure_right_after_the_words_in_their_paragraph_fulfils_the_promise():
    assert check('网络结构如下图所示：\n{{< figure src="/images/a.png" >}}\n').diagnostics == []
    assert check("网络结构如下图所示：![网络](a.png)\n").diagnostics == []


@pytest.mark.parametrize(
    "after",
    [
        "{% include toc.html %}\n\n正文。\n",  # an include that is no figure
        "{{< highlight go >}}\nfunc main() {}\n{{< /highlight >}}\n",  # a shortcode that is no figure
        '正文 `{{</* figure src="a.png" */>}}` 是写法。\n',  # an escaped shortcode is shown, not drawn
        "一。\n\n二。\n\n![x](a.png)\n",  # three blocks later
        "## 下一节\n\n![x](a.png)\n",  # after a heading
    ],
)
def test_no_figure_where_none_follows(after):
    assert [d.code for d in check(PROMISE + after).diagnostics] == ["VK436"]


def test_an_image_before_the_words_is_not_the_figure_they_promise():
    assert [d.code for d in check("![x](a.png) 结构如下图所示。\n\n正文。\n").diagnostics] == ["VK436"]


# -- --explain counts --------------------------------------------------------------------------


def run_check(root: Path) -> tuple[dict, list[str]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        main(["check", "--explain", "--format", "json", str(root)])
    return json.loads(out.getvalue())["summary"], err.getvalue().splitlines()


SUMMARY_RE = re.compile(
    r"(?P<read>-?\d+) arithmetic claims read, (?P<skipped>-?\d+) skipped; (?P<drawn>-?\d+) drawings and figures read"
    r"(?:, (?P<svg>-?\d+) other SVGs not read)?"
    r"(?:; (?P<walks>-?\d+) walkthrough parts read \((?P<stated>-?\d+) statements, (?P<unstated>-?\d+) skipped\))?$"
)


def assert_counts_hold(summary: dict, lines: list[str]) -> dict:
    m = SUMMARY_RE.fullmatch(lines[-1])
    assert m, lines[-1]
    counts = {k: int(v) for k, v in m.groupdict().items() if v is not None}
    assert all(v >= 0 for v in counts.values()), lines[-1]
    assert counts["read"] + counts.get("stated", 0) == summary["claims"]
    assert counts["skipped"] + counts.get("unstated", 0) == summary["skipped_claims"]
    return counts


def test_statements_are_counted_apart_from_the_skipped_claims(tmp_path):
    """A vault with more skipped claims than statements printed a negative count."""
    skipped_claims = "".join(f"- 激活 {8 * n}GB → {2 * n}GB\n" for n in range(1, 31))  # steps, no arithmetic
    walk = (Path(__file__).parent / "fixtures" / "walkthrough" / "right-zh.md").read_text(encoding="utf-8")
    (tmp_path / "a.md").write_text(walk, encoding="utf-8")
    (tmp_path / "b.md").write_text("# 估算\n\n" + skipped_claims + "- 2 × 3 = 6\n", encoding="utf-8")
    summary, lines = run_check(tmp_path)
    counts = assert_counts_hold(summary, lines)
    assert (counts["stated"], counts["unstated"], counts["read"], counts["skipped"]) == (21, 0, 1, 30)


def test_the_sums_of_the_entries_are_the_summarys():
    text = (Path(__file__).parent / "fixtures" / "walkthrough" / "mistakes-zh.md").read_text(encoding="utf-8")
    report = check(text)
    assert statements(report.explained) == (report.verified, report.skipped)
    assert totals(report.explained)[:2] == (0, 0)
    assert all(e.kind == WALKTHROUGH and min(e.counts) >= 0 for e in report.explained)


TOKENS = ["甲", "乙", "丙", "丁"]


@st.composite
def walkthrough_like(draw) -> str:
    """A note made of the pieces walkthroughs are written in, right or wrong, in any order."""
    n = draw(st.integers(2, 4))
    pieces = [f"[ {', '.join(f'“{t}”' for t in TOKENS[:n])} ]\n"]
    for k in range(1, n + 1):
        number = draw(st.sampled_from([str(k)] * 6 + [str(k + 1), "二三", "一"]))
        lines = [f"- 第 {number} 步：处理“{TOKENS[k - 1]}”"]
        q, m = draw(st.integers(0, 5)), draw(st.integers(0, 5))
        lines += draw(
            st.lists(
                st.sampled_from(
                    [
                        f"  Q{q} 匹配到 K1…K{m}",
                        f"  Q{k} 匹配到 {'、'.join(f'K{i}' for i in range(1, m + 1)) or 'K0'}",
                        f"  假设 {draw(st.integers(0, 100))}% 给“{draw(st.sampled_from(TOKENS))}”，{draw(st.integers(0, 100))}% 给自己。",
                        f"  {draw(st.integers(0, 100))}% 给“戊”。",
                        f"  把 {draw(st.integers(0, 100))}% 的 V{q} 混合在一起。",
                        f"  K1、V1 使用前 {m} 步计算后缓存的值",
                        f"  缓存里现在有 K1…K{m}。",
                    ]
                ),
                max_size=4,
            )
        )
        pieces.append("\n".join(lines) + "\n")
    width = draw(st.integers(2, 5))
    rows = [
        draw(st.sampled_from(["今天天气好"[:i] + "█" * (width - i) for i in range(1, width + 1)])) for _ in range(4)
    ]
    pieces.append("\n" + "\n".join(row[:width].ljust(width, "█") for row in rows) + "\n")
    pieces.append(
        f"- 第一轮\n  输入：[ “甲” ]；输出：“乙”\n- 第{draw(st.sampled_from(['二', '二三', '三']))}轮\n  输入：[ “甲”, “乙” ]；输出：“丙”\n"
    )
    pieces += draw(
        st.lists(
            st.sampled_from(["- 激活 8GB → 2GB\n", "- 2 × 3 = 6\n", "- 2 × 3 = 7\n", "如下图所示：\n"]), max_size=3
        )
    )
    return "\n".join(draw(st.permutations(pieces)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(notes=st.lists(walkthrough_like(), min_size=1, max_size=3))
def test_explain_counts_are_never_negative_and_sum_to_the_summary(notes):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for i, text in enumerate(notes):
            (root / f"n{i}.md").write_text(text, encoding="utf-8")
        summary, lines = run_check(root)
    assert_counts_hold(summary, lines)
    for text in notes:
        report = check(text)
        assert all(min(entry.counts) >= 0 for entry in report.explained)
        assert statements(report.explained) == (report.verified, report.skipped)


# -- every finding as written: place, message, written and computed ----------------------------

FIXTURES = Path(__file__).parent / "fixtures" / "walkthrough"


def as_written(name: str) -> list[str]:
    text = (FIXTURES / name).read_text(encoding="utf-8")
    report = check(text)
    found = [
        f"{d.path}:{d.line}:{d.col}: {d.code} {d.severity}: {d.message} | {d.written} -> {d.computed}"
        for d in report.diagnostics
    ]
    return found + [f"{entry} {entry.counts}" for entry in report.explained]


@pytest.mark.parametrize("name", ["every-mistake-zh.md", "every-mistake-en.md"])
def test_every_kind_of_mistake_is_reported_as_written_in_the_golden_file(name):
    """One mistake of each kind a walkthrough can make (each checked by hand): where it is,
    what the message says, what is written and what follows, and the `--explain` entries."""
    golden = (FIXTURES / name).with_suffix(".golden").read_text(encoding="utf-8").splitlines()
    assert as_written(name) == golden


def test_a_promise_with_no_walkthrough_says_how_to_keep_it():
    [d] = check("Some text, as shown below.\n\nMore text.\n").diagnostics
    assert (d.line, d.col, d.code) == (1, 12, "VK436")
    assert d.message == "“as shown below” promises a figure, but none follows; add the figure, or reword the sentence"


# -- what the readers take as a picture, a round, a token list ---------------------------------


def test_a_full_row_of_forty_characters_is_a_row_and_a_longer_line_is_prose():
    rows = ["multiheaded ████ ██ ████", "multiheaded attention ██ ████", "multiheaded attention layers ████"]
    wrong = "multiheaded attention ██ ████"  # the fourth row hides what only the full row shows
    full = "multiheaded attention layers everywhere!"  # 40 characters
    assert len(full) == 40
    [d] = check("\n".join([*rows, wrong, full]) + "\n").diagnostics
    assert (d.line, d.computed) == (4, full)
    prose = "multiheaded attention layers everywhere!!"  # 41 characters, four words: not a row
    [d] = check("\n".join([*rows, wrong, prose]) + "\n").diagnostics
    assert (d.line, d.computed) == (4, None)


def test_a_row_of_masks_only_is_not_part_of_the_picture():
    [picture] = check("█████\n今████\n今天███\n今天天██\n").reading.masks
    assert [row.line for row in picture.rows] == [2, 3, 4]


def test_rows_of_any_letters_are_read():
    assert len(check("X███\nXY██\nXYZ█\nXYZW\n").reading.masks) == 1


def test_rows_that_mask_in_the_middle_are_no_staircase():
    assert check("今█天█\n今天█气\n今天天█\n今天天气\n").reading.masks == []


def test_two_masked_rows_make_a_picture_one_does_not():
    assert len(check("今██\n今天█\n").reading.masks) == 1
    assert check("今天█\n今天天\n").reading.masks == []


def test_every_row_out_of_the_picture_is_counted():
    report = check("今██\n今天█\n今天天\n今天天\n今天天\n")
    assert (report.verified, report.skipped) == (3, 2)
    report = check("今天██\n今███\n今天██\n今天天█\n")  # most rows say row k shows k units: the first shows none
    assert report.diagnostics == [] and (report.verified, report.skipped) == (3, 1)


def test_a_row_no_row_determines_is_reported_in_full():
    d = check("  今████\n  今天███\n  今天天██\n  今天天██\n  今天天██\n").diagnostics[0]
    assert (d.path, d.line, d.col, d.code, d.written, d.computed) == ("n.md", 4, 3, "VK434", "今天天██", None)
    assert (
        d.message
        == "mask row 4 should show exactly the first 4 of 5 positions: it hides 1 of them, and no row shows what they hold"
    )


def test_round_input_and_output_on_lines_of_their_own():
    text = "```\n代码行\n```\n\n- 第一轮\n  输入：[ “今”, “天” ]\n  输出：“很”\n- 第二轮\n  输入：[ “今”, “天”, “很” ]\n  输出：<EOS>\n"
    [rounds] = check(text).reading.rounds
    assert [(r.number, r.input, r.output) for r in rounds] == [
        (1, ["今", "天"], "很"),
        (2, ["今", "天", "很"], "<EOS>"),
    ]
    far = text.replace("  输出：“很”", "  说明一下。\n  输出：“很”")  # its output three lines below: not a round
    assert check(far).reading.rounds == []


def test_the_token_list_is_the_last_one_before_the_walkthrough():
    steps = "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n  100% 给“甲”。\n- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n  50% 给“甲”，50% 给“乙”。\n"
    walk = check("[ “子”, “丑” ]\n\n[ “甲”, “乙” ]\n\n" + steps).reading.walkthroughs[0]
    assert walk.tokens == ["甲", "乙"]
    after = check(steps + "\n[ “子”, “丑” ]\n").reading.walkthroughs[0]
    assert after.tokens == ["甲", "乙"]  # from the steps' own tokens, not the list after them


def test_a_remark_about_a_query_before_the_first_position_matches_none():
    text = "我： Q1、K1、V1\n想： Q2、K2、V2\n\n- 第 1 步：处理“我”\n  Q1 只能匹配到 K1\n  顺便：Q0 匹配到 K1。\n- 第 2 步：处理“想”\n  Q2 匹配到 K1、K2\n"
    [d] = check(text).diagnostics
    assert (d.line, d.written, d.computed) == (6, "K1", "none")


def test_a_figure_past_a_generated_region_fulfils_the_promise():
    region = "<!-- vaultkit:begin ex1 -->\n结果 42\n<!-- vaultkit:end ex1 -->\n\n"
    assert check(PROMISE + region + "![网络](net.png)\n").diagnostics == []


# -- numbers, items and targets as the reader reads them ---------------------------------------


@pytest.mark.parametrize(
    "zh, en, ordinal, value",
    [
        ("3", None, None, 3),
        ("三", None, None, 3),
        ("两", None, None, 2),
        ("〇", None, None, 0),
        ("十", None, None, 10),
        ("十二", None, None, 12),
        ("二十", None, None, 20),
        ("三十五", None, None, 35),
        ("二三", None, None, None),
        ("十十", None, None, None),
        ("百", None, None, None),
        (None, "twelve", None, 12),
        (None, "Seven", None, 7),
        (None, "12", None, 12),
        (None, None, "Third", 3),
        (None, None, None, None),
    ],
)
def test_step_and_round_numbers(zh, en, ordinal, value):
    assert reader.number_value(zh, en, ordinal) == value


def test_the_lines_of_a_note_skip_generated_regions_and_keep_plain_fences():
    text = "## 标题\n\n<!-- vaultkit:begin x -->\n\n第 1 步：生成的\n\n<!-- vaultkit:end x -->\n\n正文\n\n```\n我██\n我想█\n```\n\n```python\nx = 1\n```\n"
    lines, _ = reader.note_lines(text, parse(text))
    assert [(ln.number, ln.col, ln.text, ln.heading, ln.code) for ln in lines] == [
        (1, 4, "标题", 2, False),
        (9, 1, "正文", 0, False),
        (12, 1, "我██", 0, True),
        (13, 1, "我想█", 0, True),
    ]


STEPS2 = "- 第 1 步：处理“{a}”\n  Q1 匹配到 K1\n- 第 2 步：处理“{b}”\n  Q2 匹配到 K1、K2\n  {weights}\n"


@pytest.mark.parametrize(
    "a, b, weights",
    [
        ("手", "手机", "40% 给手，60% 给手机。"),  # bare names: the longer one first
        ("手", "手机", "40% 给 K1，60% 给 K2。"),
        ("手", "手机", "40% 给“手”，60% 给“自己”。"),
        ("手", "手机", "40% 给[“手”]，60% 给[K2]。"),
        ("the", "cat", "40% to “the” and 60% to “itself”."),
        ("the", "cat", "40% to “the” and 60% to “self”."),
    ],
)
def test_weight_targets_by_name_item_quote_and_group(a, b, weights):
    report = check(STEPS2.format(a=a, b=b, weights=weights))
    assert report.diagnostics == []
    assert [s.positions for s in report.reading.walkthroughs[0].steps[1].weights[0].shares] == [(1,), (2,)]


def test_a_lone_share_of_all_is_a_split_and_must_cover_the_matched_keys():
    [d] = check(STEPS2.format(a="甲", b="乙", weights="100% 给自己。")).diagnostics
    assert (d.code, d.written, d.computed) == ("VK431", "乙", "甲、乙")


@pytest.mark.parametrize("weights", ["50% 给“甲”，49% 给自己。", "40.0% 给“甲”，60.0% 给自己。"])
def test_weights_at_the_edge_of_their_rounding(weights):
    assert check(STEPS2.format(a="甲", b="乙", weights=weights)).diagnostics == []


def test_mixes_at_the_edge_of_their_rounding_and_off_it():
    base = STEPS2.format(a="甲", b="乙", weights="假设 25% 给“甲”，75% 给自己。")
    assert check(base + "  把 25% 的 V1、74% 的 V2 混合在一起。\n").diagnostics == []
    unstated = STEPS2.format(a="甲", b="乙", weights="")
    assert check(unstated + "  把 50% 的 V1、49% 的 V2 混合在一起。\n").diagnostics == []
    [d] = check(unstated + "  把 33.33% 的 V1、33.33% 的 V2 混合在一起。\n").diagnostics
    assert d.written == "66.66 %" and "summing to 66.66 %" in d.message
    grouped = "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n- 第 3 步：处理“丙”\n  Q3 匹配到 K1、K2、K3\n"
    grouped += "  假设 20% 给[甲/乙]，80% 给自己。\n  把 10% 的 V1、20% 的 V2、70% 的 V3 混合。\n"
    [d] = check(grouped).diagnostics
    assert "V1/V2 gets 30 %, its weight is 20 %" in d.message and d.computed == "20 % V1/V2、80 % V3"


def test_keys_skipped_are_named_and_a_gap_is_not_a_range():
    [d] = check(
        "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n- 第 3 步：处理“丙”\n  Q3 匹配到 K1、K3\n"
    ).diagnostics
    assert "(K2 is skipped)" in d.message and d.written == "K1、K3"
    [d] = check(
        "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n- 第 3 步：处理“丙”\n  Q3 匹配到 K3\n"
    ).diagnostics
    assert "(K1、K2 are skipped)" in d.message


def test_a_value_read_from_the_cache_that_is_not_there():
    [d] = check(STEPS2.format(a="甲", b="乙", weights="K1、V1、V2 使用缓存。")).diagnostics
    assert (d.code, d.line, d.computed) == ("VK433", 5, "K1、V1")


def test_items_in_latex_and_lowercase_keep_their_columns():
    text = (
        "- Step 1: process “a”\n  $q_1$ attends to $k_1$.\n- Step 2: process “b”\n  \\(Q_2\\) attends to \\(K_2\\).\n"
    )
    [d] = check(text).diagnostics
    assert (d.line, d.col, d.written) == (4, 24, "K2")
    assert [s.lists[0].role for s in check(text).reading.walkthroughs[0].steps] == ["match", "match"]


def test_steps_with_no_token_names_say_positions():
    text = "- Step 1:\n  Q1 attends to K1.\n- Step 2:\n  Q2 attends to K2.\n"
    [d] = check(text).diagnostics
    assert d.message.startswith("step 2 (query 2, position 2): ")


def test_rounds_in_english_alone_are_read():
    text = "- Round 1: input [“a”]; output: “b”\n- Round 2: input [“a”, “b”]; output: “c”\n"
    assert [len(g) for g in check(text).reading.rounds] == [1 + 1]


@pytest.mark.parametrize(
    "text", ["The words “如下图” are a phrase.\n\n正文\n", "Write `如下图` to promise one.\n\n正文\n"]
)
def test_the_words_quoted_are_no_promise(text):
    assert check(text).reading.promises == []


@pytest.mark.parametrize(
    "text",
    [
        "说明 ![x](a.png) 结构如下图所示。\n\n正文。\n",  # an image before the words, text before it
        "第一行。\n![x](a.png) 见下图。\n\n正文。\n",  # on the promise's line, before the words
        "第一行。  \n![x](a.png) 见下图。\n\n正文。\n",  # the same after a hard break
        PROMISE + "```vaultkit\nkind: attention\n```\n\n一。\n\n二。\n",  # a vaultkit block drawing nothing
    ],
)
def test_no_figure_for_the_promise(text):
    assert [d.code for d in check(text).diagnostics] == ["VK436"]


def test_an_image_below_the_words_in_their_paragraph_and_a_block_that_draws():
    assert check("网络结构如下图所示：\n![网络](a.png)\n").diagnostics == []
    assert check(PROMISE + "```vaultkit id=1\nfigure: a.svg\n```\n").diagnostics == []
    assert check(PROMISE + "```Mermaid\ngraph LR\n```\n").diagnostics == []


def test_the_quick_look_for_promises():
    assert promises.may_promise("see below", "see below") is False
    assert promises.may_promise("the figure below", "the figure below") is True
