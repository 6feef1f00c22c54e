"""Hostile vaults: every trap is a diagnostic, in bounded time and memory, and nothing outside
the vault is read or written (check, fix and build)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from vaultkit.commands.check import run
from vaultkit.commands.fix import apply_changes

PYTHON = sys.executable
SECRET = "OUTSIDE-SECRET-7f3a"
ATTN = "```vaultkit\nid: {id}\nkind: attention\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\nfigure: {figure}\n```\n"


def make_vault(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def codes(report, path: str | None = None) -> list[str]:
    return [d.code for d in report.diagnostics if path is None or d.path == path]


def snapshot(folder: Path) -> dict[str, bytes]:
    """Every regular file under `folder` (not following symlinks) and its bytes."""
    out = {}
    for dirpath, _, names in os.walk(folder):
        for name in names:
            path = Path(dirpath, name)
            if not path.is_symlink():
                out[path.relative_to(folder).as_posix()] = path.read_bytes()
    return out


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the vault holding a secret note and a secret SVG."""
    folder = tmp_path / "outside"
    make_vault(
        folder,
        {
            "secret.md": f"# {SECRET}\n",
            "secret.svg": f'<svg xmlns="http://www.w3.org/2000/svg"><text>{SECRET}</text></svg>',
            "passwd": f"root:{SECRET}\n",
        },
    )
    return folder


def build(vault: Path, site: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [PYTHON, "-m", "vaultkit", "build", str(vault), "-o", str(site)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=vault.parent,
    )


def site_bytes(site: Path) -> bytes:
    return b"".join(snapshot(site).values())


# -- YAML bombs ---------------------------------------------------------------------------

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n"
    for i in range(9)
)


def test_yaml_alias_bomb_in_front_matter_is_refused(tmp_path):
    root = make_vault(tmp_path / "v", {"bomb.md": f"---\n{BOMB}---\n# bomb\n"})
    report, changes = run(root)
    assert "VK010" in codes(report, "bomb.md")
    assert changes == []


def test_yaml_alias_bomb_in_an_example_is_refused(tmp_path):
    root = make_vault(tmp_path / "v", {"bomb.md": f"# bomb\n\n```vaultkit\n{BOMB}```\n"})
    report, _ = run(root)
    assert codes(report, "bomb.md") == ["VK110"]


def test_deeply_nested_yaml_is_a_diagnostic(tmp_path):
    deep = "x: " + "[" * 5000 + "]" * 5000 + "\n"
    root = make_vault(
        tmp_path / "v",
        {
            "fm.md": f"---\n{deep}---\n# fm\n",
            "ex.md": f"```vaultkit\nid: deep\nkind: attention\n{deep}```\n",
        },
    )
    report, _ = run(root)
    assert "VK010" in codes(report, "fm.md")
    assert "VK110" in codes(report, "ex.md")


# -- huge examples ------------------------------------------------------------------------


def test_million_cell_matrix_is_over_the_limit(tmp_path):
    row = "[" + ",".join(["1"] * 1000) + "]"
    matrix = "[" + ",".join([row] * 1000) + "]"
    root = make_vault(
        tmp_path / "v", {"big.md": f"```vaultkit\nid: big\nkind: attention\nQ: {matrix}\nK: [[1]]\n```\n"}
    )
    report, changes = run(root)
    assert codes(report, "big.md") == ["VK116"]
    assert changes == []


TOKENS_64 = "[" + ", ".join(f"t{i}" for i in range(64)) + "]"


