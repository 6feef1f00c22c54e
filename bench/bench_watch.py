"""Save → figure rewritten (`vaultkit watch`) and save → served page updated (`vaultkit serve`).

Runs on a temp copy of ../shared/corpus/vault146 plus one note with an attention example and a
generated figure; real watchdog events, real HTTP. Prints medians, and the incremental page
update as a ratio of a full site build in the same run.
Targets: figure ≤ 0.2 s median, served page ≤ 0.3 s median (Quartz ≈ 0.47 s, mkdocs serve ≈ 3.6 s).

    .venv/bin/python bench/bench_watch.py [--saves 10]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import logging
import shutil
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

from vaultkit.site.serve import LiveServer, LiveSite, Reloader
from vaultkit.watch import Watcher

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"
NOTE = "07-Knowledge/vaultkit-bench.md"
FIGURE = "assets/vaultkit-bench.svg"
TIMEOUT = 20.0


def note_text(value: float) -> str:
    return (
        "# bench\n\n```vaultkit\nid: bench-attn\nkind: attention\ntokens: [a, b, c, d]\n"
        f"Q: [[{value}, 0.3, -0.2, 0.8], [0.1, -0.4, 0.7, 0.2], [-0.3, 0.6, 0.1, -0.5], [0.7, -0.1, -0.3, 0.4]]\n"
        "K: [[0.3, -0.5, 0.2, 0.1], [-0.2, 0.6, 0.2, -0.3], [0.4, -0.1, -0.4, 0.5], [0.1, 0.3, 0.6, -0.2]]\n"
        f"mask: causal\ndigits: 3\nfigure: {FIGURE}\n```\n\nmarker-{value}\n"
    )


def wait_until(condition) -> float:
    deadline = time.monotonic() + TIMEOUT
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("no update within the timeout")
        time.sleep(0.002)
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


def bench_serve(root: Path, site_dir: Path, saves: int) -> tuple[list[float], float]:
    started = time.monotonic()
    site = LiveSite(root, site_dir)
    full_build = time.monotonic() - started
    server = LiveServer("127.0.0.1", 0, site_dir)
    watcher = Watcher(root)
    watcher.on_pass = Reloader(site, server, watcher)
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    watcher.start()
    times = []
    try:
        wait_until(lambda: server.server_address[1] != 0)
        url = f"http://127.0.0.1:{server.server_address[1]}/" + site.kept.files.get_file_from_path(NOTE).url

        def page() -> str:
            return urllib.request.urlopen(url, timeout=TIMEOUT).read().decode("utf-8")

        time.sleep(0.3)
        for i in range(saves):
            value = 0.2 + 0.01 * (i + 1)
            started = time.monotonic()
            (root / NOTE).write_text(note_text(value), encoding="utf-8")
            done = wait_until(lambda: f"marker-{value}" in page())
            times.append(done - started)
            time.sleep(0.3)
    finally:
        watcher.stop()
        server.shutdown()
        thread.join(TIMEOUT)
    return times, full_build


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--saves", type=int, default=10)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"the real vault is not at {CORPUS}; nothing to measure", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.ERROR)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "vault146"
        shutil.copytree(CORPUS, root)
        (root / NOTE).write_text(note_text(0.5), encoding="utf-8")
        watch_times = bench_watch(root, args.saves)
        with contextlib.redirect_stdout(io.StringIO()):  # the pass reports
            serve_times, full_build = bench_serve(root, Path(tmp) / "site", args.saves)
    watch_median = statistics.median(watch_times)
    serve_median = statistics.median(serve_times)
    print(f"save → figure rewritten:      median {watch_median:.3f} s, max {max(watch_times):.3f} s "
          f"over {len(watch_times)} saves (target ≤ 0.2 s)")
    print(f"save → served page updated:   median {serve_median:.3f} s, max {max(serve_times):.3f} s "
          f"over {len(serve_times)} saves (target ≤ 0.3 s)")
    print(f"full site build:              {full_build:.3f} s; page update / full build = {serve_median / full_build:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
