"""The walkthrough reader's cases that mutation testing found unpinned (issue 40): where a step's
body ends, steps written as headings, queries placed by number, what a line's lists say,
remarks in brackets, token tables with gaps, and what is seen and not read."""

from __future__ import annotations

from vaultkit.checks.walkthrough import check_markdown, reader
from vaultkit.checks.walkthrough.lines import Line
from vaultkit.readers.markdown import parse


def read(text: str) -> reader.Reading:
    return reader.read(text, parse(text))


def check(text: str):
    return check_markdown(text, parse(text), "n.md")


def line(text: str, number: int = 1, col: int = 1) -> Line:
    return Line(number, col, text)


def lists(text: str) -> list[tuple[str, list[str], int, str]]:
    """(role, items, column, text) of each list the line states."""
    return [(x.role, [f"{i.letter}{i.index}" for i in x.items], x.col, x.text) for x in reader.read_lists(line(text))]


def steps(text: str) -> list[tuple]:
    """(number, query, how it was found, lists, weights, mixes, unread) of each step read."""
    [walk] = read(text).walkthroughs
    return [(s.number, s.query, s.query_from, len(s.lists), len(s.weights), len(s.mixes), s.unread) for s in walk.steps]


# -- where the last step's body ends -----------------------------------------------------------


def test_a_list_step_ends_at_a_paragraph_that_states_nothing():
    text = (
        "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：处理“乙”\n  说明一下。\n  Q2 匹配到 K1、K2\n\n"
        "下面是别的内容。\n\nQ5 匹配到 K1\n"
    )
    [walk] = read(text).walkthroughs
    assert [[x.text for x in s.lists] for s in walk.steps] == [["K1"], ["K1、K2"]]  # its own line without items kept


def test_a_paragraph_step_goes_on_through_the_paragraphs_that_state_something():
    text = (
        "第 1 步：处理“甲”\n\nQ1 匹配到 K1\n\n第 2 步：处理“乙”\n\nQ2 匹配到 K1、K2\n说明一下\n"
        "假设 25% 给“甲”，75% 给自己。\n\n```\nQ9 匹配到 K1\n```\n\nQ3 匹配到 K1\n"
    )
    [walk] = read(text).walkthroughs
    last = walk.steps[1]
    assert [x.text for x in last.lists] == ["K1、K2"] and len(last.weights) == 1  # not past the code


def test_a_paragraph_with_a_percent_goes_on_a_step_one_with_neither_ends_it():
    base = "第 1 步：处理“甲”\n\nQ1 匹配到 K1\n\n第 2 步：处理“乙”\n\nQ2 匹配到 K1、K2\n\n{p}\n\n25% 给“甲”，75% 给自己。\n"
    tokens = "[ “甲”, “乙” ]\n\n"
    assert len(read(tokens + base.format(p="如图，权重 50%。")).walkthroughs[0].steps[1].weights) == 1
    assert read(tokens + base.format(p="如图。")).walkthroughs[0].steps[1].weights == []


HEADINGS = (
    "[ “甲”, “乙”, “丙” ]\n\n### 第 1 步\n\nQ1 匹配到 K1\n\n#### 细节\n\n说明。\n\nK1、V1 新算出来。\n\n"
    "{between}### 第 2 步\n\nQ2 匹配到 K1、K2\n\n说明。\n\nK2、V2 新算出来。\n\n{after}\n\nQ3 匹配到 K1、K2、K3\n"
)


def test_steps_written_as_headings_keep_their_sub_headings_and_end_at_their_level():
    for after in ("### 其他", "## 其他"):
        [walk] = read(HEADINGS.format(between="", after=after)).walkthroughs
        assert [(s.number, s.line, s.col, s.header, s.heading) for s in walk.steps] == [
            (1, 3, 5, "第 1 步", 3),
            (2, 13, 5, "第 2 步", 3),
        ]
        assert [[x.text for x in s.lists] for s in walk.steps] == [["K1", "K1、V1"], ["K1、K2", "K2、V2"]]
    [walk] = read(HEADINGS.format(between="", after="#### 更细")).walkthroughs
    assert [x.text for x in walk.steps[1].lists] == ["K1、K2", "K2、V2", "K1、K2、K3"]  # a sub-heading goes on


def test_a_heading_of_the_steps_level_between_two_steps_parts_them():
    assert read(HEADINGS.format(between="### 插话\n\n", after="### 其他")).walkthroughs == []
    assert len(read(HEADINGS.format(between="#### 插话\n\n", after="### 其他")).walkthroughs) == 1


