"""Zero annotation: the attention example a drawing implies by showing its own Q and K.

When a drawing shows a matrix captioned Q and one captioned K, its derived numbers (scores,
scaled, masked, weights, output, worked dot products) can be checked with no ```vaultkit block.
`infer` reads from the drawing itself what the block would say:

- Q, K (a `Kᵀ` caption means it is drawn transposed) and V where drawn: the written values;
- tokens: the labels beside Q's rows (`← "我"的 Q`), else K's, else any matrix's;
- scale: the number a caption gives (`除以 √4 = 2`, `÷ 8`), else 1/√d of the drawn width;
- mask: causal when a text says so (`Causal Mask`, `因果掩码`), or a drawn masked matrix or
  weight matrix is zero above its diagonal; none when nothing mentions a mask;
- digits: the decimals most often written in the derived matrices (a cell written with more
  keeps its own).

What the text does not settle with certainty (two Q's, two different scales, a mask of unknown
kind, a negated "causal") is a `Doubt`: one warning naming the pin that settles it —
`data-vk="Q"` on a matrix, `data-vk-scale="0.5"` / `data-vk-mask="causal"` on the `<svg>` —
and the quantities it affects are not checked. Pins always win over what is read.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from ..numbers import parse_written
from ..svgtext import SvgText
from .handdrawn import QUOTED, caption_runs, is_mask, is_transposed, name_of
from .layouts import Matrix, find_matrices

NAMES = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output")
INPUTS = ("Q", "K", "V")
SQRT_SCALE = re.compile(r"√\s*\(?\s*(\d+(?:\.\d+)?)(?![\d.])")
DIV_SCALE = re.compile(r"(?:÷|除以|divided by)\s*(\d+(?:\.\d+)?)(?![\d.])", re.I)
SCALE_WORD = re.compile(r"缩放|除以|÷|/|scal", re.I)
CAUSAL = re.compile(r"causal|因果|下三角|look-?ahead", re.I)
MASK_WORD = re.compile(r"mask|掩码|遮", re.I)
NEGATED = re.compile(r"(?:不|无|没有|未|非|\bnon-?|\bno\b|\bnot\b|\bwithout\b)\s*"
                     r"(?:a\s+|the\s+|加|用|做|需要|使用|带)?\s*(?:causal|因果)", re.I)
AFTER_SCALE = frozenset({"scaled", "masked", "weights", "output"})
AFTER_MASK = frozenset({"masked", "weights", "output"})


@dataclass
class Doubt:
    offset: int  # where in the drawing
    reason: str
    pin: str  # the attribute that would settle it


@dataclass
class Derivation:
    """The example a drawing implies, what the reading rests on, and what it leaves open."""

    spec: dict  # kind, tokens, Q, K, V?, mask, scale?, digits: a ```vaultkit attention block
    mask_reason: str = ""  # what says the weights are masked
    doubts: list[Doubt] = field(default_factory=list)
    skip: frozenset = frozenset()  # quantities not checked: the drawing does not settle them


def _values(matrix: Matrix) -> list[list[float]] | None:
    try:
        return [[parse_written(c.written)[0] for c in row] for row in matrix.rows]
    except ValueError:
        return None  # a mask sign or a dash among the inputs


def _tokens(matrix: Matrix) -> list[str] | None:
    found = []
    for label in matrix.labels:
        quoted = QUOTED.findall(label)
        bare = re.sub(r"[←→:：=\s]+|的\s*[QKV]$", "", label)
        found.append(quoted[0] if quoted else bare)
    if all(found) and len(set(found)) == len(found) and all(len(t) <= 12 for t in found):
        return found
    return None


def _texts(model: SvgText, matrices: list[Matrix]):
    """(offset, text) of every caption-like text, the root's title and description first."""
    for title in model.titles:
        yield 0, title
    for run in caption_runs(model, matrices):
        yield run.start, run.text


def _scale(model: SvgText, matrices: list[Matrix], captions: list[str], doubts: list[Doubt]) -> float | None:
    """The scale a caption of a scaled / masked / weight matrix gives, or a text on scaling by √."""
    pinned = model.root.get("data-vk-scale")
    if pinned is not None:
        try:
            return float(pinned)
        except ValueError:
            doubts.append(Doubt(0, f"data-vk-scale={pinned!r} is not a number", 'data-vk-scale="0.5"'))
            return None
    said: dict[float, int] = {}
    for offset, text in _texts(model, matrices):
        if text not in captions and not (SCALE_WORD.search(text) and "√" in text):
            continue  # "÷ 2" elsewhere may divide anything
        for match in SQRT_SCALE.finditer(text):
            said.setdefault(round(1 / math.sqrt(float(match.group(1))), 12), offset)
        for match in DIV_SCALE.finditer(text):
            if float(match.group(1)) > 0:
                said.setdefault(round(1 / float(match.group(1)), 12), offset)
    said.pop(math.inf, None)
    if len(said) > 1:
        scales = ", ".join(f"{v:g}" for v in said)
        doubts.append(Doubt(min(said.values()), f"the captions give different scales ({scales})",
                            'data-vk-scale="…" on the <svg>'))
    return next(iter(said)) if len(said) == 1 else None


