"""Each class of claim people write in notes nobody here wrote, from sentences written for
these tests: the wrong version is an error on the line of its value, the right one is silent.
Where a reading is not certain the claim is skipped, never flagged.
"""

from __future__ import annotations

import pytest

from vaultkit.checks.claims import check_markdown


def _errors(text: str) -> list[int]:
    return [d.line for d in check_markdown(text, "n.md").diagnostics if d.code == "VK301"]


def _silent(text: str) -> bool:
    return check_markdown(text, "n.md").diagnostics == []


def _read(text: str) -> bool:
    report = check_markdown(text, "n.md")
    return report.verified >= 1 and report.diagnostics == []


# (right, wrong): the wrong one differs only in its written value
PAIRS = {
    "unit only on the result": [
        ("显存 1.5 × 16 = 24 GB", "显存 1.5 × 16 = 32 GB"),
        ("上一行是 6 KB，所以 6 * 64 = 384KB", "上一行是 6 KB，所以 6 * 64 = 512KB"),
        (
            "one token: `4 * 2 * 8 * 2048 / 10**6 = 0.131MB` in bf16",
            "one token: `4 * 2 * 8 * 2048 / 10**6 = 1.31MB` in bf16",
        ),
        ("总计 20 + 40 + 12 = 72GB", "总计 20 + 40 + 12 = 82GB"),
        # three times, not four: four times a count of elements is a size at 4 bytes each (a warning)
        ("the tensor is `2 * 16384 * 4096 / 2**30 = 0.125GiB`", "the tensor is `2 * 16384 * 4096 / 2**30 = 0.375GiB`"),
        ("a batch needs `0.131*2048 = ~268MB`", "a batch needs `0.131*2048 = ~134MB`"),
        ("tflops = 4 * 2 * 1024 * 8 / (4 * 1e3) = 16.384 TFLOP", "tflops = 4 * 2 * 1024 * 8 / (4 * 1e3) = 16384 TFLOP"),
        ("k=2 total = 134*2+1 = 269M", "k=2 total = 134*2+1 = 296M"),
        ("`2 * 2 * 32 * 1024 / 10**6 = 0.131MB = 131KB`", "`2 * 2 * 32 * 1024 / 10**6 = 0.131MB = 13KB`"),
        ("- with checkpointing: `5 + 9 + 12 = 26GiB`", "- with checkpointing: `5 + 9 + 12 = 29GiB`"),
    ],
    "a remark after the result": [
        ("0.5M + 200M = 200.5M → 2x dense", "0.5M + 200M = 210.5M → 2x dense"),
        ("0.5M + 134M = 134.5M ≈ 1x baseline ✅", "0.5M + 134M = 144.5M ≈ 1x baseline ✅"),
        ("稀疏: 0.5M + 268M\n= 268.5M\n→ 2x Dense", "稀疏: 0.5M + 268M\n= 278.5M\n→ 2x Dense"),
        ("80 GB × 8 = 640 GB ≈ 8 张卡", "80 GB × 8 = 540 GB ≈ 8 张卡"),
        ("合计 28 + 56 = 84GB + 激活内存", "合计 28 + 56 = 94GB + 激活内存"),
        (
            "`hidden = 2 * 14 * 1024 / 2**10 = 28KiB` (`14` came from the table)",
            "`hidden = 2 * 14 * 1024 / 2**10 = 82KiB` (`14` came from the table)",
        ),
    ],
    "rounded inputs": [
        ("All experts: 64 × 134M = 8,589,934,592 ✅", "All experts: 64 × 134M = 8,689,934,592 ✅"),
        ("scale 0.0294 × 4096 = 120.2", "scale 0.0294 × 4096 = 125.2"),
        ("Dense: 65,536 × 268M = 17,563,648M", "Dense: 65,536 × 268M = 17,563,713M"),
        ("buffer 1024 × 1024 × 2 = 2,097,152 bytes", "buffer 1024 × 1024 × 2 = 2,097,150 bytes"),
        ("sum (0.25 + 0.04) × 4\n  = 1.16 ≈ 1.16", "sum (0.25 + 0.04) × 4\n  = 1.16 ≈ 1.24"),
    ],
    "code spans and formulas with numbers put in": [
        ("- comms = `3 * 2 * 64 / 40` = 9.6 sec", "- comms = `3 * 2 * 64 / 40` = 96 sec"),
        ("- A100 @ 300GBps: `24/300` = 0.08 secs", "- A100 @ 300GBps: `24/300` = 0.8 secs"),
        ("naive: `P / 50GBps` = `2GiB / 50GBps` = 42.9ms", "naive: `P / 50GBps` = `2GiB / 50GBps` = 4.29ms"),
        (
            "ring: `2*(n-1)/n * P` = `2*(16-1)/16 * 2GiB` = 3.75GiB",
            "ring: `2*(n-1)/n * P` = `2*(16-1)/16 * 2GiB` = 3.25GiB",
        ),
        ("an SM ratio of `132/128` = **1.031**:", "an SM ratio of `132/128` = **1.131**:"),
        ("the delta is `9.5-7.25=2.25` GiB", "the delta is `9.5-7.25=2.75` GiB"),
        ("so `4*4=16` cpu-cores per node", "so `4*4=18` cpu-cores per node"),
    ],
    "Python, LaTeX and scientific notation": [
        ("$2^{10} \\times 2^{10} = 1,048,576$", "$2^{10} \\times 2^{10} = 1,000,576$"),
        (
            "吞吐 $10^{13} / 6 \\times 10^{6} \\approx 1.67 \\times 10^{6}$ tokens/s",
            "吞吐 $10^{13} / 6 \\times 10^{6} \\approx 1.67 \\times 10^{7}$ tokens/s",
        ),
        ("2**30 = 1,073,741,824", "2**30 = 1,073,741,000,824"),
        ("1.5×10⁹ / 3 = 5×10⁸", "1.5×10⁹ / 3 = 5×10⁹"),
        ("1e9 / 1e6 = 1000", "1e9 / 1e6 = 100"),
        ("    'mask': '4096²×2B = 32MB (一层)',", "    'mask': '4096²×2B = 64MB (一层)',"),
        ("    'attn': '1024² × 4096 ≈ 4.3B',", "    'attn': '1024² × 4096 ≈ 43B',"),
        ("math: `sqrt(1/(4096*3)) = 0.009` here", "math: `sqrt(1/(4096*3)) = 0.09` here"),
        ("$\\frac{1}{2} = 0.5$", "$\\frac{1}{2} = 0.7$"),
        ("$\\sqrt{64} = 8$", "$\\sqrt{64} = 6$"),
        ("`x = 2 ** 10` = 1024", "`x = 2 ** 10` = 1000"),
        ("$2^{30} = 1,073,741,824$", "$2^{30} = 1,073,741,828$"),
    ],
    "time, rate and FLOP": [
        ("'例子': '10TFLOP / (20TFLOP/s × 0.5) = 1s'", "'例子': '10TFLOP / (20TFLOP/s × 0.5) = 1000s'"),
        ("计算: 8.8T FLOPs / (312 TFLOPS × 8) ≈ 3.5 ms", "计算: 8.8T FLOPs / (312 TFLOPS × 8) ≈ 4 秒"),
        ("总量 0.5×10¹⁴ FLOPs = 50 TFLOPs", "总量 0.5×10¹⁴ FLOPs = 50 GFLOPs"),
        ("    'Linear': 'O(100K×512²) = 26B → 可行',", "    'Linear': 'O(100K×512²) = 26M → 可行',"),
        ("1M样本 × 10epoch × 1GFLOP = 10PFLOP", "1M样本 × 10epoch × 1GFLOP = 10TFLOP"),
        ("生成 100 tokens/s × 3600 s = 360K tokens", "生成 100 tokens/s × 3600 s = 3.6K tokens"),
        ("传输 1GB / 50 GB/s = 20ms", "传输 1GB / 50 GB/s = 2ms"),
        ("16 GB / (100 GB/s × 8) ≈ 20ms", "16 GB / (100 GB/s × 8) ≈ 20s"),
        ("每秒 1000 tokens × 60 = 60K tokens/min", "每秒 1000 tokens × 60 = 6K tokens/min"),
        ("5 min * 60 = 300s", "5 min * 60 = 3000s"),
        ("2 hours × 3600 = 7200 s", "2 hours × 60 = 120 s"),
        ("7200 s / 3600 = 2 h", "7200 s / 3600 = 20 h"),
        ("Adam: 4 + 4 + 4 = 12 bytes/param", "Adam: 4 + 4 + 4 = 16 bytes/param"),
        ("16 bytes/param × 7B = 112 GB", "16 bytes/param × 7B = 12 GB"),
        ("3.2 kW × 24 h = 76.8 kWh", "3.2 kW × 24 h = 7.68 kWh"),
    ],
    "bits and bytes": [
        ("带宽 8 × 100 Gb/s = 100 GB/s", "带宽 8 × 100 Gb/s = 800 GB/s"),
        ("8 × 100 / 100 = 8 Gb/s = 1000 MB/s", "8 × 100 / 100 = 8 GB/s = 1000 MB/s"),
        ("each NIC 400 Gbps = 50 GB/s", "each NIC 400 Gbps = 400 GB/s"),
        (
            "per GPU 400 Gbps / 8 = 50 GB/s",
            "per GPU 400 Gbps / 8 = 400 GB/s",
        ),  # the /8 is the bits-to-bytes the units carry
        ("1.6Tbps / 8 = 200GB/s", "1.6Tbps / 8 = 2000GB/s"),
        ("1 Byte = 8 bits", "1 Byte = 1 bits"),
        ("`8x200=1600Gbps` in total", "`8x200=1800Gbps` in total"),
        ("4 × 200 Gb = 100 GB", "4 × 200 Gb = 800 GB"),
    ],
    "division chains": [
        ("68,719,476,736 / 1024 / 1024 / 1024 = 64G", "68,719,476,736 / 1024 / 1024 / 1024 / 1024 = 64G"),
        ("fp32 = 1000 * 1000 * 4 / 1024 / 1024 ≈ 3.8 MB", "fp32 = 1000 * 1000 * 4 / 1024 / 1024 / 1024 ≈ 3.8 MB"),
    ],
}