def test_a_heading_right_after_a_list_step_parts_it_from_the_next():
    text = "- 第 1 步：Q1 匹配到 K1\n\n## 另一节\n\n- 第 2 步：Q2 匹配到 K1、K2\n"
    assert read(text).walkthroughs == []
    assert len(read(text.replace("## 另一节\n\n", "")).walkthroughs) == 1


def test_a_heading_step_ends_where_the_next_heading_is_right_under_it():
    text = (
        "### 第 1 步\n\nQ1 匹配到 K1\n\nK1、V1 新算出来。\n\n### 第 2 步\n"
        "### 其他\n\nQ2 匹配到 K1、K2\n\nK2、V2 新算出来。\n"
    )
    assert read(text).walkthroughs == []  # step 2 states nothing


def test_steps_not_numbered_one_after_the_other_are_not_a_walkthrough():
    text = "- 第 1 步：Q1 匹配到 K1\n  K1、V1 新算\n- 第 3 步：Q3 匹配到 K1、K2、K3\n  K3、V3 新算\n"
    assert read(text).walkthroughs == []


def test_a_step_line_in_a_code_block_is_no_step_and_does_not_stop_the_reading():
    text = "```\n第 1 步\n```\n\n- 第 1 步：Q1 匹配到 K1\n- 第 2 步：Q2 匹配到 K1、K2\n"
    [walk] = read(text).walkthroughs
    assert [s.line for s in walk.steps] == [5, 6]


def test_english_ordinal_steps_are_read():
    text = "- First step: Q1 attends to K1\n- Second step: Q2 attends to K1 and K2\n"
    [walk] = read(text).walkthroughs
    assert [(s.number, s.query, [x.text for x in s.lists]) for s in walk.steps] == [
        (1, 1, ["K1"]),
        (2, 2, ["K1 and K2"]),
    ]


def test_the_last_line_of_a_note_without_a_newline_keeps_its_number():
    text = "- 第 1 步：Q1 匹配到 K1\n- 第 2 步：Q2 匹配到 K1、K2"
    [walk] = read(text).walkthroughs
    assert [x.line for s in walk.steps for x in s.lists] == [1, 2]


# -- queries, tokens and the base --------------------------------------------------------------


def test_a_step_with_no_q_takes_its_query_from_its_number_at_the_others_offset():
    text = "- 第 1 步：K0、V0 新算出来\n- 第 2 步：Q1 匹配到 K0、K1\n- 第 3 步：Q2 匹配到 K0、K1、K2\n"
    walk = read(text).walkthroughs[0]
    assert walk.base == 0
    assert steps(text) == [
        (1, 0, "its number", 1, 0, 0, 0),
        (2, 1, "its query", 1, 0, 0, 0),
        (3, 2, "its query", 1, 0, 0, 0),
    ]


def test_a_query_by_number_below_the_base_is_not_placed():
    text = "- 第 1 步：K0、V0 新算出来\n- 第 2 步：Q0 匹配到 K0\n- 第 3 步：Q1 匹配到 K0、K1\n"
    assert steps(text)[0] == (1, None, "", 0, 0, 0, 1)  # its list is counted as not read


def test_a_step_after_one_placed_by_its_token_is_placed_by_its_q():
    text = "[ “甲”, “乙” ]\n\n- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：看下一个\n  Q2 匹配到 K1、K2\n"
    assert [s[:3] for s in steps(text)] == [(1, 1, "the step's token"), (2, 2, "its query")]


def test_steps_naming_their_tokens_give_the_tokens_and_the_queries():
    text = "- 第 1 步：处理“甲”\n  K1、V1 新算\n- 第 2 步：处理“乙”\n  K2、V2 新算\n"
    [walk] = read(text).walkthroughs
    assert walk.tokens == ["甲", "乙"] and walk.base == 1
    assert [(s.token, s.query, s.query_from) for s in walk.steps] == [
        ("甲", 1, "the step's token"),
        ("乙", 2, "the step's token"),
    ]


def test_a_token_list_before_the_steps_wins_over_the_tokens_the_steps_name():
    text = "[ “甲”, “乙”, “丙” ]\n\n- 第 1 步：处理“乙”\n  K2、V2 新算\n- 第 2 步：处理“丙”\n  K3、V3 新算\n"
    [walk] = read(text).walkthroughs
    assert walk.tokens == ["甲", "乙", "丙"] and [s.query for s in walk.steps] == [2, 3]


