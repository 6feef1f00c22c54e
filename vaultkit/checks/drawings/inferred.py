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

Never silent: a drawing that looks like a derivation — a Q-like and a K-like label each near
numbers — but cannot be read gets one `Doubt` that says what was found and why it stopped
(`found Q 3×2 and a Kᵀ label, but the numbers near “Kᵀ” do not form a block: …`); so does a
derived label (`Scores`) whose numbers do not form the block it should, and a pin whose numbers
are not a rectangle. `why_not` says, for `check --explain`, why a drawing is no derivation.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from vaultkit.checks.drawings import vocabulary
from vaultkit.checks.drawings.handdrawn import QUOTED, Naming, caption_runs, is_mask, name_matrices
from vaultkit.checks.drawings.layouts import ROW_TOLERANCE, Layout, Matrix, Space, find_layout
from vaultkit.numbers import parse_written
from vaultkit.readers.svgtext import SvgText, TextRun

NAMES = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output")
INPUTS = ("Q", "K", "V")
SCALE_WORD = vocabulary.SCALE_WORD
CAUSAL = vocabulary.CAUSAL
MASK_WORD = vocabulary.MASK
NEGATED = vocabulary.NO_CAUSAL
NEAR = 4.0  # font sizes between a label and the numbers it is taken to be about
AFTER_SCALE = frozenset({"scaled", "masked", "weights", "output"})
AFTER_MASK = frozenset({"masked", "weights", "output"})
HEAD_SPLIT = re.compile(r"(?<![\d.])(\d+)\s*(?:query\s+)?heads?\s+of\s+(?:dim\s*)?(\d+)(?![\d.])")  # `2 heads of 3`
HEAD_NUMBER = re.compile(r"\bhead\s*(\d+)")


@dataclass
class Doubt:
    offset: int  # where in the drawing
    reason: str
    pin: str  # the attribute that would settle it
    quantity: str = ""  # the one quantity it leaves unchecked, if only one


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
        for value in vocabulary.stated_scales(text):
            said.setdefault(value, offset)
    if len(said) > 1:
        scales = ", ".join(f"{v:g}" for v in said)
        doubts.append(
            Doubt(
                min(said.values()), f"the captions give different scales ({scales})", 'data-vk-scale="…" on the <svg>'
            )
        )
    return next(iter(said)) if len(said) == 1 else None


def _upper_is(matrix: Matrix | None, test) -> bool:
    if matrix is None or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] < 2:
        return False
    return all(test(matrix.rows[i][j].written) for i in range(len(matrix.rows)) for j in range(i + 1, len(matrix.rows)))


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
        doubts.append(
            Doubt(
                offset,
                "a caption speaks of a causal mask in a way that may deny it",
                'data-vk-mask="causal" or "none" on the <svg>',
            )
        )
        return "", ""
    if causal:
        return "causal", f"the causal mask “{causal[0][1].strip()}” names"
    masked = named.get("masked")
    if _upper_is(masked, is_mask) and not any(
        is_mask(c.written) for i, row in enumerate(masked.rows) for c in row[: i + 1]
    ):
        return "causal", "the causal mask its masked matrix shows"
    if mentions or masked is not None:
        doubts.append(
            Doubt(
                mentions[0][0] if mentions else masked.rows[0][0].start,
                "the drawing speaks of a mask but not of which cells it hides",
                'data-vk-mask="causal" or "none" on the <svg>',
            )
        )
        return "", ""
    if _upper_is(named.get("weights"), _zero):
        return "causal", "the causal mask its zero weights show"
    return "none", ""


def _box_gap(run: TextRun, left: float, top: float, right: float, bottom: float) -> float:
    """How far a run's glyphs stand from a box, in user units (0: they touch or overlap)."""
    half = 0.5 * run.size
    dx = max(left - run.right, run.left - right, 0.0)
    dy = max(top - (run.cy + half), (run.cy - half) - bottom, 0.0)
    return math.hypot(dx, dy)


