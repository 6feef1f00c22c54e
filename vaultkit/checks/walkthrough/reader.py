"""Reading a decode walkthrough out of a note's tokens: steps, what each states, mask
pictures and generation rounds (the figures it promises are read by `promises`).

Only what is read with certainty becomes a statement; the rest of the prose is left alone.
Positions are the note's own indices (`Q3` is position 3 in a note that counts from 1); the
base (0 or 1) comes from a token table (`我： Q1、K1、V1`), else from whether any index 0 is
written in the walkthrough.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from vaultkit.checks.examples.regions import BEGIN_RE, END_RE
from vaultkit.checks.walkthrough.lines import Line
from vaultkit.checks.walkthrough.promises import Promise, may_promise, read_promises
from vaultkit.readers.syntax.positions import content_column

PLAIN_FENCES = ("", "text", "txt", "plain", "plaintext")

ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
EN_NUMBERS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
}
EN_ORDINALS = {
    w: i + 1
    for i, w in enumerate("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split())
}

NUMBER = r"[0-9]{1,3}|[零〇一二两三四五六七八九十]{1,3}"
EN_NUMBER = r"[0-9]{1,3}|" + "|".join(sorted(EN_NUMBERS, key=len, reverse=True))
_LEAD = r"^\s*(?:\*\*|__)?\s*"
STEP_RE = re.compile(
    _LEAD + rf"(?:第\s*(?P<zh>{NUMBER})\s*步|(?:[Ss]tep|STEP)\s+(?P<en>{EN_NUMBER})\b"
    r"|(?P<ord>" + "|".join(EN_ORDINALS) + r")\s+step\b)"
    r"(?:\s*(?:\*\*|__))?\s*(?=[:：.、，,（(）)\-—–\s]|$)",
    re.IGNORECASE,
)
ROUND_RE = re.compile(
    _LEAD + rf"(?:第\s*(?P<zh>{NUMBER})\s*轮|(?:[Rr]ound|ROUND)\s+(?P<en>{EN_NUMBER})\b)"
    r"(?:\s*(?:\*\*|__))?\s*(?=[:：.、，,（(）)\-—–\s]|$)",
    re.IGNORECASE,
)

# Q/K/V with an index: Q3, K_3, V_{3}; lowercase only with an underscore (q_3, k_0), as in LaTeX.
ITEM_RE = re.compile(
    r"(?<![A-Za-z0-9_\\])(?:(?P<u>[QKV])_?\{?(?P<ui>\d{1,2})\}?|(?P<l>[qkv])_\{?(?P<li>\d{1,2})\}?)(?![A-Za-z0-9])"
)
SEP_RE = re.compile(r"\s*(?:、|，|,|和|与|及|以及|\band\b|&|\+)?\s*")
RANGE_RE = re.compile(r"\s*(?:…|\.\.\.|⋯|\\dots|\\ldots|\\cdots|~|～|到|至|–|—|-|\bthrough\b|\bto\b)\s*")
CLAUSE_END_RE = re.compile(r"[。；;！？!?，,(（)）]|\.(?:\s|$)")

MATCH_GAP_RE = re.compile(
    r"\s*(?:只能|只会|只|仅|才|能|可以|会|去|要|\bonly\b|\bcan\b)*\s*"
    r"(?:匹配到?|匹配上|看到|看向|关注|attends?\s+(?:only\s+)?to|(?:is|gets)\s+matched\s+(?:only\s+)?(?:against|with|to)"
    r"|matches|is\s+compared\s+(?:against|with)|scores?\s+against)"
    r"\s*(?:了|到|:|：|\bonly\b|\bthe\b|\bkeys?\b|\ball\b|\bof\b)*\s*",
    re.IGNORECASE,
)

ASSUMED_RE = re.compile(
    r"假设|假定|设想|比如|例如|示意|\bsuppose\b|\bsay\b|\bassume|\be\.g\.|illustrat|for example", re.IGNORECASE
)
WRITE_RE = re.compile(
    r"写入|追加|存入|放进|放入|加入|存进|\bappend|\bwritten\b|\bwrites?\b|\badded\b|\bstored?\s+(?:in|into)\b",
    re.IGNORECASE,
)
HOLDS_RE = re.compile(r"现在有|里有|中有|已有|\bnow\s+(?:holds|contains|has)\b|\bholds\b|\bcontains\b", re.IGNORECASE)
CACHE_RE = re.compile(
    r"缓存|复用|重用|\bcache|\bcached\b|\breus|\bfrom\s+(?:the\s+)?(?:earlier|previous)\b", re.IGNORECASE
)
COMPUTE_RE = re.compile(r"计算|新算|算出|只算|\bcompute|\bnew(?:ly)?\b|\bfresh", re.IGNORECASE)
MIX_RE = re.compile(r"混合|吸收|拿过来|加权|\bmix|\bblend|\bcombin|\bweighted\s+sum|\babsorb|\btakes?\b", re.IGNORECASE)
EARLIER_STEPS_RE = re.compile(
    r"前\s*(?P<n>\d{1,3}|[一二两三四五六七八九十]{1,3})\s*步|(?:previous|earlier|first)\s+(?P<en>\d{1,3}|"
    + "|".join(EN_NUMBERS)
    + r")\s+steps",
    re.IGNORECASE,
)

PERCENT = r"(?P<p>\d{1,3}(?:\.\d+)?)\s*[%％]"
SHARE_CUE = (
    r"(?:\s*的)?(?:\s*(?:注意力|权重|attention|weight))?\s*(?:都|全|全部|只能|只|会|被|is|are|goes|go)?\s*"
    r"(?:分给|分配给|给了|给|放在了|放在|落在|都在|全在|\bto\b|\bon\b|\bfor\b|\bgoes\s+to\b|\bgo\s+to\b)\s*(?:了\s*)?(?:the\s+)?"
)
QUOTED = r"[“\"「『‘'](?P<q>[^”\"」』’'\n]{1,24})[”\"」』’']"
GROUP = r"[\[［【](?P<g>[^\]］】\n]{1,60})[\]］】]"
SELF = r"(?P<self>它自己|自己(?:身上)?|本身|\bitself\b|\bits\s+own(?:\s+(?:key|position|token))?|\bself\b)"
MIX_PCT_RE = re.compile(PERCENT + r"\s*(?:的|of(?:\s+the)?)\s*\$?\s*(?P<v>[Vv])_?\{?(?P<i>\d{1,2})\}?(?![A-Za-z0-9])")
MIX_DEC_RE = re.compile(
    r"(?<![\d.])(?P<d>0?\.\d+|1(?:\.0+)?)\s*(?:×|\*|·|x)\s*\$?\s*(?P<v>[Vv])_?\{?(?P<i>\d{1,2})\}?(?![A-Za-z0-9])"
)

TOKEN_TABLE_RE = re.compile(
    r"^\s*(?P<tok>[^\s:：]{1,24})\s*[:：]\s*Q_?(?P<i>\d{1,2})\s*[,、，]\s*K_?(?P=i)\s*[,、，]\s*V_?(?P=i)\s*$"
)
TOKEN_LIST_RE = re.compile(
    r"\[\s*(?:[“\"「‘'”][^”\"」’'\[\]\n]{1,24}[”\"」’'“]\s*[,，、]\s*)+[“\"「‘'”][^”\"」’'\[\]\n]{1,24}[”\"」’'“]\s*\]"
)
LIST_ITEM_RE = re.compile(r"[“\"「‘'”](?P<t>[^”\"」’'\[\]\n]{1,24})[”\"」’'“]")
HEADER_TOKEN_RE = re.compile(
    r"(?:处理|processing|process|token|词)\s*[“\"「『‘'](?P<t>[^”\"」』’'\n]{1,24})[”\"」』’']|^\s*[:：]?\s*[“\"「『‘'](?P<t2>[^”\"」』’'\n]{1,24})[”\"」』’']",
    re.IGNORECASE,
)
INPUT_RE = re.compile(r"(?:输入|[Ii]nput)\s*[:：]?\s*(?P<list>\[[^\[\]\n]*\])")
OUTPUT_RE = re.compile(
    r"(?:输出|[Oo]utput)\s*[:：]?\s*(?:[“\"「‘'”](?P<q>[^”\"」’'“\n]{1,24})[”\"」’'“]"
    r"|(?P<t><[A-Za-z/]+>|[^”\"」’'“\s;；,，。()（）\[\]:：]{1,24}))"
)

MASK = "█"


@dataclass(frozen=True)
class Item:
    letter: str  # Q, K or V
    index: int
    line: int
    col: int


@dataclass
class Listed:
    """A list of K/V (or Q) items as written, with its role in the step."""

    items: list[Item]
    role: str  # match | cached | computed | holds | mixed
    line: int
    col: int
    text: str  # as written
    earlier_steps: int | None = None  # `前 2 步` said with a cache list
    earlier_at: tuple[int, int] | None = None
    query: Item | None = None  # for a match: the Q written before it


@dataclass
class Share:
    positions: tuple[int, ...]  # one, or a group sharing one percentage
    percent: float
    half: float  # rounding of the written number, in percent
    col: int


@dataclass
class Weights:
    shares: list[Share]
    line: int
    assumed: bool
    text: str


@dataclass
class Mix:
    parts: list[tuple[int, float | None, float, int]]  # (position, percent or None, half, col)
    line: int
    text: str


@dataclass
class Step:
    number: int
    line: int
    col: int
    header: str
    token: str | None = None  # the token the header names
    query: int | None = None  # position of the query (the note's indexing)
    query_from: str = ""  # how the query was found
    lists: list[Listed] = field(default_factory=list)
    weights: list[Weights] = field(default_factory=list)
    mixes: list[Mix] = field(default_factory=list)
    unread: int = 0  # statements seen but not read with certainty
    heading: int = 0


@dataclass
class Walkthrough:
    steps: list[Step]
    tokens: list[str]  # by position from the base
    base: int
    line: int
    block: int  # top-level block of the first step

    def name(self, position: int) -> str:
        i = position - self.base
        return self.tokens[i] if 0 <= i < len(self.tokens) else str(position)

    @property
    def statements(self) -> int:
        return sum(len(s.lists) + len(s.weights) + len(s.mixes) for s in self.steps)


@dataclass
class MaskRow:
    line: int
    col: int
    text: str
    units: list[str]  # each a revealed unit or MASK
    spaced: bool
    masks: list[str] = field(default_factory=list)  # spaced rows: each unit's mask as written (`████`), else ""


@dataclass
class MaskPicture:
    rows: list[MaskRow]
    offset: int  # row k (from 0) shows the first offset + k units: what most rows agree on


@dataclass
class Round:
    number: int | None  # None: not one number (`第二三轮`), and so in no group
    line: int
    input: list[str] | None = None
    input_line: int = 0
    input_col: int = 0
    input_text: str = ""
    output: str | None = None


@dataclass(frozen=True)
class Unread:
    """Something seen and not read, with why: `check --explain` lists it."""

    line: int
    text: str  # as written
    why: str
    statements: int = 1  # how many statements it stands for (counted as skipped)


@dataclass
class Reading:
    walkthroughs: list[Walkthrough] = field(default_factory=list)
    masks: list[MaskPicture] = field(default_factory=list)
    rounds: list[list[Round]] = field(default_factory=list)
    promises: list[Promise] = field(default_factory=list)
    unread: list[Unread] = field(default_factory=list)


# ---------------------------------------------------------------------------
# Lines from the tokens
# ---------------------------------------------------------------------------


def may_have(text: str) -> bool:
    """A cheap test: could the note hold anything this reader reads?"""
    return (
        "步" in text
        or "tep" in text
        or MASK in text
        or "下图" in text
        or "below" in text
        or "轮" in text
        or "ound" in text
    )


def note_lines(text: str, tokens) -> tuple[list[Line], list[tuple[int, int, str]]]:
    """The prose lines (paragraphs, headings, list items) and plain-fence lines of a note,
    outside generated regions, and its top-level blocks as (first line, end line, type)."""
    source = text.split("\n")
    lines: list[Line] = []
    blocks: list[tuple[int, int, str]] = []
    generated = False
    heading = 0
    for tok in tokens:
        if tok.level == 0 and tok.map and tok.nesting >= 0:
            blocks.append((tok.map[0], tok.map[1], tok.type))
        block = len(blocks) - 1
        if tok.type == "html_block":
            first = tok.content.strip().split("\n")[0]
            generated = bool(BEGIN_RE.match(first)) or (generated and not END_RE.match(first))
        if generated:
            continue
        if tok.type == "heading_open":
            heading = int(tok.tag[1:])
        elif tok.type == "heading_close":
            heading = 0
        elif tok.type == "inline" and tok.map:
            for i, content in enumerate(tok.content.split("\n")):
                number = min(tok.map[0] + i, len(source) - 1)
                col = content_column(source[number], content) + 1
                lines.append(Line(number + 1, col, content, heading, block))
        elif tok.type == "fence" and tok.map and tok.info.strip().lower() in PLAIN_FENCES:
            for i, content in enumerate(
                tok.content.split("\n")[:-1] if tok.content.endswith("\n") else tok.content.split("\n")
            ):
                number = tok.map[0] + 1 + i
                if number < len(source):
                    col = content_column(source[number], content) + 1
                    lines.append(Line(number + 1, col, content, 0, block, code=True))
    return lines, blocks


def number_value(zh: str | None, en: str | None = None, ordinal: str | None = None) -> int | None:
    if ordinal:
        return EN_ORDINALS.get(ordinal.lower())
    word = zh or en
    if word is None:
        return None
    if word.isdigit():
        return int(word)
    if en is not None and word.lower() in EN_NUMBERS:
        return EN_NUMBERS[word.lower()]
    if "十" in word:  # 十, 十二, 二十, 二十三
        tens, _, ones = word.partition("十")
        t = ZH_DIGITS.get(tens, 1) if tens else 1
        o = ZH_DIGITS.get(ones, 0) if ones else 0
        return t * 10 + o if (not tens or tens in ZH_DIGITS) and (not ones or ones in ZH_DIGITS) else None
    if len(word) == 1 and word in ZH_DIGITS:
        return ZH_DIGITS[word]
    return None


# ---------------------------------------------------------------------------
# Items and lists in one line
# ---------------------------------------------------------------------------


def _plain(text: str) -> str:
    """The line with math delimiters blanked (same length: columns stay)."""
    return re.sub(r"\\[()\[\]]", "  ", text).replace("$", " ")


def items_in(line: Line) -> list[tuple[int, int, Item]]:
    """(start, end, item) of every Q/K/V with an index, in the line's plain text."""
    text = _plain(line.text)
    out = []
    for m in ITEM_RE.finditer(text):
        letter = (m.group("u") or m.group("l")).upper()
        index = int(m.group("ui") or m.group("li"))
        out.append((m.start(), m.end(), Item(letter, index, line.number, line.col + m.start())))
    return out


