"""How right the arithmetic-claims checker is on public notes nobody here wrote, judged by hand.

Run: .venv/bin/python bench/bench_claims_ground.py [--repos DIR] [--half tune|held|held3|held4|held5|held6|held7|both|all]

The ground is `bench/ground/claims-tune.jsonl`, `claims-held.jsonl`, `claims-held3.jsonl` and the
`claims-held4-*.jsonl` and `claims-held5-*.jsonl` files (each one half, judged in parts): one judged line a row
(repository, commit, path, line, the claim, `right`/`wrong`/`not_arithmetic`, why; see
`bench/ground/README.md`). Each repository is read from `DIR/<owner>+<name>/`, the files of its
recorded commit (`git archive <commit>` of the fetched snapshot); a file whose git blob differs
from the recorded one is warned about and scored as it is. The checker runs exactly as
`vaultkit check DIR/<owner>+<name>` does (a Pipeline over the whole folder); only its findings
in the judged files are scored. Printed per half:

- errors (VK301/VK303) on `right` or `not_arithmetic` lines (false alarms), on `wrong` lines
  (true), on lines nobody judged (listed `path:line` so they can be judged);
- the same for warnings (VK302, VK304);
- precision of errors = true / (true + false alarms), and the same with the unjudged errors
  counted as false alarms (printed apart); recall = wrong lines with an error / wrong lines;
- the judged claims (`right` and `wrong`) the checker did not verify, by the reason
  `--explain` gives (with `--list`, each of them: where, its verdict, why and the claim).

The shared public ground (`../shared/corpus/public` with its `truth-dev.jsonl`) is scored the
same way when present. The tuning half is `tune`; `held` and `held3` to `held7` are measured once,
at the end. `heldN` (N ≥ 3) is read from `/work/cache/groundN` unless `--repos` is given; `both` is
tune and held, `all` adds held3 to held7.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

GROUND = Path(__file__).resolve().parent / "ground"
PUBLIC = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "public"
DEFAULT_REPOS = Path("/work/cache/ground")
# where a half's repositories are when --repos is not given
HELD_BATCHES = ("held3", "held4", "held5", "held6", "held7")
HALF_REPOS = {half: Path(f"/work/cache/ground{half[-1]}") for half in HELD_BATCHES}
HALVES = {"both": ("tune", "held"), "all": ("tune", "held", *HELD_BATCHES)}
ERRORS = ("VK301", "VK303")
WARNINGS = ("VK302", "VK304")  # VK304: right only under an unlikely reading (odd precedence, an unwritten element size)
CLAIM_CODES = ERRORS + WARNINGS
VERDICTS = ("right", "wrong", "not_arithmetic")
FIELDS = ("repo", "commit", "path", "line", "lang", "claim", "verdict", "value", "why", "vaultkit")


def load_ground(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_half(half: str) -> list[dict]:
    """A half's rows: `claims-<half>.jsonl`, or its parts `claims-<half>-*.jsonl` (held4 was judged in two)."""
    parts = [GROUND / f"claims-{half}.jsonl", *sorted(GROUND.glob(f"claims-{half}-*.jsonl"))]
    return [row for path in parts if path.is_file() for row in load_ground(path)]


def folder_name(repo: str) -> str:
    return repo.replace("/", "+")


def git_blob(data: bytes) -> str:
    """The git blob id of a file's bytes (what `git hash-object` prints)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Finding:
    path: str
    line: int
    code: str
    message: str


@dataclass
class Skip:
    path: str
    line: int
    reason: str


@dataclass
class Score:
    """The checker's findings on one set of judged lines."""

    false_errors: list[str] = field(default_factory=list)  # path:line of errors on right/not_arithmetic lines
    true_errors: list[str] = field(default_factory=list)
    unjudged_errors: list[str] = field(default_factory=list)
    false_warnings: list[str] = field(default_factory=list)
    true_warnings: list[str] = field(default_factory=list)
    unjudged_warnings: list[str] = field(default_factory=list)
    wrong_lines: int = 0
    wrong_found: int = 0
    judged: int = 0
    claims: int = 0  # judged right or wrong
    skipped: Counter = field(default_factory=Counter)  # reason -> judged claims not verified
    unverified: list[str] = field(default_factory=list)  # `repo path:line [verdict] reason: claim` of each
    crashes: list[str] = field(default_factory=list)  # notes whose check raised

    def add(self, other: Score) -> None:
        for name, value in vars(other).items():
            mine = getattr(self, name)
            if isinstance(mine, list):
                mine.extend(value)
            elif isinstance(mine, Counter):
                mine.update(value)
            else:
                setattr(self, name, mine + value)

    @property
    def precision(self) -> float | None:
        found = len(self.true_errors) + len(self.false_errors)
        return len(self.true_errors) / found if found else None

    @property
    def precision_unjudged_false(self) -> float | None:
        found = len(self.true_errors) + len(self.false_errors) + len(self.unjudged_errors)
        return len(self.true_errors) / found if found else None

    @property
    def recall(self) -> float | None:
        return self.wrong_found / self.wrong_lines if self.wrong_lines else None