def test_a_token_list_places_weights_even_when_the_steps_name_no_token():
    text = "[ “甲”, “乙” ]\n\n- 第 1 步\n  Q1 匹配到 K1，100% 给“甲”\n- 第 2 步\n  Q2 匹配到 K1、K2，40% 给“甲”，60% 给“乙”\n"
    [walk] = read(text).walkthroughs
    assert walk.tokens == ["甲", "乙"]
    assert [[sh.positions for sh in w.shares] for s in walk.steps for w in s.weights] == [[(1,)], [(1,), (2,)]]
    [walk] = read(text.replace("[ “甲”, “乙” ]\n\n", "")).walkthroughs
    assert [(s.weights, s.unread) for s in walk.steps] == [([], 1), ([], 2)]  # without it, 甲 is no position


def test_a_quoted_token_starting_with_x_is_placed():
    text = "[ “Xi”, “说” ]\n\n- 第 1 步\n  Q1 匹配到 K1，100% 给“Xi”\n- 第 2 步\n  Q2 匹配到 K1、K2，40% 给“Xi”，60% 给“说”\n"
    [walk] = read(text).walkthroughs
    assert walk.steps[1].weights[0].shares[0].positions == (1,)


def test_a_token_table_with_a_gap_names_the_missing_position_by_its_index():
    text = (
        "甲： Q1、K1、V1\n\n丙： Q3、K3、V3\n\n- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n"
        "- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n"
    )
    [walk] = read(text).walkthroughs
    assert walk.tokens == ["甲", "2", "丙"] and walk.name(2) == "2"


def test_a_header_that_begins_with_a_quoted_token_names_it():
    text = "- 第 1 步：“甲”\n  K1、V1 新算\n- 第 2 步：“乙”\n  K2、V2 新算\n"
    [walk] = read(text).walkthroughs
    assert [s.token for s in walk.steps] == ["甲", "乙"]


def test_weights_to_keys_need_no_tokens():
    text = "- 第 1 步：Q1 匹配到 K1，100% 给 K1\n- 第 2 步：Q2 匹配到 K1、K2，30% 给 k1，70% 给 K2\n"
    [walk] = read(text).walkthroughs
    [weights] = walk.steps[1].weights
    assert [(sh.positions, sh.percent, sh.half, sh.col) for sh in weights.shares] == [
        ((1,), 30.0, 0.5, 22),
        ((2,), 70.0, 0.5, 31),
    ]
    assert (weights.line, weights.text, weights.assumed) == (
        2,
        "第 2 步：Q2 匹配到 K1、K2，30% 给 k1，70% 给 K2",
        False,
    )


def test_the_rounding_of_a_written_percentage_is_half_its_last_digit():
    assert [reader._half(n) for n in ("25", "12.5", "0.25")] == [0.5, 0.05, 0.005]


# -- statements a step cannot place ------------------------------------------------------------

UNPLACED = (
    "- 第 1 步：Q1 匹配到 K1\n  K1、V1 新算\n- 第 2 步：Q3 匹配到 K1、K2、K3\n  K3、V3 新算\n"
    "- 第 3 步：看下一个\n  K1、V1 来自缓存\n  20% 给“丁”，30% 给 K1\n  把 50% 的 V1 混合\n  没有别的了\n"
)


def test_a_step_whose_query_is_not_known_counts_each_statement_as_not_read():
    [walk] = read(UNPLACED).walkthroughs
    last = walk.steps[2]
    assert (last.query, last.lists, last.weights, last.mixes) == (None, [], [], [])
    assert last.unread == 1 + 3  # the share to 丁, then its list, weights and mix


def test_a_step_with_no_query_and_only_weights_or_only_lists_keeps_none():
    for body in ("  30% 给 K1\n", "  K1、V1 来自缓存\n", "  把 50% 的 V1 混合\n"):
        [walk] = read(UNPLACED.split("- 第 3 步")[0] + "- 第 3 步：看下一个\n" + body).walkthroughs
        last = walk.steps[2]
        assert (last.lists, last.weights, last.mixes, last.unread) == ([], [], [], 1)


def test_steps_with_statements_in_one_step_only_are_not_a_walkthrough():
    text = "- 第 1 步：Q1 匹配到 K1\n  K1、V1 新算\n- 第 2 步：继续\n"
    assert read(text).walkthroughs == []