def lists_in(line: Line) -> list[tuple[int, int, list[Item]]]:
    """Runs of items joined by separators (`、`, `,`, `和`, `and`) or ranges (`K1…K4`)."""
    text = _plain(line.text)
    found = items_in(line)
    runs: list[tuple[int, int, list[Item]]] = []
    for start, end, item in found:
        if runs:
            r_start, r_end, items = runs[-1]
            gap = text[r_end:start]
            last = items[-1]
            if RANGE_RE.fullmatch(gap) and gap.strip() and last.letter == item.letter and last.index < item.index:
                fill = [Item(item.letter, i, item.line, item.col) for i in range(last.index + 1, item.index)]
                runs[-1] = (r_start, end, items + fill + [item])
                continue
            if SEP_RE.fullmatch(gap):
                runs[-1] = (r_start, end, items + [item])
                continue
        runs.append((start, end, [item]))
    return runs


def clause_of(text: str, start: int, end: int, spans: list[tuple[int, int]]) -> tuple[int, int]:
    """The clause around [start, end): up to the nearest clause punctuation outside any list."""
    inside = lambda i: any(a <= i < b for a, b in spans)  # noqa: E731
    left = 0
    for m in CLAUSE_END_RE.finditer(text, 0, start):
        if not inside(m.start()):
            left = m.end()
    right = len(text)
    for m in CLAUSE_END_RE.finditer(text, end):
        if not inside(m.start()):
            right = m.start()
            break
    return left, right


