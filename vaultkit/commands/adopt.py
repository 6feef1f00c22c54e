"""`vaultkit fix --adopt`: make a drawing's implied example a ```vaultkit block of its own.

A drawing that shows its own Q and K is checked with no block (see `checks.drawings.inferred`). Adopting
it writes that example, as read from the drawing, into the note that embeds the drawing, right
after the paragraph (or code block) holding the embed. From then on the block is the source:
editing Q or K in the note recomputes the generated tables and the drawing's numbers.

A decode walkthrough in prose that promises a figure it does not have (`如下图`, see
`vaultkit.checks.walkthrough`) is adopted too: after the block holding that sentence go a
`kv-cache` block built from what the walkthrough states (its tokens, its weights marked
illustrative) and the embed of the figure `fix` then draws from it.
Nothing is adopted unless asked for.
"""

from __future__ import annotations

import hashlib
import math
import re
from pathlib import PurePosixPath

import yaml

from vaultkit.model.links import extract_links
from vaultkit.pipeline import FileChange, Pipeline

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
        end = next((t.map[1] for t in tokens if t.level == 0 and t.map and t.map[0] <= line < t.map[1]), line + 1)
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
        host = next(
            (
                (note, line)
                for note in pipeline.vault.readable_notes
                if (line := embed_line(note, figure.rel, pipeline)) is not None
            ),
            None,
        )
        if host is None:
            skipped.append(f"{figure.rel}: no note embeds it")
            continue
        ex_id = example_id(figure.rel, taken)
        taken.add(ex_id)
        inserts.setdefault(host[0].rel, []).append((host[1], block_text({"id": ex_id, **figure.implied})))
    for note in pipeline.vault.readable_notes:
        adopted = walkthrough_adoption(note, pipeline, taken, skipped)
        if adopted is not None:
            inserts.setdefault(note.rel, []).append(adopted)
    changes = []
    for rel, blocks in inserts.items():
        note = pipeline.vault.notes[rel]
        new = insert_blocks(note.text, note.tokens, blocks)
        changes.append(FileChange(rel, note.path, note.source.raw, note.source.encode(new)))
    return changes, skipped


def walkthrough_adoption(note, pipeline: Pipeline, taken: set, skipped: list[str]) -> tuple[int, str] | None:
    """(0-based line, text) of the block and embed that draw the figure a walkthrough promises."""
    from vaultkit.checks import walkthrough

    if not walkthrough.reader.may_have(note.text):
        return None
    report = walkthrough.check_markdown(note.text, note.tokens, note.rel)
    reading = report.reading
    promise = next((p for p in reading.promises if not p.fulfilled), None)
    if promise is None or not reading.walkthroughs:
        return None
    walk = max(
        (w for w in reading.walkthroughs if w.line <= promise.line),
        key=lambda w: w.line,
        default=reading.walkthroughs[0],
    )
    wrong = [d for d in report.diagnostics if d.severity == "error" and walk.line <= d.line]
    if wrong:
        skipped.append(f"{note.rel}:{promise.line}: the walkthrough has {len(wrong)} errors; correct them, then adopt")
        return None
    stem = PurePosixPath(note.rel).stem.lower()
    slug = "-".join(re.findall(r"[a-z0-9]+", stem))
    if not re.search(r"[a-z]", slug):  # a name in Chinese, or only a number
        slug = "walkthrough-" + (slug or hashlib.sha256(note.rel.encode()).hexdigest()[:6])
    base = f"{slug}-steps"
    folder = pipeline.vault.settings.attachment_dir(note.rel)
    folder = "assets" if folder is None else folder
    found, n = base, 2
    while found in taken or (pipeline.vault.root / folder / f"{found}.svg").exists():
        found, n = f"{base}-{n}", n + 1
    taken.add(found)
    figure = f"{folder}/{found}.svg" if folder else f"{found}.svg"
    spec = walkthrough_spec(walk)
    text = walkthrough_block(found, spec, figure) + f"\n\n![[{figure}|680]]"
    return promise.line - 1, text


def walkthrough_spec(walk) -> dict:
    """tokens, prompt_len and the stated weights per position (percent strings), 0-based."""
    queries = [s.query for s in walk.steps if s.query is not None]
    top = max([walk.base + len(walk.tokens) - 1, *queries])
    count = top - walk.base + 1
    tokens = [
        walk.name(walk.base + i) if walk.base + i - walk.base < len(walk.tokens) else f"#{walk.base + i}"
        for i in range(count)
    ]
    unique = {t for t in tokens if tokens.count(t) == 1 and not t.isdigit()}
    rows: list[dict | None] = [None] * count
    for step in walk.steps:
        if step.query is None or not step.weights or rows[step.query - walk.base] is not None:
            continue
        row = {}
        for share in step.weights[0].shares:
            labels = [
                tokens[p - walk.base] if tokens[p - walk.base] in unique else p - walk.base for p in share.positions
            ]
            key = labels[0] if len(labels) == 1 else "/".join(str(x) for x in labels)
            row[key] = f"{share.percent:g}%"
        rows[step.query - walk.base] = row
    first = min(queries) - walk.base if queries else 0
    return {"tokens": tokens, "prompt_len": max(first, 1), "weights": rows}


def walkthrough_block(ex_id: str, spec: dict, figure: str) -> str:
    def flow(value) -> str:
        dumped = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=math.inf, sort_keys=False)
        return dumped.strip().removesuffix("...").strip()

    lines = ["```vaultkit", f"id: {ex_id}", "kind: kv-cache", f"tokens: {flow(spec['tokens'])}"]
    if spec["prompt_len"] != 1:
        lines.append(f"prompt_len: {spec['prompt_len']}")
    lines.append("weights:  # as the walkthrough states them, in percent; null where it gives none")
    lines += [f"  - {'null' if row is None else flow(row)}" for row in spec["weights"]]
    lines += ["illustrative: true", f"figure: {figure}", "```"]
    return "\n".join(lines)
