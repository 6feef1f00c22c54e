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


def yaml_problem(exc: yaml.YAMLError) -> tuple[yaml.Mark | None, str]:
    """Where a YAML error is (its problem's mark, else its context's; 0-based) and what it says."""
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    return mark, getattr(exc, "problem", None) or str(exc).splitlines()[0]


class ConfigError(ValueError):
    """A mkdocs.yml that cannot be read, as `path:line:col: problem`: MkDocs stops on it too, so
    no command takes it for absent (a site built with the defaults instead would not be the
    person's)."""


def read_mkdocs_config(path: Path) -> dict:
    """The mapping a mkdocs.yml holds ({} for an empty file); a ConfigError when it cannot be
    read, is not YAML or is not a mapping."""
    shown = Path(path)
    try:
        data = yaml.load(shown.read_text(encoding="utf-8"), Loader=_TolerantLoader)
    except OSError as exc:
        raise ConfigError(f"{shown}: cannot be read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{shown}: is not UTF-8") from None
    except yaml.YAMLError as exc:
        mark, problem = yaml_problem(exc)
        where = f"{mark.line + 1}:{mark.column + 1}:" if mark else "1:1:"
        raise ConfigError(f"{shown}:{where} is not valid YAML: {problem}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{shown}:1:1: is not a mapping of settings")
    return data