CASES = [(kind, right, wrong) for kind, pairs in PAIRS.items() for right, wrong in pairs]


@pytest.mark.parametrize("kind, right, wrong", CASES)
def test_right_is_read_and_silent(kind, right, wrong):
    assert _read(right), right


@pytest.mark.parametrize("kind, right, wrong", CASES)
def test_wrong_is_an_error_on_the_line_of_its_value(kind, right, wrong):
    lines = wrong.split("\n")
    right_lines = right.split("\n")
    changed = next(i for i, (a, b) in enumerate(zip(lines, right_lines)) if a != b) + 1
    assert _errors(wrong) == [changed], wrong


# never flagged, whatever the numbers: ranges, remarks, names, formulas, steps
SILENT = [
    "信号 -1 ~ -10 dBm",
    "显存 5~8 GB",
    "显存 = 2 × 3 = 5~8 GB",
    "显存 = 2 × 3 = 5 ~ 8 GB",
    "`Block 7` $\\times$ 16 = 112",
    "`Block 7` $\\times$ 16 = 100",
    "flop_qkv = 3 × (d_model × d_model) = 3 × 768 × 768",
    "flop_qkv = 3 × (d × d) = 3 × 768 × 768",
    "8 个 Expert × 7B = 80B",
    "Mixtral 8×7B → 120 tokens/s (vs 40 tokens/s)",
    "激活内存 48GB（无优化）→ 12GB（梯度检查点）",
    "k=1→2: +2% 性能, 2x 成本",
    "0.5M + 100M = 100.5M → 3x dense",
    "1 机柜 = 32 GPU",
    "18 links at 53.125GBps = 956.25GBps against 900GBps",
    "4MW × 24h = 96 MWh ≈ 3 天",
    "hash % 4 = 3",
    "worker-0 slots=8",
    "10 TFLOP = 10^13 FLOP/s",
    "$\\frac{a}{2} = 3$",
    "this is **2** and **3** = 5",
    "10B × 2 = 20Gb",
    "总参数 = 8 × 7B\n      ≈ 56B\n      ≈ 112 GB (FP16)",
    "GPT-3: 96 层 × 12288 维 ≈ 175B 参数",
    "1 epoch = 1M samples / 32 batch = 31,250 steps",
    "1 柜 = 8 × 4 GPU",
    "5 min * 60 = 300s",
    "4 (dp) x 2 (tp) x 2 (pp) = 16 GPUs",
]


@pytest.mark.parametrize("text", SILENT)
def test_uncertain_readings_are_never_flagged(text):
    assert _silent(text), text
