"""The unit tables and word readers of the claims checker, pinned entry by entry (issue 39).

`UNITS` is built once at import, so a mutation test that switches a change on at call time
never reaches it through a claim line: the table builder is called here directly and compared
with the table written out family by family (which words, which prefixes, which factor).
"""

from __future__ import annotations

import pytest

from vaultkit.checks.claims import units
from vaultkit.checks.claims.units import Suffix, Unit, read_cjk, read_word

BYTE = (0, 1, 0, 0)
BYTE_RATE = (-1, 1, 0, 0)
FLOP = (0, 0, 1, 0)
WATT = (0, 0, 0, 1)
ENERGY = (1, 0, 0, 1)
# prefix: (decimal factor, power of two of the binary factor)
PREFIXES = {
    "K": (1e3, 10),
    "k": (1e3, 10),
    "M": (1e6, 20),
    "G": (1e9, 30),
    "T": (1e12, 40),
    "P": (1e15, 50),
    "E": (1e18, 60),
}


def _written_out() -> dict[str, Unit]:
    table: dict[str, Unit] = {}
    with_none = {"": (1.0, 0), **PREFIXES}
    for p, (dec, power) in PREFIXES.items():  # 8GB, 8GBps, 8Gb: only with a prefix
        binary = 2.0**power
        table[p + "B"] = Unit(dec, binary, BYTE)
        table[p + "Bps"] = Unit(dec, binary, BYTE_RATE)
        if p != "k":  # `kb` is kilobytes as often as kilobits: not read, as `mb` and `gb`
            table[p + "b"] = Unit(dec / 8, binary / 8, BYTE, bits=True)
    for p, (dec, power) in with_none.items():  # bit, Kbit, bps, Gbps
        binary = 2.0**power
        for word in ("bit", "bits"):
            table[p + word] = Unit(dec / 8, binary / 8, BYTE, bits=True)
        table[p + "bps"] = Unit(dec / 8, binary / 8, BYTE_RATE, bits=True)
    for p, power in {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}.items():
        table[p + "B"] = Unit(2.0**power, 2.0**power, BYTE)
        table[p + "b"] = table[p + "bit"] = Unit(2.0**power / 8, 2.0**power / 8, BYTE, bits=True)
    for word in ("byte", "bytes", "Byte", "Bytes"):
        table[word] = Unit(1.0, 1.0, BYTE)
    for p, (dec, _) in with_none.items():
        if p == "k":  # kFLOP is not written; kW and kWh are, below
            continue
        table[p + "FLOP"] = table[p + "flop"] = Unit(dec, dec, FLOP)
        for word in ("FLOPs", "FLOPS", "flops", "Flops"):
            table[p + word] = Unit(dec, dec, FLOP, flop_ambiguous=True)
        table[p + "W"] = Unit(dec, dec, WATT)
        table[p + "Wh"] = Unit(dec * 3600, dec * 3600, ENERGY)
    table["kW"] = Unit(1e3, 1e3, WATT)
    table["kWh"] = Unit(3.6e6, 3.6e6, ENERGY)
    spelled = {"kilo": "K", "mega": "M", "giga": "G", "tera": "T", "peta": "P", "exa": "E"}
    for word, p in spelled.items():  # `3 gigabytes`, `144 exaFLOPS`: the prefix's unit, written out
        for name, unit in [("byte", "B"), ("bytes", "B"), ("bit", "b"), ("bits", "b")]:
            table[word + name] = table[p + unit]
        for flops in ("FLOP", "FLOPs", "FLOPS", "flops"):
            table[word + flops] = table[p + flops]
    return table


def test_the_unit_table_entry_by_entry():
    built = units._units()
    expected = _written_out()
    assert sorted(built) == sorted(expected)
    for word, unit in expected.items():
        assert built[word] == unit, word
    assert units.UNITS == built


