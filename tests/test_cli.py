"""The command line: exit codes, formats, defaults."""

from __future__ import annotations

import json
import subprocess
import sys

from vaultkit.cli import default_vault, main


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main([]) == 2
    assert main(["check", str(tmp_path / "missing")]) == 2
    assert "vault folder not found" in capsys.readouterr().err
    assert main(["nonsense"]) == 2


def test_default_vault_reads_docs_dir(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\ndocs_dir: notes\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n")
    assert default_vault(tmp_path) == (tmp_path / "notes").resolve()
    assert default_vault(tmp_path / "nowhere") == tmp_path / "nowhere" / "vault"


def test_check_json_and_exit_codes(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n见 [[b]]。\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "vaultkit", "check", str(tmp_path), "--format", "json"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["summary"]["notes"] == 2 and data["summary"]["links"] == 1 and data["diagnostics"] == []
    (tmp_path / "a.md").write_text("# A\n\n见 [[c]]。\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "vaultkit", "check", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 1
    assert "a.md:3:3: VK501" in run.stdout


def test_github_format(tmp_path):
    (tmp_path / "a.md").write_text("[[nope]]\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "vaultkit", "check", str(tmp_path), "--format", "github"],
                         capture_output=True, text=True, cwd=tmp_path.parent)
    assert run.returncode == 1
    assert run.stdout.startswith(f"::error file={tmp_path.name}/a.md,line=1,col=1,title=VK501::VK501 ")


def test_closed_pipe_ends_quietly(tmp_path):
    block = "```vaultkit\nid: e{i}\nkind: attention\ntokens: [a, b]\nseed: {i}\n```\n\n"
    for i in range(100):  # a diff of many files, printed one after another
        (tmp_path / f"n{i}.md").write_text(block.format(i=i), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "vaultkit", "fix", "--diff", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.read(100)
    proc.stdout.close()  # like `| head`
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in stderr