def _near_numbers(label: TextRun, layout: Layout, unnamed: list[Matrix]) -> tuple[list[TextRun], list[Matrix]]:
    """The loose numbers and the unnamed matrices that stand within NEAR font sizes of a label
    (below it or to its right: where what a label names is drawn)."""
    reach = NEAR * label.size
    if "loose space" not in layout.index:
        step = 4 * max((r.size for r in layout.loose), default=16.0)
        layout.index["loose space"] = Space(layout.loose, lambda r: (r.cx, r.cy, r.cx, r.cy), step)
    space = layout.index["loose space"]
    pad = reach + max((r.size + r.width for r in layout.loose), default=0.0)
    around = space.near(label.left - pad, label.cy - label.size - pad, label.right + pad, label.cy + pad)
    below_right = [r for r in around if r.cy >= label.cy - label.size and r.cx >= label.left - reach]
    numbers = [r for r in below_right if _box_gap(r, label.left, label.cy - label.size, label.right, label.cy) <= reach]
    # numbers near those numbers belong with them (a block grows from its corner)
    taken, queue = {id(r) for r in numbers}, list(numbers)
    while queue:
        n = queue.pop()
        for r in space.near(n.cx - 4 * n.size, n.cy - 2.5 * n.size, n.cx + 4 * n.size, n.cy + 2.5 * n.size):
            if id(r) not in taken and abs(r.cx - n.cx) <= 4 * n.size and abs(r.cy - n.cy) <= 2.5 * n.size:
                taken.add(id(r))
                numbers.append(r)
                queue.append(r)
    blocks = [m for m in unnamed if _box_gap(label, m.left, m.top, m.right, m.bottom) <= reach]
    return numbers, blocks


def _lines(numbers: list[TextRun]) -> str:
    """How loose numbers stand: `lines of 3, 2 and 3 numbers`."""
    if not numbers:
        return "no numbers"
    ordered = sorted(numbers, key=lambda r: r.cy)
    counts, last = [], None
    for r in ordered:
        if last is None or r.cy - last > ROW_TOLERANCE * r.size:
            counts.append(0)
        counts[-1] += 1
        last = r.cy
    if len(counts) == 1:
        return f"one line of {counts[0]} number{'s' if counts[0] > 1 else ''}"
    if len(set(counts)) == 1:
        return f"{len(counts)} lines of {counts[0]} numbers that do not line up in columns at an even step"
    listed = ", ".join(str(c) for c in counts[:-1]) + f" and {counts[-1]}"
    return f"lines of {listed} numbers"


def _what(name: str, found: list, label: TextRun | None) -> str:
    if found:
        m = found[0][0]
        return f"{'Kᵀ' if name == 'K' and found[0][1].transposed else name} {m.shape[0]}×{m.shape[1]}"
    return f"a “{label.text.strip()}” label" if label is not None else f"no {name}"


def _pin_doubts(layout: Layout) -> list[Doubt]:
    return [
        Doubt(
            0,
            f'the numbers pinned data-vk="{pin}" do not form a block ({", ".join(map(str, lengths))} numbers a line)',
            f'data-vk="{pin}" on a block of whole rows',
        )
        for pin, lengths in layout.unequal
        if pin
    ]


def _unreadable(
    model: SvgText, layout: Layout, candidates: list[TextRun], namings: list[Naming], by_name: dict
) -> list[Doubt]:
    """Never silent: Q-like and K-like labels near numbers that were not read as Q and K."""
    unnamed = [m for m, n in zip(layout.matrices, namings) if not n.name]
    labels = {"Q": [], "K": []}
    for run in candidates:
        role = vocabulary.caption_role(run.text)
        role = "K" if role == "K transposed" else role
        if role in labels and len(run.text.strip()) <= 40:
            near = _near_numbers(run, layout, unnamed)
            if near[0] or near[1]:
                labels[role].append((run, near))
    missing = [name for name in ("Q", "K") if name not in by_name]
    if not missing or not all(labels[name] or name in by_name for name in ("Q", "K")):
        return []
    if not all(labels[name] for name in missing):
        return []
    first = {name: labels[name][0][0] if labels[name] else None for name in ("Q", "K")}
    name = missing[0]
    label, (numbers, blocks) = labels[name][0]
    if blocks:
        m = blocks[0]
        why = (
            f"the {m.shape[0]}×{m.shape[1]} block near “{label.text.strip()}” could not be told to be {name} "
            f"(another label stands nearer to it)"
        )
    else:
        why = f"the numbers near “{label.text.strip()}” do not form a block: {_lines(numbers)}"
    found = " and ".join(_what(n, by_name.get(n, []), first[n]) for n in ("Q", "K"))
    return [Doubt(label.start, f"found {found}, but {why}", f'data-vk="{name}" on the {name} block')]


