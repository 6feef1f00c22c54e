"""Any vault layout: the vault at a git repository's root, a folder named by docs_dir, a folder in
the repository; init, check, build --strict and serve agree on the vault and on where mkdocs.yml,
the workflow and site/ go, from the repository's root or from a folder below it."""

from __future__ import annotations

import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import yaml

from vaultkit.model.layout import default_vault, find_config, project_root
from vaultkit.model.vault import Vault


def vaultkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "vaultkit", *args], capture_output=True, text=True, cwd=cwd)


def git_repo(path: Path) -> Path:
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    return path


def notes(folder: Path) -> None:
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (folder / "index.md").write_text("# 我的推理笔记\n\n见 [[b]]。\n", encoding="utf-8")
    (folder / "b.md").write_text("# B\n\n2 × 3 = 6\n", encoding="utf-8")
    (folder / "sub" / "c.md").write_text("# C\n\n回到 [[index]]。\n", encoding="utf-8")


def hook_args(repo: Path) -> list:
    """The vault folder the pre-commit entry init wrote passes to `vaultkit check`."""
    return yaml.safe_load((repo / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"][0]["hooks"][0][
        "args"
    ]


SUMMARY = "Checked 3 notes, 2 links, 0 examples, 0 inline values, 1 claim (0 skipped), 0 figures. 0 errors, 0 warnings."


def served_home(cwd: Path) -> tuple[list[str], str]:
    """`vaultkit serve` started in `cwd` with no vault given: what it prints first, and its home page."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultkit", "serve", "-a", "127.0.0.1:0"],
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        lines = []
        while not (lines and lines[-1].startswith("Serving")):
            line = proc.stdout.readline()
            assert line, proc.stderr.read()
            lines.append(line.rstrip("\n"))
        url = lines[-1].split(" on ")[1].split(" ")[0]
        with urllib.request.urlopen(url, timeout=60) as response:
            return lines, response.read().decode("utf-8")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


def test_the_vault_at_the_repository_root(tmp_path):
    repo = git_repo(tmp_path / "my-notes")
    notes(repo)
    init = vaultkit("init", ".", cwd=repo)
    assert init.returncode == 0, init.stderr
    assert init.stdout.splitlines()[:3] == [
        "wrote mkdocs.yml",
        "wrote .github/workflows/vault.yml",
        "wrote .pre-commit-config.yaml",
    ]
    assert init.stdout.splitlines()[-1] == "Next: vaultkit check && vaultkit build --strict"
    assert not (tmp_path / "mkdocs.yml").exists() and not (tmp_path / ".github").exists()  # nothing outside
    config = yaml.safe_load((repo / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "." and config["site_name"] == "我的推理笔记"
    workflow = yaml.safe_load((repo / ".github/workflows/vault.yml").read_text(encoding="utf-8"))
    checkout, action = workflow["jobs"]["check"]["steps"]
    assert checkout == {"uses": "actions/checkout@v4", "with": {"fetch-depth": 0}}  # history: the notes' dates
    assert action["with"]["vault"] == "."
    assert hook_args(repo) == ["."]

    for cwd in (repo, repo / "sub"):
        check = vaultkit("check", cwd=cwd)
        assert (check.returncode, check.stdout) == (0, SUMMARY + "\n"), check.stderr
    build = vaultkit("build", "--strict", cwd=repo / "sub")
    assert build.returncode == 0, build.stdout + build.stderr
    assert build.stdout.splitlines() == [SUMMARY, f"Site built into {repo / 'site'}"]
    assert (repo / "site" / "sub" / "c" / "index.html").is_file() and not (repo / "site" / "mkdocs.yml").exists()
    vault = Vault.load(repo)  # the built site, mkdocs.yml and .github/ are neither notes nor attachments
    assert sorted(vault.notes) == ["b.md", "index.md", "sub/c.md"] and vault.attachments == []
    assert vaultkit("check", cwd=repo).stdout == SUMMARY + "\n"
    assert vaultkit("build", "--strict", cwd=repo).returncode == 0  # again, over its own site/

    lines, home = served_home(repo / "sub")
    assert lines[:-1] == [SUMMARY] and lines[-1].startswith(f"Serving {repo} on http://127.0.0.1:")
    assert "我的推理笔记" in home


def test_the_vault_named_by_docs_dir_and_init_with_no_folder(tmp_path):
    repo = git_repo(tmp_path / "repo")
    notes(repo / "notes")
    (repo / "mkdocs.yml").write_text(
        "site_name: 笔记\ndocs_dir: notes\ntheme:\n  name: material\nplugins:\n  - vaultkit\n", encoding="utf-8"
    )
    init = vaultkit("init", cwd=repo / "notes" / "sub")
    assert init.returncode == 0, init.stderr
    assert init.stdout.splitlines()[:3] == [
        f"skipped {Path('../../mkdocs.yml')}: it exists (init never overwrites)",
        f"wrote {Path('../../.github/workflows/vault.yml')}",
        f"wrote {Path('../../.pre-commit-config.yaml')}",
    ]
    assert init.stdout.splitlines()[-1] == "Next: cd ../.. && vaultkit check && vaultkit build --strict"
    workflow = yaml.safe_load((repo / ".github/workflows/vault.yml").read_text(encoding="utf-8"))
    assert workflow["jobs"]["check"]["steps"][1]["with"]["vault"] == "notes"
    for cwd in (repo, repo / "notes", repo / "notes" / "sub"):
        assert vaultkit("check", cwd=cwd).stdout == SUMMARY + "\n"
    build = vaultkit("build", "--strict", cwd=repo / "notes")
    assert build.returncode == 0, build.stdout + build.stderr
    assert build.stdout.splitlines()[-1] == f"Site built into {repo / 'site'}"
    lines, home = served_home(repo / "notes" / "sub")
    assert lines[:-1] == [SUMMARY] and lines[-1].startswith(f"Serving {repo / 'notes'} on http://127.0.0.1:")
    assert "<title>" in home and "笔记" in home


def test_a_vault_in_a_folder_of_the_repository_set_up_from_below(tmp_path):
    repo = git_repo(tmp_path / "repo")
    notes(repo / "docs" / "notes")
    init = vaultkit("init", "notes", cwd=repo / "docs")
    assert init.returncode == 0, init.stderr
    config = yaml.safe_load((repo / "mkdocs.yml").read_text(encoding="utf-8"))
    assert config["docs_dir"] == "docs/notes" and config["site_name"] == "我的推理笔记"
    assert hook_args(repo) == ["docs/notes"]
    assert vaultkit("check", cwd=repo / "docs" / "notes" / "sub").stdout == SUMMARY + "\n"
    build = vaultkit("build", "--strict", cwd=repo)
    assert build.returncode == 0, build.stdout + build.stderr
    assert (repo / "site" / "b" / "index.html").is_file() and not (repo / "docs" / "site").exists()


def test_where_the_config_and_the_site_belong(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "notes" / "deep").mkdir(parents=True)
    assert default_vault(repo / "notes" / "deep") == repo / "notes" / "deep" / "vault"  # no mkdocs.yml yet
    assert project_root(repo / "notes") == repo.resolve() and find_config(repo / "notes") is None
    (repo / "mkdocs.yml").write_text("site_name: x\ndocs_dir: notes\n", encoding="utf-8")
    assert default_vault(repo / "notes" / "deep") == (repo / "notes").resolve()
    assert find_config(repo / "notes") == (repo / "mkdocs.yml").resolve()
    plain = tmp_path / "plain"  # outside git: beside the vault, and only ./mkdocs.yml is read
    (plain / "notes").mkdir(parents=True)
    assert project_root(plain / "notes") == plain.resolve()
    (plain / "mkdocs.yml").write_text("site_name: x\ndocs_dir: notes\n", encoding="utf-8")
    assert default_vault(plain / "notes") == plain / "notes" / "vault"
    assert default_vault(plain) == (plain / "notes").resolve()


def test_a_folder_named_site_is_notes_where_the_vault_is_not_the_project_root(tmp_path):
    repo = git_repo(tmp_path / "repo")
    (repo / "notes" / "site").mkdir(parents=True)
    (repo / "notes" / "site" / "网站.md").write_text("# 网站\n", encoding="utf-8")
    (repo / "site").mkdir()
    (repo / "site" / "x.md").write_text("# 根目录的 site/ 是建好的网站\n", encoding="utf-8")
    assert list(Vault.load(repo / "notes").notes) == ["site/网站.md"]
    assert sorted(Vault.load(repo).notes) == ["notes/site/网站.md"]


def test_note_dates_come_from_one_git_log_else_the_file_time(tmp_path, monkeypatch):
    import datetime as dt
    import os

    from vaultkit.renderers.site import meta, pages

    repo = git_repo(tmp_path / "repo")
    vault = repo / "笔记"
    notes(vault)
    (vault / "sub" / "空 格.md").write_text("# D\n", encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]

    def commit(when: str) -> None:
        subprocess.run([*git, "add", "-A"], check=True)
        subprocess.run([*git, "commit", "-qm", when], check=True, env=os.environ | {"GIT_COMMITTER_DATE": when})

    commit("2024-03-02T12:00:00+00:00")
    (vault / "b.md").write_text("# B\n\n2 × 3 = 6。\n", encoding="utf-8")
    commit("2024-04-09T23:30:00-02:00")  # 10 April in UTC
    (vault / "new.md").write_text("---\ndate: 2023-01-05\n---\n# 新\n", encoding="utf-8")
    (vault / "untracked.md").write_text("# 未提交\n", encoding="utf-8")
    os.utime(vault / "untracked.md", (1700000000, 1700000000))  # 14 November 2023

    calls = []
    real_run = subprocess.run
    monkeypatch.setattr(meta.subprocess, "run", lambda *a, **k: calls.append(a[0]) or real_run(*a, **k))
    loaded = Vault.load(vault)
    meta.add_dates(loaded.notes.values(), vault)
    assert len(calls) == 1 and calls[0][:2] == ["git", "log"]
    assert {rel: pages.note_date(note) for rel, note in loaded.notes.items()} == {
        "b.md": dt.date(2024, 4, 10),
        "index.md": dt.date(2024, 3, 2),
        "new.md": dt.date(2023, 1, 5),  # front matter first
        "sub/c.md": dt.date(2024, 3, 2),
        "sub/空 格.md": dt.date(2024, 3, 2),
        "untracked.md": dt.date(2023, 11, 14),
    }
    meta.add_dates(loaded.notes.values(), vault)  # every note dated: no second call
    assert len(calls) == 1


def test_site_url_is_the_pages_address_only_in_github_actions():
    from vaultkit.renderers.site.meta import site_url

    actions = {"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "Someone/notes"}
    assert site_url(None, actions) == "https://someone.github.io/notes/"
    assert site_url(None, actions | {"GITHUB_REPOSITORY": "someone/Someone.github.io"}) == "https://someone.github.io/"
    assert site_url("https://notes.example.org/", actions) == "https://notes.example.org/"
    assert site_url(None, {"GITHUB_REPOSITORY": "someone/notes"}) is None  # not a GitHub Actions run
    assert (
        site_url(None, actions | {"GITHUB_SERVER_URL": "https://github.example.com"}) is None
    )  # no Pages address known
