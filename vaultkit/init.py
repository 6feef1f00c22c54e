"""`vaultkit init [VAULT]`: set up a vault that has nothing yet.

Writes `mkdocs.yml` beside the vault (material, the vaultkit plugin, the notes' language), a
GitHub workflow that uses vaultkit's action, and a pre-commit entry. Never overwrites a file:
what exists is skipped, and the command says so (with what to add by hand).
"""

from __future__ import annotations

import json
import os
import re
import sys
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from . import __version__
from .site.defaults import default_config_text
from .vault import Vault

PLACEHOLDER_REPO = "https://github.com/OWNER/vaultkit"
_GITHUB = re.compile(r"^(?:git\+)?https://github\.com/([^/]+/[^/@]+?)(?:\.git)?/?$")
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")

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


def notes_language(vault: Vault) -> str:
    """`zh` when the notes are mostly Chinese, else `en` (the site's search and labels follow)."""
    cjk = latin = 0
    for note in vault.readable_notes:
        cjk += len(_CJK.findall(note.text))
        latin += len(_LATIN_WORD.findall(note.text))
    return "zh" if cjk > latin else "en"


def vaultkit_source() -> tuple[str, str] | None:
    """(repository URL, commit) vaultkit was installed from with pip, when that was GitHub."""
    try:
        text = distribution("vaultkit").read_text("direct_url.json")
    except PackageNotFoundError:
        return None
    data = json.loads(text) if text else {}
    match = _GITHUB.match(data.get("url", ""))
    commit = data.get("vcs_info", {}).get("commit_id")
    return (f"https://github.com/{match[1]}", commit) if match and commit else None


def repository_root(folder: Path) -> Path:
    """The git repository holding `folder` (where .github/ belongs), else `folder` itself."""
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return folder


def planned_files(vault_dir: Path) -> dict[Path, str]:
    """Path → text of every file init writes for this vault."""
    vault_dir = vault_dir.resolve()
    base = vault_dir.parent
    repo = repository_root(base)
    vault_in_repo = vault_dir.relative_to(repo).as_posix()
    url, rev = vaultkit_source() or (PLACEHOLDER_REPO, f"v{__version__}")
    slug = url.removeprefix("https://github.com/")
    language = notes_language(Vault.load(vault_dir))
    mkdocs = (
        "# The site of the vault: `vaultkit build` (or `mkdocs build`) writes it into site/.\n"
        f"docs_dir: {json.dumps(vault_dir.name, ensure_ascii=False)}\n"
        + default_config_text(vault_dir.name, language).lstrip("\n")
    )
    pre_commit = "repos:\n" + PRE_COMMIT_ENTRY.format(repo=url, rev=rev, vault=json.dumps(vault_in_repo, ensure_ascii=False))
    return {
        base / "mkdocs.yml": mkdocs,
        repo / ".github" / "workflows" / "vault.yml": WORKFLOW.format(
            action=f"{slug}@{rev}", vault=json.dumps(vault_in_repo, ensure_ascii=False)),
        repo / ".pre-commit-config.yaml": pre_commit,
    }


def init_command(vault_dir: Path) -> int:
    if not vault_dir.is_dir():
        what = "is a file; pass the vault folder that holds it" if vault_dir.exists() else "not found; pass the vault folder"
        print(f"vaultkit: {vault_dir} {what}", file=sys.stderr)
        return 2
    files = planned_files(vault_dir)
    placeholders = False
    for path, text in files.items():
        shown = os.path.relpath(path)
        if path.exists():
            print(f"skipped {shown}: it exists (init never overwrites)")
            if path.name == ".pre-commit-config.yaml" and "vaultkit-check" not in path.read_text(encoding="utf-8", errors="replace"):
                print("  to check the vault before each commit, add under `repos:`\n" + text.removeprefix("repos:\n"))
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {shown}")
        placeholders |= PLACEHOLDER_REPO in text or "OWNER/" in text
    if placeholders:
        print(f"vaultkit was not installed from GitHub with pip, so init cannot tell where it lives: "
              f"replace {PLACEHOLDER_REPO} (and OWNER/vaultkit) in the files written above")
    base = os.path.relpath(vault_dir.resolve().parent)
    cd = "" if base == "." else f"cd {base} && "
    print(f"Next: {cd}vaultkit check && vaultkit build --strict")
    return 0
