"""The release: one version (vaultkit.__version__), the changelog, and the release workflow's steps
run here as the runner would (bash, its environment) on a copy of the repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml

from vaultkit import __version__

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = yaml.safe_load((ROOT / ".github" / "workflows" / "release.yml").read_text(encoding="utf-8"))


def step(job: str, name: str) -> str:
    return next(s["run"] for s in WORKFLOW["jobs"][job]["steps"] if s.get("name") == name)


def run_step(script: str, cwd: Path, tmp: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environ |= {
        "RUNNER_TEMP": str(tmp),
        "GITHUB_REF_NAME": f"v{__version__}",
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{environ.get('PATH', '')}",
    } | env
    return subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=cwd,
        env=environ,
        capture_output=True,
        text=True,
        timeout=1800,
    )


def source_copy(tmp: Path) -> Path:
    """The repository's files as a checkout has them (what git tracks or would add)."""
    files = subprocess.run(
        ["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    copy = tmp / "checkout"
    for name in files:
        if name and (ROOT / name).is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, copy / name)
    return copy


def test_the_version_comes_from_one_place_and_the_cli_prints_it():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "vaultkit.__version__"}
    run = subprocess.run([sys.executable, "-m", "vaultkit", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout == f"vaultkit {__version__}\n"
    assert f"\n## {__version__}\n" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_a_tag_that_is_not_the_version_stops_the_release(tmp_path):
    script = step("build", "The tag is the version")
    assert run_step(script, ROOT, tmp_path).returncode == 0
    wrong = run_step(script, ROOT, tmp_path, GITHUB_REF_NAME="v9.9.9")
    assert wrong.returncode == 1 and wrong.stdout == f"tag v9.9.9 is not v{__version__} (vaultkit/__init__.py)\n"


def test_the_release_notes_are_the_version_s_changelog_section(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "gh").write_text('#!/bin/sh\nprintf "%s\\n" "$@" > "$RUNNER_TEMP/gh-args"\n')
    (fake / "gh").chmod(0o755)
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    shutil.copy(ROOT / "CHANGELOG.md", checkout)
    done = run_step(
        step("publish", "Publish the GitHub release"),
        checkout,
        tmp_path,
        PATH=f"{fake}{os.pathsep}{os.environ['PATH']}",
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "gh-args").read_text().splitlines() == [
        "release",
        "create",
        f"v{__version__}",
        "dist/*",
        "--title",
        f"vaultkit {__version__}",
        "--notes-file",
        "notes.md",
    ]
    notes = (checkout / "notes.md").read_text(encoding="utf-8")
    assert notes.startswith("\nThe first release.\n") and "## " not in notes


@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_venv_checks_and_builds_the_bundled_vault(tmp_path):
    """The workflow's build and test steps: sdist, wheel from it, a fresh venv, the CLI from it."""
    checkout = source_copy(tmp_path)
    runner = tmp_path / "runner"
    runner.mkdir()
    built = run_step(step("build", "Build the sdist and the wheel"), checkout, runner)
    if (
        built.returncode
        and "setuptools" in built.stdout + built.stderr
        and "No matching distribution" in built.stdout + built.stderr
    ):
        pytest.skip("no package index reachable for the build backend (setuptools)")
    assert built.returncode == 0, built.stdout + built.stderr
    wheel = checkout / "dist" / f"vaultkit-{__version__}-py3-none-any.whl"
    assert (checkout / "dist" / f"vaultkit-{__version__}.tar.gz").is_file()
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {"vaultkit/renderers/site/assets/vaultkit.css", "vaultkit/renderers/site/assets/vaultkit.js"} <= names
    tested = run_step(step("build", "Test the installed wheel"), checkout, runner)
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert tested.stdout.splitlines()[-2].startswith("Checked ") and " 0 errors, 0 warnings." in tested.stdout
    assert "Site built into" in tested.stdout.splitlines()[-1]
    where = subprocess.run(
        [str(runner / "venv" / "bin" / "python"), "-c", "import vaultkit; print(vaultkit.__file__)"],
        capture_output=True,
        text=True,
        cwd=runner,
    )
    assert Path(where.stdout.strip()).is_relative_to(runner / "venv")  # the wheel's, not this source tree


def test_tasks_py_says_to_serve_the_site_not_to_open_its_files(monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(ROOT))
    import tasks

    monkeypatch.setattr(tasks, "vaultkit", lambda *args: 0)
    assert tasks.main_job() == 0
    assert (
        capsys.readouterr().out
        == f"Site written to {ROOT / 'site'}; to browse it, run: .venv/bin/vaultkit serve vault\n"
    )


def test_ruff_is_the_same_version_in_the_test_extra_and_the_pre_commit_hooks():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    [pinned] = [r for r in project["project"]["optional-dependencies"]["test"] if r.startswith("ruff")]
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))["repos"][0]["hooks"]
    assert {h["id"]: h.get("additional_dependencies") for h in hooks} == {
        "ruff-check": [pinned],
        "ruff-format": [pinned],
        "vaultkit-check": None,
    }
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/ruff check .\n.venv/bin/ruff format --check .\n" in ci