# ---------------------------------------------------------------------------
# Statements of a step
# ---------------------------------------------------------------------------


def _target_re(tokens: list[str]) -> re.Pattern:
    names = sorted({t for t in tokens if t}, key=len, reverse=True)
    bare = "|".join(re.escape(t) for t in names)
    bare = rf"|(?P<bare>{bare})(?![A-Za-z0-9])" if bare else ""
    item = r"|(?P<kv>[KV])_?(?P<kvi>\d{1,2})(?![A-Za-z0-9])"
    return re.compile(PERCENT + SHARE_CUE + rf"(?:{SELF}|{QUOTED}|{GROUP}{item}{bare})", re.IGNORECASE)


def _half(number: str) -> float:
    return 0.5 * 10.0 ** -(len(number.split(".")[1]) if "." in number else 0)


def read_weights(line: Line, tokens: list[str], base: int, query: int | None, target_re) -> tuple[Weights | None, int]:
    """The percentages a line gives to positions (None when it gives none); also how many
    shares it states that could not be placed."""
    text = line.text
    shares, unplaced = [], 0
    for m in target_re.finditer(text):
        positions: tuple[int | None, ...]
        if m.group("self"):
            positions = (query,)
        elif m.group("kv"):
            positions = (int(m.group("kvi")),)
        else:
            names = (
                [m.group("q")]
                if m.group("q")
                else re.split(r"\s*[/、,，|]\s*", m.group("g").strip())
                if m.group("g")
                else [m.group("bare")]
            )
            positions = tuple(_position(name.strip(" “”\"「」'‘’"), tokens, base, query) for name in names)
        if any(p is None for p in positions):
            unplaced += 1
            continue
        shares.append(Share(positions, float(m.group("p")), _half(m.group("p")), line.col + m.start()))
    if not shares:
        return None, unplaced
    return Weights(shares, line.number, bool(ASSUMED_RE.search(text)), text), unplaced


