"""`vaultkit check --explain` accounts for every arithmetic line: claims read, spans skipped
with the reason, and the rows of text matrices, with totals equal to the summary's."""

from __future__ import annotations

import json
import re

import pytest

from vaultkit.checks.claims import check_markdown, claim_like
from vaultkit.checks.claims.prose import (
    ASCII_STEP,
    BRACKETED,
    COMMENTED,
    COMPARED,
    IN_WORDS,
    NAMED,
    SIGN_NOT_READ,
    TABLE_NUMBERS,
    TABLE_ROW,
    TOTAL_STATED,
)
from vaultkit.commands.cli import main

NOTE = """# 两个词的注意力

每个向量 2 维，一共 2 × 2 = 4 个数。

```
Q：
  甲  [ 1  0 ]
  乙  [ 0  1 ]

K：
  甲  [ 1  0 ]
  乙  [ 0  1 ]

分数 = Q × Kᵀ
        甲   乙
  甲  [ 1    0 ]
  乙  [ 0    1 ]

权重 = Softmax(分数 / √d_k)，每行加起来 = 1：
        甲    乙
  甲  [ 0.67  0.33 ]
  乙  [ 0.33  0.67 ]
```

显存 2 × 3 = 7 GB。
- comms = `3 * 2 * 64 / 40` = 9.6 sec
激活内存 48GB（无优化）→ 12GB（检查点）
"""


def test_explain_totals_equal_the_summary_with_text_matrix_rows(tmp_path, capsys):
    (tmp_path / "n.md").write_text(NOTE, encoding="utf-8")
    assert main(["check", "--explain", "--format", "json", str(tmp_path)]) == 1
    captured = capsys.readouterr()
    summary = json.loads(captured.out)["summary"]
    lines = captured.err.splitlines()
    assert "n.md:7: matrix rows: 6 read, 0 skipped  [text matrices of a worked example]" in lines
    read, skipped = map(int, re.match(r"(\d+) arithmetic claims read, (\d+) skipped", lines[-1]).groups())
    assert (read, skipped) == (summary["claims"], summary["skipped_claims"]) == (9, 1)
    assert [int(line.split(":")[1]) for line in lines[:-1]] == [3, 7, 25, 26, 27]  # in line order


def test_every_line_with_a_sign_between_numbers_is_listed():
    report = check_markdown(NOTE, "n.md")
    listed = {entry.line for entry in report.explained}
    lines = [n for n, line in enumerate(NOTE.split("\n"), 1) if claim_like(line)]
    assert lines == [3, 25, 26, 27] and set(lines) <= listed
    [step] = [e for e in report.explained if e.line == 27]
    assert step.verdict == "skipped" and "step" in step.note


def test_a_line_only_continued_below_is_listed_where_its_sign_is():
    text = "总量 = 2 × 80 × 64 × seq_len × 2 bytes\n  = 2,621,440 bytes/token\n"
    [entry] = check_markdown(text, "n.md").explained
    assert (entry.line, entry.verdict) == (2, "skipped")


