"""A held-out drawing set checked as a user checks it: how many one-number slips are found on their line.

Run: PYTHONPATH=$PWD /work/main/.venv/bin/python bench/bench_drawings_held2.py [--set held2|held3|held4|held5|held6] [--only NAME] [--verbose]

The ground is `tests/fixtures/drawings-<set>/` (default held2): drawings made apart from the readers,
each right, drawn by `make_<set>.py`, and `manifest.jsonl`, one row per drawing (kind `right`), per
planted slip (the exact string to replace, which of its occurrences, the wrong string, the SVG line)
and per public drawing (kind `public`, read from /work/cache/drawings-<set>, skipped when absent;
never committed).

Each variant is written as `assets/x.svg`, embedded by `note.md` (`![[x.svg]]`) in a fresh
folder, and `vaultkit check <folder> --format json --explain` runs in a subprocess, as a user
runs it. Then:

- right and public drawings: every VK4xx error is a false alarm (warnings are listed apart), and
  `fix` must leave a right drawing as it is;
- a slip is found when a VK4xx finding on `assets/x.svg` stands on the slip's line and the right
  drawing has no finding of that code on that line (a false alarm there, reworded by the slip,
  is no find); it is fixed when `vaultkit fix <folder>` gives back the right
  drawing byte for byte;
- what `--explain` says of each drawing (read, not read and why) is tallied.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ("held2", "held3", "held4", "held5", "held6")
NOTE = "# Attention, worked by hand\n\n![[x.svg]]\n"


def load_set(name: str):
    """(the set's folder, its public cache, its maker module: it counts a string's occurrences as planting does)."""
    ground = ROOT / "tests" / "fixtures" / f"drawings-{name}"
    spec = importlib.util.spec_from_file_location(f"make_{name}", ground / f"make_{name}.py")
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    return ground, Path(f"/work/cache/drawings-{name}"), maker


def vaultkit(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "vaultkit", *args], capture_output=True, text=True, env=env, timeout=300
    )


def folder(root: Path, svg: str) -> Path:
    """A one-note vault in `root` embedding `svg` as assets/x.svg."""
    (root / "assets").mkdir()
    (root / "assets" / "x.svg").write_text(svg, encoding="utf-8")
    (root / "note.md").write_text(NOTE, encoding="utf-8")
    return root


def check(svg: str) -> tuple[list[dict], list[str]]:
    """(diagnostics of the check, its --explain lines about the drawing)."""
    with tempfile.TemporaryDirectory(prefix="held-") as tmp:
        done = vaultkit("check", str(folder(Path(tmp), svg)), "--format", "json", "--explain")
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        raise SystemExit(f"vaultkit check gave no JSON (rc {done.returncode}):\n{done.stderr[-2000:]}") from None
    explained = [line for line in done.stderr.splitlines() if line.startswith("assets/x.svg:")]
    return report["diagnostics"], explained


def fixed(svg: str) -> str:
    """The drawing after `vaultkit fix`."""
    with tempfile.TemporaryDirectory(prefix="held-") as tmp:
        root = folder(Path(tmp), svg)
        vaultkit("fix", str(root))
        return (root / "assets" / "x.svg").read_text(encoding="utf-8")


def plant(maker, svg: str, original: str, occurrences: list[int], wrong: str) -> str:
    """`svg` with the given occurrences of `original` (as `maker` finds them) replaced by `wrong`."""
    starts = maker.find_all(svg, original)
    out = svg
    for i in sorted(occurrences, reverse=True):
        start = starts[i]
        out = out[:start] + wrong + out[start + len(original) :]
    return out


def drawing_vk4(diags: list[dict]) -> list[dict]:
    return [d for d in diags if d["code"].startswith("VK4")]


def said(explained: list[str]) -> str:
    """What --explain says of the drawing, in a few words: its first entry's kind and verdict."""
    if not explained:
        return "nothing said"
    head = explained[0].split(": ", 2)
    return head[1] if len(head) > 1 else explained[0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--set", choices=SETS, default="held2", help="which held-out set (default held2)")
    parser.add_argument("--only", help="one drawing (file name)")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    ground, cache, maker = load_set(args.set)
    rows = [json.loads(line) for line in (ground / "manifest.jsonl").read_text(encoding="utf-8").splitlines() if line]
    if args.only:
        rows = [r for r in rows if args.only in (r.get("file"), r.get("path"))]
    rights = {r["file"]: r for r in rows if r["kind"] == "right"}
    slips = [r for r in rows if r["kind"] not in ("right", "public")]
    public = [r for r in rows if r["kind"] == "public"]

    baseline: dict[str, tuple[list[dict], list[str]]] = {}
    false_alarms, warnings_right, changed_right, told = [], [], [], Counter()
    for name in rights:
        svg = (ground / name).read_text(encoding="utf-8")
        diags, explained = check(svg)
        baseline[name] = (diags, explained)
        told[said(explained)] += 1
        for d in drawing_vk4(diags):
            (false_alarms if d["severity"] == "error" else warnings_right).append((name, d))
        if fixed(svg) != svg:
            changed_right.append(name)
        if args.verbose:
            print(f"[right] {name}: {said(explained)}; {len(drawing_vk4(diags))} VK4xx")
            for line in explained:
                print("    " + line[:200])

    found = found_elsewhere = fixed_exactly = 0
    by_kind: dict[str, Counter] = {}
    missed = []
    for slip in slips:
        name = slip["file"]
        right = (ground / name).read_text(encoding="utf-8")
        wrong = plant(maker, right, slip["original"], slip["occurrences"], slip["wrong"])
        assert wrong != right, slip
        diags, _ = check(wrong)
        before = {(d["code"], d["line"], d["message"]) for d in baseline[name][0]}
        new = [d for d in drawing_vk4(diags) if (d["code"], d["line"], d["message"]) not in before]
        flagged = {(d["code"], d["line"]) for d in baseline[name][0]}  # a line the right drawing is flagged on
        on_line = [
            d
            for d in new
            if d["path"] == "assets/x.svg" and d["line"] == slip["line"] and (d["code"], d["line"]) not in flagged
        ]
        kind = by_kind.setdefault(slip["kind"], Counter())
        kind["planted"] += 1
        if on_line:
            found += 1
            kind["found"] += 1
        elif new:
            found_elsewhere += 1
            kind["elsewhere"] += 1
        else:
            missed.append(slip)
        if on_line and fixed(wrong) == right:
            fixed_exactly += 1
            kind["fixed"] += 1
        if args.verbose:
            verdict = "FOUND" if on_line else ("elsewhere" if new else "missed")
            print(f"[slip] {name}:{slip['line']} {slip['kind']} {slip['original']!r}→{slip['wrong']!r}: {verdict}")
            for d in new:
                print(f"    {d['code']} {d['severity']} line {d['line']}: {d['message'][:160]}")

    public_read = public_alarms = public_skipped = 0
    public_told: Counter = Counter()
    for row in public:
        path = cache / row["repository"].replace("/", "+") / row["path"]
        if not path.is_file():
            public_skipped += 1
            continue
        diags, explained = check(path.read_text(encoding="utf-8", errors="replace"))
        public_read += 1
        public_told[said(explained)] += 1
        errors = [d for d in drawing_vk4(diags) if d["severity"] == "error"]
        public_alarms += len(errors)
        if args.verbose or errors:
            print(f"[public] {row['repository']} {row['path']}: {said(explained)}; {len(errors)} VK4xx errors")
            for line in explained[:3]:
                print("    " + line[:200])
            for d in errors:
                print(f"    {d['code']} line {d['line']}: {d['message'][:160]}")

    n = len(slips)
    print(f"{args.set}: {len(rights)} right drawings, {n} planted slips, {len(public)} public drawings")
    print(f"slips found on their line: {found}/{n}" + (f" ({100 * found / n:.0f} %)" if n else ""))
    print(f"slips found, but not on their line: {found_elsewhere}/{n}")
    print(f"slips missed (silent): {len(missed)}/{n}")
    print(f"slips fixed exactly: {fixed_exactly}/{n}")
    for kind, c in sorted(by_kind.items()):
        print(
            f"  {kind:12} planted {c['planted']:2}  found {c['found']:2}  elsewhere {c['elsewhere']:2}  fixed {c['fixed']:2}"
        )
    print(f"false alarms (VK4xx errors) on right drawings: {len(false_alarms)}")
    for name, d in false_alarms:
        print(f"  {name}:{d['line']} {d['code']}: {d['message'][:160]}")
    print(
        f"right drawings that `fix` changes: {len(changed_right)}"
        + (f" ({', '.join(changed_right)})" if changed_right else "")
    )
    print(f"VK4xx warnings on right drawings: {len(warnings_right)}")
    for name, d in warnings_right:
        print(f"  {name}:{d['line']} {d['code']}: {d['message'][:160]}")
    print("what --explain says of the right drawings:")
    for what, count in told.most_common():
        print(f"  {count:2}  {what}")
    if public_skipped == len(public) and public:
        print(f"public drawings: skipped ({cache} absent)")
    else:
        print(
            f"public drawings read: {public_read} (skipped {public_skipped}); false alarms (VK4xx errors): {public_alarms}"
        )
        for what, count in public_told.most_common():
            print(f"  {count:2}  {what}")


if __name__ == "__main__":
    main()