def _position(name: str, tokens: list[str], base: int, query: int | None) -> int | None:
    if name in ("自己", "itself", "self"):
        return query
    if tokens.count(name) == 1:
        return tokens.index(name) + base
    m = re.fullmatch(r"[KV]_?(\d{1,2})", name)
    return int(m.group(1)) if m else None


def read_mix(line: Line) -> Mix | None:
    """Values mixed with percentages (`30% 的 V1`, `0.3 × v_1`), or V listed to be mixed."""
    text = _plain(line.text)
    parts = []
    for m in MIX_PCT_RE.finditer(text):
        parts.append((int(m.group("i")), float(m.group("p")), _half(m.group("p")), line.col + m.start()))
    if not parts:
        for m in MIX_DEC_RE.finditer(text):
            value = float(m.group("d"))
            parts.append((int(m.group("i")), 100 * value, 100 * _half(m.group("d")), line.col + m.start()))
    if parts:
        return Mix(parts, line.number, line.text)
    if MIX_RE.search(text) and not CACHE_RE.search(text):
        for start, end, items in lists_in(line):
            if items and all(i.letter == "V" for i in items) and len(items) >= 1:
                return Mix([(i.index, None, 0.0, i.col) for i in items], line.number, line.text)
    return None


def read_lists(line: Line) -> list[Listed]:
    """Keys matched (`Q3 匹配到 K1、K2、K3`) and K/V cached, computed or held in the cache."""
    text = _plain(line.text)
    runs = lists_in(line)
    spans = [(a, b) for a, b, _ in runs]
    found = []
    for n, (start, end, items) in enumerate(runs):
        letters = {i.letter for i in items}
        if letters == {"Q"}:
            continue
        # a match: Q item just before, joined by a matching verb
        if n > 0 and runs[n - 1][2][-1].letter == "Q" and letters == {"K"}:
            prev_end = runs[n - 1][1]
            if MATCH_GAP_RE.fullmatch(text[prev_end:start]):
                found.append(
                    Listed(
                        items, "match", line.number, line.col + start, text[start:end].strip(), query=runs[n - 1][2][-1]
                    )
                )
                continue
        items = [i for i in items if i.letter != "Q"]
        if not items or not letters & {"K", "V"}:
            continue
        left, right = clause_of(text, start, end, spans)
        clause = text[left:start] + " " + text[end:right]
        if WRITE_RE.search(clause):
            role = "computed"
        elif HOLDS_RE.search(clause) and CACHE_RE.search(clause):
            role = "holds"
        elif CACHE_RE.search(clause):
            role = "cached"
        elif COMPUTE_RE.search(clause):
            role = "computed"
        else:
            continue
        if letters == {"V"} and role != "cached" and MIX_RE.search(clause):
            continue  # values being mixed, read by read_mix
        listed = Listed(items, role, line.number, line.col + start, text[start:end].strip())
        if role == "cached" and (m := EARLIER_STEPS_RE.search(text[left : _past_remark(text, right)])):
            listed.earlier_steps = number_value(m.group("n"), m.group("en"))
            listed.earlier_at = (line.number, line.col + left + m.start())
        found.append(listed)
    return found