def _span(row: dict) -> range:
    """The lines a judged claim covers: from `from` (a derivation begun above) to `line`."""
    return range(int(row.get("from", row["line"])), int(row["line"]) + 1)


def _numbers(text: str) -> set[str]:
    return {n.replace(",", "") for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


def _owner(rows: list[dict], message: str) -> dict | None:
    """The judged claim a finding is about: of the claims judged on its line, the one sharing most
    numbers with its message (a long line may hold several claims, right and wrong)."""
    return max(rows, key=lambda row: len(_numbers(row.get("claim", "")) & _numbers(message)), default=None)


def score(
    rows: list[dict],
    findings: list[Finding],
    skips: list[Skip],
    verified: set[tuple[str, int]],
    crashes: list[str] = (),
) -> Score:
    """Match the checker's findings and `--explain` entries of the judged files to the judged
    lines. `verified`: (path, line) of every claim the checker read and judged (ok, warning or
    error); a judged claim with none is counted under the reasons its lines were skipped for."""
    out = Score(crashes=list(crashes))
    owners: dict[tuple[str, int], list[dict]] = {}
    for row in rows:
        for number in _span(row):
            owners.setdefault((row["path"], number), []).append(row)
    paths = {row["path"] for row in rows}
    errors_on: set[int] = set()
    for f in findings:
        if f.path not in paths or f.code not in CLAIM_CODES:
            continue
        row = _owner(owners.get((f.path, f.line), []), f.message)
        where = f"{f.path}:{f.line}: {f.code} {f.message}"
        error = f.code in ERRORS
        if row is None:
            (out.unjudged_errors if error else out.unjudged_warnings).append(where)
        elif row["verdict"] == "wrong":
            (out.true_errors if error else out.true_warnings).append(where)
            if error:
                errors_on.add(id(row))
        else:
            (out.false_errors if error else out.false_warnings).append(where)
    reasons: dict[tuple[str, int], list[str]] = {}
    for s in skips:
        reasons.setdefault((s.path, s.line), []).append(s.reason)
    for row in rows:
        out.judged += 1
        if row["verdict"] == "wrong":
            out.wrong_lines += 1
            out.wrong_found += id(row) in errors_on
        if row["verdict"] not in ("right", "wrong"):
            continue
        out.claims += 1
        lines = [(row["path"], n) for n in _span(row)]
        if any(key in verified for key in lines):
            continue
        why = sorted({r for key in lines for r in reasons.get(key, [])})
        reason = " / ".join(why) if why else "not listed in --explain"
        out.skipped[reason] += 1
        where = f"{row.get('repo', '')} {row['path']}:{row['line']}"
        out.unverified.append(f"{where} [{row['verdict']}] {reason}: {row.get('claim', '')}")
    return out


def run_checker(folder: Path, paths: set[str]) -> tuple[list[Finding], list[Skip], set[tuple[str, int]], list[str]]:
    """The notes `paths` of `vaultkit check FOLDER`, each as the command checks it: their
    findings, their `--explain` entries, and the notes whose check raised (with the error)."""
    from vaultkit.model.vault import Vault
    from vaultkit.pipeline import Pipeline

    pipeline = Pipeline(Vault.load(folder))
    findings, skips, verified, crashes = [], [], set(), []
    for rel in sorted(paths):
        try:
            result = pipeline.note(rel)
        except Exception as error:  # a traceback in the checker is a finding of this bench
            crashes.append(f"{rel}: {type(error).__name__}: {error}")
            continue
        findings += [Finding(d.path, d.line, d.code, d.message) for d in result.diagnostics]
        for entry in result.explained:
            if entry.kind != "claim":
                continue
            if entry.verdict == "skipped":
                skips.append(Skip(entry.path, entry.line, entry.note or "no reason given"))
            elif entry.verdict in ("ok", "warning", "error"):
                verified.add((entry.path, entry.line))
    return findings, skips, verified, crashes


def check_files(rows: list[dict], folder: Path) -> list[str]:
    """Warnings for judged files missing from the folder or changed since the recorded commit."""
    out = []
    for path, blob in sorted({(row["path"], row.get("blob", "")) for row in rows}):
        file = folder / path
        if not file.is_file():
            out.append(f"warning: {folder.name}/{path} is missing")
        elif blob and git_blob(file.read_bytes()) != blob:
            out.append(f"warning: {folder.name}/{path} differs from the recorded commit")
    return out


def score_repos(rows: list[dict], repos: Path) -> Score | None:
    total, seen = Score(), 0
    for repo in sorted({row["repo"] for row in rows}):
        mine = [row for row in rows if row["repo"] == repo]
        folder = repos / folder_name(repo)
        if not folder.is_dir():
            print(f"  {repo}: not at {folder}, skipped")
            continue
        for warning in check_files(mine, folder):
            print("  " + warning)
        seen += 1
        total.add(score(mine, *run_checker(folder, {row["path"] for row in mine})))
    return total if seen else None


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f} %"


