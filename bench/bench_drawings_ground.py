"""One-number slips planted in each drawing of the ground: how many are found on their line.

Run: .venv/bin/python bench/bench_drawings_ground.py [--seeds 3] [--half tune|held|both]

The ground is `tests/fixtures/drawings-ground.jsonl`: the sketches `tests/fixtures/handdrawn/
sketches.py` draws the way tools export them, and public drawings read from /work/cache/drawings
(skipped when absent; never committed). Each row says which half it is in, decided before the
readers were tuned on the "tune" half. For each drawing and seed:

- the right drawing is checked: any finding is a false alarm;
- a sketch is drawn with its seeded one-number slips (`sketches.draw(name, seed, True)`): a slip
  is found when a VK402 finding names its cell on the line it is written on, and fixed when
  `fix` gives back the right drawing byte for byte.

Public drawings show no attention derivation a slip could be planted in (their numbers are
shapes, sizes and steps, another reader's), so they count only for false alarms and for being
read without a crash or a hang. Prints each half apart.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import time
from pathlib import Path

from vaultkit.checks.drawings.handdrawn import check_handdrawn
from vaultkit.checks.drawings.inferred import infer, why_not
from vaultkit.checks.examples.kinds import attention
from vaultkit.checks.examples.spec import ExampleError
from vaultkit.readers.svgtext import read_svg

ROOT = Path(__file__).resolve().parents[1]
GROUND = ROOT / "tests" / "fixtures" / "drawings-ground.jsonl"
CACHE = Path("/work/cache/drawings")
_spec = importlib.util.spec_from_file_location("sketches", ROOT / "tests" / "fixtures" / "handdrawn" / "sketches.py")
sketches = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sketches)


def findings(svg: str):
    """(wrong cells with their lines, other findings as text, fixed text) of one drawing."""
    model = read_svg(svg)
    if model is None:
        return set(), ["not well-formed XML"], svg
    derivation = infer(model, "d.svg")
    if derivation is None:
        return set(), [], svg
    others = [f"VK403 {d.reason}" for d in derivation.doubts]
    if not derivation.spec:
        return set(), others, svg
    try:
        run = attention.run(attention.parse(derivation.spec))
    except (ExampleError, ValueError) as exc:
        return set(), [*others, f"cannot run: {exc}"], svg
    report = check_handdrawn(
        model,
        run.quantities,
        digits=derivation.spec["digits"],
        tokens=derivation.spec.get("tokens", []),
        skip=derivation.skip,
    )
    wrong = {(f.quantity, *f.index, f.line) for f in report.findings if f.status == "wrong"}
    others += [f"VK403 {f.written} {f.computed}" for f in report.findings if f.status != "wrong"]
    return wrong, others, report.fixed_text


def line_of(svg: str, right: str) -> int:
    """The line the seeded slip is written on: where the wrong drawing differs from the right."""
    a, b = svg.split("\n"), right.split("\n")
    changed = [n + 1 for n, (x, y) in enumerate(zip(a, b)) if x != y]
    return changed[0] if len(changed) == 1 else -1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--half", choices=("tune", "held", "both"), default="both")
    args = parser.parse_args()
    rows = [json.loads(line) for line in GROUND.read_text(encoding="utf-8").splitlines() if line.strip()]
    halves = ("tune", "held") if args.half == "both" else (args.half,)
    for half in halves:
        planted = found = fixed = alarms = drawings = skipped = 0
        start = time.perf_counter()
        for row in rows:
            if row["half"] != half:
                continue
            if row["kind"] == "sketch":
                for seed in range(args.seeds):
                    right, _ = sketches.draw(row["name"], seed, False)
                    right_wrong, others, _ = findings(right)
                    alarms += len(others) + len(right_wrong)
                    if right_wrong or others:
                        print(f"  {half} {row['name']} seed {seed}: false alarm {sorted(right_wrong)} {others}")
                    drawings += 1
                    for cell in sketches.derived_cells(row["name"], seed):
                        one = sketches.one_slip(row["name"], seed, cell)
                        wrong, _, fix = findings(one)
                        planted += 1
                        at = line_of(one, right)
                        named = (cell[0].rstrip("·"), *cell[1:])  # a factor of a worked line is Q's or K's
                        hit = any(w[:3] == named and w[3] == at for w in wrong)
                        found += hit
                        fixed += hit and fix == right
                        if not hit:
                            print(f"  {half} {row['name']} seed {seed}: slip {cell} missed ({sorted(wrong)})")
            else:
                path = CACHE / row["repository"].replace("/", "+") / row["path"]
                if not path.exists():
                    skipped += 1
                    continue
                svg = path.read_text(encoding="utf-8")
                wrong, others, _ = findings(svg)
                alarms += len(wrong) + len(others)
                drawings += 1
                if wrong or others:
                    print(f"  {half} {row['path']}: false alarm {sorted(wrong)} {others}")
                model = read_svg(svg)
                print(f"  {half} {row['path']}: {why_not(model) if model else 'not XML'}")
        took = time.perf_counter() - start
        share = f"{found / planted:.0%}" if planted else "n/a"
        print(
            f"{half}: {drawings} right drawings read, {alarms} false alarms; {planted} one-number slips planted, "
            f"{found} found on their line ({share}), {fixed} fixed exactly; {skipped} public drawings absent; "
            f"{took:.1f} s"
        )


if __name__ == "__main__":
    main()