def _past_remark(text: str, end: int) -> int:
    """Where a clause ending at `end` ends with the remark in brackets that follows it
    (`… read from the cache (the previous 2 steps)`)."""
    if text[end : end + 1] not in ("(", "（"):
        return end
    close = min((i for i in (text.find(")", end), text.find("）", end)) if i >= 0), default=len(text))
    return close + 1


# ---------------------------------------------------------------------------
# Walkthroughs
# ---------------------------------------------------------------------------


def _step_heads(lines: list[Line]) -> tuple[list[tuple[int, int]], list[Unread]]:
    """(index into lines, step number) of each line that begins a step; the lines that begin
    one with a number that cannot be read (`第二三步`)."""
    out, unread = [], []
    for i, line in enumerate(lines):
        if line.code:
            continue
        m = STEP_RE.match(line.text)
        if m:
            n = number_value(m.group("zh"), m.group("en"), m.group("ord"))
            if n is not None:
                out.append((i, n))
            else:
                word = m.group("zh") or m.group("en")
                unread.append(Unread(line.number, line.text.strip(), f"the step number “{word}” is not one number"))
    return out, unread


def _runs(heads: list[tuple[int, int]], lines: list[Line]) -> list[list[tuple[int, int]]]:
    """Heads grouped into walkthroughs: numbers rising by one, no other heading in between."""
    runs: list[list[tuple[int, int]]] = []
    for i, n in heads:
        if runs:
            j, m = runs[-1][-1]
            between = lines[j + 1 : i]
            level = lines[j].heading
            interrupted = any(b.heading and (not level or b.heading <= level) for b in between)
            if n == m + 1 and not interrupted:
                runs[-1].append((i, n))
                continue
        runs.append([(i, n)])
    return [run for run in runs if len(run) >= 2]


