"""Every number a drawing states about a model: dimensions, the √d scale, weight counts, series.

A drawing of attention or of a transformer repeats the same few numbers in many places: the
heads (`32 头`, `拆 32 头`, `Q(32,6,128)`), the head dim (`dim=128`, `/ √128`, `(S, 32, 128)`),
the model width (`(S, 4096)`, `4096→11008→4096`), the tokens (`6 个 token`, `Scores(32,6,6)`,
`6×6 矩阵`), the layers (`LLaMA-7B: 32 层`, `重复 32 次`), the FFN width, the experts and how
many are chosen. Each is read from the drawing's text runs (`readers.svgtext`) as a `Mention`
of a quantity, for the model the run names (one model named in a drawing: every run is about
it), and the mentions of a quantity must agree with each other, with the matrices drawn and
with the published configuration of a model the drawing names (`KNOWN_MODELS`). Then:

- heads × head dim = model width, and a decode step's score `Score(1, m)` has the cache length
  (the prompt's tokens plus the step);
- a weight count `3×(4096→4096) = 50M` is the product of the dims, at the precision written;
- a series `1.0 → 0.5 → 0.25` follows the factor the drawing states (`缩放 0.5x`) or its own;
  a sentence after it (`5 层后梯度只剩 3%`) restates its last term;
- a caption that restates the result of the line above (`分数是 -0.10` under `… = -0.10`) or
  `算出 13` after the one written sum `10 + 3 = 13` restates it;
- a weighted sum written as vectors (`0.45 × [1, 0] + 0.55 × [0, 2] = [0.45, 1.10]`) and a
  cross-entropy term (`−log(0.7) = 0.357`) are worked out at the precision written;
- numbers said to sum to 1 (`Σ = 1` under bars or rows), and each row of a grid captioned as
  attention weights that no drawn Q and K derive, add up to 1.

The arithmetic of a drawing's memory sizes (`32 头 × 128 维 × 2 × 2 bytes = 16KB`) is the claims
checker's, which reads SVG text like prose; its factors are mentions here. A number disagreeing
with the rest is a finding on its line; `fix` rewrites it only when one value is determined (a
majority of the other mentions, or a configuration), else the finding says it cannot tell.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass, field

from vaultkit import diagnostics
from vaultkit.checks import claims
from vaultkit.checks.drawings import vocabulary
from vaultkit.checks.drawings.handdrawn import caption_runs, is_mask, name_matrices
from vaultkit.checks.drawings.layouts import find_layout
from vaultkit.diagnostics import Diagnostic, Rule
from vaultkit.explain import DRAWING_NUMBER, Explained
from vaultkit.readers.svgtext import SvgText, TextRun

DIMENSION_DISAGREES = Rule(
    "VK440",
    diagnostics.ERROR,
    "a dimension a drawing states disagrees with the rest of the drawing",
    "{text}: {quantity} is written {written}; {against}",
    "The same heads, head dim, width, token count, layers or experts are stated in several places of a drawing "
    "(and in the configuration of a model it names); one of them differs. `vaultkit fix` rewrites it when the "
    "others settle the value.",
)
SHAPES_DO_NOT_COMPOSE = Rule(
    "VK441",
    diagnostics.ERROR,
    "the shapes a drawing states do not compose",
    "{text}: {problem}",
    "Heads × head dim must give the model width, and a decode step's score has one column per cached token "
    "(the prompt's tokens plus the step).",
)
SCALE_NOT_HEAD_DIM = Rule(
    "VK442",
    diagnostics.ERROR,
    "the √d a drawing divides by is not its head dim",
    "{text}: divides by √{written}; {against}",
    "Attention scores are divided by the square root of the head dim the drawing itself shows.",
)
WEIGHT_COUNT_WRONG = Rule(
    "VK443",
    diagnostics.ERROR,
    "a weight count in a drawing is not the product of its dims",
    "{text}: written {written}, the dims give {computed}",
    "`3×(4096→4096) = 50M`: a weight matrix from a to b holds a × b weights; the count is compared at the "
    "precision it is written with.",
)
SERIES_STEP_WRONG = Rule(
    "VK444",
    diagnostics.ERROR,
    "a step of a series in a drawing does not follow its factor",
    "{text}: step {step} is written {written}, the factor {factor} gives {computed}",
    "`1.0 → 0.5 → 0.25 → 0.125`: each step is the one before times the factor the drawing states (or the one "
    "all its other steps follow), at the precision written.",
)
RESTATED_DIFFERS = Rule(
    "VK445",
    diagnostics.ERROR,
    "a number a drawing restates differs from where it was worked out",
    "{text}: written {written}; {against}",
    "A caption or sentence that restates a result worked out in the drawing (the line above, the one written "
    "sum, the last step of a series, a weighted sum of vectors, a cross-entropy `−log p`) must say the same number.",
)
SUM_NOT_ONE = Rule(
    "VK446",
    diagnostics.ERROR,
    "numbers a drawing says sum to 1 do not",
    "{text}: {problem}",
    "Softmax weights (bars, a row) under a `Σ = 1` or `每行加起来 = 1`, and the rows of a grid captioned as "
    "weights that no drawn Q and K derive (where most of its rows do), must add up to 1 within the rounding "
    "of the numbers as written; which one is off the drawing cannot say, so `fix` leaves it alone.",
)
ARITHMETIC_WRONG = Rule(
    "VK447",
    diagnostics.ERROR,
    "arithmetic a drawing writes does not hold",
    "{text}: written {written}, its factors give {computed}",
    "The sums, products, sizes and shape products written in a drawing (`32 头 × 128 维 × 2 × 2 bytes = 16KB`, "
    "a line `× 32 layers = 128 KB` under the one it multiplies, `weights (1, 7) · V (7, 128) = out (1, 128)`) are "
    "read by the claims reader in the units and labels the drawing writes (`2 B` is two bytes in a size); a result "
    "that does not hold is a finding on its line, and `vaultkit fix` rewrites it where one value is determined.",
)
RULES = (
    DIMENSION_DISAGREES,
    SHAPES_DO_NOT_COMPOSE,
    SCALE_NOT_HEAD_DIM,
    WEIGHT_COUNT_WRONG,
    SERIES_STEP_WRONG,
    RESTATED_DIFFERS,
    SUM_NOT_ONE,
    ARITHMETIC_WRONG,
)

# Published configurations (config.json of the checkpoints): layers, heads, head dim, width, FFN width.
KNOWN_MODELS = {
    ("llama", "7B"): {"layers": 32, "heads": 32, "kv_heads": 32, "head_dim": 128, "d_model": 4096, "ffn": 11008},
    ("llama", "13B"): {"layers": 40, "heads": 40, "kv_heads": 40, "head_dim": 128, "d_model": 5120, "ffn": 13824},
    ("llama", "65B"): {"layers": 80, "heads": 64, "kv_heads": 64, "head_dim": 128, "d_model": 8192, "ffn": 22016},
    ("llama", "70B"): {"layers": 80, "heads": 64, "kv_heads": 8, "head_dim": 128, "d_model": 8192, "ffn": 28672},
}
COMPARED = ("tokens", "experts", "top_k", "kv_heads")  # drawings compare these between designs and sequences
NEAR_FACTOR = 8  # a slip writes a neighbour of the value (64 for 128); 2 beside 128 is another example
CONFIG_VOTES = 2  # a configuration counts as two mentions: with one more it settles a value
QUANTITY_NAMES = {
    "heads": "the heads",
    "head_dim": "the head dim",
    "d_model": "the model width",
    "tokens": "the tokens",
    "layers": "the layers",
    "ffn": "the FFN width",
    "experts": "the experts",
    "top_k": "the experts chosen per token",
    "kv_heads": "the KV heads",
    "q_width": "Q's width",
    "kv_width": "K's and V's width",
    "group": "the query heads per KV head",
}

MODEL = re.compile(
    r"(?i)(llama|deepseek|qwen|mistral|mixtral|gpt)(?:[-\s]?\d(?:\.\d)?(?=[-\s]))?(?:[-\s]?(v\d+|\d+(?:\.\d+)?b)\b)?"
)
BARE_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?B)(?=\s*[:：的(（])")
_DIM = r"\d+|[A-Za-z_][A-Za-z0-9_]*"
SHAPE = re.compile(
    rf"(?<![A-Za-z0-9_])(?:([A-Za-z_][A-Za-z0-9_]*(?:\^T|ᵀ)?) ?)?\(\s*((?:{_DIM})(?:\s*,\s*(?:{_DIM}))+)\s*\)"
)
DIM_TOKEN = re.compile(_DIM)
QUERY = ("q", "q_new", "query")
KEY_VALUE = ("k", "v", "k_cache", "v_cache", "k_new", "v_new", "key", "value")
# the width of an unnamed (n, w) is the model's, unless the line is about another width
OTHER_WIDTH = re.compile(
    r"FFN|MLP|[Hh]idden|intermediate|中间|[Vv]ocab|词表|logits|LM Head|lm_head|[Ee]xpert|专家|\b(?:up|gate|down)\b|W_?[12]|W_up"
)
HEADS = re.compile(r"(?<![\d.])(\d+)\s*(?:个\s*)?(?:头|[Hh]eads?\b)")
HEAD_DIM_AFTER_HEADS = re.compile(r"(?<![\d.])(\d+)\s*维")
HEAD_DIM = re.compile(r"(?<![A-Za-z_])dim\s*=\s*(\d+)|(?<![\d.])(\d+)\s*(?:dim\b|维向量)")
SCALE = re.compile(r"(?:/|除以)\s*√\s*(\d+)(?![\d.])")
TOKENS = re.compile(r"(?<![\d.~≈约])(\d+)\s*(?:个\s*)?(?:(?:prompt|input|context|cached)\s+)?tokens?\b")
# a count of tokens in words is the sequence's only where it says so: the input, the prompt, all of them, the cache
SEQUENCE_WORD = re.compile(r"输入|[Pp]rompt|所有|全部|前\s*\d|存了|[Cc]ache|Embedding|[Ii]nput|序列|sequence")
SQUARE = re.compile(r"(?<![\d.])(\d+)\s*[×x]\s*(\d+)\s*(?:的\s*)?(?:注意力)?矩阵")
LAYERS = re.compile(r"(?<![\d.])(\d+)\s*层(?!后)")
REPEATS = re.compile(r"重复\s*(\d+)\s*次")
CHAIN = re.compile(r"(?<![\d.])(\d+)\s*→\s*(\d+)\s*→\s*(\d+)(?![\d.])")
WEIGHTS = re.compile(r"(?:(\d+)\s*[×x]\s*)?\(\s*(\d+)\s*→\s*(\d+)\s*\)\s*=\s*(\d+(?:\.\d+)?)\s*([KMBT])(?![A-Za-z])")
EXPERTS = re.compile(r"(?<![\d.])(\d+)\s*(?:个\s*)?(?:专家|experts\b)")
CHOSEN = re.compile(r"(?:每\s*个?\s*[Tt]oken|per token|激活|选|[Tt]op)\s*\S{0,3}\s*$")  # `每 token 8 专家`: chosen
TOP_K = re.compile(r"[Tt]op-?\s*(\d+)|激活\s*(\d+)\s*个")
CONCAT = re.compile(r"(?<![\d.])(\d+)\s*[×x]\s*$")  # searched up to a shape: `32 × (S, 128)`
END = r"(?![\d.]|\s*[-+*/×÷^])"  # a whole number standing alone, not the start of arithmetic
NAMED = (  # `h = 12`, `d_k = 64`, `head_dim 128`, `8 KV heads`, `group size = 4`: a quantity by its name
    ("heads", re.compile(r"(?<![\w/*×÷])(?:h|n_heads?|num_heads|num_attention_heads)\s*=\s*(\d+)" + END)),
    (
        "heads",
        re.compile(
            r"(?<!of )(?<![\d.])(\d+)\s*(?:个\s*)?(?:Q|[Qq]uery|查询)\s*(?:头|heads?\b)(?!\s*(?:share|共享|per\b|each|每))"
        ),
    ),
    ("head_dim", re.compile(r"(?<![\w/*×÷])(?:d_k|d_v|d_head|head_dim|d_h)\s*[=:：]?\s*(\d+)" + END)),
    ("d_model", re.compile(r"(?<![\w/*×÷])(?:d_model|hidden_size|d_embed|n_embd)\s*[=:：]?\s*(\d+)" + END)),
    ("layers", re.compile(r"(?<![\w/*×÷])(?:n_layers?|num_layers|num_hidden_layers)\s*[=:：]?\s*(\d+)" + END)),
    ("ffn", re.compile(r"(?<![\w/*×÷])(?:d_ff|d_ffn|ffn_dim|intermediate_size)\s*[=:：]?\s*(\d+)" + END)),
    (
        "kv_heads",
        re.compile(r"(?<![\w/*×÷])(?:n_kv_heads|num_kv_heads|num_key_value_heads|kv_heads)\s*=\s*(\d+)" + END),
    ),
    ("kv_heads", re.compile(r"(?<![\d.])(\d+)\s*(?:个\s*)?(?:KV|kv|K/V)\s*(?:头|heads?\b)")),
    (
        "group",
        re.compile(
            r"\bgroup[_ ]size\s*=\s*(\d+)" + END + r"|每\s*(\d+)\s*个\s*(?:Q\s*|查询\s*)?头共享|shared by (\d+)"
            r"|(?<![\d.])(\d+)\s*(?:个\s*)?(?:Q|[Qq]uery|查询)\s*(?:头|heads?\b)\s*(?:share|共享)"
            r"|\bgroups?\s+of\s+(\d+)\s*(?:Q|[Qq]uery)\s*heads?\b"  # `2 groups of 2 query heads`
        ),
    ),
    ("head_dim", re.compile(r"(?<![\d.])\d+\s*(?:query\s+)?heads?\s+of\s+(?:dim\s*)?(\d+)" + END)),  # `2 heads of 3`
)
SHARE = re.compile(
    r"(?:每\s*(?:张|卡|台|块|组|个?\s*GPU|个?\s*节点|个?\s*[Tt]oken)|(?:per|each)\s+(?:GPU|device|node|token|rank|group))"
    r"[^，。；,;]{0,12}$|第\s*$"
)
KV_LINE = re.compile(r"\s*(?:K|V|KV|K/V|Key|Value)\s*[:：]")  # `K: [1 × 8 heads × 128d]`: the K heads
GROUPED = re.compile(r"GQA|MQA|分组|[Gg]rouped")
SENTENCE_END = re.compile(r"[。；;！？!?]")
# the width of an unnamed (n, w) is the model's where the line says what it is: the input, the output, a shape
SHAPE_WORD = re.compile(r"输入|输出|形状|[Ss]hape|[Ii]nput|[Oo]utput|Embedding|拼成|[Cc]oncat|\bX\b")
SCORE_WORD = re.compile(r"[Ss]cores?|分数|[Ww]eights|K\^T|Kᵀ|QK")
WEIGHT_WORD = re.compile(r"proj|W_|Linear|参数|[Pp]arams?|投影|\|")  # a weight matrix's shape, or a table's cell
HEAD_LABEL = re.compile(r"Head\s*\d")
PER_HEAD = re.compile(r"每个头|每头|单头|[Pp]er[ -]head|[Ee]ach head|head_i|头\s*\d")
SUMS_TO_ONE = re.compile(r"(?:Σ|∑|[Ss]um|总和|和为|加起来|相加)\s*(?:=|为|是|等于)?\s*(1(?:\.0+)?|100\s*%)(?![\d.])")
ONE_NUMBER = re.compile(r"\s*(\d*\.\d+|\d+(?:\.\d+)?\s*%)\s*")
ROW_OF_NUMBERS = re.compile(r"\s*\[?\s*(?:\d*\.\d+[\s,]+){1,}\d*\.\d+\s*\]?\s*")
PROBABILITY = re.compile(r"\d*\.\d+(?:\s*%)?|\d+\s*%")
STEP = re.compile(r"\b[Ss]tep\s*(\d+)")
CACHE_WORD = re.compile(r"[Cc]ache|缓存")
NEW_TOKEN = re.compile(r"新|new|每次|每步")
ATTENTION_WORD = re.compile(r"注意力|[Aa]ttention|Score|K\^T|Kᵀ")
SERIES = re.compile(r"-?\d+(?:\.\d+)?(?:\s*→\s*-?\d+(?:\.\d+)?){3,}")
FACTOR = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)x(?![\w])")
LEFT_AFTER = re.compile(r"(?<![\d.])(\d+)\s*层后[^%]*?剩\s*(\d+(?:\.\d+)?)\s*%")
PERCENT_OF = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*%\s*[（(]\s*(\d*\.?\d+)\s*/\s*(\d*\.?\d+)\s*[)）]"
)  # `12.5%（0.125 / 1.0）`
RESULT = re.compile(r"=\s*(-?\d+(?:\.\d+)?)\s*$")
RESTATES_RESULT = re.compile(r"是\s*(-?\d+(?:\.\d+)?)(?![\d.])")
WORKED_AGAIN = re.compile(r"(?:算出|得到|得出)\s*(-?\d+(?:\.\d+)?)(?![\d.]|\s*[×x*])")
SUM = re.compile(r"(?<![\w.])(-?\d+(?:\.\d+)?)(?:\s*[+\-]\s*\(?-?\d+(?:\.\d+)?\)?)+\s*=\s*(-?\d+(?:\.\d+)?)(?![\d.])")
DIGIT = re.compile(r"\d")
VECTOR_TERM = re.compile(r"\s*(?:([-−]?\d+(?:\.\d+)?)\s*[×*·]\s*)?\[([^\[\]]*)\]\s*")  # `0.45 × [1, 0]`
# `−log(0.7) = 0.357`, `-ln 0.25 = 1.386`, `−log₂ p = −log₂ 0.5 = 1`: a cross-entropy term
MINUS_LOG = re.compile(
    r"[-−]\s*(ln|log(?:_?(?:2|10|e)|₂|₁₀)?)\s*\(?\s*(\d*\.?\d+)\s*\)?\s*=\s*(\d+(?:\.\d+)?)(?![\d.])"
)
LOG_BASES = {"ln": math.e, "log_e": math.e, "loge": math.e, "log2": 2, "log_2": 2, "log₂": 2, "log10": 10, "log_10": 10}
LOG_BASES["log₁₀"] = 10
COMPONENT = re.compile(r"[-−]?\d+(?:\.\d+)?")
UNITS = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}
# the arithmetic of a drawing, as the claims reader is handed it
SIGN = re.compile(r"\d\s*\)?\s*[=≈]|[=≈]\s*\(?\s*-?\d")
SIZE_RESULT = re.compile(r"[=≈]\s*\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?|字节)")  # a line whose result is a size
BARE_BYTES = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(\s*B)(?![\w])")  # `2 B`: two bytes, in a size
CONTINUED = re.compile(r"\s*[×*·]")  # `× 32 layers = 128 KB`: multiplies the result of the line above
LAST_RESULT = re.compile(r"[=≈]\s*(\d+(?:\.\d+)?\s*(?:[KMGT]i?B|bytes?)?)[^=≈]*$")
LABEL_WORDS = re.compile(r"\d\s*[A-Za-z]+((?:\s+[a-z]+)+)(?=\s*[-+×*/=≈])")  # `4096 tokens of context =`
SHAPE_NAME = re.compile(r"(?<![\w(])[A-Za-z_]\w*(?:ᵀ|\^T)?\s*(?=\(\s*\d+(?:\s*,\s*\d+)+\s*\))")
SHAPE_TIMES = re.compile(r"(?<=\))\s*·\s*(?=[A-Za-z_]*\s*\()")  # `(1, 7) · V (7, 128)`: a product
SIZE_SCALE = re.compile(r"\s*([KMGT])i?B")
PER = r"\s*(?:per|/|for every|for each|each|每个?)\s*(token|layer|head)|\s*(?:每个?)\s*(?:(token)|(层))"
SIZE_PER = re.compile(rf"(?<![\d.])(\d+(?:\.\d+)?)\s*([KMGT])i?B(?:{PER})")  # `512 KB per token`


@dataclass
class Mention:
    """A number of a drawing read as a quantity of a model."""

    quantity: str
    value: int
    run: TextRun
    start: int  # offsets of the digits in the source
    end: int
    model: tuple | None = None
    scale: bool = False  # a `√d`

    def text(self) -> str:
        return " ".join(self.run.text.split())


@dataclass
class NumbersReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    explained: list[Explained] = field(default_factory=list)
    edits: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, new text) in the source
    fixes: list[str] = field(default_factory=list)  # `line 41: dim=64 → dim=128`
    read: int = 0  # numbers read and checked

    def fixed(self, source: str) -> str:
        """The source with every determined number rewritten."""
        for start, end, new in sorted(self.edits, reverse=True):
            source = source[:start] + new + source[end:]
        return source


def _decimals(written: str) -> int:
    return len(written.split(".")[1]) if "." in written else 0


def _fits(written: str, value: float) -> bool:
    """`written` is `value` rounded to the places it shows."""
    return abs(float(written) - value) <= 0.5 * 10 ** -_decimals(written) + 1e-9


def _styled(value: float, like: str) -> str:
    return f"{value:.{_decimals(like)}f}"


class _Reader:
    """The mentions of one drawing, and its findings."""

    def __init__(self, model: SvgText, rel: str, drawn: dict | None):
        self.model, self.rel, self.drawn = model, rel, drawn or {}
        self.placed = [r for r in model.runs if r.raw == r.text and r.text.strip()]  # what a line above may be
        self.runs = sorted(
            (r for r in model.runs if r.raw == r.text and DIGIT.search(r.text)), key=lambda r: (r.cy, r.cx)
        )
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", model.source)]
        self.mentions: list[Mention] = []
        self.report = NumbersReport()
        self.models: dict[int, list[tuple[int, tuple]]] = {}  # run start → (offset, model key)
        self.models_named = 0
        self.one_model = False  # the drawing names one model: every run is about it
        self.per_head = self._per_head_runs()
        # Score(1, m) of a decode step, or the cache's count after it: (run, (m, offset))
        self.decode_scores: list[tuple[TextRun, tuple[int, int]]] = []
        self.weight_counts: list[tuple[TextRun, re.Match]] = []
        self.held: set[int] = set()  # runs whose arithmetic the claims reader reads and finds right

    # where a run stands

    def _per_head_runs(self) -> set[int]:
        """A head's own tensors: runs that say so (`每个头`, `per head`) and runs inside the smallest
        card that also holds a `Head N` label."""
        own = {r.start for r in self.runs if PER_HEAD.search(r.text)}
        if not any(HEAD_LABEL.search(r.text) for r in self.runs):
            return own
        holder = {}
        for run in self.runs:
            cards = [c for c in self.model.cards if c.holds(run.cx, run.cy)]
            holder[run.start] = min(cards, key=lambda c: c.area) if cards else None
        labelled = {id(holder[r.start]) for r in self.runs if holder[r.start] is not None and HEAD_LABEL.search(r.text)}
        return own | {r.start for r in self.runs if holder[r.start] is not None and id(holder[r.start]) in labelled}

    def _above(self, run: TextRun) -> list[TextRun]:
        """The runs above a run whose glyphs overlap it across, nearest first."""
        found = [r for r in self.placed if r.cy < run.cy and r.left < run.right and run.left < r.right]
        return sorted(found, key=lambda r: run.cy - r.cy)

    def _model_of(self, run: TextRun, at: int) -> tuple | None:
        """The model a number at `at` of a run is about: the last one named before it in its
        sentence, or one named right after it (`重复 32 次（LLaMA-7B）`)."""
        names = self.models.get(run.start, [])
        before = [key for offset, key in names if offset <= at and not SENTENCE_END.search(run.text, offset, at)]
        after = [key for offset, key in names if at < offset <= at + 16]
        return before[-1] if before else (after[0] if after else None)

    def _read_models(self) -> None:
        for run in self.runs:
            found = [(m.start(), (m.group(1).lower(), (m.group(2) or "").upper())) for m in MODEL.finditer(run.text)]
            if found:
                family = found[0][1][0]
                found += [(m.start(), (family, m.group(1).upper())) for m in BARE_SIZE.finditer(run.text)]
                self.models[run.start] = sorted(set(found))

    def _add(self, quantity: str, run: TextRun, match: re.Match, group: int | None = 1, scale: bool = False) -> None:
        """A mention of `quantity`: the match's `group` (None: its first group that matched)."""
        if group is None:
            group = next((k for k in range(1, len(match.groups()) + 1) if match.group(k) is not None), 1)
        if match.group(group) is None:
            return
        begin = match.start(group)
        if quantity != "top_k" and SHARE.search(run.text, 0, begin):
            return  # `每张 1 KV head`, `每 token 8 专家`, `第 1 个头`: a share of the count, or one of them
        value = int(match.group(group))
        self.mentions.append(
            Mention(
                quantity, value, run, run.start + begin, run.start + match.end(group), self._model_of(run, begin), scale
            )
        )

    # reading

    def read(self) -> None:
        self._read_models()
        for run in self.runs:
            self._read_shapes(run)
            text = run.text
            for m in HEADS.finditer(text) if not GROUPED.search(text) else ():  # `8 头` of a GQA row: KV heads
                self._add("kv_heads" if KV_LINE.match(text) else "heads", run, m)
            if HEADS.search(text):
                for m in HEAD_DIM_AFTER_HEADS.finditer(text):
                    if HEADS.search(text, 0, m.start()):
                        self._add("head_dim", run, m)
            for m in HEAD_DIM.finditer(text):
                self._add("head_dim", run, m, 1 if m.group(1) else 2)
            for m in SCALE.finditer(text):
                self._add("head_dim", run, m, scale=True)
            if not NEW_TOKEN.search(text) and SEQUENCE_WORD.search(text):
                after_step = STEP.search(text) and CACHE_WORD.search(text)
                for m in TOKENS.finditer(text):
                    if after_step:  # `after step 3 the cache holds 8 tokens`: the prompt and the steps
                        self.decode_scores.append((run, (int(m.group(1)), m.start(1))))
                    else:
                        self._add("tokens", run, m)
            if ATTENTION_WORD.search(text) or self.drawn:
                for m in SQUARE.finditer(text):
                    self._add("tokens", run, m, 1)
                    self._add("tokens", run, m, 2)
            if self.models.get(run.start):
                for m in LAYERS.finditer(text):
                    self._add("layers", run, m)
            if "层" in text:
                for m in REPEATS.finditer(text):
                    self._add("layers", run, m)
            for m in re.finditer(r"(?<![\d.])(\d+)\s*层总计", text):
                self._add("layers", run, m)
            for m in CHAIN.finditer(text):
                alone = m.group(0) == text.strip()
                wider = int(m.group(2)) > max(int(m.group(1)), int(m.group(3)))  # out to the FFN width and back
                if wider and (alone or OTHER_WIDTH.search(text)):
                    self._add("d_model", run, m, 1)
                    self._add("ffn", run, m, 2)
                    self._add("d_model", run, m, 3)
            for m in EXPERTS.finditer(text):
                self._add("top_k" if CHOSEN.search(text, 0, m.start()) else "experts", run, m)
            for m in TOP_K.finditer(text):
                self._add("top_k", run, m, 1 if m.group(1) else 2)
            for quantity, pattern in NAMED:
                for m in pattern.finditer(text):
                    self._add(quantity, run, m, None)
            self._read_weights(run)
        names = {key for keys in self.models.values() for _, key in keys}
        self.models_named = len(names)
        self.one_model = len(names) == 1
        if self.one_model:
            self._join(names.pop())

    def _join(self, only: tuple) -> None:
        """The one model a drawing names: a quantity stated where no model is named is about it,
        unless it is far from what the model's mentions (or configuration) say: a smaller example
        drawn beside it (`4 个 token，每头 2 维` beside LLaMA-7B's 128), not a slip."""
        config = KNOWN_MODELS.get(only, {})
        for quantity in {m.quantity for m in self.mentions}:
            named = {m.value for m in self.mentions if m.quantity == quantity and m.model == only}
            named |= {config[quantity]} if quantity in config else set()
            for mention in self.mentions:
                if mention.quantity == quantity and mention.model is None:
                    if not named or any(max(v, mention.value) < NEAR_FACTOR * min(v, mention.value) for v in named):
                        mention.model = only

    def _read_shapes(self, run: TextRun) -> None:
        for m in SHAPE.finditer(run.text):
            name = (m.group(1) or "").replace("^T", "").replace("ᵀ", "").lower()
            dims = [(d.group(0), m.start(2) + d.start()) for d in DIM_TOKEN.finditer(m.group(2))]
            numeric = [(int(d), at) for d, at in dims if d.isdigit()]
            if len(dims) == 3:
                if len(numeric) == 2:  # (S, 32, 128) or (32, S, 128): the heads and the head dim
                    roles = ("heads", "head_dim")
                elif len(numeric) == 3 and name in QUERY and numeric[1][0] == 1:  # one new token: a decode step
                    numeric, roles = [numeric[0], numeric[2]], ("heads", "head_dim")
                elif len(numeric) == 3 and name in QUERY:
                    roles = ("heads", "tokens", "head_dim")
                elif len(numeric) == 3 and name in KEY_VALUE:  # grouped-query attention: fewer K and V heads
                    roles = ("kv_heads", "tokens", "head_dim")
                elif len(numeric) == 3 and name.startswith(("score", "weight", "attn")) and numeric[1][0] != 1:
                    roles = ("heads", "tokens", "tokens")
                else:
                    continue
            elif len(dims) == 2:
                heads = CONCAT.search(run.text, 0, m.start())
                if heads:  # 32 × (S, 128) → (S, 4096): the heads, concatenated
                    self._add("heads", run, heads)
                    roles = ("tokens", "head_dim")
                elif name.startswith(("score", "weight", "attn")):
                    if numeric and numeric[0][0] == 1 and len(numeric) == 2:
                        self.decode_scores.append((run, numeric[1]))
                        continue
                    roles = ("tokens", "tokens")
                elif run.start in self.per_head:
                    roles = ("tokens", "head_dim")
                elif name in QUERY or name in KEY_VALUE:  # a projection: the width, or a head's, or fewer KV
                    roles = ("tokens", "q_width" if name in QUERY else "kv_width")
                elif name == "" and SCORE_WORD.search(run.text, 0, m.start()):  # Scores = Q × Kᵀ → (4, 4)
                    roles = ("tokens", "tokens")
                elif (
                    name in ("", "x")
                    and not OTHER_WIDTH.search(run.text)
                    and not WEIGHT_WORD.search(run.text)
                    and (not dims[0][0].isdigit() or SHAPE_WORD.search(run.text))
                ):
                    roles = ("tokens", "d_model")
                else:
                    continue
                if len(numeric) == 1 and dims[0][0].isdigit():
                    continue
                if len(numeric) == 1:
                    roles = roles[1:]
                elif numeric and numeric[0][0] == 1:  # a single new token: a decode step, not the prompt
                    numeric, roles = numeric[1:], roles[1:]
            else:
                continue
            for (value, at), role in zip(numeric, roles):
                digits = str(value)
                self.mentions.append(
                    Mention(role, value, run, run.start + at, run.start + at + len(digits), self._model_of(run, at))
                )

    def _read_weights(self, run: TextRun) -> None:
        ffn = re.search(r"FFN|up|gate|down", run.text)
        for m in WEIGHTS.finditer(run.text):
            self.weight_counts.append((run, m))
            if m.group(2) == m.group(3):
                roles = ("d_model", "d_model")
            elif ffn:
                roles = ("ffn", "d_model") if "down" in run.text else ("d_model", "ffn")
            else:
                continue
            for group, role in zip((2, 3), roles):
                self._add(role, run, m, group)

    # checking

    def where(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a character offset."""
        line = bisect_right(self.line_starts, offset)
        return line, offset - self.line_starts[line - 1] + 1

    def finding(self, rule: Rule, offset: int, *, fix: tuple[int, int, str] | None = None, **values) -> None:
        line, col = self.where(offset)
        self.report.diagnostics.append(rule.at(self.rel, line, col, **values))
        if fix is not None:
            start, end, new = fix
            old = self.model.source[start:end]
            self.report.edits.append(fix)
            for run in self.runs:  # the same label drawn twice (draw.io's HTML and its <text>): both copies
                if run.start <= start < run.start + len(run.text):
                    self.report.edits += [
                        (t.start + start - run.start, t.start + end - run.start, new) for t in run.twins
                    ]
            self.report.fixes.append(f"line {line}: {old} → {new}")

    def explain(self, offset: int, verdict: str, text: str, note: str) -> None:
        """An `--explain` entry: the number at `offset`, in the line `text`, and what it was checked against."""
        line, col = self.where(offset)
        number = re.match(r"-?\d+(?:\.\d+)?", self.model.source[offset : offset + 24])
        shown = f"{number.group(0) if number else '?'} in “{text}”"
        self.report.explained.append(Explained(self.rel, line, verdict, shown, note, col, kind=DRAWING_NUMBER))
        self.report.read += verdict != ""

    def check(self) -> NumbersReport:
        self.read()
        settled = self._check_groups()
        self._check_relations(settled)
        self._check_weights()
        self._check_series()
        self._check_restated()
        self._check_sums_to_one()
        self._check_weight_rows()
        self._check_vector_sums()
        self._check_minus_logs()
        self._check_arithmetic()
        self._check_restated_sizes()
        self.report.explained.sort(key=lambda e: (e.line, e.col))
        return self.report

    def _drawn_votes(self, quantity: str) -> tuple[int | None, str]:
        """What the matrices drawn say about a quantity: Q's rows are the tokens, its columns the head dim."""
        q = self.drawn.get("Q")
        if not q:
            return None, ""
        if quantity == "tokens":
            return len(q), f"Q is drawn with {len(q)} rows"
        if quantity == "head_dim":
            return len(q[0]), f"Q is drawn with {len(q[0])} columns"
        return None, ""

    def _check_groups(self) -> dict[tuple, int]:
        """Each quantity of each model: its mentions agree; returns the settled values."""
        groups: dict[tuple, list[Mention]] = {}
        for mention in self.mentions:
            groups.setdefault((mention.quantity, mention.model), []).append(mention)
        settled = {}
        later = ("d_model", "q_width")  # the width is also the heads times the head dim, once those are settled
        for (quantity, model), mentions in sorted(groups.items(), key=lambda item: item[0][0] in later):
            votes = Counter(m.value for m in mentions)
            sources = []
            heads, dim = settled.get(("heads", model)), settled.get(("head_dim", model))
            if quantity == "d_model" and heads and dim and len(votes) > 1:
                votes[heads * dim] += CONFIG_VOTES
                sources.append(f"{heads} heads × {dim}")
            config = KNOWN_MODELS.get(model, {}).get(quantity) if model else None
            if config is not None:
                votes[config] += CONFIG_VOTES
                sources.append(f"the {model[0].capitalize()}-{model[1]} configuration")
            drawn, said = self._drawn_votes(quantity) if model is None else (None, "")
            if drawn is not None:
                votes[drawn] += CONFIG_VOTES
                sources.append(said)
            (best, most), *rest = votes.most_common()
            determined = most >= 2 and most > sum(n for _, n in rest)
            if determined or not rest:  # the value the drawing states, by all its mentions or most
                settled[(quantity, model)] = best
            name = QUANTITY_NAMES[quantity]
            for mention in mentions:
                others = [m for m in mentions if m is not mention]
                lines = sorted(
                    {self.where(m.start)[0] for m in others if m.value == (best if determined else mention.value)}
                )
                against = [f"line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))}"] if lines else []
                against += sources
                where = ", ".join(against)
                if not rest:
                    note = f"{name} {mention.value}: as {where}" if where else f"{name} {mention.value}: stated once"
                    self.explain(mention.start, "ok" if where else "", mention.text(), note)
                    continue
                if determined and mention.value == best:
                    self.explain(mention.start, "ok", mention.text(), f"{name} {best}: as {where}")
                    continue
                if determined:
                    why = f"the drawing says {best} ({where})"
                    fix = (mention.start, mention.end, str(best))
                else:
                    values = ", ".join(str(v) for v, _ in votes.most_common())
                    why = f"the drawing says {values} in different places and does not settle which is meant"
                    fix = None
                    # a model has one of each, and two readings are a slip in one of them; a drawing may
                    # show several sequences (or compare experts of several models), and three values are no slip
                    low, high = min(votes), max(votes)
                    reported = (
                        len(votes) == 2
                        and high < NEAR_FACTOR * low  # 2 beside 128: two examples, not a slip
                        and (model is not None or self.models_named < 2)  # unnamed runs of several models
                        and (quantity not in COMPARED or (quantity != "tokens" and self.one_model))
                    )
                    if not reported or (votes[mention.value] == most and most > min(votes.values())):
                        self.explain(mention.start, "warning", mention.text(), f"{name} {mention.value}: {why}")
                        continue
                rule = SCALE_NOT_HEAD_DIM if mention.scale else DIMENSION_DISAGREES
                self.finding(
                    rule, mention.start, fix=fix, text=mention.text(), quantity=name, written=mention.value, against=why
                )
                self.explain(mention.start, "error", mention.text(), f"{name} {mention.value}: {why}")
        return settled

    def _check_relations(self, settled: dict[tuple, int]) -> None:
        """Heads × head dim = width, for each model; a decode step's score has the cache length."""
        for (quantity, model), width in settled.items():
            if quantity != "d_model":
                continue
            heads, dim = settled.get(("heads", model)), settled.get(("head_dim", model))
            if heads is None or dim is None:
                continue
            first = next(m for m in self.mentions if m.quantity == "d_model" and m.model == model)
            problem = f"{heads} heads × head dim {dim} = {heads * dim}, not the width {width} the drawing states"
            if heads * dim == width:
                self.explain(first.start, "ok", first.text(), f"the model width {width} = {heads} heads × {dim}")
            else:
                self.finding(SHAPES_DO_NOT_COMPOSE, first.start, text=first.text(), problem=problem)
                self.explain(first.start, "error", first.text(), problem)
        for (quantity, model), width in settled.items():
            heads, dim = settled.get(("heads", model)), settled.get(("head_dim", model))
            if quantity != "q_width" or heads is None or dim is None:
                continue
            first = next(m for m in self.mentions if m.quantity == "q_width" and m.model == model)
            if width in (heads * dim, dim):  # all heads' queries, or one head's
                self.explain(
                    first.start,
                    "ok",
                    first.text(),
                    f"Q's width {width}: {heads} heads × {dim}" if width != dim else f"Q's width {width}: one head's",
                )
                continue
            problem = (
                f"Q's width {width} is neither {heads} heads × head dim {dim} = {heads * dim} nor one head's {dim}"
            )
            self.finding(SHAPES_DO_NOT_COMPOSE, first.start, text=first.text(), problem=problem)
            self.explain(first.start, "error", first.text(), problem)
        for (quantity, model), kv in settled.items():
            if quantity == "kv_heads" and (heads := settled.get(("heads", model))) is not None:
                self._check_shares(model, heads, kv, settled.get(("group", model)))
        for run, (columns, at) in self.decode_scores:
            tokens = next((v for (q, _), v in settled.items() if q == "tokens"), None)
            step = self._step_of(run)
            if tokens is None or step is None:
                self.explain(
                    run.start + at,
                    "",
                    " ".join(run.text.split()),
                    "a decode step's score: the prompt's tokens or the step are not stated",
                )
                continue
            cache = tokens + step
            offset = run.start + at
            if columns == cache:
                self.explain(
                    offset,
                    "ok",
                    " ".join(run.text.split()),
                    f"decode step {step}: {tokens} prompt tokens + {step} = {cache} cached",
                )
                continue
            problem = f"step {step} after a prompt of {tokens} tokens has {cache} cached tokens, written {columns}"
            self.finding(
                SHAPES_DO_NOT_COMPOSE,
                offset,
                fix=(offset, offset + len(str(columns)), str(cache)),
                text=" ".join(run.text.split()),
                problem=problem,
            )
            self.explain(offset, "error", " ".join(run.text.split()), problem)

    def _check_shares(self, model: tuple | None, heads: int, kv: int, group: int | None) -> None:
        """Grouped-query attention: the query heads are the KV heads times the heads that share one."""
        first = next(m for m in self.mentions if m.quantity == ("group" if group else "kv_heads") and m.model == model)
        if group is None:
            problem = f"{kv} KV heads cannot be shared evenly by {heads} query heads"
            shared = heads % kv == 0
        else:
            problem = f"{kv} KV heads shared by {group} query heads each are {kv * group} query heads, not {heads}"
            shared = kv * group == heads
        if shared:
            how = f"{heads} query heads share {kv} KV heads" + (f", {group} each" if group else "")
            self.explain(first.start, "ok", first.text(), how)
            return
        self.finding(SHAPES_DO_NOT_COMPOSE, first.start, text=first.text(), problem=problem)
        self.explain(first.start, "error", first.text(), problem)

    def _step_of(self, run: TextRun) -> int | None:
        """The `Step N` label nearest above a run (its own text first)."""
        if found := STEP.search(run.text):
            return int(found.group(1))
        above = [r for r in self._above(run) if STEP.search(r.text)]
        left = [r for r in self.runs if r.cy < run.cy + run.size / 2 and r.right <= run.left and STEP.search(r.text)]
        label = min(above + left, key=lambda r: run.cy - r.cy, default=None)
        return int(STEP.search(label.text).group(1)) if label else None

    def _check_weights(self) -> None:
        for run, m in self.weight_counts:
            count = int(m.group(1) or 1) * int(m.group(2)) * int(m.group(3))
            written, unit = m.group(4), m.group(5)
            value = count / UNITS[unit]
            text = " ".join(run.text.split())
            offset = run.start + m.start(4)
            shown = f"{_styled(value, written)}{unit}"
            if _fits(written, value):
                self.explain(offset, "ok", text, f"weights {count:,} = {shown}")
                continue
            self.finding(
                WEIGHT_COUNT_WRONG,
                offset,
                fix=(offset, run.start + m.end(4), _styled(value, written)),
                text=text,
                written=f"{written}{unit}",
                computed=shown,
            )
            self.explain(offset, "error", text, f"weights {count:,} = {shown}, written {written}{unit}")

    def _stated_factor(self, run: TextRun) -> tuple[TextRun, re.Match] | None:
        """The `0.5x` the line above a series states (the last factor written on it)."""
        column = self._above(run)
        if not column:
            return None
        above = column[0]
        found = list(FACTOR.finditer(above.text))
        return (above, found[-1]) if found else None

    def _check_series(self) -> None:
        self.series: dict[int, tuple[list[str], float]] = {}  # run start → terms and factor
        for run in self.runs:
            for m in SERIES.finditer(run.text):
                terms = [(t.group(0), m.start() + t.start()) for t in re.finditer(r"-?\d+(?:\.\d+)?", m.group(0))]
                self._check_one_series(run, terms)

    def _check_one_series(self, run: TextRun, terms: list[tuple[str, int]]) -> None:
        first = float(terms[0][0])
        if first == 0:
            return
        stated = self._stated_factor(run)
        candidates = [float(stated[1].group(1))] if stated else []
        candidates += [float(b[0]) / float(a[0]) for a, b in zip(terms, terms[1:]) if float(a[0]) != 0]

        def misses(factor: float) -> list[int]:
            exact = [math.isclose(float(t), first * factor**i, abs_tol=1e-12) for i, (t, _) in enumerate(terms)]
            out = []
            for i, (t, _) in enumerate(terms):
                value = first * factor**i
                later = max((_decimals(u) for u, _ in terms[i + 1 :]), default=0)
                # a series written exactly (1.0 → 0.5 → … → 0.125) holds a term to the places a later one shows
                held = later > _decimals(t) and all(e for k, e in enumerate(exact) if k != i)
                if i and not (math.isclose(float(t), value, abs_tol=1e-12) if held else _fits(t, value)):
                    out.append(i)
            return out

        factor = min(candidates, key=lambda f: (len(misses(f)), f not in candidates[:1]))
        wrong = misses(factor)
        text = " ".join(run.text.split())
        if len(wrong) > 1:
            self.explain(run.start + terms[0][1], "", text, f"a series no one factor gives ({len(wrong)} steps off)")
            return
        self.series[run.start] = ([t for t, _ in terms], factor)
        shown = f"{factor:g}x"
        if stated and not math.isclose(float(stated[1].group(1)), factor):
            above, m = stated
            offset = above.start + m.start(1)
            self.finding(
                SERIES_STEP_WRONG,
                offset,
                fix=(offset, above.start + m.end(1), _styled(factor, m.group(1))),
                text=" ".join(above.text.split()),
                step="factor",
                written=f"{m.group(1)}x",
                factor="the series follows",
                computed=shown,
            )
            self.explain(
                offset, "error", " ".join(above.text.split()), f"factor {m.group(1)}x; the series below follows {shown}"
            )
        for i, (written, at) in enumerate(terms):
            offset = run.start + at
            value = first * factor**i
            if i in wrong:
                new = _styled(value, written)
                if _fits(written, value):  # off only at the places a later term shows
                    places = max(_decimals(u) for u, _ in terms[i + 1 :])
                    new = f"{value:.{places}f}".rstrip("0").rstrip(".")
                self.finding(
                    SERIES_STEP_WRONG,
                    offset,
                    fix=(offset, offset + len(written), new),
                    text=text,
                    step=i,
                    written=written,
                    factor=shown,
                    computed=new,
                )
                self.explain(offset, "error", text, f"step {i}: {first:g} × {shown}^{i} = {value:g}, written {written}")
            elif i:
                self.explain(offset, "ok", text, f"step {i}: {first:g} × {shown}^{i} = {value:g}")

    def _check_restated(self) -> None:
        for run in self.runs:
            left = list(LEFT_AFTER.finditer(run.text)) if self.series else []
            again = [m for m in RESTATES_RESULT.finditer(run.text) if "." in m.group(1)]
            if not (left or again):
                continue
            above = self._above(run)[:1]
            if above and above[0].start in self.series:
                for m in left:
                    self._check_left(run, m, *self.series[above[0].start])
            found = RESULT.search(above[0].text.strip()) if above and again else None
            if found and not RESULT.search(run.text.strip()) and self._holds(above[0]):
                for m in again:
                    if _decimals(m.group(1)) == _decimals(found.group(1)):
                        against = f"the line above works it out as {found.group(1)}"
                        self._restated(run, m, found.group(1), against, " ".join(run.text.split()))
        for run in self.runs:
            for m in PERCENT_OF.finditer(run.text):
                if float(m.group(3)):
                    value = 100 * float(m.group(2)) / float(m.group(3))
                    share = m.group(1) if _fits(m.group(1), value) else f"{value:.4f}".rstrip("0").rstrip(".")
                    against = f"{m.group(2)} / {m.group(3)} is {value:g}%"
                    self._restated(run, m, share, against, " ".join(run.text.split()))
        worked = [(run, m) for run in self.runs for m in WORKED_AGAIN.finditer(run.text)]
        if not worked:
            return
        sums = [(r, m.group(2)) for r in self.runs for m in SUM.finditer(r.text) if self._holds(r)]
        results = {result for _, result in sums}
        for run, m in worked:
            above = [(r, result) for r, result in sums if r.cy < run.cy]  # several: the one worked last above it
            if len(results) == 1:
                result, against = next(iter(results)), "the drawing's sum gives {}"
            elif above:
                result, against = max(above, key=lambda s: s[0].cy)[1], "the sum above it gives {}"
            else:
                continue
            if _decimals(m.group(1)) == _decimals(result):
                self._restated(run, m, result, against.format(result), " ".join(run.text.split()))

    def _holds(self, run: TextRun) -> bool:
        """The claims checker reads the arithmetic of the run, and it holds (a wrong sum is its finding,
        and restates nothing)."""
        checked = claims.check_markdown(run.text, self.rel)
        return checked.verified > 0 and not checked.diagnostics

    def _check_sums_to_one(self) -> None:
        """Rows right above (or below) a `Σ = 1` label, or the bar labels nearest it, add up to 1."""
        labels = [r for r in self.runs if SUMS_TO_ONE.search(r.text)]
        if not labels:
            return
        bars = _bar_groups([r for r in self.runs if ONE_NUMBER.fullmatch(r.text)])
        for label in labels:
            rows = []
            for run in self._above(label):
                if not ROW_OF_NUMBERS.fullmatch(run.text):
                    break
                rows.append(run)
            groups = [[row] for row in rows]
            if not groups and bars:
                near = min(bars, key=lambda g: min(math.dist((r.cx, r.cy), (label.cx, label.cy)) for r in g))
                if min(math.dist((r.cx, r.cy), (label.cx, label.cy)) for r in near) <= 8 * label.size:
                    groups = [near]
            for group in groups:
                self._sum_to_one(label, group)

    def _check_weight_rows(self) -> None:
        """A grid captioned as attention weights that no drawn Q and K derive: each row is a
        softmax, so it adds up to 1 within the rounding of its numbers. A row that does not is a
        finding only where most rows do (the grid is one of distributions, not of something else)."""
        if self.drawn.get("Q"):
            return  # the weights are computed from Q and K and checked cell by cell
        layout = find_layout(self.model)
        if layout.skipped or not layout.matrices:
            return
        candidates = caption_runs(self.model, layout.matrices)
        if not any(vocabulary.caption_role(r.text) == "weights" for r in candidates):
            return
        names = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output")
        for matrix, naming in zip(layout.matrices, name_matrices(self.model, layout.matrices, candidates, names)):
            if naming.name != "weights" or matrix.shape[0] < 3:
                continue
            rows = []
            for row in matrix.rows:
                written = ["0" if is_mask(c.written) else c.written.replace("−", "-") for c in row]
                values = [_value(w) for w in written]
                if any(not 0 <= v <= 1 for v, _ in values):
                    return
                rows.append((row, written, sum(v for v, _ in values), sum(h for _, h in values)))
            right = [abs(total - 1) <= slack + 1e-9 for _, _, total, slack in rows]
            if sum(right) * 2 <= len(rows):
                continue  # not a grid of distributions
            caption = " ".join(naming.said.split())
            for i, ((row, written, total, slack), ok) in enumerate(zip(rows, right)):
                shown = " + ".join(written)
                token = f" ({matrix.labels[i]})" if matrix.labels[i] else ""
                if ok:
                    self.explain(row[0].start, "ok", caption, f"row {i + 1}{token}: {shown} = {total:g}, a softmax")
                    continue
                problem = (
                    f"row {i + 1}{token} of the weights is {shown} = {total:g}, not 1: each row of softmax "
                    f"weights sums to 1 (the rounding of {len(written)} numbers allows ±{slack:g})"
                )
                self.finding(SUM_NOT_ONE, row[0].start, text=caption, problem=problem)
                self.explain(row[0].start, "error", caption, problem)

    def _check_vector_sums(self) -> None:
        """A weighted sum written as vectors, `0.45 × [1, 0] + 0.55 × [0, 2] = [0.45, 1.10]` (the
        result may be the next text: `= [0.45, 1.10]`): each side after an `=` is the one before,
        component by component, at the precision written."""
        runs = [r for r in self.model.runs if r.raw == r.text and r.text.strip()]
        for n, run in enumerate(runs):
            sides = _vector_sides(run.text, run.start)
            if not sides or not any(w for side in sides for w, _ in side):
                continue  # no weight times a vector: not a weighted sum
            text = " ".join(run.text.split())
            if n + 1 < len(runs) and runs[n + 1].text.lstrip().startswith("="):
                text += " " + " ".join(runs[n + 1].text.split())
                sides += (
                    _vector_sides(runs[n + 1].text.lstrip()[1:], runs[n + 1].start + runs[n + 1].text.index("=") + 1)
                    or []
                )
            if len(sides) < 2:
                continue
            values = [_vector_value(side) for side in sides]
            if None in values or len({len(v) for v in values}) > 1:
                continue
            before = values[0]
            for previous, side, value in zip(sides, sides[1:], values[1:]):
                before = self._vector_side(text, previous, before, side, value)
                if before is None:
                    break  # a wrong sum of terms: what follows it cannot be told right or wrong

    def _vector_side(
        self, text: str, previous: list, before: list[float], side: list, value: list[float]
    ) -> list[float] | None:
        """One side of a vector sum against what the side before gives; returns what the next
        side must give (None: this one is a wrong sum of terms, the rest cannot be told). Bare
        vectors under as many weighted terms are their products, term by term."""
        if len(side) == len(previous) > 1 and all(w for w, _ in previous) and not any(w for w, _ in side):
            for (weight, comps), (_, product) in zip(previous, side):
                shown = f"{weight[0]} × [{', '.join(c for c, _ in comps)}]"
                self._vector_result(text, _vector_value([(weight, comps)]), product, shown)
            return before
        if len(side) == 1 and side[0][0] is None:  # a result
            self._vector_result(text, before, side[0][1], "the side before")
            return before
        against = f"the side before gives [{', '.join(f'{v:g}' for v in before)}]"
        slack = sum(0.5 * 10 ** -_places(comps) for _, comps in side)
        offset = side[0][1][0][1]
        if all(abs(a - b) <= slack + 1e-9 for a, b in zip(before, value)):
            self.explain(offset, "ok", text, against)
            return value
        written = " + ".join("[" + ", ".join(w for w, _ in comps) + "]" for _, comps in side)
        against += f", these terms [{', '.join(f'{v:g}' for v in value)}]"
        self.finding(RESTATED_DIFFERS, offset, text=text, written=written, against=against)
        self.explain(offset, "error", text, f"written {written}; {against}")
        return None

    def _check_minus_logs(self) -> None:
        """`−log p = value` (a cross-entropy term): the value at the precision written. A bare
        `log` may be any base (ln, as cross-entropy's, log₂ or log₁₀): a value that fits one
        stands; `fix` rewrites one that fits none where the base is written, or where it is
        within 10 % of the natural log's (a slip in a digit)."""
        for run in self.runs:
            if "log" not in run.text and "ln" not in run.text:
                continue
            for m in MINUS_LOG.finditer(run.text):
                p, written = float(m.group(2)), m.group(3)
                if not 0 < p < 1 or self._holds(run):
                    continue  # no probability, or the claims checker reads it
                base = LOG_BASES.get(m.group(1))
                readings = [base] if base else [math.e, 2, 10]
                values = [-math.log(p, b) for b in readings]
                offset = run.start + m.start(3)
                text = " ".join(run.text.split())

                def said(b: float, v: float) -> str:
                    name = {math.e: "ln", 2: "log₂", 10: "log₁₀"}[b]
                    return f"−{name} {m.group(2)} is {_styled(v, written)}"

                fitting = [said(b, v) for b, v in zip(readings, values) if _fits(written, v)]
                if fitting:
                    self.explain(offset, "ok", text, fitting[0])
                    continue
                against = said(readings[0], values[0])
                if not base:
                    against += f" (log₂: {_styled(values[1], written)}, log₁₀: {_styled(values[2], written)})"
                near = base is not None or abs(float(written) - values[0]) <= 0.1 * values[0]
                fix = (offset, run.start + m.end(3), _styled(values[0], written)) if near else None
                self.finding(RESTATED_DIFFERS, offset, fix=fix, text=text, written=written, against=against)
                self.explain(offset, "error", text, f"written {written}; {against}")

    def _check_arithmetic(self) -> None:
        """The sums, products and sizes a drawing writes, read by the claims reader as the drawing
        writes them: a wrong result is a finding on its line (the claims reader's own report of the
        drawing's text leaves that line to it), fixed where one value is determined."""
        wrong: set[int] = set()  # runs with a wrong result: a line continuing one cannot be told right or wrong
        slips = [start for start, _, _ in self.report.edits]  # a factor found wrong: its result is not the slip
        for run in self.runs:
            if not SIGN.search(run.text) or any(run.start <= at < run.start + len(run.text) for at in slips):
                continue
            text, where = self._as_claim(run, wrong)
            if text is None:
                continue
            checked = claims.check_markdown(text, self.rel)
            if checked.verified and not checked.diagnostics:
                self.held.add(run.start)
            for d in checked.diagnostics:
                if d.code not in (claims.CLAIM_WRONG.code, claims.SHAPE_WRONG.code) or d.line != 1:
                    continue
                at = where[d.col - 1] if d.col - 1 < len(where) else None
                written = re.match(r"\(?\s*\d+(?:\.\d+)?", run.text[at:]) if at is not None else None
                if written is None:
                    continue
                offset = run.start + at
                shown = " ".join(run.text.split())
                wrong.add(run.start)
                fix = self._arithmetic_fix(run, at, d)
                self.finding(ARITHMETIC_WRONG, offset, fix=fix, text=shown, written=d.written, computed=d.computed)
                self.explain(offset, "error", shown, f"written {d.written}, computed {d.computed} (the claims reader)")

    def _check_restated_sizes(self) -> None:
        """A caption that restates a size worked out per token (or layer, or head) in the drawing
        (`512 KB for every token` under `… = 512 KB per token`) says the same size, in either
        reading of its prefix; fixed to the worked one where the drawing works out one."""
        worked: dict[str, set[tuple[str, str]]] = {}
        captions = []
        for run in self.runs:
            arithmetic = SIGN.search(run.text)
            for m in SIZE_PER.finditer(run.text):
                per = next(g for g in m.groups()[2:] if g)
                per = "layer" if per == "层" else per
                if not arithmetic:
                    captions.append((run, m, per))
                elif re.search(r"[=≈]\s*$", run.text[: m.start()]) and run.start in self.held:
                    worked.setdefault(per, set()).add((m.group(1), m.group(2)))
        for run, m, per in captions:
            results = worked.get(per, set())
            if len(results) != 1:
                continue
            (value, scale), text = next(iter(results)), " ".join(run.text.split())
            offset = run.start + m.start(1)
            against = f"the drawing works it out as {value} {scale}B per {per}"
            if _same_size(m.group(1), m.group(2), value, scale):
                self.explain(offset, "ok", text, f"restates {value} {scale}B: {against}")
                continue
            end = run.start + m.end(2)
            new = value + self.model.source[offset + len(m.group(1)) : offset + m.start(2) - m.start(1)] + scale
            self.finding(
                RESTATED_DIFFERS,
                offset,
                fix=(offset, end, new),
                text=text,
                written=f"{m.group(1)} {m.group(2)}B",
                against=against,
            )
            self.explain(offset, "error", text, f"written {m.group(1)} {m.group(2)}B; {against}")

    def _as_claim(self, run: TextRun, wrong: set[int]) -> tuple[str | None, list[int | None]]:
        """A run's text as the claims reader is handed it, and where each of its characters stands
        in the run (None: added). In a size, `2 B` is two bytes; a line that opens with `×`
        multiplies the result of the line above; a count's label of several words (`4096 tokens of
        context`) keeps its first; a shape's name (`V (7, 128)`) is dropped and `·` between shapes
        is their product. None: the line above, which it continues, is wrong."""
        text, edits = run.text, []
        if SIZE_RESULT.search(text):
            edits += [(m.start(1), m.end(1), " bytes") for m in BARE_BYTES.finditer(text)]
        edits += [(m.start(1), m.end(1), "") for m in LABEL_WORDS.finditer(text)]
        if len(SHAPE_NAME.findall(text)) >= 2:
            edits += [(m.start(), m.end(), "") for m in SHAPE_NAME.finditer(text)]
            edits += [(m.start(), m.end(), " × ") for m in SHAPE_TIMES.finditer(text)]
        prefix = ""
        if CONTINUED.match(text):
            above = self._above(run)[:1]
            carried = LAST_RESULT.search(above[0].text) if above else None
            if carried and above[0].start in wrong:
                return None, []
            prefix = f"{carried.group(1).strip()} " if carried else ""
        out, where, pos = [prefix], [None] * len(prefix), 0
        for start, end, new in sorted(edits):
            if start < pos:
                continue
            out += [text[pos:start], new]
            where += [*range(pos, start), *[None] * len(new)]
            pos = end
        out.append(text[pos:])
        where += range(pos, len(text))
        return "".join(out), where

    def _arithmetic_fix(self, run: TextRun, at: int, d: Diagnostic) -> tuple[int, int, str] | None:
        """The rewrite of a wrong result where one value is determined: the computed value at the
        written precision; of a size, under the decimal and the binary reading of its prefix (a whole
        number written: the one it is exactly, `512 KB`, the power of two of two such; decimals written:
        the one they are needed for, `2.1 GB`, not 2.0); of a shape, its one wrong dim."""
        numbers = [n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", d.computed or "")]
        if d.code == claims.SHAPE_WRONG.code:
            dims = [(m.group(0), m.start()) for m in re.finditer(r"\d+", run.text[at:])][: len(numbers)]
            wrong = [(w, k, c) for (w, k), c in zip(dims, numbers) if w != c]
            if len(dims) != len(numbers) or len(wrong) != 1:
                return None
            written, k, computed = wrong[0]
            return run.start + at + k, run.start + at + k + len(written), computed
        if not numbers:
            return None
        written = re.match(r"\d+(?:\.\d+)?", run.text[at:]).group(0)
        value = float(numbers[0])
        scale = SIZE_SCALE.match(run.text, at + len(written))
        power = "KMGT".index(scale.group(1)) + 1 if scale else 0
        # the inputs' prefixes and the result's may each be read either way
        candidates = (value, *(value * 1.024**j for j in range(-2 * power, 2 * power + 1) if j))
        readings = [_styled(v, written) for v in candidates]
        if len(set(readings)) == 1:
            new = readings[0]
        elif "." in written:
            new = next((r for r in readings if not r.endswith("0")), None)
        else:
            exact = {r for r, v in zip(readings, candidates) if math.isclose(float(r), v)}
            # sizes of tensors are products of powers of two: of two exact readings, 512 KB, not 500
            twos = sorted(exact, key=lambda r: (int(r) & -int(r)) if int(r) else 0, reverse=True)
            new = (
                twos[0]
                if len(twos) == 1 or twos and int(twos[0]) & -int(twos[0]) > int(twos[1]) & -int(twos[1])
                else None
            )
        if new is None or new == written:
            return None
        return run.start + at, run.start + at + len(written), new

    def _vector_result(self, text: str, value: list[float], comps: list, source: str) -> None:
        """A vector that should be `value`: each component at the vector's precision (its most
        decimals: `[0.45, 0]` is written to 0.01), fixed where wrong."""
        against = f"{source} gives [{', '.join(f'{v:g}' for v in value)}]"
        half = 0.5 * 10 ** -_places(comps) + 1e-9
        for (written, offset), v in zip(comps, value):
            if abs(float(written.replace("−", "-")) - v) <= half:
                self.explain(offset, "ok", text, against)
                continue
            new = f"{v:.{_places(comps)}f}".replace("-", "−" if "−" in written else "-")
            fix = (offset, offset + len(written), new)
            self.finding(RESTATED_DIFFERS, offset, fix=fix, text=text, written=written, against=against)
            self.explain(offset, "error", text, f"written {written}; {against}")

    def _sum_to_one(self, label: TextRun, group: list[TextRun]) -> None:
        found = [(run, t) for run in group for t in PROBABILITY.finditer(run.text)]
        if not found:
            return
        written = [t.group(0).strip() for _, t in found]
        values = [_value(w) for w in written]
        if any(not 0 <= v <= 1 for v, _ in values):
            return
        total, slack = sum(v for v, _ in values), sum(h for _, h in values)
        first, offset = found[0][0], found[0][0].start + found[0][1].start()
        shown = " + ".join(written)
        text = " ".join(label.text.split())
        if abs(total - 1) <= slack + 1e-9:
            self.explain(offset, "ok", " ".join(first.text.split()), f"{shown} = {total:g}, 1 as “{text}” says")
            return
        problem = f"{shown} = {total:g}, not 1 (the rounding of {len(values)} numbers allows ±{slack:g})"
        self.finding(SUM_NOT_ONE, offset, text=text, problem=problem)
        self.explain(offset, "error", " ".join(first.text.split()), problem)

    def _restated(self, run: TextRun, m: re.Match, result: str, against: str, text: str) -> None:
        offset = run.start + m.start(1)
        if float(m.group(1)) == float(result):
            self.explain(offset, "ok", text, f"restates {result}: {against}")
            return
        self.finding(
            RESTATED_DIFFERS,
            offset,
            fix=(offset, run.start + m.end(1), result),
            text=text,
            written=m.group(1),
            against=against,
        )
        self.explain(offset, "error", text, f"written {m.group(1)}; {against}")

    def _check_left(self, run: TextRun, m: re.Match, terms: list[str], factor: float) -> None:
        text = " ".join(run.text.split())
        steps = len(terms) - 1
        layers, left = int(m.group(1)), m.group(2)
        offset = run.start + m.start(1)
        if layers != steps:
            against = f"the series above shows {steps} steps"
            self.finding(
                RESTATED_DIFFERS,
                offset,
                fix=(offset, run.start + m.end(1), str(steps)),
                text=text,
                written=layers,
                against=against,
            )
            self.explain(offset, "error", text, f"written {layers}; {against}")
        else:
            self.explain(offset, "ok", text, f"{layers} steps, as the series above")
        value = 100 * float(terms[0]) * factor**steps
        offset = run.start + m.start(2)
        shown = _styled(value, left)
        if _fits(left, value):
            self.explain(offset, "ok", text, f"{float(terms[0]):g} × {factor:g}^{steps} = {value:g}%")
            return
        against = f"{float(terms[0]):g} × {factor:g}^{steps} is {shown}%"
        self.finding(
            RESTATED_DIFFERS,
            offset,
            fix=(offset, run.start + m.end(2), shown),
            text=text,
            written=f"{left}%",
            against=against,
        )
        self.explain(offset, "error", text, f"written {left}%; {against}")


def _same_size(value: str, scale: str, other: str, other_scale: str) -> bool:
    """`value scale`B is `other other_scale`B within the rounding written, in the decimal or the
    binary reading of both prefixes, and within a quarter of it (`1 MB` is no rounding of 512 KB)."""
    for base in (1000, 1024):
        unit = base ** ("KMGT".index(scale) + 1)
        bytes_ = float(other) * base ** ("KMGT".index(other_scale) + 1)
        off = abs(float(value) * unit - bytes_)
        if off <= 0.5 * 10 ** -_decimals(value) * unit and off <= bytes_ / 4:
            return True
    return False


def _vector_sides(text: str, start: int) -> list | None:
    """The sides of `w × [a, b] + [c, d] = [e, f]`: per side its terms, each (weight or None,
    components), a number as (written, offset in the source); None unless the text is that."""
    sides, at = [], 0
    for part in text.split("="):
        terms, pos = [], 0
        while pos < len(part):
            m = VECTOR_TERM.match(part, pos)
            if m is None:
                return None
            comps = [(c.group(0), start + at + m.start(2) + c.start()) for c in COMPONENT.finditer(m.group(2))]
            if not comps or re.sub(r"[-−\d.,\s]", "", m.group(2)):
                return None
            weight = (m.group(1), start + at + m.start(1)) if m.group(1) else None
            terms.append((weight, comps))
            pos = m.end()
            if pos < len(part):
                if part[pos] != "+":
                    return None
                pos += 1
        if not terms:
            return None
        sides.append(terms)
        at += len(part) + 1
    return sides


def _places(comps: list) -> int:
    """The decimals a vector is written with: its most (`[0.45, 0]`: two)."""
    return max(_decimals(w) for w, _ in comps)


def _vector_value(side: list) -> list[float] | None:
    """What the terms of one side add up to, component by component."""
    width = {len(comps) for _, comps in side}
    if len(width) != 1:
        return None
    total = [0.0] * width.pop()
    for weight, comps in side:
        w = float(weight[0].replace("−", "-")) if weight else 1.0
        for k, (written, _) in enumerate(comps):
            total[k] += w * float(written.replace("−", "-"))
    return total


def _bar_groups(runs: list[TextRun]) -> list[list[TextRun]]:
    """Runs of one number each (bar labels), in rows or columns of three or more that line up."""
    groups = []
    for key in (lambda r: r.cy, lambda r: r.cx):
        lines: list[list[TextRun]] = []
        for run in sorted(runs, key=key):
            if lines and abs(key(run) - key(lines[-1][-1])) <= 0.6 * run.size:
                lines[-1].append(run)
            else:
                lines.append([run])
        groups += [line for line in lines if len(line) >= 3]
    return groups


def _value(written: str) -> tuple[float, float]:
    """A probability as written (`0.42`, `42%`) and half a unit of its last place."""
    number = written.strip().rstrip("%").strip()
    scale = 0.01 if written.strip().endswith("%") else 1.0
    return float(number) * scale, 0.5 * 10 ** -_decimals(number) * scale


def check_numbers(model: SvgText, rel: str, drawn: dict | None = None) -> NumbersReport:
    """The numbers a drawing states, read and checked; `drawn`: the Q and K its matrices show, if read."""
    return _Reader(model, rel, drawn).check()