def _unread_derived(
    layout: Layout, candidates: list[TextRun], namings: list[Naming], by_name: dict, shape: tuple[int, int]
) -> list[Doubt]:
    """A derived label (`Scores`, `权重`) near numbers that were read as no matrix of its shape."""
    used = {n.said for n in namings if n.name}
    unnamed = [m for m, n in zip(layout.matrices, namings) if not n.name]
    doubts = []
    for run in candidates:
        role = vocabulary.caption_role(run.text)
        if role not in vocabulary.DERIVED or role in by_name or run.text in used or len(run.text.strip()) > 40:
            continue
        numbers, blocks = _near_numbers(run, layout, unnamed)
        if role == "output":
            continue  # its width is V's, which may not be drawn
        if blocks:
            m = blocks[0]
            if m.shape == shape:
                continue  # checked by its values, or uncertain
            how = f"they form a {m.shape[0]}×{m.shape[1]} block"
        elif numbers:
            how = _lines(numbers)
        else:
            continue
        q, k = by_name["Q"][0], by_name["K"][0]
        found = f"{_what('Q', [q], None)} and {_what('K', [k], None)}"
        doubts.append(
            Doubt(
                run.start,
                f"found {found}, but the numbers under “{run.text.strip()}” do not form "
                f"a {shape[0]}×{shape[1]} block: {how}",
                f'data-vk="{role}" on a {shape[0]}×{shape[1]} block',
            )
        )
        break  # one warning says enough
    return doubts


def _misshapen(layout: Layout, by_name: dict, shape: tuple[int, int]) -> list[Doubt]:
    """A derived matrix named by its label whose numbers do not form the block it should:
    one warning, and the quantity is not checked (see `infer`: it goes in `skip`)."""
    for name in ("scores", "scaled", "masked", "weights"):
        for matrix, naming in by_name.get(name, ()):
            if matrix.shape == shape:
                continue
            near = [r for r in layout.loose if matrix.holds(r.cx, r.cy, 2 * matrix.size)]
            more = f" and {len(near)} more number{'s' if len(near) > 1 else ''} beside it" if near else ""
            q, k = by_name["Q"][0], by_name["K"][0]
            return [
                Doubt(
                    matrix.rows[0][0].start,
                    f"found {_what('Q', [q], None)} and {_what('K', [k], None)}, but the numbers under "
                    f"“{naming.said.strip()}” do not form a {shape[0]}×{shape[1]} block: they form a "
                    f"{matrix.shape[0]}×{matrix.shape[1]} block{more}",
                    f'data-vk="{name}" on a {shape[0]}×{shape[1]} block',
                    name,
                )
            ]
    return []


def why_not(model: SvgText) -> str:
    """Why a drawing is not read as a derivation (for `check --explain`)."""
    if not any(r.text.strip() for r in model.runs):
        return "no text"
    layout = find_layout(model)
    if layout.skipped:
        return f"not read: {layout.skipped}"
    if not layout.matrices:
        loose = len(layout.loose)
        return (
            "no matrix of numbers drawn"
            if not loose
            else f"{loose} lone number{'s' if loose > 1 else ''}, no matrix of them"
        )
    candidates = caption_runs(model, layout.matrices)
    namings = name_matrices(model, layout.matrices, candidates, NAMES)
    shown = [f"{n.name or '?'} {m.shape[0]}×{m.shape[1]}" for m, n in zip(layout.matrices, namings)]
    names = {n.name for n in namings}
    lacking = " and ".join(n for n in ("Q", "K") if n not in names)
    return f"no matrix labelled {lacking} (read: {', '.join(shown[:8])}{', …' if len(shown) > 8 else ''})"


def _head_split(model: SvgText, by_name: dict, width: int) -> slice | Doubt | None:
    """The columns of one head when the drawing splits Q's width into heads (`2 heads of 3`) and
    names the one head its scores belong to (`head 2 scores`); a doubt when it does not say which head
    or draws several heads' scores (one example is checked at a time)."""
    for run in model.runs:
        for m in HEAD_SPLIT.finditer(run.text):
            heads, dim = int(m.group(1)), int(m.group(2))
            if heads < 2 or heads * dim != width:
                continue
            said = [n.said for name, found in by_name.items() if name not in INPUTS for _, n in found]
            numbers = {int(h.group(1)) for text in said for h in HEAD_NUMBER.finditer(text)}
            if len(numbers) == 1 and 1 <= (head := numbers.pop()) <= heads:
                return slice((head - 1) * dim, head * dim)
            reason = (
                f"Q's {width} columns are split into {heads} heads of {dim}: the scores drawn are not one named head's"
            )
            return Doubt(run.start + m.start(), reason, "one head's scores, captioned “head 1 scores”")
    return None


