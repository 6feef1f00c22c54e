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
* a mask picture (`我想买████`) row k shows exactly the first k units and hides the rest (the
  picture's rows counted from what most of them agree on, so one row out of step is found);
* each generation round's input is the previous round's input plus its output.

Weights the note calls assumed (`假设`, "suppose") are illustrative: their values are not
compared with any engine, but their sum and coverage are. A sentence promising a figure
(`如下图`, "see the figure below") with none following gets one warning; `fix --adopt` draws
it from the walkthrough (see `vaultkit.commands.adopt`). `fix` rewrites a wrong mask row when
the other rows show what it should hold (`fixed`); nothing else here is rewritten.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vaultkit.checks.walkthrough.reader import MASK, MaskPicture, Mix, Reading, Step, Walkthrough, Weights, read
from vaultkit.diagnostics import ERROR, WARNING, Diagnostic, Rule
from vaultkit.explain import WALKTHROUGH, Explained

CAUSAL_MATCH = Rule(
    "VK430",
    ERROR,
    "walkthrough step matches keys other than those up to its own (causal)",
    "{problem}",
    "Under the causal mask the query of position t matches exactly the keys up to t: none later, none skipped.",
)
STEP_WEIGHTS = Rule(
    "VK431",
    ERROR,
    "stated weights of a walkthrough step do not sum to 100 % or miss a matched position",
    "{problem}",
    "A step's weights sum to 100 % within their rounding and give one weight to each matched position.",
)
STEP_MIX = Rule(
    "VK432",
    ERROR,
    "values mixed in a walkthrough step are not the weighted ones",
    "{problem}",
    "The values mixed are those of the weighted positions, with the stated weights.",
)
STEP_CACHE = Rule(
    "VK433",
    ERROR,
    "cached or computed K/V of a walkthrough step are not those of the earlier steps and the new token",
    "{problem}",
    "At step t the cache gives the K/V of the earlier positions; only the new token's K/V are computed.",
)
MASK_PICTURE = Rule(
    "VK434",
    ERROR,
    "mask picture does not hide exactly the future positions",
    "{problem}",
    "Row k of a mask picture shows the first k positions and hides the rest; `vaultkit fix` rewrites a row the other rows determine.",
)
ROUND_INPUT = Rule(
    "VK435",
    ERROR,
    "generation round's input is not the previous input plus the previous output",
    "{problem}",
    "Each generation round feeds back the previous round's input plus the token it produced.",
)
FIGURE_PROMISED = Rule(
    "VK436",
    WARNING,
    "a figure is promised but none follows",
    "“{promise}” promises a figure, but none follows; {remedy}",
    "A sentence such as 如下图 with no figure after it (an image, an embed, HTML, a Jekyll include or Hugo shortcode of a figure); `vaultkit fix --adopt` draws one from the walkthrough.",
)

__all__ = ["RowFix", "WalkthroughReport", "check_markdown", "fixed", "read"]


@dataclass(frozen=True)
class RowFix:
    """A mask row `fix` rewrites: the row as written at its place, and the row it should be."""

    line: int
    col: int
    written: str
    expected: str


@dataclass
class WalkthroughReport:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    verified: int = 0  # statements checked (steps' matches, weights, mixes, caches; mask rows; rounds)
    skipped: int = 0  # statements seen but not read with certainty
    explained: list[Explained] = field(default_factory=list)  # for `check --explain`, with the counts above
    reading: Reading | None = None
    fixes: list[RowFix] = field(default_factory=list)  # for `fix`: rows whose one right value is known

    def part(self, rel: str, line: int, what: str, diagnostics_before: int, verified_before: int, skipped: int) -> None:
        """The `--explain` entry of a part checked since the counts given: its verdict, and
        how many statements it read and skipped (the summary counts them as claims)."""
        self.skipped += skipped
        verdict = "error" if len(self.diagnostics) > diagnostics_before else "ok"
        counts = (self.verified - verified_before, skipped)
        self.explained.append(Explained(rel, line, verdict, what, kind=WALKTHROUGH, counts=counts))


def check_markdown(text: str, tokens, rel: str) -> WalkthroughReport:
    """Check every walkthrough, mask picture and generation round of a note."""
    reading = read(text, tokens)
    report = WalkthroughReport(reading=reading)
    for walk in reading.walkthroughs:
        before, verified = len(report.diagnostics), report.verified
        for step in walk.steps:
            _check_step(walk, step, rel, report)
        errors = len(report.diagnostics) - before
        tokens = "、".join(walk.tokens) if walk.tokens else "tokens by index"
        what = f"{len(walk.steps)} steps over {tokens}, {walk.statements} statements read, {errors} wrong"
        report.part(rel, walk.line, what, before, verified, sum(step.unread for step in walk.steps))
    for picture in reading.masks:
        before, verified = len(report.diagnostics), report.verified
        skipped = _check_mask(picture, rel, report)
        what = f"mask picture of {len(picture.rows)} rows" + (f", {skipped} not checked" if skipped else "")
        report.part(rel, picture.rows[0].line, what, before, verified, skipped)
    for rounds in reading.rounds:
        before, verified = len(report.diagnostics), report.verified
        _check_rounds(rounds, rel, report)
        report.part(rel, rounds[0].line, f"{len(rounds)} generation rounds", before, verified, 0)
    for unread in reading.unread:
        report.skipped += unread.statements
        report.explained.append(
            Explained(
                rel, unread.line, "skipped", unread.text, unread.why, kind=WALKTHROUGH, counts=(0, unread.statements)
            )
        )
    adoptable = bool(reading.walkthroughs)
    for promise in reading.promises:
        if promise.fulfilled:
            continue
        remedy = (
            "vaultkit fix --adopt draws it from the walkthrough"
            if adoptable
            else "add the figure, or reword the sentence"
        )
        report.diagnostics.append(
            FIGURE_PROMISED.at(rel, promise.line, promise.col, promise=promise.text, remedy=remedy)
        )
        what = f"“{promise.text}” promises a figure that is missing"
        report.explained.append(Explained(rel, promise.line, "warning", what, kind=WALKTHROUGH))
    report.explained.sort(key=lambda entry: entry.line)
    return report


def fixed(original: str, text: str, fixes: list[RowFix]) -> str:
    """`text` (the note as the other fixes leave it) with the mask rows of `original` that
    `fixes` names rewritten. A row is found as the k-th of the lines equal to it in both; when
    the other fixes changed how many there are, it is left as it is."""
    if not fixes:
        return text
    old, new = original.split("\n"), text.split("\n")
    for row in fixes:
        line = old[row.line - 1]
        at = [i for i, other in enumerate(new) if other == line]
        if len(at) != old.count(line):
            continue
        i = at[old[: row.line - 1].count(line)]
        start = row.col - 1
        new[i] = line[:start] + row.expected + line[start + len(row.written) :]
    return "\n".join(new)


# ---------------------------------------------------------------------------
# Steps
# ---------------------------------------------------------------------------


def _names(letter: str, positions) -> str:
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
                        CAUSAL_MATCH.at(
                            rel,
                            listed.query.line,
                            listed.query.col,
                            problem=f"{where}: the query of the step that processes {walk.name(t)} is Q{t}, written Q{listed.query.index}",
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
                        CAUSAL_MATCH.at(
                            rel,
                            listed.line,
                            listed.col,
                            problem=f"with the causal mask Q{q} matches exactly {_names('K', own)}; written {_names('K', written)}",
                            written=_names("K", written),
                            computed=_names("K", own),
                        )
                    )
                continue
            if written != causal:
                future = [p for p in written if p > t]
                missing = [p for p in causal if p not in written]
                why = (
                    f"{_names('K', future)} {'is a future key' if len(future) == 1 else 'are future keys'}"
                    if future
                    else f"{_names('K', missing)} {'is' if len(missing) == 1 else 'are'} skipped"
                )
                report.diagnostics.append(
                    CAUSAL_MATCH.at(
                        rel,
                        listed.line,
                        listed.col,
                        problem=f"{where}: with the causal mask Q{t} matches exactly {_names('K', causal)}; "
                        f"written {_names('K', written)} ({why})",
                        written=_names("K", written),
                        computed=_names("K", causal),
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
                STEP_CACHE.at(
                    rel,
                    listed.line,
                    listed.col,
                    problem=f"{where}: the K/V {what}: {want}; written {written_text}{extra}",
                    written=written_text,
                    computed=want,
                )
            )
        elif listed.role == "cached" and listed.earlier_steps is not None and listed.earlier_steps != len(earlier):
            line, col = listed.earlier_at
            report.diagnostics.append(
                STEP_CACHE.at(
                    rel,
                    line,
                    col,
                    problem=f"{where}: the cache holds the K/V of the {len(earlier)} earlier steps; written {listed.earlier_steps}",
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
            STEP_WEIGHTS.at(
                rel,
                weights.line,
                first.col,
                problem=f"{where}: weight given to {'、'.join(walk.name(p) for p in future)}, which Q{step.query} cannot see "
                f"(it matches only {_names('K', causal)})",
                written=written,
                computed=_names("K", causal),
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
        if abs(total - 100) > slack:  # the sum is what is wrong
            wrote, want = _pct(round(total, 6)), "100 %"
        else:  # the positions weighted are
            wrote, want = "、".join(walk.name(p) for p in covered), "、".join(walk.name(p) for p in causal)
        report.diagnostics.append(
            STEP_WEIGHTS.at(
                rel, weights.line, first.col, problem=f"{where}: " + "; ".join(parts), written=wrote, computed=want
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
            STEP_MIX.at(
                rel,
                mix.line,
                col,
                problem=f"{where}: the values mixed are those weighted: {want}; written {written}",
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
                STEP_MIX.at(
                    rel,
                    mix.line,
                    col,
                    problem=f"{where}: the values are mixed with weights summing to {_pct(round(total, 6))}, not 100 % ({written})",
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
            STEP_MIX.at(
                rel,
                mix.line,
                col,
                problem=f"{where}: the values are mixed with percentages other than the weights stated at line {stated.line}: {detail}",
                written=written,
                computed=want,
            )
        )


# ---------------------------------------------------------------------------
# Mask pictures and rounds
# ---------------------------------------------------------------------------


def _check_mask(picture: MaskPicture, rel: str, report: WalkthroughReport) -> int:
    """Row k shows exactly the first offset + k units and masks the rest; how many rows could
    not be checked (their row number out of the picture's width)."""
    rows = picture.rows
    width = len(rows[0].units)
    full: dict[int, str] = {}
    for row in rows:
        for i, unit in enumerate(row.units):
            if unit != MASK:
                full.setdefault(i, unit)
    # a spaced row masks a word with as many █ as the other rows do at its place (`██ ████`)
    mask_at = [next((r.masks[i] for r in rows if r.masks and r.masks[i]), MASK) for i in range(width)]
    unchecked = 0
    for k, row in enumerate(rows):
        n = picture.offset + k
        if not 1 <= n <= width:
            unchecked += 1
            continue
        report.verified += 1
        shown = [i for i in range(n, width) if row.units[i] != MASK]
        hidden = [i for i in range(n) if row.units[i] == MASK]
        if not shown and not hidden:
            continue
        where = f"mask row {k + 1} should show exactly the first {n} of {width} positions"
        if any(i not in full for i in hidden):  # no row shows what it hides: no one value to write
            report.diagnostics.append(
                MASK_PICTURE.at(
                    rel,
                    row.line,
                    row.col,
                    problem=f"{where}: it hides {len(hidden)} of them, and no row shows what they hold",
                    written=row.text,
                )
            )
            continue
        expected = (" " if row.spaced else "").join([full[i] for i in range(n)] + mask_at[n:])
        if shown:
            why = f"it shows {'、'.join(row.units[i] for i in shown)}, {'a future position' if len(shown) == 1 else 'future positions'}"
        else:
            why = f"it hides {'、'.join(full[i] for i in hidden)}, which it may see"
        report.diagnostics.append(
            MASK_PICTURE.at(
                rel,
                row.line,
                row.col,
                problem=f"{where}: {why}; expected {expected} (vaultkit fix rewrites the row)",
                written=row.text,
                computed=expected,
            )
        )
        report.fixes.append(RowFix(row.line, row.col, row.text, expected))
    return unchecked


def _check_rounds(rounds, rel: str, report: WalkthroughReport) -> None:
    for previous, current in zip(rounds, rounds[1:]):
        report.verified += 1
        expected = previous.input + [previous.output]
        if current.input != expected:
            shown = "[" + ", ".join(f"“{t}”" for t in expected) + "]"
            report.diagnostics.append(
                ROUND_INPUT.at(
                    rel,
                    current.input_line,
                    current.input_col,
                    problem=f"round {current.number}: the input is round {previous.number}'s input plus its output “{previous.output}”: "
                    f"{shown}; written {current.input_text}",
                    written=current.input_text,
                    computed=shown,
                )
            )