def _token_table(lines: list[Line]) -> dict[int, str]:
    table = {}
    for line in lines:
        m = TOKEN_TABLE_RE.match(line.text)
        if m:
            table[int(m.group("i"))] = m.group("tok")
    return table


def _token_list(lines: list[Line], before: int) -> list[str] | None:
    """The last bracketed list of quoted tokens before line `before` (`[ “我”, “想” ]`)."""
    found = None
    for line in lines:
        if line.number >= before:
            break
        for m in TOKEN_LIST_RE.finditer(line.text):
            found = [t.group("t").strip() for t in LIST_ITEM_RE.finditer(m.group(0))]
    return found


def _header_token(header: str) -> str | None:
    m = HEADER_TOKEN_RE.search(header)
    return (m.group("t") or m.group("t2")).strip() if m else None


def read_walkthroughs(lines: list[Line]) -> tuple[list[Walkthrough], list[Unread]]:
    """The walkthroughs of a note's lines, and what was seen in steps but not read."""
    heads, unread = _step_heads(lines)
    out = []
    table = _token_table(lines)
    for run in _runs(heads, lines):
        steps: list[Step] = []
        bodies: list[list[Line]] = []
        first_line = lines[run[0][0]]
        for k, (i, n) in enumerate(run):
            head = lines[i]
            stop = run[k + 1][0] if k + 1 < len(run) else _end_of_last(lines, i)
            m = STEP_RE.match(head.text)
            header = head.text[m.end() :]
            steps.append(
                Step(
                    n,
                    head.number,
                    head.col,
                    head.text,
                    _header_token(header),
                    heading=head.heading,
                )
            )
            bodies.append([head, *[b for b in lines[i + 1 : stop] if not b.code]])
        all_items = [it for body in bodies for line in body for _, _, it in items_in(line)]
        if table:
            base = min(table)
            tokens = [table.get(p, str(p)) for p in range(base, max(table) + 1)]
        else:
            base = 0 if any(it.index == 0 for it in all_items) else 1
            tokens = _token_list(lines, first_line.number) or []
            named = [s for s in steps if s.token]
            names = [s.token for s in named]
            if (
                not tokens
                and len(named) >= 2
                and len(set(names)) == len(names)
                and all(b.number == a.number + 1 for a, b in zip(named, named[1:]))
            ):
                tokens = names  # the steps name their tokens, one new token each, in order
                for k, s in enumerate(named):
                    s.query, s.query_from = base + k, "the step's token"
        _place_queries(steps, bodies, tokens, base)
        target_re = _target_re(tokens)
        for step, body in zip(steps, bodies):
            for line in body:
                for listed in read_lists(line):
                    step.lists.append(listed)
                weights, unplaced = read_weights(line, tokens, base, step.query, target_re)
                step.unread += unplaced
                mix = read_mix(line)
                if weights is not None:
                    step.weights.append(weights)
                if mix is not None:
                    step.mixes.append(mix)
            if step.query is None and (step.lists or step.weights or step.mixes):
                step.unread += len(step.lists) + len(step.weights) + len(step.mixes)
                step.lists, step.weights, step.mixes = [], [], []
        walk = Walkthrough(steps, tokens, base, first_line.number, first_line.block)
        with_statements = [s for s in steps if s.lists or s.weights or s.mixes]
        if len(with_statements) >= 2 and walk.statements >= 2:
            out.append(walk)
        elif unplaced := sum(s.unread for s in steps):
            why = (
                f"{len(steps)} steps with {walk.statements} statements read and {unplaced} not "
                "(a step's query or a weight's target not known): too few to check as a walkthrough"
            )
            unread.append(Unread(first_line.number, first_line.text.strip(), why, unplaced))
    return out, sorted(unread, key=lambda u: u.line)


