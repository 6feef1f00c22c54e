"""Scale suffixes, units with their dimensions, and the words that are only labels.

A word written after a number is read into a `Suffix`: a scale (K, 万, …), a unit with a
dimension (bytes and bits, seconds, FLOP, watts, and their rates: `GB/s`, `Gbps`, `TFLOP/s`),
a label (参数, tokens, GPU, …) that is ignored, or `uncertain` for things that look like units
we do not read with certainty (a bare `b`, Kubernetes quantities like 8Gi, GHz, dBm, …).

Dimensions are exponents of (second, byte, FLOP, watt); a bit is an eighth of a byte. `FLOPs`
and `FLOPS` are written both for a count and for a rate, so they are `flop_ambiguous`: the
checker tries each, and keeps the readings whose two sides have the same dimension.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

Dims = tuple[int, int, int, int]  # exponents of second, byte, FLOP, watt
NONE: Dims = (0, 0, 0, 0)
SECOND: Dims = (1, 0, 0, 0)
BYTE: Dims = (0, 1, 0, 0)
FLOP: Dims = (0, 0, 1, 0)
WATT: Dims = (0, 0, 0, 1)


def add(a: Dims, b: Dims) -> Dims:
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3])


def sub(a: Dims, b: Dims) -> Dims:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3])


def times(a: Dims, k: int) -> Dims:
    return (a[0] * k, a[1] * k, a[2] * k, a[3] * k)


PER_SECOND: Dims = sub(NONE, SECOND)

# Scale letters: (decimal factor, binary factor). "B" is billion, or nothing when B means bytes.
SCALE_LETTERS = {
    "K": (1e3, 2.0**10),
    "k": (1e3, 2.0**10),
    "M": (1e6, 2.0**20),
    "G": (1e9, 2.0**30),
    "T": (1e12, 2.0**40),
    "P": (1e15, 2.0**50),
    "E": (1e18, 2.0**60),
    "B": (1e9, 1e9),
}
_PREFIXES = {"": (1.0, 1.0), **{k: v for k, v in SCALE_LETTERS.items() if k != "B"}}
_DECIMAL = {p: (d, d) for p, (d, _) in _PREFIXES.items()}
_BINARY = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}


@dataclass(frozen=True)
class Unit:
    decimal: float  # the factor to base units, decimal reading (GB = 10⁹ bytes)
    binary: float  # the factor when prefixes are read as powers of two (GB = 2³⁰ bytes)
    dims: Dims
    flop_ambiguous: bool = False  # FLOPs / FLOPS: a count or a rate
    bits: bool = False  # an eighth of a byte each


SPELLED_PREFIXES = {"kilo": "K", "mega": "M", "giga": "G", "tera": "T", "peta": "P", "exa": "E"}


def _units() -> dict[str, Unit]:
    units: dict[str, Unit] = {}
    rate_b = sub(BYTE, SECOND)
    for p, (dec, binary) in _PREFIXES.items():
        if p:
            units[f"{p}B"] = Unit(dec, binary, BYTE)
            units[f"{p}Bps"] = Unit(dec, binary, rate_b)  # GBps: gigabytes per second
            if p != "k":  # `kb` is written for kilobytes as often as for kilobits, as `mb` and `gb` are
                units[f"{p}b"] = Unit(dec / 8, binary / 8, BYTE, bits=True)  # Gb: gigabits
        units[f"{p}bit"] = units[f"{p}bits"] = Unit(dec / 8, binary / 8, BYTE, bits=True)
        units[f"{p}bps"] = Unit(dec / 8, binary / 8, rate_b, bits=True)  # Gbps
    for p, factor in _BINARY.items():
        units[f"{p}B"] = Unit(factor, factor, BYTE)
        units[f"{p}b"] = units[f"{p}bit"] = Unit(factor / 8, factor / 8, BYTE, bits=True)
    for word in ("byte", "bytes", "Bytes", "Byte"):
        units[word] = Unit(1.0, 1.0, BYTE)
    for p, (dec, _) in _DECIMAL.items():
        if p in ("k",):
            continue
        units[f"{p}FLOP"] = units[f"{p}flop"] = Unit(dec, dec, FLOP)
        for plural in ("FLOPs", "FLOPS", "flops", "Flops"):
            units[f"{p}{plural}"] = Unit(dec, dec, FLOP, flop_ambiguous=True)
        units[f"{p}W"] = Unit(dec, dec, WATT)
        units[f"{p}Wh"] = Unit(dec * 3600, dec * 3600, add(WATT, SECOND))
    for word, p in SPELLED_PREFIXES.items():  # `144 exaFLOPS`, `3 gigabytes`
        for unit in ("B", "b", "FLOP", "FLOPs", "FLOPS", "flops"):
            spelled = {"B": ("bytes", "byte"), "b": ("bits", "bit")}.get(unit, (unit,))
            for name in spelled:
                units[word + name] = units[f"{p}{unit}"]
    units["kW"] = Unit(1e3, 1e3, WATT)
    units["kWh"] = Unit(3.6e6, 3.6e6, add(WATT, SECOND))
    return units


UNITS = _units()
YEAR = 365 * 86400.0
# Time units in seconds.
TIME_UNITS = {
    "ns": 1e-9,
    "nanosecond": 1e-9,
    "nanoseconds": 1e-9,
    "us": 1e-6,
    "microsecond": 1e-6,
    "microseconds": 1e-6,
    "µs": 1e-6,
    "μs": 1e-6,
    "ms": 1e-3,
    "millisecond": 1e-3,
    "milliseconds": 1e-3,
    "s": 1.0,
    "sec": 1.0,
    "secs": 1.0,
    "second": 1.0,
    "seconds": 1.0,
    "min": 60.0,
    "mins": 60.0,
    "minute": 60.0,
    "minutes": 60.0,
    "h": 3600.0,
    "hr": 3600.0,
    "hrs": 3600.0,
    "hour": 3600.0,
    "hours": 3600.0,
    "day": 86400.0,
    "days": 86400.0,
    "year": YEAR,
    "years": YEAR,
    "纳秒": 1e-9,
    "微秒": 1e-6,
    "毫秒": 1e-3,
    "秒": 1.0,
    "分钟": 60.0,
    "小时": 3600.0,
    "天": 86400.0,
}
# Words after a scale letter that make it a count of something (2.1 GFLOPs is a unit, above).
SCALED_LABELS = {"tokens", "token", "params", "Params", "parameters"}
SCALE_WORDS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}  # `300 billion`
CJK_SCALES = {
    "万亿": 1e12,
    "千亿": 1e11,
    "百亿": 1e10,
    "十亿": 1e9,
    "千万": 1e7,
    "百万": 1e6,
    "十万": 1e5,
    "亿": 1e8,
    "万": 1e4,
    "千": 1e3,
}
# A bare b (bit or billion?), Kubernetes quantities, frequencies and other scaled units we do
# not convert.
UNCERTAIN_WORD = re.compile(
    r"(?:[KMGTPkmgtp]?(?:Hz)|b|[KMGTPkmgtp](?:V|A|i|bE)|[KMGTP]b(?:E|yte)[A-Za-z]*|m|mi|dB[a-zA-Z]*|[kmgtp]b)\Z"
)


@dataclass(frozen=True)
class Suffix:
    """What the word after a number means."""

    scale: str = ""  # a key of SCALE_LETTERS, or "" (CJK scales go into factor)
    factor: float = 1.0  # a fixed factor: CJK scale
    unit: str = ""  # a key of UNITS
    seconds: float = 0.0  # > 0 for a time unit
    label: bool = False
    uncertain: bool = False

    @property
    def dims(self) -> Dims:
        if self.seconds:
            return SECOND
        return UNITS[self.unit].dims if self.unit else NONE

    @property
    def flop_ambiguous(self) -> bool:
        return bool(self.unit) and UNITS[self.unit].flop_ambiguous

    @property
    def has_unit(self) -> bool:
        return bool(self.seconds or self.unit)


def read_word(word: str, *, attached: bool) -> Suffix:
    """The meaning of an ASCII word written after a number (`attached`: with no space)."""
    if word in UNITS:
        return Suffix(unit=word)
    if word in TIME_UNITS:
        return Suffix(seconds=TIME_UNITS[word])
    if word.lower() in SCALE_WORDS and (word.islower() or word.istitle()):
        return Suffix(factor=SCALE_WORDS[word.lower()])  # `300 billion`, `38.4 Million`
    if word in SCALE_LETTERS:
        # "70B" is a scale; a spaced "70 B" or "2 K" is not read with certainty.
        return Suffix(scale=word) if attached else Suffix(uncertain=True)
    if UNCERTAIN_WORD.match(word):
        return Suffix(uncertain=True)
    head, rest = word[0], word[1:]
    if head in SCALE_LETTERS and head != "B" and rest in SCALED_LABELS:
        return Suffix(scale=head, label=True)  # 2.1 Mtokens
    if attached and head in SCALE_LETTERS:
        return Suffix(uncertain=True)  # e.g. 200GbE, 8Gi
    return Suffix(label=True)


def read_cjk(run: str) -> tuple[Suffix, str]:
    """Scale or time unit at the start of a CJK run, and the label text after it."""
    for scale, factor in CJK_SCALES.items():
        if run.startswith(scale):
            return Suffix(factor=factor), run[len(scale) :]
    for unit in ("纳秒", "微秒", "毫秒", "秒", "分钟", "小时", "天"):
        if run.startswith(unit):
            return Suffix(seconds=TIME_UNITS[unit]), run[len(unit) :]
    if run.startswith("字节"):
        return Suffix(unit="bytes"), run[2:]
    return Suffix(label=True), ""


# A number and the word after it: `109 hours`, `35,000MB`, `4.5 天`, `1.41 GHz`
_NUMBER_UNIT = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)( {0,2})([A-Za-zµμ]+|[\u4e00-\u9fff]+)")
# A type of element named with its width in bits: `fp32`, `FP16`, `bf16`, `int8`, `float64`
_ELEMENT_TYPE = re.compile(r"(?<![A-Za-z0-9])(?:fp|bf|float|u?int)(4|8|16|32|64)(?![0-9])", re.I)
_FREQUENCY = re.compile(r"([KMGT]?)Hz\Z")
ELEMENT_SIZES = {1.0, 2.0, 4.0, 8.0}  # `4 bytes`, `2 字节`, `4B` after the count of elements


NEAR_LINES = 8  # lines above a claim whose units its bare inputs may be in
SAME_NUMBER_LINES = 20  # lines above a claim where the unit of one of its numbers may be written


@dataclass(frozen=True)
class Near:
    """What a line near a claim says its bare inputs may be in: a unit (`35,000MB`, `109 hours`),
    the scale of a clock (`1.41 GHz`: 10⁹ of a count), or the bytes of an element (`fp32`,
    `4 bytes`: `element`)."""

    name: str
    dims: Dims
    decimal: float  # its factor to base units
    binary: float  # the same, prefixes read as powers of two
    element: bool = False
    number: str = ""  # the number it was written after, for a unit of that number only
    suffix: Suffix | None = None  # of that number


def units_near(lines: list[str]) -> tuple[Near, ...]:
    """What `lines` (the claim's own last) say the bare inputs of a claim may be in, each once:
    the units of the last `NEAR_LINES` lines, and the unit each distinct number (`0.2606`,
    `6.47`, `1590`, not `2` or `32`) is written with in any of them, when it is one."""
    seen: dict[tuple, str] = {}
    numbers: dict[str, Suffix | None] = {}
    for k, line in enumerate(lines):
        close = k >= len(lines) - NEAR_LINES - 1
        for m in _NUMBER_UNIT.finditer(line):
            number, word = m.group(1), m.group(3)
            suffix = read_cjk(word)[0] if word[0] >= "\u4e00" else read_word(word, attached=not m.group(2))
            frequency = _FREQUENCY.match(word)
            own = Suffix(factor=SCALE_LETTERS[frequency.group(1)][0]) if frequency and frequency.group(1) else suffix
            if (own.has_unit or own.factor != 1.0) and _distinct(number):
                numbers[number] = own if numbers.get(number, own) == own else None  # two units: neither
            if not close:
                continue
            if frequency and frequency.group(1):
                factor = SCALE_LETTERS[frequency.group(1)][0]
                seen.setdefault((NONE, factor, factor, False), word)
            elif suffix.seconds:
                seen.setdefault((suffix.dims, suffix.seconds, suffix.seconds, False), word)
            elif suffix.unit:
                unit = UNITS[suffix.unit]
                seen.setdefault((unit.dims, unit.decimal, unit.binary, False), word)
            size = float(number.replace(",", ""))
            if size in ELEMENT_SIZES and (suffix.unit in ("bytes", "byte") or word == "B" and not m.group(2)):
                seen.setdefault((BYTE, size, size, True), m.group())
        for m in _ELEMENT_TYPE.finditer(line) if close else ():
            size = int(m.group(1)) / 8
            seen.setdefault((BYTE, size, size, True), m.group())
    same = [Near(f"{n}{_spaced(s)}", s.dims, 1.0, 1.0, number=n, suffix=s) for n, s in numbers.items() if s]
    return tuple(Near(name, *key) for key, name in seen.items()) + tuple(same)


def _distinct(number: str) -> bool:
    """A number written with a decimal point or three digits or more: the same one near a
    claim is the same quantity (`2` or `32` may be anything)."""
    digits = number.replace(",", "").replace(".", "").strip("0")
    return "." in number or len(digits) >= 3


def _spaced(suffix: Suffix) -> str:
    unit = suffix.unit or next((name for name, s in TIME_UNITS.items() if s == suffix.seconds), "")
    return f" {unit}" if unit else f" × {suffix.factor:g}"
