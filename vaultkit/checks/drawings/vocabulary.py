"""The words of an attention derivation, for drawings and text alike.

One place says which words name which quantity (Q, K, Kᵀ, V, scores, scaled, masked, weights,
output), which speak of a mask or of a causal one, which deny it, and how a scale is written.
The drawing reader (`checks.drawings.handdrawn`, `checks.drawings.inferred`) and the text reader
(`examples.textmatrices`) both use it, so a word added here is read everywhere.

`caption_role(text)` is the one classifier: the quantity a caption (or a row's own label) names.
A drawing's labels stand beside their matrix, so there a bare `Q` anywhere in the text names Q;
a note's caption line is prose, so there Q, K and V must open the line (`anchored=True`).
"""

from __future__ import annotations

import math
import re

IGNORE_CASE = re.IGNORECASE

# -- mask, causal, negation ---------------------------------------------------------------------

CAUSAL = re.compile(r"causal|因果|下三角|look-?ahead", IGNORE_CASE)
MASK = re.compile(r"mask|掩码|遮", IGNORE_CASE)
NEGATION = r"(?:不|无|没有|未|非|\bnon-?|\bno\b|\bnot\b|\bwithout\b)\s*(?:a\s+|the\s+|加|用|做|需要|使用|带)?\s*"
NO_CAUSAL = re.compile(NEGATION + r"(?:causal|因果)", IGNORE_CASE)  # `不加因果掩码`, `without a causal mask`
NO_MASK = re.compile(NEGATION + r"(?:causal|因果|mask|掩码)", IGNORE_CASE)

# -- scale --------------------------------------------------------------------------------------

SQRT_OF = re.compile(r"√\s*\(?\s*(\d+(?:\.\d+)?)(?![\d.])")  # √4, √(64)
SQRT_D_IS = re.compile(r"(?:√|sqrt)\s*\(?\s*d\w*\s*\)?\s*[=＝]\s*(\d+(?:\.\d+)?)", IGNORE_CASE)  # √d_k = 8
DIVIDED_BY = re.compile(r"(?:÷|除以|divided by)\s*(\d+(?:\.\d+)?)(?![\d.])", IGNORE_CASE)  # ÷ 8, 除以 2
SLASH_BY = re.compile(r"/\s*(\d+(?:\.\d+)?)(?![\d.])")  # Scores / 2
SQRT = re.compile(r"√|sqrt", IGNORE_CASE)
SCALE_WORD = re.compile(r"缩放|除以|÷|/|scal|温度|temperature", IGNORE_CASE)
OTHER_SCALE = re.compile(r"scale|缩放|温度|temperature|[×*]\s*\d", IGNORE_CASE)  # scaled some way not read
D_STATED = re.compile(r"(?<![A-Za-z0-9_])(?:d_k|d_head|head_dim|d)\s*[=＝]\s*(\d+)(?![\d.])")

# -- quantities ---------------------------------------------------------------------------------

T_MARK = r"(?:ᵀ|\^\s*\{?\s*T\b\s*\}?|\.T\b|\s*(?:的\s*)?转置)"
TRANSPOSED = re.compile(rf"(?<![A-Za-z_])(?:K|keys?|键)\s*{T_MARK}", IGNORE_CASE)
PRODUCT = re.compile(rf"Q\s*[×x·@*]?\s*K\s*(?:{T_MARK}|T\b)|Q\s*[×·@*]\s*K(?![A-Za-z])", IGNORE_CASE)
WEIGHTS = re.compile(
    r"softmax|概率分布|probability distribution|加起来\s*[=＝]?\s*1|和为\s*1|sums? to 1"
    r"|注意力权重|attention weights?",
    IGNORE_CASE,
)
# weights too, but also model weights (W_Q: see NOT_WEIGHTS) or a vocabulary's probabilities:
# in a note they name weights only below shown scores
PLAIN_WEIGHTS = re.compile(r"权重|\bweights?\b|概率|probabilit|\battn\b", IGNORE_CASE)
NOT_WEIGHTS = re.compile(r"W_|权重矩阵|weight matri|可学习|learnable|之前|before", IGNORE_CASE)
OUTPUT = re.compile(r"output|输出|context|[×·]\s*V\b", IGNORE_CASE)
SCALED = re.compile(r"\bscaled\b|缩放|除以|÷|[/÷]\s*(?:√|sqrt)", IGNORE_CASE)
SCORES = re.compile(r"scores?\b|\blogits?\b|分数|打分|得分", IGNORE_CASE)
TIMES_V = re.compile(r"[×·@*]\s*V\b")  # `weights · V`: what is made of the values is the output
Q_WORD = r"(?<![A-Za-z_^])Q(?![A-Za-z])|\bquer(?:y|ies)\b|查询"
K_WORD = r"(?<![A-Za-z_^])K(?![A-Za-z])|\bkeys?(?![a-z])|键"  # not W_K
V_WORD = r"(?<![A-Za-z_^])V(?![A-Za-z])|\bvalues?\b"
INPUT_WORDS = {
    "Q": re.compile(Q_WORD, IGNORE_CASE),
    "K": re.compile(K_WORD, IGNORE_CASE),
    "V": re.compile(V_WORD, IGNORE_CASE),
}
HEAD = {  # a caption line of a note that opens with the name: `Q：`, `Kᵀ =`, `Query (3×4)`
    "Q": re.compile(r"^(?:Q|Query|Queries|查询)\s*(?:[=:：(（]|$)", IGNORE_CASE),
    "K": re.compile(rf"^(?:K|Keys?|键)(?P<t>{T_MARK})?\s*(?:[=:：(（]|$)", IGNORE_CASE),
    "V": re.compile(r"^(?:V|Values?)\s*(?:[=:：(（]|$)", IGNORE_CASE),
}
ILLUSTRATIVE = re.compile(r"示意|假设|例如|e\.g\.|for illustration|illustrative|for example", IGNORE_CASE)