def test_what_is_not_read_is_listed_in_line_order_with_its_text_and_why():
    text = (
        "- 第 1 步：看第一个词\n  40% 给“甲”\n  60% 给“乙”\n  以上。\n- 第 2 步：看第二个词\n  50% 给“丙”。\n\n"
        "正文。\n\n- 第二三步：处理“乙”\n"
    )
    unread = read(text).unread
    assert [(u.line, u.text, u.why, u.statements) for u in unread] == [
        (
            1,
            "第 1 步：看第一个词",
            "2 steps with 0 statements read and 3 not (a step's query or a weight's target not known): "
            "too few to check as a walkthrough",
            3,
        ),
        (10, "第二三步：处理“乙”", "the step number “二三” is not one number", 1),
    ]


# -- lists, their roles and remarks ------------------------------------------------------------


def test_a_match_then_a_cached_list_on_one_line():
    assert lists("Q3 匹配到 K1、K2、K3；K1、V1 来自缓存") == [
        ("match", ["K1", "K2", "K3"], 8, "K1、K2、K3"),
        ("cached", ["K1", "V1"], 17, "K1、V1"),
    ]


def test_only_a_q_matches_and_only_keys_are_matched():
    assert lists("K1 匹配到 K2") == []
    assert lists("Q2 匹配到 K1、V1") == []


def test_the_q_of_a_mixed_list_is_left_out():
    assert lists("本步新算 Q2、K2、V2") == [("computed", ["K2", "V2"], 6, "Q2、K2、V2")]
    assert lists("K3、V3 写入缓存") == [("computed", ["K3", "V3"], 1, "K3、V3")]


def test_values_alone_are_listed_from_the_cache_and_left_to_the_mix_when_mixed():
    assert lists("V1、V2 来自缓存") == [("cached", ["V1", "V2"], 1, "V1、V2")]
    assert lists("V1、V2 从缓存拿过来") == [("cached", ["V1", "V2"], 1, "V1、V2")]
    assert lists("K1、V1 从缓存拿过来") == [("cached", ["K1", "V1"], 1, "K1、V1")]
    assert lists("本步新算 K2、V2 并加权") == [("computed", ["K2", "V2"], 6, "K2、V2")]
    assert lists("新算 V1、V2 并加权混合") == []
    assert lists("新算 V1、V2 并加权混合；K1、V1 来自缓存") == [("cached", ["K1", "V1"], 16, "K1、V1")]


def test_a_list_with_no_role_does_not_hide_the_next():
    assert lists("K2 和 V2 另说；K1、V1 直接读缓存") == [("cached", ["K1", "V1"], 12, "K1、V1")]


def test_a_range_then_a_second_range_are_two_lists():
    listed = reader.read_lists(line("缓存里现在有 K1…K4 和 V1…V4"))
    assert [(x.role, [f"{i.letter}{i.index}" for i in x.items]) for x in listed] == [
        ("holds", ["K1", "K2", "K3", "K4", "V1", "V2", "V3", "V4"])
    ]
    filled = listed[0].items[1]
    assert (filled.line, filled.col) == (1, 11)  # an item of a range stands where its end is written
    runs = reader.lists_in(line("K2…K2 来自缓存"))
    assert [[f"{i.letter}{i.index}" for i in items] for _, _, items in runs] == [["K2"], ["K2"]]


def test_an_items_column_is_where_it_is_written():
    assert [(item.index, item.col) for _, _, item in reader.items_in(line("先算 K2、V2", col=3))] == [(2, 6), (2, 9)]


def test_a_clause_spans_the_commas_of_another_list_and_stops_at_its_own():
    assert [x[:2] for x in lists("read from the cache: K1, K2 and their values V1, V2")] == [
        ("cached", ["K1", "K2"]),
        ("cached", ["V1", "V2"]),
    ]
    assert [x[:2] for x in lists("缓存里有 K1、K2，新算的是 K3")] == [("holds", ["K1", "K2"]), ("computed", ["K3"])]


