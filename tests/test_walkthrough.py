"""Decode walkthroughs in prose: read with no annotation, checked as written; the promised
figure drawn by `fix --adopt` from what the walkthrough states."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from vaultkit.checks.walkthrough import check_markdown
from vaultkit.commands.cli import main
from vaultkit.figures import is_generated
from vaultkit.readers.markdown import parse

FIXTURES = Path(__file__).parent / "fixtures" / "walkthrough"


def check(text: str, rel: str = "n.md"):
    return check_markdown(text, parse(text), rel)


def codes(report) -> list[tuple[int, str]]:
    return [(d.line, d.code) for d in report.diagnostics]


# -- right walkthroughs are silent -------------------------------------------------------------


@pytest.mark.parametrize("name", ["right-zh.md", "right-en.md"])
def test_a_right_walkthrough_is_read_and_silent(name):
    report = check((FIXTURES / name).read_text(encoding="utf-8"))
    assert report.diagnostics == []
    assert report.verified >= 15
    assert len(report.reading.walkthroughs) == 1 and report.reading.masks
    assert all(entry.verdict == "ok" for entry in report.explained)


def test_the_english_walkthrough_reads_steps_in_words_and_rounds():
    report = check((FIXTURES / "right-en.md").read_text(encoding="utf-8"))
    walk = report.reading.walkthroughs[0]
    assert walk.tokens == ["the", "cat", "sat", "down"] and walk.base == 1
    assert [s.number for s in walk.steps] == [1, 2, 3] and [s.query for s in walk.steps] == [1, 2, 3]
    roles = [[listed.role for listed in s.lists] for s in walk.steps]
    assert roles == [["match"], ["match", "cached", "computed"], ["match", "cached", "computed"]]
    assert [len(r) for r in report.reading.rounds] == [3]


def test_the_chinese_walkthrough_reads_groups_ranges_and_the_cache_held():
    report = check((FIXTURES / "right-zh.md").read_text(encoding="utf-8"))
    last = report.reading.walkthroughs[0].steps[-1]
    assert [s.positions for s in last.weights[0].shares] == [(1, 2), (3,), (4,)]  # [小明/喜欢] counts once
    assert [sorted({i.index for i in listed.items}) for listed in last.lists] == [[1, 2, 3, 4], [1, 2, 3], [1, 2, 3, 4]]
    assert [listed.role for listed in last.lists] == ["match", "cached", "holds"]


# -- seeded mistakes, each found on its line ---------------------------------------------------


def test_each_seeded_mistake_is_found_on_its_line():
    text = (FIXTURES / "mistakes-zh.md").read_text(encoding="utf-8")
    expected = [
        tuple(line.split())
        for line in (FIXTURES / "mistakes-zh.expected").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    report = check(text)
    assert sorted(codes(report)) == sorted((int(n), code) for n, code in expected)
    lines = text.split("\n")
    for d in report.diagnostics:  # each points into what is written on its line
        assert d.written is not None and d.computed is not None and d.written != d.computed
        assert d.col >= 1 and lines[d.line - 1].strip()


def test_messages_say_what_is_written_and_what_follows():
    report = check((FIXTURES / "mistakes-zh.md").read_text(encoding="utf-8"))
    by_code = {d.code: d for d in report.diagnostics}
    assert "K4 is a future key" in by_code["VK430"].message
    assert by_code["VK430"].written == "K1、K2、K3、K4" and by_code["VK430"].computed == "K1、K2、K3"
    assert "sum to 90 %" in by_code["VK431"].message
    assert "K3、V3 are the current token's" in by_code["VK433"].message
    assert by_code["VK433"].computed == "K1、V1、K2、V2"
    assert "V2 gets 50 %, its weight is 30 %" in by_code["VK432"].message
    assert by_code["VK434"].written == "我想买苹███" and by_code["VK434"].computed == "我想买████"
    assert "苹果" in by_code["VK435"].computed


@pytest.mark.parametrize(
    "step, wrong, code",
    [
        ("Q2 匹配到 K2", None, "VK430"),  # K1 skipped
        ("Q2 匹配到 K1、K2\n  假设 30% 给“小明”，60% 给自己。", 2, "VK431"),
        ("Q2 匹配到 K1、K2\n  假设 30% 给“小明”，70% 给“喝”。", 2, "VK431"),  # a future position weighted
        ("Q2 匹配到 K1、K2\n  假设 30% 给“小明”，70% 给自己。\n  把 30% 的 V1、70% 的 V3 混合。", 3, "VK432"),
        ("K1、V1 使用缓存；本步新计算 K1、K2、V2。", 1, "VK433"),
        ("缓存里现在有 K1、V1。", 1, "VK433"),  # after step 2 the cache holds K1…K2
        ("K1、V1 使用前 2 步计算后缓存的值", 1, "VK433"),  # only 1 earlier step
    ],
)
def test_one_wrong_statement_in_a_step(step, wrong, code):
    text = (
        "[ “小明”, “喜欢”, “喝” ]\n\n- 第 1 步：处理“小明”\n  Q1 只能匹配到 K1\n"
        f"- 第 2 步：处理“喜欢”\n  {step}\n- 第 3 步：处理“喝”\n  Q3 匹配到 K1、K2、K3\n"
    )
    report = check(text)
    assert [d.code for d in report.diagnostics] == [code]
    assert report.diagnostics[0].line == 6 + (wrong - 1 if wrong else 0)


def test_an_assumed_split_is_illustrative_but_its_sum_is_checked():
    base = (
        "[ “a”, “b” ]\n\n- Step 1: process “a”\n  Q1 attends to K1.\n- Step 2: process “b”\n  Q2 attends to K1, K2.\n"
    )
    assert check(base + "  Suppose 30% to “a” and 70% to itself.\n").diagnostics == []
    found = check(base + "  Suppose 30% to “a” and 60% to itself.\n").diagnostics
    assert [d.code for d in found] == ["VK431"]
    walk = check(base + "  Suppose 30% to “a” and 70% to itself.\n").reading.walkthroughs[0]
    assert walk.steps[1].weights[0].assumed


def test_rounding_of_written_percentages_is_allowed():
    text = (
        "- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n"
        "- 第 3 步：处理“丙”\n  Q3 匹配到 K1、K2、K3\n  假设 33% 给“甲”，33% 给“乙”，33% 给自己。\n"
    )
    assert check(text).diagnostics == []


# -- no false alarm ----------------------------------------------------------------------------


def test_steps_and_percentages_without_a_walkthrough_are_not_read():
    report = check((FIXTURES / "prose-only.md").read_text(encoding="utf-8"))
    assert report.diagnostics == [] and report.verified == 0 and report.explained == []


@pytest.mark.parametrize(
    "text",
    [
        "GPU0 ██░░░░████\nGPU1 ░░████░░██\n",
        "```\n│ GPU0 ████ │\n│ GPU1 ████ │\n```\n",
        "CPU ████\nGPU ██████\n",
        "进度：██\n进度：████\n",
        "x∈[0.1 |██████▇███| 1.0]\n",
    ],
)
def test_bars_and_charts_are_not_mask_pictures(text):
    report = check(text)
    assert report.reading.masks == [] and report.diagnostics == []


def test_thinking_rounds_without_input_and_output_are_not_generation_rounds():
    text = "第 1 轮思考：看懂了词。\n第 2 轮思考：看懂了语法。\n第 3 轮思考：看懂了意图。\n"
    assert check(text).reading.rounds == []


# -- promised figures --------------------------------------------------------------------------

WALK = (
    "[ “甲”, “乙” ]\n\n- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n  100% 给自己\n"
    "- 第 2 步：处理“乙”\n  Q2 匹配到 K1、K2\n  假设 40% 给“甲”，60% 给自己。\n  K1、V1 使用第 1 步计算后缓存的值\n"
)


@pytest.mark.parametrize(
    "after",
    [
        "\n![[assets/steps.svg|680]]\n",
        "\n![steps](steps.png)\n",
        "\n```mermaid\ngraph LR\n  a --> b\n```\n",
        '\n<img src="steps.png">\n',
    ],
)
def test_a_promise_followed_by_a_figure_is_kept(after):
    assert check(WALK + "\n运算过程如下图：\n" + after).diagnostics == []


def test_a_promise_with_no_figure_is_one_warning():
    report = check(WALK + "  对应的运算过程如下图\n")
    assert [(d.line, d.code, d.severity) for d in report.diagnostics] == [(10, "VK436", "warning")]
    assert "fix --adopt" in report.diagnostics[0].message
    english = check("Some text. The result is shown in the figure below.\n\n## Next\n")
    assert [d.code for d in english.diagnostics] == ["VK436"]
    assert "fix --adopt" not in english.diagnostics[0].message  # no walkthrough to draw it from


# -- fix --adopt: the block, the embed, the figure ---------------------------------------------


def vault(tmp_path: Path, text: str, name: str = "decode notes.md") -> Path:
    root = tmp_path / "v"
    root.mkdir()
    (root / name).write_text(text, encoding="utf-8")
    return root


def test_fix_without_adopt_writes_nothing(tmp_path, capsys):
    root = vault(tmp_path, WALK + "  对应的运算过程如下图\n")
    before = (root / "decode notes.md").read_bytes()
    assert main(["fix", str(root)]) == 0
    assert (root / "decode notes.md").read_bytes() == before and not (root / "assets").exists()
    assert "VK436" in capsys.readouterr().out


def test_fix_adopt_writes_the_block_and_embed_and_draws_the_figure(tmp_path, capsys):
    root = vault(tmp_path, WALK + "  对应的运算过程如下图\n\n## 小结\n\n完。\n")
    assert main(["fix", "--adopt", str(root)]) == 0
    text = (root / "decode notes.md").read_text(encoding="utf-8")
    block = re.search(r"```vaultkit\n(.*?)```", text, re.S).group(1)
    assert block.splitlines() == [
        "id: decode-notes-steps",
        "kind: kv-cache",
        "tokens: [甲, 乙]",
        "weights:  # as the walkthrough states them, in percent; null where it gives none",
        "  - {甲: 100%}",
        "  - {甲: 40%, 乙: 60%}",
        "illustrative: true",
        "figure: assets/decode-notes-steps.svg",
    ]
    assert (
        text.index("如下图")
        < text.index("```vaultkit")
        < text.index("![[assets/decode-notes-steps.svg|680]]")
        < text.index("## 小结")
    )
    svg = (root / "assets" / "decode-notes-steps.svg").read_text(encoding="utf-8")
    assert is_generated(svg) and "示意" in svg and "40%" in svg and "60%" in svg
    capsys.readouterr()
    assert main(["check", str(root)]) == 0
    assert "0 errors, 0 warnings" in capsys.readouterr().out
    files = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert main(["fix", "--adopt", str(root)]) == 0  # adopted once: nothing more
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == files


def test_adopt_refuses_a_walkthrough_with_errors(tmp_path, capsys):
    root = vault(tmp_path, WALK.replace("60%", "50%") + "  对应的运算过程如下图\n")
    before = (root / "decode notes.md").read_bytes()
    main(["fix", "--adopt", str(root)])
    assert (root / "decode notes.md").read_bytes() == before
    assert "not adopted" in capsys.readouterr().err


def test_adopt_uses_the_attachment_folder_of_obsidian(tmp_path):
    root = vault(tmp_path, WALK + "  对应的运算过程如下图\n")
    (root / ".obsidian").mkdir()
    (root / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "media"}', encoding="utf-8")
    main(["fix", "--adopt", str(root)])
    assert (root / "media" / "decode-notes-steps.svg").is_file()
    assert "![[media/decode-notes-steps.svg|680]]" in (root / "decode notes.md").read_text(encoding="utf-8")


# -- the kv-cache block with stated weights ----------------------------------------------------


def block(extra: str) -> str:
    return f"# t\n\n```vaultkit\nid: s\nkind: kv-cache\ntokens: [甲, 乙, 丙]\n{extra}```\n"


@pytest.mark.parametrize(
    "extra, message",
    [
        ("weights:\n  - {甲: 100%}\n  - {甲: 40%, 乙: 50%}\n  - null\nillustrative: true\n", "sum to 90 %"),
        ("weights:\n  - {甲: 100%}\n  - {甲: 40%, 丙: 60%}\n  - null\nillustrative: true\n", "丙 comes later"),
        ("weights:\n  - {甲: 100%}\n  - null\nillustrative: true\n", "one entry per token"),
        ("weights:\n  - {甲: 100%}\n  - null\n  - null\n", "illustrative: true"),
        ("weights:\n  - {甲: 100%}\n  - null\n  - null\nillustrative: true\nseed: 3\n", "not both"),
        ("weights:\n  - {丁: 100%}\n  - null\n  - null\nillustrative: true\n", "is not one of the tokens"),
        ("weights:\n  - {甲: 2}\n  - null\n  - null\nillustrative: true\n", "30% or as a fraction"),
    ],
)
def test_a_bad_stated_block_is_a_diagnostic_at_its_key(tmp_path, capsys, extra, message):
    root = vault(tmp_path, block(extra))
    assert main(["check", str(root)]) == 1
    out = capsys.readouterr().out
    assert message in out and re.search(r"decode notes\.md:\d+:1: VK11[45]", out)


def test_the_stated_figure_is_deterministic_and_marks_assumed_steps_only(tmp_path):
    extra = (
        "weights:\n  - {甲: 100%}\n  - {甲: 0.25, 乙: 0.75}\n  - {甲/乙: 50%, 丙: 50%}\n"
        "illustrative: true\nfigure: assets/s.svg\n"
    )
    root = vault(tmp_path, block(extra))
    assert main(["fix", str(root)]) == 0
    first = (root / "assets" / "s.svg").read_bytes()
    (root / "assets" / "s.svg").unlink()
    assert main(["fix", str(root)]) == 0
    svg = (root / "assets" / "s.svg").read_bytes()
    assert svg == first
    text = svg.decode()
    assert text.count(">示意<") == 2  # step 1's 100 % on itself is forced, not assumed
    assert "25%" in text and "75%" in text and "50%（合计）" in text
    region = (root / "decode notes.md").read_text(encoding="utf-8")
    assert "| 3 | 丙 | 甲、乙 | 丙 | 甲/乙 50%，丙 50%（示意） |" in region


def test_a_seeded_kv_cache_block_draws_the_computed_figure_as_before(tmp_path):
    root = vault(
        tmp_path,
        "# t\n\n```vaultkit\nid: kv\nkind: kv-cache\ntokens: [甲, 乙]\nseed: 3\n"
        "d_model: 4\nd_head: 2\nfigure: assets/kv.svg\n```\n",
    )
    assert main(["fix", str(root)]) == 0
    svg = (root / "assets" / "kv.svg").read_text(encoding="utf-8")
    assert "完整因果注意力" in svg and "示意" not in svg


def test_check_explain_lists_the_walkthrough(tmp_path, capsys):
    shutil.copy(FIXTURES / "right-zh.md", tmp_path / "n.md")
    assert main(["check", "--explain", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "n.md:5: walkthrough ok: 4 steps over 小明、喜欢、喝、咖啡, 16 statements read, 0 wrong" in out
    assert (
        out[2]
        == "0 arithmetic claims read, 0 skipped; 0 drawings and figures read; 2 walkthrough parts read (21 statements, 0 skipped)"
    )
    assert "21 claims" in out[-1]


def test_a_fill_in_the_blank_picture_is_not_a_causal_mask():
    text = "我想█苹果手机\n我█买苹果手机\n█想买苹果手机\n"
    assert check(text).reading.masks == [] and check(text).diagnostics == []


def test_a_row_that_shows_a_token_after_a_mask_is_found():
    text = "今███\n今█天█\n今天天█\n今天天气\n"
    found = check(text).diagnostics
    assert [(d.line, d.code, d.computed) for d in found] == [(2, "VK434", "今天██")]
    assert "shows 天, a future position" in found[0].message


def test_steps_written_as_paragraphs_read_their_statements_in_the_next_paragraphs():
    text = (
        "[ “甲”, “乙”, “丙” ]\n\n第 1 步：处理“甲”。\n\nQ1 只能匹配到 K1。\n\n第 2 步：处理“乙”。\n\n"
        "Q2 匹配到 K1、K2。\n\n第 3 步：处理“丙”。\n\nQ3 匹配到 K1、K2、K3、K4。\n\n## 小结\n\nQ9 匹配到 K1。\n"
    )
    found = check(text).diagnostics
    assert [(d.line, d.code) for d in found] == [(13, "VK430")]


def test_the_query_named_by_the_step_and_the_q_written_must_agree():
    text = "[ “甲”, “乙” ]\n\n- 第 1 步：处理“甲”\n  Q1 匹配到 K1\n- 第 2 步：处理“乙”\n  Q3 匹配到 K1、K2、K3\n"
    found = check(text).diagnostics
    assert [(d.line, d.code, d.written, d.computed) for d in found] == [(6, "VK430", "Q3", "Q2")]
