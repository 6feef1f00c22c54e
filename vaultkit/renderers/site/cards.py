"""```vaultkit example fences -> readable cards (an admonition with a table of parameters)."""

from __future__ import annotations

import html

import yaml

from vaultkit.model.vault import safe_load


def example_card(body: str) -> str | None:
    """The card for a ```vaultkit block's YAML body; None when the YAML is unreadable."""
    try:
        data = safe_load(body)
    except yaml.YAMLError:
        return None
    if not isinstance(data, dict):
        return None
    title = " · ".join(str(data[k]) for k in ("id", "kind") if data.get(k) is not None) or "example"
    rows = "".join(
        f"<tr><th>{html.escape(str(key))}</th><td>{_value_html(value)}</td></tr>"
        for key, value in data.items()
        if key not in ("id", "kind")
    )
    return (
        f'<div class="admonition example vk-example"><p class="admonition-title">{html.escape(title)}</p>'
        f'<table class="vk-params"><tbody>{rows}</tbody></table></div>\n'
    )


def _value_html(value) -> str:
    if _is_matrix(value):
        rows = "".join("<tr>" + "".join(f"<td>{html.escape(_scalar(x))}</td>" for x in row) + "</tr>" for row in value)
        return f'<table class="vk-matrix"><tbody>{rows}</tbody></table>'
    if isinstance(value, list):
        return "<code>[" + ", ".join(html.escape(_scalar(x)) for x in value) + "]</code>"
    if isinstance(value, dict):
        return "<br>".join(f"<b>{html.escape(str(k))}</b>: {_value_html(v)}" for k, v in value.items())
    return f"<code>{html.escape(_scalar(value))}</code>"


def _scalar(value) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(x) for x in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_scalar(v)}" for k, v in value.items()) + "}"
    return str(value)


def _is_matrix(value) -> bool:
    return (
        isinstance(value, list)
        and bool(value)
        and all(isinstance(row, list) and row and all(isinstance(x, (int, float)) for x in row) for row in value)
    )