def _upper_is(matrix: Matrix | None, test) -> bool:
    if matrix is None or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 2:
        return False
    return all(test(matrix.rows[i][j].written) for i in range(len(matrix.rows))
               for j in range(i + 1, len(matrix.rows)))


def _zero(written: str) -> bool:
    return is_mask(written) or (re.fullmatch(r"[-−]?0*\.?0*", written) is not None and "0" in written)


def _mask(model: SvgText, matrices: list[Matrix], named: dict, doubts: list[Doubt]) -> tuple[str, str]:
    """The mask and the text that says it."""
    pinned = model.root.get("data-vk-mask")
    if pinned in ("causal", "none"):
        return pinned, f'the mask pinned by data-vk-mask="{pinned}"'
    mentions = [(o, t) for o, t in _texts(model, matrices) if MASK_WORD.search(t) or CAUSAL.search(t)]
    causal = [(o, t) for o, t in mentions if CAUSAL.search(t)]
    if any(NEGATED.search(t) for _, t in causal):
        offset = next(o for o, t in causal if NEGATED.search(t))
        doubts.append(Doubt(offset, "a caption speaks of a causal mask in a way that may deny it",
                            'data-vk-mask="causal" or "none" on the <svg>'))
        return "", ""
    if causal:
        return "causal", f"the causal mask “{causal[0][1].strip()}” names"
    masked = named.get("masked")
    if _upper_is(masked, is_mask) and not any(is_mask(c.written) for i, row in enumerate(masked.rows)
                                              for c in row[:i + 1]):
        return "causal", "the causal mask its masked matrix shows"
    if mentions or masked is not None:
        doubts.append(Doubt(mentions[0][0] if mentions else masked.rows[0][0].start,
                            "the drawing speaks of a mask but not of which cells it hides",
                            'data-vk-mask="causal" or "none" on the <svg>'))
        return "", ""
    if _upper_is(named.get("weights"), _zero):
        return "causal", "the causal mask its zero weights show"
    return "none", ""


def infer(model: SvgText, rel: str) -> Derivation | None:
    """The example the drawing implies; None when it shows no Q and K (nothing to say)."""
    matrices = find_matrices(model)
    candidates = caption_runs(model, matrices)
    by_name: dict[str, list[tuple[Matrix, str]]] = {}
    for matrix in matrices:
        name, caption = name_of(matrix, model, candidates, NAMES)
        if name:
            by_name.setdefault(name, []).append((matrix, caption))
    if "Q" not in by_name or "K" not in by_name:
        return None
    doubts = []
    for name in INPUTS:
        if len(by_name.get(name, ())) > 1:
            second = by_name[name][1][0]
            doubts.append(Doubt(second.rows[0][0].start, f"more than one matrix is captioned {name}",
                                f'data-vk="{name}" on the one that is the input'))
    q_matrix, _ = by_name["Q"][0]
    k_matrix, k_caption = by_name["K"][0]
    q, k = _values(q_matrix), _values(k_matrix)
    if q is None or k is None:
        doubts.append(Doubt(q_matrix.rows[0][0].start, "Q or K holds a cell that is not a number", 'data-vk="Q"'))
        return Derivation({}, doubts=doubts)
    if is_transposed(k_caption):
        k = [list(col) for col in zip(*k)]
    if len(q[0]) != len(k[0]):
        doubts.append(Doubt(k_matrix.rows[0][0].start,
                            f"Q is {len(q)}×{len(q[0])} but K is {len(k)}×{len(k[0])}: they cannot be multiplied",
                            'data-vk="Q" / data-vk="K"'))
        return Derivation({}, doubts=doubts)
    if doubts:
        return Derivation({}, doubts=doubts)
    named = {name: found[0][0] for name, found in by_name.items()}
    spec: dict = {"kind": "attention"}
    tokens = _tokens(q_matrix) or _tokens(k_matrix) or next(
        (t for m in named.values() if (t := _tokens(m)) and len(t) == len(q)), None)
    if tokens and len(tokens) == len(q):
        spec["tokens"] = tokens
    spec.update(Q=q, K=k)
    v_matrix = named.get("V")
    if v_matrix is not None and (v := _values(v_matrix)) and len(v) == len(k):
        spec["V"] = v
    skip = set()
    mask, mask_reason = _mask(model, matrices, named, doubts)
    if mask == "causal" and len(q) != len(k):
        doubts.append(Doubt(0, f"a causal mask needs as many queries as keys (Q {len(q)}, K {len(k)})",
                            'data-vk-mask="none"'))
        mask = ""
    if mask:
        spec["mask"] = mask
    else:
        skip |= AFTER_MASK
    captions = [c for name in AFTER_SCALE for _, c in by_name.get(name, ())]
    scale = _scale(model, matrices, captions, doubts)
    if scale is not None:
        spec["scale"] = scale
    elif any("scale" in d.pin for d in doubts):
        skip |= AFTER_SCALE
    decimals = [parse_written(c.written)[1] for name, m in named.items() if name not in INPUTS
                for row in m.rows for c in row if not is_mask(c.written)]
    spec["digits"] = min(max(set(decimals), key=lambda d: (decimals.count(d), -d), default=2), 6)  # the usual
    spec["figure"] = rel
    return Derivation(spec, mask_reason, doubts, frozenset(skip))
