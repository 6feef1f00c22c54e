#!/usr/bin/env python3
"""Site build time and memory, as ratios measured in one run (the machine is shared and noisy).

    .venv/bin/python bench/bench_build.py [--vault V] [--copies 8] [--large 45] [--against REV] [--rounds N]
                                          [--bare] [--zensical EXE]

- scale: a clean `vaultkit build` (fresh output folder) of VAULT (default ../shared/corpus/vault146)
  and of `--copies` and `--large` renamed copies of it in one vault each
  (../shared/tools/make_large_vault.py; `--large 0` leaves that one out). Each build prints wall
  seconds, CPU seconds and peak RSS, its worker processes included, then each size against
  VAULT's. Targets: copies / vault <= 1.075 × copies in wall time (8.6× for 8); issue 20 asks
  45 copies in <= 150 s with <= 1.5 GB peak RSS, and VAULT in <= 0.6× the time it took before.
- `--against REV`: each size is built too by vaultkit as it was at git revision REV (its files
  from `git archive`, run with this interpreter), right after, and the times compared: issue 20's
  targets were set against the build of its day (603e1fe): 45 copies in 150 s where that one took
  238 s, i.e. <= 0.63x of it on the same machine, and the vault in <= 0.6x.
- `--rounds N`: the vault itself (1x) is built N times (alternating with REV's build), and the
  medians printed: one build of it takes seconds, and this machine's speed varies by a third.
- `--incremental N`: a vault of N copies (the shared tool), 20 of its notes given a link to one
  heading of another; then, in one run: a clean build, a build with nothing changed, one after
  a note's body was edited, one after that heading was renamed (each with `--verbose`: the
  pages rendered are counted), and the site's size, largest file and median page. Targets
  (issue 41, 45 copies): one edit <= 5 % of the clean build, no-op <= 3 %, the rename renders
  the 21 pages alone; site <= 1 GB, no file over 5 MB, median page <= 150 KB, <= 1.5 GB peak RSS.
- `--strict-rounds N`: plain and `--strict` clean builds of VAULT, alternating, N each (target:
  strict <= 1.15x plain, medians).
- `--bare`: vaultkit against plain mkdocs-material on the same notes, read by Python-Markdown with
  the extensions vaultkit used before it rendered pages from tokens (target: vaultkit <= 0.6×).
- `--zensical EXE`: vaultkit against `zensical build` (EXE from a separate venv) of a copy of
  VAULT with material, zh search and material's recommended markdown extensions.

Figures of 2026-12-03, second round (branch site-inc at fedea9c, one run of `--copies 8 --large 45
--against cff3132 --rounds 3 --incremental 45 --strict-rounds 3`, TMPDIR on a private folder, 2
shared cores at load 2-4, so wall times are noisy and CPU is the steadier ratio). cff3132 is main
just before issue 41's work was first merged (6fd2b73; the branch started from 394d2e7); the
first round's figures were against c03112d, which already held that first merge.

- clean, 146 / 1,168 / 6,570 notes: 5.3 / 40.3 / 271.2 s CPU (5.7 / 41.8 / 241.5 s wall),
  106 / 303 / 1,364 MB peak RSS; against cff3132: 0.78x / 0.85x / 1.11x the CPU, 0.80x / 0.65x
  / **1.70x the wall time** at 45 copies (cff3132: 142.3 s wall for 244.2 s CPU, 1.7 cores busy;
  this build 1.1), 0.62x / 0.66x / 0.70x the peak RSS (cff3132: 1,956 MB). Target <= 1.05x: met
  at 1x and 8x, not at 45 copies (CPU 1.11x, wall 1.70x). Least squares over the three: 76 MB +
  196 MB per 1,000 notes (**19.7 GB at 100,000 notes**) and 41.8 s CPU per 1,000 notes (4,180 s).
- second run, at f176ef7 (the diagram count parses nothing at the end of a clean build), the
  same flags, load 4-5: clean 6.6 / 49.3 / 265.6 s CPU, 106 / 303 / 1,363 MB; against cff3132
  **0.82x / 1.07x / 1.00x the CPU**, 0.92x / 0.99x / 0.75x the wall time (the load made the
  wall times of both 1.4-3x those of the first run), 0.62x / 0.66x / 0.70x the peak RSS
  (cff3132: 1,957 MB). Least squares: 76 MB + 195.9 MB per 1,000 notes (**19.7 GB at 100,000
  notes**), 1 s + 40.2 s CPU per 1,000 notes (4,023 s at 100,000). Target <= 1.05x: met in CPU
  at 1x and 45 copies, not at 8x (1.07x); the wall times of the two runs disagree (1.70x, 0.75x).
  Its incremental part: clean 273.0 s wall, 277.0 s CPU, 1,364 MB; no-op 7.6 s, **2.8 % of the
  wall time** (2.7 % CPU, 1,068 MB: met); one body edited 22.1 s, **8.1 %** (5.5 % CPU, 1 page,
  1,344 MB: not met); heading renamed 17.5 s, 6.4 % (5.9 % CPU, exactly the 21 pages); site and
  search as below; strict / plain 1.14x wall, 1.15x CPU (load falling from 4 to 1 meanwhile).
- what holds memory (45 copies, clean, /proc/self/status of the building process after each
  step; 222 s in all): 450 MB once the vault is read (4 s); 890 MB once its notes are checked,
  their pages drafted and MkDocs' files and navigation made (109 s, 2 processes); 1,116 MB once
  every page is rendered (85 s: the records of 6,570 pages with their search parts, MkDocs'
  pages); the diagram count added nothing (15 s of one process, gone since f176ef7); the search
  index's merge peaks at 1,305 MB (every page's postings as arrays, freed), the cache's save at
  1,362 MB (pickling the state: each note's bytes and text, the check's results, the link index).
- 45 copies, incremental (20 notes given a link to one heading): clean 188.2 s wall, 257.6 s
  CPU, 1,366 MB; no-op 6.7 s: **3.6 % of the clean build's wall time** (2.5 % of its CPU; target
  <= 3 %: met in CPU, not in wall), 1,066 MB; one body edited 14.0 s: **7.4 %** (5.3 % CPU; 1 page
  rendered; target <= 5 %: not met), 1,344 MB; heading renamed 15.5 s: 8.2 % (5.6 % CPU; exactly
  the 21 pages). The first round's third run (1a11411): no-op 9.5 %, one edit 14.2 %.
- what an incremental build spends (cProfile, 45 copies): before 4043390, 77 of a no-op's 96
  profiled seconds parsed the 1,350 notes with mermaid diagrams for the count at the end (their
  fact is now kept in the cache with each note). Left in a no-op (15 s profiled): the cache
  read (4.1 s; pickle.load of a 289 MB state and 209 MB of page records), the site's files and
  navigation (4.2 s, of which the tags page's markdown 1.6 s), every page's inputs digested
  (2.1 s), the vault's files digested (1.1 s), imports (1.2 s), the stale-file walk over 17,741
  files (0.9 s), the config digest (0.8 s, a1f1c85 lists no installed theme file now). One edit
  adds the search index merged whole (2.9 s, an argsort of all postings 1.1 s) and the cache
  written whole (2.4 s, pickle.dump 2.0 s).
- 45 copies, the site: 0.67 GB in 17,741 files (2.5 GB in issue 41), largest file
  tags/index.html 3.9 MB, median page 76 KB.
- 45 copies, search in chromium: `注意力` 495 pages found, 0.22 MB fetched in 12 files;
  `attention` 451 pages, 0.24 MB in 11 files (material's one index was 268 MB). Pagefind 1.5.2
  (extended), first round: 228 s wall, 4.7 GB RSS on every build, ruled out for an incremental one.
- strict / plain on VAULT (medians of 3): 1.08x wall, 1.04x CPU.

Figures of 2026-12-04 (branch site-inc4 at acae6fd, `--no-scale --incremental 45 --strict-rounds 3`,
load 4-5.4 from other agents: the clean build's wall time is inflated, CPU is the steadier ratio):
the search index updated shard by shard, the pages' search parts kept apart (search.sqlite),
files of unchanged size and time not hashed, static files copied only when changed.

- 45 copies, incremental: clean 366.7 s wall, 211.7 s CPU, 1,351 MB; no-op 10.5 s, 2.9 % wall,
  **2.5 % CPU**, 790 MB; one body edited 11.5 s, 3.1 % wall, **3.5 % CPU** (5.3-5.5 % before), 1
  page, 1,014 MB; heading renamed 10.1 s, 2.8 % wall, 3.9 % CPU, exactly the 21 pages, 1,017 MB.
- what an edit spends (cProfile, 45 copies, 19.2 s profiled under load): the state's pickle
  written (2.5 s) and read (2.1 s), every page's inputs digested (2.1 s), the site's files and
  navigation (3.4 s, the tags page 1.7 s before acae6fd), imports (1.2 s); the search index's
  update no longer shows.
- strict / plain on VAULT (medians of 3): 0.98x wall, 0.96x CPU.

Every vault is copied or generated under a temp dir; builds run in subprocesses. Peak RSS is
`ru_maxrss` of RUSAGE_CHILDREN in a small process that only runs the build: the largest
resident set of the build or any of its workers.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

import yaml

# The Python-Markdown extensions vaultkit's site used before pages were rendered from tokens:
# `--bare` builds the same pages with them and material's HTML-parsing search (the old cost).
PYTHON_MARKDOWN = {
    "toc": {"permalink": True},
    "tables": {},
    "attr_list": {},
    "md_in_html": {},
    "admonition": {},
    "pymdownx.details": {},
    "pymdownx.superfences": {},
    "pymdownx.arithmatex": {"generic": True},
    "pymdownx.mark": {},
    "pymdownx.tilde": {},
    "pymdownx.tasklist": {"custom_checkbox": True},
}

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus" / "vault146"
MAKE_LARGE = SHARED / "tools" / "make_large_vault.py"

# Material's recommended markdown extensions (emoji left out: its index lives in material's package).
RECOMMENDED = [
    "abbr",
    "admonition",
    "attr_list",
    "def_list",
    "footnotes",
    "md_in_html",
    {"toc": {"permalink": True}},
    {"pymdownx.arithmatex": {"generic": True}},
    "pymdownx.betterem",
    "pymdownx.caret",
    "pymdownx.details",
    {"pymdownx.highlight": {"anchor_linenums": True}},
    "pymdownx.inlinehilite",
    "pymdownx.keys",
    "pymdownx.mark",
    "pymdownx.smartsymbols",
    "pymdownx.superfences",
    {"pymdownx.tabbed": {"alternate_style": True}},
    {"pymdownx.tasklist": {"custom_checkbox": True}},
    "pymdownx.tilde",
]


def run(command: list[str], cwd: Path | None = None) -> float:
    """Wall-clock seconds of the command."""
    start = time.perf_counter()
    subprocess.run(command, check=True, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


# Runs argv[1:] and prints its wall seconds, CPU seconds and peak RSS (KiB), its children included:
# a fresh process, so the peak is this command's alone.
MEASURE = """
import resource, subprocess, sys, time
start = time.perf_counter()
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
wall = time.perf_counter() - start
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss)
"""


@dataclass
class Measure:
    notes: int
    wall: float  # seconds
    cpu: float  # seconds, workers included
    rss: float  # MB, the largest process


def vaultkit_build(vault: Path, out: Path) -> float:
    return run([sys.executable, "-m", "vaultkit", "build", str(vault), "-o", str(out)])


def measured_build(vault: Path, out: Path, code: Path | None = None) -> Measure:
    """A clean build of `vault` into `out`, measured in a process of its own; by the vaultkit
    whose files are in `code` when given (else this one)."""
    command = [sys.executable, "-m", "vaultkit", "build", str(vault), "-o", str(out)]
    env = None if code is None else {**os.environ, "PYTHONPATH": str(code)}
    result = subprocess.run(
        [sys.executable, "-c", MEASURE, *command], check=True, capture_output=True, text=True, cwd=code, env=env
    )
    wall, cpu, rss_kib = map(float, result.stdout.split())
    return Measure(notes_in(vault), wall, cpu, rss_kib / 1024)


def files_at(revision: str, folder: Path) -> Path:
    """The repository's files at `revision`, written under `folder`, with the entry points of
    its pyproject.toml (MkDocs finds the `vaultkit` plugin by them; on PYTHONPATH, they come
    before the installed vaultkit's)."""
    folder.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", revision], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    project = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = folder / f"{project['name']}-{revision}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: 0\n", encoding="utf-8")
    groups = project.get("entry-points", {})
    entry_points = "".join(
        f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in points.items())
        for group, points in groups.items()
    )
    (info / "entry_points.txt").write_text(entry_points, encoding="utf-8")
    return folder