def show(name: str, s: Score, listing: bool = False) -> None:
    print(
        f"== {name}: {s.judged} judged lines, {s.claims} claims, {s.wrong_lines} wrong, {len(s.crashes)} notes raised"
    )
    print(f"  errors: {len(s.true_errors)} true, {len(s.false_errors)} false alarms, {len(s.unjudged_errors)} unjudged")
    print(
        f"  warnings: {len(s.true_warnings)} on wrong lines, {len(s.false_warnings)} on right lines, "
        f"{len(s.unjudged_warnings)} unjudged"
    )
    print(
        f"  error precision: {_pct(s.precision)} (unjudged counted as false alarms: {_pct(s.precision_unjudged_false)})"
    )
    print(f"  recall of wrong lines: {s.wrong_found}/{s.wrong_lines} = {_pct(s.recall)}")
    for title, items in (
        ("false alarms", s.false_errors),
        ("unjudged errors", s.unjudged_errors),
        ("warnings on right lines", s.false_warnings),
        ("unjudged warnings", s.unjudged_warnings),
    ):
        for item in items:
            print(f"  {title}: {item}")
    for crash in s.crashes:
        print(f"  checker raised: {crash}")
    not_verified = sum(s.skipped.values())
    print(f"  judged claims not verified: {not_verified} of {s.claims}")
    for reason, count in s.skipped.most_common():
        print(f"    {count:4d}  {reason}")
    for item in s.unverified if listing else ():
        print(f"  not verified: {item}")


def public_rows(public: Path) -> dict[str, list[dict]]:
    """truth-dev.jsonl in the ground's terms, by repository folder: a false alarm or a line read
    correctly is `right`, a true or missed error `wrong`."""
    verdicts = {"false_alarm": "right", "correct_skipped": "right", "true_error": "wrong", "missed_error": "wrong"}
    out: dict[str, list[dict]] = {}
    for row in load_ground(public / "truth-dev.jsonl"):
        folder, _, rel = row["path"].partition("/")
        out.setdefault(folder, []).append({**row, "path": rel, "verdict": verdicts[row["verdict"]]})
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=Path, help="folder of the fetched repositories (default: per half)")
    parser.add_argument("--half", choices=("tune", "held", *HELD_BATCHES, *HALVES), default="tune")
    parser.add_argument("--public", type=Path, default=PUBLIC, help="the shared public ground")
    parser.add_argument("--list", action="store_true", help="list each judged claim not verified, with why")
    args = parser.parse_args()
    halves = HALVES.get(args.half, (args.half,))
    folders = {half: args.repos or HALF_REPOS.get(half, DEFAULT_REPOS) for half in halves}
    if not any(folder.is_dir() for folder in folders.values()):
        absent = ", ".join(sorted({str(folder) for folder in folders.values()}))
        print(f"no repositories at {absent}: nothing to score (fetch them, see bench/ground/README.md)")
        return 0
    for half in halves:
        rows = load_half(half)
        s = score_repos(rows, folders[half]) if folders[half].is_dir() else None
        if s is None:
            print(f"== {half}: none of its repositories is at {folders[half]}")
        else:
            show(half, s, args.list)
    if (args.public / "truth-dev.jsonl").is_file():
        total = Score()
        for folder, rows in sorted(public_rows(args.public).items()):
            if (args.public / folder).is_dir():
                total.add(score(rows, *run_checker(args.public / folder, {row["path"] for row in rows})))
        show("shared public ground (truth-dev.jsonl)", total, args.list)
    return 0


if __name__ == "__main__":
    sys.exit(main())
