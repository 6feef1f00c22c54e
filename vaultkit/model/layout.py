"""Where a vault's things are: the vault folder, its mkdocs.yml, and the project root that holds
mkdocs.yml, `.github/` and `site/`.

The vault may be the root of a git repository (as the Obsidian Git plugin keeps it), a folder in
it, or the folder `docs_dir` names; every command and the GitHub Action find it through here.
"""

from __future__ import annotations

from pathlib import Path

from vaultkit.readers.config import ConfigError, read_mkdocs_config

CONFIG = "mkdocs.yml"


def repository_root(folder: Path) -> Path | None:
    """The root of the git repository (or worktree) holding `folder`, or None."""
    folder = Path(folder).resolve()
    for candidate in (folder, *folder.parents):
        if (candidate / ".git").exists():
            return candidate
    return None


def _upwards(folder: Path) -> list[Path]:
    """`folder` and the folders above it up to its repository's root (only `folder` outside git)."""
    folder = Path(folder).resolve()
    top = repository_root(folder)
    if top is None:
        return [folder]
    return [folder, *(parent for parent in folder.parents if parent.is_relative_to(top))]


def docs_dir(config: Path) -> Path | None:
    """The folder a mkdocs.yml names as `docs_dir` (MkDocs' default `docs`), resolved."""
    value = read_mkdocs_config(config).get("docs_dir", "docs")
    return (config.parent / value).resolve() if isinstance(value, str) and value else None


def nearest_config(cwd: Path) -> Path | None:
    """./mkdocs.yml, else the first in a folder above, up to the repository root."""
    return next((folder / CONFIG for folder in _upwards(cwd) if (folder / CONFIG).is_file()), None)


def find_config(vault: Path) -> Path | None:
    """The mkdocs.yml whose docs_dir is this vault: in it, or in a folder above it up to the
    repository root (outside git: in it or beside it)."""
    vault = Path(vault).resolve()
    folders = _upwards(vault) if repository_root(vault) else [vault, vault.parent]
    for folder in folders:
        path = folder / CONFIG
        if path.is_file() and docs_dir(path) == vault:
            return path
    return None


def default_vault(cwd: Path) -> Path:
    """`docs_dir` of the nearest mkdocs.yml (see `nearest_config`), else ./vault."""
    config = nearest_config(cwd)
    folder = docs_dir(config) if config else None
    return folder if folder is not None else Path(cwd) / "vault"


def project_root(vault: Path) -> Path:
    """Where mkdocs.yml, `.github/` and `site/` belong: the folder of the vault's mkdocs.yml, else
    the root of the git repository holding the vault, else the vault's parent."""
    vault = Path(vault).resolve()
    config = find_config(vault)
    if config is not None:
        return config.parent
    return repository_root(vault) or vault.parent


def holds_site(vault: Path) -> bool:
    """Whether the vault is its own project root, so that its top-level `site/` is the built
    site (never notes). A mkdocs.yml that cannot be read names no vault here: the check goes
    on, and the commands that use the config (build, serve, init) stop on it."""
    try:
        return project_root(vault) == Path(vault).resolve()
    except ConfigError:
        return False
