"""No data loss: `fix` and `watch` killed with SIGKILL at random points leave every file either
as it was or as it should be, never partial; an editor racing the watcher loses no edit."""

from __future__ import annotations

import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vaultkit.commands.check import run
from vaultkit.commands.fix import apply_changes
from vaultkit.model.vault import Vault

PYTHON = sys.executable
NOTES = 40


def note_text(i: int, edit: int = 0) -> str:
    """A note with an example (no generated region yet, a wrong inline value) and a figure."""
    a, b = (i % 7) / 10, (edit % 5) / 10
    return (
        f"# 笔记 {i}\n\nedit {edit}\n\n```vaultkit\nid: ex{i}\nkind: attention\n"
        f"Q: [[{a}, 0.2], [0.3, {b}]]\nK: [[0.5, {a}], [{b}, 0.1]]\nfigure: assets/ex{i}.svg\n```\n\n"
        f"分数 9.99%%= ex{i}.scores[0][0] %% 。\n" + "正文很长。" * 400 + "\n"
    )


def make_vault(root: Path, edit: int = 0) -> Path:
    (root / "assets").mkdir(parents=True)
    for i in range(NOTES):
        (root / f"n{i:02d}.md").write_text(note_text(i, edit), encoding="utf-8")
    return root


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def fixed(root: Path) -> dict[str, bytes]:
    """What `fix` makes of a copy of `root`."""
    copy = root.parent / (root.name + "-fixed")
    shutil.copytree(root, copy)
    _, changes = run(copy)
    apply_changes(changes)
    out = files(copy)
    shutil.rmtree(copy)
    return out


def assert_old_or_new(root: Path, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    now = files(root)
    leftovers = [rel for rel in now if rel not in old and rel not in new]
    assert all(rel.rsplit("/", 1)[-1].startswith(".") and rel.endswith(".vaultkit-tmp") for rel in leftovers), leftovers
    assert set(Vault.load(root).notes) == {rel for rel in old if rel.endswith(".md")}
    for rel in old.keys() | new.keys():
        if rel in now:
            assert now[rel] in (old.get(rel), new.get(rel)), f"{rel} is partial"
        else:
            assert rel not in old, f"{rel} was lost"


def test_fix_killed_at_random_points_leaves_old_or_new_files(tmp_path):
    seed = random.randrange(10**6)
    rng = random.Random(seed)
    original = make_vault(tmp_path / "original")
    old, new = files(original), fixed(original)
    assert old != new
    shutil.copytree(original, tmp_path / "timing")
    started = time.monotonic()
    subprocess.run([PYTHON, "-m", "vaultkit", "fix", str(tmp_path / "timing")], capture_output=True, timeout=60)
    full = time.monotonic() - started  # kills land anywhere from start-up to the last write
    trials = 8
    for trial in range(trials):  # one kill in each slice of the run, so some land amid the writes
        root = tmp_path / f"trial{trial}"
        shutil.copytree(original, root)
        proc = subprocess.Popen(
            [PYTHON, "-m", "vaultkit", "fix", str(root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(full * rng.uniform(trial, trial + 1) / trials)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert_old_or_new(root, old, new), f"seed {seed}"
        done = subprocess.run([PYTHON, "-m", "vaultkit", "fix", str(root)], capture_output=True, timeout=60)
        assert done.returncode == 0, done.stdout
        assert {k: v for k, v in files(root).items() if not k.endswith(".vaultkit-tmp")} == new, f"seed {seed}"


def wait_for(predicate, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


def test_watch_killed_at_random_points_leaves_old_or_new_files(tmp_path):
    seed = random.randrange(10**6)
    rng = random.Random(seed)
    for trial in range(3):
        root = make_vault(tmp_path / f"trial{trial}")
        _, changes = run(root)
        apply_changes(changes)  # a vault in sync
        proc = subprocess.Popen(
            [PYTHON, "-m", "vaultkit", "watch", str(root)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
        )
        try:
            assert "Watching" in proc.stdout.readline()
            for i in range(NOTES):  # an editor saves every note with a new edit
                (root / f"n{i:02d}.md").write_text(note_text(i, edit=trial + 1), encoding="utf-8")
            old = files(root)
            new = fixed(root)
            time.sleep(rng.uniform(0.0, 1.0))
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        assert_old_or_new(root, old, new), f"seed {seed}"


@pytest.mark.slow
def test_editor_racing_the_watcher_loses_no_edit(tmp_path):
    """For about a minute an editor saves notes (plain truncate-and-write, as Obsidian does) at
    random moments while the watcher rewrites their generated parts; after every save, the
    file holds that save's edit or the watcher's update of it, never an older edit."""
    from vaultkit.commands.sync import Watcher

    seed = random.randrange(10**6)
    rng = random.Random(seed)
    root = make_vault(tmp_path / "vault")
    count = 4
    for rel in [f"n{i:02d}.md" for i in range(count, NOTES)]:
        (root / rel).unlink()
    _, changes = run(root)
    apply_changes(changes)
    passes = []
    watcher = Watcher(root, on_pass=passes.append)
    watcher.start()
    lost = []
    edits = [0] * count
    try:
        deadline = time.monotonic() + 50
        while time.monotonic() < deadline:
            i = rng.randrange(count)
            edits[i] += 1
            path = root / f"n{i:02d}.md"
            path.write_text(note_text(i, edits[i]), encoding="utf-8")
            time.sleep(rng.choice([0, 0.001, 0.01, 0.05, 0.1, 0.15, 0.3]))
            for j in range(count):
                text = (root / f"n{j:02d}.md").read_text(encoding="utf-8")
                if f"\nedit {edits[j]}\n" not in text:
                    lost.append((j, edits[j], text.split("\n")[2]))
        assert wait_for(
            lambda: all("vaultkit:begin" in (root / f"n{j:02d}.md").read_text(encoding="utf-8") for j in range(count)),
            10,
        )
    finally:
        watcher.stop()
    assert lost == [], f"seed {seed}: {lost[:5]}"
    assert sum(edits) > 100 and len(passes) > 20
    for j in range(count):
        assert f"\nedit {edits[j]}\n" in (root / f"n{j:02d}.md").read_text(encoding="utf-8")
    _, changes = run(root)
    assert changes == [], "the watcher left the vault out of sync"
