"""Markdown tables that read well in Obsidian and on the site."""

from __future__ import annotations

import numpy as np

from vaultkit.numbers import fmt


def escape_cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(header: list[str], rows: list[list[str]], *, align: str = "right") -> str:
    """A pipe table; the first column is left-aligned, the others `align`ed."""
    mark = "---:" if align == "right" else ":---:"
    lines = [
        "| " + " | ".join(escape_cell(h) for h in header) + " |",
        "| " + " | ".join([":---"] + [mark] * (len(header) - 1)) + " |",
    ]
    lines += ["| " + " | ".join(escape_cell(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def matrix_table(m: np.ndarray, digits: int, *, rows: list[str], cols: list[str], corner: str = "") -> str:
    """A matrix with row and column labels; −∞ cells (masked) written as −∞."""
    m = np.atleast_2d(m)
    body = [[rows[i]] + [fmt(v, digits) for v in m[i]] for i in range(m.shape[0])]
    return table([corner] + cols, body)


def labels(prefix: str, n: int) -> list[str]:
    return [f"{prefix}{i}" for i in range(n)]


def section(title: str, body: str) -> str:
    return f"**{title}**\n\n{body}"