def infer(model: SvgText, rel: str) -> Derivation | None:
    """The example the drawing implies; None when it shows no Q and K (nothing to say)."""
    layout = find_layout(model)
    if layout.skipped:
        roles = {vocabulary.caption_role(r.text) for r in model.runs if 0 < len(r.text.strip()) <= 40}
        if roles & {"Q"} and roles & {"K", "K transposed"}:  # it may be a derivation: say why it is not read
            reason = f"the drawing is not read: {layout.skipped}"
            return Derivation({}, doubts=[Doubt(0, reason, "a smaller drawing (split it in parts)")])
        return None
    matrices = layout.matrices
    candidates = caption_runs(model, matrices)
    namings = name_matrices(model, matrices, candidates, NAMES)
    by_name: dict[str, list[tuple[Matrix, Naming]]] = {}
    for matrix, naming in zip(matrices, namings):
        if naming.name:
            by_name.setdefault(naming.name, []).append((matrix, naming))
    if "Q" not in by_name or "K" not in by_name:
        doubts = _unreadable(model, layout, candidates, namings, by_name) or (
            _pin_doubts(layout) if by_name.keys() & set(INPUTS) else []
        )
        return Derivation({}, doubts=doubts[:1]) if doubts else None
    doubts = _pin_doubts(layout)
    for name in INPUTS:
        if len(by_name.get(name, ())) > 1:
            second = by_name[name][1][0]
            doubts.append(
                Doubt(
                    second.rows[0][0].start,
                    f"more than one matrix is captioned {name}",
                    f'data-vk="{name}" on the one that is the input',
                )
            )
    q_matrix, _ = by_name["Q"][0]
    k_matrix, k_naming = by_name["K"][0]
    q, k = _values(q_matrix), _values(k_matrix)
    if q is None or k is None:
        doubts.append(Doubt(q_matrix.rows[0][0].start, "Q or K holds a cell that is not a number", 'data-vk="Q"'))
        return Derivation({}, doubts=doubts)
    if k_naming.transposed or (len(q[0]) != len(k[0]) and len(q[0]) == len(k)):
        k = [list(col) for col in zip(*k)]  # Kᵀ: by its label, its place, or its only fitting shape
    if len(q[0]) != len(k[0]):
        doubts.append(
            Doubt(
                k_matrix.rows[0][0].start,
                f"Q is {len(q)}×{len(q[0])} but K is {len(k)}×{len(k[0])}: they cannot be multiplied",
                'data-vk="Q" / data-vk="K"',
            )
        )
        return Derivation({}, doubts=doubts)
    if doubts:
        return Derivation({}, doubts=doubts)
    split = _head_split(model, by_name, len(q[0]))
    if isinstance(split, Doubt):
        return Derivation({}, doubts=[split])
    if split:
        q, k = [row[split] for row in q], [row[split] for row in k]
    misshapen = _misshapen(layout, by_name, (len(q), len(k)))
    doubts += misshapen or _unread_derived(layout, candidates, namings, by_name, (len(q), len(k)))
    named = {name: found[0][0] for name, found in by_name.items()}
    spec: dict = {"kind": "attention"}
    want = len(q) if len(q) == len(k) else len(k)  # the tokens of the keys when Q has fewer rows
    labelled = (_tokens(m) for m in (q_matrix, k_matrix, *named.values()))
    tokens = next((t for t in labelled if t and len(t) == want), None)
    if tokens:
        spec["tokens"] = tokens
    spec.update(Q=q, K=k)
    v_matrix = named.get("V")
    if v_matrix is not None and (v := _values(v_matrix)) and len(v) == len(k):
        spec["V"] = v
    skip = set()
    mask, mask_reason = _mask(model, matrices, named, doubts)
    if mask == "causal" and len(q) != len(k):
        doubts.append(
            Doubt(0, f"a causal mask needs as many queries as keys (Q {len(q)}, K {len(k)})", 'data-vk-mask="none"')
        )
        mask = ""
    if mask:
        spec["mask"] = mask
    else:
        skip |= AFTER_MASK
    captions = [n.said for name in AFTER_SCALE for _, n in by_name.get(name, ())]
    scale = _scale(model, matrices, captions, doubts)
    if scale is not None:
        spec["scale"] = scale
    elif any("scale" in d.pin for d in doubts):
        skip |= AFTER_SCALE
    decimals = [
        parse_written(c.written)[1]
        for name, m in named.items()
        if name not in INPUTS
        for row in m.rows
        for c in row
        if not is_mask(c.written)
    ]
    spec["digits"] = min(max(set(decimals), key=lambda d: (decimals.count(d), -d), default=2), 6)  # the usual
    spec["figure"] = rel
    skip |= {d.quantity for d in doubts if d.quantity}
    return Derivation(spec, mask_reason, doubts, frozenset(skip))
