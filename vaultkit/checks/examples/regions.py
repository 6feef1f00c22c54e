"""Generated regions: `<!-- vaultkit:begin ID -->` … `<!-- vaultkit:end ID -->` right after a block."""

from __future__ import annotations

import re
from dataclasses import dataclass

BEGIN_RE = re.compile(r"^<!--\s*vaultkit:begin\s+(\S+)\s*-->\s*$")
END_RE = re.compile(r"^<!--\s*vaultkit:end\s+(\S+)\s*-->\s*$")


def begin_marker(ex_id: str) -> str:
    return f"<!-- vaultkit:begin {ex_id} -->"


def end_marker(ex_id: str) -> str:
    return f"<!-- vaultkit:end {ex_id} -->"


def render_region(ex_id: str, body: str) -> list[str]:
    """The lines of a region holding `body` (blank lines keep every renderer happy)."""
    return [begin_marker(ex_id), "", *body.strip("\n").split("\n"), "", end_marker(ex_id)]


@dataclass
class Region:
    id: str
    start: int  # index of the begin line
    end: int  # index of the end line (inclusive); -1 when unclosed


def find_regions(lines: list[str], code_lines: set[int]) -> list[Region]:
    """Every begin marker outside code, with its end marker."""
    regions = []
    i = 0
    while i < len(lines):
        match = BEGIN_RE.match(lines[i]) if i not in code_lines else None
        if not match:
            i += 1
            continue
        ex_id, end = match.group(1), -1
        for j in range(i + 1, len(lines)):
            other = END_RE.match(lines[j])
            if other and other.group(1) == ex_id:
                end = j
                break
            if BEGIN_RE.match(lines[j]):
                break
        regions.append(Region(ex_id, i, end))
        i = end + 1 if end >= 0 else i + 1
    return regions


def region_after(lines: list[str], fence_end: int, regions: list[Region]) -> Region | None:
    """The region that starts after the fence ending at line index `fence_end` (exclusive),
    separated from it only by blank lines."""
    i = fence_end
    while i < len(lines) and not lines[i].strip():
        i += 1
    for region in regions:
        if region.start == i:
            return region
    return None