def print_measure(label: str, m: Measure) -> None:
    print(f"  {label}: {m.notes:>5} notes  {m.wall:7.1f} s wall  {m.cpu:7.1f} s CPU  {m.rss:7.0f} MB peak RSS")


def notes_in(vault: Path) -> int:
    return sum(1 for _ in vault.rglob("*.md"))


def write_config(folder: Path, plugins: list[str], extensions: list) -> Path:
    config = {
        "site_name": "bench",
        "docs_dir": "vault",
        "theme": {"name": "material", "language": "zh", "font": False},
        "plugins": plugins,
        "markdown_extensions": extensions,
    }
    path = folder / f"{'-'.join(plugins)}.yml"
    path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    return path


def median_measure(measures: list[Measure]) -> Measure:
    """The median wall time, CPU time and peak RSS of several builds of one vault."""
    return Measure(
        measures[0].notes, *(statistics.median(getattr(m, name) for m in measures) for name in ("wall", "cpu", "rss"))
    )


def scale(source: Path, tmp: Path, copies: int, large: int, against: str | None, rounds_of_one: int) -> None:
    sizes = [1, copies] + ([large] if large else [])
    measures, before = {}, {}
    old_code = files_at(against, tmp / "against") if against else None
    print("vaultkit build, clean:")
    for n in sizes:
        vault = tmp / f"x{n}" / "vault"
        if n == 1:
            shutil.copytree(source, vault)
        else:
            subprocess.run(
                [sys.executable, str(MAKE_LARGE), str(source), str(vault), str(n)],
                check=True,
                stdout=subprocess.DEVNULL,
            )
        rounds = rounds_of_one if n == 1 else 1
        ours, theirs = [], []
        for _ in range(rounds):  # alternating, so both see the same machine
            ours.append(measured_build(vault, tmp / f"x{n}" / "site"))
            shutil.rmtree(tmp / f"x{n}" / "site")
            if old_code is not None:
                theirs.append(measured_build(vault, tmp / f"x{n}" / "site", old_code))
                shutil.rmtree(tmp / f"x{n}" / "site")
        measures[n] = median_measure(ours)
        print_measure(f"{n:>3}x" + (f", median of {rounds}" if rounds > 1 else ""), measures[n])
        if theirs:
            before[n] = median_measure(theirs)
            print_measure(f"{n:>3}x at {against}", before[n])
        shutil.rmtree(tmp / f"x{n}")
    one = measures[1]
    for n in sizes[1:]:
        m = measures[n]
        target = f" (target <= {1.075 * n:.1f}x)" if n == copies else ""
        print(
            f"  {n}x / 1x: {m.notes / one.notes:.0f}x the notes took {m.wall / one.wall:.2f}x the wall time{target}, "
            f"{m.cpu / one.cpu:.2f}x the CPU, {m.rss / one.rss:.2f}x the peak RSS"
        )
    for n, old in before.items():
        m = measures[n]
        print(
            f"  {n}x against {against}: {m.wall / old.wall:.2f}x the wall time, {m.cpu / old.cpu:.2f}x the CPU, "
            f"{m.rss / old.rss:.2f}x the peak RSS"
        )
    print_projection(list(measures.values()), PROJECTED)