@pytest.mark.parametrize(
    ("word", "unit"),
    [
        ("GB", Unit(1e9, 2.0**30, BYTE)),
        ("GiB", Unit(2.0**30, 2.0**30, BYTE)),
        ("Gbps", Unit(1e9 / 8, 2.0**30 / 8, BYTE_RATE, bits=True)),
        ("TFLOPS", Unit(1e12, 1e12, FLOP, flop_ambiguous=True)),
        ("MWh", Unit(3.6e9, 3.6e9, ENERGY)),
    ],
)
def test_units_a_reader_knows(word, unit):
    assert units._units()[word] == unit


def test_dimension_arithmetic():
    a, b = (1, 2, 3, 4), (10, 20, 30, 40)
    assert units.add(a, b) == (11, 22, 33, 44)
    assert units.sub(b, a) == (9, 18, 27, 36)
    assert units.times(a, 3) == (3, 6, 9, 12)
    assert units.times(a, -2) == (-2, -4, -6, -8)
    assert units.PER_SECOND == (-1, 0, 0, 0)


@pytest.mark.parametrize(
    ("word", "attached", "suffix"),
    [
        ("GB", True, Suffix(unit="GB")),
        ("GB", False, Suffix(unit="GB")),
        ("ms", False, Suffix(seconds=1e-3)),
        ("hours", False, Suffix(seconds=3600.0)),
        ("billion", False, Suffix(factor=1e9)),
        ("Million", False, Suffix(factor=1e6)),
        ("BILLION", False, Suffix(label=True)),  # neither lower nor title case: a word
        ("BILLION", True, Suffix(uncertain=True)),  # glued, a scale letter first
        ("K", True, Suffix(scale="K")),
        ("B", True, Suffix(scale="B")),
        ("K", False, Suffix(uncertain=True)),  # `2 K`: not read with certainty
        ("GHz", False, Suffix(uncertain=True)),
        ("b", True, Suffix(uncertain=True)),
        ("kb", True, Suffix(uncertain=True)),  # kilobytes or kilobits
        ("Kb", True, Suffix(unit="Kb")),
        ("Gi", True, Suffix(uncertain=True)),
        ("GbE", True, Suffix(uncertain=True)),
        ("Mtokens", True, Suffix(scale="M", label=True)),
        ("Mtokens", False, Suffix(scale="M", label=True)),
        ("Kparams", False, Suffix(scale="K", label=True)),
        ("Btokens", True, Suffix(uncertain=True)),  # B is billion or bytes: not a scaled label
        ("Btokens", False, Suffix(label=True)),
        ("Gx", True, Suffix(uncertain=True)),
        ("Gx", False, Suffix(label=True)),
        ("tokens", True, Suffix(label=True)),
        ("GPU", False, Suffix(label=True)),
    ],
)
def test_read_word(word, attached, suffix):
    assert read_word(word, attached=attached) == suffix


@pytest.mark.parametrize(
    ("run", "suffix", "rest"),
    [
        ("万亿参数", Suffix(factor=1e12), "参数"),
        ("亿个", Suffix(factor=1e8), "个"),
        ("万", Suffix(factor=1e4), ""),
        ("千万元", Suffix(factor=1e7), "元"),
        ("毫秒后", Suffix(seconds=1e-3), "后"),
        ("秒", Suffix(seconds=1.0), ""),
        ("纳秒", Suffix(seconds=1e-9), ""),
        ("微秒级", Suffix(seconds=1e-6), "级"),
        ("天后", Suffix(seconds=86400.0), "后"),
        ("小时内", Suffix(seconds=3600.0), "内"),
        ("分钟", Suffix(seconds=60.0), ""),
        ("字节对齐", Suffix(unit="bytes"), "对齐"),
        ("个专家", Suffix(label=True), ""),
    ],
)
def test_read_cjk(run, suffix, rest):
    assert read_cjk(run) == (suffix, rest)


def test_suffix_properties():
    assert Suffix(seconds=1e-3).dims == (1, 0, 0, 0) and Suffix(seconds=1e-3).has_unit
    assert Suffix(unit="GBps").dims == BYTE_RATE
    assert Suffix().dims == (0, 0, 0, 0) and not Suffix().has_unit and not Suffix().flop_ambiguous
    assert Suffix(unit="GFLOPs").flop_ambiguous and not Suffix(unit="GFLOP").flop_ambiguous
