"""`vaultkit check --explain` accounts for every arithmetic line: claims read, spans skipped
with the reason, and the rows of text matrices, with totals equal to the summary's."""

from __future__ import annotations

import json
import re

from vaultkit.checks.claims import check_markdown, claim_like
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
