"""A table cell derived from others in its row is a claim when the table's rows say how: the
relation is taken only when three rows or more hold it exactly and one row at most breaks it
(`vaultkit.checks.claims.tables`). Each table is made up here, with the numbers and the shape of
a real one (cited)."""

from __future__ import annotations

from vaultkit.checks.claims import check_markdown
from vaultkit.checks.claims.prose import TABLE_NUMBERS

# The ridge point of each GPU, peak over bandwidth, then half of it, as in wsm000/mlsys-learning-notes
# 3b366bdf task2_memory_wall_two_phases_learning_notes.md:275-278 (the last row's ridge made wrong here).
RIDGE = """| card | peak | memory | ridge | half ridge |
|---|---|---|---|---|
| V100 | 125 TFLOP/s | 0.90 TB/s | 138.9 | 69.4 |
| A100 | 312 TFLOP/s | 2.04 TB/s | 153.0 | 76.5 |
| H100 | 989 TFLOP/s | 3.35 TB/s | 295.2 | 147.6 |
| B200 | 2250 TFLOP/s | 8.00 TB/s | {ridge} | 140.6 |
"""


def _entries(text: str) -> list[tuple[int, str]]:
    return [(e.line, e.verdict) for e in check_markdown(text, "n.md").explained if "rows hold" in e.note]


def test_rows_that_hold_a_relation_are_read_and_right():
    report = check_markdown(RIDGE.format(ridge="281.2"), "n.md")
    ok = [(e.line, e.text) for e in report.explained if e.verdict == "ok" and "rows hold" in e.note]
    assert (3, "125 TFLOP/s / 0.90 TB/s = 138.9") in ok and (6, "281.2 × 0.5 = 140.6") not in ok
    assert {line for line, _ in ok} == {3, 4, 5, 6} and report.diagnostics == []


# Parameters of six model sizes, as in noooop/zerollama 743cc042 tutorial/advance/0x02/README.md:205-210:
# the total is the active parameters and the output head's (the 14B row's total made wrong here).
SIZES = """| size | head | active | total |
|---|---|---|---|
| 0.5B | 0.14B | 0.43B | 0.58B |
| 1.8B | 0.29B | 1.42B | 1.71B |
| 4B | 0.36B | 3.32B | 3.68B |
| 7B | 0.58B | 6.61B | 7.19B |
| 14B | 0.73B | 12.47B | {total} |
| 72B | 1.16B | 66.16B | 67.32B |
"""


def test_the_row_that_breaks_it_is_wrong():
    assert check_markdown(SIZES.format(total="13.19B"), "n.md").diagnostics == []
    report = check_markdown(SIZES.format(total="14.19B"), "n.md")
    assert [(d.code, d.line, d.written) for d in report.diagnostics] == [("VK301", 7, "14.19B")]
    assert [e.line for e in report.explained if e.verdict == "ok"] == [3, 4, 5, 6, 8]


def test_a_row_that_differs_in_another_column_is_no_finding():
    # bigscience-workshop/bigscience 9e64edec experiments/gpt2-16gb-nodes.md:30-36: pipeline stages
    # are the GPUs over the chunks while DP is 1; the last row has DP 4, so DP is part of it.
    table = """| GPUs | chunks | DP | PP |
|---|---|---|---|
| 16 | 4 | 1 | 4 |
| 64 | 4 | 1 | 16 |
| 128 | 4 | 1 | 32 |
| 256 | 4 | 1 | 64 |
| 256 | 4 | 4 | 16 |
"""
    report = check_markdown(table, "n.md")
    assert report.diagnostics == []
    assert [(e.line, e.note) for e in report.explained if e.line == 7] == [(7, TABLE_NUMBERS)]


def test_one_digit_settings_that_divide_by_chance_are_no_relation():
    # ovshake/mlsys-for-dummies 0ef9ad5a src/part2-parallelism/chapter07-calculator.md:30-34: TP, PP and
    # DP multiply to 64 GPUs, so DP = TP / PP holds while TP is 8, by chance.
    table = """| plan | TP | PP | DP |
|---|---|---|---|
| data only | 1 | 1 | 64 |
| tensor | 8 | 1 | 8 |
| tensor and pipe | 8 | 2 | 4 |
| deeper pipe | 8 | 4 | 2 |
| deepest pipe | 8 | 8 | 1 |
"""
    assert _entries(table) == [] and check_markdown(table, "n.md").diagnostics == []


def test_columns_in_proportion_make_no_sum():
    # stas00/ml-engineering 744d01e1 compute/accelerator/README.md:253-260: fp8 is twice fp16 and
    # bf16 is fp16, so fp8 = fp16 + bf16 in most rows; a row with another fp8 is no wrong sum.
    table = """| card | fp16 | bf16 | fp8 combined |
|---|---|---|---|
| one | 2500 | 2500 | 5000 |
| two | 2250 | 2250 | 4500 |
| three | 1300 | 1300 | 2600 |
| four | 2307 | 2307 | 4614 |
| five | 459 | 1677 | 1677 |
"""
    assert _entries(table) == [] and check_markdown(table, "n.md").diagnostics == []


def test_a_difference_is_taken_only_where_the_header_names_one():
    # kallisaysra1/ai-infra-learning 9a44017e engineer-track/CURRICULUM.md:1631-1635: lectures,
    # exercises and assessment hours of five modules; assessment is no difference of the other two.
    real = [
        "| 12h | 15h | 5h |",
        "| 15h | 18h | 4h |",
        "| 16h | 20h | 4h |",
        "| 20h | 25h | 3h |",
        "| 18h | 20h | 2h |",
    ]
    # the same shape with hours that do differ as the column says (numbers made up), the last one wrong
    made = [
        "| 12h | 25h | 13h |",
        "| 15h | 33h | 18h |",
        "| 10h | 24h | 14h |",
        "| 20h | 46h | 26h |",
        "| 12h | 25h | 15h |",
    ]
    table = "| lectures | exercises | {name} |\n|---|---|---|\n{rows}\n"
    for name in ("assessment", "remaining"):
        assert _entries(table.format(name=name, rows="\n".join(real))) == []
    assert _entries(table.format(name="assessment", rows="\n".join(made))) == []
    report = check_markdown(table.format(name="remaining", rows="\n".join(made)), "n.md")
    assert [(d.code, d.line) for d in report.diagnostics] == [("VK301", 7)]


def test_a_total_row_is_read_as_the_sum_of_the_rows_above_and_a_wrong_one_is_no_finding():
    # the shape of prskid1000/micro-Omni 1749f81f study/02-neural-networks-basics.md:409-417: the
    # parameters of five parts and a bold total row (numbers made up here to add up)
    table = """| part | parameters |
|---|---|
| thinker | 20.32M |
| audio | 2.05M |
| vision | 0.91M |
| talker | 2.24M |
| codec | 0.05M |
| **Total** | **{total}** |
"""
    read = check_markdown(table.format(total="25.57M"), "n.md")
    assert [(e.line, e.verdict) for e in read.explained if "sum of the rows" in e.note] == [(8, "ok")]
    # a total that is no sum may be of something else (a mean, the largest part): listed, not flagged
    other = check_markdown(table.format(total="20.32M"), "n.md")
    assert other.diagnostics == [] and [e.verdict for e in other.explained if e.line == 8] == ["skipped"]
