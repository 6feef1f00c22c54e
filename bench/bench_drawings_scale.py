"""What reading one drawing costs as it grows: 1×, 3× and 9× the numbers (or the nesting).

Run: .venv/bin/python bench/bench_drawings_scale.py [--base 10000] [--depth 2222] [-n RUNS]

Each drawing is made here, in memory: a grid of numbers a `<text>` each (with a cell box
around each number, as a drawing program draws a table), the same grid written as bracketed
rows, and a `<text>` nested in `depth` `<g>`s. For each it times, in this process, what a
check does with one SVG: read it (`read_svg`), read its layout (`find_layout`), the example it
implies (`infer`, or `why_not` when none), and its arithmetic claims. Prints the medians and
the time per number against 1×: reading must grow with the drawing, not with its square
(at 9× the per-number cost stays near 1×). A drawing over the reader's limits is skipped
with a reason: that line says so.
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from vaultkit.checks import claims
from vaultkit.checks.drawings.inferred import infer, why_not
from vaultkit.checks.drawings.layouts import find_layout
from vaultkit.readers.svgtext import read_svg


def grid(numbers: int) -> str:
    side = max(2, round(math.sqrt(numbers)))
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" font-size="12"><text x="10" y="10">Q</text>']
    for i in range(side):
        for j in range(side):
            x, y = 40 + 50 * j, 30 + 24 * i
            parts.append(f'<rect x="{x - 24}" y="{y - 16}" width="48" height="22" fill="none" stroke="#000"/>')
            parts.append(f'<text x="{x}" y="{y}" text-anchor="middle">{(i * 7 + j * 3) % 19 / 10:.1f}</text>')
    return "".join(parts) + "</svg>"


def rows(numbers: int) -> str:
    width = 8
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" font-size="12"><text x="10" y="10">K</text>']
    for i in range(max(2, numbers // width)):
        row = " ".join(f"{(i + j) % 9 / 10:.1f}" for j in range(width))
        parts.append(f'<text x="{20 + 400 * (i // 500)}" y="{30 + 16 * (i % 500)}">[{row}]</text>')
    return "".join(parts) + "</svg>"


def nested(depth: int) -> str:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg">'
        + '<g transform="translate(1,1)">' * depth
        + '<text x="1" y="2">2 × 3 = 6</text>'
        + "</g>" * depth
        + "</svg>"
    )


def once(svg: str) -> tuple[float, str]:
    start = time.perf_counter()
    model = read_svg(svg)
    layout = find_layout(model)
    derivation = infer(model, "d.svg")
    said = why_not(model) if derivation is None else "; ".join(d.reason for d in derivation.doubts) or "read"
    claims.check_svg(model, "d.svg")
    return time.perf_counter() - start, f"{len(layout.matrices)} matrices; {said}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", type=int, default=10000, help="numbers at 1×")
    parser.add_argument("--depth", type=int, default=2222, help="nested <g> at 1×")
    parser.add_argument("-n", "--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{'drawing':<10}{'×':>3}{'size':>9}{'median s':>10}{'µs/unit':>10}{'vs 1×':>7}  what was read")
    for name, make, base in (("grid", grid, args.base), ("rows", rows, args.base), ("nested", nested, args.depth)):
        first = None
        for factor in (1, 3, 9):
            size = base * factor
            svg = make(size)
            times, said = [], ""
            for _ in range(args.runs):
                t, said = once(svg)
                times.append(t)
            per = statistics.median(times) / size * 1e6
            first = first or per
            print(
                f"{name:<10}{factor:>3}{size:>9}{statistics.median(times):>10.3f}{per:>10.1f}{per / first:>7.2f}  {said[:90]}"
            )


if __name__ == "__main__":
    main()
