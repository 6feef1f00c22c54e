"""Reading mkdocs.yml, the one config file, without executing its Python tags."""

from __future__ import annotations

from pathlib import Path

import yaml


class _TolerantLoader(yaml.SafeLoader):
    """SafeLoader that reads `!!python/name:...` and `!ENV` tags as plain strings."""


def _unknown_tag(loader, tag_suffix, node):
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node)
    return loader.construct_mapping(node)


_TolerantLoader.add_multi_constructor("", _unknown_tag)


def read_mkdocs_config(path: Path) -> dict:
    try:
        data = yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_TolerantLoader)
    except (OSError, yaml.YAMLError):
        return {}
    return data if isinstance(data, dict) else {}
