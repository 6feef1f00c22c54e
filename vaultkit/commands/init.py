"""`vaultkit init [VAULT]`: set up a vault that has nothing yet.

Writes `mkdocs.yml` in the project root (the git repository's root: the vault itself when it is
the repository), with material, the vaultkit plugin, the notes' language and the vault's title; a
GitHub workflow that uses vaultkit's action, and a pre-commit entry. Never overwrites a file:
what exists is skipped, and the command says so (with what to add by hand).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

from vaultkit import __version__
from vaultkit.commands.build import CACHE_DIR
from vaultkit.model.layout import project_root, repository_root
from vaultkit.model.vault import Vault
from vaultkit.renderers.site.defaults import default_config_text
from vaultkit.renderers.site.meta import home_title, text_language

PLACEHOLDER_REPO = "https://github.com/OWNER/vaultkit"
BUILD_OUTPUT = ("/site/", f"/{CACHE_DIR}/")  # what `vaultkit build` writes beside mkdocs.yml
_GITHUB = re.compile(r"^(?:git\+)?https://github\.com/([^/]+/[^/@]+?)(?:\.git)?/?$")
_GITHUB_SSH = re.compile(r"^(?:ssh://)?git@github\.com[:/]([^/]+/[^/@]+?)(?:\.git)?/?$")

WORKFLOW = """\
# Checks the vault on every push and pull request: each problem is an annotation on its line.
# On the default branch it also publishes the site with GitHub Pages
# (once: Settings > Pages > Source: GitHub Actions).
name: vault
on:
  push:
  pull_request:
permissions:
  contents: read
jobs:
  check:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0  # the whole history: a note's date on the site is its last commit
      - uses: {action}
        with:
          vault: {vault}
          build: ${{{{ github.event_name == 'push' && github.ref_name == github.event.repository.default_branch }}}}
  deploy:
    if: github.event_name == 'push' && github.ref_name == github.event.repository.default_branch
    needs: check
    runs-on: ubuntu-latest
    permissions:
      pages: write
      id-token: write
    environment:
      name: github-pages
      url: ${{{{ steps.deployment.outputs.page_url }}}}
    steps:
      - id: deployment
        uses: actions/deploy-pages@v4
"""

PRE_COMMIT_ENTRY = """\
  - repo: {repo}
    rev: {rev}
    hooks:
      - id: vaultkit-check
        args: [{vault}]
"""


def vaultkit_source() -> tuple[str, str] | None:
    """(repository URL, ref) of the vaultkit installed here, when pip says where it came from: a
    git URL and its commit, or a local clone (its `origin` remote, and the tag at its HEAD, else
    the commit)."""
    try:
        text = distribution("vaultkit").read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    data = json.loads(text) if text else {}
    url = data.get("url", "")
    if url.startswith("file://") and "dir_info" in data:
        return _clone_source(Path(url2pathname(urlsplit(url).path)))
    match = _GITHUB.match(url) or _GITHUB_SSH.match(url.removeprefix("git+"))
    commit = data.get("vcs_info", {}).get("commit_id")
    return (f"https://github.com/{match[1]}", commit) if match and commit else None


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 and done.stdout.strip() else None


def _clone_source(folder: Path) -> tuple[str, str] | None:
    """(GitHub URL, ref) of a local clone of vaultkit: its tag at HEAD, else HEAD's commit."""
    remote = _git(folder, "remote", "get-url", "origin") or ""
    match = _GITHUB.match(remote) or _GITHUB_SSH.match(remote)
    ref = _git(folder, "describe", "--tags", "--exact-match", "HEAD") or _git(folder, "rev-parse", "HEAD")
    return (f"https://github.com/{match[1]}", ref) if match and ref else None