def test_earlier_steps_said_in_a_remark_after_the_list():
    for text, col in (
        ("Q3 匹配到 K1；K1、V1 读缓存（前 2 步）", 21),
        ("Q3 匹配到 K1；K1、V1 读缓存（前 2 步", 21),
        ("K1, V1 are read from the cache (the previous 2 steps).", 37),
    ):
        [cached] = [x for x in reader.read_lists(line(text)) if x.role == "cached"]
        assert (cached.earlier_steps, cached.earlier_at) == (2, (1, col)), text
    [cached] = reader.read_lists(line("K1、V1 读缓存 (前 2 步)"))
    assert cached.earlier_steps == 2
    [cached] = reader.read_lists(line("K1、V1 读缓存（见上）前 2 步"))
    assert cached.earlier_steps is None  # said after the remark, not in it


# -- mixes -------------------------------------------------------------------------------------


def test_a_mix_written_with_decimals_keeps_their_rounding():
    mix = reader.read_mix(line("输出 = 0.25 × V1 + 0.75 × V2", number=4))
    assert (mix.line, mix.text) == (4, "输出 = 0.25 × V1 + 0.75 × V2")
    assert mix.parts == [(1, 25.0, 0.5, 6), (2, 75.0, 0.5, 18)]


def test_values_listed_to_be_mixed_are_a_mix_without_shares():
    mix = reader.read_mix(line("把 V1 拿过来", number=2))
    assert (mix.parts, mix.line, mix.text) == ([(1, None, 0.0, 3)], 2, "把 V1 拿过来")
    assert reader.read_mix(line("V1、V2 新算出来")) is None
    assert reader.read_mix(line("把 K1、V1 加权")) is None
    assert reader.read_mix(line("把缓存的 V1 拿过来")) is None


# -- mask pictures and rounds ------------------------------------------------------------------


def test_a_mask_picture_in_a_text_fence_is_read():
    text = "```text\n今██\n今天█\n今天天\n```\n"
    assert [len(p.rows) for p in read(text).masks] == [3]
    unclosed = "```\n今██\n今天█\n今天天"
    assert [[r.text for r in p.rows] for p in read(unclosed).masks] == [["今██", "今天█", "今天天"]]


def test_a_spaced_row_showing_too_much_is_fixed_with_the_masks_of_its_picture():
    rows = ["the cat ███ ███", "the cat ███ ███", "the cat sat ███", "the cat sat down"]
    report = check("\n".join(rows) + "\n")
    assert [(d.line, d.computed) for d in report.diagnostics] == [(1, "the █ ███ ███")]


ROUNDS = (
    "- 第零轮：预热\n- 第一轮\n  输入：[ “今”, “天” ]；输出：“很”\n- 第二轮\n  输入：[ “今”, “天”, “很” ]；输出：“好”\n"
)


def test_a_round_without_input_does_not_stop_the_rounds_after_it():
    assert [[r.number for r in g] for g in read(ROUNDS).rounds] == [[1, 2]]


def test_earlier_steps_are_read_in_the_remark_right_after_the_list_only():
    def earlier(text):
        [cached] = [x for x in reader.read_lists(line(text)) if x.role == "cached"]
        return cached.earlier_steps

    assert earlier("（注）K1、V1 读缓存（前 2 步）") == 2
    assert earlier("K1、V1 读缓存（见上）前 2 步（完）") is None
    assert earlier("(note) K1, V1 are read from the cache (the previous 2 steps)") == 2
    assert earlier("K1, V1 are read from the cache (see above) the previous 2 steps (all)") is None


def test_a_step_after_steps_named_by_their_tokens_is_placed_by_its_q():
    text = (
        "- 第 1 步：处理“甲”\n  K1、V1 新算\n- 第 2 步：处理“乙”\n  K2、V2 新算\n"
        "- 第 3 步：看下一个\n  Q3 匹配到 K1、K2、K3\n"
    )
    assert [s[:3] for s in steps(text)] == [(1, 1, "the step's token"), (2, 2, "the step's token"), (3, 3, "its query")]


def test_a_token_list_on_the_first_step_line_is_not_the_walkthroughs():
    text = "- 第 1 步：[ “甲”, “乙” ] 中的“甲”\n  K1、V1 新算\n- 第 2 步：“乙”\n  K2、V2 新算\n"
    assert read(text).walkthroughs == []
    assert len(read("[ “甲”, “乙” ]\n\n" + text).walkthroughs) == 1


def test_an_unclosed_fence_of_spaced_rows_is_read_to_its_last_row():
    text = "```\nthe █ █\nthe cat █\nthe cat sat"
    assert [[r.text for r in p.rows] for p in read(text).masks] == [["the █ █", "the cat █", "the cat sat"]]
