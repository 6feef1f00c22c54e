"""Scale suffixes, byte and time units, and the words that are only labels.

A unit word written after a number is read into a `Suffix`: a scale (K, 万, …), a byte or
time unit, a label (参数, tokens, GPU, …) that is ignored, or `uncertain` for things that look
like units we do not read with certainty (bits, Kubernetes quantities like 8Gi, kW, …).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Scale letters: (decimal factor, binary factor). "B" is billion, or nothing when B means bytes.
SCALE_LETTERS = {
    "K": (1e3, 2.0**10),
    "k": (1e3, 2.0**10),
    "M": (1e6, 2.0**20),
    "G": (1e9, 2.0**30),
    "T": (1e12, 2.0**40),
    "P": (1e15, 2.0**50),
    "B": (1e9, 1e9),
}
# Byte units: (decimal factor, binary factor) — people write GB meaning GiB.
BYTE_UNITS = {
    **{f"{letter}B": factors for letter, factors in SCALE_LETTERS.items() if letter != "B"},
    "KiB": (2.0**10, 2.0**10),
    "MiB": (2.0**20, 2.0**20),
    "GiB": (2.0**30, 2.0**30),
    "TiB": (2.0**40, 2.0**40),
    "PiB": (2.0**50, 2.0**50),
    "byte": (1.0, 1.0),
    "bytes": (1.0, 1.0),
    "Bytes": (1.0, 1.0),
    "字节": (1.0, 1.0),
}
# Time units in seconds.
TIME_UNITS = {
    "ns": 1e-9,
    "us": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "min": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "day": 86400.0,
    "days": 86400.0,
    "纳秒": 1e-9,
    "微秒": 1e-6,
    "毫秒": 1e-3,
    "秒": 1.0,
    "分钟": 60.0,
    "小时": 3600.0,
    "天": 86400.0,
}
SCALED_LABELS = {"FLOPs", "FLOPS", "flops", "FLOP", "tokens", "token", "params"}
CJK_SCALES = {"万亿": 1e12, "千万": 1e7, "百万": 1e6, "亿": 1e8, "万": 1e4, "千": 1e3}
# Bits, Kubernetes quantities, electrical and other scaled units we do not convert.
UNCERTAIN_WORD = re.compile(
    r"(?:[KMGTPkmgtp]?(?:b|bps|bit|bits|Hz)|[KMGTPkmgtp](?:W|V|A|i|bE)|[KMGTP]b[A-Za-z]*|m|mi)\Z"
)


@dataclass(frozen=True)
class Suffix:
    """What the word after a number means."""

    scale: str = ""  # a key of SCALE_LETTERS, or "" (CJK scales go into factor)
    factor: float = 1.0  # a fixed factor: CJK scale
    byte_unit: str = ""  # a key of BYTE_UNITS
    seconds: float = 0.0  # > 0 for a time unit
    label: bool = False
    uncertain: bool = False


def read_word(word: str, *, attached: bool) -> Suffix | None:
    """The meaning of an ASCII word written after a number (`attached`: with no space)."""
    if word in BYTE_UNITS:
        return Suffix(byte_unit=word)
    if word in TIME_UNITS:
        return Suffix(seconds=TIME_UNITS[word])
    if word in SCALE_LETTERS:
        # "70B" is a scale; a spaced "70 B" or "2 K" is not read with certainty.
        return Suffix(scale=word) if attached else Suffix(uncertain=True)
    if UNCERTAIN_WORD.match(word):
        return Suffix(uncertain=True)
    head, rest = word[0], word[1:]
    if head in SCALE_LETTERS and head != "B" and rest in SCALED_LABELS:
        return Suffix(scale=head, label=True)  # 2.1 GFLOPs
    if attached and head in SCALE_LETTERS:
        return Suffix(uncertain=True)  # e.g. 7kW, 200GbE, 8Gi
    return Suffix(label=True)


def read_cjk(run: str) -> tuple[Suffix, str] | None:
    """Scale or time unit at the start of a CJK run, and the label text after it."""
    for scale, factor in CJK_SCALES.items():
        if run.startswith(scale):
            return Suffix(factor=factor), run[len(scale):]
    for unit in ("纳秒", "微秒", "毫秒", "秒", "分钟", "小时", "天"):
        if run.startswith(unit):
            return Suffix(seconds=TIME_UNITS[unit]), run[len(unit):]
    if run.startswith("字节"):
        return Suffix(byte_unit="字节"), run[2:]
    return Suffix(label=True), ""