@pytest.mark.parametrize(
    ("line", "why"),
    [
        # CurryTang/MLSYS_tutorial 635f4f7f notes/Mlsys/MLSYS13 Quantization and precision.md:1461
        # (a speedup cell derived from two time cells of its row)
        ("| 1 | 4096×4096 | 4 | 0.052 ms | 0.117 ms | 0.052 ms | **2.25×** |", TABLE_ROW),
        # the same repository, notes/Mlsys/MLSYS10 parallelism.md:164 (a shape's size after `=`)
        ("> - each device holds `bf16[512, 8192]` = 8.4 MB, 33.6 MB in all", SIGN_NOT_READ),
        # a sum stated in words (the row of chberclaz/MyPT dc62a0ca TOKENIZATION_COMPARISON.md:15)
        ("the parts 19.3M + 19.3M + 10.7M sum to 49.3M here", IN_WORDS),
        # a total under parts not read as one a line (FJiangArthur/vllm c682b842
        # learning_materials/phase2_concepts/paged_attention_part1_theory.md:365)
        ("- Total: 22 GB", TOTAL_STATED),
        # a value and its arithmetic in brackets (chberclaz/MyPT dc62a0ca docs/training/LARGE_DATASET_TRAINING.md:23)
        ("- int64 tokens take ~4 GB (500M × 8 bytes)", BRACKETED),
        # the result in a code comment (zhangjunmengyang/morpheus-vault 79a76cdb AI/3-LLM/Infra/GPU 显存计算指南.md:91)
        ("adam = 7e9 * 2 * 2 / 1024**3  # 26.0 GB", COMMENTED),
        # an ASCII arrow to the result (bigscience-workshop/bigscience 9e64edec train/tr11-176B-ml/chronicles-prequel.md:76)
        ("- per gpu: 1_614_870_800 / 4 (TP=4) => 403_717_700 params", ASCII_STEP),
        # a named result computed on the line above (kallisaysra1/ai-infra-learning 9a44017e
        # specializations/performance-engineering/modules/mod-001-gpu-fundamentals/exercises/
        # exercise-06-tensor-core-throughput/README.md:162)
        ("    realistic = ~265 TFLOPS", NAMED),
        # a percent of another number (Alanma23/roofline-hack 5707cefc SIMULATION_VS_ACTUAL_ANALYSIS.md:32)
        ("- half precision reaches ~165 GB/s (57% of peak 287 GB/s)", COMPARED),
        # a row of numbers, two of them derived (wsm000/mlsys-learning-notes 3b366bdf
        # task2_memory_wall_two_phases_learning_notes.md:275)
        (
            "| GPU | peak | bandwidth | ridge | half |\n|---|---|---|---|---|\n| V100 | 125 TFLOP/s | 0.90 TB/s | 138.9 | 69.4 |",
            TABLE_NUMBERS,
        ),
        # a row of a LaTeX table (zfflxx/kimi_k2 943c6761 mla_su_blog_1.md:57)
        ("\\text{MLA} & 894M & 2.721 & 576 \\\\", TABLE_NUMBERS),
    ],
)
def test_a_claim_like_line_no_reading_reached_is_listed(line, why):
    report = check_markdown(line + "\n", "n.md")
    last = line.count("\n") + 1
    assert [(e.line, e.verdict, e.note) for e in report.explained] == [(last, "skipped", why)]
    assert report.skipped == 1 and report.diagnostics == []


@pytest.mark.parametrize(
    "line",
    [
        "server 10.1.1.23:80 weight=50 max_fails=3;",  # options
        "T-24h → notify → T-2h → check → T+10",  # a flow's arrows
        "| GPU | memory |\n|---|---|\n| A100 | 80 GB |",  # a row of one number
        "accuracy rose to 85% this week",  # a percent alone
        "a 2-3x speedup over 4 GPUs",  # a multiple alone, not of a value
        "warps_per_block = 8",  # a setting: a bare whole number after a name
        "def run(cmd, timeout: int = 30, dry_run: bool = False):",  # a default value
        "10.1.1.2:995 -> 10.1.1.3:36008",  # addresses, no arithmetic before the arrow
        "see [GLM-5.2](https://example.org/item/5/67958980)",  # a link target
    ],
)
def test_lines_that_are_no_claims_are_not_listed(line):
    assert check_markdown(line + "\n", "n.md").explained == []


def test_a_boxed_result_is_read():
    # ttsugriy/distributed-training-book 31ba8245 docs/collectives/13-collective-cost-model.md:629
    line = "    $$T_{\\text{TP}} = 40 \\times 4 \\times 14.9 = \\boxed{2,384 \\text{ ms}}$$"
    assert [e.verdict for e in check_markdown(line, "n.md").explained] == ["ok"]
    wrong = line.replace("2,384", "2,584")
    assert [d.code for d in check_markdown(wrong, "n.md").diagnostics] == ["VK301"]