@pytest.mark.parametrize(
    "block",
    [
        "kind: attention\nseed: 1\ntokens: " + TOKENS_64 + "\nd_model: 1000000\nd_head: 1000000",
        "kind: attention\nseed: 1\ntokens: [" + ", ".join(["t"] * 100000) + "]",
        "kind: multihead\nseed: 1\ntokens: " + TOKENS_64 + "\nheads: 100000\nd_head: 100000",
        "kind: kv-cache\nseed: 1\ntokens: " + TOKENS_64 + "\nd_model: 10000000\nd_head: 10000000",
        "kind: kv-memory\nseq_len: 1000000000000\nbatch: 1000000000\n"
        "models: [{name: x, layers: 1000000000, heads: 1000000000, kv_heads: 1, head_dim: 1000000000}]",
    ],
)
def test_huge_generated_examples_are_bounded_diagnostics(tmp_path, block):
    root = make_vault(tmp_path / "v", {"huge.md": f"```vaultkit\nid: huge\n{block}\n```\n"})
    report, _ = run(root)
    assert codes(report, "huge.md") == ["VK116"], report.diagnostics


# -- files that are not notes -------------------------------------------------------------


def test_unreadable_notes_are_diagnostics(tmp_path):
    root = make_vault(
        tmp_path / "v",
        {
            "binary.md": bytes(range(256)) * 4,
            "latin1.md": "café résumé".encode("latin-1"),
            "nul.md": b"# title\n\0\0 hidden\n",
            "ok.md": "# fine\n",
        },
    )
    report, changes = run(root)
    assert codes(report, "binary.md") == ["VK002"]
    assert codes(report, "latin1.md") == ["VK001"]
    assert codes(report, "nul.md") == ["VK002"]
    assert codes(report, "ok.md") == []
    assert changes == []


