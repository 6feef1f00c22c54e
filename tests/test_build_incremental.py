"""`vaultkit build` from its cache: after any sequence of edits, renames, deletions and config
changes, the site is byte-identical to a clean build of the same files, and only the pages
whose inputs changed are rendered again."""

from __future__ import annotations

import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vaultkit.commands.build import CACHE_DIR, build_command

CONFIGS = [
    "site_name: t\ndocs_dir: notes\ntheme: {name: material, language: zh}\nplugins: [search, vaultkit]\n",
    "site_name: other\ndocs_dir: notes\ntheme: {name: material, language: zh, features: [navigation.sections]}\n"
    "plugins: [search, vaultkit]\n",
    "site_name: t\ndocs_dir: notes\nuse_directory_urls: false\ntheme: {name: material}\nplugins: [search, vaultkit]\n",
]
NAMES = ["alpha.md", "beta.md", "sub/gamma.md", "sub/deep/delta.md", "pic.svg"]
NOTE_TEXTS = [
    "# Alpha\n\nSee [[beta#Part]] and [[gamma]]. #topic\n",
    "---\ntitle: Beta note\ntags: [topic, other]\n---\n# Beta\n\n## Part\n\nA block ^blk\n\nSee [[alpha]].\n",
    "---\ntitle: Beta note\ntags: [topic, other]\n---\n# Beta\n\n## Renamed part\n\nA block ^blk\n\nSee [[alpha]].\n",
    "# Gamma\n\n![[beta#Part]]\n\n![[pic.svg]]\n\nfootnote[^1]\n\n[^1]: a note at the foot\n",
    "---\npublish: false\n---\n# Hidden\n\n[[alpha]]\n",
    "# 注意力\n\n注意力机制的说明 [[sub/deep/delta]] #标签\n",
    "# Delta\n\n[[beta#^blk]] [[missing]] [markdown](../../alpha.md)\n",
]
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text x="1" y="9">{}</text></svg>\n'

write = st.tuples(st.just("write"), st.sampled_from(NAMES), st.integers(0, len(NOTE_TEXTS) - 1))
delete = st.tuples(st.just("delete"), st.sampled_from(NAMES), st.just(0))
rename = st.tuples(st.just("rename"), st.sampled_from(NAMES), st.integers(0, len(NAMES) - 1))
config = st.tuples(st.just("config"), st.just(""), st.integers(0, len(CONFIGS) - 1))
steps = st.lists(st.one_of(write, delete, rename, config), min_size=1, max_size=4)


def perform(project: Path, step: tuple[str, str, int]) -> None:
    kind, rel, arg = step
    path = project / "notes" / rel
    if kind == "config":
        (project / "mkdocs.yml").write_text(CONFIGS[arg], encoding="utf-8")
    elif kind == "write":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SVG.format(arg) if rel.endswith(".svg") else NOTE_TEXTS[arg], encoding="utf-8")
    elif path.exists() and kind == "delete":
        path.unlink()
    elif path.exists():
        to = project / "notes" / NAMES[arg]
        if not to.exists() and to.suffix == path.suffix:
            to.parent.mkdir(parents=True, exist_ok=True)
            path.rename(to)


def seed(project: Path) -> None:
    (project / "notes" / "sub" / "deep").mkdir(parents=True)
    (project / "mkdocs.yml").write_text(CONFIGS[0], encoding="utf-8")
    for rel, text in zip(NAMES, [NOTE_TEXTS[0], NOTE_TEXTS[1], NOTE_TEXTS[3], NOTE_TEXTS[6]]):
        (project / "notes" / rel).write_text(text, encoding="utf-8")
    (project / "notes" / "pic.svg").write_text(SVG.format(0), encoding="utf-8")


def tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def build(project: Path, out: str, capsys, clean: bool = False, verbose: bool = False) -> tuple[int, str, str]:
    capsys.readouterr()
    code = build_command(project / "notes", str(project / out), strict=False, clean=clean, verbose=verbose)
    captured = capsys.readouterr()
    return code, captured.out.replace(str(project / out), "SITE"), captured.err


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(steps, min_size=1, max_size=3))
def test_a_build_from_the_cache_is_a_clean_build(tmp_path_factory, capsys, runs):
    project = tmp_path_factory.mktemp("inc")
    seed(project)
    build(project, "site", capsys)
    for run in runs:
        for step in run:
            perform(project, step)
        kept = build(project, "site", capsys)
        shutil.rmtree(project / "clean", ignore_errors=True)
        fresh = build(project, "clean", capsys, clean=True)
        assert kept[:2] == fresh[:2]
        assert tree(project / "site") == tree(project / "clean")


def test_only_the_pages_whose_inputs_changed_are_rendered(tmp_path, capsys):
    """A body edited: its page alone; a heading renamed: the pages linking to it and its own;
    nothing changed: no page."""
    seed(tmp_path)
    (tmp_path / "notes" / "epsilon.md").write_text("# Epsilon\n\nPlain [[alpha]].\n", encoding="utf-8")
    build(tmp_path, "site", capsys)
    assert "0 of 7 pages rendered" in build(tmp_path, "site", capsys, verbose=True)[2]
    (tmp_path / "notes" / "sub" / "deep" / "delta.md").write_text(NOTE_TEXTS[6] + "\nMore.\n", encoding="utf-8")
    err = build(tmp_path, "site", capsys, verbose=True)[2]
    assert sorted(line for line in err.splitlines() if line.startswith("rendered ")) == ["rendered sub/deep/delta.md"]
    (tmp_path / "notes" / "beta.md").write_text(NOTE_TEXTS[2], encoding="utf-8")
    err = build(tmp_path, "site", capsys, verbose=True)[2]
    rendered = sorted(line.removeprefix("rendered ") for line in err.splitlines() if line.startswith("rendered "))
    assert rendered == ["alpha.md", "beta.md", "sub/gamma.md"]  # alpha and gamma link to beta's Part