PROJECTED = 100_000  # notes


def print_projection(measures: list[Measure], notes: int) -> None:
    """Peak RSS and CPU time as a line through the sizes measured (least squares), at `notes` notes."""
    if len(measures) < 2:
        return
    for name, unit in (("rss", "MB"), ("cpu", "s CPU")):
        xs, ys = [m.notes for m in measures], [getattr(m, name) for m in measures]
        mean_x, mean_y = statistics.fmean(xs), statistics.fmean(ys)
        slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys)) / sum((x - mean_x) ** 2 for x in xs)
        base = mean_y - slope * mean_x
        print(
            f"  {name}: {base:.0f} {unit} + {slope * 1000:.1f} {unit} per 1,000 notes -> "
            f"{base + slope * notes:,.0f} {unit} at {notes:,} notes"
        )


def build_measured(vault: Path, out: Path, *flags: str) -> tuple[Measure, str]:
    """A build of `vault` into `out` with `flags`, measured in a process of its own; its stderr."""
    command = [sys.executable, "-m", "vaultkit", "build", str(vault), "-o", str(out), *flags]
    measure = MEASURE.replace("stderr=subprocess.DEVNULL", "stderr=open(sys.argv[1] + '.err', 'w')")
    measure = measure.replace("check=True", "check=False")  # --strict exits 1 on the vault's errors
    log = out.parent / "build"
    result = subprocess.run(
        [sys.executable, "-c", measure.replace("sys.argv[1:]", "sys.argv[2:]"), str(log), *command],
        check=False,
        capture_output=True,
        text=True,
    )
    wall, cpu, rss_kib = map(float, result.stdout.split())
    return Measure(notes_in(vault), wall, cpu, rss_kib / 1024), Path(f"{log}.err").read_text(encoding="utf-8")


