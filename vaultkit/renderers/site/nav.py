"""Navigation from the folder tree: folders by name, notes by title, index notes first."""

from __future__ import annotations

from pathlib import PurePosixPath

INDEX_NAMES = ("index.md", "readme.md", "home.md")  # first in their folder


def build_nav(titles: dict[str, str], extra: list[dict] = ()) -> list:
    """`titles` maps vault-relative note paths to their titles; returns an MkDocs `nav`."""
    tree: dict = {}
    for rel in sorted(titles, key=_sort_key):
        node = tree
        for folder in PurePosixPath(rel).parts[:-1]:
            node = node.setdefault(folder + "/", {})
        node[rel] = titles[rel]
    return _entries(tree) + list(extra)


def nav_order(rels) -> list[str]:
    """Note paths in the order the navigation lists them (folder by folder, index notes first)."""
    return sorted(rels, key=_sort_key)


def _sort_key(rel: str) -> tuple:
    path = PurePosixPath(rel)
    return (path.parts[:-1], path.name.lower() not in INDEX_NAMES, path.name)


def _entries(node: dict) -> list:
    notes = [{title: rel} for rel, title in node.items() if not rel.endswith("/")]
    folders = [{name.rstrip("/"): _entries(child)} for name, child in node.items() if name.endswith("/")]
    return notes + folders
