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
        ("8 GB = 8 Gb", ["VK301"]),  # bytes and bits: no ladder of prefixes, though one GB is 8 Gb
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


def test_a_clock_written_above_gives_the_scale_of_its_bare_input():
    # jiajun-c/AI-infra-LearningNote 7911cac1 09-profile/cuda/theory.md:34 (A100 FP32 peak: 108 SMs,
    # 64 cores each, the clock in GHz on the line above, 2 FLOP a cycle)
    note = "- 时钟：1.41 GHz\n- 峰值：108 × 64 × 1.41 × 2 = **19.5 TFLOPS**\n"
    codes, entries = _read(note)
    assert codes == [] and entries[0][1] == "ok" and "GHz" in entries[0][2]


def test_a_clock_written_above_does_not_hide_a_missing_factor():
    # the same file, line 35: the tensor-core peak written without its factor 2 (a real mistake)
    note = "- 时钟：1.41 GHz\n- 峰值：108 × 4 × 1.41 × 256 = **312 TFLOPS**\n"
    report = check_markdown(note, "n.md")
    assert [d.code for d in report.diagnostics] == ["VK301"]
    assert "computed 155.9347 TFLOPS" in report.diagnostics[0].message  # shown with the clock in GHz


def test_without_the_clock_a_slip_of_a_prefix_is_still_an_error():
    # the 1.41 GHz not written near: a result 10⁹ times its inputs holds under no written reading
    assert _read("峰值：108 × 64 × 1.41 × 2 = 19.5 TFLOPS")[0] == ["VK301"]


def test_a_rate_from_bytes_a_cycle_leaves_its_per_second_as_a_label():
    # YKTian-x2b/AmpereArchViaMicroBenchMark 6f45ffd8 SMem_Bandwidth_Latency/README.md:19 (a clock in
    # MHz times 32 banks of 4 bytes times 40 SMs, halved: GB/s)
    codes, entries = _read("理论带宽 1590M * 32 * 4B * 40 / 2 = 4070GB/s")
    assert codes == [] and entries[0][1] == "ok" and "per second" in entries[0][2]
    assert _read("理论带宽 1590M * 32 * 4B * 40 / 2 = 5070GB/s")[0] == ["VK301"]  # wrong under that reading too


@pytest.mark.parametrize(
    ("note", "codes", "verdict"),
    [
        # jiajun-c/AI-infra-LearningNote 7911cac1 01-cuda/sm/sm_interval/detailed_analysis.md:145
        # (a 512 × 1024 matrix of fp32 written as 2 MB, the 4 bytes an element stated elsewhere)
        ("#### 小矩阵 (512 × 1024 = 2 MB)", ["VK304"], "warning"),
        ("元素为 fp32\n\n#### 小矩阵 (512 × 1024 = 2 MB)", [], "ok"),
        ("每个元素 4 bytes\n#### 小矩阵 (512 × 1024 = 2 MB)", [], "ok"),
        ("元素为 fp16\n\n#### 小矩阵 (512 × 1024 = 2 MB)", ["VK304"], "warning"),  # 2 bytes: still 4 needed
        ("元素为 fp32\n\n#### 小矩阵 (512 × 1024 = 3 MB)", ["VK301"], "error"),  # no element size makes it
        ("the tensor is `2 * 16384 * 4096 / 2**30 = 0.5GiB`", ["VK304"], "warning"),
        ("双精度矩阵 1024 × 1024 = 8 MB", ["VK304"], "warning"),  # 8 bytes an element (fp64)
        ("float64 元素\n双精度矩阵 1024 × 1024 = 8 MB", [], "ok"),
        ("双精度矩阵 1024 × 1024 = 16 MB", ["VK301"], "error"),  # no element is 16 bytes here
    ],
)
def test_bytes_of_an_element_stated_near_or_not(note, codes, verdict):
    found, entries = _read(note)
    assert found == codes and entries[-1][1] == verdict


@pytest.mark.parametrize(
    "line",
    [
        "2 × 32 × 32 × 128 × 2 = 262,144 bytes",  # half the product: no element size is half a byte here
        "8 * 80GB = 560GB",  # the inputs carry the result's unit: self-contained
        "fp32: 2 × 32 × 32 × 128 × 2 = 262,144 bytes",
        "(286 + 536) × 32 = 26.3 GFLOPs",  # a slip of 10⁶ (the inputs in MFLOPs, not written near)
    ],
)
def test_a_self_contained_wrong_claim_stays_an_error(line):
    assert _read(line)[0] == ["VK301"]


def test_the_unit_of_the_inputs_written_a_few_lines_above():
    # zsc/llm_edge_inference 5cc9db22 chapter2.md:487 (per-layer MFLOPs and MB listed a few lines
    # above a total over 32 layers written in GFLOPs and GB; `$` between number and unit)
    note = "\n".join(
        [
            "- 投影：$2d^2 = 67$ MFLOPs",
            "- 计算：$16d^2 = 536$ MFLOPs",
            "- 读取：$8d^2 \\times 2 = 268$ MB",
            "- 强度：$\\frac{536}{268} = 2.0$ FLOP/Byte",
            "",
            "**合计**：",
            "- 总计算：$(286 + 536) \\times 32 = 26.3$ GFLOPs",
            "- 总访存：$(169.2 + 268) \\times 32 = 14$ GB",
            "- 总访存：$(169.2 + 268) \\times 32 = 19$ GB",
        ]
    )
    codes, entries = _read(note)
    assert [(line, verdict) for line, verdict, _ in entries if line >= 7] == [(7, "ok"), (8, "ok"), (9, "error")]
    assert "MFLOPs" in entries[-3][2] and codes == ["VK301"]


def test_kb_is_kilobytes_or_kilobits_and_not_read():
    # Pan-Binghong/daily-learning 9548279c content/ai/learning-vll-(0.7.2)-with-cursor.md:136 (a KV block of
    # 28 kb, meant as KiB, times 61 blocks written in MB)
    codes, entries = _read("每个 block 28kb * 61 ≈ 1.67MB")
    assert codes == [] and entries[0][1] == "skipped"
    assert _read("每个 block 28KB * 61 ≈ 1.67MB")[0] == []
    assert _read("每个 block 28Kb * 61 ≈ 1.67MB")[0] == ["VK301"]  # a capital K: kilobits, wrong


def test_the_unit_written_for_the_same_number_above():
    # mathiassamuelson/inference-engineering-training f306d45f phase-1-foundation/week-01-benchmarks/
    # week-01-qa-summary.md:311 (a base of 6.47 GB and 0.2606 MB a token written in the formula
    # eight lines above; the scenario repeats the bare numbers, the result in GB as powers of two)
    formula = "Peak = 6.47 GB + (0.2606 MB × Seq) × Batch"
    filler = ["", "### Scenarios", "", "**One**", "- 1,200 requests", "- 50 tokens each"]
    codes, entries = _read("\n".join([formula, *filler, "- Memory = 6.47 + (0.2606 × 50) × 1,200 = 21.7 GB"]))
    assert codes == [] and entries[-1][1] == "ok" and "6.47 GB, 0.2606 MB" in entries[-1][2]
    codes, _ = _read("\n".join([formula, *filler, "- Memory = 6.47 + (0.2606 × 50) × 1,200 = 31.7 GB"]))
    assert codes == ["VK301"]  # read only to pass: wrong in those units too, it is judged as before
    assert _read("\n".join(filler + ["- Memory = 6.47 + (0.2606 × 50) × 1,200 = 21.7 GB"]))[0] == ["VK301"]