def test_a_page_written_by_a_crashed_build_is_rendered_again(tmp_path, capsys):
    """A page file that is not the one the cached build wrote (half-written, edited) is not kept."""
    seed(tmp_path)
    build(tmp_path, "site", capsys)
    page = tmp_path / "site" / "alpha" / "index.html"
    whole = page.read_bytes()
    page.write_bytes(whole[: len(whole) // 2])
    assert "1 of 6 pages rendered" in build(tmp_path, "site", capsys, verbose=True)[2]
    assert page.read_bytes() == whole


def test_a_cache_from_another_vaultkit_is_refused(tmp_path, capsys):
    seed(tmp_path)
    build(tmp_path, "site", capsys)
    version = tmp_path / CACHE_DIR / "site" / "VERSION"
    version.write_text("vaultkit 0.0.1 0123456789abcdef", encoding="utf-8")
    err = build(tmp_path, "site", capsys, verbose=True)[2]
    assert "is from another vaultkit (0.0.1" in err and "building from scratch" in err
    assert "6 of 6 pages rendered" in err


def test_clean_ignores_the_cache(tmp_path, capsys):
    seed(tmp_path)
    build(tmp_path, "site", capsys)
    assert "6 of 6 pages rendered" in build(tmp_path, "site", capsys, clean=True, verbose=True)[2]


def test_counting_the_notes_with_diagrams_keeps_no_note_parsed(tmp_path):
    """At the end of a build without mermaid.min.js, the notes with diagrams are counted; their
    tokens must not stay in memory (at 6,570 notes, some 800 MB), those parsed before do."""
    from vaultkit.model.vault import Vault
    from vaultkit.renderers.site.mermaid import notes_with_diagrams

    (tmp_path / "a.md").write_text("# A\n\n```mermaid\ngraph LR\n  x --> y\n```\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n\nmermaid, in words only\n", encoding="utf-8")
    (tmp_path / "c.md").write_text("# C\n\n```mermaid\ngraph LR\n  p --> q\n```\n", encoding="utf-8")
    vault = Vault.load(tmp_path)
    notes = vault.notes
    assert notes["c.md"].tokens  # parsed before, by someone who still needs it
    assert notes_with_diagrams(notes.values()) == ["a.md", "c.md"]
    assert notes["a.md"].kept_parse() is None and notes["b.md"].kept_parse() is None
    assert notes["c.md"].kept_parse() is not None


def test_a_build_counts_the_notes_with_diagrams_once(tmp_path, monkeypatch, capsys):
    from vaultkit.renderers.site import mermaid, plugin

    monkeypatch.delenv(mermaid.ENV_VAR, raising=False)
    monkeypatch.setattr(plugin, "find_mermaid_js", lambda start: None)
    counted = []
    monkeypatch.setattr(plugin, "notes_with_diagrams", lambda notes: counted.append(1) or ["a.md"])
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\n```mermaid\ngraph LR\n  x --> y\n```\n", encoding="utf-8")
    assert build_command(tmp_path / "notes", str(tmp_path / "site"), strict=False) == 0
    assert counted == [1] and "1 note with mermaid diagrams" in capsys.readouterr().err


def test_a_build_from_the_cache_parses_no_unchanged_note_to_count_diagrams(tmp_path, monkeypatch, capsys):
    """Whether a note has a diagram is kept in the cache with the note: after one note is edited,
    the count parses that note alone, and still counts them all."""
    from vaultkit.readers import markdown
    from vaultkit.renderers.site import mermaid, plugin

    monkeypatch.delenv(mermaid.ENV_VAR, raising=False)
    monkeypatch.setattr(plugin, "find_mermaid_js", lambda start: None)
    notes = tmp_path / "notes"
    notes.mkdir()
    diagram = "# {}\n\n```mermaid\ngraph LR\n  x --> y\n```\n"
    for name in ("a", "b"):
        (notes / f"{name}.md").write_text(diagram.format(name), encoding="utf-8")
    build(tmp_path, "site", capsys)
    parsed = []
    parse = markdown.parse_document
    monkeypatch.setattr(markdown, "parse_document", lambda text: parsed.append(text) or parse(text))
    (notes / "b.md").write_text(diagram.format("b edited"), encoding="utf-8")
    assert "2 notes with mermaid diagrams" in build(tmp_path, "site", capsys)[2]
    assert parsed and diagram.format("a") not in parsed


def test_the_config_digest_walks_a_custom_theme_folder_not_the_installed_theme(tmp_path, monkeypatch):
    """A file of the theme's custom_dir changed is a new digest; the installed theme's files are
    not listed (its version stands for them)."""
    import material
    from mkdocs.config import load_config

    from vaultkit.renderers.site.render import config_digest

    (tmp_path / "docs").mkdir()
    (tmp_path / "over").mkdir()
    (tmp_path / "over" / "main.html").write_text("{% extends 'base.html' %}\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\ntheme: {name: material, custom_dir: over}\n", encoding="utf-8")
    walked = []
    rglob = Path.rglob
    monkeypatch.setattr(Path, "rglob", lambda self, pattern: walked.append(self.resolve()) or rglob(self, pattern))
    before = config_digest(load_config(str(tmp_path / "mkdocs.yml")))
    assert walked == [(tmp_path / "over").resolve()]
    assert not any(folder.is_relative_to(Path(material.__file__).resolve().parent) for folder in walked)
    (tmp_path / "over" / "main.html").write_text("{% extends 'base.html' %}\n{# changed #}\n", encoding="utf-8")
    assert config_digest(load_config(str(tmp_path / "mkdocs.yml"))) != before


def test_a_clean_build_counts_the_diagrams_without_parsing_a_note_again(tmp_path, monkeypatch, capsys):
    """The check's workers read whether each note has a diagram while its tokens are there and
    send it back: the count at the end of a clean build parses nothing."""
    from vaultkit import pipeline
    from vaultkit.readers import markdown
    from vaultkit.renderers.site import mermaid, plugin

    monkeypatch.delenv(mermaid.ENV_VAR, raising=False)
    monkeypatch.setattr(plugin, "find_mermaid_js", lambda start: None)
    monkeypatch.setattr(pipeline, "CHARS_PER_JOB", 1)  # the notes checked in two processes
    notes = tmp_path / "notes"
    notes.mkdir()
    for n in range(6):
        (notes / f"n{n}.md").write_text(f"# N{n}\n\n```mermaid\ngraph LR\n  x{n} --> y\n```\n", encoding="utf-8")
    counting, parsed = [], []
    parse, count = markdown.parse_document, plugin.notes_with_diagrams
    monkeypatch.setattr(markdown, "parse_document", lambda text: (counting and parsed.append(text)) or parse(text))
    monkeypatch.setattr(plugin, "notes_with_diagrams", lambda notes: counting.append(1) or count(notes))
    assert "6 notes with mermaid diagrams" in build(tmp_path, "site", capsys, clean=True)[2]
    assert counting and parsed == []


def test_the_theme_templates_kept_compiled_give_the_same_site(tmp_path, capsys):
    """A build from the cache reads the theme's compiled templates from it (jinja2's bytecode
    cache, under the cache's folder); a cached template that is unreadable is compiled again;
    the site is the clean build's either way; `--clean` keeps none."""
    seed(tmp_path)
    build(tmp_path, "clean", capsys, clean=True)
    assert not (tmp_path / CACHE_DIR / "clean" / "templates").exists()
    build(tmp_path, "site", capsys)
    kept = sorted((tmp_path / CACHE_DIR / "site" / "templates").iterdir())
    assert kept
    (tmp_path / "notes" / "beta.md").write_text(NOTE_TEXTS[2], encoding="utf-8")
    kept[0].write_bytes(b"not a compiled template")
    assert build(tmp_path, "site", capsys)[0] == 0
    shutil.rmtree(tmp_path / "clean")
    build(tmp_path, "clean", capsys, clean=True)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def test_a_file_whose_size_and_time_are_those_kept_is_not_read_again(tmp_path, capsys, monkeypatch):
    """A build from the cache hashes only the files whose size or time changed; one touched with
    the same bytes is hashed (nothing rendered) until the cache is next written, with its new
    time; one whose time is within two seconds of the build's (a write in the same clock tick
    could hide) is hashed every time."""
    import os
    import time

    from vaultkit import state as state_module

    seed(tmp_path)
    past = time.time() - 60
    for path in (tmp_path / "notes").rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))
    build(tmp_path, "site", capsys)
    hashed = []
    digest = state_module._file_digest
    monkeypatch.setattr(state_module, "_file_digest", lambda path: hashed.append(path.name) or digest(path))
    assert "0 of 6 pages rendered" in build(tmp_path, "site", capsys, verbose=True)[2]
    assert hashed == []
    alpha, beta = tmp_path / "notes" / "alpha.md", tmp_path / "notes" / "beta.md"
    os.utime(alpha, (past + 10, past + 10))
    assert "0 of 6 pages rendered" in build(tmp_path, "site", capsys, verbose=True)[2]
    assert hashed == ["alpha.md"]
    beta.write_text(NOTE_TEXTS[2], encoding="utf-8")
    os.utime(beta, (past + 20, past + 20))
    assert "rendered beta.md" in build(tmp_path, "site", capsys, verbose=True)[2]  # the cache written
    hashed.clear()
    build(tmp_path, "site", capsys)
    assert hashed == []
    alpha.write_text(NOTE_TEXTS[0] + "\nMore.\n", encoding="utf-8")
    ahead = time.time() + 3600  # never two seconds past
    os.utime(alpha, (ahead, ahead))
    assert "rendered alpha.md" in build(tmp_path, "site", capsys, verbose=True)[2]
    build(tmp_path, "site", capsys)
    assert [name for name in hashed if name.endswith(".md")] == [
        "alpha.md",
        "alpha.md",
    ]  # an attachment: hashed as the cache is written
    shutil.rmtree(tmp_path / "clean", ignore_errors=True)
    build(tmp_path, "clean", capsys, clean=True)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def test_a_build_from_the_cache_reads_and_writes_the_search_parts_of_the_pages_it_renders_only(
    tmp_path, capsys, monkeypatch
):
    """The pages' search parts are kept apart from their records (`search.sqlite`): an edit
    reads the edited page's part, and writes its row; a deleted note's row goes; a cache
    without the file is not used."""
    import sqlite3

    from vaultkit.commands import build as build_module

    seed(tmp_path)
    build(tmp_path, "site", capsys)
    parts = tmp_path / CACHE_DIR / "site" / build_module.SEARCH_PARTS
    asked = []
    get = build_module.SearchParts.__getitem__
    monkeypatch.setattr(
        build_module.SearchParts, "__getitem__", lambda self, dest: asked.append(dest) or get(self, dest)
    )
    (tmp_path / "notes" / "sub" / "deep" / "delta.md").write_text(NOTE_TEXTS[6] + "\nMore words.\n", encoding="utf-8")
    build(tmp_path, "site", capsys)
    assert asked == ["sub/deep/delta/index.html"]
    (tmp_path / "notes" / "sub" / "gamma.md").unlink()
    build(tmp_path, "site", capsys)
    with sqlite3.connect(parts) as db:
        dests = sorted(dest for (dest,) in db.execute("SELECT dest FROM parts"))
    assert "sub/gamma/index.html" not in dests and "sub/deep/delta/index.html" in dests and len(dests) == 5
    parts.unlink()
    assert "5 of 5 pages rendered" in build(tmp_path, "site", capsys, verbose=True)[2]
    shutil.rmtree(tmp_path / "clean", ignore_errors=True)
    build(tmp_path, "clean", capsys, clean=True)
    assert tree(tmp_path / "site") == tree(tmp_path / "clean")


