"""Inline values: `NUMBER%%= id.field[i][j] %%` binds a written number to an example result."""

from __future__ import annotations

import re
from dataclasses import dataclass

from vaultkit.numbers import NUMBER

BINDING_RE = re.compile(rf"(?<![\w.])(?P<number>{NUMBER})?[ \t]*%%=[ \t]*(?P<path>[^%\n]*?)[ \t]*%%")
PATH_RE = re.compile(r"^(?P<id>[A-Za-z0-9][A-Za-z0-9_-]*)(?P<rest>(?:\.[A-Za-z_]\w*|\[\d+\])+)$")
STEP_RE = re.compile(r"\.([A-Za-z_]\w*)|\[(\d+)\]")
CODE_SPAN_RE = re.compile(r"(`+)(?:(?!\1).)+?\1")


@dataclass
class Binding:
    line: int  # 0-based line index
    col: int  # 0-based column of the number (or of %%= when the number is missing)
    number: str | None
    path: str
    number_end: int  # column just after the number


def find_bindings(lines: list[str], skip_lines: set[int]) -> list[Binding]:
    found = []
    for i, line in enumerate(lines):
        if i in skip_lines or "%%=" not in line:
            continue
        masked = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
        for match in BINDING_RE.finditer(masked):
            start = match.start("number") if match.group("number") else match.start()
            found.append(
                Binding(
                    i,
                    start,
                    match.group("number"),
                    line[match.start("path") : match.end("path")],
                    match.end("number") if match.group("number") else start,
                )
            )
    return found


class PathError(Exception):
    pass


def split_path(path: str) -> tuple[str, list[str | int]]:
    match = PATH_RE.match(path.strip())
    if not match:
        raise PathError(f"{path!r} is not a value path like id.field[i][j]")
    steps = [name if name else int(index) for name, index in STEP_RE.findall(match.group("rest"))]
    return match.group("id"), steps


def resolve(fields: dict, steps: list[str | int]) -> float:
    """Follow `steps` through nested dicts, lists and arrays to one number."""
    import numpy as np  # only once an example has run, so numpy is loaded already

    value, walked = fields, ""
    for step in steps:
        if isinstance(step, str):
            if not isinstance(value, dict) or step not in value:
                known = ", ".join(sorted(value)) if isinstance(value, dict) else "none"
                raise PathError(f"no field {step!r} after {walked or 'the example'} (fields: {known})")
            value = value[step]
            walked += f".{step}"
        else:
            size = len(value) if isinstance(value, (list, tuple, np.ndarray)) else None
            if size is None or np.ndim(value) == 0:
                raise PathError(f"{walked} is a single value, it has no [{step}]")
            if step >= size:
                raise PathError(f"index [{step}] is out of range: {walked} has {size} entries")
            value = value[step]
            walked += f"[{step}]"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        shape = f" of shape {np.shape(value)}" if isinstance(value, np.ndarray) else ""
        raise PathError(f"{walked} is not a single number{shape}; add indices")
    return float(value)
