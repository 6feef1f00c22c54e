"""Check and fix time per executable example.

Run: .venv/bin/python bench/bench_examples.py
Builds temporary vaults holding N attention / kv-cache examples (N = 1, 10, 50), then times
`check` (compute everything, compare) and `fix` (compute and write) on each, median of 5, and
prints the time per example. The per-example cost should stay flat as N grows.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

from vaultkit.commands.check import run
from vaultkit.commands.fix import apply_changes

BLOCK = """```vaultkit
id: {kind}-{i}
kind: {kind}
tokens: [我, 想, 买, 苹果, 手机]
seed: {i}
```

权重 0.5%%= {kind}-{i}.{field} %%

"""
FIELDS = {"attention": "weights[1][0]", "kv-cache": "steps[1].weights[0]"}


def make_vault(root: Path, n: int) -> None:
    text = "".join(
        BLOCK.format(kind=kind, i=i, field=FIELDS[kind]) for i in range(n) for kind in ("attention", "kv-cache")
    )
    (root / "examples.md").write_text("# 例子\n\n" + text, encoding="utf-8")


def median_time(action, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        action()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    print(f"{'examples':>8}  {'check s':>8}  {'per example ms':>14}  {'fix s':>8}  {'per example ms':>14}")
    for n in (1, 10, 50):
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            count = 2 * n

            def fix_fresh() -> None:
                make_vault(root, n)
                apply_changes(run(root)[1])

            make_vault(root, n)
            check = median_time(lambda: run(root))
            fix = median_time(fix_fresh)
            print(f"{count:>8}  {check:8.3f}  {1000 * check / count:14.2f}  {fix:8.3f}  {1000 * fix / count:14.2f}")


if __name__ == "__main__":
    main()
