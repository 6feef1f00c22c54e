"""`Pipeline.compute_notes`: forked workers and the paused GC give the report of a plain pass."""

from __future__ import annotations

import gc
import multiprocessing
import os
import shutil
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path

import pytest

from vaultkit.diagnostics import format_json
from vaultkit.model.vault import Vault
from vaultkit.pipeline import Pipeline
from vaultkit.workers import fork_map

BUNDLED = Path(__file__).resolve().parents[1] / "vault"
needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(), reason="needs fork")

Q = "[[0.5, 0.3], [0.1, -0.4]]"
NOTES = {
    "a.md": "# A\n\nSee [[b#Part two]] and [[b#Missing]], [[nowhere]].\n\n2 × 3 = 7 and 4 × 4 = 16.\n",
    "dir/b.md": "---\ntitle: B\n---\n# B\n\n## Part two\n\nA block ^blk\n\n[[a]] ![[c]]\n",
    "c.md": "![[dir/b]]\n\n| x | y |\n|---|---|\n| 10 / 4 = 2.5 | [[dir/b\\|alias]] |\n",
    "ex.md": (
        f"```vaultkit\nid: tiny\nkind: attention\ntokens: [x, y]\nQ: {Q}\nK: {Q}\n```\n\n"
        "Score 0.00%%= tiny.scores[0][1] %%\n"
    ),
    "link-moved.md": "[[other/dir/b]] and [[../b]]\n",
}


def make_vault(root):
    for rel, text in NOTES.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def outcome(pipeline: Pipeline) -> tuple[str, list]:
    report, changes = pipeline.report()
    return format_json(report), [(c.rel, c.old, c.new) for c in changes]


def test_plain_pass_reports_something(tmp_path):
    report, changes = Pipeline(Vault.load(make_vault(tmp_path))).report()
    codes = {d.code for d in report.diagnostics}
    assert {"VK501", "VK504", "VK301"} <= codes
    assert changes  # the inline value and the generated region


@needs_fork
@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_workers_give_the_plain_report(tmp_path, jobs):
    root = make_vault(tmp_path)
    expected = outcome(Pipeline(Vault.load(root)))
    pipeline = Pipeline(Vault.load(root))
    pipeline.compute_notes(jobs)
    assert outcome(pipeline) == expected


@needs_fork
def test_svgs_checked_beside_the_workers_give_the_plain_report(tmp_path):
    """The bundled vault's figures, SVG claims and hand-drawn drawing, checked by this
    process while the workers check the notes: the report of a plain pass."""
    root = tmp_path / "vault"
    shutil.copytree(BUNDLED, root)
    expected = outcome(Pipeline(Vault.load(root)))
    pipeline = Pipeline(Vault.load(root))
    pipeline.compute_notes(2)
    assert any(key[0] == "drawing" for key in pipeline._figures)  # checked before the report
    assert outcome(pipeline) == expected


@needs_fork
@pytest.mark.parametrize("calls", [0, 1, 20])
def test_fork_map_makes_its_calls_while_the_workers_run(calls):
    """Every result comes and every call is made, in order, also when the results fill the
    pipes meanwhile or the calls outlast the workers."""
    made = []

    def call(i):
        time.sleep(0.01)  # 20 of them outlast the workers
        made.append(i)

    def work(n):
        return str(n) * 50_000  # 30 of them fill a pipe

    results = dict(fork_map(work, list(range(30)), 2, meanwhile=[partial(call, i) for i in range(calls)]))
    assert results == {n: work(n) for n in range(30)}
    assert made == list(range(calls))


@needs_fork
@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_fork_map_takes_items_here_too_once_its_calls_are_made(jobs):
    """This process is one of the `jobs`: it makes its calls, then takes items as the workers
    do; every item is worked once, and with none forked it works them all."""
    here = os.getpid()
    made = []

    def work(n):
        time.sleep(0.01)  # 40 of them: time for every process to take some
        return n, os.getpid()

    def call():
        made.append(sum(pid == here for _, (_, pid) in results))  # the results seen before this call

    results = []
    results.extend(fork_map(work, list(range(40)), jobs, meanwhile=[call]))
    assert sorted(n for n, _ in results) == list(range(40))
    assert all(n == m for n, (m, _) in results)
    pids = {pid for _, (_, pid) in results}
    assert here in pids and len(pids) == jobs  # this process and the `jobs` - 1 it forked
    assert made == [0]  # no item was worked here before the call


@needs_fork
def test_an_error_in_a_forked_worker_reaches_the_caller():
    here = os.getpid()

    def work(n):
        time.sleep(0.01)
        if os.getpid() != here:
            raise ValueError(f"broken in a worker on {n}")
        return n

    with pytest.raises(ValueError, match="broken in a worker"):
        list(fork_map(work, list(range(40)), 2))