DERIVED = ("scores", "scaled", "masked", "weights", "output")


def is_transposed(text: str) -> bool:
    """`Kᵀ`, `K^T`, `K.T`, `K转置`: K drawn or written a column per key."""
    return bool(TRANSPOSED.search(text))


def denies_mask(text: str) -> bool:
    """`不加因果掩码`, `without a causal mask`, `no mask`: the words deny a mask."""
    return bool(NO_MASK.search(text))


def _role(text: str, anchored: bool) -> str | None:
    if not anchored and TIMES_V.search(text):
        return "output"  # a drawing's `weights · V`, `softmax(QKᵀ/√d)·V`: what is made of the values
    if WEIGHTS.search(text) or PLAIN_WEIGHTS.search(text):
        if not NOT_WEIGHTS.search(text):
            return "weights" if WEIGHTS.search(text) or not anchored else "plain weights"
        if not (SCORES.search(text) or PRODUCT.search(text)):
            return "other"  # model weights: no part of a derivation
    if OUTPUT.search(text) and not (anchored and not re.match(r"\s*(?:output|输出|context)", text, IGNORE_CASE)):
        return "output"
    if (MASK.search(text) or (anchored and CAUSAL.search(text))) and not denies_mask(text):
        return "masked"  # in a drawing `causal` names the mask of the whole derivation, not one matrix
    scores = SCORES.search(text) or PRODUCT.search(text)
    if SCALED.search(text) and (scores or not anchored):
        return "scaled"
    if scores:
        return "scores"
    for name in ("V", "K", "Q"):
        if anchored:
            if m := HEAD[name].match(text):
                return "K transposed" if name == "K" and m.group("t") else name
        elif INPUT_WORDS[name].search(text):
            return "K transposed" if name == "K" and is_transposed(text) else name
    return None


def caption_role(text: str, *, anchored: bool = False) -> str | None:
    """The quantity a caption or label names: Q, K, "K transposed", V, scores, scaled, masked,
    weights ("plain weights" when a note's line only says 权重 / weights), output; "other" for
    model weights (W_Q, 权重矩阵); None when it names nothing. In `A = B` the A side is what is
    shown, so it is read first."""
    text = text.strip().strip("*`#> ").strip()
    head = re.split(r"[=＝]", text, maxsplit=1)[0] if re.search(r"[=＝]", text) else ""
    if head.strip() and not anchored:
        role, body = _role(head, anchored), text[len(head) + 1 :]
        if role == "scores" and SCALED.search(body):
            return "scaled"  # `scores = Q·Kᵀ / √d`: the label says these scores are divided
        if role and role != "other":
            return role
    return _role(text, anchored)  # `out = weights · V`: the product with V names the output


def row_role(label: str | None) -> str | None:
    """The quantity a row's own label names (`分数`, `scores`, `logits`, `权重`, `weights`,
    `probabilities`): a short label that is only that word, not a token."""
    if not label or len(label) > 24:
        return None
    role = caption_role(label, anchored=False)
    if role in ("scores", "scaled", "masked", "weights", "output"):
        return role
    return None


def stated_scales(text: str) -> list[float]:
    """The scales a text gives: `÷ √4` is 1/2, `除以 8` is 1/8 (none for `√d`)."""
    found = [1 / math.sqrt(float(m.group(1))) for m in SQRT_OF.finditer(text) if float(m.group(1)) > 0]
    found += [1 / float(m.group(1)) for m in DIVIDED_BY.finditer(text) if float(m.group(1)) > 0]
    return [round(v, 12) for v in found]
