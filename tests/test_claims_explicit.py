"""An error only where the claim is self-contained and no fair reading holds (issue 39, precision).

Each case is a fixture line in our own words with the numbers and shape of a real line, cited
(repository, commit, path:line) where it was seen: a ladder of units, a change from one value to
another, and the guards that a wrong claim standing on its own stays an error."""

from __future__ import annotations

import pytest

from vaultkit.checks.claims import STEP_CHANGE, check_markdown


def _read(text: str) -> tuple[list[str], list[tuple[int, str, str]]]:
    report = check_markdown(text, "n.md")
    assert len(report.explained) == report.verified + report.skipped
    return [d.code for d in report.diagnostics], [(e.line, e.verdict, e.note) for e in report.explained]


def test_a_ladder_of_units_steps_by_the_factor_each_link_writes():
    # jiajun-c/AI-infra-LearningNote 7911cac1 09-profile/cuda/theory.md:7 (PFlops down to KFlops, 1e3 a step)
    codes, entries = _read("换算：PFlops = 1e3 TFlops = 1e3 GFlops = 1e3 MFlops = 1e3 KFlops")
    assert codes == []
    assert [verdict for _, verdict, _ in entries] == ["ok"] * 3
    assert all("a ladder of units" in note for _, _, note in entries)


@pytest.mark.parametrize(
    ("line", "codes"),
    [
        ("1 GB = 1000 MB", []),
        ("1 TB = 1000 MB", ["VK301"]),  # one value each side, and the conversion holds under no reading
        ("1e3 GB = 1e3 KB", ["VK301"]),  # a link of a ladder, but one GB is not 1e3 KB either
        ("换算：PFlops = 1e3 TFlops = 1e6 GFlops", []),  # as plain conversions: 1e3 TFlops is 1e6 GFlops
        ("换算：PFlops = 1e3 TFlops = 1e4 GFlops", ["VK301"]),  # links of different factors: no ladder
    ],
)
def test_a_plain_unit_conversion_stays_checked(line, codes):
    assert _read(line)[0] == codes


def test_a_change_between_two_single_values_is_no_arithmetic():
    # bzhng-development/summary-of-some-paper-in-cuda a1fbd366
    # docs/llm-systems/2501.15383-Qwen2.5-1MTechnicalReport.md:302 (a run time before → after)
    codes, entries = _read("- 某模型在 H20 上：**12.2 minutes → 109 seconds**。")
    assert codes == []
    assert entries == [(1, "skipped", STEP_CHANGE)]


def test_a_change_that_is_a_conversion_still_passes():
    codes, entries = _read("时长 2 minutes → 120 seconds")
    assert codes == [] and entries[0][1] == "ok"


def test_a_step_after_arithmetic_is_still_checked():
    assert _read("总量 = 2 × 30 minutes → 90 minutes")[0] == ["VK301"]