def planned_files(vault_dir: Path) -> dict[Path, str]:
    """Path → text of every file init writes for this vault: mkdocs.yml in the project root
    (`layout.project_root`), the workflow and the pre-commit config in the repository's root."""
    vault_dir = vault_dir.resolve()
    base = project_root(vault_dir)
    repo = repository_root(vault_dir) or base
    docs_dir = os.path.relpath(vault_dir, base)
    vault_in_repo = json.dumps(Path(os.path.relpath(vault_dir, repo)).as_posix(), ensure_ascii=False)
    url, rev = vaultkit_source() or (PLACEHOLDER_REPO, f"v{__version__}")
    slug = url.removeprefix("https://github.com/")
    language = text_language(note.text for note in Vault.load(vault_dir).readable_notes)
    site_name = home_title(vault_dir) or vault_dir.name
    mkdocs = (
        "# The site of the vault: `vaultkit build` writes it into site/"
        + (" (plain `mkdocs build` refuses a docs_dir that holds its mkdocs.yml).\n" if docs_dir == "." else ".\n")
        + f"docs_dir: {json.dumps(Path(docs_dir).as_posix(), ensure_ascii=False)}\n"
        + default_config_text(site_name, language).lstrip("\n")
    )
    pre_commit = "repos:\n" + PRE_COMMIT_ENTRY.format(repo=url, rev=rev, vault=vault_in_repo)
    return {
        base / "mkdocs.yml": mkdocs,
        repo / ".github" / "workflows" / "vault.yml": WORKFLOW.format(action=f"{slug}@{rev}", vault=vault_in_repo),
        repo / ".pre-commit-config.yaml": pre_commit,
    }


def ignore_build_output(gitignore: Path) -> list[str]:
    """Append the build's output to `.gitignore` (made if absent), each line only once; the
    lines added."""
    text = gitignore.read_text(encoding="utf-8") if gitignore.exists() else ""
    present = {line.strip() for line in text.splitlines()}
    added = [entry for entry in BUILD_OUTPUT if not present & _spellings(entry)]
    if added:
        gap = "\n" if text and not text.endswith("\n") else ""
        gitignore.write_text(text + gap + "".join(f"{entry}\n" for entry in added), encoding="utf-8")
    return added


def _spellings(entry: str) -> set[str]:
    """`/site/`, `site/`, `/site`, `site`: the lines that ignore the folder at the root."""
    name = entry.strip("/")
    return {name, f"{name}/", f"/{name}", f"/{name}/"}


def init_command(vault_dir: Path) -> int:
    if not vault_dir.is_dir():
        what = (
            "is a file; pass the vault folder that holds it"
            if vault_dir.exists()
            else "not found; pass the vault folder"
        )
        print(f"vaultkit: {vault_dir} {what}", file=sys.stderr)
        return 2
    files = planned_files(vault_dir)
    placeholders = False
    for path, text in files.items():
        shown = os.path.relpath(path)
        if path.exists():
            print(f"skipped {shown}: it exists (init never overwrites)")
            if path.name == ".pre-commit-config.yaml" and "vaultkit-check" not in path.read_text(
                encoding="utf-8", errors="replace"
            ):
                print("  to check the vault before each commit, add under `repos:`\n" + text.removeprefix("repos:\n"))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {shown}")
        placeholders |= PLACEHOLDER_REPO in text or "OWNER/" in text
    added = ignore_build_output(project_root(vault_dir) / ".gitignore")
    if added:
        print(f"added {' and '.join(added)} to {os.path.relpath(project_root(vault_dir) / '.gitignore')}")
    if placeholders:
        print(
            f"init cannot tell which GitHub repository this vaultkit came from (pip installed it from neither "
            f"a git URL nor a clone): replace {PLACEHOLDER_REPO} (and OWNER/vaultkit) in the files written "
            f"above, and keep v{__version__} or put the tag or commit you want to pin"
        )
    base = os.path.relpath(project_root(vault_dir))
    cd = "" if base == "." else f"cd {base} && "
    print(f"Next: {cd}vaultkit check && vaultkit build --strict")
    return 0
