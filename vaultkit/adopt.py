"""`vaultkit fix --adopt`: make a drawing's implied example a ```vaultkit block of its own.

A drawing that shows its own Q and K is checked with no block (see `figures.inferred`). Adopting
it writes that example, as read from the drawing, into the note that embeds the drawing, right
after the paragraph (or code block) holding the embed. From then on the block is the source:
editing Q or K in the note recomputes the generated tables and the drawing's numbers.
Nothing is adopted unless asked for.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import PurePosixPath

import yaml

from .links import extract_links
from .pipeline import FileChange, Pipeline

ORDER = ("id", "kind", "tokens", "Q", "K", "V", "mask", "scale", "digits", "figure")


def example_id(rel: str, taken) -> str:
    """An id from the drawing's file name (ASCII letters and digits), unique in the vault."""
    slug = "-".join(re.findall(r"[a-z0-9]+", PurePosixPath(rel).stem.lower()))
    base = slug or "drawing-" + hashlib.sha256(rel.encode()).hexdigest()[:6]
    found, n = base, 2
    while found in taken:
        found, n = f"{base}-{n}", n + 1
    return found


def block_text(spec: dict) -> str:
    """The ```vaultkit block of an example, keys in the usual order, matrices one per line."""
    lines = ["```vaultkit"]
    for key in ORDER:
        if key not in spec:
            continue
        value = spec[key]
        if key == "scale" and math.isclose(value, 1 / math.sqrt(len(spec["Q"][0]))):
            continue  # the default: 1/√d
        dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=math.inf)
        lines.append(f"{key}: {dumped.strip().removesuffix('...').strip()}")
    lines.append("```")
    return "\n".join(lines)


def embed_line(note, rel: str, pipeline: Pipeline) -> int | None:
    """0-based line of the first embed of `rel` in the note: a real one, else one in a code block."""
    for link in extract_links(note):
        if link.embed and pipeline.index.resolve(link.path, note.rel).target == rel:
            return link.line - 1
    names = (rel, PurePosixPath(rel).name)
    for number, line in enumerate(note.text.split("\n")):
        if any(f"![[{name}" in line for name in names):
            return number
    return None


def insert_blocks(text: str, tokens, inserts: list[tuple[int, str]]) -> str:
    """`text` with each block after the top-level block that holds its line (0-based)."""
    lines = text.split("\n")
    for line, block in sorted(inserts, reverse=True):
        end = next((t.map[1] for t in tokens if t.level == 0 and t.map and t.map[0] <= line < t.map[1]),
                   line + 1)
        spacer = [""] if end < len(lines) and lines[end].strip() else []
        lines[end:end] = ["", *block.split("\n"), *spacer]
    return "\n".join(lines)


def adoptions(pipeline: Pipeline) -> tuple[list[FileChange], list[str]]:
    """The note changes that adopt every drawing read with no doubt, and the drawings left out, why."""
    inserts: dict[str, list[tuple[int, str]]] = {}
    taken = set(pipeline.runner.examples)
    skipped = []
    for figure in pipeline.figures():
        if figure.implied is None:
            continue
        host = next(((note, line) for note in pipeline.vault.readable_notes
                     if (line := embed_line(note, figure.rel, pipeline)) is not None), None)
        if host is None:
            skipped.append(f"{figure.rel}: no note embeds it")
            continue
        ex_id = example_id(figure.rel, taken)
        taken.add(ex_id)
        inserts.setdefault(host[0].rel, []).append((host[1], block_text({"id": ex_id, **figure.implied})))
    changes = []
    for rel, blocks in inserts.items():
        note = pipeline.vault.notes[rel]
        new = insert_blocks(note.text, note.tokens, blocks)
        changes.append(FileChange(rel, note.path, note.source.raw, note.source.encode(new)))
    return changes, skipped
