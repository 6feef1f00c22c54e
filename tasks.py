#!/usr/bin/env python3
"""Set up a local virtual environment and run vaultkit's main job or its tests.

    python3 tasks.py          check the bundled vault, fix its generated parts (the codes page's
                              table of diagnostic rules too), build the site
    python3 tasks.py test     run the test suite (extra arguments go to pytest)
    python3 tasks.py setup    only create .venv and install

Needs only Python 3.11+; everything else is installed into .venv on first use.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
STAMP = VENV / ".vaultkit-installed"


def python() -> str:
    return str(BIN / "python")


def ensure_venv() -> None:
    """Create .venv and install vaultkit with its test extra, again whenever pyproject.toml changes."""
    if sys.version_info < (3, 11):  # noqa: UP036 (run by any python3, to say which it needs)
        sys.exit(f"vaultkit needs Python 3.11 or newer, this is {sys.version.split()[0]}")
    wanted = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    if STAMP.exists() and STAMP.read_text() == wanted:
        return
    if not BIN.exists():
        print("Creating .venv ...", flush=True)
        venv.create(VENV, with_pip=True)
    print("Installing vaultkit and its dependencies into .venv ...", flush=True)
    subprocess.run([python(), "-m", "pip", "install", "--quiet", "--upgrade", "pip"], check=True)
    subprocess.run([python(), "-m", "pip", "install", "--quiet", "-e", f"{ROOT}[test]"], check=True)
    STAMP.write_text(wanted)


NPM_PACKAGES = {"mermaid": "mermaid@11", "katex": "katex@0.16"}  # diagrams, and formulas typeset with KaTeX's fonts


def ensure_npm_assets() -> None:
    """mermaid and KaTeX from the npm registry, for the site to ship offline. Without npm,
    diagrams show as code and formulas as the browser's MathML (everything else works)."""
    if all((ROOT / "node_modules" / name).is_dir() for name in NPM_PACKAGES) or not shutil.which("npm"):
        return
    print("Installing mermaid and KaTeX (npm) for offline diagrams and formulas ...", flush=True)
    done = subprocess.run(
        ["npm", "install", "--no-save", "--no-audit", "--no-fund", "--silent", *NPM_PACKAGES.values()], cwd=ROOT
    )
    if done.returncode:
        print("npm could not install mermaid and KaTeX; diagrams will show as code, formulas as MathML", flush=True)


def vaultkit(*args: str) -> int:
    print("$ vaultkit " + " ".join(args), flush=True)
    return subprocess.run([python(), "-m", "vaultkit", *args], cwd=ROOT).returncode


CODES_PAGE = ROOT / "vault" / "使用 vaultkit" / "09 诊断代码.md"


def main_job() -> int:
    subprocess.run([python(), "-m", "vaultkit.rules", str(CODES_PAGE)], cwd=ROOT, check=True)  # its table
    fixed = vaultkit("fix", "vault")
    checked = vaultkit("check", "vault")
    built = vaultkit("build", "vault", "-o", "site")
    if built == 0:  # its pages link folders (a/), which a browser shows as listings under file://
        print(f"Site written to {ROOT / 'site'}; to browse it, run: .venv/bin/vaultkit serve vault")
    return max(fixed, checked, built)


def tests(args: list[str]) -> int:
    return subprocess.run([python(), "-m", "pytest", *args], cwd=ROOT).returncode


def main(argv: list[str]) -> int:
    ensure_venv()
    ensure_npm_assets()
    if argv[:1] == ["test"]:
        return tests(argv[1:])
    if argv == ["setup"]:
        return 0
    if argv:
        sys.exit(__doc__)
    return main_job()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
