"""`vaultkit init`: what it writes, that it never overwrites, and that check and build pass on it."""

from __future__ import annotations

import contextlib
import io
import shutil
import subprocess
import sys

import yaml

from tests.conftest import CORPUS, needs_corpus


def vaultkit(*args, cwd, env=None):
    return subprocess.run([sys.executable, "-m", "vaultkit", *args], capture_output=True, text=True, cwd=cwd, env=env)


def no_mermaid_env():
    import os

    env = {k: v for k, v in os.environ.items() if k != "VAULTKIT_MERMAID_JS"}
    env["PATH"] = os.environ.get("PATH", "")
    return env


def test_init_writes_three_files_and_never_overwrites(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text(
        "# Attention\n\nThe scores are scaled by the square root of d.\n", encoding="utf-8"
    )
    run = vaultkit("init", "notes", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[:4] == [
        "wrote mkdocs.yml",
        "wrote .github/workflows/vault.yml",
        "wrote .pre-commit-config.yaml",
        "added /site/ and /.vaultkit-cache/ to .gitignore",
    ]
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == "/site/\n/.vaultkit-cache/\n"
    config = yaml.safe_load((tmp_path / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "notes" and config["theme"]["name"] == "material"
    assert config["theme"]["language"] == "en" and "vaultkit" in config["plugins"]
    workflow = yaml.safe_load((tmp_path / ".github/workflows/vault.yml").read_text(encoding="utf-8"))
    steps = workflow["jobs"]["check"]["steps"]
    assert steps[0]["uses"] == "actions/checkout@v4" and steps[1]["uses"].endswith("vaultkit@v0.1.0")
    assert steps[1]["with"]["vault"] == "notes"
    hooks = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert hooks["repos"][0]["hooks"] == [{"id": "vaultkit-check", "args": ["notes"]}]

    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n", encoding="utf-8")
    (tmp_path / ".gitignore").write_text("*.pyc\nsite", encoding="utf-8")  # no final newline
    again = vaultkit("init", "notes", cwd=tmp_path)
    assert again.returncode == 0
    assert again.stdout.splitlines()[:4] == [
        "skipped mkdocs.yml: it exists (init never overwrites)",
        "skipped .github/workflows/vault.yml: it exists (init never overwrites)",
        "skipped .pre-commit-config.yaml: it exists (init never overwrites)",
        "  to check the vault before each commit, add under `repos:`",
    ]
    assert "added /.vaultkit-cache/ to .gitignore" in again.stdout.splitlines()
    assert (tmp_path / ".gitignore").read_text(encoding="utf-8") == "*.pyc\nsite\n/.vaultkit-cache/\n"
    assert (tmp_path / ".pre-commit-config.yaml").read_text(encoding="utf-8") == "repos: []\n"

    assert vaultkit("check", cwd=tmp_path).returncode == 0
    build = vaultkit("build", "--strict", cwd=tmp_path, env=no_mermaid_env())
    assert build.returncode == 0, build.stdout + build.stderr
    assert (tmp_path / "site" / "index.html").is_file() or (tmp_path / "site" / "a" / "index.html").is_file()


def test_init_refuses_a_missing_folder(tmp_path):
    run = vaultkit("init", "nowhere", cwd=tmp_path)
    assert run.returncode == 2 and run.stderr == "vaultkit: nowhere not found; pass the vault folder\n"


@needs_corpus
def test_init_then_check_and_strict_build_on_the_real_vault(tmp_path):
    shutil.copytree(CORPUS, tmp_path / "vault146")
    run = vaultkit("init", "vault146", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert yaml.safe_load((tmp_path / "mkdocs.yml").read_text(encoding="utf-8"))["theme"]["language"] == "zh"
    check = vaultkit("check", cwd=tmp_path)
    assert check.returncode == 1  # the real vault has broken links: check says so, as documented
    summary = check.stdout.splitlines()[-1]
    assert summary.startswith("Checked 146 notes,") and " 0 errors" not in summary
    build = vaultkit("build", "--strict", cwd=tmp_path, env=no_mermaid_env())
    assert build.returncode == 1  # the vault's errors, not the absent mermaid, fail it
    assert "VK601" not in build.stdout
    assert build.stdout.splitlines()[-2] == summary  # the check's diagnostics and summary are shown
    assert build.stderr.splitlines()[-1].startswith("Note: 30 notes with mermaid diagrams: shown as code")
    assert vaultkit("build", cwd=tmp_path, env=no_mermaid_env()).returncode == 0


def test_init_names_the_repository_and_commit_vaultkit_was_installed_from(tmp_path, monkeypatch):
    import json

    from vaultkit.commands import init

    class Installed:
        def read_text(self, name):
            assert name == "direct_url.json"
            return json.dumps(
                {"url": "https://github.com/someone/vaultkit.git", "vcs_info": {"vcs": "git", "commit_id": "0123abc"}}
            )

    monkeypatch.setattr(init, "distribution", lambda name: Installed())
    (tmp_path / "notes").mkdir()
    files = {path.name: text for path, text in init.planned_files(tmp_path / "notes").items()}
    assert "      - uses: someone/vaultkit@0123abc\n" in files["vault.yml"]
    assert "  - repo: https://github.com/someone/vaultkit\n    rev: 0123abc\n" in files[".pre-commit-config.yaml"]


def test_init_names_the_github_clone_vaultkit_was_installed_from(tmp_path, monkeypatch):
    """pip installed vaultkit from a local clone (`pip install ./vaultkit`, or -e): its origin
    remote and the tag at its HEAD (else its commit) are what the workflow and hook pin."""
    import json

    from vaultkit.commands import init

    clone = tmp_path / "vaultkit"
    git = ["git", "-C", str(clone), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(["git", "init", "-q", str(clone)], check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "one"], check=True)
    subprocess.run([*git, "remote", "add", "origin", "git@github.com:someone/vaultkit.git"], check=True)

    class Installed:
        def read_text(self, name):
            return json.dumps({"url": clone.as_uri(), "dir_info": {"editable": True}})

    monkeypatch.setattr(init, "distribution", lambda name: Installed())
    commit = subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()
    assert init.vaultkit_source() == ("https://github.com/someone/vaultkit", commit)
    subprocess.run([*git, "tag", "v0.1.0"], check=True)
    assert init.vaultkit_source() == ("https://github.com/someone/vaultkit", "v0.1.0")
    (tmp_path / "notes").mkdir()
    files = {path.name: text for path, text in init.planned_files(tmp_path / "notes").items()}
    assert "      - uses: someone/vaultkit@v0.1.0\n" in files["vault.yml"]
    assert "  - repo: https://github.com/someone/vaultkit\n    rev: v0.1.0\n" in files[".pre-commit-config.yaml"]


def test_init_says_what_to_replace_when_it_cannot_tell_where_vaultkit_came_from(tmp_path, monkeypatch):
    from vaultkit import __version__
    from vaultkit.commands import init

    monkeypatch.setattr(init, "vaultkit_source", lambda: None)
    (tmp_path / ".git").mkdir()
    (tmp_path / "notes").mkdir()
    monkeypatch.chdir(tmp_path)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert init.init_command(tmp_path / "notes") == 0
    assert out.getvalue().splitlines()[4:] == [
        "init cannot tell which GitHub repository this vaultkit came from (pip installed it from neither a git URL "
        f"nor a clone): replace https://github.com/OWNER/vaultkit (and OWNER/vaultkit) in the files written above, "
        f"and keep v{__version__} or put the tag or commit you want to pin",
        "Next: vaultkit check && vaultkit build --strict",
    ]
