"""The GitHub Action (action.yml): valid YAML, and each shell step run here as the runner would.

A composite action's `run:` steps read the inputs from `env:` only, so a step runs under bash
with the environment GitHub gives it (GITHUB_ACTION_PATH = this checkout, GITHUB_OUTPUT,
RUNNER_TEMP) in a temporary repository. The `uses:` steps are GitHub's own actions.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
_INPUT = re.compile(r"^\$\{\{\s*inputs\.([\w-]+)\s*\}\}$")


def steps(name: str | None = None) -> list[dict]:
    return [s for s in ACTION["runs"]["steps"] if name is None or s.get("name") == name]


def run_step(
    step: dict, repo: Path, inputs: dict, tmp: Path, action_path: Path = ROOT, extra_env: dict | None = None
) -> tuple[subprocess.CompletedProcess, dict]:
    """Run one `run:` step as the runner does: bash, its env, in the repository; gives its outputs."""
    values = {name: spec.get("default", "") for name, spec in ACTION["inputs"].items()} | inputs
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    for key, expression in step.get("env", {}).items():
        env[key] = values[_INPUT.match(expression)[1]] if _INPUT.match(expression) else expression
    output = tmp / "github_output"
    output.write_text("")
    (tmp / "github_env").write_text("")
    env |= {
        "GITHUB_ACTION_PATH": str(action_path),
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(tmp),
        "GITHUB_ENV": str(tmp / "github_env"),
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
    } | (extra_env or {})
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", step["run"]],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    outputs = dict(line.split("=", 1) for line in output.read_text().splitlines() if "=" in line)
    return done, outputs


@pytest.fixture
def repo(tmp_path):
    repo = tmp_path / "repo"
    (repo / "notes").mkdir(parents=True)
    (repo / "notes" / "a.md").write_text("# A\n\n见 [[b]]、[[丢失]]。\n", encoding="utf-8")
    (repo / "notes" / "b.md").write_text("# B\n\n2 × 3 = 7\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


def test_action_is_a_composite_with_the_promised_interface():
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) == {"vault", "build", "python-version"}
    assert ACTION["inputs"]["build"]["default"] == "false"
    assert ACTION["outputs"]["errors"]["value"] == "${{ steps.check.outputs.errors }}"
    assert ACTION["outputs"]["warnings"]["value"] == "${{ steps.check.outputs.warnings }}"
    uses = [s["uses"] for s in steps() if "uses" in s]
    assert uses == [
        "actions/setup-python@v5",
        "actions/setup-node@v4",
        "actions/cache@v4",
        "actions/cache@v4",  # the last build's site and build cache, keyed by vaultkit's version and config
        "actions/upload-pages-artifact@v3",
    ]
    build_cache = [s for s in steps() if s.get("uses") == "actions/cache@v4"][1]
    assert build_cache["with"]["key"].startswith("${{ steps.build-cache.outputs.prefix }}")
    assert build_cache["with"]["restore-keys"] == "${{ steps.build-cache.outputs.prefix }}"
    assert ".vaultkit-cache" in build_cache["with"]["path"]
    for step in steps():  # node, its cache and the npm packages only for a build
        if step.get("uses", "").startswith(("actions/setup-node", "actions/cache")) or "npm" in step.get("run", ""):
            assert step["if"] == "inputs.build == 'true'"
    upload = steps()[-1]
    assert upload["if"] == "inputs.build == 'true'" and upload["with"]["path"] == "${{ runner.temp }}/vaultkit-site"
    for step in steps():
        if "run" in step:
            assert step["shell"] == "bash" and "${{" not in step["run"]  # inputs come in through env only


def test_install_step_installs_this_checkout(tmp_path, repo):
    checkout = tmp_path / "action"
    skipped = {".venv", "site", "node_modules", ".git", "build"}  # what a checkout of the action does not have
    shutil.copytree(
        ROOT,
        checkout,
        ignore=lambda folder, names: (
            skipped & set(names)
            if Path(folder) == ROOT
            else [n for n in names if n.endswith(".egg-info") or n == "__pycache__"]
        ),
    )
    target = tmp_path / "installed"
    # --no-deps into a folder: the dependencies are this venv's, and nothing is installed into it
    done, _ = run_step(
        steps("Install vaultkit from this action's checkout")[0],
        repo,
        {},
        tmp_path,
        action_path=checkout,
        extra_env={"PIP_NO_DEPS": "1", "PIP_TARGET": str(target)},
    )
    if "No matching distribution found for setuptools" in done.stderr:
        pytest.skip("no package index reachable for the build backend (setuptools)")
    assert done.returncode == 0, done.stderr
    assert (target / "vaultkit" / "commands" / "cli.py").is_file()
    assert (target / "vaultkit" / "renderers" / "site" / "assets").is_dir()


def test_check_step_annotates_counts_and_fails_on_errors(tmp_path, repo):
    done, outputs = run_step(steps("vaultkit check")[0], repo, {"vault": "notes"}, tmp_path)
    assert done.returncode == 1
    assert done.stdout.startswith("::error file=notes/a.md,line=3,col=9,title=VK501::VK501 link target of [[丢失]]")
    assert (
        "::error file=notes/b.md,line=3,col=9,title=VK301::VK301 2 × 3 = 7 is wrong: written 7, computed 6\n"
        in done.stdout
    )
    assert outputs == {"errors": "2", "warnings": "0"}


def test_check_step_finds_the_vault_from_mkdocs_yml(tmp_path, repo):
    (repo / "notes" / "a.md").write_text("# A\n\n见 [[b]]。\n", encoding="utf-8")
    (repo / "notes" / "b.md").write_text("# B\n\n2 × 3 = 6\n", encoding="utf-8")
    (repo / "mkdocs.yml").write_text(
        "site_name: x\ndocs_dir: notes\ntheme:\n  name: material\nplugins:\n  - vaultkit\n"
    )
    done, outputs = run_step(steps("vaultkit check")[0], repo, {}, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert outputs == {"errors": "0", "warnings": "0"}
    assert done.stdout.startswith("Checked 2 notes, 1 link,")


def test_build_step_writes_the_site_for_pages(tmp_path, repo):
    (repo / "notes" / "a.md").write_text("# A\n\n见 [[b]]。\n", encoding="utf-8")
    (repo / "notes" / "b.md").write_text("# B\n\n2 × 3 = 6\n", encoding="utf-8")
    step = steps("vaultkit build")[0]
    assert step["if"] == "inputs.build == 'true'"
    done, _ = run_step(step, repo, {"vault": "notes", "build": "true"}, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "vaultkit-site" / "b" / "index.html").is_file()
    assert not (repo / "site").exists()


def test_the_npm_packages_are_the_ones_tasks_py_installs_and_are_cached_by_them(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))
    import tasks

    install = steps("Install mermaid and KaTeX")[0]
    assert install["env"]["PACKAGES"].split() == list(tasks.NPM_PACKAGES.values())
    cache = next(s for s in steps() if s.get("uses") == "actions/cache@v4")
    assert cache["with"]["key"].endswith("-" + "-".join(tasks.NPM_PACKAGES.values()))
    assert cache["with"]["path"] == "~/.cache/vaultkit-npm" and '"$HOME/.cache/vaultkit-npm"' in install["run"]


def test_a_build_on_pages_has_mermaid_katex_and_the_repository_s_urls_and_dates(tmp_path, repo):
    """The install step (npm, from its cache where it can) then the build step, as in a GitHub
    Actions run of someone/notes: the site ships mermaid and KaTeX, the sitemap and feed have
    https://someone.github.io/notes/ addresses and each note's date (front matter, else its commit)."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed here")
    (repo / "notes" / "a.md").write_text(
        "# A\n\n```mermaid\ngraph TD\n  x --> y\n```\n\n$$\\frac{1}{2}$$\n", encoding="utf-8"
    )
    (repo / "notes" / "b.md").write_text("---\ndate: 2024-05-01\n---\n# B\n\n见 [[a]]。\n", encoding="utf-8")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run(
        [*git, "commit", "-qm", "notes"],
        check=True,
        env=os.environ | {"GIT_COMMITTER_DATE": "2024-03-02T12:00:00+00:00"},
    )
    home = tmp_path / "home"
    home.mkdir()
    npm_cache = Path(os.environ.get("npm_config_cache", Path.home() / ".npm"))  # the packages tasks.py fetched
    installed, _ = run_step(
        steps("Install mermaid and KaTeX")[0],
        repo,
        {"build": "true"},
        tmp_path,
        extra_env={"HOME": str(home), "npm_config_cache": str(npm_cache), "npm_config_prefer_offline": "true"},
    )
    if installed.returncode and ("ENOTFOUND" in installed.stderr or "ETIMEDOUT" in installed.stderr):
        pytest.skip("the npm registry is not reachable and its cache lacks mermaid or katex")
    assert installed.returncode == 0, installed.stderr
    exported = dict(line.split("=", 1) for line in (tmp_path / "github_env").read_text().splitlines())
    assert exported == {
        "VAULTKIT_MERMAID_JS": f"{home}/.cache/vaultkit-npm/node_modules/mermaid/dist/mermaid.min.js",
        "VAULTKIT_KATEX_DIR": f"{home}/.cache/vaultkit-npm/node_modules/katex/dist",
    }
    no_npm = tmp_path / "no-npm"
    no_npm.mkdir()
    (no_npm / "npm").write_text("#!/bin/sh\necho npm ran >&2\nexit 1\n")
    (no_npm / "npm").chmod(0o755)
    again, _ = run_step(
        steps("Install mermaid and KaTeX")[0],
        repo,
        {"build": "true"},
        tmp_path,
        extra_env={"HOME": str(home), "PATH": f"{no_npm}{os.pathsep}{os.environ['PATH']}"},
    )
    assert again.returncode == 0 and again.stderr == ""  # what the cache restored is used: npm does not run

    done, _ = run_step(
        steps("vaultkit build")[0],
        repo,
        {"vault": "notes", "build": "true"},
        tmp_path,
        extra_env=exported | {"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": "someone/notes"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    site = tmp_path / "vaultkit-site"
    page = (site / "a" / "index.html").read_text(encoding="utf-8")
    assert '<pre class="mermaid">' in page and 'src="../assets/vaultkit/mermaid.min.js"' in page
    assert (
        'href="../assets/vaultkit/katex/katex.min.css"' in page
        and (site / "assets/vaultkit/katex/katex.min.js").is_file()
    )
    sitemap = (site / "sitemap.xml").read_text(encoding="utf-8")
    assert "<loc>https://someone.github.io/notes/a/</loc>\n         <lastmod>2024-03-02</lastmod>" in sitemap
    assert "<loc>https://someone.github.io/notes/b/</loc>\n         <lastmod>2024-05-01</lastmod>" in sitemap
    feed = (site / "feed.xml").read_text(encoding="utf-8")
    assert "<link>https://someone.github.io/notes/</link>" in feed
    assert (
        '<link>https://someone.github.io/notes/b/</link><guid isPermaLink="false">b.md</guid>'
        "<pubDate>Wed, 01 May 2024 00:00:00 +0000</pubDate>"
    ) in feed
    assert (
        '<link>https://someone.github.io/notes/a/</link><guid isPermaLink="false">a.md</guid>'
        "<pubDate>Sat, 02 Mar 2024 00:00:00 +0000</pubDate>"
    ) in feed
