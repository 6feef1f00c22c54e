"""`vaultkit watch` and `vaultkit serve` latencies on a temp copy of a vault, in one run.

Real watchdog events and real HTTP. Prints:
- save → figure rewritten by `vaultkit watch` (target ≤ 0.2 s median);
- `vaultkit serve` ready (the process prints its address) against `vaultkit check` of the same
  vault, both as fresh processes (target ≤ 1.5×);
- save → edited page served with the edit (target ≤ 0.3 s median, ≤ 1 s worst);
- new note → listed in the navigation of another, already served page (target ≤ 0.5 s).

    .venv/bin/python bench/bench_watch.py [--vault V] [--saves 20]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

from vaultkit.commands.sync import Watcher

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"
NOTE = "vaultkit-bench/注意力延迟.md"
FIGURE = "vaultkit-bench/注意力延迟.svg"
TIMEOUT = 30.0


def note_text(value: float) -> str:
    return (
        "# bench\n\n```vaultkit\nid: bench-attn\nkind: attention\ntokens: [a, b, c, d]\n"
        f"Q: [[{value}, 0.3, -0.2, 0.8], [0.1, -0.4, 0.7, 0.2], [-0.3, 0.6, 0.1, -0.5], [0.7, -0.1, -0.3, 0.4]]\n"
        "K: [[0.3, -0.5, 0.2, 0.1], [-0.2, 0.6, 0.2, -0.3], [0.4, -0.1, -0.4, 0.5], [0.1, 0.3, 0.6, -0.2]]\n"
        f"mask: causal\ndigits: 3\nfigure: {FIGURE}\n```\n\nmarker-{value}\n"
    )


def wait_until(condition, timeout: float = TIMEOUT) -> float:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("no update within the timeout")
        time.sleep(0.005)
    return time.monotonic()


def bench_watch(root: Path, saves: int) -> list[float]:
    watcher = Watcher(root, on_pass=lambda result: None)
    watcher.start()
    times = []
    try:
        time.sleep(0.3)
        for i in range(saves):
            figure = root / FIGURE
            before = figure.read_bytes() if figure.exists() else b""
            started = time.monotonic()
            (root / NOTE).write_text(note_text(0.5 + 0.01 * (i + 1)), encoding="utf-8")
            done = wait_until(lambda: figure.exists() and figure.read_bytes() != before)
            times.append(done - started)
            time.sleep(0.3)
    finally:
        watcher.stop()
    return times


def check_time(root: Path) -> float:
    started = time.monotonic()
    subprocess.run([sys.executable, "-m", "vaultkit", "check", str(root)], stdout=subprocess.DEVNULL, check=False)
    return time.monotonic() - started


def fetch(url: str) -> str:
    try:
        return urllib.request.urlopen(url, timeout=TIMEOUT).read().decode("utf-8")
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"


def bench_serve(root: Path, saves: int) -> tuple[float, list[float], float]:
    """(seconds to ready, save → page latencies, new note → another page's nav latency)."""
    port = 8700 + os.getpid() % 200
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "vaultkit", "serve", str(root), "-a", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        for line in server.stdout:
            if line.startswith("Serving"):
                break
        ready = time.monotonic() - started
        base = f"http://127.0.0.1:{port}/"
        url = base + quote(NOTE[:-3]) + "/"
        other = base + quote("07-Knowledge") + "/" if (root / "07-Knowledge").is_dir() else base
        fetch(url), fetch(other)  # the first render of each compiles the theme's templates
        time.sleep(0.5)
        times = []
        for i in range(saves):
            value = 0.2 + 0.01 * (i + 1)
            begun = time.monotonic()
            (root / NOTE).write_text(note_text(value), encoding="utf-8")
            times.append(wait_until(lambda: f"marker-{value}" in fetch(url)) - begun)
            time.sleep(0.3)
        begun = time.monotonic()
        (root / "vaultkit-bench" / "new-note.md").write_text("---\ntitle: 新加的笔记\n---\n正文\n", encoding="utf-8")
        new_note = wait_until(lambda: "新加的笔记" in fetch(url)) - begun
        return ready, times, new_note
    finally:
        server.terminate()
        server.wait(TIMEOUT)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=CORPUS)
    parser.add_argument("--saves", type=int, default=20)
    args = parser.parse_args()
    if not args.vault.is_dir():
        print(f"vault not found: {args.vault}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vaultkit-bench-") as tmp:
        root = Path(tmp) / "vault"
        shutil.copytree(args.vault, root)
        (root / NOTE).parent.mkdir()
        (root / NOTE).write_text(note_text(0.5), encoding="utf-8")
        watch_times = bench_watch(root, args.saves)
        check = check_time(root)
        ready, serve_times, new_note = bench_serve(root, args.saves)
    print(
        f"save → figure rewritten (watch):  median {statistics.median(watch_times):.3f} s, "
        f"max {max(watch_times):.3f} s over {len(watch_times)} saves (target ≤ 0.2 s)"
    )
    print(f"serve ready: {ready:.2f} s; check: {check:.2f} s; ready / check = {ready / check:.2f} (target ≤ 1.5)")
    print(
        f"save → edited page served:        median {statistics.median(serve_times):.3f} s, "
        f"max {max(serve_times):.3f} s over {len(serve_times)} saves (target ≤ 0.3 s, ≤ 1 s)"
    )
    print(f"new note → in another page's nav: {new_note:.3f} s (target ≤ 0.5 s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
