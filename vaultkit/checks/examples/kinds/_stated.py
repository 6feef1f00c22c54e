"""kv-cache with the weights a note states (illustrative): read, bound, and laid out per step.

    tokens: [我, 想, 买]
    weights:
      - {我: 100%}
      - {我: 30%, 想: 70%}
      - null                 # the note gives no numbers for this step
    illustrative: true

Each entry names positions by token (unique in `tokens`), by 0-based position, or as a group
`我/想` sharing one percentage; values are `30%` or a fraction `0.3`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from vaultkit.checks.examples.kinds import _params as p
from vaultkit.checks.examples.spec import MALFORMED, SHAPE_MISMATCH, ExampleError, Outcome
from vaultkit.checks.examples.tables import section, table


@dataclass(frozen=True)
class StatedShare:
    positions: tuple[int, ...]
    percent: float
    label: str  # as written in the block


@dataclass(frozen=True)
class StatedStep:
    position: int
    reused: tuple[int, ...]
    computed: tuple[int, ...]
    shares: tuple[StatedShare, ...] | None  # None: no weights stated

    @property
    def assumed(self) -> bool:
        """Weights that are a choice of the note's (a lone 100 % on a single key is forced)."""
        return self.shares is not None and not (
            len(self.shares) == 1 and len(self.shares[0].positions) == 1 and len(self.reused) + len(self.computed) == 1
        )


@dataclass(frozen=True)
class StatedDecode:
    tokens: tuple[str, ...]
    prompt_len: int
    steps: tuple[StatedStep, ...]
    illustrative: bool = True

    @property
    def projections(self) -> dict[str, int]:
        n, p = len(self.tokens), self.prompt_len
        return {"with_cache": n, "without_cache": p + sum(t + 1 for t in range(p, n))}


def _percent(value, where: str) -> tuple[float, int]:
    """(percent, decimals of the written percent) of `30%`, `30 %`, `0.3`."""
    if isinstance(value, str) and (m := re.fullmatch(r"\s*(\d{1,3}(?:\.\d+)?)\s*[%％]\s*", value)):
        return float(m.group(1)), len(m.group(1).split(".")[1]) if "." in m.group(1) else 0
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and 0 <= value <= 1:
        text = repr(float(value))
        return 100 * float(value), max(len(text.split(".")[1]) - 2, 0)
    raise ExampleError(MALFORMED, f"{where}: a weight is written as 30% or as a fraction 0.3, not {value!r}", "weights")


def _positions(label, tokens: list[str], where: str) -> tuple[int, ...]:
    parts = [label] if isinstance(label, int) and not isinstance(label, bool) else str(label).split("/")
    out = []
    for part in parts:
        if isinstance(part, int):
            out.append(part)
        elif part.strip().isdigit():
            out.append(int(part.strip()))
        elif tokens.count(part.strip()) == 1:
            out.append(tokens.index(part.strip()))
        else:
            why = (
                "is not one of the tokens" if part.strip() not in tokens else "names a repeated token: use its position"
            )
            raise ExampleError(MALFORMED, f"{where}: {part!r} {why}", "weights")
    return tuple(out)


def parse(spec: dict) -> dict:
    if any(key in spec for key in ("seed", "Q", "K", "V")):
        raise ExampleError(
            MALFORMED,
            "weights are either stated (weights, illustrative) or computed (seed or Q/K/V), not both",
            "weights",
        )
    if spec.get("illustrative") is not True:
        raise ExampleError(MALFORMED, "stated weights are not computed: mark them illustrative: true", "illustrative")
    toks = p.tokens(spec)
    prompt_len = p.integer(spec, "prompt_len", 1, hi=len(toks))
    rows = spec.get("weights")
    if rows is None:
        rows = [None] * len(toks)
    if not isinstance(rows, list) or len(rows) != len(toks):
        raise ExampleError(
            SHAPE_MISMATCH, f"weights needs one entry per token ({len(toks)}), or null where none is stated", "weights"
        )
    steps = []
    for t, row in enumerate(rows):
        where = f"weights of {toks[t]} (position {t})"
        reused = tuple(range(t)) if t >= prompt_len else ()
        computed = (t,) if t >= prompt_len else (tuple(range(prompt_len)) if t == prompt_len - 1 else ())
        if row is None:
            steps.append(StatedStep(t, reused, computed, None))
            continue
        if not isinstance(row, dict) or not row:
            raise ExampleError(
                MALFORMED, f"{where}: a mapping of token to weight, such as {{{toks[0]}: 100%}}", "weights"
            )
        shares, total, slack, seen = [], 0.0, 0.0, []
        for label, value in row.items():
            positions = _positions(label, toks, where)
            percent, decimals = _percent(value, where)
            if any(q > t for q in positions):
                raise ExampleError(
                    MALFORMED, f"{where}: {label} comes later; a causal query sees positions 0…{t} only", "weights"
                )
            shares.append(StatedShare(positions, percent, str(label)))
            total += percent
            slack += 0.5 * 10.0**-decimals
            seen += positions
        missing = [toks[q] for q in range(t + 1) if q not in seen]
        if abs(total - 100) > slack + 1e-9 or missing or len(seen) != len(set(seen)):
            why = (
                f"sum to {total:g} %"
                if abs(total - 100) > slack + 1e-9
                else f"give nothing to {'、'.join(missing)}"
                if missing
                else "name a position twice"
            )
            raise ExampleError(
                MALFORMED,
                f"{where}: the weights {why}; a causal split covers positions 0…{t} and sums to 100 %",
                "weights",
            )
        steps.append(StatedStep(t, reused, computed, tuple(shares)))
    return {
        "tokens": toks,
        "prompt_len": prompt_len,
        "illustrative": True,
        "decode": StatedDecode(tuple(toks), prompt_len, tuple(steps)),
    }


def run(params: dict) -> Outcome:
    decode = params["decode"]
    steps = [
        {
            "position": s.position,
            "reused": list(s.reused),
            "computed": list(s.computed),
            "weights": None if s.shares is None else {sh.label: sh.percent for sh in s.shares},
        }
        for s in decode.steps
    ]
    return Outcome(result=decode, fields={"steps": steps, "projections": decode.projections})


def share_text(shares, tokens) -> str:
    return "，".join(
        f"{sh.label if not sh.label.isdigit() else tokens[int(sh.label)]} {sh.percent:g}%" for sh in shares
    )


def markdown(example, outcome) -> str:
    decode = outcome.result
    toks = list(decode.tokens)
    names = lambda positions: "、".join(toks[i] for i in positions) or "—"  # noqa: E731
    rows = []
    for number, step in enumerate(s for s in decode.steps if s.computed):
        weights = (
            "未给出" if step.shares is None else share_text(step.shares, toks) + ("（示意）" if step.assumed else "")
        )
        query = toks[step.position] if len(step.computed) == 1 else f"{toks[0]}…{toks[step.position]}"
        rows.append([str(number + 1), query, names(step.reused), names(step.computed), weights])
    proj = decode.projections
    return "\n\n".join(
        [
            section(
                "逐步解码（权重照笔记所写，示意，不是算出来的）",
                table(["步", "处理的 token", "复用缓存的 K/V", "新计算的 K/V", "注意力权重"], rows, align="left"),
            ),
            f"K/V 投影次数：有缓存 {proj['with_cache']} 次，无缓存（每步重算整个前缀）{proj['without_cache']} 次。",
        ]
    )