def _end_of_last(lines: list[Line], i: int) -> int:
    """Where the body of a walkthrough's last step ends: the next heading (of its level or
    above when the step is a heading), or the end of the top-level block (list) holding it."""
    level = lines[i].heading
    block = lines[i].block
    for j in range(i + 1, len(lines)):
        line = lines[j]
        if line.heading and (not level or line.heading <= level):
            return j
        if not level and line.block != block:
            # a step written as a paragraph goes on in the next blocks that state something
            if line.code or not (ITEM_RE.search(line.text) or "%" in line.text):
                return j
            block = line.block
    return len(lines)


def _place_queries(steps: list[Step], bodies: list[list[Line]], tokens: list[str], base: int) -> None:
    """The position of each step's query: its token, else the Q it matches with, else its
    number at the offset the other steps agree on."""
    for step, body in zip(steps, bodies):
        if step.query is not None:
            continue
        if step.token and tokens.count(step.token) == 1:
            step.query, step.query_from = tokens.index(step.token) + base, "the step's token"
            continue
        for line in body:
            matches = [m for m in read_lists(line) if m.role == "match"]
            if matches:
                step.query, step.query_from = matches[0].query.index, "its query"
                break
    offsets = {s.query - s.number for s in steps if s.query is not None}
    if len(offsets) == 1:
        offset = offsets.pop()
        for step in steps:
            if step.query is None and step.number + offset >= base:
                step.query, step.query_from = step.number + offset, "its number"


# ---------------------------------------------------------------------------
# Mask pictures and generation rounds
# ---------------------------------------------------------------------------


def _mask_row(line: Line) -> MaskRow | None:
    text = line.text.strip()
    if not text or (MASK not in text and len(text) > 40):
        return None
    spaced = bool(re.search(r"\s", text))
    masks: list[str] = []
    if spaced:
        written = text.split()
        units = [MASK if set(u) == {MASK} else u for u in written]
        if any(MASK in u and u != MASK for u in units):
            return None
        masks = [w if u == MASK else "" for u, w in zip(units, written)]
    else:
        units = list(text)
    if units[0] == MASK or any(u in "│|┃[]()" for u in units):
        return None
    return MaskRow(line.number, line.col + len(line.text) - len(line.text.lstrip()), text, units, spaced, masks)


def _prefix(units: list[str]) -> int | None:
    """How many units a row shows when it shows a prefix and masks the rest, else None."""
    n = units.index(MASK) if MASK in units else len(units)
    return n if all(u == MASK for u in units[n:]) else None


def read_masks(lines: list[Line]) -> list[MaskPicture]:
    """Runs of consecutive lines like `我想买████`: one width, revealed units then █, more
    than half of the rows a staircase (row k showing the first offset + k units), and the
    revealed units agreeing position by position."""
    pictures = []
    run: list[MaskRow] = []

    def close():
        rows = list(run)  # the first has a mask and does not begin with one: two units at least
        run.clear()
        if sum(MASK in r.units for r in rows) < 2:
            return
        # a staircase: most rows show a prefix then masks, one more unit than the row above
        # (a masked token in the middle, as in BERT's fill-in, is another picture)
        offsets = [n - k for k, n in enumerate(_prefix(r.units) for r in rows) if n is not None]
        offset = max(set(offsets), key=offsets.count, default=None)
        if offset is None or 2 * offsets.count(offset) <= len(rows):
            return
        seen: dict[int, str] = {}
        for row in rows:
            for i, unit in enumerate(row.units):
                if unit != MASK and seen.setdefault(i, unit) != unit:
                    return
        pictures.append(MaskPicture(rows, offset))

    previous: Line | None = None
    for line in lines:
        row = _mask_row(line)
        adjacent = previous is not None and line.number == previous.number + 1 and line.block == previous.block
        if row is not None and run and adjacent and len(row.units) == len(run[0].units) and row.spaced == run[0].spaced:
            run.append(row)
        else:
            close()
            if row is not None and MASK in row.units:
                run.append(row)
        previous = line
    close()
    return pictures


