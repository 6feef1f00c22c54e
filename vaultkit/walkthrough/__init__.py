"""Decode walkthroughs written in prose, checked as written.

A note may walk through causal attention with a KV cache step by step, with no annotation:

    - 第 3 步：处理“买”
      Q3 匹配到 K1、K2、K3
      得出权重：假设 10% 给“我”，40% 给“想”，50% 给自己。
      吸收内容：把 10% 的 V1、40% 的 V2、50% 的 V3 混合在一起。
      KV Caching：K1、V1、K2、V2 使用前 2 步计算后缓存的值

The reader (`reader.read`) finds such steps (numbered `第 3 步`, `第三步`, `Step 3`,
`Step three`; Q/K/V with indices, tokens by name) from the note's tokens and checks, at the
step whose query is position t:

* the query matches exactly the keys base…t (causal: no future key, none skipped);
* the stated weights sum to 100 % within their rounding (a share given to a group such as
  `[我/想]` counts once) and cover exactly the matched positions;
* the values mixed are the weighted ones, with the same percentages;
* the K/V read from the cache are exactly those of positions base…t−1 (`前 N 步`: N = t − base),
  the K/V computed are only the new token's, and "the cache now holds" means base…t;
* a mask picture (`我想买████`) row k shows exactly the first k units and hides the rest;
* each generation round's input is the previous round's input plus its output.

Weights the note calls assumed (`假设`, "suppose") are illustrative: their values are not
compared with any engine, but their sum and coverage are. A sentence promising a figure
(`如下图`, "see the figure below") with none following gets one warning; `fix --adopt` draws
it from the walkthrough (see `vaultkit.adopt`). Nothing here is rewritten by `fix`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..explain import WALKTHROUGH, Explained
from .reader import MASK, Mix, Reading, Step, Walkthrough, Weights, read

__all__ = ["WalkthroughReport", "check_markdown", "read"]


@dataclass
class WalkthroughReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    verified: int = 0  # statements checked (steps' matches, weights, mixes, caches; mask rows; rounds)
    skipped: int = 0  # statements seen but not read with certainty
    explained: list[Explained] = field(default_factory=list)  # for `check --explain`
    reading: Reading | None = None


def check_markdown(text: str, tokens, rel: str) -> WalkthroughReport:
    """Check every walkthrough, mask picture and generation round of a note."""
    reading = read(text, tokens)
    report = WalkthroughReport(reading=reading, skipped=reading.skipped)
    for walk in reading.walkthroughs:
        before = len(report.diagnostics)
        for step in walk.steps:
            _check_step(walk, step, rel, report)
            report.skipped += step.unread
        errors = len(report.diagnostics) - before
        verdict = "error" if errors else "ok"
        tokens = "、".join(walk.tokens) if walk.tokens else "tokens by index"
        what = f"{len(walk.steps)} steps over {tokens}, {walk.statements} statements read, {errors} wrong"
        report.explained.append(Explained(rel, walk.line, verdict, what, kind=WALKTHROUGH))
    for picture in reading.masks:
        before = len(report.diagnostics)
        _check_mask(picture, rel, report)
        verdict = "error" if len(report.diagnostics) > before else "ok"
        what = f"mask picture of {len(picture.rows)} rows"
        report.explained.append(Explained(rel, picture.rows[0].line, verdict, what, kind=WALKTHROUGH))
    for rounds in reading.rounds:
        before = len(report.diagnostics)
        _check_rounds(rounds, rel, report)
        verdict = "error" if len(report.diagnostics) > before else "ok"
        what = f"{len(rounds)} generation rounds"
        report.explained.append(Explained(rel, rounds[0].line, verdict, what, kind=WALKTHROUGH))
    adoptable = bool(reading.walkthroughs)
    for promise in reading.promises:
        if promise.fulfilled:
            continue
        how = (
            "; vaultkit fix --adopt draws it from the walkthrough"
            if adoptable
            else "; add the figure, or reword the sentence"
        )
        report.diagnostics.append(
            Diagnostic(
                rel, promise.line, promise.col, "VK436", f"“{promise.text}” promises a figure, but none follows{how}"
            )
        )
        what = f"“{promise.text}” promises a figure that is missing"
        report.explained.append(Explained(rel, promise.line, "warning", what, kind=WALKTHROUGH))
    report.explained.sort(key=lambda entry: entry.line)
    return report


# ---------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------


def _names(walk: Walkthrough, letter: str, positions) -> str:
    return "、".join(f"{letter}{p}" for p in positions) or "none"


def _pct(value: float) -> str:
    return f"{value:g} %"


def _check_step(walk: Walkthrough, step: Step, rel: str, report: WalkthroughReport) -> None:
    t = step.query
    if t is None:
        return
    causal = list(range(walk.base, t + 1))
    earlier = causal[:-1]
    where = f"step {step.number} (query {walk.name(t)}, position {t})"
    matches = [listed for listed in step.lists if listed.role == "match"]
    for listed in step.lists:
        report.verified += 1
        if listed.role == "match":
            written = sorted({i.index for i in listed.items})
            if listed.query is not None and listed.query.index != t:
                if step.query_from == "the step's token" and len(matches) == 1:
                    report.diagnostics.append(
                        Diagnostic(
                            rel,
                            listed.query.line,
                            listed.query.col,
                            "VK430",
                            f"{where}: the query of the step that processes {walk.name(t)} is Q{t}, written Q{listed.query.index}",
                            written=f"Q{listed.query.index}",
                            computed=f"Q{t}",
                        )
                    )
                    continue
                # a remark about another query: still causal for that query
                q = listed.query.index
                own = list(range(walk.base, q + 1))
                if written != own:
                    report.diagnostics.append(
                        Diagnostic(
                            rel,
                            listed.line,
                            listed.col,
                            "VK430",
                            f"with the causal mask Q{q} matches exactly {_names(walk, 'K', own)}; written {_names(walk, 'K', written)}",
                            written=_names(walk, "K", written),
                            computed=_names(walk, "K", own),
                        )
                    )
                continue
            if written != causal:
                future = [p for p in written if p > t]
                missing = [p for p in causal if p not in written]
                why = (
                    f"{_names(walk, 'K', future)} {'is a future key' if len(future) == 1 else 'are future keys'}"
                    if future
                    else f"{_names(walk, 'K', missing)} {'is' if len(missing) == 1 else 'are'} skipped"
                )
                report.diagnostics.append(
                    Diagnostic(
                        rel,
                        listed.line,
                        listed.col,
                        "VK430",
                        f"{where}: with the causal mask Q{t} matches exactly {_names(walk, 'K', causal)}; "
                        f"written {_names(walk, 'K', written)} ({why})",
                        written=_names(walk, "K", written),
                        computed=_names(walk, "K", causal),
                    )
                )
            continue
        expected = {"cached": earlier, "computed": [t], "holds": causal}[listed.role]
        problems = []
        for letter in ("K", "V"):
            written = sorted({i.index for i in listed.items if i.letter == letter})
            if written and written != expected:
                problems.append((letter, written))
        if problems:
            written_text = listed.text
            want = "、".join(f"K{p}、V{p}" for p in expected) or "none"
            what = {
                "cached": f"read from the cache are exactly those of the earlier positions {walk.base}…{t - 1}",
                "computed": f"computed at this step are only the new token's ({walk.name(t)})",
                "holds": f"in the cache after this step are those of positions {walk.base}…{t}",
            }[listed.role]
            extra = ""
            if listed.role == "cached" and any(t in w for _, w in problems):
                extra = f"; K{t}、V{t} are the current token's, computed at this step, not cached"
            report.diagnostics.append(
                Diagnostic(
                    rel,
                    listed.line,
                    listed.col,
                    "VK433",
                    f"{where}: the K/V {what}: {want}; written {written_text}{extra}",
                    written=written_text,
                    computed=want,
                )
            )
        elif listed.role == "cached" and listed.earlier_steps is not None and listed.earlier_steps != len(earlier):
            line, col = listed.earlier_at
            report.diagnostics.append(
                Diagnostic(
                    rel,
                    line,
                    col,
                    "VK433",
                    f"{where}: the cache holds the K/V of the {len(earlier)} earlier steps; written {listed.earlier_steps}",
                    written=str(listed.earlier_steps),
                    computed=str(len(earlier)),
                )
            )
    stated = None
    for weights in step.weights:
        report.verified += 1
        if _check_weights(walk, step, weights, causal, where, rel, report):
            stated = stated or weights
    for mix in step.mixes:
        report.verified += 1
        _check_mix(walk, mix, stated, causal, where, rel, report)


def _check_weights(
    walk: Walkthrough, step: Step, weights: Weights, causal: list[int], where: str, rel: str, report: WalkthroughReport
) -> bool:
    """Sum to 100 % within rounding, and cover exactly the matched positions. A lone share
    under 100 % is a partial remark (`60% 给“买”`), not a split: only its position is checked."""
    shares = weights.shares
    total = sum(s.percent for s in shares)
    slack = sum(s.half for s in shares) + 1e-9
    covered = [p for s in shares for p in s.positions]
    first = shares[0]
    split = len(shares) >= 2 or abs(first.percent - 100) <= slack
    future = sorted(p for p in covered if p not in causal)
    written = " + ".join(_pct(s.percent) for s in shares)
    if future:
        report.diagnostics.append(
            Diagnostic(
                rel,
                weights.line,
                first.col,
                "VK431",
                f"{where}: weight given to {'、'.join(walk.name(p) for p in future)}, which Q{step.query} cannot see "
                f"(it matches only {_names(walk, 'K', causal)})",
                written=written,
                computed=_names(walk, "K", causal),
            )
        )
        return False
    if not split:
        return False
    repeated = len(covered) != len(set(covered))
    missing = [p for p in causal if p not in covered]
    if abs(total - 100) > slack or missing or repeated:
        parts = []
        if abs(total - 100) > slack:
            parts.append(f"the weights sum to {_pct(round(total, 6))}, not 100 % ({written})")
        if missing:
            parts.append(
                f"no weight is given to {'、'.join(walk.name(p) for p in missing)}, which Q{step.query} matches"
            )
        if repeated:
            parts.append("a position is given two weights")
        report.diagnostics.append(
            Diagnostic(
                rel,
                weights.line,
                first.col,
                "VK431",
                f"{where}: " + "; ".join(parts),
                written=f"{_pct(round(total, 6))}",
                computed="100 %",
            )
        )
        return False
    return True


def _check_mix(
    walk: Walkthrough,
    mix: Mix,
    stated: Weights | None,
    causal: list[int],
    where: str,
    rel: str,
    report: WalkthroughReport,
) -> None:
    positions = [p for p, _, _, _ in mix.parts]
    written = "、".join(f"{'' if pct is None else _pct(pct) + ' '}V{p}" for p, pct, _, _ in mix.parts)
    expected_positions = sorted({p for s in stated.shares for p in s.positions}) if stated else causal
    col = mix.parts[0][3]
    if sorted(set(positions)) != expected_positions:
        want = "、".join(f"V{p}" for p in expected_positions)
        report.diagnostics.append(
            Diagnostic(
                rel,
                mix.line,
                col,
                "VK432",
                f"{where}: the values mixed are those weighted: {want}; written {written}",
                written=written,
                computed=want,
            )
        )
        return
    if any(pct is None for _, pct, _, _ in mix.parts):
        return
    given = {p: (pct, half) for p, pct, half, _ in mix.parts}
    if stated is None:
        total = sum(pct for pct, _ in given.values())
        if abs(total - 100) > sum(h for _, h in given.values()) + 1e-9:
            report.diagnostics.append(
                Diagnostic(
                    rel,
                    mix.line,
                    col,
                    "VK432",
                    f"{where}: the values are mixed with weights summing to {_pct(round(total, 6))}, not 100 % ({written})",
                    written=_pct(round(total, 6)),
                    computed="100 %",
                )
            )
        return
    wrong = []
    for share in stated.shares:
        pct = sum(given[p][0] for p in share.positions)
        slack = share.half + sum(given[p][1] for p in share.positions) + 1e-9
        if abs(pct - share.percent) > slack:
            wrong.append((share, pct))
    if wrong:
        want = "、".join(f"{_pct(s.percent)} V{'/V'.join(str(p) for p in s.positions)}" for s in stated.shares)
        detail = "; ".join(
            f"V{'/V'.join(str(p) for p in s.positions)} gets {_pct(pct)}, its weight is {_pct(s.percent)}"
            for s, pct in wrong
        )
        report.diagnostics.append(
            Diagnostic(
                rel,
                mix.line,
                col,
                "VK432",
                f"{where}: the values are mixed with percentages other than the weights stated at line {stated.line}: {detail}",
                written=written,
                computed=want,
            )
        )


# ---------------------------------------------------------------------------
# Mask pictures and rounds
# ---------------------------------------------------------------------------


def _check_mask(picture, rel: str, report: WalkthroughReport) -> None:
    rows = picture.rows
    width = len(rows[0].units)
    full: dict[int, str] = {}
    for row in rows:
        for i, unit in enumerate(row.units):
            if unit != MASK:
                full.setdefault(i, unit)

    def revealed(row) -> int:
        n = 0
        while n < width and row.units[n] != MASK:
            n += 1
        return n

    # Row k shows the first (offset + k) units; the offset most rows agree on.
    offsets = [revealed(r) - k for k, r in enumerate(rows)]
    offset = max(set(offsets), key=lambda o: (offsets.count(o), -o))
    join = " " if rows[0].spaced else ""
    for k, row in enumerate(rows):
        report.verified += 1
        n = offset + k
        if not 1 <= n <= width or any(i not in full for i in range(n)):
            continue
        expected = [full[i] for i in range(n)] + [MASK] * (width - n)
        if row.units == expected:
            continue
        shown = [i for i in range(n, width) if row.units[i] != MASK]
        hidden = [i for i in range(n) if row.units[i] == MASK]
        if shown:
            why = f"it shows {'、'.join(row.units[i] for i in shown)}, a future position"
        else:
            why = f"it hides {'、'.join(full[i] for i in hidden)}, which it may see"
        report.diagnostics.append(
            Diagnostic(
                rel,
                row.line,
                row.col,
                "VK434",
                f"mask row {k + 1} should show exactly the first {n} of {width} positions: {why}; expected {join.join(expected)}",
                written=row.text,
                computed=join.join(expected),
            )
        )


def _check_rounds(rounds, rel: str, report: WalkthroughReport) -> None:
    for previous, current in zip(rounds, rounds[1:]):
        report.verified += 1
        expected = previous.input + [previous.output]
        if current.input != expected:
            shown = "[" + ", ".join(f"“{t}”" for t in expected) + "]"
            report.diagnostics.append(
                Diagnostic(
                    rel,
                    current.input_line,
                    current.input_col,
                    "VK435",
                    f"round {current.number}: the input is round {previous.number}'s input plus its output “{previous.output}”: "
                    f"{shown}; written {current.input_text}",
                    written=current.input_text,
                    computed=shown,
                )
            )