def test_a_build_from_the_cache_copies_only_the_static_files_whose_source_or_copy_changed(tmp_path, capsys):
    """The theme's assets and the vault's attachments are copied again when their source has
    another size or time, or their copy is not the one the build before wrote."""
    import os
    import time

    seed(tmp_path)
    past = time.time() - 60
    for path in (tmp_path / "notes").rglob("*"):
        if path.is_file():
            os.utime(path, (past, past))
    build(tmp_path, "site", capsys)
    site = tmp_path / "site"
    css = next(site.glob("assets/stylesheets/main.*.min.css"))
    times = {path: path.stat().st_mtime_ns for path in (css, site / "pic.svg")}
    alpha = tmp_path / "notes" / "alpha.md"
    alpha.write_text(NOTE_TEXTS[0] + "\nMore.\n", encoding="utf-8")
    build(tmp_path, "site", capsys)
    assert {path: path.stat().st_mtime_ns for path in times} == times  # neither copied again
    (tmp_path / "notes" / "pic.svg").write_text(SVG.format(7), encoding="utf-8")
    os.utime(tmp_path / "notes" / "pic.svg", (past + 10, past + 10))
    css.write_bytes(css.read_bytes()[:100])  # a copy damaged (a crash, a hand edit)
    build(tmp_path, "site", capsys)
    assert (site / "pic.svg").read_text(encoding="utf-8") == SVG.format(7)
    shutil.rmtree(tmp_path / "clean", ignore_errors=True)
    build(tmp_path, "clean", capsys, clean=True)
    assert tree(site) == tree(tmp_path / "clean")