def rendered_count(err: str) -> str:
    return next((line.removeprefix("vaultkit: ") for line in err.splitlines() if "pages rendered" in line), "?")


def rendered_pages(err: str) -> set[str]:
    """The notes `--verbose` listed as rendered."""
    return {line.removeprefix("rendered ") for line in err.splitlines() if line.startswith("rendered ")}


def heading_with_links(vault: Path, count: int) -> tuple[Path, str, list[Path]]:
    """A note with a `## heading`, and `count` other notes of the vault given a link to it."""
    notes = sorted(vault.rglob("*.md"))
    plain = re.compile(r"^## ([\w\u4e00-\u9fff][\w\u4e00-\u9fff ]*)$", re.MULTILINE)
    target = next(p for p in notes if plain.search(p.read_text(encoding="utf-8")))
    heading = plain.search(target.read_text(encoding="utf-8")).group(1).strip()
    linking = [p for p in notes if p != target][:count]
    for path in linking:
        with open(path, "a", encoding="utf-8") as out:
            out.write(f"\n\nSee [[{target.stem}#{heading}]].\n")
    return target, heading, linking


def site_sizes(site: Path) -> str:
    sizes = [p.stat().st_size for p in site.rglob("*") if p.is_file()]
    pages = [p.stat().st_size for p in site.rglob("*.html")]
    largest = max(site.rglob("*"), key=lambda p: p.stat().st_size if p.is_file() else 0)
    return (
        f"site {sum(sizes) / 1e9:.2f} GB in {len(sizes)} files, largest {largest.relative_to(site)} "
        f"{largest.stat().st_size / 1e6:.1f} MB, median page {statistics.median(pages) / 1e3:.0f} KB"
    )