def read_rounds(lines: list[Line]) -> tuple[list[list[Round]], list[Unread]]:
    """Generation rounds (`第二轮` / `输入：[…]；输出：”很”`), consecutive ones grouped; the rounds
    with an input and output whose number cannot be read (`第二三轮`)."""
    found: list[Round] = []
    unread: list[Unread] = []
    for i, line in enumerate(lines):
        if line.code:
            continue
        m = ROUND_RE.match(line.text)
        if not m:
            continue
        n = number_value(m.group("zh"), m.group("en"))
        current = Round(n, line.number)
        for follow in lines[i : i + 3]:
            if follow is not line and ROUND_RE.match(follow.text):
                break
            if current.input is None and (im := INPUT_RE.search(follow.text)):
                current.input = [t.group("t").strip() for t in LIST_ITEM_RE.finditer(im.group("list"))]
                current.input_line, current.input_col = follow.number, follow.col + im.start("list")
                current.input_text = im.group("list")
                rest = follow.text[im.end() :]
                if (om := OUTPUT_RE.search(rest)) and current.output is None:
                    current.output = om.group("q") or om.group("t")
            elif current.input is not None and current.output is None and (om := OUTPUT_RE.search(follow.text)):
                current.output = om.group("q") or om.group("t")
        if not (current.input and current.output):
            continue
        if n is None:  # not a round of any group: the rounds on either side are not consecutive
            word = m.group("zh") or m.group("en")
            unread.append(Unread(line.number, line.text.strip(), f"the round number “{word}” is not one number"))
            continue
        found.append(current)
    groups: list[list[Round]] = []
    for r in found:
        if groups and r.number == groups[-1][-1].number + 1:
            groups[-1].append(r)
        else:
            groups.append([r])
    return [g for g in groups if len(g) >= 2], unread


ZH_STEP_QUICK_RE = re.compile(rf"第\s*(?:{NUMBER})\s*步")
ZH_ROUND_QUICK_RE = re.compile(rf"第\s*(?:{NUMBER})\s*轮")


def _has_steps(text: str, lower: str) -> bool:
    """A quick look: a line that could begin a step (the reader proper decides)."""
    if "步" in text and ZH_STEP_QUICK_RE.search(text):
        return True
    if "step" not in lower:
        return False
    return any(STEP_RE.match(line.lstrip(" \t>*+#-0123456789.)|")) for line in lower.split("\n") if "step" in line)


# Searched in the lowered text, once "round" is found in it: a search ignoring case, or of a
# text without the word, scans far slower than `in`.
ROUND_WORD_RE = re.compile(r"\bround\b")


def read(text: str, tokens) -> Reading:
    """Everything this reader reads in one note (the note's lines are made only when a quick
    look at its text finds something to read)."""
    reading = Reading()
    if not may_have(text):
        return reading
    lower = text.lower()
    steps = _has_steps(text, lower) and ("%" in text or ITEM_RE.search(text) is not None)
    masks = MASK in text
    rounds = (  # a round's line, and an input list (`输入：[…]`) as written: `read_rounds` needs both
        ("输入" in text or "input" in lower)
        and (
            "轮" in text
            and ZH_ROUND_QUICK_RE.search(text) is not None
            or "round" in lower
            and ROUND_WORD_RE.search(lower) is not None
        )
        and INPUT_RE.search(text) is not None
    )
    promises = may_promise(text, lower)
    if not (steps or masks or rounds or promises):
        return reading
    lines, blocks = note_lines(text, tokens)
    if steps:
        reading.walkthroughs, unread = read_walkthroughs(lines)
        reading.unread += unread
    if masks:
        reading.masks = read_masks(lines)
    if rounds:
        reading.rounds, unread = read_rounds(lines)
        reading.unread = sorted(reading.unread + unread, key=lambda u: u.line)
    if promises:
        reading.promises = read_promises(lines, blocks, tokens)
    return reading