def test_ten_megabyte_note_is_skipped_without_reading_it(tmp_path):
    root = make_vault(tmp_path / "v", {"huge.md": "字" * (10 * 1024 * 1024 // 3 + 1)})
    report, changes = run(root)
    assert codes(report, "huge.md") == ["VK003"]
    assert changes == []


def test_note_just_under_the_limit_is_processed_in_bounded_time(tmp_path):
    """A 2 MB note of pathological markdown (nested brackets, emphasis, links) finishes
    (the timeout is a hang guard; bench/ measures speed)."""
    line = "[[a|" * 20 + "*_`" * 20 + "![[x]]" * 5 + "%%" + " 2 × 3 = 6 " + "|" * 40 + "\n"
    root = make_vault(tmp_path / "v", {"big.md": line * (2_000_000 // len(line.encode()))})
    code = f"from vaultkit.commands.check import run; r, _ = run({str(root)!r}); print(r.summary.notes)"
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "1"


def test_fifo_named_like_a_note_does_not_hang(tmp_path):
    root = make_vault(tmp_path / "v", {"ok.md": "# ok\n"})
    os.mkfifo(root / "pipe.md")
    os.mkfifo(root / "pipe.svg")
    code = f"from vaultkit.commands.check import run; r, _ = run({str(root)!r}); print(r.summary.notes)"
    done = subprocess.run([PYTHON, "-c", code], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "1"


# -- symlinks -----------------------------------------------------------------------------


def test_symlinks_out_of_the_vault_and_loops_are_warned_and_not_read(tmp_path, outside):
    root = make_vault(tmp_path / "v", {"index.md": "# index\n\n[[secret]] ![[secret.svg]]\n"})
    (root / "secret.md").symlink_to(outside / "secret.md")
    (root / "secret.svg").symlink_to(outside / "secret.svg")
    (root / "dir").symlink_to(outside, target_is_directory=True)
    (root / "loop.md").symlink_to(root / "loop.md")
    (root / "a.md").symlink_to(root / "b.md")
    (root / "b.md").symlink_to(root / "a.md")
    (root / "dangling.md").symlink_to(root / "nowhere.md")
    report, changes = run(root)
    assert SECRET not in repr(report)
    for rel in ("secret.md", "secret.svg", "dir", "loop.md", "a.md", "b.md"):
        assert "VK005" in codes(report, rel), (rel, codes(report))
    assert changes == []


def test_symlink_inside_the_vault_is_followed(tmp_path):
    root = make_vault(tmp_path / "v", {"real.md": "# real\n", "index.md": "[[alias]]\n"})
    (root / "alias.md").symlink_to(root / "real.md")
    report, _ = run(root)
    assert codes(report) == []


# -- paths that leave the vault -----------------------------------------------------------


@pytest.mark.parametrize(
    "link",
    [
        "![[../../../etc/passwd]]",
        "![[/etc/passwd]]",
        "[[../../../etc/passwd]]",
        "[[/etc/passwd]]",
        "![[../outside/secret.svg]]",
        "[[../outside/secret]]",
        "![[C:/Windows/win.ini]]",
        "![[~/secret]]",
        "[x](../outside/secret.md)",
    ],
)
def test_links_and_embeds_out_of_the_vault_are_diagnostics(tmp_path, outside, link):
    root = make_vault(tmp_path / "v", {"n.md": f"# n\n\n{link}\n"})
    report, changes = run(root)
    assert codes(report, "n.md") in (["VK507"], ["VK506"], ["VK501"]), codes(report)
    assert changes == []


@pytest.mark.parametrize(
    "figure",
    [
        "../outside/secret.svg",
        "../../x.svg",
        "/../outside/secret.svg",
        "assets/../../outside/secret.svg",
        "link/secret.svg",
    ],
)
def test_figure_paths_outside_the_vault_are_refused_and_never_written(tmp_path, outside, figure):
    root = make_vault(tmp_path / "v", {"n.md": ATTN.format(id="a", figure=figure)})
    (root / "link").symlink_to(outside, target_is_directory=True)
    before = snapshot(tmp_path)
    report, changes = run(root)
    assert "VK405" in codes(report, "n.md"), codes(report)
    assert all(c.path.resolve().is_relative_to(root.resolve()) for c in changes)
    apply_changes(changes)
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("v/")} == {
        k: v for k, v in before.items() if not k.startswith("v/")
    }


def test_figure_path_to_a_folder_is_a_diagnostic(tmp_path):
    root = make_vault(tmp_path / "v", {"n.md": ATTN.format(id="a", figure="dir.svg")})
    (root / "dir.svg").mkdir()
    report, _ = run(root)
    assert "VK406" in codes(report), codes(report)


def test_absolute_figure_path_stays_in_the_vault(tmp_path):
    root = make_vault(tmp_path / "v", {"n.md": ATTN.format(id="a", figure="/assets/a.svg")})
    report, changes = run(root)
    assert [c.path.resolve() for c in changes if c.rel.endswith(".svg")] == [(root / "assets/a.svg").resolve()]


def test_figure_over_a_symlink_in_the_vault_is_written_through_to_the_vault_file(tmp_path):
    root = make_vault(tmp_path / "v", {"n.md": ATTN.format(id="a", figure="alias.svg")})
    (root / "real.svg").write_text("<svg/>")
    (root / "alias.svg").symlink_to(root / "real.svg")
    report, changes = run(root)
    apply_changes(changes)
    assert (root / "alias.svg").is_symlink()


# -- names --------------------------------------------------------------------------------


@pytest.mark.skipif(sys.platform in ("darwin", "win32"), reason="needs a case-sensitive file system")
def test_names_that_differ_only_by_case_are_warned(tmp_path):
    root = make_vault(
        tmp_path / "v",
        {
            "Note.md": "# A\n",
            "note.md": "# B\n",
            "sub/NOTE.md": "# C\n",
            "img.SVG": "<svg/>",
            "img.svg": "<svg/>",
            "index.md": "[[note]]\n",
        },
    )
    report, _ = run(root)
    assert "VK006" in codes(report, "note.md") or "VK006" in codes(report, "Note.md"), codes(report)
    assert "VK006" in codes(report, "img.svg") or "VK006" in codes(report, "img.SVG"), codes(report)
    assert "VK006" not in codes(report, "sub/NOTE.md")


# -- build: nothing outside the vault is read into the site -------------------------------


@pytest.mark.parametrize(
    "trap",
    [
        "![[../../../etc/passwd]]\n![[/etc/passwd]]\n![[../outside/secret]]\n![[../outside/secret.svg]]\n",
        "[[../outside/secret]] [x](../outside/secret.md) ![img](../outside/secret.svg)\n",
    ],
)
def test_site_never_holds_bytes_from_outside(tmp_path, outside, trap):
    root = make_vault(tmp_path / "v", {"index.md": f"# index\n\n{trap}"})
    done = build(root, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    data = site_bytes(tmp_path / "site")
    assert SECRET.encode() not in data
    assert b"root:x:0:0" not in data


def test_site_ignores_symlinked_folders_out_of_the_vault(tmp_path, outside):
    root = make_vault(tmp_path / "v", {"index.md": "# index\n"})
    (root / "linked").symlink_to(outside, target_is_directory=True)
    (root / "secret.svg").symlink_to(outside / "secret.svg")
    done = build(root, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    assert SECRET.encode() not in site_bytes(tmp_path / "site")


def test_site_build_survives_a_symlink_loop(tmp_path):
    root = make_vault(tmp_path / "v", {"index.md": "# index\n"})
    (root / "loop").symlink_to(root, target_is_directory=True)
    done = build(root, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (tmp_path / "site" / "loop" / "loop").exists()


# -- embeds -------------------------------------------------------------------------------


def test_cyclic_embeds_are_reported_and_the_site_builds(tmp_path):
    root = make_vault(
        tmp_path / "v",
        {
            "a.md": "# A\n\n![[b]]\n",
            "b.md": "# B\n\n![[c]]\n",
            "c.md": "# C\n\n![[a]]\n",
            "self.md": "# self\n\n![[self]]\n",
        },
    )
    report, _ = run(root)
    assert "VK509" in codes(report, "self.md"), codes(report)
    assert any(c == "VK509" for rel in ("a.md", "b.md", "c.md") for c in codes(report, rel)), codes(report)
    done = build(root, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr


def test_deep_embed_chain_builds(tmp_path):
    files = {f"n{i}.md": f"# N{i}\n\n![[n{i + 1}]]\n" for i in range(400)}
    root = make_vault(tmp_path / "v", files)
    done = build(root, tmp_path / "site")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_exponential_embed_fan_out_is_bounded(tmp_path):
    files = {f"n{i}.md": f"# N{i}\n\n![[n{i + 1}]]\n\n![[n{i + 1}]]\n" for i in range(24)}
    files["n24.md"] = "leaf\n"
    root = make_vault(tmp_path / "v", files)
    try:
        done = build(root, tmp_path / "site", timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("build did not finish")
    assert done.returncode == 0


def test_oversized_svg_attachment_is_not_read(tmp_path):
    root = make_vault(tmp_path / "v", {"big.svg": "<svg>" + " " * (5 * 1024 * 1024) + "</svg>"})
    report, _ = run(root)
    assert codes(report, "big.svg") == ["VK003"]


# -- watch: the same traps arriving while the watcher runs --------------------------------


def test_watcher_pass_over_hostile_files_reads_nothing_outside(tmp_path, outside):
    from vaultkit.commands.sync import Syncer

    root = make_vault(tmp_path / "v", {"n.md": ATTN.format(id="a", figure="assets/a.svg")})
    syncer = Syncer(root)
    (root / "secret.md").symlink_to(outside / "secret.md")
    (root / "dir").symlink_to(outside, target_is_directory=True)
    (root / "loop.md").symlink_to(root / "loop.md")
    os.mkfifo(root / "pipe.md")
    make_vault(
        root,
        {
            "huge.md": "x" * (5 * 1024 * 1024),
            "bin.md": b"\0\1\2",
            "bomb.md": f"---\n{BOMB}---\n",
            "n.md": ATTN.format(id="a", figure="../outside/x.svg"),
        },
    )
    before = snapshot(outside)
    result = syncer.sync(
        {"secret.md", "dir", "dir/secret.md", "loop.md", "pipe.md", "huge.md", "bin.md", "bomb.md", "n.md"}
    )
    assert result is not None
    assert SECRET not in repr(result.report) and "secret.md" not in syncer.vault.notes
    assert {"VK405"} <= set(codes(result.report, "n.md"))
    assert snapshot(outside) == before
    assert not (tmp_path / "outside" / "x.svg").exists()