def incremental(source: Path, tmp: Path, copies: int) -> None:
    vault, site = tmp / "inc" / "vault", tmp / "inc" / "site"
    subprocess.run(
        [sys.executable, str(MAKE_LARGE), str(source), str(vault), str(copies)], check=True, stdout=subprocess.DEVNULL
    )
    target, heading, linking = heading_with_links(vault, 20)
    print(f"vaultkit build, incremental ({copies} copies; {len(linking)} notes link to {target.name}#{heading}):")
    clean, _ = build_measured(vault, site, "--clean", "--verbose")
    print_measure("clean", clean)
    print(f"  {site_sizes(site)}")
    steps = {"no-op": lambda: None}
    edited = next(p for p in sorted(vault.rglob("*.md")) if p not in linking and p != target)
    steps["one body edited"] = lambda: edited.write_text(
        edited.read_text(encoding="utf-8") + "\n\nOne more sentence.\n", encoding="utf-8"
    )
    steps["heading renamed"] = lambda: target.write_text(
        target.read_text(encoding="utf-8").replace(f"## {heading}", f"## {heading} renamed", 1), encoding="utf-8"
    )
    expected = {
        "no-op": set(),
        "one body edited": {edited.relative_to(vault).as_posix()},
        "heading renamed": {p.relative_to(vault).as_posix() for p in [target, *linking]},
    }
    for name, change in steps.items():
        change()
        m, err = build_measured(vault, site, "--verbose")
        print_measure(name, m)
        rendered = rendered_pages(err)
        extra, missing = sorted(rendered - expected[name]), sorted(expected[name] - rendered)
        print(
            f"    {m.wall / clean.wall:.1%} of the clean build's wall time, {m.cpu / clean.cpu:.1%} of its CPU; "
            f"{rendered_count(err)}; beyond the pages expected: {extra[:5]}, expected but not rendered: {missing[:5]}"
        )
    search_in_chromium(site, ["注意力", "attention"])


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def search_in_chromium(site: Path, queries: list[str]) -> None:
    """Each query typed into the site's search box in chromium (a fresh page each): the bytes
    fetched from typing it to its results, and how many pages were found."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        print("  search: playwright is not installed")
        return
    if CHROMIUM is None:
        print("  search: chromium is not installed")
        return
    import functools
    import http.server
    import threading

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for query in queries:
                page = browser.new_page()
                page.goto(base, wait_until="networkidle")
                fetched: list[tuple[str, int]] = []
                page.on("response", lambda r: fetched.append((r.url, int(r.headers.get("content-length") or 0))))
                started = time.perf_counter()
                page.locator(".md-search__input").fill(query)
                page.wait_for_function(
                    "document.querySelectorAll('.md-search-result__item').length > 0", timeout=120_000
                )
                page.wait_for_load_state("networkidle")
                seconds = time.perf_counter() - started
                found = page.locator(".md-search-result__meta").inner_text()
                first = page.locator(".md-search-result__item h1").first.inner_text()
                print(
                    f"  search {query!r}: {found} (first: {first}); {sum(n for _, n in fetched) / 1e6:.2f} MB "
                    f"in {len(fetched)} files fetched, largest {max(n for _, n in fetched) / 1e3:.0f} KB; {seconds:.1f} s"
                )
                page.close()
            browser.close()
    finally:
        server.shutdown()


def strict_rounds(source: Path, tmp: Path, rounds: int) -> None:
    vault = tmp / "strict" / "vault"
    shutil.copytree(source, vault)
    plain, strict = [], []
    for _ in range(rounds):
        plain.append(build_measured(vault, tmp / "strict" / "site", "--clean")[0])
        strict.append(build_measured(vault, tmp / "strict" / "site", "--clean", "--strict")[0])
    p, s = median_measure(plain), median_measure(strict)
    print(
        f"strict / plain (medians of {rounds}): {s.wall / p.wall:.2f}x wall, {s.cpu / p.cpu:.2f}x CPU (target <= 1.15)"
    )


def bare(source: Path, tmp: Path) -> None:
    folder = tmp / "bare"
    shutil.copytree(source, folder / "vault")
    extensions = [{name: options} if options else name for name, options in PYTHON_MARKDOWN.items()]
    plain = write_config(folder, ["search"], extensions)
    t_bare = run([sys.executable, "-m", "mkdocs", "build", "-q", "-f", str(plain), "-d", str(folder / "site-bare")])
    t_vaultkit = vaultkit_build(folder / "vault", folder / "site-vaultkit")
    print(
        f"bare mkdocs-material: {t_bare:.1f} s; vaultkit build: {t_vaultkit:.1f} s; "
        f"vaultkit / bare = {t_vaultkit / t_bare:.2f}x"
    )


def zensical(source: Path, tmp: Path, exe: str) -> None:
    folder = tmp / "zensical"
    shutil.copytree(source, folder / "vault")
    config = write_config(folder, ["search"], RECOMMENDED)
    t_zensical = run([exe, "build", "-c", "-f", str(config)], cwd=folder)
    t_vaultkit = vaultkit_build(folder / "vault", folder / "site-vaultkit")
    print(
        f"zensical build: {t_zensical:.1f} s; vaultkit build: {t_vaultkit:.1f} s; "
        f"vaultkit / zensical = {t_vaultkit / t_zensical:.2f}x (target <= 1)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=CORPUS)
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--large", type=int, default=45, help="also build a vault of this many copies (0: none)")
    parser.add_argument("--against", metavar="REV", help="also build each size with vaultkit at this git revision")
    parser.add_argument("--rounds", type=int, default=1, help="build the vault itself this many times (medians)")
    parser.add_argument("--incremental", type=int, metavar="N", help="the incremental builds of N copies")
    parser.add_argument("--strict-rounds", type=int, default=0, metavar="N")
    parser.add_argument("--bare", action="store_true")
    parser.add_argument("--zensical", metavar="EXE")
    parser.add_argument("--no-scale", action="store_true")
    args = parser.parse_args()
    if not args.vault.is_dir():
        print(f"vault not found: {args.vault}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="vaultkit-bench-") as tmp:
        if not args.no_scale:
            scale(args.vault, Path(tmp), args.copies, args.large, args.against, args.rounds)
        if args.incremental:
            incremental(args.vault, Path(tmp), args.incremental)
        if args.strict_rounds:
            strict_rounds(args.vault, Path(tmp), args.strict_rounds)
        if args.bare:
            bare(args.vault, Path(tmp))
        if args.zensical:
            zensical(args.vault, Path(tmp), args.zensical)
    return 0


if __name__ == "__main__":
    sys.exit(main())
