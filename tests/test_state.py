"""`VaultState.apply`: after any sequence of edits, creations, renames and deletions, the kept
state reports what a fresh `vaultkit check` of the same files reports; a save checks again
only what it can affect."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from vaultkit.commands.check import run
from vaultkit.commands.sync import Syncer
from vaultkit.diagnostics import format_json
from vaultkit.state import VaultState

Q = "[[0.5, 0.3], [0.1, -0.4]]"
K = "[[0.3, -0.5], [-0.2, 0.6]]"


def example_block(q: str = Q, figure: str = "") -> str:
    shown = f"figure: {figure}\n" if figure else ""
    return f"```vaultkit\nid: tiny\nkind: attention\ntokens: [x, y]\nQ: {q}\nK: {K}\n{shown}```\n"


NAMES = ["alpha.md", "Alpha.md", "sub/alpha.md", "beta.md", "sub/gamma.md", "x.md", "pic.svg", "sub/pic.svg"]
NOTE_TEXTS = [
    "# Alpha\n\nSee [[alpha]] and [[Alpha#Part]].\n",
    "---\naliases: [al]\n---\n# Beta\n\n## Part\n\nA block ^blk\n\n[[x]]\n",
    "Links: [[beta#Part]], [[beta#^blk]], [[sub/gamma]], [[al]], [[missing]], ![[fig.svg]].\n",
    "![[beta]]\n\n![[x]]\n\n![[pic.svg]]\n",
    "2 × 3 = 7 and 4 × 4 = 16.\n\n[[alpha]]\n",
    example_block() + "\nScore 0.00%%= tiny.scores[0][1] %%\n",
    example_block("[[0.1, 0.2], [0.3, 0.4]]", figure="sub/fig.svg") + "\n[[sub/fig.svg]]\n",
    "The value 0.25%%= tiny.scores[0][0] %% and [[pic]] and [markdown](beta.md).\n",
    "---\npublish: false\n---\n# Hidden\n\n[[Alpha]]\n",
    "# Embeds\n\n![[alpha]]\n",
    "---\naliases: [al]\n---\n# Beta\n\n## Other part\n\nA block ^other\n",
]
SVG_TEXTS = [
    '<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="1">2 × 3 = 7</text></svg>\n',
    '<svg xmlns="http://www.w3.org/2000/svg"><text x="1" y="1">2 × 3 = 6</text></svg>\n',
]

write = st.tuples(st.just("write"), st.sampled_from(NAMES), st.integers(0, len(NOTE_TEXTS) - 1))
delete = st.tuples(st.just("delete"), st.sampled_from(NAMES), st.just(0))
rename = st.tuples(st.just("rename"), st.sampled_from(NAMES), st.integers(0, len(NAMES) - 1))
steps = st.lists(st.one_of(write, delete, rename), min_size=1, max_size=6)


def perform(root: Path, step: tuple[str, str, int]) -> list[str]:
    """Do one step to the files of `root`; the vault-relative paths it touched."""
    kind, rel, arg = step
    path = root / rel
    if kind == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        texts = SVG_TEXTS if rel.endswith(".svg") else NOTE_TEXTS
        path.write_text(texts[arg % len(texts)], encoding="utf-8")
        return [rel]
    if not path.exists():
        return []
    if kind == "delete":
        path.unlink()
        return [rel]
    to = NAMES[arg]
    if to == rel or (root / to).exists() or to.endswith(".svg") != rel.endswith(".svg"):
        return []
    (root / to).parent.mkdir(parents=True, exist_ok=True)
    path.rename(root / to)
    return [rel, to]


def seed(root: Path) -> Path:
    for rel, text in [("alpha.md", NOTE_TEXTS[0]), ("beta.md", NOTE_TEXTS[1]), ("x.md", NOTE_TEXTS[2])]:
        (root / rel).write_text(text, encoding="utf-8")
    return root


def outcome(report) -> tuple[str, list[str]]:
    return format_json(report), report.explained


def fresh(root: Path) -> tuple[str, list[str]]:
    return outcome(run(root)[0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
@example(steps=[("write", "alpha.md", 6)])  # x.md embeds the figure the example now names
@example(steps=[("write", "beta.md", 10)])  # the heading and block x.md links to are gone, the alias kept
def test_applied_state_reports_as_a_fresh_check(tmp_path_factory, steps):
    root = seed(tmp_path_factory.mktemp("vault"))
    state = VaultState.load(root)
    state.compute_notes(1)
    for step in steps:
        touched = perform(root, step)
        state.apply(touched)
        assert outcome(state.report()[0]) == fresh(root), step


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps)
def test_watch_passes_leave_the_state_a_fresh_check_gives(tmp_path_factory, steps):
    """The watcher also writes its fixes; its state is then what `check` finds on disk."""
    root = seed(tmp_path_factory.mktemp("vault"))
    syncer = Syncer(root)
    for step in steps:
        syncer.sync(set(perform(root, step)))
        assert outcome(syncer.state.report()[0]) == fresh(root), step


def test_unsaved_buffer_stands_for_the_disk_text_until_dropped(tmp_path):
    root = seed(tmp_path)
    state = VaultState.load(root)
    affected = state.apply([], buffers={"x.md": "No links here, and 2 × 3 = 7.\n"})
    assert affected.changed == ["x.md"]
    codes = {d.code for d in state.report()[0].diagnostics if d.path == "x.md"}
    assert codes == {"VK301"}
    state.apply([], buffers={"x.md": None})
    assert outcome(state.report()[0]) == fresh(root)


def test_deleting_a_target_reports_the_dangling_link_in_watch(tmp_path):
    """`x.md` links `[[alpha]]`; `Alpha.md` is the only file of that name and is deleted."""
    (tmp_path / "x.md").write_text("See [[alpha]].\n", encoding="utf-8")
    (tmp_path / "Alpha.md").write_text("# Alpha\n", encoding="utf-8")
    syncer = Syncer(tmp_path)
    (tmp_path / "Alpha.md").unlink()
    result = syncer.sync({"Alpha.md"})
    assert [(d.path, d.code) for d in result.report.diagnostics] == [("x.md", "VK501")]
    assert result.checked == ["x.md"]


def test_a_save_checks_again_only_what_it_affects(tmp_path):
    notes = {
        "a.md": "# A\n\n## Part\n",
        "links-a.md": "[[a#Part]]\n",
        "names-b.md": "[[b]] does not exist yet\n",
        "other.md": "[[c]] and 2 × 3 = 6\n",
        "c.md": "# C\n",
        "ex.md": example_block() + "\nScore 0.00%%= tiny.scores[0][1] %%\n",
        "uses-ex.md": "Elsewhere 0.00%%= tiny.scores[0][0] %%\n",
    }
    for rel, text in notes.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    state = VaultState.load(tmp_path)
    state.compute_notes(1)

    (tmp_path / "a.md").write_text("# A\n\n## Renamed part\n", encoding="utf-8")
    assert state.apply(["a.md"]).notes == {"a.md", "links-a.md"}  # a heading it links to changed
    (tmp_path / "a.md").write_text("# A\n\n## Renamed part\n\nMore text.\n", encoding="utf-8")
    assert state.apply(["a.md"]).notes == {"a.md"}  # what links to it sees nothing new

    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    affected = state.apply(["b.md"])
    assert affected.added == {"b.md"} and affected.notes == {"b.md", "names-b.md"}

    shutil.move(tmp_path / "c.md", tmp_path / "d.md")
    assert state.apply(["c.md", "d.md"]).notes == {"d.md", "other.md"}

    (tmp_path / "ex.md").write_text(example_block("[[0.9, 0.3], [0.1, -0.4]]"), encoding="utf-8")
    assert state.apply(["ex.md"]).notes == {"ex.md", "uses-ex.md"}

    (tmp_path / "other.md").write_text("[[d]] and 2 × 3 = 7\n", encoding="utf-8")
    assert state.apply(["other.md"]).notes == {"other.md"}
    assert state.apply(["other.md"]).notes == set()  # nothing changed: nothing checked
    assert outcome(state.report()[0]) == fresh(tmp_path)


def test_an_embed_cycle_closed_elsewhere_is_reported_on_every_note_of_it(tmp_path):
    """a embeds b, b embeds c; c's edit closes the cycle: a and b are checked again too."""
    for rel, text in {"a.md": "![[b]]\n", "b.md": "![[c]]\n", "c.md": "# C\n"}.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    state = VaultState.load(tmp_path)
    state.compute_notes(1)
    (tmp_path / "c.md").write_text("![[a]]\n", encoding="utf-8")
    assert state.apply(["c.md"]).notes == {"a.md", "b.md", "c.md"}
    assert outcome(state.report()[0]) == fresh(tmp_path)
    assert {d.path for d in state.report()[0].diagnostics if d.code == "VK509"} == {"a.md", "b.md", "c.md"}


def test_an_embed_cycle_through_a_section_opens_when_only_the_embedded_note_is_edited(tmp_path):
    """a embeds b's section S, which embeds a: a cycle. b's edit moves that embed out of S;
    a, not edited, keeps its embed as it was read, and the cycle is gone all the same."""
    (tmp_path / "a.md").write_text("# A\n\n![[b#S]]\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\n## S\n\n![[a]]\n\n## T\n\ntext\n", encoding="utf-8")
    state = VaultState.load(tmp_path)
    state.compute_notes(1)
    assert {d.path for d in state.report()[0].diagnostics if d.code == "VK509"} == {"a.md", "b.md"}
    (tmp_path / "b.md").write_text("# B\n\n## S\n\ntext\n\n## T\n\n![[a]]\n", encoding="utf-8")
    state.apply(["b.md"])
    assert not [d for d in state.report()[0].diagnostics if d.code == "VK509"]
    assert outcome(state.report()[0]) == fresh(tmp_path)