def test_gc_state_is_restored(tmp_path):
    pipeline = Pipeline(Vault.load(make_vault(tmp_path)))
    assert gc.isenabled()
    pipeline.compute_notes(1)
    assert gc.isenabled()
    gc.disable()
    try:
        Pipeline(Vault.load(tmp_path)).compute_notes(1)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_process_with_threads_is_not_forked(tmp_path, monkeypatch):
    def no_fork(*args, **kwargs):
        raise AssertionError("forked a process that runs threads")

    monkeypatch.setattr(Pipeline, "_compute_forked", no_fork)
    root = make_vault(tmp_path)
    expected = outcome(Pipeline(Vault.load(root)))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        pipeline = Pipeline(Vault.load(root))
        pipeline.compute_notes(2)
    finally:
        stop.set()
        thread.join()
    assert outcome(pipeline) == expected


@needs_fork
def test_an_error_in_a_worker_reaches_the_caller(tmp_path, monkeypatch):
    real = Pipeline._process

    def fails_on_c(self, note):
        if note.rel == "c.md":
            raise ValueError("broken on c.md")
        return real(self, note)

    monkeypatch.setattr(Pipeline, "_process", fails_on_c)
    pipeline = Pipeline(Vault.load(make_vault(tmp_path)))
    with pytest.raises(ValueError, match="broken on c.md"):
        pipeline.compute_notes(2)


@pytest.mark.parametrize("jobs", [1, 2])
def test_fresh_outlines_are_read_from_the_text_fix_writes(tmp_path, jobs):
    """A heading holding a value fix rewrites gets the fresh heading (and the site its anchor);
    without `fresh_outlines` (check, fix) no note's outline or tags are read: only the site
    uses them."""
    from vaultkit.readers.markdown import parse
    from vaultkit.readers.syntax.headings import sections
    from vaultkit.readers.syntax.tags import inline_tags

    root = make_vault(tmp_path)
    (root / "ex.md").write_text(
        NOTES["ex.md"] + "\n## Score 0.00%%= tiny.scores[0][1] %%\n\n#fresh\n", encoding="utf-8"
    )
    site = Pipeline(Vault.load(root), fresh_outlines=True)
    site.compute_notes(jobs=jobs)
    result, note = site.note("ex.md"), site.vault.notes["ex.md"]
    assert result.text != note.text
    assert result.outline == tuple(sections(parse(result.text))) != tuple(sections(note.tokens))
    assert result.tags == tuple(inline_tags(parse(result.text))) == ("fresh",)
    plain = Pipeline(Vault.load(root))
    plain.compute_notes(jobs=jobs)
    assert plain.note("ex.md").outline is None and plain.note("ex.md").tags is None
    assert plain.note("dir/b.md").outline is None and plain.note("dir/b.md").tags is None  # unchanged by fix


def test_the_fresh_parse_of_a_changed_note_serves_then_and_is_not_kept(tmp_path, monkeypatch):
    """What `then` asks of a changed note's fresh tokens is the parse its check made (one parse,
    not two), and nothing of it is kept once `then` has run."""
    import vaultkit.pipeline as pipeline_module

    root = make_vault(tmp_path)
    site = Pipeline(Vault.load(root), fresh_outlines=True)
    parses = []
    real_parse = pipeline_module.parse
    monkeypatch.setattr(pipeline_module, "parse", lambda text: parses.append(text) or real_parse(text))
    seen = {}

    def then(rel):  # as the site's drafts ask: the fresh tokens of a note fix changes
        if site.note(rel).text != site.vault.notes[rel].text:
            seen[rel] = site.fresh_tokens(rel)

    site.compute_notes(jobs=1, then=then)
    changed = [rel for rel, note in site.vault.notes.items() if site.note(rel).text != note.text]
    assert "ex.md" in changed
    assert sorted(parses) == sorted(site.note(rel).text for rel in changed)  # each fresh text parsed once
    assert seen["ex.md"] == real_parse(site.note("ex.md").text)
    assert site._fresh_tokens == {}


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc (Linux)")
@pytest.mark.parametrize("given", [None, "2"])
def test_numpy_starts_no_blas_threads_unless_the_user_asks(given):
    """The workers are vaultkit's parallelism: numpy imported after vaultkit runs no BLAS thread
    pool (which would spin on the workers' cores), unless OPENBLAS_NUM_THREADS says otherwise."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    code = "import os, vaultkit, numpy; print(os.environ['OPENBLAS_NUM_THREADS'], len(os.listdir('/proc/self/task')))"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    setting, threads = done.stdout.split()
    assert setting == (given or "1")
    if given is None:
        assert threads == "1"


@needs_fork
def test_what_a_worker_read_off_a_note_comes_back_with_its_result(tmp_path):
    """A note's `derived` (its links, what `then` read off its tokens) is sent back by the
    worker that checked it: the parent need not parse the note again to know them."""
    pipeline = Pipeline(Vault.load(make_vault(tmp_path)))
    parent = os.getpid()

    def then(rel):
        pipeline.vault.notes[rel].derived["read by"] = os.getpid()
        if os.getpid() == parent:
            time.sleep(0.2)  # the worker takes notes meanwhile

    pipeline.compute_notes(jobs=2, then=then)
    notes = pipeline.vault.notes.values()
    assert all("links" in note.derived and "read by" in note.derived for note in notes)
    assert {note.derived["read by"] for note in notes} - {parent}  # some checked in the worker
